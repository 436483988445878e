/**
 * sort (ROW launch: one block of 256 threads per row). The CPU version is sort.c.
 *
 * First version, chosen for being plainly correct: every element's place in the stable
 * order is its rank, the number of elements with a smaller key plus the number with an
 * equal key and a lower position. That is O(n^2) comparisons per row (the row streams
 * through shared memory in tiles, 256 threads counting at once) and needs no scratch
 * buffer: pass 1 writes each position to the indices output at its rank, pass 2 reads the
 * indices back and copies the values. A merge or radix sort would be O(n log n).
 *
 * Keys are sort.c's: an unsigned integer whose order is the wanted order. Floats flip
 * their sign bit (all bits when negative), -0.0 ties with 0.0, every NaN becomes one quiet
 * NaN above +inf; ints flip the sign bit; descending inverts the key (ties keep their
 * original order either way, as the stable sort does).
 */
export const SORT = String.raw`
static __device__ __forceinline__ pt_u64 pt_key_f32(float f) {
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
static __device__ __forceinline__ pt_u64 pt_sort_key(const char *b, int dt, pt_i64 i, bool desc) {
  pt_u64 k;
  switch (dt) {
  case PT_F32: k = pt_key_f32(((const float *)b)[i]); break;
  case PT_F16: k = pt_key_f32(pt_f16_to_f32(((const pt_u16 *)b)[i])); break;
  case PT_BF16: k = pt_key_f32(pt_bf16_to_f32(((const pt_u16 *)b)[i])); break;
  case PT_F64: k = pt_key_f64(((const double *)b)[i]); break;
  case PT_I32: k = ((const pt_u32 *)b)[i] ^ 0x80000000u; break;
  case PT_I64: k = ((const pt_u64 *)b)[i] ^ 0x8000000000000000ull; break;
  default: k = ((const pt_u8 *)b)[i]; break;
  }
  return desc ? ~k : k;
}

#define PT_SORT_TILE 1024

/* sort [descending, orank, oshape x8, n, IN VIEW, in axis stride, VALS VIEW,
 *       vals axis stride, IDX VIEW (int64), idx axis stride]; ROW launch over the rows. */
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_u64 tile[PT_SORT_TILE];
  const bool desc = p.a[0] != 0;
  const int orank = (int)p.a[1];
  pt_i64 oshape[PT_MAX_RANK];
  const pt_i64 rows = pt_shape_at(p, 2, orank, oshape);
  const pt_i64 n = PT_A(10), sa = PT_A(22), va = PT_A(34), ia = PT_A(46);
  const pt_view in = pt_view_at(p, 11), vals = pt_view_at(p, 23), idx = pt_view_at(p, 35);
  const int tid = threadIdx.x;
  for (pt_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    const pt_i64 io = in.off + pt_offset_of(row, orank, oshape, in.st);
    const pt_i64 vo = vals.off + pt_offset_of(row, orank, oshape, vals.st);
    const pt_i64 xo = idx.off + pt_offset_of(row, orank, oshape, idx.st);
    /* Pass 1: each thread ranks the elements base + tid against the whole row. */
    for (pt_i64 base = 0; base < n; base += PT_BLOCK) {
      const pt_i64 i = base + tid;
      const bool have = i < n;
      const pt_u64 mine = have ? pt_sort_key(in.b, in.dt, io + i * sa, desc) : 0;
      pt_i64 rank = 0;
      for (pt_i64 t0 = 0; t0 < n; t0 += PT_SORT_TILE) {
        const int m = n - t0 < PT_SORT_TILE ? (int)(n - t0) : PT_SORT_TILE;
        __syncthreads(); /* the previous tile is no longer read */
        for (int q = tid; q < m; q += PT_BLOCK) tile[q] = pt_sort_key(in.b, in.dt, io + (t0 + q) * sa, desc);
        __syncthreads();
        if (have) {
          const pt_i64 before = i - t0; /* tile positions q < before precede element i */
          for (int q = 0; q < m; q++) {
            const pt_u64 k = tile[q];
            rank += k < mine || (k == mine && q < before);
          }
        }
      }
      if (have) pt_st_i64(idx.b, idx.dt, xo + rank * ia, i);
    }
    __syncthreads(); /* every position is in place before any is read back */
    /* Pass 2: values by position; the same dtype copies bits (NaN payloads, -0.0). */
    for (pt_i64 r = tid; r < n; r += PT_BLOCK) {
      const pt_i64 pos = pt_ld_i64(idx.b, idx.dt, xo + r * ia);
      pt_copy_elem(vals.b, vals.dt, vo + r * va, in.b, in.dt, io + pos * sa);
    }
  }
}
`;
