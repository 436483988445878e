/**
 * The text every CUDA program of the renderer starts with: params.h's pt_params struct
 * (verbatim), then device helpers shared by the elementwise programs and the templates:
 * f16/bf16 conversion by bit manipulation (no cuda_fp16.h, which NVRTC lacks without an
 * include path), the CPU backend's conversion rules (NaN -> 0 and saturation for float ->
 * int, wrap for u8 and i32, nonzero for bool), strided VIEWs read from the argument block,
 * and the error word. Arithmetic that must round once per op goes through the *_rn
 * intrinsics, so no compiler flag can contract it into a fused multiply-add.
 */
import { DOUBLE_FACC } from "../templates/reduce.ts";
import { valueHelpers } from "../templates/values.ts";
import type { Dialect } from "../dialect.ts";
import { slotDefines } from "../slots.ts";

/** params.h from `#define PT_CUDA_MAX_BUFS` to the error codes, character for character. */
export const PARAMS = `#define PT_CUDA_MAX_BUFS 16
#define PT_CUDA_MAX_ARGS 240
#ifndef PT_CUDA_MAX_SLOTS /* slots of a[] the program reads: a program may define fewer, so each launch copies less */
#define PT_CUDA_MAX_SLOTS PT_CUDA_MAX_ARGS
#endif

/* Also emitted as CUDA source by src/kernels/cuda.ts; keep the two identical. */
typedef struct {
  unsigned long long buf[PT_CUDA_MAX_BUFS];
  unsigned long long err; /* long long[4]: code, detail0, detail1, detail2 */
  int nbuf;
  int nargs;
  double a[PT_CUDA_MAX_SLOTS];
} pt_params;

/* Error codes written to err[0] by kernels (0 = none). */
#define PT_KERR_INDEX 1     /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2   /* details: element, 0 division / 1 modulo */
#define PT_KERR_COUNT 4     /* nonzero/masked_select: count differs; details: expected, found */
`;

const HELPERS = String.raw`
typedef long long pt_i64;
typedef unsigned long long pt_u64;
typedef unsigned int pt_u32;
typedef unsigned short pt_u16;
typedef unsigned char pt_u8;

#define PT_BLOCK 256 /* every launch shape of params.h uses blocks of 256 threads */
${slotDefines()}
enum { PT_F32 = 0, PT_F16 = 1, PT_BF16 = 2, PT_F64 = 3, PT_I32 = 4, PT_I64 = 5, PT_U8 = 6, PT_BOOL = 7, PT_I8 = 8, PT_I16 = 9 };

#define PT_INF_F __int_as_float(0x7f800000)
#define PT_INF __longlong_as_double(0x7ff0000000000000LL)
#define PT_NAN __longlong_as_double(0x7ff8000000000000LL)
#define PT_I64_MAX 9223372036854775807LL
#define PT_I64_MIN (-9223372036854775807LL - 1LL)
#define PT_I32_MAX 2147483647
#define PT_I32_MIN (-2147483647 - 1)

/* Integer slot k of the argument block (slots hold exact integers as doubles). Every k is
 * a compile-time constant once inlined and unrolled: a dynamic index into a kernel
 * parameter would make the compiler copy the whole block to local memory. */
#define PT_A(k) ((pt_i64)p.a[(k)])
/* ELEMENT kernels: i = blockIdx.x*256 + threadIdx.x; i < work; i += gridDim.x*256. */
#define PT_FIRST ((pt_i64)blockIdx.x * PT_BLOCK + (pt_i64)threadIdx.x)
#define PT_STEP ((pt_i64)gridDim.x * PT_BLOCK)

/* The template dialect (src/kernels/dialect.ts). */
#define PT_VIEW(k) pt_view_at(p, (k))
#define PT_SHAPE(k, rank, shape) pt_shape_at(p, (k), (rank), (shape))
/* (p).err, because cuda/program.c finds the programs that can fail by the text of their
 * calls (test/cuda_render.test.ts names both spellings), and this line is in every program. */
#define PT_FAIL(code, d0, d1, d2) pt_fail((p).err, (code), (d0), (d1), (d2))
#define PT_UNROLL _Pragma("unroll")
#define PT_UNROLL_REGS _Pragma("unroll")
#define PT_FN static __device__ __forceinline__
#define PT_CTX const pt_params &p,
#define PT_PASS p,
#define PT_CREF(T) const T &
#define PT_OUT(T) T &
#define PT_PTR char *
#define PT_TID int(threadIdx.x)
#define PT_GROUP_ID blockIdx.x
#define PT_SYNC() __syncthreads()
#define PT_GROUPS gridDim.x
${DOUBLE_FACC}#define pt_f32_nz(x) ((x) != 0.0f) /* NaN is nonzero */
#define pt_f32_isnan(x) ((x) != (x))
#define pt_mulhi32 __umulhi
#define pt_facc_log log
#define pt_facc_cos cos
#define PT_FACC_TWO_PI 6.283185307179586476925
#define pt_as_f32 __uint_as_float
#define pt_exp_f32 expf
#define pt_log_f32 logf
#define pt_fma_f32 fmaf
#define pt_f32_bits __float_as_uint
#define PT_INOUT(T) T &
#define PT_FACC_INF PT_INF
#define PT_FACC_NINF (-PT_INF)
#define PT_FACC_NAN PT_NAN
#define PT_FACC_SLOT(k) p.a[(k)]
#define pt_facc_isnan(x) ((x) != (x))
#define pt_facc_nonzero(x) ((x) != 0)
#define PT_BUF(k) pt_buf(p, int(PT_A(k)))
#define PT_ARR(T, name) const T *name
#define PT_SHARED_GLOBAL(T, name)
#define PT_SHARED_LOCAL(T, name) __shared__ T name[PT_BLOCK];
#define PT_SH(T, name) T *name,
#define PT_SH_PASS(name) name,
#define PT_SHARED_GLOBAL_N(T, name, n)
#define PT_SHARED_LOCAL_N(T, name, n) __shared__ T name[n];
#define PT_SYNC_32() __syncwarp()
#define PT_SYNC_GLOBAL() __syncthreads()
/* Element i of buffer b as t's bits, for the templates (u8 and u16 as pt_u32). */
#define pt_raw_f32(b, i) (((const float *)(b))[i])
#define pt_raw_f64(b, i) (((const double *)(b))[i])
#define pt_raw_i32(b, i) (((const int *)(b))[i])
#define pt_raw_i64(b, i) (((const pt_i64 *)(b))[i])
#define pt_raw_u16(b, i) pt_u32(((const pt_u16 *)(b))[i])
#define pt_raw_u8(b, i) pt_u32(((const pt_u8 *)(b))[i])
#define pt_put_f32(b, i, v) (((float *)(b))[i] = (v))
#define pt_put_f64(b, i, v) (((double *)(b))[i] = (v))
#define pt_put_i32(b, i, v) (((int *)(b))[i] = (v))
#define pt_put_i64(b, i, v) (((pt_i64 *)(b))[i] = (v))
#define pt_put_u16(b, i, v) (((pt_u16 *)(b))[i] = pt_u16(v))
#define pt_put_u8(b, i, v) (((pt_u8 *)(b))[i] = pt_u8(v))
#define pt_raw_i64_coherent pt_raw_i64
#define pt_put_i64_coherent pt_put_i64

${valueHelpers(false)}
/* Device pointer of buffer index k, chosen with constant indices only. */
static __device__ __forceinline__ char *pt_buf(const pt_params &p, int k) {
  pt_u64 r = 0;
#pragma unroll
  for (int q = 0; q < PT_CUDA_MAX_BUFS; q++)
    if (q == k) r = p.buf[q];
  return (char *)r;
}

/* A VIEW: [buf index, dtype, offset, stride x 8], offsets and strides in elements. */
typedef struct {
  char *b;
  int dt;
  pt_i64 off;
  pt_i64 st[PT_MAX_RANK];
} pt_view;

static __device__ __forceinline__ pt_view pt_view_at(const pt_params &p, int k) {
  pt_view v;
  v.b = pt_buf(p, (int)p.a[k + PT_VIEW_BUF]);
  v.dt = (int)p.a[k + PT_VIEW_DTYPE];
  v.off = (pt_i64)p.a[k + PT_VIEW_OFFSET];
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) v.st[d] = (pt_i64)p.a[k + PT_VIEW_STRIDES + d];
  return v;
}

/* rank shape slots at k, padded with 1 (a 0-d shape is one element). */
static __device__ __forceinline__ pt_i64 pt_shape_at(const pt_params &p, int k, int rank, pt_i64 *shape) {
  pt_i64 n = 1;
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) {
    shape[d] = d < rank ? (pt_i64)p.a[k + d] : 1;
    n *= shape[d];
  }
  return n;
}

/* Writes the error word once per launch (the first failing thread wins); the driver reads
 * it at the next synchronisation point. Calls pass p.err first, spelled so with no space: the
 * driver reads the word only after programs whose source has such a call (program.c). */
static __device__ __forceinline__ void pt_fail(pt_u64 err, pt_i64 code, pt_i64 d0, pt_i64 d1, pt_i64 d2) {
  pt_i64 *e = (pt_i64 *)err;
  if (!e) return;
  if (atomicCAS((pt_u64 *)e, 0ull, (pt_u64)code) == 0ull) {
    e[1] = d0;
    e[2] = d1;
    e[3] = d2;
  }
}

/* ---- arithmetic rounded once per op (never contracted into fma) ---- */
static __device__ __forceinline__ float pt_add(float a, float b) { return __fadd_rn(a, b); }
static __device__ __forceinline__ float pt_sub(float a, float b) { return __fsub_rn(a, b); }
static __device__ __forceinline__ float pt_mul(float a, float b) { return __fmul_rn(a, b); }
static __device__ __forceinline__ float pt_div(float a, float b) { return __fdiv_rn(a, b); }
static __device__ __forceinline__ float pt_sqrt(float a) { return __fsqrt_rn(a); }
static __device__ __forceinline__ double pt_add(double a, double b) { return __dadd_rn(a, b); }
static __device__ __forceinline__ double pt_sub(double a, double b) { return __dsub_rn(a, b); }
static __device__ __forceinline__ double pt_mul(double a, double b) { return __dmul_rn(a, b); }
static __device__ __forceinline__ double pt_div(double a, double b) { return __ddiv_rn(a, b); }
static __device__ __forceinline__ double pt_sqrt(double a) { return __dsqrt_rn(a); }

/* float -> int with NaN -> 0 and saturation. */
static __device__ __forceinline__ pt_i64 pt_f2i64(double d) {
  if (d != d) return 0;
  if (d >= 9223372036854775807.0) return PT_I64_MAX;
  if (d <= -9223372036854775808.0) return PT_I64_MIN;
  return (pt_i64)d;
}
static __device__ __forceinline__ int pt_f2i32(double d) {
  if (d != d) return 0;
  if (d >= 2147483647.0) return PT_I32_MAX;
  if (d <= -2147483648.0) return PT_I32_MIN;
  return (int)d;
}
static __device__ __forceinline__ int pt_wrap32(pt_i64 v) { return (int)(pt_u32)(pt_u64)v; }

/* ---- generic element access (view.h's pt_load_f64 / pt_load_i64 / pt_store_*) ---- */
static __device__ __forceinline__ double pt_ld_f64(const char *b, int dt, pt_i64 i) {
  switch (dt) {
  case PT_F32: return (double)((const float *)b)[i];
  case PT_F16: return (double)pt_f16_to_f32(((const pt_u16 *)b)[i]);
  case PT_BF16: return (double)pt_bf16_to_f32(((const pt_u16 *)b)[i]);
  case PT_F64: return ((const double *)b)[i];
  case PT_I32: return (double)((const int *)b)[i];
  case PT_I64: return (double)((const pt_i64 *)b)[i];
  case PT_I8: return (double)((const signed char *)b)[i];
  case PT_I16: return (double)((const short *)b)[i];
  default: return (double)((const pt_u8 *)b)[i];
  }
}
static __device__ __forceinline__ pt_i64 pt_ld_i64(const char *b, int dt, pt_i64 i) {
  switch (dt) {
  case PT_I32: return ((const int *)b)[i];
  case PT_I64: return ((const pt_i64 *)b)[i];
  case PT_U8: case PT_BOOL: return ((const pt_u8 *)b)[i];
  case PT_I8: return ((const signed char *)b)[i];
  case PT_I16: return ((const short *)b)[i];
  default: return pt_f2i64(pt_ld_f64(b, dt, i));
  }
}
static __device__ __forceinline__ void pt_st_f64(char *b, int dt, pt_i64 i, double d) {
  switch (dt) {
  case PT_F32: ((float *)b)[i] = (float)d; break;
  case PT_F16: ((pt_u16 *)b)[i] = pt_f32_to_f16((float)d); break;
  case PT_BF16: ((pt_u16 *)b)[i] = pt_f32_to_bf16((float)d); break;
  case PT_F64: ((double *)b)[i] = d; break;
  case PT_I32: ((int *)b)[i] = pt_f2i32(d); break;
  case PT_I64: ((pt_i64 *)b)[i] = pt_f2i64(d); break;
  case PT_U8: case PT_I8: ((pt_u8 *)b)[i] = (pt_u8)(pt_u64)pt_f2i64(d); break;
  case PT_I16: ((pt_u16 *)b)[i] = (pt_u16)(pt_u64)pt_f2i64(d); break;
  default: ((pt_u8 *)b)[i] = (pt_u8)(d != 0); break; /* NaN != 0 is true */
  }
}
static __device__ __forceinline__ void pt_st_i64(char *b, int dt, pt_i64 i, pt_i64 v) {
  switch (dt) {
  case PT_I32: ((int *)b)[i] = pt_wrap32(v); break;
  case PT_I64: ((pt_i64 *)b)[i] = v; break;
  case PT_U8: case PT_I8: ((pt_u8 *)b)[i] = (pt_u8)(pt_u64)v; break;
  case PT_I16: ((pt_u16 *)b)[i] = (pt_u16)(pt_u64)v; break;
  case PT_BOOL: ((pt_u8 *)b)[i] = (pt_u8)(v != 0); break;
  default: pt_st_f64(b, dt, i, (double)v); break;
  }
}

/* Same dtype: the bits; else through double (float source) or int64 (integer source). */
static __device__ __forceinline__ void pt_copy_elem(char *db, int ddt, pt_i64 di, const char *sb, int sdt, pt_i64 si) {
  if (ddt != sdt) {
    if (pt_is_float(sdt)) pt_st_f64(db, ddt, di, pt_ld_f64(sb, sdt, si));
    else pt_st_i64(db, ddt, di, pt_ld_i64(sb, sdt, si));
    return;
  }
  switch (pt_dtype_size(ddt)) {
  case 8: ((pt_u64 *)db)[di] = ((const pt_u64 *)sb)[si]; break;
  case 4: ((pt_u32 *)db)[di] = ((const pt_u32 *)sb)[si]; break;
  case 2: ((pt_u16 *)db)[di] = ((const pt_u16 *)sb)[si]; break;
  default: ((pt_u8 *)db)[di] = ((const pt_u8 *)sb)[si]; break;
  }
}

/* NaN is nonzero; -0 is zero. Floats are tested by their bits, so a subnormal counts even
 * where a compiler flag flushes it to zero. */
static __device__ __forceinline__ bool pt_is_nonzero(const char *b, int dt, pt_i64 i) {
  switch (dt) {
  case PT_F32: return (((const pt_u32 *)b)[i] & 0x7fffffffu) != 0;
  case PT_F64: return (((const pt_u64 *)b)[i] & 0x7fffffffffffffffull) != 0;
  case PT_F16: case PT_BF16: return (((const pt_u16 *)b)[i] & 0x7fff) != 0;
  case PT_I16: return ((const pt_u16 *)b)[i] != 0;
  case PT_I32: return ((const pt_u32 *)b)[i] != 0;
  case PT_I64: return ((const pt_u64 *)b)[i] != 0;
  default: return ((const pt_u8 *)b)[i] != 0;
  }
}

/* Row-major coordinates of linear index i over shape[0..rank) -> element offset of a view
 * (0 when rank is 0). Size-1 dims are skipped: their coordinate is 0. */
static __device__ __forceinline__ pt_i64 pt_offset_of(pt_i64 i, int rank, const pt_i64 *shape, const pt_i64 *st) {
  pt_i64 off = 0;
#pragma unroll
  for (int d = PT_MAX_RANK - 1; d >= 0; d--) {
    if (d < rank && shape[d] != 1) {
      pt_i64 c = i % shape[d];
      i /= shape[d];
      off += c * st[d];
    }
  }
  return off;
}
`;

/** The start of every program. */
const FIRST_LINE = "/* polytensor CUDA program (src/kernels/cuda.ts); compiled by NVRTC. */\n";
export const PREAMBLE = `${FIRST_LINE}${PARAMS}${HELPERS}`;

/** The preamble of a program whose kernel reads only `slots` argument slots (pt_params.a). */
export function preambleFor(slots: number): string {
  return `${FIRST_LINE}#undef PT_CUDA_MAX_SLOTS\n#define PT_CUDA_MAX_SLOTS ${slots}\n${PARAMS}${HELPERS}`;
}

/** What the templates written once (src/kernels/templates/) need of CUDA C besides the preamble's macros. */
export const CUDA_DIALECT: Dialect = {
  kernel: 'extern "C" __global__ void pt_main(const pt_params p) {',
  bounds: (groups) => `extern "C" __global__ void __launch_bounds__(PT_BLOCK, ${groups}) pt_main(const pt_params p);\n`,
  sharedBytes: 48 * 1024,
};
