/**
 * Float-float ("df") arithmetic and the float math MSL lacks, for every MSL program.
 *
 * Metal has no double, but the CPU backend computes f64 registers of fused expressions
 * (creation ops: full, arange, linspace, eye index in f64) and accumulates float sums,
 * means, variances and scans in double. A pt_df is an unevaluated sum hi + lo of two
 * floats with |lo| <= ulp(hi)/2, so hi is always the value rounded to float. With the
 * error-free two_sum / two_prod (fma is exact by definition, not a contraction) it carries
 * about 48 significant bits: integers below 2^48 are exact, + - * / sqrt are good to
 * about 2^-47 relative, and the exponent range is float's (values beyond 3.4e38 are inf,
 * below 1e-38 lose bits). Results rounded to float therefore equal the CPU's double result
 * rounded to float except when that double lies within ~2^-47 of a float midpoint.
 * Transcendental functions of a df use hi only (float accuracy). Fast math must stay off:
 * the Metal compiler would otherwise be free to simplify (a - (s - b)) to zero.
 *
 * Also here: log1p, expm1, erf, erfc and hypot (not in MSL's library; erf by its Taylor
 * series summed in df below |x| = 3 and by the Laplace continued fraction for erfc above,
 * erfc as 1 - that df sum below 3, so it keeps its bits where erf nears 1 (within 4 ulp of
 * glibc, the float fraction near 3, test/msl_render.test.ts); expm1 by
 * Kahan's (u - 1) x / log(u)), and pow with C's rules for negative bases and signed zeros
 * (MSL documents pow only for x >= 0).
 */

/** 2/sqrt(pi) split into float hi + lo (computed here, so no long literal is trusted). */
const TWO_OVER_SQRTPI = 1.1283791670955126;
const hi = Math.fround(TWO_OVER_SQRTPI), lo = Math.fround(TWO_OVER_SQRTPI - hi);
/** Shortest round-tripping decimal of a float value, as an MSL float literal. */
export function f32(v: number): string {
  for (let p = 6; p <= 12; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return `${s.includes("e") || s.includes(".") ? s : `${s}.0`}f`;
  }
  throw new Error(`no float literal for ${v}`);
}

export const DF_HELPERS = String.raw`
typedef struct {
  float hi, lo;
} pt_df;

inline pt_df pt_df_make(float h, float l) {
  pt_df r;
  r.hi = h;
  r.lo = l;
  return r;
}
inline pt_df pt_df_of(float x) { return pt_df_make(x, 0.0f); }

/* a + b exactly as s + e (Knuth); inf and NaN pass through in hi. */
inline pt_df pt_two_sum(float a, float b) {
  const float s = a + b;
  if (!isfinite(s)) return pt_df_of(s);
  const float bb = s - a;
  return pt_df_make(s, (a - (s - bb)) + (b - bb));
}
/* The same when |a| >= |b|; a zero e keeps hi's sign (so -0 stays -0). */
inline pt_df pt_quick_two_sum(float a, float b) {
  if (b == 0.0f) return pt_df_of(a);
  const float s = a + b;
  if (!isfinite(s)) return pt_df_of(s);
  return pt_df_make(s, b - (s - a));
}
inline pt_df pt_two_prod(float a, float b) {
  const float p_ = a * b;
  if (!isfinite(p_)) return pt_df_of(p_);
  return pt_df_make(p_, fma(a, b, -p_));
}

inline pt_df pt_df_neg(pt_df x) { return pt_df_make(-x.hi, -x.lo); }
inline pt_df pt_df_add(pt_df x, pt_df y) {
  pt_df s = pt_two_sum(x.hi, y.hi);
  if (!isfinite(s.hi)) return s;
  const pt_df t = pt_two_sum(x.lo, y.lo);
  s = pt_quick_two_sum(s.hi, s.lo + t.hi);
  return pt_quick_two_sum(s.hi, s.lo + t.lo);
}
inline pt_df pt_df_sub(pt_df x, pt_df y) { return pt_df_add(x, pt_df_neg(y)); }
inline pt_df pt_df_mul(pt_df x, pt_df y) {
  const pt_df p_ = pt_two_prod(x.hi, y.hi);
  if (!isfinite(p_.hi) || p_.hi == 0.0f) return pt_df_of(p_.hi);
  return pt_quick_two_sum(p_.hi, fma(x.hi, y.lo, fma(x.lo, y.hi, p_.lo)));
}
/* Three quotient terms, each from the remainder of the last. */
inline pt_df pt_df_div(pt_df x, pt_df y) {
  const float q1 = x.hi / y.hi;
  if (!isfinite(q1) || q1 == 0.0f || !isfinite(y.hi)) return pt_df_of(q1);
  pt_df r = pt_df_sub(x, pt_df_mul(y, pt_df_of(q1)));
  const float q2 = r.hi / y.hi;
  r = pt_df_sub(r, pt_df_mul(y, pt_df_of(q2)));
  const float q3 = r.hi / y.hi;
  return pt_df_add(pt_quick_two_sum(q1, q2), pt_df_of(q3));
}
inline pt_df pt_df_sqrt(pt_df x) {
  if (!(x.hi > 0.0f) || !isfinite(x.hi)) return pt_df_of(sqrt(x.hi));
  const float s = sqrt(x.hi);
  const pt_df r = pt_df_sub(x, pt_two_prod(s, s));
  return pt_quick_two_sum(s, r.hi / (s + s));
}

inline bool pt_df_eq(pt_df a, pt_df b) { return a.hi == b.hi && a.lo == b.lo; }
inline bool pt_df_lt(pt_df a, pt_df b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
inline bool pt_df_le(pt_df a, pt_df b) { return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo); }

/* An int64 as hi + lo: exact below 2^48 in magnitude, 48 bits beyond. */
inline pt_df pt_df_of_long(long v) {
  const float h = (float)v;
  long rem;
  if (h >= 9223372036854775808.0f) rem = (long)((ulong)v - 0x8000000000000000ul);
  else rem = v - (long)h;
  return pt_quick_two_sum(h, (float)rem);
}
/* Truncation toward zero with NaN -> 0 and saturation (the CPU's pt_f2i64 of f64). Where hi
 * is not an integer, lo cannot move the value across one; where it is, lo's fraction
 * rounds toward zero with the value's sign. */
inline long pt_df_to_i64(pt_df x) {
  if (x.hi != x.hi) return 0;
  if (x.hi >= 9223372036854775808.0f) return PT_I64_MAX;
  if (x.hi <= -9223372036854775808.0f) return PT_I64_MIN;
  const float t = trunc(x.hi);
  if (t != x.hi) return (long)t;
  return (long)x.hi + (long)(x.hi > 0.0f ? floor(x.lo) : ceil(x.lo));
}
inline int pt_df_to_i32(pt_df x) {
  const long v = pt_df_to_i64(x);
  return v >= PT_I32_MAX ? PT_I32_MAX : v <= PT_I32_MIN ? PT_I32_MIN : (int)v;
}

inline pt_df pt_df_floor(pt_df x) {
  const float f = floor(x.hi);
  if (f != x.hi) return pt_df_of(f);
  if (x.lo == 0.0f) return x; /* keeps -0 */
  return pt_df_add(pt_df_of(x.hi), pt_df_of(floor(x.lo)));
}
inline pt_df pt_df_ceil(pt_df x) { return pt_df_neg(pt_df_floor(pt_df_neg(x))); }
inline pt_df pt_df_trunc(pt_df x) { return x.hi < 0.0f ? pt_df_ceil(x) : pt_df_floor(x); }
/* Half to even. A non-integer hi sits exactly half-way only when lo is 0 (else lo breaks
 * the tie); an integer hi with |lo| = 1/2 is even (hi's ulp is 1 there). */
inline pt_df pt_df_rint(pt_df x) {
  const float f = floor(x.hi);
  if (f == x.hi) return x.lo == 0.0f ? x : pt_df_add(pt_df_of(x.hi), pt_df_of(rint(x.lo)));
  if (x.hi - f == 0.5f && x.lo != 0.0f) return pt_df_of(x.lo > 0.0f ? f + 1.0f : f);
  return pt_df_of(rint(x.hi));
}

/* ---- the CPU's generic access through f64 (view.h), in df ---- */
inline pt_df pt_ld_df(pt_ptr b, int dt, long i) {
  switch (dt) {
  case PT_I32: return pt_df_of_long(((device int *)b)[i]);
  case PT_I64: return pt_df_of_long(((device long *)b)[i]);
  case PT_I8: case PT_I16: return pt_df_of_long(pt_ld_i(b, dt, i));
  default: return pt_df_of(pt_ld_f(b, dt, i));
  }
}
inline void pt_st_df(pt_ptr b, int dt, long i, pt_df d) {
  switch (dt) {
  case PT_I32: ((device int *)b)[i] = pt_df_to_i32(d); break;
  case PT_I64: ((device long *)b)[i] = pt_df_to_i64(d); break;
  case PT_U8: case PT_I8: case PT_I16: pt_st_i(b, dt, i, pt_df_to_i64(d)); break;
  default: pt_st_f(b, dt, i, d.hi); break; /* hi is the value rounded to float */
  }
}

/* ---- float math that MSL's library lacks ---- */
/* log(u) * x / (u - 1) with u = 1 + x cancels the rounding of u (Goldberg). */
inline float pt_log1p(float x) {
  const float u = pt_add(1.0f, x);
  if (u == 1.0f) return x;
  if (!(u < PT_INF_F) || u <= 0.0f) return log(u);
  return pt_mul(log(u), pt_div(x, pt_sub(u, 1.0f)));
}

inline float pt_expm1(float x) {
  const float u = exp(x);
  if (u == 1.0f || x != x) return x;
  const float um1 = pt_sub(u, 1.0f);
  if (um1 == -1.0f || !(u < PT_INF_F) || fabs(x) >= 1.0f) return um1;
  return pt_mul(um1, pt_div(x, log(u)));
}

/* erfc(ax) for ax >= 3: exp(-ax^2) / (sqrt(pi) K), K the continued fraction. */
inline float pt_erfc_tail(float ax) {
  if (ax >= 10.0f) return 0.0f;
  float k = ax;
  for (int n = 40; n >= 1; n--) k = ax + (0.5f * (float)n) / k;
  const pt_df sq = pt_two_prod(ax, ax);
  const float e = exp(-sq.hi) * (1.0f - sq.lo);
  return e / (k * ${f32(Math.fround(Math.sqrt(Math.PI)))});
}

/* erf(x) for |x| < 3, in df: sum over n of (-1)^n x^(2n+1) / (n! (2n+1)), times 2/sqrt(pi). */
inline pt_df pt_erf_df(float x) {
  const pt_df x2 = pt_two_prod(x, x);
  pt_df term = pt_df_of(x), sum = pt_df_of(x);
  for (int n = 1; n < 64; n++) {
    term = pt_df_neg(pt_df_div(pt_df_mul(term, x2), pt_df_of((float)n)));
    const pt_df t = pt_df_div(term, pt_df_of((float)(2 * n + 1)));
    sum = pt_df_add(sum, t);
    if (fabs(t.hi) <= fabs(sum.hi) * 1e-16f) break;
  }
  return pt_df_mul(sum, pt_df_make(${f32(hi)}, ${f32(lo)}));
}

inline float pt_erf(float x) {
  if (x != x) return x;
  if (fabs(x) >= 3.0f) return copysign(1.0f - pt_erfc_tail(fabs(x)), x);
  return pt_erf_df(x).hi;
}

inline float pt_erfc(float x) {
  if (x != x) return x;
  if (x >= 3.0f) return pt_erfc_tail(x);
  if (x <= -3.0f) return 2.0f - pt_erfc_tail(-x);
  return pt_df_sub(pt_df_of(1.0f), pt_erf_df(x)).hi;
}

/* sqrt(x^2 + y^2) without overflow: the larger magnitude times sqrt(1 + r^2); inf wins over NaN. */
inline float pt_hypot(float x, float y) {
  const float ax = fabs(x), ay = fabs(y);
  if (isinf(ax) || isinf(ay)) return PT_INF_F;
  if (ax != ax || ay != ay) return ax + ay;
  const float a = max(ax, ay), b = min(ax, ay);
  if (a == 0.0f) return 0.0f;
  const float r = b / a;
  return pt_mul(a, pt_sqrt(pt_add(1.0f, pt_mul(r, r))));
}

/* C's pow for every sign: a negative base needs an integer exponent (its parity gives the
 * sign), -0 behaves as 0 with the sign of odd powers, pow(x, 0) and pow(1, y) are 1. */
inline float pt_pow(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (x != x || y != y) return x + y;
  if (isinf(y) && fabs(x) == 1.0f) return 1.0f;
  if (!signbit(x) || isinf(y)) return pow(fabs(x), y);
  const bool integer = trunc(y) == y;
  if (!integer && x != 0.0f && !isinf(x)) return PT_NAN_F;
  const float r = pow(fabs(x), y);
  return integer && fmod(y, 2.0f) != 0.0f ? -r : r;
}
`;
