/**
 * philox and matmul (ELEMENT launches). The CPU versions are random.c and matmul.c.
 */

/**
 * philox: element i is Philox4x32-10 of counter (lo32(offset+i), hi32(offset+i), 0, 0)
 * and key (seed lo, seed hi), mapped exactly as blocks.h says, so every backend draws
 * the same numbers. a + u*(b-a) rounds twice, as written, never as one fma.
 */
export const PHILOX = String.raw`
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* In place: ten rounds, the key bumped before each round but the first. */
static __device__ __forceinline__ void pt_philox4x32_10(pt_u32 &c0, pt_u32 &c1, pt_u32 &c2, pt_u32 &c3, pt_u32 k0, pt_u32 k1) {
#pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r > 0) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
    const pt_u32 hi0 = __umulhi(PHILOX_M0, c0), lo0 = PHILOX_M0 * c0;
    const pt_u32 hi1 = __umulhi(PHILOX_M1, c2), lo1 = PHILOX_M1 * c2;
    c0 = hi1 ^ c1 ^ k0;
    c2 = hi0 ^ c3 ^ k1;
    c1 = lo1;
    c3 = lo0;
  }
}

/* philox [dist, seed lo, seed hi, offset, a, b, OUT VIEW (1-D: stride 0 used), n];
 * dist 0 uniform [a, b), 1 normal (mean a, std b), 2 randint [a, b). ELEMENT over n. */
extern "C" __global__ void pt_main(const pt_params p) {
  const int dist = (int)p.a[0];
  const pt_u32 k0 = (pt_u32)PT_A(1), k1 = (pt_u32)PT_A(2);
  const pt_u64 offset = (pt_u64)PT_A(3);
  const double a = p.a[4], b = p.a[5];
  const pt_view out = pt_view_at(p, 6);
  const pt_i64 n = PT_A(17);
  const bool f64 = out.dt == PT_F64;
  const double two24 = 1.0 / 16777216.0, two53 = 1.0 / 9007199254740992.0, two_pi = 6.283185307179586476925;
  /* randint: bounds are integers within int64, a < b; the range is taken in uint64. */
  const pt_i64 lo = dist == 2 ? (pt_i64)a : 0;
  const pt_u64 range = dist == 2 ? (pt_u64)(pt_i64)b - (pt_u64)lo : 1;
  for (pt_i64 i = PT_FIRST; i < n; i += PT_STEP) {
    const pt_u64 c = offset + (pt_u64)i;
    pt_u32 w0 = (pt_u32)c, w1 = (pt_u32)(c >> 32), w2 = 0, w3 = 0;
    pt_philox4x32_10(w0, w1, w2, w3, k0, k1);
    const pt_i64 o = out.off + i * out.st[0];
    if (dist == 2) {
      const pt_u64 x = (pt_u64)w1 << 32 | w0;
      if (range != 0) pt_st_i64(out.b, out.dt, o, (pt_i64)((pt_u64)lo + x % range));
    } else if (dist == 0) {
      /* both forms are exact in double: 53 or 24 random bits times a power of two */
      const double u = f64 ? ((double)(w0 >> 5) * 67108864.0 + (double)(w1 >> 6)) * two53 : (double)(w0 >> 8) * two24;
      pt_st_f64(out.b, out.dt, o, pt_add(a, pt_mul(u, pt_sub(b, a))));
    } else {
      /* u1 in (0, 1] keeps the log finite */
      const double u1 = ((double)(w0 >> 8) + 1.0) * two24, u2 = (double)(w1 >> 8) * two24;
      const double z = pt_mul(pt_sqrt(pt_mul(-2.0, log(u1))), cos(pt_mul(two_pi, u2)));
      pt_st_f64(out.b, out.dt, o, pt_add(a, pt_mul(b, z)));
    }
  }
}
`;

/**
 * matmul, the fallback for layouts cuBLAS can't take: one thread per output element, a dot
 * product over K in order. f32 and f64 accumulate in their own type with fma, as cuBLAS
 * does; i32 and i64 in uint64 with wrap (then i32 keeps the low 32 bits), as matmul.c.
 */
export const MATMUL = String.raw`
/* matmul [brank, bshape x8, M, N, K, A VIEW (batch strides), a row stride, a col stride,
 *         B VIEW, b row stride, b col stride, C VIEW, c row stride, c col stride];
 * ELEMENT launch over batch * M * N outputs. */
extern "C" __global__ void pt_main(const pt_params p) {
  const int brank = (int)p.a[0];
  pt_i64 bshape[PT_MAX_RANK];
  const pt_i64 batch = pt_shape_at(p, 1, brank, bshape);
  const pt_i64 M = PT_A(9), N = PT_A(10), K = PT_A(11);
  const pt_view A = pt_view_at(p, 12), B = pt_view_at(p, 25), C = pt_view_at(p, 38);
  const pt_i64 ars = PT_A(23), acs = PT_A(24), brs = PT_A(36), bcs = PT_A(37), crs = PT_A(49), ccs = PT_A(50);
  const pt_i64 total = batch * M * N;
  const int dt = A.dt;
  for (pt_i64 i = PT_FIRST; i < total; i += PT_STEP) {
    const pt_i64 col = i % N, t = i / N, row = t % M, e = t / M;
    const pt_i64 ao = A.off + pt_offset_of(e, brank, bshape, A.st) + row * ars;
    const pt_i64 bo = B.off + pt_offset_of(e, brank, bshape, B.st) + col * bcs;
    const pt_i64 co = C.off + pt_offset_of(e, brank, bshape, C.st) + row * crs + col * ccs;
    if (dt == PT_F32) {
      const float *a = (const float *)A.b, *b = (const float *)B.b;
      float acc = 0.0f;
      for (pt_i64 k = 0; k < K; k++) acc = fmaf(a[ao + k * acs], b[bo + k * brs], acc);
      ((float *)C.b)[co] = acc;
    } else if (dt == PT_F64) {
      const double *a = (const double *)A.b, *b = (const double *)B.b;
      double acc = 0.0;
      for (pt_i64 k = 0; k < K; k++) acc = fma(a[ao + k * acs], b[bo + k * brs], acc);
      ((double *)C.b)[co] = acc;
    } else if (dt == PT_I32 || dt == PT_I64) {
      pt_u64 acc = 0;
      for (pt_i64 k = 0; k < K; k++)
        acc += (pt_u64)pt_ld_i64(A.b, dt, ao + k * acs) * (pt_u64)pt_ld_i64(B.b, dt, bo + k * brs);
      pt_st_i64(C.b, C.dt, co, (pt_i64)acc);
    } else { /* the caller casts other dtypes first; in double if one comes anyway */
      double acc = 0.0;
      for (pt_i64 k = 0; k < K; k++) acc = fma(pt_ld_f64(A.b, A.dt, ao + k * acs), pt_ld_f64(B.b, B.dt, bo + k * brs), acc);
      pt_st_f64(C.b, C.dt, co, acc);
    }
  }
}
`;
