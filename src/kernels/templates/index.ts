/**
 * The index kernels written once: gather, scatter, index_put, index_get, nonzero and
 * masked_select, with the combining step of the indexed writes.
 * Reads run as ELEMENT launches over the index's elements; in error mode every index is
 * checked, and the first bad one an invocation meets is reported.
 */
import type { Dialect } from "../dialect.ts";

/** gather (slots.ts; shape: of the index = of the output). */
export const gather = (d: Dialect): string =>
  String.raw`
/* out[p] = in[p with p[axis] = idx[p]]; ELEMENT launch over the index's elements. */
${d.kernel}
  int rank = int(PT_A(PT_GATHER_RANK));
  if (rank == 0) rank = 1; /* a 0-d index is 1-d of one element */
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = PT_SHAPE(PT_GATHER_SHAPE, rank, shape);
  const int axis = int(PT_A(PT_GATHER_AXIS)), mode = int(PT_A(PT_GATHER_MODE));
  const pt_i64 size = PT_A(PT_GATHER_SIZE);
  const pt_view vin = PT_VIEW(PT_GATHER_IN), ix = PT_VIEW(PT_GATHER_IDX), vout = PT_VIEW(PT_GATHER_OUT);
  pt_i64 ist[PT_MAX_RANK]; /* in's strides with the axis left out */
  pt_i64 astride = 0;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) {
    ist[d] = d == axis ? pt_i64(0) : vin.st[d];
    if (d == axis) astride = vin.st[d];
  }
  for (pt_i64 i = PT_FIRST; i < n; i += PT_STEP) {
    const pt_i64 v = pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st));
    const pt_i64 k = pt_norm_index(v, size, mode);
    if (k < 0) { PT_FAIL(PT_KERR_INDEX, v, axis, size); return; }
    pt_copy_elem(vout.b, vout.dt, vout.off + pt_offset_of(i, rank, shape, vout.st), vin.b, vin.dt,
                 vin.off + pt_offset_of(i, rank, shape, ist) + k * astride);
  }
}
`;

/**
 * The helpers of index_put and index_get (slots.ts's index block: OUT's VIEW strides are the indexed dims', VALS's
 * are over bshape, and each has rest strides after it). VALS starts at PT_INDEX_VALS(k); k is read at run time, so
 * each possible k (and each index array q) is a branch with constant slot numbers: CUDA copies a parameter block
 * indexed at run time to local memory.
 */
export const IP_HELPERS = String.raw`
struct pt_ip {
  int k, brank, rrank, mode, acc;
  pt_i64 bshape[PT_MAX_RANK], rshape[PT_MAX_RANK], nb, nr;
  pt_view vout; /* st: the indexed dims' strides */
  pt_i64 orest[PT_MAX_RANK];
  pt_view vals; /* st: strides over bshape */
  pt_i64 vrest[PT_MAX_RANK];
};

PT_FN void pt_ip_parse(PT_CTX PT_OUT(pt_ip) j) {
  j.k = int(PT_A(PT_INDEX_K));
  j.brank = int(PT_A(PT_INDEX_BRANK));
  j.rrank = int(PT_A(PT_INDEX_RRANK));
  j.mode = int(PT_A(PT_INDEX_MODE));
  j.acc = int(PT_A(PT_INDEX_ACCUMULATE));
  j.nb = PT_SHAPE(PT_INDEX_BSHAPE, j.brank, j.bshape);
  j.nr = PT_SHAPE(PT_INDEX_RSHAPE, j.rrank, j.rshape);
  j.vout = PT_VIEW(PT_INDEX_OUT);
  j.vals = j.vout;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) {
    j.orest[d] = PT_A(PT_INDEX_OUT_REST + d);
    j.vrest[d] = 0;
  }
  PT_UNROLL
  for (int kk = 1; kk <= PT_MAX_RANK; kk++) {
    if (kk == j.k) {
      j.vals = PT_VIEW(PT_INDEX_VALS(kk));
      PT_UNROLL
      for (int d = 0; d < PT_MAX_RANK; d++) j.vrest[d] = PT_A(PT_INDEX_VALS_REST(kk) + d);
    }
  }
}

/* Index q at bshape position b: its raw value. */
PT_FN pt_i64 pt_ip_index(PT_CTX PT_CREF(pt_ip) j, int q, pt_i64 b) {
  pt_i64 v = 0;
  PT_UNROLL
  for (int qq = 0; qq < PT_MAX_RANK; qq++) {
    if (qq == q) {
      const pt_view x = PT_VIEW(PT_INDEX_IDX + PT_VIEW_SLOTS * qq);
      v = pt_ld_i64(x.b, x.dt, x.off + pt_offset_of(b, j.brank, j.bshape, x.st));
    }
  }
  return v;
}

/* Size of indexed dim q. */
PT_FN pt_i64 pt_ip_dim(PT_CTX int q) {
  pt_i64 s = 0;
  PT_UNROLL
  for (int qq = 0; qq < PT_MAX_RANK; qq++)
    if (qq == q) s = PT_A(PT_INDEX_DIMS + qq);
  return s;
}

/* off = the out element offset (from vout.off) of bshape position b's indexed dims.
 * Returns -1, or the first q whose index is bad (its raw value in bad_value). */
PT_FN int pt_ip_base(PT_CTX PT_CREF(pt_ip) j, pt_i64 b, PT_OUT(pt_i64) off, PT_OUT(pt_i64) bad_value) {
  off = 0;
  bad_value = 0;
  PT_UNROLL
  for (int q = 0; q < PT_MAX_RANK; q++) {
    if (q < j.k) {
      const pt_i64 v = pt_ip_index(PT_PASS j, q, b), x = pt_norm_index(v, PT_A(PT_INDEX_DIMS + q), j.mode);
      if (x < 0) {
        bad_value = v;
        return q;
      }
      off += x * j.vout.st[q];
    }
  }
  return -1;
}
`;

/** index_get (index_put's block, accumulate 0): vals[b, r] = out[idx0[b], ..., idx(k-1)[b], r]; ELEMENT launch over nb * nr. */
export const indexGet = (d: Dialect): string =>
  IP_HELPERS + String.raw`
${d.kernel}
  pt_ip j;
  pt_ip_parse(PT_PASS j);
  const pt_i64 total = j.nb * j.nr;
  for (pt_i64 i = PT_FIRST; i < total; i += PT_STEP) {
    const pt_i64 b = i / j.nr, r = i - b * j.nr;
    pt_i64 base, v;
    const int q = pt_ip_base(PT_PASS j, b, base, v);
    if (q >= 0) { PT_FAIL(PT_KERR_INDEX, v, q, pt_ip_dim(PT_PASS q)); return; }
    pt_copy_elem(j.vals.b, j.vals.dt, j.vals.off + pt_offset_of(b, j.brank, j.bshape, j.vals.st) +
                 pt_offset_of(r, j.rrank, j.rshape, j.vrest), j.vout.b, j.vout.dt,
                 j.vout.off + base + pt_offset_of(r, j.rrank, j.rshape, j.orest));
  }
}
`;

/** Counting and group-wide ordered compaction for nonzero and masked_select (SERIAL: group 0 alone). */
const COMPACT_HELPERS = String.raw`
PT_SHARED_GLOBAL(pt_i64, pt_cnt_sh)
PT_SHARED_GLOBAL(int, pt_scan_sh)

/* Nonzero elements of view t over shape, counted by the group (every invocation gets it). */
PT_FN pt_i64 pt_group_count(PT_SH(pt_i64, pt_cnt_sh) pt_view t, pt_i64 n, int rank, PT_ARR(pt_i64, shape), int tid) {
  pt_i64 c = 0;
  for (pt_i64 i = tid; i < n; i += PT_BLOCK)
    if (pt_is_nonzero(t.b, t.dt, t.off + pt_offset_of(i, rank, shape, t.st))) c += 1;
  pt_cnt_sh[tid] = c;
  PT_SYNC();
  PT_UNROLL
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) pt_cnt_sh[tid] += pt_cnt_sh[tid + w];
    PT_SYNC();
  }
  const pt_i64 r = pt_cnt_sh[0];
  PT_SYNC();
  return r;
}

/* Inclusive prefix sum of f over the group in invocation order; total = the sum. It runs once per
 * PT_BLOCK elements: unrolled, since llvmpipe ends a shader's loops after so many passes (glsl/preamble.ts). */
PT_FN int pt_group_scan(PT_SH(int, pt_scan_sh) int f, PT_OUT(int) total, int tid) {
  pt_scan_sh[tid] = f;
  PT_SYNC();
  PT_UNROLL
  for (int s = 1; s < PT_BLOCK; s <<= 1) {
    const int t = tid >= s ? pt_scan_sh[tid - s] : 0;
    PT_SYNC();
    pt_scan_sh[tid] += t;
    PT_SYNC();
  }
  const int incl = pt_scan_sh[tid];
  total = pt_scan_sh[PT_BLOCK - 1];
  PT_SYNC(); /* read by all before the next scan writes */
  return incl;
}
`;

/**
 * A compaction kernel of `kind` (nonzero, masked_select: their blocks start alike): the group counts the nonzero
 * elements of view `counted` over the shape and reports PT_KERR_COUNT (details: expected, found) without writing
 * when the count is not the block's; then it
 * walks PT_BLOCK elements at a time, and `write` stores each selected element i at row `row + incl - 1`.
 */
const compact = (d: Dialect, kind: string, views: string, counted: string, write: string): string =>
  COMPACT_HELPERS + String.raw`
${d.kernel}
  PT_SHARED_LOCAL(pt_i64, pt_cnt_sh)
  PT_SHARED_LOCAL(int, pt_scan_sh)
  const int rank = int(PT_A(PT_${kind}_RANK));
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = PT_SHAPE(PT_${kind}_SHAPE, rank, shape);
  ${views}
  const pt_i64 want = PT_A(PT_${kind}_COUNT);
  const int tid = PT_TID;
  if (PT_GROUP_ID != 0) return;
  const pt_i64 found = pt_group_count(PT_SH_PASS(pt_cnt_sh) ${counted}, n, rank, shape, tid);
  if (found != want) {
    if (tid == 0) PT_FAIL(PT_KERR_COUNT, want, found, 0);
    return;
  }
  pt_i64 row = 0;
  for (pt_i64 c0 = 0; c0 < n; c0 += PT_BLOCK) {
    const pt_i64 i = c0 + tid;
    const int f = i < n && pt_is_nonzero(${counted}.b, ${counted}.dt, ${counted}.off + pt_offset_of(i, rank, shape, ${counted}.st)) ? 1 : 0;
    int total;
    const int incl = pt_group_scan(PT_SH_PASS(pt_scan_sh) f, total, tid);
    if (f != 0) {
${write}
    }
    row += total;
  }
}
`;

/** nonzero (slots.ts): OUT is int64 [count, rank] contiguous, row-major order. */
export const nonzero = (d: Dialect): string =>
  compact(
    d,
    "NONZERO",
    "const pt_view vin = PT_VIEW(PT_NONZERO_IN);",
    "vin",
    String.raw`      pt_i64 r = i;
      const pt_i64 at = (row + incl - 1) * rank;
      for (int k = rank - 1; k >= 0; k--) {
        const pt_i64 q = r / shape[k];
        pt_st_i64(PT_BUF(PT_NONZERO_OUT), PT_I64, at + k, r - q * shape[k]);
        r = q;
      }`,
  );

/** masked_select (slots.ts; OUT is 1-D: its stride 0 is used). */
export const maskedSelect = (d: Dialect): string =>
  compact(
    d,
    "MASKED_SELECT",
    "const pt_view vin = PT_VIEW(PT_MASKED_SELECT_IN), mask = PT_VIEW(PT_MASKED_SELECT_MASK), vout = PT_VIEW(PT_MASKED_SELECT_OUT);",
    "mask",
    String.raw`      pt_copy_elem(vout.b, vout.dt, vout.off + (row + incl - 1) * vout.st[0], vin.b, vin.dt,
                   vin.off + pt_offset_of(i, rank, shape, vin.st));`,
  );

/**
 * The ordered writes of scatter and index_put (SERIAL: group 0 alone). The group finds each element's destination
 * and source offsets, PT_BLOCK elements at a time, then invocation 0 combines them in row-major order, so the last
 * writer wins and float accumulation has one order. In error mode every index is checked (by the whole group) before
 * the first write, so a failed scatter or index_put leaves its output untouched; the first bad index in row-major
 * order is the one reported. pt_combine is =, +=, max= or min=: floats in pt_facc (float-float on Metal, which has no
 * double), ints in int64 with wrap, NaN winning max and min as the CPU's do.
 */
const WRITE_HELPERS = String.raw`
PT_FN void pt_combine(PT_PTR db, int ddt, pt_i64 di, PT_PTR sb, int sdt, pt_i64 si, int reduce) {
  if (reduce == 0) {
    pt_copy_elem(db, ddt, di, sb, sdt, si);
    return;
  }
  if (pt_is_float(ddt)) {
    const pt_facc x = pt_ld_facc(db, ddt, di), y = pt_ld_facc(sb, sdt, si);
    pt_facc r;
    if (reduce == 1) r = pt_facc_add(x, y);
    else if (pt_facc_isnan(x) || pt_facc_isnan(y)) r = pt_facc_isnan(x) ? x : y;
    else if (reduce == 2) r = pt_facc_lt(y, x) ? x : y;
    else r = pt_facc_lt(x, y) ? x : y;
    pt_st_facc(db, ddt, di, r);
  } else {
    const pt_i64 x = pt_ld_i64(db, ddt, di), y = pt_ld_i64(sb, sdt, si);
    pt_i64 r;
    if (reduce == 1) r = pt_i64(pt_u64(x) + pt_u64(y));
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i64(db, ddt, di, r);
  }
}
PT_SHARED_GLOBAL(pt_i64, pt_dst)
PT_SHARED_GLOBAL(pt_i64, pt_src)
PT_SHARED_GLOBAL(pt_i64, pt_mins)
#define PT_WRITE_UNROLL 4

/* Invocation 0 combines the chunk's first m pairs in order, 4 a loop pass: with one a pass,
 * llvmpipe would end its loops (glsl/preamble.ts) after about 60k writes; with 4, a launch writes
 * 200k there, and each doubling of the unroll costs seconds more of llvmpipe's compile time. */
PT_FN void pt_write_chunk(PT_SH(pt_i64, pt_dst) PT_SH(pt_i64, pt_src) PT_PTR db, int ddt, PT_PTR sb, int sdt, int m, int reduce) {
  for (int j0 = 0; j0 < m; j0 += PT_WRITE_UNROLL) {
    PT_UNROLL
    for (int u = 0; u < PT_WRITE_UNROLL; u++)
      if (j0 + u < m) pt_combine(db, ddt, pt_dst[j0 + u], sb, sdt, pt_src[j0 + u], reduce);
  }
}

/* The smallest of the group's values (every invocation gets it); PT_I64_MAX for none. */
PT_FN pt_i64 pt_group_min(PT_SH(pt_i64, pt_mins) pt_i64 v, int tid) {
  pt_mins[tid] = v;
  PT_SYNC();
  PT_UNROLL
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w && pt_mins[tid + w] < pt_mins[tid]) pt_mins[tid] = pt_mins[tid + w];
    PT_SYNC();
  }
  const pt_i64 r = pt_mins[0];
  PT_SYNC();
  return r;
}
`;

const WRITE_ARRAYS = String.raw`  PT_SHARED_LOCAL(pt_i64, pt_dst)
  PT_SHARED_LOCAL(pt_i64, pt_src)
  PT_SHARED_LOCAL(pt_i64, pt_mins)`;

/** scatter (slots.ts; shape: of the index). */
export const scatter = (d: Dialect): string =>
  WRITE_HELPERS + String.raw`
/* out[p with p[axis] = idx[p]] (=, +=, max=, min=) src[p] in row-major order of p. */
${d.kernel}
${WRITE_ARRAYS}
  int rank = int(PT_A(PT_SCATTER_RANK));
  if (rank == 0) rank = 1;
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = PT_SHAPE(PT_SCATTER_SHAPE, rank, shape);
  const int axis = int(PT_A(PT_SCATTER_AXIS)), mode = int(PT_A(PT_SCATTER_MODE)), reduce = int(PT_A(PT_SCATTER_REDUCE));
  const pt_i64 size = PT_A(PT_SCATTER_SIZE);
  const pt_view vout = PT_VIEW(PT_SCATTER_OUT), ix = PT_VIEW(PT_SCATTER_IDX), src = PT_VIEW(PT_SCATTER_SRC);
  const int tid = PT_TID;
  if (PT_GROUP_ID != 0 || n == 0) return;
  pt_i64 ost[PT_MAX_RANK]; /* out's strides with the axis left out */
  pt_i64 astride = 0;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) {
    ost[d] = d == axis ? pt_i64(0) : vout.st[d];
    if (d == axis) astride = vout.st[d];
  }
  if (mode == 0 || size <= 0) { /* find the first bad index before writing anything */
    pt_i64 mine = PT_I64_MAX;
    for (pt_i64 i = tid; i < n; i += PT_BLOCK)
      if (pt_norm_index(pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode) < 0) {
        mine = i;
        break;
      }
    const pt_i64 bad = pt_group_min(PT_SH_PASS(pt_mins) mine, tid);
    if (bad != PT_I64_MAX) {
      if (tid == 0) PT_FAIL(PT_KERR_INDEX, pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(bad, rank, shape, ix.st)), axis, size);
      return;
    }
  }
  for (pt_i64 c0 = 0; c0 < n; c0 += PT_BLOCK) {
    const pt_i64 i = c0 + tid;
    if (i < n) {
      const pt_i64 k = pt_norm_index(pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode);
      pt_dst[tid] = vout.off + pt_offset_of(i, rank, shape, ost) + k * astride;
      pt_src[tid] = src.off + pt_offset_of(i, rank, shape, src.st);
    }
    PT_SYNC();
    if (tid == 0) pt_write_chunk(PT_SH_PASS(pt_dst) PT_SH_PASS(pt_src) vout.b, vout.dt, src.b, src.dt, int(n - c0 < PT_BLOCK ? n - c0 : pt_i64(PT_BLOCK)), reduce);
    PT_SYNC(); /* invocation 0 has read the offsets before the next chunk's replace them */
  }
}
`;

/** index_put (IP_HELPERS' block): out[idx0[b], ..., idx(k-1)[b], r] (= or +=) vals[b, r], row-major over (b, r). */
export const indexPut = (d: Dialect): string =>
  WRITE_HELPERS + IP_HELPERS + String.raw`
${d.kernel}
${WRITE_ARRAYS}
  pt_ip j;
  pt_ip_parse(PT_PASS j);
  const int tid = PT_TID;
  if (PT_GROUP_ID != 0) return;
  /* Each index array in turn, in error mode (or with a zero-size dim): the first bad one. */
  PT_UNROLL
  for (int q = 0; q < PT_MAX_RANK; q++) {
    const pt_i64 size = PT_A(PT_INDEX_DIMS + q);
    if (q < j.k && j.nb > 0 && (j.mode == 0 || size <= 0)) {
      pt_i64 mine = PT_I64_MAX;
      for (pt_i64 b = tid; b < j.nb; b += PT_BLOCK)
        if (pt_norm_index(pt_ip_index(PT_PASS j, q, b), size, j.mode) < 0) {
          mine = b;
          break;
        }
      const pt_i64 at = pt_group_min(PT_SH_PASS(pt_mins) mine, tid);
      if (at != PT_I64_MAX) {
        if (tid == 0) PT_FAIL(PT_KERR_INDEX, pt_ip_index(PT_PASS j, q, at), q, size);
        return;
      }
    }
  }
  const pt_i64 total = j.nb * j.nr;
  for (pt_i64 c0 = 0; c0 < total; c0 += PT_BLOCK) {
    const pt_i64 e = c0 + tid;
    if (e < total) {
      const pt_i64 b = e / j.nr, r = e - b * j.nr;
      pt_i64 base, unused;
      pt_ip_base(PT_PASS j, b, base, unused); /* every index was checked (or clamps, or wraps) */
      pt_dst[tid] = j.vout.off + base + pt_offset_of(r, j.rrank, j.rshape, j.orest);
      pt_src[tid] = j.vals.off + pt_offset_of(b, j.brank, j.bshape, j.vals.st) + pt_offset_of(r, j.rrank, j.rshape, j.vrest);
    }
    PT_SYNC();
    if (tid == 0) pt_write_chunk(PT_SH_PASS(pt_dst) PT_SH_PASS(pt_src) j.vout.b, j.vout.dt, j.vals.b, j.vals.dt, int(total - c0 < PT_BLOCK ? total - c0 : pt_i64(PT_BLOCK)), j.acc);
    PT_SYNC(); /* invocation 0 has read the offsets before the next chunk's replace them */
  }
}
`;
