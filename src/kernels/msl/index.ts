/**
 * scatter and index_put (index.c on the CPU,
 * cuda/index.ts on CUDA). Reads run as ELEMENT launches; writes that may collide (scatter,
 * index_put) as SERIAL launches where thread 0 walks in row-major order, so the last writer
 * wins and float accumulation has one order. In error mode every index is checked (by the
 * whole threadgroup) before the first write, so a failed scatter or index_put leaves its
 * output untouched; the first bad index in row-major order is the one reported. That first
 * one is found with a min-fold in threadgroup memory, since 64-bit atomics are not portable
 * across Metal GPUs.
 * gather, index_get, nonzero, masked_select and index_put's helpers are templates/index.ts.
 */
import { IP_HELPERS } from "../templates/index.ts";
import { KERNEL_HEAD } from "./preamble.ts";

/** Helpers of the indexed-write kernels. */
const INDEX_HELPERS = String.raw`
#define PT_NONE 0xfffffffffffffffful

/* reduce: 0 set 1 add 2 max 3 min. Floats combine as the CPU's f64 values do (df here), ints
 * in int64 with wrap. */
inline void pt_combine(pt_ptr db, int ddt, long di, pt_ptr sb, int sdt, long si, int reduce) {
  if (reduce == 0) { pt_copy_elem(db, ddt, di, sb, sdt, si); return; }
  if (pt_is_float(ddt)) {
    const pt_df x = pt_ld_df(db, ddt, di), y = pt_ld_df(sb, sdt, si);
    pt_df r;
    if (reduce == 1) r = pt_df_add(x, y);
    else if (x.hi != x.hi || y.hi != y.hi) r = x.hi != x.hi ? x : y;
    else if (reduce == 2) r = pt_df_lt(y, x) ? x : y;
    else r = pt_df_lt(x, y) ? x : y;
    pt_st_df(db, ddt, di, r);
  } else {
    const long x = pt_ld_i(db, ddt, di), y = pt_ld_i(sb, sdt, si);
    long r;
    if (reduce == 1) r = (long)((ulong)x + (ulong)y);
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i(db, ddt, di, r);
  }
}

/* The smallest of the threads' values, known to every thread. */
inline ulong pt_group_min(ulong v, threadgroup ulong *sh, uint lid) {
  sh[lid] = v;
  PT_BARRIER;
  for (uint w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (lid < w && sh[lid + w] < sh[lid]) sh[lid] = sh[lid + w];
    PT_BARRIER;
  }
  const ulong r = sh[0];
  PT_BARRIER; /* read by all before sh is written again */
  return r;
}
`;

/** scatter [rank, shape x8 (of index), axis, axis size, mode, reduce, OUT VIEW, IDX VIEW, SRC VIEW]. */
export const SCATTER = INDEX_HELPERS + String.raw`
/* out[p with p[axis] = idx[p]] (=, +=, max=, min=) src[p] in row-major order of p; SERIAL. */
${KERNEL_HEAD}
  threadgroup ulong sh[PT_BLOCK];
  int rank = (int)PT_A(0);
  if (rank == 0) rank = 1;
  long shape[PT_MAX_RANK];
  const long n = pt_shape_at(p, 1, rank, shape);
  const int axis = (int)PT_A(9), mode = (int)PT_A(11), reduce = (int)PT_A(12);
  const long size = PT_A(10);
  const pt_view vout = pt_view_at(p, B, 13), ix = pt_view_at(p, B, 24), src = pt_view_at(p, B, 35);
  if (group.x != 0 || n == 0) return;
  long ost[PT_MAX_RANK], astride = 0;
  for (int d = 0; d < PT_MAX_RANK; d++) {
    ost[d] = d == axis ? 0 : vout.st[d];
    if (d == axis) astride = vout.st[d];
  }
  if (mode == 0 || size <= 0) { /* find the first bad index before writing anything */
    ulong mine = PT_NONE;
    for (long i = lid; i < n; i += PT_BLOCK)
      if (pt_norm_index(pt_ld_i(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode) < 0) {
        mine = (ulong)i;
        break;
      }
    const ulong bad = pt_group_min(mine, sh, lid);
    if (bad != PT_NONE) {
      if (lid == 0) pt_fail(err, PT_KERR_INDEX, pt_ld_i(ix.b, ix.dt, ix.off + pt_offset_of((long)bad, rank, shape, ix.st)), axis, size);
      return;
    }
  }
  if (lid != 0) return;
  for (long i = 0; i < n; i++) {
    const long k = pt_norm_index(pt_ld_i(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode);
    pt_combine(vout.b, vout.dt, vout.off + pt_offset_of(i, rank, shape, ost) + k * astride, src.b, src.dt,
               src.off + pt_offset_of(i, rank, shape, src.st), reduce);
  }
}
`;

/** index_put (the block of templates/index.ts IP_HELPERS). */
export const INDEX_PUT = INDEX_HELPERS + IP_HELPERS + String.raw`
/* out[idx0[b], ..., idx(k-1)[b], r] (= or +=) vals[b, r], row-major over (b, r); SERIAL. */
${KERNEL_HEAD}
  threadgroup ulong sh[PT_BLOCK];
  pt_ip j;
  pt_ip_parse(p, B, j);
  if (group.x != 0) return;
  /* Each index array in turn, in error mode (or with a zero-size dim): the first bad one. */
  for (int q = 0; q < j.k; q++) {
    const long size = PT_A(21 + q);
    if (j.nb > 0 && (j.mode == 0 || size <= 0)) {
      ulong mine = PT_NONE;
      for (long b = lid; b < j.nb; b += PT_BLOCK)
        if (pt_norm_index(pt_ip_index(p, B, j, q, b), size, j.mode) < 0) {
          mine = (ulong)b;
          break;
        }
      const ulong at = pt_group_min(mine, sh, lid);
      if (at != PT_NONE) {
        if (lid == 0) pt_fail(err, PT_KERR_INDEX, pt_ip_index(p, B, j, q, (long)at), q, size);
        return;
      }
    }
  }
  if (lid != 0) return;
  for (long b = 0; b < j.nb && j.nr > 0; b++) {
    long base = 0, unused = 0;
    pt_ip_base(p, B, j, b, base, unused); /* every index was checked (or clamps, or wraps) */
    base += j.vout.off;
    const long vb = j.vals.off + pt_offset_of(b, j.brank, j.bshape, j.vals.st);
    for (long r = 0; r < j.nr; r++)
      pt_combine(j.vout.b, j.vout.dt, base + pt_offset_of(r, j.rrank, j.rshape, j.orest), j.vals.b, j.vals.dt,
                 vb + pt_offset_of(r, j.rrank, j.rshape, j.vrest), j.acc);
  }
}
`;
