/**
 * philox (ELEMENT launch) and matmul (params.h's 64x64 tile dispatch). The CPU versions
 * are random.c and matmul.c.
 */

/**
 * philox: element i is Philox4x32-10 of counter (lo32(offset+i), hi32(offset+i), 0, 0)
 * and key (seed lo, seed hi), mapped exactly as blocks.h says, so every backend draws the
 * same numbers. a + u*(b-a) rounds twice, as written, never as one fma; the normal's log
 * and cos are math.ts's double versions.
 */
export const PHILOX = String.raw`
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* philox [dist, seed lo, seed hi, offset, a, b, OUT VIEW (1-D: stride 0 used), n];
 * dist 0 uniform [a, b), 1 normal (mean a, std b), 2 randint [a, b). ELEMENT over n. */
void main() {
  const int dist = int(PT_P.a[0]);
  const uint key0 = uint(PT_A(1)), key1 = uint(PT_A(2));
  const uint64_t offset = uint64_t(PT_A(3));
  const double a = PT_P.a[4], b = PT_P.a[5];
  const pt_view vout = pt_view_at(6);
  const int64_t n = PT_A(17);
  const bool f64 = vout.dt == PT_F64;
  const double two24 = 1.0lf / 16777216.0lf, two53 = 1.0lf / 9007199254740992.0lf;
  const double two_pi = 6.283185307179586476925lf;
  /* randint: bounds are integers within int64, a < b; the range is taken in uint64. */
  const int64_t lo = dist == 2 ? int64_t(a) : 0l;
  const uint64_t range = dist == 2 ? uint64_t(int64_t(b)) - uint64_t(lo) : 1ul;
  for (int64_t i = PT_FIRST; i < n; i += PT_STEP) {
    const uint64_t c = offset + uint64_t(i);
    uint w0 = uint(c), w1 = uint(c >> 32), w2 = 0u, w3 = 0u, k0 = key0, k1 = key1;
    /* ten rounds, the key bumped before each round but the first */
    for (int r = 0; r < 10; r++) {
      if (r > 0) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
      uint hi0, lo0, hi1, lo1;
      umulExtended(PHILOX_M0, w0, hi0, lo0);
      umulExtended(PHILOX_M1, w2, hi1, lo1);
      w0 = hi1 ^ w1 ^ k0;
      w2 = hi0 ^ w3 ^ k1;
      w1 = lo1;
      w3 = lo0;
    }
    const int64_t o = vout.off + i * vout.st[0];
    if (dist == 2) {
      const uint64_t x = (uint64_t(w1) << 32) | uint64_t(w0);
      if (range != 0ul) pt_st_i64(vout.b, vout.dt, o, int64_t(uint64_t(lo) + x % range));
    } else if (dist == 0) {
      /* both forms are exact in double: 53 or 24 random bits times a power of two */
      const double u = f64 ? (double(w0 >> 5) * 67108864.0lf + double(w1 >> 6)) * two53 : double(w0 >> 8) * two24;
      pt_st_f64(vout.b, vout.dt, o, pt_add(a, pt_mul(u, pt_sub(b, a))));
    } else {
      /* u1 in (0, 1] keeps the log finite */
      const double u1 = (double(w0 >> 8) + 1.0lf) * two24, u2 = double(w1 >> 8) * two24;
      const double z = pt_mul(pt_sqrt(pt_mul(-2.0lf, pt_log(u1))), pt_cos(pt_mul(two_pi, u2)));
      pt_st_f64(vout.b, vout.dt, o, pt_add(a, pt_mul(b, z)));
    }
  }
}
`;

/**
 * matmul: a group computes one 64x64 tile of C, 4x4 outputs per invocation at rows
 * ty + 16r and columns tx + 16c (so a warp's shared reads are consecutive or broadcast),
 * through 16-deep K slices of A and B staged in shared memory. f32 and f64 accumulate in
 * their own type with fma in K order; i32 in uint32 and i64 in uint64 with wrap (the low
 * 32 bits of matmul.c's uint64 sum are the uint32 sum). f32/i32 stage 32-bit words and
 * f64/i64 64-bit ones (24 KiB in all); another dtype, which the front end casts away
 * first, takes the f64 path through the generic loads.
 */
export const MATMUL = String.raw`
#define TM 64
#define TK 16
shared uint sa32[TK * TM];
shared uint sb32[TK * TM];
shared uint64_t sa64[TK * TM];
shared uint64_t sb64[TK * TM];

/* matmul [brank, bshape x8, M, N, K, A VIEW (batch strides), a row stride, a col stride,
 *         B VIEW, b row stride, b col stride, C VIEW, c row stride, c col stride];
 * dispatch (ceil(N/64), ceil(M/64), min(batch, 65535)). */
void main() {
  const int brank = int(PT_P.a[0]);
  int64_t bshape[PT_MAX_RANK];
  const int64_t batch = pt_shape_at(1, brank, bshape);
  const int64_t M = PT_A(9), N = PT_A(10), K = PT_A(11);
  const pt_view A = pt_view_at(12), B = pt_view_at(25), C = pt_view_at(38);
  const int64_t ars = PT_A(23), acs = PT_A(24), brs = PT_A(36), bcs = PT_A(37), crs = PT_A(49), ccs = PT_A(50);
  const int dt = A.dt;
  const int mode = dt == PT_F32 ? 0 : dt == PT_I32 ? 2 : dt == PT_I64 ? 3 : 1;
  const int tid = int(gl_LocalInvocationID.x), tx = tid % 16, ty = tid / 16;
  const int64_t row0 = int64_t(gl_WorkGroupID.y) * TM, col0 = int64_t(gl_WorkGroupID.x) * TM;
  for (int64_t e = int64_t(gl_WorkGroupID.z); e < batch; e += int64_t(gl_NumWorkGroups.z)) {
    const int64_t ao = A.off + pt_offset_of(e, brank, bshape, A.st);
    const int64_t bo = B.off + pt_offset_of(e, brank, bshape, B.st);
    const int64_t co = C.off + pt_offset_of(e, brank, bshape, C.st);
    /* one accumulator array for every mode (bit casts cost nothing), so 16 registers' worth */
    uint64_t acc[16];
    for (int q = 0; q < 16; q++) acc[q] = mode == 0 ? uint64_t(floatBitsToUint(0.0)) : 0ul;
    for (int64_t k0 = 0; k0 < K; k0 += TK) {
      /* A slice: 64 rows x 16 k, stored k-major; B slice: 16 k x 64 columns. */
      for (int q = 0; q < 4; q++) {
        const int s = tid + 256 * q;
        const int ak = s % TK, am = s / TK, bn = s % TM, bk = s / TM;
        const int64_t ar = row0 + am, ac = k0 + ak, br = k0 + bk, bc = col0 + bn;
        const bool ain = ar < M && ac < K, bin = br < K && bc < N;
        const int64_t ai = ao + ar * ars + ac * acs, bi = bo + br * brs + bc * bcs;
        if (mode == 0 || mode == 2) {
          sa32[ak * TM + am] = ain ? PtU32(A.b + uint64_t(ai) * 4ul).v : 0u;
          sb32[bk * TM + bn] = bin ? PtU32(B.b + uint64_t(bi) * 4ul).v : 0u;
        } else if (mode == 3) {
          sa64[ak * TM + am] = ain ? PtU64(A.b + uint64_t(ai) * 8ul).v : 0ul;
          sb64[bk * TM + bn] = bin ? PtU64(B.b + uint64_t(bi) * 8ul).v : 0ul;
        } else {
          sa64[ak * TM + am] = doubleBitsToUint64(ain ? pt_ld_f64(A.b, A.dt, ai) : 0.0lf);
          sb64[bk * TM + bn] = doubleBitsToUint64(bin ? pt_ld_f64(B.b, B.dt, bi) : 0.0lf);
        }
      }
      barrier();
      const int kn = int(min(int64_t(TK), K - k0));
#define PT_MM_LOOP(STEP) \
      for (int kk = 0; kk < kn; kk++) \
        for (int r = 0; r < 4; r++) \
          for (int c = 0; c < 4; c++) { \
            const int ia = kk * TM + ty + 16 * r, ib = kk * TM + tx + 16 * c, q = r * 4 + c; \
            STEP; \
          }
      if (mode == 0) {
        PT_MM_LOOP(acc[q] = uint64_t(floatBitsToUint(fma(uintBitsToFloat(sa32[ia]), uintBitsToFloat(sb32[ib]), uintBitsToFloat(uint(acc[q]))))))
      } else if (mode == 2) {
        PT_MM_LOOP(acc[q] = uint64_t(uint(acc[q]) + sa32[ia] * sb32[ib]))
      } else if (mode == 3) {
        PT_MM_LOOP(acc[q] += sa64[ia] * sb64[ib])
      } else {
        PT_MM_LOOP(acc[q] = doubleBitsToUint64(fma(uint64BitsToDouble(sa64[ia]), uint64BitsToDouble(sb64[ib]), uint64BitsToDouble(acc[q]))))
      }
      barrier();
    }
    for (int r = 0; r < 4; r++) {
      for (int c = 0; c < 4; c++) {
        const int64_t row = row0 + ty + 16 * r, col = col0 + tx + 16 * c;
        if (row >= M || col >= N) continue;
        const int64_t ci = co + row * crs + col * ccs;
        const int q = r * 4 + c;
        if (mode == 0) pt_st_f64(C.b, C.dt, ci, double(uintBitsToFloat(uint(acc[q]))));
        else if (mode == 2) pt_st_i64(C.b, C.dt, ci, int64_t(int(uint(acc[q]))));
        else if (mode == 3) pt_st_i64(C.b, C.dt, ci, int64_t(acc[q]));
        else pt_st_f64(C.b, C.dt, ci, uint64BitsToDouble(acc[q]));
      }
    }
  }
}
`;
