/**
 * philox written once (ELEMENT launch; the CPU's is random.c): element i is
 * Philox4x32-10 of counter (lo32(offset+i), hi32(offset+i), 0, 0) and key (seed lo, seed
 * hi), mapped as blocks.h says, so every backend draws the same words. Floats are made
 * in pt_facc: a + u*(b-a) rounds twice, as written, never as one fma; uniform's u is exact
 * (53 or 24 random bits times a power of two). The normal's z is the dialect's
 * pt_normal_z: Box-Muller in pt_facc where there is a double (Metal's is float math).
 */
import type { Dialect } from "../dialect.ts";

/** Box-Muller in pt_facc: u1 in (0, 1] keeps the log finite. pt_facc_log and pt_facc_cos are the dialect's. */
export const NORMAL_Z = String.raw`
PT_FN pt_facc pt_normal_z(pt_u32 m1, pt_u32 m2) {
  const pt_facc two24 = pt_facc_div(pt_facc_of(1), pt_facc_of(16777216));
  const pt_facc u1 = pt_facc_mul(pt_facc_of_i64(pt_i64(m1) + pt_i64(1)), two24), u2 = pt_facc_mul(pt_facc_of_i64(pt_i64(m2)), two24);
  return pt_facc_mul(pt_facc_sqrt(pt_facc_mul(pt_facc_of(-2), pt_facc_log(u1))), pt_facc_cos(pt_facc_mul(PT_FACC_TWO_PI, u2)));
}
`;

/** philox; `normalZ` is the text of pt_normal_z (NORMAL_Z unless the dialect has its own). */
export const philox = (d: Dialect, normalZ = NORMAL_Z): string =>
  String.raw`
#define PHILOX_M0 pt_u32(0xD2511F53u)
#define PHILOX_M1 pt_u32(0xCD9E8D57u)
#define PHILOX_W0 pt_u32(0x9E3779B9u)
#define PHILOX_W1 pt_u32(0xBB67AE85u)
${normalZ}
/* philox (slots.ts; OUT is 1-D: its stride 0 is used);
 * dist 0 uniform [a, b), 1 normal (mean a, std b), 2 randint [a, b). ELEMENT over n. */
${d.kernel}
  const int dist = int(PT_A(PT_PHILOX_DIST));
  const pt_u32 key0 = pt_u32(PT_A(PT_PHILOX_SEED_LO)), key1 = pt_u32(PT_A(PT_PHILOX_SEED_HI));
  const pt_u64 offset = pt_u64(PT_A(PT_PHILOX_OFFSET));
  const pt_facc a = PT_FACC_SLOT(PT_PHILOX_A), b = PT_FACC_SLOT(PT_PHILOX_B);
  const pt_view vout = PT_VIEW(PT_PHILOX_OUT);
  const pt_i64 n = PT_A(PT_PHILOX_N);
  const bool f64 = vout.dt == PT_F64;
  const pt_facc two24 = pt_facc_div(pt_facc_of(1), pt_facc_of(16777216));
  const pt_facc two53 = pt_facc_div(two24, pt_facc_of(536870912));
  /* randint: bounds are integers within int64 (slots keep them exact), a < b; the range is taken in uint64. */
  const pt_i64 lo = dist == 2 ? PT_A(PT_PHILOX_A) : pt_i64(0);
  const pt_u64 range = dist == 2 ? pt_u64(PT_A(PT_PHILOX_B)) - pt_u64(lo) : pt_u64(1);
  for (pt_i64 i = PT_FIRST; i < n; i += PT_STEP) {
    const pt_u64 c = offset + pt_u64(i);
    pt_u32 w0 = pt_u32(c), w1 = pt_u32(c >> 32), w2 = pt_u32(0), w3 = pt_u32(0), k0 = key0, k1 = key1;
    /* ten rounds, the key bumped before each round but the first */
    PT_UNROLL
    for (int r = 0; r < 10; r++) {
      if (r > 0) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
      const pt_u32 hi0 = pt_mulhi32(PHILOX_M0, w0), lo0 = PHILOX_M0 * w0;
      const pt_u32 hi1 = pt_mulhi32(PHILOX_M1, w2), lo1 = PHILOX_M1 * w2;
      w0 = hi1 ^ w1 ^ k0;
      w2 = hi0 ^ w3 ^ k1;
      w1 = lo1;
      w3 = lo0;
    }
    const pt_i64 o = vout.off + i * vout.st[0];
    if (dist == 2) {
      const pt_u64 x = (pt_u64(w1) << 32) | pt_u64(w0);
      if (range != pt_u64(0)) pt_st_i64(vout.b, vout.dt, o, pt_i64(pt_u64(lo) + x % range));
    } else if (dist == 0) {
      const pt_facc u = f64 ? pt_facc_mul(pt_facc_add(pt_facc_mul(pt_facc_of_i64(pt_i64(w0 >> 5)), pt_facc_of(67108864)),
                                                      pt_facc_of_i64(pt_i64(w1 >> 6))), two53)
                            : pt_facc_mul(pt_facc_of_i64(pt_i64(w0 >> 8)), two24);
      pt_st_facc(vout.b, vout.dt, o, pt_facc_add(a, pt_facc_mul(u, pt_facc_sub(b, a))));
    } else {
      pt_st_facc(vout.b, vout.dt, o, pt_facc_add(a, pt_facc_mul(b, pt_normal_z(w0 >> 8, w1 >> 8))));
    }
  }
}
`;
