/**
 * matmul's fallback (ELEMENT launch). The CPU version is matmul.c.
 */

/**
 * matmul, the fallback for layouts cuBLAS can't take: one thread per output element, a dot
 * product over K in order. f32 and f64 accumulate in their own type with fma, as cuBLAS
 * does; f16 and bf16 (devices with "matmul_f16"/"matmul_bf16") in f32; i32 and i64 in uint64 with wrap
 * (then i32 keeps the low 32 bits), as matmul.c.
 */
export const MATMUL = String.raw`
/* matmul (slots.ts; A, B and C's VIEW strides are the batch dims', each followed by its row and col strides);
 * ELEMENT launch over batch * M * N outputs. */
extern "C" __global__ void pt_main(const pt_params p) {
  const int brank = (int)p.a[PT_MATMUL_BRANK];
  pt_i64 bshape[PT_MAX_RANK];
  const pt_i64 batch = pt_shape_at(p, PT_MATMUL_BSHAPE, brank, bshape);
  const pt_i64 M = PT_A(PT_MATMUL_M), N = PT_A(PT_MATMUL_N), K = PT_A(PT_MATMUL_K);
  const pt_view A = pt_view_at(p, PT_MATMUL_A), B = pt_view_at(p, PT_MATMUL_B), C = pt_view_at(p, PT_MATMUL_C);
  const pt_i64 ars = PT_A(PT_MATMUL_A_ROWS), acs = PT_A(PT_MATMUL_A_COLS), brs = PT_A(PT_MATMUL_B_ROWS), bcs = PT_A(PT_MATMUL_B_COLS),
        crs = PT_A(PT_MATMUL_C_ROWS), ccs = PT_A(PT_MATMUL_C_COLS);
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
    } else if (dt == PT_F16 || dt == PT_BF16) { /* a layout cuBLAS can't take: f32 accumulation, as GemmEx's */
      float acc = 0.0f;
      for (pt_i64 k = 0; k < K; k++) acc = fmaf((float)pt_ld_f64(A.b, dt, ao + k * acs), (float)pt_ld_f64(B.b, dt, bo + k * brs), acc);
      pt_st_f64(C.b, C.dt, co, (double)acc);
    } else { /* the caller casts other dtypes first; in double if one comes anyway */
      double acc = 0.0;
      for (pt_i64 k = 0; k < K; k++) acc = fma(pt_ld_f64(A.b, A.dt, ao + k * acs), pt_ld_f64(B.b, B.dt, bo + k * brs), acc);
      pt_st_f64(C.b, C.dt, co, acc);
    }
  }
}
`;
