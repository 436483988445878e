/**
 * scatter and index_put (index.c on the CPU).
 * Reads run as ELEMENT launches; writes that may collide (scatter, index_put) as SERIAL
 * launches where thread 0 walks in row-major order, so the last writer wins and float
 * accumulation has one order. In error mode every index is checked (by the whole block)
 * before the first write, so a failed scatter or index_put leaves its output untouched;
 * the first bad index in row-major order is the one reported.
 * gather, index_get, nonzero, masked_select and index_put's helpers are templates/index.ts.
 */
import { IP_HELPERS } from "../templates/index.ts";

/** Helpers of the indexed-write kernels. */
const INDEX_HELPERS = String.raw`
/* reduce: 0 set 1 add 2 max 3 min. Floats combine in double, ints in int64 with wrap. */
static __device__ __forceinline__ void pt_combine(char *db, int ddt, pt_i64 di, const char *sb, int sdt, pt_i64 si, int reduce) {
  if (reduce == 0) { pt_copy_elem(db, ddt, di, sb, sdt, si); return; }
  if (pt_is_float(ddt)) {
    const double x = pt_ld_f64(db, ddt, di), y = pt_ld_f64(sb, sdt, si);
    double r;
    if (reduce == 1) r = pt_add(x, y);
    else if (x != x || y != y) r = x != x ? x : y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_f64(db, ddt, di, r);
  } else {
    const pt_i64 x = pt_ld_i64(db, ddt, di), y = pt_ld_i64(sb, sdt, si);
    pt_i64 r;
    if (reduce == 1) r = (pt_i64)((pt_u64)x + (pt_u64)y);
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i64(db, ddt, di, r);
  }
}

#define PT_NONE 0xffffffffffffffffull
`;

/** scatter [rank, shape x8 (of index), axis, axis size, mode, reduce, OUT VIEW, IDX VIEW, SRC VIEW]. */
export const SCATTER = INDEX_HELPERS + String.raw`
/* out[p with p[axis] = idx[p]] (=, +=, max=, min=) src[p] in row-major order of p; SERIAL. */
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_u64 bad;
  int rank = (int)p.a[0];
  if (rank == 0) rank = 1;
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = pt_shape_at(p, 1, rank, shape);
  const int axis = (int)p.a[9], mode = (int)p.a[11], reduce = (int)p.a[12];
  const pt_i64 size = PT_A(10);
  const pt_view out = pt_view_at(p, 13), ix = pt_view_at(p, 24), src = pt_view_at(p, 35);
  const int tid = threadIdx.x;
  if (blockIdx.x != 0 || n == 0) return;
  pt_i64 ost[PT_MAX_RANK], astride = 0;
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) {
    ost[d] = d == axis ? 0 : out.st[d];
    if (d == axis) astride = out.st[d];
  }
  if (mode == 0 || size <= 0) { /* find the first bad index before writing anything */
    if (tid == 0) bad = PT_NONE;
    __syncthreads();
    for (pt_i64 i = tid; i < n; i += PT_BLOCK)
      if (pt_norm_index(pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode) < 0) {
        atomicMin(&bad, (pt_u64)i);
        break;
      }
    __syncthreads();
    if (bad != PT_NONE) {
      if (tid == 0) pt_fail(p.err, PT_KERR_INDEX, pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of((pt_i64)bad, rank, shape, ix.st)), axis, size);
      return;
    }
  }
  if (tid != 0) return;
  for (pt_i64 i = 0; i < n; i++) {
    const pt_i64 k = pt_norm_index(pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st)), size, mode);
    pt_combine(out.b, out.dt, out.off + pt_offset_of(i, rank, shape, ost) + k * astride, src.b, src.dt,
               src.off + pt_offset_of(i, rank, shape, src.st), reduce);
  }
}
`;

/** index_put (the block of templates/index.ts IP_HELPERS). */
export const INDEX_PUT = INDEX_HELPERS + IP_HELPERS + String.raw`
/* out[idx0[b], ..., idx(k-1)[b], r] (= or +=) vals[b, r], row-major over (b, r); SERIAL. */
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_u64 bad;
  pt_ip j;
  pt_ip_parse(p, j);
  const int tid = threadIdx.x;
  if (blockIdx.x != 0) return;
  /* Each index array in turn, in error mode (or with a zero-size dim): the first bad one. */
#pragma unroll
  for (int q = 0; q < PT_MAX_RANK; q++) {
    const pt_i64 size = PT_A(21 + q);
    if (q < j.k && j.nb > 0 && (j.mode == 0 || size <= 0)) {
      if (tid == 0) bad = PT_NONE;
      __syncthreads();
      for (pt_i64 b = tid; b < j.nb; b += PT_BLOCK)
        if (pt_norm_index(pt_ip_index(p, j, q, b), size, j.mode) < 0) {
          atomicMin(&bad, (pt_u64)b);
          break;
        }
      __syncthreads();
      const pt_u64 at = bad;
      __syncthreads(); /* read by all before the next array resets it */
      if (at != PT_NONE) {
        if (tid == 0) pt_fail(p.err, PT_KERR_INDEX, pt_ip_index(p, j, q, (pt_i64)at), q, size);
        return;
      }
    }
  }
  if (tid != 0) return;
  for (pt_i64 b = 0; b < j.nb && j.nr > 0; b++) {
    pt_i64 base, unused;
    pt_ip_base(p, j, b, base, unused); /* every index was checked (or clamps, or wraps) */
    base += j.vout.off;
    const pt_i64 vb = j.vals.off + pt_offset_of(b, j.brank, j.bshape, j.vals.st);
    for (pt_i64 r = 0; r < j.nr; r++)
      pt_combine(j.vout.b, j.vout.dt, base + pt_offset_of(r, j.rrank, j.rshape, j.orest), j.vals.b, j.vals.dt,
                 vb + pt_offset_of(r, j.rrank, j.rshape, j.vrest), j.acc);
  }
}
`;
