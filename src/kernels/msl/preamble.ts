/**
 * The text every MSL program of the renderer starts with: params.h's two structs (field for
 * field; MSL spells `long long` as `long` and the error word as `atomic_uint`, which have
 * the same size and alignment), the pt_main signature the driver binds, and device helpers
 * shared by the elementwise programs and the templates: f16/bf16 conversion by bit
 * manipulation (exact, and independent of whether the GPU flushes half subnormals), the CPU
 * backend's conversion rules (NaN -> 0 and saturation for float -> int, wrap for u8 and
 * i32, nonzero for bool), strided VIEWs read from the argument block, and the error word.
 *
 * Metal has no double. Values the CPU converts through double are converted here with the
 * same result (pt_l2f_dbl rounds an int64 to 53 bits first, as (float)(double)v does);
 * float64 tensors never reach a Metal kernel (the driver rejects them), so no load or store
 * below has an f64 case. Arithmetic that must round once per op goes through pt_add and
 * friends: Metal's safe math mode (fastMathEnabled = NO) is clang's -fno-fast-math, which
 * still permits contracting a*b+c written in one expression (-ffp-contract=on), but never
 * across separate functions' operations.
 */
import { valueHelpers } from "../templates/values.ts";
import type { Dialect } from "../dialect.ts";
import { slotDefines } from "../slots.ts";

/** params.h from `#define PT_MTL_GROUP` to the error codes, in MSL spelling. */
export const PARAMS = `#define PT_MTL_GROUP 256
#define PT_MTL_MAX_BUFS 16
#define PT_MTL_MAX_ARGS 240

/* Also emitted as MSL source by src/kernels/msl.ts; keep the two identical. */
typedef struct {
  int nbuf;
  int nargs;
  long ai[PT_MTL_MAX_ARGS];
  float af[PT_MTL_MAX_ARGS];
} pt_mtl_params;

typedef struct {
  atomic_uint code; /* unsigned int in C */
  unsigned int pad;
  long d[3];
} pt_mtl_error;

#define PT_KERR_INDEX 1   /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2 /* details: element, 0 division / 1 modulo */
#define PT_KERR_COUNT 4   /* nonzero/masked_select: count differs; details: expected, found */
`;

/** The kernel's head as params.h writes it; the body opens with the buffer table. */
export const KERNEL_HEAD = `kernel void pt_main(${
  Array.from({ length: 16 }, (_, k) => `device uchar *b${k} [[buffer(${k})]]`).join(",\n                    ")
},
                    constant pt_mtl_params &p [[buffer(16)]],
                    device pt_mtl_error *err [[buffer(17)]],
                    uint3 group [[threadgroup_position_in_grid]],
                    uint3 groups [[threadgroups_per_grid]],
                    uint lid [[thread_position_in_threadgroup]]) {
  device uchar *const B[PT_MTL_MAX_BUFS] = {${Array.from({ length: 16 }, (_, k) => `b${k}`).join(", ")}};`;

const HELPERS = String.raw`
#define PT_BLOCK PT_MTL_GROUP
${slotDefines()}
enum { PT_F32 = 0, PT_F16 = 1, PT_BF16 = 2, PT_F64 = 3, PT_I32 = 4, PT_I64 = 5, PT_U8 = 6, PT_BOOL = 7, PT_I8 = 8, PT_I16 = 9 };

#define PT_INF_F as_type<float>(0x7f800000u)
#define PT_NAN_F as_type<float>(0x7fc00000u)
#define PT_I64_MAX 9223372036854775807L
#define PT_I64_MIN (-9223372036854775807L - 1L)
#define PT_I32_MAX 2147483647
#define PT_I32_MIN (-2147483647 - 1)

/* Slot k of the argument block: an exact integer (ai) or the value rounded to float (af). */
#define PT_A(k) (p.ai[(k)])
#define PT_F(k) (p.af[(k)])
/* ELEMENT kernels: i = group.x*256 + lid; i < work; i += groups.x*256. */
#define PT_FIRST ((long)group.x * PT_BLOCK + (long)lid)
#define PT_STEP ((long)groups.x * PT_BLOCK)
#define PT_BARRIER threadgroup_barrier(mem_flags::mem_threadgroup)

/* The template dialect (src/kernels/dialect.ts). */
typedef long pt_i64;
typedef ulong pt_u64;
#define PT_VIEW(k) pt_view_at(p, B, (k))
#define PT_SHAPE(k, rank, shape) pt_shape_at(p, (k), (rank), (shape))
#define PT_FAIL(code, d0, d1, d2) pt_fail(err, (code), (d0), (d1), (d2))
#define PT_UNROLL
#define PT_UNROLL_REGS
#define PT_FN inline
#define PT_CTX constant pt_mtl_params &p, const thread pt_ptr *B, device pt_mtl_error *err,
#define PT_PASS p, B, err,
#define PT_CREF(T) const thread T &
#define PT_OUT(T) thread T &
#define PT_PTR pt_ptr
#define PT_TID int(lid)
#define PT_GROUP_ID group.x
#define PT_SYNC() threadgroup_barrier(mem_flags::mem_threadgroup)
#define PT_GROUPS groups.x
#define pt_facc pt_df /* float-float: Metal has no 64-bit float */
#define pt_facc_of(x) pt_df_of(float(x))
#define pt_facc_add pt_df_add
#define pt_facc_mul pt_df_mul
#define pt_ld_facc pt_ld_df
#define pt_st_facc pt_st_df
#define pt_f32_nz(x) pt_nz(x) /* by the bits: Metal flushes subnormals */
#define pt_f32_isnan(x) ((as_type<uint>(x) & 0x7fffffffu) > 0x7f800000u) /* by the bits: fast math folds isnan */
#define pt_mulhi32 mulhi
#define pt_as_f32(u) as_type<float>(u)
#define pt_exp_f32(x) exp(x)
#define pt_log_f32(x) log(x)
#define pt_fma_f32(a, b, c) fma(a, b, c)
#define pt_f32_bits(f) as_type<uint>(f)
#define PT_INOUT(T) thread T &
#define PT_HI(x) (x).hi /* max, min and their args compare the float part */
#define PT_FACC_INF pt_df_of(PT_INF_F)
#define PT_FACC_NINF pt_df_of(-PT_INF_F)
#define PT_FACC_NAN pt_df_of(PT_NAN_F)
#define PT_FACC_SLOT(k) (PT_A(k) != 0 ? pt_df_of_long(PT_A(k)) : pt_df_of(PT_F(k))) /* an integer slot is exact */
#define pt_facc_isnan(x) ((x).hi != (x).hi)
#define pt_facc_nonzero(x) pt_nz((x).hi)
#define pt_facc_sub pt_df_sub
#define pt_facc_div pt_df_div
#define pt_facc_sqrt pt_df_sqrt
#define pt_facc_of_i64(x) pt_df_of_long(x)
#define pt_facc_lt pt_df_lt
#define PT_BUF(k) B[int(PT_A(k)) & (PT_MTL_MAX_BUFS - 1)]
#define PT_ARR(T, name) const thread T *name
#define PT_SHARED_GLOBAL(T, name)
#define PT_SHARED_LOCAL(T, name) threadgroup T name[PT_BLOCK];
#define PT_SH(T, name) threadgroup T *name,
#define PT_SH_PASS(name) name,
#define PT_SHARED_GLOBAL_N(T, name, n)
#define PT_SHARED_LOCAL_N(T, name, n) threadgroup T name[n];
#define PT_SYNC_32() threadgroup_barrier(mem_flags::mem_threadgroup) /* SIMD-groups may be 8 to 64 wide */
#define PT_SYNC_GLOBAL() threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup)
#define pt_st_i64 pt_st_i
#define pt_ld_i64 pt_ld_i

typedef device uchar *pt_ptr;
typedef uint pt_u32;
/* Element i of buffer b as t's bits, for the templates (u8 and u16 as pt_u32). */
#define pt_raw_f32(b, i) (((device float *)(b))[i])
#define pt_raw_i32(b, i) (((device int *)(b))[i])
#define pt_raw_i64(b, i) (((device long *)(b))[i])
#define pt_raw_u16(b, i) pt_u32(((device ushort *)(b))[i])
#define pt_raw_u8(b, i) pt_u32((b)[i])
#define pt_put_f32(b, i, v) (((device float *)(b))[i] = (v))
#define pt_put_i32(b, i, v) (((device int *)(b))[i] = (v))
#define pt_put_i64(b, i, v) (((device long *)(b))[i] = (v))
#define pt_put_u16(b, i, v) (((device ushort *)(b))[i] = ushort(v))
#define pt_put_u8(b, i, v) ((b)[i] = uchar(v))
#define pt_raw_i64_coherent pt_raw_i64
#define pt_put_i64_coherent pt_put_i64

/* Nonzero by the bits (NaN yes, -0 no), so a subnormal counts even where the GPU flushes
 * subnormals to zero in comparisons. */
inline bool pt_nz(float x) { return (as_type<uint>(x) & 0x7fffffffu) != 0u; }

${valueHelpers(false)}

/* A VIEW: [buf index, dtype, offset, stride x 8], offsets and strides in elements. */
typedef struct {
  pt_ptr b;
  int dt;
  long off;
  long st[PT_MAX_RANK];
} pt_view;

inline pt_view pt_view_at(constant pt_mtl_params &p, const thread pt_ptr *bufs, int k) {
  pt_view v;
  v.b = bufs[(int)PT_A(k + PT_VIEW_BUF) & (PT_MTL_MAX_BUFS - 1)];
  v.dt = (int)PT_A(k + PT_VIEW_DTYPE);
  v.off = PT_A(k + PT_VIEW_OFFSET);
  for (int d = 0; d < PT_MAX_RANK; d++) v.st[d] = PT_A(k + PT_VIEW_STRIDES + d);
  return v;
}

/* rank shape slots at k, padded with 1 (a 0-d shape is one element). */
inline long pt_shape_at(constant pt_mtl_params &p, int k, int rank, thread long *shape) {
  long n = 1;
  for (int d = 0; d < PT_MAX_RANK; d++) {
    shape[d] = d < rank ? PT_A(k + d) : 1;
    n *= shape[d];
  }
  return n;
}

/* Records the first failure of a launch; the driver reads the block after completion.
 * Metal has only the weak compare-exchange, which may fail spuriously: retry until the
 * word is seen nonzero (someone else failed first) or ours is in. */
inline void pt_fail(device pt_mtl_error *err, uint code, long d0, long d1, long d2) {
  uint expected = 0u;
  while (!atomic_compare_exchange_weak_explicit(&err->code, &expected, code, memory_order_relaxed, memory_order_relaxed)) {
    if (expected != 0u) return;
  }
  err->d[0] = d0;
  err->d[1] = d1;
  err->d[2] = d2;
}

/* ---- arithmetic rounded once per op (one operation per function: never contracted) ---- */
inline float pt_add(float a, float b) { return a + b; }
inline float pt_sub(float a, float b) { return a - b; }
inline float pt_mul(float a, float b) { return a * b; }
/* Division and sqrt with one fma-checked correction step: the result is the correctly
 * rounded one even where the hardware's is within an ulp (a no-op where it already is). */
inline float pt_div(float a, float b) {
  const float q = a / b, aa = fabs(a), ab = fabs(b);
  if (!(aa > 1e-18f && aa < 1e18f && ab > 1e-18f && ab < 1e18f)) return q;
  const float r = fma(-q, b, a);
  return q + r / b;
}
inline float pt_sqrt(float a) {
  const float s = sqrt(a);
  if (!(a > 1e-30f && a < 1e30f)) return s;
  const float r = fma(-s, s, a);
  return s + r / (s + s);
}

/* float -> int with NaN -> 0 and saturation (the CPU's bounds, which are exact floats). */
inline long pt_f2i64(float f) {
  if (f != f) return 0;
  if (f >= 9223372036854775808.0f) return PT_I64_MAX;
  if (f <= -9223372036854775808.0f) return PT_I64_MIN;
  return (long)f;
}
inline int pt_f2i32(float f) {
  if (f != f) return 0;
  if (f >= 2147483648.0f) return PT_I32_MAX;
  if (f <= -2147483648.0f) return PT_I32_MIN;
  return (int)f;
}
inline int pt_wrap32(long v) { return (int)(uint)(ulong)v; }

/* The CPU's generic stores convert an int64 through f64, so one beyond 2^53 rounds twice
 * (to 53 bits, then to 24); done here in integer arithmetic. */
inline float pt_l2f_dbl(long v) {
  ulong a = v < 0 ? 0ul - (ulong)v : (ulong)v;
  if (a < (1ul << 53)) return (float)v;
  const int sh = 11 - (int)clz(a); /* bits below the 53 kept */
  const ulong low = a & ((1ul << sh) - 1ul), half_ = 1ul << (sh - 1);
  a >>= sh;
  if (low > half_ || (low == half_ && (a & 1ul))) a++;
  const float f = ldexp((float)a, sh);
  return v < 0 ? -f : f;
}

/* ---- generic element access (view.h's loads and stores, in float instead of f64) ---- */
inline float pt_ld_f(pt_ptr b, int dt, long i) {
  switch (dt) {
  case PT_F32: return ((device float *)b)[i];
  case PT_F16: return pt_f16_to_f32(((device ushort *)b)[i]);
  case PT_BF16: return pt_bf16_to_f32(((device ushort *)b)[i]);
  case PT_I32: return (float)((device int *)b)[i];
  case PT_I64: return pt_l2f_dbl(((device long *)b)[i]);
  case PT_I8: return (float)((device char *)b)[i];
  case PT_I16: return (float)((device short *)b)[i];
  default: return (float)b[i];
  }
}
inline long pt_ld_i(pt_ptr b, int dt, long i) {
  switch (dt) {
  case PT_I32: return ((device int *)b)[i];
  case PT_I64: return ((device long *)b)[i];
  case PT_U8: case PT_BOOL: return b[i];
  case PT_I8: return ((device char *)b)[i];
  case PT_I16: return ((device short *)b)[i];
  default: return pt_f2i64(pt_ld_f(b, dt, i));
  }
}
inline void pt_st_f(pt_ptr b, int dt, long i, float d) {
  switch (dt) {
  case PT_F32: ((device float *)b)[i] = d; break;
  case PT_F16: ((device ushort *)b)[i] = pt_f32_to_f16(d); break;
  case PT_BF16: ((device ushort *)b)[i] = pt_f32_to_bf16(d); break;
  case PT_I32: ((device int *)b)[i] = pt_f2i32(d); break;
  case PT_I64: ((device long *)b)[i] = pt_f2i64(d); break;
  case PT_U8: case PT_I8: b[i] = (uchar)(ulong)pt_f2i64(d); break;
  case PT_I16: ((device ushort *)b)[i] = (ushort)(ulong)pt_f2i64(d); break;
  default: b[i] = (uchar)pt_nz(d); break; /* NaN is true */
  }
}
inline void pt_st_i(pt_ptr b, int dt, long i, long v) {
  switch (dt) {
  case PT_I32: ((device int *)b)[i] = pt_wrap32(v); break;
  case PT_I64: ((device long *)b)[i] = v; break;
  case PT_U8: case PT_I8: b[i] = (uchar)(ulong)v; break;
  case PT_I16: ((device ushort *)b)[i] = (ushort)(ulong)v; break;
  case PT_BOOL: b[i] = (uchar)(v != 0); break;
  default: pt_st_f(b, dt, i, pt_l2f_dbl(v)); break;
  }
}

/* Same dtype: the bits; else through float (float source) or int64 (integer source). */
inline void pt_copy_elem(pt_ptr db, int ddt, long di, pt_ptr sb, int sdt, long si) {
  if (ddt != sdt) {
    if (pt_is_float(sdt)) pt_st_f(db, ddt, di, pt_ld_f(sb, sdt, si));
    else pt_st_i(db, ddt, di, pt_ld_i(sb, sdt, si));
    return;
  }
  switch (pt_dtype_size(ddt)) {
  case 8: ((device ulong *)db)[di] = ((device ulong *)sb)[si]; break;
  case 4: ((device uint *)db)[di] = ((device uint *)sb)[si]; break;
  case 2: ((device ushort *)db)[di] = ((device ushort *)sb)[si]; break;
  default: db[di] = sb[si]; break;
  }
}

/* NaN is nonzero; -0 is zero. Floats are tested by their bits, so a subnormal counts even
 * where the GPU flushes it to zero in arithmetic. */
inline bool pt_is_nonzero(pt_ptr b, int dt, long i) {
  switch (dt) {
  case PT_F32: return (((device uint *)b)[i] & 0x7fffffffu) != 0u;
  case PT_F16: case PT_BF16: return (((device ushort *)b)[i] & 0x7fffu) != 0u;
  case PT_I16: return ((device ushort *)b)[i] != 0u;
  case PT_I32: return ((device uint *)b)[i] != 0u;
  case PT_I64: return ((device ulong *)b)[i] != 0ul;
  default: return b[i] != 0;
  }
}

/* Row-major coordinates of linear index i over shape[0..rank) -> element offset of a view
 * (0 when rank is 0). Size-1 dims are skipped: their coordinate is 0. */
inline long pt_offset_of(long i, int rank, const thread long *shape, const thread long *st) {
  long off = 0;
  for (int d = PT_MAX_RANK - 1; d >= 0; d--) {
    if (d < rank && shape[d] != 1) {
      const long c = i % shape[d];
      i /= shape[d];
      off += c * st[d];
    }
  }
  return off;
}
`;

/** The start of every program: the Metal standard library, params.h, the helpers. */
export const PREAMBLE = `/* polytensor MSL program (src/kernels/msl.ts); compiled by newLibraryWithSource with fast math off. */
#include <metal_stdlib>
using namespace metal;

${PARAMS}${HELPERS}`;

/** What the templates written once (src/kernels/templates/) need of MSL besides the preamble's macros. */
export const MSL_DIALECT: Dialect = { kernel: KERNEL_HEAD, bounds: () => "", sharedBytes: 32 * 1024 };
