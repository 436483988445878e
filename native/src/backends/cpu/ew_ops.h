/* ew_ops.h: the per-op loops of the elementwise interpreter (included by ew.c only).
 *
 * Each function runs one instruction over a block of n elements held in plain arrays. The
 * switch on the op sits outside the loops and every loop is over restrict-qualified typed
 * arrays, so the compiler can vectorise the ones that have vector forms. A destination
 * never overlaps an operand (the register-block assignment in ew_compile.c sees to it).
 * Integer ops that can fail return the index of the first failing element, else -1.
 */
#ifndef PT_CPU_EW_OPS_H
#define PT_CPU_EW_OPS_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "view.h"
#include "ew_program.h"
#include "expf.h"

/* Integer division and modulo by zero. */
enum ew_failure { EW_FAIL_DIV_ZERO = 1, EW_FAIL_MOD_ZERO = 2 };

#define EW_MAP(out, expr) for (int64_t k = 0; k < n; k++) (out)[k] = (expr)
/* Both operands are read before choosing: `c ? x[k] : z[k]` would read conditionally,
 * which compiles to masked loads instead of one blend. XK, ZK are element expressions. */
#define EW_SELECT(out, T, XK, ZK, cond)                                    \
  for (int64_t k = 0; k < n; k++) {                                      \
    T a_ = (XK), b_ = (ZK);                                              \
    (out)[k] = (cond) ? a_ : b_;                                         \
  }

/* Comparisons and logic ops, shared by every compute type, over element expressions. */
#define EW_COMPARE_CASES(XK, ZK, out)                                       \
  case EW_EQ: EW_MAP(out, (XK) == (ZK)); break;                             \
  case EW_NE: EW_MAP(out, (XK) != (ZK)); break;                             \
  case EW_LT: EW_MAP(out, (XK) < (ZK)); break;                              \
  case EW_LE: EW_MAP(out, (XK) <= (ZK)); break;                             \
  case EW_GT: EW_MAP(out, (XK) > (ZK)); break;                              \
  case EW_GE: EW_MAP(out, (XK) >= (ZK)); break;                             \
  case EW_AND: EW_MAP(out, ((XK) != 0) & ((ZK) != 0)); break;               \
  case EW_OR: EW_MAP(out, ((XK) != 0) | ((ZK) != 0)); break;                \
  case EW_XOR: EW_MAP(out, ((XK) != 0) ^ ((ZK) != 0)); break;

/* FN(exp) names expf for f32 and exp for f64, so f32 math stays in single precision. */
#define EW_FN_F32(name) name##f
#define EW_FN_F64(name) name

#define EW_EXP_F32 ew_expf
#define EW_EXP_F64 exp

#define EW_DEFINE_FLOAT_OPS(T, SUFFIX, FN, EXP)                                             \
  static void ew_unary_##SUFFIX(int op, int64_t n, const T *restrict x, void *restrict out) { \
    T *restrict y = (T *)out;                                                               \
    int32_t *restrict flag = (int32_t *)out;                                                \
    switch (op) {                                                                           \
    case EW_NEG: EW_MAP(y, -x[k]); break;                                                   \
    case EW_ABS: EW_MAP(y, FN(fabs)(x[k])); break;                                          \
    /* returning x itself for 0 and NaN keeps -0 and NaN */                                 \
    case EW_SIGN: EW_MAP(y, x[k] > 0 ? (T)1 : x[k] < 0 ? (T)-1 : x[k]); break;              \
    case EW_SQUARE: EW_MAP(y, x[k] * x[k]); break;                                          \
    case EW_RECIP: EW_MAP(y, (T)1 / x[k]); break;                                           \
    case EW_EXP: EW_MAP(y, EXP(x[k])); break;                                               \
    case EW_EXP2: EW_MAP(y, FN(exp2)(x[k])); break;                                         \
    case EW_LOG: EW_MAP(y, FN(log)(x[k])); break;                                           \
    case EW_LOG2: EW_MAP(y, FN(log2)(x[k])); break;                                         \
    case EW_LOG1P: EW_MAP(y, FN(log1p)(x[k])); break;                                       \
    case EW_SQRT: EW_MAP(y, FN(sqrt)(x[k])); break;                                         \
    case EW_RSQRT: EW_MAP(y, (T)1 / FN(sqrt)(x[k])); break;                                 \
    case EW_SIN: EW_MAP(y, FN(sin)(x[k])); break;                                           \
    case EW_COS: EW_MAP(y, FN(cos)(x[k])); break;                                           \
    case EW_TAN: EW_MAP(y, FN(tan)(x[k])); break;                                           \
    case EW_TANH: EW_MAP(y, FN(tanh)(x[k])); break;                                         \
    case EW_SIGMOID: EW_MAP(y, (T)1 / ((T)1 + EXP(-x[k]))); break;                          \
    /* x < 0 rather than x > 0 so that NaN passes through, as in PyTorch */                 \
    case EW_RELU: EW_MAP(y, x[k] < 0 ? (T)0 : x[k]); break;                                 \
    case EW_GELU:                                                                           \
      EW_MAP(y, (T)0.5 * x[k] * ((T)1 + FN(erf)(x[k] * (T)0.70710678118654752440)));        \
      break;                                                                                \
    case EW_FLOOR: EW_MAP(y, FN(floor)(x[k])); break;                                       \
    case EW_CEIL: EW_MAP(y, FN(ceil)(x[k])); break;                                         \
    case EW_ROUND: EW_MAP(y, FN(rint)(x[k])); break; /* default mode: half to even */       \
    case EW_TRUNC: EW_MAP(y, FN(trunc)(x[k])); break;                                       \
    case EW_NOT: EW_MAP(flag, x[k] == 0); break;                                            \
    case EW_ISNAN: EW_MAP(flag, x[k] != x[k]); break;                                       \
    case EW_ISINF: EW_MAP(flag, FN(fabs)(x[k]) == (T)INFINITY); break;                      \
    case EW_ISFINITE: EW_MAP(flag, FN(fabs)(x[k]) < (T)INFINITY); break;                    \
    case EW_NONZERO: EW_MAP(flag, x[k] != 0); break;                                        \
    case EW_ERF: EW_MAP(y, FN(erf)(x[k])); break;                                           \
    case EW_ERFC: EW_MAP(y, FN(erfc)(x[k])); break;                                         \
    case EW_EXPM1: EW_MAP(y, FN(expm1)(x[k])); break;                                       \
    case EW_ASIN: EW_MAP(y, FN(asin)(x[k])); break;                                         \
    case EW_ACOS: EW_MAP(y, FN(acos)(x[k])); break;                                         \
    case EW_ATAN: EW_MAP(y, FN(atan)(x[k])); break;                                         \
    case EW_SINH: EW_MAP(y, FN(sinh)(x[k])); break;                                         \
    case EW_COSH: EW_MAP(y, FN(cosh)(x[k])); break;                                         \
    case EW_ASINH: EW_MAP(y, FN(asinh)(x[k])); break;                                       \
    case EW_ACOSH: EW_MAP(y, FN(acosh)(x[k])); break;                                       \
    case EW_ATANH: EW_MAP(y, FN(atanh)(x[k])); break;                                       \
    case EW_LOG10: EW_MAP(y, FN(log10)(x[k])); break;                                       \
    default: break;                                                                         \
    }                                                                                       \
  }                                                                                         \
  /* Python's float //, as PyTorch's div_floor_floating: from fmod, so that 1 // 0.1 is 9,   \
   * with a quotient rounded to the nearer integer; b == 0 gives IEEE a / b. */             \
  static inline T ew_floordiv_##SUFFIX(T a, T b) {                                          \
    if (b == 0) return a / b;                                                               \
    T m = FN(fmod)(a, b), d = (a - m) / b, f;                                               \
    if (m != 0 && ((b < 0) != (m < 0))) d -= (T)1;                                          \
    if (d == 0) return FN(copysign)((T)0, a / b);                                           \
    f = FN(floor)(d);                                                                       \
    if (d - f > (T)0.5) f += (T)1;                                                          \
    return f;                                                                               \
  }                                                                                         \
  /* Python's float %: the result takes the divisor's sign, and a zero result is +-0 by it. */ \
  static inline T ew_mod_##SUFFIX(T a, T b) {                                               \
    T r = FN(fmod)(a, b);                                                                   \
    if (r != 0) { if ((r < 0) != (b < 0)) r += b; }                                         \
    else r = FN(copysign)((T)0, b);                                                         \
    return r;                                                                               \
  }                                                                                         \
  static int64_t ew_binary_##SUFFIX(int op, int64_t n, const T *restrict x, const T *restrict z, \
                                    void *restrict out) {                                   \
    EW_FLOAT_BINARY_BODY(T, SUFFIX, FN, x[k], z[k])                                         \
  }                                                                                         \
  static int64_t ew_binary_scalar_##SUFFIX(int op, int64_t n, const T *restrict x, T z,     \
                                           void *restrict out) {                            \
    EW_FLOAT_BINARY_BODY(T, SUFFIX, FN, x[k], z)                                            \
  }

/* The binary ops over element expressions XK, ZK: z[k], or one value for every k. */
#define EW_FLOAT_BINARY_BODY(T, SUFFIX, FN, XK, ZK)                                         \
  T *restrict y = (T *)out;                                                                 \
  int32_t *restrict flag = (int32_t *)out;                                                  \
  switch (op) {                                                                             \
  case EW_ADD: EW_MAP(y, (XK) + (ZK)); break;                                               \
  case EW_SUB: EW_MAP(y, (XK) - (ZK)); break;                                               \
  case EW_MUL: EW_MAP(y, (XK) * (ZK)); break;                                               \
  case EW_DIV: EW_MAP(y, (XK) / (ZK)); break;                                               \
  case EW_POW: EW_MAP(y, FN(pow)(XK, ZK)); break;                                           \
  case EW_MOD: EW_MAP(y, ew_mod_##SUFFIX(XK, ZK)); break;                                   \
  case EW_ATAN2: EW_MAP(y, FN(atan2)(XK, ZK)); break;                                       \
  case EW_HYPOT: EW_MAP(y, FN(hypot)(XK, ZK)); break;                                       \
  case EW_FMOD: EW_MAP(y, FN(fmod)(XK, ZK)); break;                                         \
  case EW_FLOORDIV: EW_MAP(y, ew_floordiv_##SUFFIX(XK, ZK)); break;                         \
  case EW_MAX: EW_SELECT(y, T, XK, ZK, a_ != a_ || a_ > b_); break;                          \
  case EW_MIN: EW_SELECT(y, T, XK, ZK, a_ != a_ || a_ < b_); break;                          \
  EW_COMPARE_CASES(XK, ZK, flag)                                                            \
  default: break;                                                                           \
  }                                                                                         \
  return -1;

/* Integers wrap: +, -, *, negation and abs go through the unsigned type U. */
#define EW_DEFINE_INT_OPS(T, U, SUFFIX)                                                     \
  static void ew_unary_##SUFFIX(int op, int64_t n, const T *restrict x, void *restrict out) { \
    T *restrict y = (T *)out;                                                               \
    int32_t *restrict flag = (int32_t *)out;                                                \
    switch (op) {                                                                           \
    case EW_NEG: EW_MAP(y, (T)((U)0 - (U)x[k])); break;                                     \
    case EW_ABS: EW_MAP(y, x[k] < 0 ? (T)((U)0 - (U)x[k]) : x[k]); break;                   \
    case EW_SIGN: EW_MAP(y, (T)((x[k] > 0) - (x[k] < 0))); break;                           \
    case EW_SQUARE: EW_MAP(y, (T)((U)x[k] * (U)x[k])); break;                               \
    case EW_RELU: EW_MAP(y, x[k] < 0 ? (T)0 : x[k]); break;                                 \
    case EW_FLOOR: case EW_CEIL: case EW_ROUND: case EW_TRUNC: EW_MAP(y, x[k]); break;      \
    case EW_NOT: EW_MAP(flag, x[k] == 0); break;                                            \
    case EW_ISNAN: case EW_ISINF: EW_MAP(flag, 0); break;                                   \
    case EW_ISFINITE: EW_MAP(flag, 1); break;                                               \
    case EW_NONZERO: EW_MAP(flag, x[k] != 0); break;                                        \
    default: break; /* float-only ops are rejected when the program is compiled */         \
    }                                                                                       \
  }                                                                                         \
  /* A negative exponent truncates as PyTorch's powi does: 1 for base 1, +-1 by parity for  \
   * base -1, 0 for every other base (0 included), so integer pow never fails. */           \
  static inline T ew_ipow_##SUFFIX(T base, T exponent) {                                    \
    if (exponent < 0) return base == 1 ? 1 : base == -1 ? ((exponent & 1) ? -1 : 1) : 0;    \
    U result = 1, square = (U)base;                                                         \
    for (U e = (U)exponent; e; e >>= 1) {                                                   \
      if (e & 1) result *= square;                                                          \
      square *= square;                                                                     \
    }                                                                                       \
    return (T)result;                                                                       \
  }                                                                                         \
  static int64_t ew_binary_##SUFFIX(int op, int64_t n, const T *restrict x, const T *restrict z, \
                                    void *restrict out) {                                   \
    EW_INT_BINARY_BODY(T, U, SUFFIX, x[k], z[k])                                            \
  }                                                                                         \
  static int64_t ew_binary_scalar_##SUFFIX(int op, int64_t n, const T *restrict x, T z,     \
                                           void *restrict out) {                            \
    EW_INT_BINARY_BODY(T, U, SUFFIX, x[k], z)                                               \
  }

/* d == -1 is special-cased in DIV and MOD: MIN / -1 traps in C, and it wraps to MIN here. */
#define EW_INT_BINARY_BODY(T, U, SUFFIX, XK, ZK)                                            \
  T *restrict y = (T *)out;                                                                 \
  int32_t *restrict flag = (int32_t *)out;                                                  \
  switch (op) {                                                                             \
  case EW_ADD: EW_MAP(y, (T)((U)(XK) + (U)(ZK))); break;                                    \
  case EW_SUB: EW_MAP(y, (T)((U)(XK) - (U)(ZK))); break;                                    \
  case EW_MUL: EW_MAP(y, (T)((U)(XK) * (U)(ZK))); break;                                    \
  case EW_DIV:                                                                              \
  case EW_FLOORDIV:                                                                         \
    for (int64_t k = 0; k < n; k++) {                                                       \
      T a = (XK), d = (ZK), q;                                                              \
      if (d == 0) return k;                                                                 \
      if (d == -1) q = (T)((U)0 - (U)a);                                                    \
      else { q = a / d; if (a % d != 0 && ((a < 0) != (d < 0))) q--; }                      \
      y[k] = q;                                                                             \
    }                                                                                       \
    break;                                                                                  \
  case EW_MOD:                                                                              \
    for (int64_t k = 0; k < n; k++) {                                                       \
      T a = (XK), d = (ZK), r = 0;                                                          \
      if (d == 0) return k;                                                                 \
      if (d != -1) { r = a % d; if (r != 0 && ((r < 0) != (d < 0))) r += d; }               \
      y[k] = r;                                                                             \
    }                                                                                       \
    break;                                                                                  \
  case EW_FMOD: /* C's %: the sign of the dividend */                                      \
    for (int64_t k = 0; k < n; k++) {                                                       \
      T a = (XK), d = (ZK);                                                                 \
      if (d == 0) return k;                                                                 \
      y[k] = d == -1 ? 0 : a % d;                                                           \
    }                                                                                       \
    break;                                                                                  \
  case EW_POW: EW_MAP(y, ew_ipow_##SUFFIX(XK, ZK)); break;                                 \
  case EW_BITAND: EW_MAP(y, (XK) & (ZK)); break;                                            \
  case EW_BITOR: EW_MAP(y, (XK) | (ZK)); break;                                             \
  case EW_BITXOR: EW_MAP(y, (XK) ^ (ZK)); break;                                            \
  /* A count outside [0, W) shifts every bit out (PyTorch's rule; C leaves it undefined). */ \
  case EW_SHL:                                                                              \
    for (int64_t k = 0; k < n; k++) {                                                       \
      T a = (XK), b = (ZK);                                                                 \
      y[k] = b < 0 || b >= (T)(8 * sizeof(T)) ? 0 : (T)((U)a << b);                         \
    }                                                                                       \
    break;                                                                                  \
  case EW_SHR: /* arithmetic: the sign fills in */                                          \
    for (int64_t k = 0; k < n; k++) {                                                       \
      T a = (XK), b = (ZK);                                                                 \
      y[k] = b < 0 || b >= (T)(8 * sizeof(T)) ? (a < 0 ? -1 : 0) : (T)(a >> b);             \
    }                                                                                       \
    break;                                                                                  \
  case EW_MAX: EW_SELECT(y, T, XK, ZK, a_ > b_); break;                                     \
  case EW_MIN: EW_SELECT(y, T, XK, ZK, a_ < b_); break;                                     \
  EW_COMPARE_CASES(XK, ZK, flag)                                                            \
  default: break;                                                                           \
  }                                                                                         \
  return -1;

EW_DEFINE_FLOAT_OPS(float, f32, EW_FN_F32, EW_EXP_F32)
EW_DEFINE_FLOAT_OPS(double, f64, EW_FN_F64, EW_EXP_F64)
EW_DEFINE_INT_OPS(int32_t, uint32_t, i32)
EW_DEFINE_INT_OPS(int64_t, uint64_t, i64)

/* Which failure a failing integer op reports. */
static inline int ew_failure_of(int op) {
  return op == EW_DIV || op == EW_FLOORDIV ? EW_FAIL_DIV_ZERO : EW_FAIL_MOD_ZERO;
}

static void ew_unary(int ctype, int op, int64_t n, const void *x, void *out) {
  switch (ctype) {
  case EW_F32: ew_unary_f32(op, n, (const float *)x, out); break;
  case EW_F64: ew_unary_f64(op, n, (const double *)x, out); break;
  case EW_I32: ew_unary_i32(op, n, (const int32_t *)x, out); break;
  default: ew_unary_i64(op, n, (const int64_t *)x, out); break;
  }
}

static int64_t ew_binary(int ctype, int op, int64_t n, const void *x, const void *z, void *out) {
  switch (ctype) {
  case EW_F32: return ew_binary_f32(op, n, (const float *)x, (const float *)z, out);
  case EW_F64: return ew_binary_f64(op, n, (const double *)x, (const double *)z, out);
  case EW_I32: return ew_binary_i32(op, n, (const int32_t *)x, (const int32_t *)z, out);
  default: return ew_binary_i64(op, n, (const int64_t *)x, (const int64_t *)z, out);
  }
}

/* As ew_binary, with z's first element standing for all of it (a constant or broadcast
 * operand): no block of copies to stream through the cache. */
static int64_t ew_binary_scalar(int ctype, int op, int64_t n, const void *x, const void *z, void *out) {
  switch (ctype) {
  case EW_F32: return ew_binary_scalar_f32(op, n, (const float *)x, *(const float *)z, out);
  case EW_F64: return ew_binary_scalar_f64(op, n, (const double *)x, *(const double *)z, out);
  case EW_I32: return ew_binary_scalar_i32(op, n, (const int32_t *)x, *(const int32_t *)z, out);
  default: return ew_binary_scalar_i64(op, n, (const int64_t *)x, *(const int64_t *)z, out);
  }
}

/* The op that gives the same result with its operands exchanged, or -1. MAX and MIN are
 * left out: exchanged, they can pick the other of -0/+0 or the other NaN. */
static int ew_swapped_op(int op) {
  switch (op) {
  case EW_ADD: case EW_MUL: case EW_EQ: case EW_NE: case EW_AND: case EW_OR: case EW_XOR:
  case EW_BITAND: case EW_BITOR: case EW_BITXOR: return op;
  case EW_LT: return EW_GT;
  case EW_GT: return EW_LT;
  case EW_LE: return EW_GE;
  case EW_GE: return EW_LE;
  default: return -1;
  }
}

/* WHERE only moves bits, so f32/i32 and f64/i64 share a loop. */
static void ew_where(int ctype, int64_t n, const int32_t *restrict cond, const void *x, const void *z,
                     void *out) {
  if (ctype == EW_F32 || ctype == EW_I32) {
    const uint32_t *restrict a = (const uint32_t *)x, *restrict b = (const uint32_t *)z;
    uint32_t *restrict y = (uint32_t *)out;
    EW_SELECT(y, uint32_t, a[k], b[k], cond[k] != 0);
  } else {
    const uint64_t *restrict a = (const uint64_t *)x, *restrict b = (const uint64_t *)z;
    uint64_t *restrict y = (uint64_t *)out;
    EW_SELECT(y, uint64_t, a[k], b[k], cond[k] != 0);
  }
}

#define EW_CAST_LOOP(FROM, TO, expr)                                     \
  do {                                                                   \
    const FROM *restrict x = (const FROM *)in;                           \
    TO *restrict y = (TO *)out;                                          \
    EW_MAP(y, expr);                                                     \
  } while (0)

/* CAST between compute types: float -> int truncates with NaN -> 0 and saturation,
 * i64 -> i32 wraps. */
static void ew_cast(int to, int from, int64_t n, const void *in, void *out) {
  switch (to * 4 + from) {
  case EW_F32 * 4 + EW_F32: EW_CAST_LOOP(float, float, x[k]); break;
  case EW_F32 * 4 + EW_F64: EW_CAST_LOOP(double, float, (float)x[k]); break;
  case EW_F32 * 4 + EW_I32: EW_CAST_LOOP(int32_t, float, (float)x[k]); break;
  case EW_F32 * 4 + EW_I64: EW_CAST_LOOP(int64_t, float, (float)x[k]); break;
  case EW_F64 * 4 + EW_F32: EW_CAST_LOOP(float, double, (double)x[k]); break;
  case EW_F64 * 4 + EW_F64: EW_CAST_LOOP(double, double, x[k]); break;
  case EW_F64 * 4 + EW_I32: EW_CAST_LOOP(int32_t, double, (double)x[k]); break;
  case EW_F64 * 4 + EW_I64: EW_CAST_LOOP(int64_t, double, (double)x[k]); break;
  case EW_I32 * 4 + EW_F32: EW_CAST_LOOP(float, int32_t, pt_f2i32(x[k])); break;
  case EW_I32 * 4 + EW_F64: EW_CAST_LOOP(double, int32_t, pt_f2i32(x[k])); break;
  case EW_I32 * 4 + EW_I32: EW_CAST_LOOP(int32_t, int32_t, x[k]); break;
  case EW_I32 * 4 + EW_I64: EW_CAST_LOOP(int64_t, int32_t, (int32_t)(uint32_t)(uint64_t)x[k]); break;
  case EW_I64 * 4 + EW_F32: EW_CAST_LOOP(float, int64_t, pt_f2i64(x[k])); break;
  case EW_I64 * 4 + EW_F64: EW_CAST_LOOP(double, int64_t, pt_f2i64(x[k])); break;
  case EW_I64 * 4 + EW_I32: EW_CAST_LOOP(int32_t, int64_t, x[k]); break;
  default: EW_CAST_LOOP(int64_t, int64_t, x[k]); break;
  }
}

static void ew_fill_const(int ctype, int64_t n, double c, void *out) {
  switch (ctype) {
  case EW_F32: { float v = (float)c, *restrict y = (float *)out; EW_MAP(y, v); break; }
  case EW_F64: { double *restrict y = (double *)out; EW_MAP(y, c); break; }
  case EW_I32: { int32_t v = pt_f2i32(c), *restrict y = (int32_t *)out; EW_MAP(y, v); break; }
  default: { int64_t v = pt_f2i64(c), *restrict y = (int64_t *)out; EW_MAP(y, v); break; }
  }
}

/* i32 indices wrap past 2^31, as any i64 -> i32 conversion does. */
static void ew_fill_index(int ctype, int64_t n, int64_t start, void *out) {
  switch (ctype) {
  case EW_F32: { float *restrict y = (float *)out; EW_MAP(y, (float)(start + k)); break; }
  case EW_F64: { double *restrict y = (double *)out; EW_MAP(y, (double)(start + k)); break; }
  case EW_I32: {
    int32_t *restrict y = (int32_t *)out;
    EW_MAP(y, (int32_t)(uint32_t)(uint64_t)(start + k));
    break;
  }
  default: { int64_t *restrict y = (int64_t *)out; EW_MAP(y, start + k); break; }
  }
}

#endif
