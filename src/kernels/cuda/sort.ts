/**
 * sort (ROW launch: blocks of 256 threads, grid = min(rows, 65535)). The CPU version is
 * sort.c, and both give exactly the stable order.
 *
 * Keys are sort.c's: an unsigned integer whose order is the wanted order. Floats flip
 * their sign bit (all bits when negative), -0.0 ties with 0.0, every NaN becomes one quiet
 * NaN above +inf; ints flip the sign bit; descending inverts the key. Ties are broken by
 * the original position, ascending in both directions, which is what makes the sort stable.
 *
 * The sort is a bitonic network over shared memory, O(n log^2 n) compare-exchanges per row
 * with no data-dependent control flow. Three paths, chosen per launch from n and dtype:
 *  - keys of 32 bits or less, n <= 4096: one u64 per element, key << 32 | position, so
 *    one integer compare orders by key and then by position;
 *  - 64-bit keys (f64, i64), n <= 2048: (key, position) as two u64 arrays;
 *  - longer rows: the same pairs, 2048 at a time, merged in place in the indices output
 *    (the stages whose comparators span more than a chunk go through global memory).
 * Short rows go several to a block (R rows side by side, each padded to a power of two), so
 * a block has enough comparators per step to keep its threads busy between barriers.
 * Values are copied last by position, keeping their exact bits (NaN payloads, -0.0).
 */
import { ROW_OFFSET } from "./reduce.ts";

export const SORT = String.raw`
${ROW_OFFSET}static __device__ __forceinline__ pt_u32 pt_key_f32(float f) {
  pt_u32 b = __float_as_uint(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  else if ((b & 0x7fffffffu) == 0) b = 0;
  return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
static __device__ __forceinline__ pt_u64 pt_key_f64(double f) {
  pt_u64 b = (pt_u64)__double_as_longlong(f);
  const pt_u64 sign = 0x8000000000000000ull, mag = b & ~sign;
  if (mag > 0x7ff0000000000000ull) b = 0x7ff8000000000000ull;
  else if (mag == 0) b = 0;
  return (b & sign) ? ~b : b | sign;
}
static __device__ __forceinline__ bool pt_key_wide(int dt) { return dt == PT_F64 || dt == PT_I64; }
/* Keys of dtypes narrower than 8 bytes, in 32 bits. */
static __device__ __forceinline__ pt_u32 pt_key32(const char *b, int dt, pt_i64 i, bool desc) {
  pt_u32 k;
  switch (dt) {
  case PT_F32: k = pt_key_f32(((const float *)b)[i]); break;
  case PT_F16: k = pt_key_f32(pt_f16_to_f32(((const pt_u16 *)b)[i])); break;
  case PT_BF16: k = pt_key_f32(pt_bf16_to_f32(((const pt_u16 *)b)[i])); break;
  case PT_I32: k = ((const pt_u32 *)b)[i] ^ 0x80000000u; break;
  default: k = ((const pt_u8 *)b)[i]; break;
  }
  return desc ? ~k : k;
}
/* Any dtype in 64 bits (the order of a 32-bit key is kept by widening it). */
static __device__ __forceinline__ pt_u64 pt_key64(const char *b, int dt, pt_i64 i, bool desc) {
  if (dt == PT_F64) { const pt_u64 k = pt_key_f64(((const double *)b)[i]); return desc ? ~k : k; }
  if (dt == PT_I64) { const pt_u64 k = ((const pt_u64 *)b)[i] ^ 0x8000000000000000ull; return desc ? ~k : k; }
  return pt_key32(b, dt, i, desc);
}

#define PT_SORT_CAP 4096  /* packed elements in shared memory */
#define PT_SORT_PAIRS 2048 /* (key, position) pairs in the same memory */
#define PT_SORT_MAXR 64   /* rows side by side in one block */
#define PT_SORT_NONE (~0ull) /* a sentinel: above every real element (positions are < 2^63) */

/* Compare-exchange of slots lo < hi: the smaller goes to lo. */
struct pt_sort_packed {
  pt_u64 *k;
  __device__ __forceinline__ void cx(int lo, int hi) const {
    const pt_u64 a = k[lo], b = k[hi];
    if (b < a) { k[lo] = b; k[hi] = a; }
  }
};
struct pt_sort_pairs {
  pt_u64 *k, *i;
  __device__ __forceinline__ void cx(int lo, int hi) const {
    const pt_u64 ka = k[lo], kb = k[hi], ia = i[lo], ib = i[hi];
    if (kb < ka || (kb == ka && ib < ia)) { k[lo] = kb; k[hi] = ka; i[lo] = ib; i[hi] = ia; }
  }
};

/* Steps j = jtop, jtop/2, ..., 1 of stage k of the bitonic network over w slots (powers of
 * two). Every comparator points up: the first step of a stage (j = k/2) pairs slot lo with
 * its mirror lo ^ (k-1), later ones lo with lo + j. So a stage k sorts each aligned k-block
 * on its own (rows side by side never mix), and sentinels at the top of a block never move
 * (a row of n is sorted as if padded with +inf). k = 0: no mirror step (the long path's
 * in-chunk half of a stage). Thread t's comparators are t, t+256, ...; while j <= 32 a
 * warp's comparators stay inside 64 slots of its own from step to step, so only steps of
 * j >= 32 need the whole block at the barrier. The caller puts a barrier before the first
 * step and after the last. */
template <class S> static __device__ __forceinline__ void pt_bitonic(const S &s, int w, int k, int jtop) {
  for (int j = jtop; j > 0; j >>= 1) {
    if (j >= 32) __syncthreads();
    else __syncwarp();
    const bool mirror = j == k >> 1;
    for (int t = threadIdx.x; t < w >> 1; t += PT_BLOCK) {
      const int lo = ((t & ~(j - 1)) << 1) | (t & (j - 1));
      s.cx(lo, mirror ? lo ^ (k - 1) : lo + j);
    }
  }
}
/* The whole network up to stage kmax, between two barriers of the caller's. */
template <class S> static __device__ __forceinline__ void pt_bitonic_sort(const S &s, int w, int kmax) {
  for (int k = 2; k <= kmax; k <<= 1) pt_bitonic(s, w, k, k >> 1);
}

/* Rows longer than shared memory: chunks of PT_SORT_PAIRS sorted in shared memory, then
 * the merge stages of the same network over the positions in the indices output. A step
 * whose comparators span chunks works in global memory (keys read again from the input);
 * the steps after it, inside chunks, go back to shared memory. */
static __device__ void pt_sort_long(const pt_view &in, const pt_view &idx, pt_i64 io, pt_i64 xo, pt_i64 n, pt_i64 sa,
                                    pt_i64 ia, bool desc, pt_u64 *sm) {
  const int C = PT_SORT_PAIRS, tid = threadIdx.x;
  const pt_sort_pairs s = {sm, sm + C};
  pt_i64 N = C;
  while (N < n) N <<= 1;
  for (pt_i64 k = C; k <= N; k <<= 1) {
    if (k > C) {
      for (pt_i64 j = k >> 1; j >= C; j >>= 1) {
        __syncthreads(); /* the block's global writes of the last step are visible */
        for (pt_i64 t = tid; t < N >> 1; t += PT_BLOCK) {
          const pt_i64 lo = ((t & ~(j - 1)) << 1) | (t & (j - 1)), hi = j == k >> 1 ? lo ^ (k - 1) : lo + j;
          if (hi >= n) continue; /* the pad above n never moves */
          const pt_i64 a = pt_ld_i64(idx.b, idx.dt, xo + lo * ia), b = pt_ld_i64(idx.b, idx.dt, xo + hi * ia);
          const pt_u64 ka = pt_key64(in.b, in.dt, io + a * sa, desc), kb = pt_key64(in.b, in.dt, io + b * sa, desc);
          if (kb < ka || (kb == ka && b < a)) {
            pt_st_i64(idx.b, idx.dt, xo + lo * ia, b);
            pt_st_i64(idx.b, idx.dt, xo + hi * ia, a);
          }
        }
      }
    }
    for (pt_i64 c0 = 0; c0 < n; c0 += C) {
      __syncthreads(); /* global steps and the previous chunk are done */
      for (int q = tid; q < C; q += PT_BLOCK) {
        const pt_i64 at = c0 + q;
        pt_i64 pos = at;
        if (at < n && k > C) pos = pt_ld_i64(idx.b, idx.dt, xo + at * ia);
        s.k[q] = at < n ? pt_key64(in.b, in.dt, io + pos * sa, desc) : PT_SORT_NONE;
        s.i[q] = at < n ? (pt_u64)pos : PT_SORT_NONE;
      }
      __syncthreads();
      if (k == C) pt_bitonic_sort(s, C, C);
      else pt_bitonic(s, C, 0, C >> 1);
      __syncthreads();
      for (int q = tid; q < C && c0 + q < n; q += PT_BLOCK) pt_st_i64(idx.b, idx.dt, xo + (c0 + q) * ia, (pt_i64)s.i[q]);
    }
  }
}

/* sort [descending, orank, oshape x8, n, IN VIEW, in axis stride, VALS VIEW,
 *       vals axis stride, IDX VIEW (int64), idx axis stride]; ROW launch over the rows.
 * 33.5 KB of shared memory and, by the launch bound, 48 registers a thread (ptxas on
 * sm_90, no spills): five blocks share an SM. */
extern "C" __global__ void __launch_bounds__(PT_BLOCK, 5) pt_main(const pt_params p);
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_u64 sm[PT_SORT_CAP];
  __shared__ pt_i64 soff[3][PT_SORT_MAXR];
  const bool desc = p.a[0] != 0;
  const int orank = (int)p.a[1];
  pt_i64 rows = 1;
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) rows *= d < orank ? PT_A(2 + d) : 1;
  const pt_i64 n = PT_A(10), sa = PT_A(22), va = PT_A(34), ia = PT_A(46);
  const pt_view in = pt_view_at(p, 11), vals = pt_view_at(p, 23), idx = pt_view_at(p, 35);
  const int tid = threadIdx.x;
  const bool wide = pt_key_wide(in.dt), packed = !wide && n <= PT_SORT_CAP;
  const bool shared = packed || n <= PT_SORT_PAIRS;
  /* P: a row's slots (n up to a power of two); R rows a block while there are enough rows
   * left to give every block of a full grid work (at least 1024 groups of rows). */
  int lp = 0, lr = 0;
  while (shared && ((pt_i64)1 << lp) < n) lp++;
  const int cap = packed ? PT_SORT_CAP : PT_SORT_PAIRS;
  while (shared && (2 << lr) <= PT_SORT_MAXR && (2 << (lr + lp)) <= cap && ((pt_i64)2 << lr) * 1024 <= rows) lr++;
  const int P = 1 << lp, R = 1 << lr, w = R * P;
  /* Strided rows (an inner axis): neighbouring rows are usually neighbours in memory, so
   * the row index varies fastest across threads when moving data. */
  const bool rowfast = R > 1 && sa != 1 && sa != -1;
  const pt_i64 groups = (rows + R - 1) / R;
  for (pt_i64 g = blockIdx.x; g < groups; g += gridDim.x) {
    __syncthreads(); /* the previous group no longer reads shared memory */
    if (tid < R) {
      const pt_i64 row = g * R + tid < rows ? g * R + tid : rows - 1;
      soff[0][tid] = pt_row_offset(p, row, orank, 2, 11);
      soff[1][tid] = pt_row_offset(p, row, orank, 2, 23);
      soff[2][tid] = pt_row_offset(p, row, orank, 2, 35);
    }
    __syncthreads();
    if (!shared) {
      pt_sort_long(in, idx, soff[0][0], soff[2][0], n, sa, ia, desc, sm);
    } else {
      const pt_sort_pairs s = {sm, sm + PT_SORT_PAIRS};
      for (int e = tid; e < w; e += PT_BLOCK) {
        const int r = rowfast ? e & (R - 1) : e >> lp, q = rowfast ? e >> lr : e & (P - 1), slot = r * P + q;
        const bool real = q < n && g * R + r < rows;
        if (packed) {
          sm[slot] = real ? (pt_u64)pt_key32(in.b, in.dt, soff[0][r] + q * sa, desc) << 32 | (pt_u64)q : PT_SORT_NONE;
        } else {
          s.k[slot] = real ? pt_key64(in.b, in.dt, soff[0][r] + q * sa, desc) : PT_SORT_NONE;
          s.i[slot] = real ? (pt_u64)q : PT_SORT_NONE;
        }
      }
      __syncthreads();
      if (packed) pt_bitonic_sort(pt_sort_packed{sm}, w, P);
      else pt_bitonic_sort(s, w, P);
      __syncthreads();
      for (int e = tid; e < w; e += PT_BLOCK) {
        const int r = rowfast ? e & (R - 1) : e >> lp, q = rowfast ? e >> lr : e & (P - 1), slot = r * P + q;
        if (q >= n || g * R + r >= rows) continue;
        const pt_i64 pos = packed ? (pt_i64)(sm[slot] & 0xffffffffu) : (pt_i64)s.i[slot];
        pt_st_i64(idx.b, idx.dt, soff[2][r] + q * ia, pos);
        pt_copy_elem(vals.b, vals.dt, soff[1][r] + q * va, in.b, in.dt, soff[0][r] + pos * sa);
      }
      continue;
    }
    /* Long rows: values by position, after every position is in place. */
    __syncthreads();
    for (pt_i64 r = tid; r < n; r += PT_BLOCK) {
      const pt_i64 pos = pt_ld_i64(idx.b, idx.dt, soff[2][0] + r * ia);
      pt_copy_elem(vals.b, vals.dt, soff[1][0] + r * va, in.b, in.dt, soff[0][0] + pos * sa);
    }
  }
}
`;
