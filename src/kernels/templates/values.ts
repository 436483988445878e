/**
 * The value helpers every language's preamble shares, written once: dtype facts, f16 and
 * bf16 to and from f32 by their bits (view.h's rules: round to nearest even, overflow to
 * inf, NaN stays a quiet NaN), and an index normalized for its dim. 16-bit values travel
 * as pt_u32; pt_as_f32 and pt_f32_bits are the dialect's bit casts (and pt_msb, for the
 * loop-free form below, its index of the highest set bit).
 *
 * A subnormal f16 is normalised one of two ways, by language: GLSL without a loop, since
 * llvmpipe counts every loop pass of an invocation; CUDA and Metal with a loop, since NVRTC
 * made a slower kernel of the loop-free form (the H200 A/B: chw_rgb_to_hwc_u8_1080p, an f32
 * -> u8 program that never converts an f16, 0.074 ms with the loop, 0.111 ms without).
 */
const LOOP_FREE = String.raw`    const int s = 10 - pt_msb(man);
    bits = sign | (pt_u32(113 - s) << 23) | (((man << s) & 0x3ffu) << 13);`;
const LOOP = String.raw`    int e = -1;
    do { man <<= 1; e++; } while ((man & 0x400u) == 0u);
    bits = sign | (pt_u32(112 - e) << 23) | ((man & 0x3ffu) << 13);`;

export const valueHelpers = (loopFree: boolean): string =>
  String.raw`
PT_FN bool pt_is_float(int dt) { return dt == PT_F32 || dt == PT_F16 || dt == PT_BF16 || dt == PT_F64; }
PT_FN int pt_dtype_size(int dt) {
  return dt == PT_F64 || dt == PT_I64 ? 8 : dt == PT_F32 || dt == PT_I32 ? 4 : dt == PT_F16 || dt == PT_BF16 || dt == PT_I16 ? 2 : 1;
}
/* int8 and int16 bits (as pt_raw_u8 and pt_raw_u16 give them) sign-extended: flipping the sign
 * bit and subtracting it needs no shift of a signed value, which C leaves undefined. */
PT_FN int pt_sext8(pt_u32 x) { return int(x ^ pt_u32(128)) - 128; }
PT_FN int pt_sext16(pt_u32 x) { return int(x ^ pt_u32(32768)) - 32768; }

PT_FN float pt_f16_to_f32(pt_u32 h) {
  pt_u32 sign = (h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (ex == 0x1fu) bits = sign | 0x7f800000u | (man << 13);
  else if (ex != 0u) bits = sign | ((ex + 112u) << 23) | (man << 13);
  else if (man == 0u) bits = sign;
  else { /* subnormal: normalise, shifting the top bit to bit 10 */
${loopFree ? LOOP_FREE : LOOP}
  }
  return pt_as_f32(bits);
}
PT_FN pt_u32 pt_f32_to_f16(float f) {
  const pt_u32 x = pt_f32_bits(f);
  const pt_u32 sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0u);
  if (ax >= 0x477ff000u) return sign | 0x7c00u;
  if (ax < 0x38800000u) { /* subnormal or zero in f16 */
    if (ax < 0x33000000u) return sign;
    const pt_u32 e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;
    pt_u32 r = m >> shift;
    const pt_u32 rem = m & ((1u << shift) - 1u), hw = 1u << (shift - 1u);
    if (rem > hw || (rem == hw && (r & 1u) != 0u)) r++;
    return sign | r;
  }
  pt_u32 r = (ax - 0x38000000u) >> 13;
  const pt_u32 rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u) != 0u)) r++;
  return sign | r;
}
PT_FN float pt_bf16_to_f32(pt_u32 h) { return pt_as_f32(h << 16); }
PT_FN pt_u32 pt_f32_to_bf16(float f) {
  const pt_u32 x = pt_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return ((x >> 16) | 0x40u) & 0xffffu; /* quiet NaN */
  return ((x + 0x7fffu + ((x >> 16) & 1u)) >> 16) & 0xffffu;
}

/* An index normalized for a dim of the given size; -1 when it is out of range in mode 0
 * (error). Mode 1 clamps the raw value, mode 2 wraps (Python's %). A zero-size dim has no
 * valid index in any mode. Written on magnitudes: GLSL's signed % of a negative is the
 * implementation's. */
PT_FN pt_i64 pt_norm_index(pt_i64 v, pt_i64 size, int mode) {
  if (size <= pt_i64(0)) return pt_i64(-1);
  if (mode == 0) return v < -size || v >= size ? pt_i64(-1) : v < pt_i64(0) ? v + size : v;
  if (mode == 1) return v < pt_i64(0) ? pt_i64(0) : v >= size ? size - pt_i64(1) : v;
  const pt_u64 m = (v < pt_i64(0) ? pt_u64(0) - pt_u64(v) : pt_u64(v)) % pt_u64(size);
  return v >= pt_i64(0) || m == pt_u64(0) ? pt_i64(m) : size - pt_i64(m);
}
`;
