import { floorDivPy, fmodPy, intHelpers } from "../templates/ops.ts";
import { ewIo } from "../templates/ew_io.ts";

/**
 * Device helpers only the elementwise programs (elementwise.ts) use: ew_io.h's loads and
 * stores between a view's dtype and a compute type, the constants of the block converted
 * as the CPU converts its f64 slots, and ew_ops.h's integer division, modulo and power
 * (wrapping, floor division, Python's sign rules) and Python's float modulo, in float and
 * in float-float for f64 registers.
 */
/** Helpers only elementwise programs use (ew_io.h's loads and stores, ew_ops.h's ops). */
export const EW_HELPERS = String.raw`${ewIo(false)}
inline pt_df pt_ew_ld_f64(pt_ptr b, int dt, long i) {
  return dt == PT_BOOL ? pt_df_of((float)(b[i] != 0)) : pt_ld_df(b, dt, i);
}
/* An f64 register is stored as the CPU's pt_st_f64 stores one. */
#define pt_ew_st_f64 pt_st_df

/* Constants: the CPU converts the slot's f64 value; an integer slot is exact in ai. */
inline pt_df pt_const_f64(constant pt_mtl_params &p, int k) { return PT_A(k) != 0 ? pt_df_of_long(PT_A(k)) : pt_df_of(PT_F(k)); }
inline long pt_const_i64(constant pt_mtl_params &p, int k) { return PT_A(k) != 0 ? PT_A(k) : pt_f2i64(PT_F(k)); }
inline int pt_const_i32(constant pt_mtl_params &p, int k) {
  const long v = PT_A(k);
  if (v == 0) return pt_f2i32(PT_F(k));
  return v >= PT_I32_MAX ? PT_I32_MAX : v <= PT_I32_MIN ? PT_I32_MIN : (int)v;
}

${fmodPy("float", "fmod", (z, b) => `copysign(${z}, ${b})`)}${floorDivPy("float", "fmod", "floor", (z, b) => `copysign(${z}, ${b})`)}
/* C's fmod in df: a - trunc(a/b) b, then one step fixes a quotient rounded across an integer. */
inline pt_df pt_df_fmod(pt_df a, pt_df b) {
  if (!isfinite(a.hi) || b.hi == 0.0f || b.hi != b.hi) return pt_df_of(PT_NAN_F);
  if (isinf(b.hi)) return a;
  const pt_df ab = b.hi < 0.0f ? pt_df_neg(b) : b;
  pt_df r = pt_df_sub(a, pt_df_mul(pt_df_trunc(pt_df_div(a, b)), b));
  if (a.hi >= 0.0f) {
    if (r.hi < 0.0f) r = pt_df_add(r, ab);
    else if (pt_df_le(ab, r)) r = pt_df_sub(r, ab);
  } else {
    if (r.hi > 0.0f) r = pt_df_sub(r, ab);
    else if (pt_df_le(r, pt_df_neg(ab))) r = pt_df_add(r, ab);
  }
  return r.hi == 0.0f ? pt_df_of(copysign(0.0f, a.hi)) : r;
}
inline pt_df pt_df_mod_py(pt_df a, pt_df b) {
  pt_df r = pt_df_fmod(a, b);
  if (r.hi != 0.0f) { if ((r.hi < 0.0f) != (b.hi < 0.0f)) r = pt_df_add(r, b); }
  else r = pt_df_of(copysign(0.0f, b.hi));
  return r;
}
/* Python's // in df, as the float form (ops.ts floorDivPy). */
inline pt_df pt_df_floordiv_py(pt_df a, pt_df b) {
  if (b.hi == 0.0f) return pt_df_div(a, b);
  const pt_df m = pt_df_fmod(a, b);
  pt_df d = pt_df_div(pt_df_sub(a, m), b);
  if (m.hi != 0.0f && ((b.hi < 0.0f) != (m.hi < 0.0f))) d = pt_df_sub(d, pt_df_of(1.0f));
  if (d.hi == 0.0f) return pt_df_of(copysign(0.0f, pt_df_div(a, b).hi));
  pt_df f = pt_df_floor(d);
  if (pt_df_lt(pt_df_of(0.5f), pt_df_sub(d, f))) f = pt_df_add(f, pt_df_of(1.0f));
  return f;
}
${intHelpers("uint")}
`;
