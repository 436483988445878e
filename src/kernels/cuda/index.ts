/**
 * scatter, index_put, nonzero and masked_select (index.c on the CPU).
 * Reads run as ELEMENT launches; writes that may collide (scatter, index_put) as SERIAL
 * launches where thread 0 walks in row-major order, so the last writer wins and float
 * accumulation has one order. In error mode every index is checked (by the whole block)
 * before the first write, so a failed scatter or index_put leaves its output untouched;
 * the first bad index in row-major order is the one reported.
 * gather, index_get and index_put's helpers are templates/index.ts, written once.
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

/** Counting and block-wide ordered compaction for nonzero and masked_select (SERIAL). */
const COMPACT_HELPERS = String.raw`
/* Nonzero elements of view t over shape, counted by the block (every thread gets it). */
static __device__ __forceinline__ pt_i64 pt_block_count(const pt_view &t, pt_i64 n, int rank, const pt_i64 *shape, pt_i64 *sh) {
  const int tid = threadIdx.x;
  pt_i64 c = 0;
  for (pt_i64 i = tid; i < n; i += PT_BLOCK) c += pt_is_nonzero(t.b, t.dt, t.off + pt_offset_of(i, rank, shape, t.st));
  sh[tid] = c;
  __syncthreads();
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) sh[tid] += sh[tid + w];
    __syncthreads();
  }
  const pt_i64 r = sh[0];
  __syncthreads();
  return r;
}

/* Inclusive prefix sum of f over the block's threads in thread order; *total = the sum. */
static __device__ __forceinline__ int pt_block_scan(int f, int *sh, int *total) {
  const int tid = threadIdx.x;
  sh[tid] = f;
  __syncthreads();
  for (int s = 1; s < PT_BLOCK; s <<= 1) {
    const int t = tid >= s ? sh[tid - s] : 0;
    __syncthreads();
    sh[tid] += t;
    __syncthreads();
  }
  const int incl = sh[tid];
  *total = sh[PT_BLOCK - 1];
  __syncthreads(); /* read by all before the next scan writes */
  return incl;
}
`;

/**
 * nonzero [rank, shape x8, IN VIEW, OUT buf, count]: OUT is int64 [count, rank] contiguous,
 * row-major order. The block counts first and reports PT_KERR_COUNT (details: expected,
 * found) without writing when the count differs; then it compacts 256 elements at a time.
 */
export const NONZERO = COMPACT_HELPERS + String.raw`
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ int sh[PT_BLOCK];
  __shared__ pt_i64 cnt[PT_BLOCK];
  const int rank = (int)p.a[0];
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = pt_shape_at(p, 1, rank, shape);
  const pt_view in = pt_view_at(p, 9);
  pt_i64 *coords = (pt_i64 *)pt_buf(p, (int)p.a[20]);
  const pt_i64 want = PT_A(21);
  const int tid = threadIdx.x;
  if (blockIdx.x != 0) return;
  const pt_i64 found = pt_block_count(in, n, rank, shape, cnt);
  if (found != want) {
    if (tid == 0) pt_fail(p.err, PT_KERR_COUNT, want, found, 0);
    return;
  }
  pt_i64 row = 0;
  for (pt_i64 c0 = 0; c0 < n; c0 += PT_BLOCK) {
    const pt_i64 i = c0 + tid;
    const int f = i < n && pt_is_nonzero(in.b, in.dt, in.off + pt_offset_of(i, rank, shape, in.st));
    int total;
    const int incl = pt_block_scan(f, sh, &total);
    if (f) {
      pt_i64 r = i;
      pt_i64 *at = coords + (row + incl - 1) * rank;
#pragma unroll
      for (int d = PT_MAX_RANK - 1; d >= 0; d--) {
        if (d < rank) {
          at[d] = r % shape[d];
          r /= shape[d];
        }
      }
    }
    row += total;
  }
}
`;

/** masked_select [rank, shape x8, IN VIEW, MASK VIEW, OUT VIEW (1-D: stride 0 used), count]. */
export const MASKED_SELECT = COMPACT_HELPERS + String.raw`
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ int sh[PT_BLOCK];
  __shared__ pt_i64 cnt[PT_BLOCK];
  const int rank = (int)p.a[0];
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = pt_shape_at(p, 1, rank, shape);
  const pt_view in = pt_view_at(p, 9), mask = pt_view_at(p, 20), out = pt_view_at(p, 31);
  const pt_i64 want = PT_A(42);
  const int tid = threadIdx.x;
  if (blockIdx.x != 0) return;
  const pt_i64 found = pt_block_count(mask, n, rank, shape, cnt);
  if (found != want) {
    if (tid == 0) pt_fail(p.err, PT_KERR_COUNT, want, found, 0);
    return;
  }
  pt_i64 row = 0;
  for (pt_i64 c0 = 0; c0 < n; c0 += PT_BLOCK) {
    const pt_i64 i = c0 + tid;
    const int f = i < n && pt_is_nonzero(mask.b, mask.dt, mask.off + pt_offset_of(i, rank, shape, mask.st));
    int total;
    const int incl = pt_block_scan(f, sh, &total);
    if (f)
      pt_copy_elem(out.b, out.dt, out.off + (row + incl - 1) * out.st[0], in.b, in.dt,
                   in.off + pt_offset_of(i, rank, shape, in.st));
    row += total;
  }
}
`;
