/**
 * scatter and index_put (index.c on the CPU;
 * the structure is cuda/index.ts's). Reads run as ELEMENT launches; writes that may
 * collide (scatter, index_put) as SERIAL launches that go 256 elements at a time: the group
 * finds each element's source and destination, then invocation 0 writes them in row-major
 * order, so the last writer wins and float accumulation has one order. In error mode every
 * index is checked (by the whole group) before the first write, so a failed scatter or
 * index_put leaves its output untouched; the first bad index in row-major order is the one
 * reported. The first bad position is found by a shared-memory min tree rather than an
 * atomic, since 64-bit shared atomics are not among params.h's device requirements.
 * gather, index_get, nonzero, masked_select and index_put's helpers are templates/index.ts.
 */
import { IP_HELPERS } from "../templates/index.ts";

/** Helpers of the indexed-write kernels. */
const INDEX_HELPERS = String.raw`
/* reduce: 0 set 1 add 2 max 3 min. Floats combine in double, ints in int64 with wrap. */
void pt_combine(uint64_t db, int ddt, int64_t di, uint64_t sb, int sdt, int64_t si, int reduce) {
  if (reduce == 0) { pt_copy_elem(db, ddt, di, sb, sdt, si); return; }
  if (pt_is_float(ddt)) {
    const double x = pt_ld_f64(db, ddt, di), y = pt_ld_f64(sb, sdt, si);
    double r;
    if (reduce == 1) r = pt_add(x, y);
    else if (isnan(x) || isnan(y)) r = isnan(x) ? x : y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_f64(db, ddt, di, r);
  } else {
    const int64_t x = pt_ld_i64(db, ddt, di), y = pt_ld_i64(sb, sdt, si);
    int64_t r;
    if (reduce == 1) r = x + y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i64(db, ddt, di, r);
  }
}

/* One chunk's writes: element offsets of destination and source, filled by the group. */
shared int64_t pt_dst[PT_BLOCK];
shared int64_t pt_src[PT_BLOCK];
#define PT_WRITE_UNROLL 4

/* Invocation 0 combines the chunk's first m pairs in order, 4 a loop pass: with one a pass,
 * llvmpipe would end its loops (preamble.ts) after about 60k writes; with 4, a launch writes
 * 200k there, and each doubling of the unroll costs seconds more of llvmpipe's compile time. */
void pt_write_chunk(uint64_t db, int ddt, uint64_t sb, int sdt, int m, int reduce) {
  for (int j0 = 0; j0 < m; j0 += PT_WRITE_UNROLL) [[unroll]] for (int u = 0; u < PT_WRITE_UNROLL; u++)
    if (j0 + u < m) pt_combine(db, ddt, pt_dst[j0 + u], sb, sdt, pt_src[j0 + u], reduce);
}

/* The smallest of the group's values (every invocation gets it); PT_I64_MAX for none. */
shared int64_t pt_mins[PT_BLOCK];
int64_t pt_group_min(int64_t v) {
  const int tid = int(gl_LocalInvocationID.x);
  pt_mins[tid] = v;
  barrier();
  [[unroll]] for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) pt_mins[tid] = min(pt_mins[tid], pt_mins[tid + w]);
    barrier();
  }
  const int64_t r = pt_mins[0];
  barrier();
  return r;
}
`;

/** scatter [rank, shape x8 (of index), axis, axis size, mode, reduce, OUT VIEW, IDX VIEW, SRC VIEW]. */
export const SCATTER = INDEX_HELPERS + String.raw`
/* out[p with p[axis] = idx[p]] (=, +=, max=, min=) src[p] in row-major order of p; SERIAL. */
void main() {
  int rank = int(PT_P.a[0]);
  if (rank == 0) rank = 1;
  int64_t shape[PT_MAX_RANK];
  const int64_t n = pt_shape_at(1, rank, shape);
  const int axis = int(PT_P.a[9]), mode = int(PT_P.a[11]), reduce = int(PT_P.a[12]);
  const int64_t size = PT_A(10);
  const pt_view vout = pt_view_at(13), ix = pt_view_at(24), src = pt_view_at(35);
  const int64_t tid = int64_t(gl_LocalInvocationID.x);
  if (gl_WorkGroupID.x != 0u || n == 0l) return;
  int64_t ost[PT_MAX_RANK];
  int64_t astride = 0;
  for (int d = 0; d < PT_MAX_RANK; d++) {
    ost[d] = d == axis ? 0l : vout.st[d];
    if (d == axis) astride = vout.st[d];
  }
  if (mode == 0 || size <= 0l) { /* find the first bad index before writing anything */
    int64_t mine = PT_I64_MAX;
    for (int64_t i = tid; i < n; i += PT_BLOCK)
      if (pt_norm_index(pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode) < 0l) {
        mine = i;
        break;
      }
    const int64_t bad = pt_group_min(mine);
    if (bad != PT_I64_MAX) {
      if (tid == 0l) pt_fail(PT_KERR_INDEX, pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(bad, rank, shape, ix.st)), int64_t(axis), size);
      return;
    }
  }
  for (int64_t c0 = 0; c0 < n; c0 += PT_BLOCK) {
    const int64_t i = c0 + tid;
    if (i < n) {
      const int64_t k = pt_norm_index(pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode);
      pt_dst[int(tid)] = vout.off + pt_offset_of(i, rank, shape, ost) + k * astride;
      pt_src[int(tid)] = src.off + pt_offset_of(i, rank, shape, src.st);
    }
    barrier();
    if (tid == 0l) pt_write_chunk(vout.b, vout.dt, src.b, src.dt, int(min(n - c0, int64_t(PT_BLOCK))), reduce);
    barrier(); /* invocation 0 has read the offsets before the next chunk's replace them */
  }
}
`;

/** index_put (the block of templates/index.ts IP_HELPERS). */
export const INDEX_PUT = INDEX_HELPERS + IP_HELPERS + String.raw`
/* out[idx0[b], ..., idx(k-1)[b], r] (= or +=) vals[b, r], row-major over (b, r); SERIAL. */
void main() {
  pt_ip j;
  pt_ip_parse(j);
  const int64_t tid = int64_t(gl_LocalInvocationID.x);
  if (gl_WorkGroupID.x != 0u) return;
  /* Each index array in turn, in error mode (or with a zero-size dim): the first bad one. */
  for (int q = 0; q < j.k; q++) {
    const int64_t size = PT_A(21 + q);
    if (j.nb > 0l && (j.mode == 0 || size <= 0l)) {
      int64_t mine = PT_I64_MAX;
      for (int64_t b = tid; b < j.nb; b += PT_BLOCK)
        if (pt_norm_index(pt_ip_index(j, q, b), size, j.mode) < 0l) {
          mine = b;
          break;
        }
      const int64_t at = pt_group_min(mine);
      if (at != PT_I64_MAX) {
        if (tid == 0l) pt_fail(PT_KERR_INDEX, pt_ip_index(j, q, at), int64_t(q), size);
        return;
      }
    }
  }
  const int64_t total = j.nb * j.nr;
  for (int64_t c0 = 0; c0 < total; c0 += PT_BLOCK) {
    const int64_t e = c0 + tid;
    if (e < total) {
      const int64_t b = e / j.nr, r = e - b * j.nr;
      int64_t base, unused;
      pt_ip_base(j, b, base, unused); /* every index was checked (or clamps, or wraps) */
      pt_dst[int(tid)] = j.vout.off + base + pt_offset_of(r, j.rrank, j.rshape, j.orest);
      pt_src[int(tid)] = j.vals.off + pt_offset_of(b, j.brank, j.bshape, j.vals.st) + pt_offset_of(r, j.rrank, j.rshape, j.vrest);
    }
    barrier();
    if (tid == 0l) pt_write_chunk(j.vout.b, j.vout.dt, j.vals.b, j.vals.dt, int(min(total - c0, int64_t(PT_BLOCK))), j.acc);
    barrier(); /* invocation 0 has read the offsets before the next chunk's replace them */
  }
}
`;
