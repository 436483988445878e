/**
 * philox's normal and matmul (64x64 tiles of C per threadgroup, params.h's dispatch). The
 * CPU versions are random.c and matmul.c, the CUDA ones templates/random.ts and cuda/random.ts.
 */

import { KERNEL_HEAD } from "./preamble.ts";

/**
 * philox's normal z (templates/random.ts's pt_normal_z): Metal has no double, so Box-Muller
 * is float math, agreeing with the CPU's double to float accuracy, not bit for bit;
 * cospi(2 u2) is cos(2 pi u2) without rounding 2 pi. u1 in (0, 1] keeps the log finite.
 */
export const NORMAL_Z = String.raw`
inline pt_df pt_normal_z(uint m1, uint m2) {
  const float two24 = 5.9604644775390625e-8f; /* 2^-24 */
  const float u1 = pt_mul((float)(m1 + 1u), two24), u2 = pt_mul((float)m2, two24);
  return pt_df_of(pt_mul(pt_sqrt(pt_mul(-2.0f, log(u1))), cospi(pt_mul(2.0f, u2))));
}
`;

/**
 * matmul: each threadgroup computes a 64x64 tile of C; its 256 threads hold 4x4 outputs
 * each (rows tr + 16i, cols tc + 16j), and A and B pass through threadgroup memory in
 * 64x16 and 16x64 slices. Every output is a dot product over K in order: f32 accumulates
 * with fma (as the CUDA fallback and cuBLAS do; the CPU rounds twice, so f32 results differ
 * from the CPU's by float sum-order/fma ulps), i32 and i64 in uint64 with wrap (then i32
 * keeps the low 32 bits), as matmul.c.
 */
export const MATMUL = String.raw`
#define PT_MM_T 64
#define PT_MM_K 16

/* matmul (slots.ts; A, B and C's VIEW strides are the batch dims', each followed by its row and col strides);
 * groups (min(ceil(N/64), 65535), min(ceil(M/64), 65535), min(batch, 65535)); a group
 * takes every groups-th tile column, tile row and batch. */
${KERNEL_HEAD}
  threadgroup long ta[PT_MM_T * PT_MM_K]; /* A slice [row][k] */
  threadgroup long tb[PT_MM_K * PT_MM_T]; /* B slice [k][col] */
  threadgroup float *fa = (threadgroup float *)ta;
  threadgroup float *fb = (threadgroup float *)tb;
  const int brank = (int)PT_A(PT_MATMUL_BRANK);
  long bshape[PT_MAX_RANK];
  const long batch = pt_shape_at(p, PT_MATMUL_BSHAPE, brank, bshape);
  const long M = PT_A(PT_MATMUL_M), N = PT_A(PT_MATMUL_N), K = PT_A(PT_MATMUL_K);
  const pt_view A = pt_view_at(p, B, PT_MATMUL_A), Bv = pt_view_at(p, B, PT_MATMUL_B), C = pt_view_at(p, B, PT_MATMUL_C);
  const long ars = PT_A(PT_MATMUL_A_ROWS), acs = PT_A(PT_MATMUL_A_COLS), brs = PT_A(PT_MATMUL_B_ROWS), bcs = PT_A(PT_MATMUL_B_COLS),
        crs = PT_A(PT_MATMUL_C_ROWS), ccs = PT_A(PT_MATMUL_C_COLS);
  const int dt = A.dt;
  const bool fl = pt_is_float(dt);
  const long tilesM = (M + PT_MM_T - 1) / PT_MM_T, tilesN = (N + PT_MM_T - 1) / PT_MM_T;
  const uint tr = lid / 16u, tc = lid % 16u;
  for (long e = group.z; e < batch; e += groups.z)
  for (long ty = group.y; ty < tilesM; ty += groups.y)
  for (long tx = group.x; tx < tilesN; tx += groups.x) {
    const long row0 = ty * PT_MM_T, col0 = tx * PT_MM_T;
    const long ao = A.off + pt_offset_of(e, brank, bshape, A.st);
    const long bo = Bv.off + pt_offset_of(e, brank, bshape, Bv.st);
    const long co = C.off + pt_offset_of(e, brank, bshape, C.st);
    float accf[4][4];
    ulong acci[4][4];
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        accf[i][j] = 0.0f;
        acci[i][j] = 0ul;
      }
    for (long k0 = 0; k0 < K; k0 += PT_MM_K) {
      for (uint q = lid; q < PT_MM_T * PT_MM_K; q += PT_BLOCK) {
        const long ra = row0 + q / PT_MM_K, ka = k0 + q % PT_MM_K; /* A: q = row * 16 + k */
        const long kb = k0 + q / PT_MM_T, cb = col0 + q % PT_MM_T; /* B: q = k * 64 + col */
        const bool ina = ra < M && ka < K, inb = kb < K && cb < N;
        const long oa = ao + ra * ars + ka * acs, ob = bo + kb * brs + cb * bcs;
        if (fl) {
          fa[q] = !ina ? 0.0f : dt == PT_F32 ? ((device float *)A.b)[oa] : pt_ld_f(A.b, dt, oa);
          fb[q] = !inb ? 0.0f : dt == PT_F32 ? ((device float *)Bv.b)[ob] : pt_ld_f(Bv.b, dt, ob);
        } else {
          ta[q] = ina ? pt_ld_i(A.b, dt, oa) : 0;
          tb[q] = inb ? pt_ld_i(Bv.b, dt, ob) : 0;
        }
      }
      PT_BARRIER;
      const int kmax = K - k0 < PT_MM_K ? (int)(K - k0) : PT_MM_K;
      for (int kk = 0; kk < kmax; kk++) {
        for (int i = 0; i < 4; i++) {
          const uint r = tr + 16u * (uint)i;
          for (int j = 0; j < 4; j++) {
            const uint c = tc + 16u * (uint)j;
            if (fl) accf[i][j] = fma(fa[r * PT_MM_K + kk], fb[kk * PT_MM_T + c], accf[i][j]);
            else acci[i][j] += (ulong)ta[r * PT_MM_K + kk] * (ulong)tb[kk * PT_MM_T + c];
          }
        }
      }
      PT_BARRIER; /* the slices are refilled next */
    }
    for (int i = 0; i < 4; i++) {
      const long r = row0 + tr + 16 * i;
      for (int j = 0; j < 4; j++) {
        const long c = col0 + tc + 16 * j;
        if (r >= M || c >= N) continue;
        const long oc = co + r * crs + c * ccs;
        if (!fl) pt_st_i(C.b, C.dt, oc, (long)acci[i][j]);
        else if (C.dt == PT_F32) ((device float *)C.b)[oc] = accf[i][j];
        else pt_st_f(C.b, C.dt, oc, accf[i][j]);
      }
    }
  }
}
`;
