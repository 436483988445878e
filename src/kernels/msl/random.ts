/**
 * philox (ELEMENT launch) and matmul (64x64 tiles of C per threadgroup, params.h's
 * dispatch). The CPU versions are random.c and matmul.c, the CUDA ones cuda/random.ts.
 */

import { KERNEL_HEAD } from "./preamble.ts";

/**
 * philox: element i is Philox4x32-10 of counter (lo32(offset+i), hi32(offset+i), 0, 0)
 * and key (seed lo, seed hi), mapped as blocks.h says, so every backend draws the same
 * numbers. The words and u are bit-identical to the CPU's; a + u*(b-a) is taken in df as
 * the CPU takes it in double (exact for [0, 1) and for any bounds that are floats, up to
 * df's 48 bits). normal uses float log, sqrt and cospi where the CPU uses double, so it
 * agrees to float accuracy, not bit for bit. randint is exact (integer bounds arrive exact
 * in ai). The f64 uniform form has no Metal counterpart: there are no f64 tensors.
 */
export const PHILOX = String.raw`
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* In place: ten rounds, the key bumped before each round but the first. */
inline void pt_philox4x32_10(thread uint &c0, thread uint &c1, thread uint &c2, thread uint &c3, uint k0, uint k1) {
  for (int r = 0; r < 10; r++) {
    if (r > 0) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
    const uint hi0 = mulhi(PHILOX_M0, c0), lo0 = PHILOX_M0 * c0;
    const uint hi1 = mulhi(PHILOX_M1, c2), lo1 = PHILOX_M1 * c2;
    c0 = hi1 ^ c1 ^ k0;
    c2 = hi0 ^ c3 ^ k1;
    c1 = lo1;
    c3 = lo0;
  }
}

/* philox [dist, seed lo, seed hi, offset, a, b, OUT VIEW (1-D: stride 0 used), n];
 * dist 0 uniform [a, b), 1 normal (mean a, std b), 2 randint [a, b). ELEMENT over n. */
${KERNEL_HEAD}
  const int dist = (int)PT_A(0);
  const uint k0 = (uint)PT_A(1), k1 = (uint)PT_A(2);
  const ulong offset = (ulong)PT_A(3);
  const pt_df a = PT_A(4) != 0 ? pt_df_of_long(PT_A(4)) : pt_df_of(PT_F(4));
  const pt_df b = PT_A(5) != 0 ? pt_df_of_long(PT_A(5)) : pt_df_of(PT_F(5));
  const pt_df span = pt_df_sub(b, a);
  const pt_view vout = pt_view_at(p, B, 6);
  const long n = PT_A(17);
  const float two24 = 5.9604644775390625e-8f; /* 2^-24 */
  /* randint: bounds are integers within int64, a < b; the range is taken in uint64. */
  const long lo = dist == 2 ? PT_A(4) : 0;
  const ulong range = dist == 2 ? (ulong)PT_A(5) - (ulong)lo : 1ul;
  for (long i = PT_FIRST; i < n; i += PT_STEP) {
    const ulong c = offset + (ulong)i;
    uint w0 = (uint)c, w1 = (uint)(c >> 32), w2 = 0u, w3 = 0u;
    pt_philox4x32_10(w0, w1, w2, w3, k0, k1);
    const long o = vout.off + i * vout.st[0];
    if (dist == 2) {
      const ulong x = (ulong)w1 << 32 | (ulong)w0;
      if (range != 0ul) pt_st_i(vout.b, vout.dt, o, (long)((ulong)lo + x % range));
    } else if (dist == 0) {
      const float u = pt_mul((float)(w0 >> 8), two24); /* exact: 24 random bits times 2^-24 */
      pt_st_df(vout.b, vout.dt, o, pt_df_add(a, pt_df_mul(pt_df_of(u), span)));
    } else {
      /* u1 in (0, 1] keeps the log finite; cospi(2 u2) is cos(2 pi u2) without rounding 2 pi */
      const float u1 = pt_mul((float)((w0 >> 8) + 1u), two24), u2 = pt_mul((float)(w1 >> 8), two24);
      const float z = pt_mul(pt_sqrt(pt_mul(-2.0f, log(u1))), cospi(pt_mul(2.0f, u2)));
      pt_st_df(vout.b, vout.dt, o, pt_df_add(a, pt_df_mul(b, pt_df_of(z))));
    }
  }
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

/* matmul [brank, bshape x8, M, N, K, A VIEW (batch strides), a row stride, a col stride,
 *         B VIEW, b row stride, b col stride, C VIEW, c row stride, c col stride];
 * groups (min(ceil(N/64), 65535), min(ceil(M/64), 65535), min(batch, 65535)); a group
 * takes every groups-th tile column, tile row and batch. */
${KERNEL_HEAD}
  threadgroup long ta[PT_MM_T * PT_MM_K]; /* A slice [row][k] */
  threadgroup long tb[PT_MM_K * PT_MM_T]; /* B slice [k][col] */
  threadgroup float *fa = (threadgroup float *)ta;
  threadgroup float *fb = (threadgroup float *)tb;
  const int brank = (int)PT_A(0);
  long bshape[PT_MAX_RANK];
  const long batch = pt_shape_at(p, 1, brank, bshape);
  const long M = PT_A(9), N = PT_A(10), K = PT_A(11);
  const pt_view A = pt_view_at(p, B, 12), Bv = pt_view_at(p, B, 25), C = pt_view_at(p, B, 38);
  const long ars = PT_A(23), acs = PT_A(24), brs = PT_A(36), bcs = PT_A(37), crs = PT_A(49), ccs = PT_A(50);
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
