/**
 * The text every GLSL program of the renderer starts with: the header params.h asks for
 * (GLSL 4.60 compute, local_size_x 256, the PtParams record reached through the push
 * constant's device address, the error block), then helpers shared by the elementwise
 * programs and the templates. Element access is by byte address (buffer + i * size), so
 * indices are 64-bit everywhere and no descriptor exists. f16/bf16 live as uint16_t and
 * u8/bool as uint8_t and convert by bit manipulation (GLSL's packHalf2x16 leaves the
 * rounding to the driver). The conversion rules are blocks.h's: NaN -> 0 and saturation
 * for float -> int, wrap for u8 and i32, nonzero (NaN included) for bool.
 *
 * Rounding: f32 and f64 add/sub/mul are correctly rounded in SPIR-V; every one that must
 * round once is written to a `precise` variable (SPIR-V NoContraction), since drivers
 * otherwise fuse a*b+c. f32 division and sqrt go through double (exact after the second
 * rounding, as 53 >= 2*24+2) because Vulkan lets the f32 forms be 2.5-3 ulp off; f64
 * division and sqrt are the driver's (correctly rounded on the drivers checked, not
 * required by Vulkan). f32 subnormals are kept where the driver defines
 * PT_VK_DENORM_PRESERVE_F32 (the CPU backend keeps them).
 *
 * Loops: llvmpipe (lavapipe, the CI's Vulkan) ends every loop of an invocation once that
 * invocation has made 65535 loop passes in all (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS, counted
 * per SIMD vector of invocations over every loop it meets, a loop none of its lanes runs
 * included), and the kernel then carries on with wrong values and no error. So helpers
 * that run per element have no loops, and work that one invocation does in order (scan's
 * chain, the ordered writes of scatter and index_put) is unrolled.
 */
import { DOUBLE_FACC } from "../templates/reduce.ts";
import { valueHelpers } from "../templates/values.ts";
import type { Dialect } from "../dialect.ts";
import { slotDefines } from "../slots.ts";

/** Error codes, as params.h defines them (kernels report through the error block). */
export const KERR = { INDEX: 1, INT_DIV: 2, COUNT: 4 } as const;

const HEADER = String.raw`#version 460
/* polytensor GLSL program (src/kernels/glsl.ts); contract: native/src/backends/vulkan/params.h */
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_spirv_intrinsics : require
#extension GL_EXT_control_flow_attributes : require
#ifdef PT_VK_COOPMAT
/* the driver's macro where float16 cooperative matrices run (glsl/coopmat.ts) */
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#if defined(PT_VK_DENORM_PRESERVE_F32) && PT_VK_DENORM_PRESERVE_F32
/* capability DenormPreserve (4464), execution mode DenormPreserve (4459) for 32-bit floats */
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);
#endif
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform PtPush { uint64_t params; } pt_push;
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer PtParams {
  uint64_t buf[16]; uint64_t err; int nbuf; int nargs; double a[240];
};
layout(buffer_reference, std430, buffer_reference_align = 8) buffer PtErr {
  uint code; uint pad; int64_t d0; int64_t d1; int64_t d2;
};
/* One element at a byte address; the views' dtypes pick which. */
layout(buffer_reference, std430, buffer_reference_align = 4) buffer PtF32 { float v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer PtF64 { double v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer PtI32 { int v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer PtI64 { int64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer PtU32 { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer PtU64 { uint64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer PtU16 { uint16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer PtU8 { uint8_t v; };
/* An int64 that other invocations of the group read and write between barriers (sort's long rows). */
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer PtC64 { int64_t v; };
/* 16-byte vectors from a 16-byte aligned address: the vectorised loads of reduce and matmul
 * (v[i] with a constant i becomes an immediate offset from one address). */
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PtV16 { uvec4 v[]; };

#define PT_KERR_INDEX 1u
#define PT_KERR_INT_DIV 2u
#define PT_KERR_COUNT 4u
`;

const HELPERS = String.raw`
#define PT_BLOCK 256
${slotDefines()}
#define PT_F32 0
#define PT_F16 1
#define PT_BF16 2
#define PT_F64 3
#define PT_I32 4
#define PT_I64 5
#define PT_U8 6
#define PT_BOOL 7
#define PT_I8 8
#define PT_I16 9
#define PT_I64_MAX 9223372036854775807l
#define PT_I64_MIN (-9223372036854775807l - 1l)

/* The launch's record; a dynamic index into it is a memory read. */
#define PT_P PtParams(pt_push.params)
#define PT_A(k) int64_t(PT_P.a[(k)])
/* ELEMENT kernels: i = group*256 + lane; i < work; i += groups*256. */
#define PT_FIRST (int64_t(gl_WorkGroupID.x) * 256l + int64_t(gl_LocalInvocationID.x))
#define PT_STEP (int64_t(gl_NumWorkGroups.x) * 256l)

/* The template dialect (src/kernels/dialect.ts). */
#define pt_i64 int64_t
#define pt_u64 uint64_t
#define pt_u32 uint
#define PT_VIEW(k) pt_view_at(k)
#define PT_SHAPE(k, rank, shape) pt_shape_at((k), (rank), (shape))
#define PT_FAIL(code, d0, d1, d2) pt_fail((code), int64_t(d0), int64_t(d1), int64_t(d2))
#define PT_UNROLL [[unroll]]
/* left to the driver: llvmpipe compiles attention's fully unrolled 128-feature loops for minutes */
#define PT_UNROLL_REGS
#define PT_FN
#define pt_wrap32(v) int(v) /* int64 -> int keeps the low 32 bits */
#define PT_CTX
#define PT_PASS
#define PT_CREF(T) in T
#define PT_OUT(T) out T
#define PT_PTR uint64_t
#define PT_TID int(gl_LocalInvocationID.x)
#define PT_GROUP_ID gl_WorkGroupID.x
#define PT_SYNC() barrier()
#define PT_GROUPS gl_NumWorkGroups.x
${DOUBLE_FACC}#define pt_f32_nz(x) ((x) != 0.0) /* unordered: NaN is nonzero */
#define pt_f32_isnan(x) isnan(x)
#define pt_facc_log pt_log
#define pt_facc_cos pt_cos
#define PT_FACC_TWO_PI 6.283185307179586476925lf
#define pt_as_f32 uintBitsToFloat
#define pt_exp_f32 exp
#define pt_log_f32(x) float(pt_log(double(x))) /* math.ts's: the driver's log may keep about 12 bits */
#define pt_fma_f32 fma
#define pt_f32_bits floatBitsToUint
#define pt_msb(x) findMSB(x)
#define PT_INOUT(T) inout T
#define PT_FACC_INF pt_inf()
#define PT_FACC_NINF (-pt_inf())
#define PT_FACC_NAN pt_nan()
#define PT_FACC_SLOT(k) PT_P.a[(k)]
#define pt_facc_isnan(x) isnan(x)
#define pt_facc_nonzero(x) ((x) != 0.0lf) /* unordered: NaN is nonzero */
#define PT_BUF(k) PT_P.buf[int(PT_A(k))]
#define PT_ARR(T, name) T name[PT_MAX_RANK]
#define PT_SHARED_GLOBAL(T, name) shared T name[PT_BLOCK];
#define PT_SHARED_LOCAL(T, name)
#define PT_SH(T, name)
#define PT_SH_PASS(name)
#define PT_SHARED_GLOBAL_N(T, name, n) shared T name[n];
#define PT_SHARED_LOCAL_N(T, name, n)
#define PT_SYNC_32() barrier() /* a subgroup is the driver's width, and need not run in lock-step */
#define PT_SYNC_GLOBAL() pt_sync_global()

double pt_inf() { return uint64BitsToDouble(0x7ff0000000000000ul); }
double pt_nan() { return uint64BitsToDouble(0x7ff8000000000000ul); }
float pt_inf_f() { return uintBitsToFloat(0x7f800000u); }
uint pt_mulhi32(uint a, uint b) {
  uint hi, lo;
  umulExtended(a, b, hi, lo);
  return hi;
}

/* ---- arithmetic rounded once per op (never contracted into fma) ---- */
float pt_add(float a, float b) { precise float r = a + b; return r; }
float pt_sub(float a, float b) { precise float r = a - b; return r; }
float pt_mul(float a, float b) { precise float r = a * b; return r; }
float pt_div(float a, float b) { precise double r = double(a) / double(b); return float(r); }
float pt_sqrt(float a) { return float(sqrt(double(a))); }
double pt_add(double a, double b) { precise double r = a + b; return r; }
double pt_sub(double a, double b) { precise double r = a - b; return r; }
double pt_mul(double a, double b) { precise double r = a * b; return r; }
double pt_div(double a, double b) { precise double r = a / b; return r; }
double pt_sqrt(double a) { return sqrt(a); }

${valueHelpers(true)}
/* A VIEW: [buf index, dtype, offset, stride x 8], offsets and strides in elements. */
struct pt_view {
  uint64_t b;
  int dt;
  int64_t off;
  int64_t st[PT_MAX_RANK];
};

pt_view pt_view_at(int k) {
  pt_view v;
  v.b = PT_P.buf[int(PT_P.a[k + PT_VIEW_BUF])];
  v.dt = int(PT_P.a[k + PT_VIEW_DTYPE]);
  v.off = PT_A(k + PT_VIEW_OFFSET);
  for (int d = 0; d < PT_MAX_RANK; d++) v.st[d] = PT_A(k + PT_VIEW_STRIDES + d);
  return v;
}

/* rank shape slots at k, padded with 1 (a 0-d shape is one element). */
int64_t pt_shape_at(int k, int rank, out int64_t shape[PT_MAX_RANK]) {
  int64_t n = 1;
  for (int d = 0; d < PT_MAX_RANK; d++) {
    shape[d] = d < rank ? PT_A(k + d) : 1l;
    n *= shape[d];
  }
  return n;
}

/* The first failing invocation of a launch writes the block; the driver reads it later. */
void pt_fail(uint code, int64_t d0, int64_t d1, int64_t d2) {
  const uint64_t e = PT_P.err;
  if (e == 0ul) return;
  PtErr r = PtErr(e);
  if (atomicCompSwap(r.code, 0u, code) == 0u) {
    r.d0 = d0;
    r.d1 = d1;
    r.d2 = d2;
  }
}

/* float -> int with NaN -> 0 and saturation. */
int64_t pt_f2i64(double d) {
  if (isnan(d)) return 0l;
  if (d >= 9223372036854775807.0lf) return PT_I64_MAX;
  if (d <= -9223372036854775808.0lf) return PT_I64_MIN;
  return int64_t(d);
}
int pt_f2i32(double d) {
  if (isnan(d)) return 0;
  if (d >= 2147483647.0lf) return 2147483647;
  if (d <= -2147483648.0lf) return -2147483647 - 1;
  return int(d);
}

/* ---- raw element access at element index i of the buffer at address b ---- */
float pt_raw_f32(uint64_t b, int64_t i) { return PtF32(b + uint64_t(i) * 4ul).v; }
double pt_raw_f64(uint64_t b, int64_t i) { return PtF64(b + uint64_t(i) * 8ul).v; }
int pt_raw_i32(uint64_t b, int64_t i) { return PtI32(b + uint64_t(i) * 4ul).v; }
int64_t pt_raw_i64(uint64_t b, int64_t i) { return PtI64(b + uint64_t(i) * 8ul).v; }
uint pt_raw_u16(uint64_t b, int64_t i) { return uint(PtU16(b + uint64_t(i) * 2ul).v); }
uint pt_raw_u8(uint64_t b, int64_t i) { return uint(PtU8(b + uint64_t(i)).v); }
void pt_put_f32(uint64_t b, int64_t i, float v) { PtF32(b + uint64_t(i) * 4ul).v = v; }
void pt_put_f64(uint64_t b, int64_t i, double v) { PtF64(b + uint64_t(i) * 8ul).v = v; }
void pt_put_i32(uint64_t b, int64_t i, int v) { PtI32(b + uint64_t(i) * 4ul).v = v; }
void pt_put_i64(uint64_t b, int64_t i, int64_t v) { PtI64(b + uint64_t(i) * 8ul).v = v; }
void pt_put_u16(uint64_t b, int64_t i, uint v) { PtU16(b + uint64_t(i) * 2ul).v = uint16_t(v); }
void pt_put_u8(uint64_t b, int64_t i, uint v) { PtU8(b + uint64_t(i)).v = uint8_t(v); }
int64_t pt_raw_i64_coherent(uint64_t b, int64_t i) { return PtC64(b + uint64_t(i) * 8ul).v; }
void pt_put_i64_coherent(uint64_t b, int64_t i, int64_t v) { PtC64(b + uint64_t(i) * 8ul).v = v; }
void pt_sync_global() {
  memoryBarrierBuffer();
  barrier();
}

/* ---- generic element access (view.h's pt_load_f64 / pt_load_i64 / pt_store_*) ---- */
double pt_ld_f64(uint64_t b, int dt, int64_t i) {
  switch (dt) {
  case PT_F32: return double(pt_raw_f32(b, i));
  case PT_F16: return double(pt_f16_to_f32(pt_raw_u16(b, i)));
  case PT_BF16: return double(pt_bf16_to_f32(pt_raw_u16(b, i)));
  case PT_F64: return pt_raw_f64(b, i);
  case PT_I32: return double(pt_raw_i32(b, i));
  case PT_I64: return double(pt_raw_i64(b, i));
  case PT_I8: return double(pt_sext8(pt_raw_u8(b, i)));
  case PT_I16: return double(pt_sext16(pt_raw_u16(b, i)));
  default: return double(pt_raw_u8(b, i));
  }
}
int64_t pt_ld_i64(uint64_t b, int dt, int64_t i) {
  switch (dt) {
  case PT_I32: return int64_t(pt_raw_i32(b, i));
  case PT_I64: return pt_raw_i64(b, i);
  case PT_U8: case PT_BOOL: return int64_t(pt_raw_u8(b, i));
  case PT_I8: return int64_t(pt_sext8(pt_raw_u8(b, i)));
  case PT_I16: return int64_t(pt_sext16(pt_raw_u16(b, i)));
  default: return pt_f2i64(pt_ld_f64(b, dt, i));
  }
}
void pt_st_f64(uint64_t b, int dt, int64_t i, double d) {
  switch (dt) {
  case PT_F32: pt_put_f32(b, i, float(d)); break;
  case PT_F16: pt_put_u16(b, i, pt_f32_to_f16(float(d))); break;
  case PT_BF16: pt_put_u16(b, i, pt_f32_to_bf16(float(d))); break;
  case PT_F64: pt_put_f64(b, i, d); break;
  case PT_I32: pt_put_i32(b, i, pt_f2i32(d)); break;
  case PT_I64: pt_put_i64(b, i, pt_f2i64(d)); break;
  case PT_U8: case PT_I8: pt_put_u8(b, i, uint(pt_f2i64(d)) & 0xffu); break;
  case PT_I16: pt_put_u16(b, i, uint(pt_f2i64(d)) & 0xffffu); break;
  default: pt_put_u8(b, i, d != 0.0lf ? 1u : 0u); break; /* NaN != 0 is true */
  }
}
void pt_st_i64(uint64_t b, int dt, int64_t i, int64_t v) {
  switch (dt) {
  case PT_I32: pt_put_i32(b, i, int(v)); break;
  case PT_I64: pt_put_i64(b, i, v); break;
  case PT_U8: case PT_I8: pt_put_u8(b, i, uint(v) & 0xffu); break;
  case PT_I16: pt_put_u16(b, i, uint(v) & 0xffffu); break;
  case PT_BOOL: pt_put_u8(b, i, v != 0l ? 1u : 0u); break;
  default: pt_st_f64(b, dt, i, double(v)); break;
  }
}

/* Same dtype: the bits; else through double (float source) or int64 (integer source). */
void pt_copy_elem(uint64_t db, int ddt, int64_t di, uint64_t sb, int sdt, int64_t si) {
  if (ddt != sdt) {
    if (pt_is_float(sdt)) pt_st_f64(db, ddt, di, pt_ld_f64(sb, sdt, si));
    else pt_st_i64(db, ddt, di, pt_ld_i64(sb, sdt, si));
    return;
  }
  switch (pt_dtype_size(ddt)) {
  case 8: PtU64(db + uint64_t(di) * 8ul).v = PtU64(sb + uint64_t(si) * 8ul).v; break;
  case 4: PtU32(db + uint64_t(di) * 4ul).v = PtU32(sb + uint64_t(si) * 4ul).v; break;
  case 2: pt_put_u16(db, di, pt_raw_u16(sb, si)); break;
  default: pt_put_u8(db, di, pt_raw_u8(sb, si)); break;
  }
}

/* NaN is nonzero; -0 is zero. Floats are tested by their bits, so a subnormal counts even
 * where the driver flushes it in arithmetic. */
bool pt_is_nonzero(uint64_t b, int dt, int64_t i) {
  switch (dt) {
  case PT_F32: case PT_I32: return (PtU32(b + uint64_t(i) * 4ul).v & (dt == PT_F32 ? 0x7fffffffu : 0xffffffffu)) != 0u;
  case PT_F64: return (PtU64(b + uint64_t(i) * 8ul).v & 0x7ffffffffffffffful) != 0ul;
  case PT_I64: return PtU64(b + uint64_t(i) * 8ul).v != 0ul;
  case PT_F16: case PT_BF16: return (pt_raw_u16(b, i) & 0x7fffu) != 0u;
  case PT_I16: return pt_raw_u16(b, i) != 0u;
  default: return pt_raw_u8(b, i) != 0u;
  }
}

/* Row-major coordinates of linear index i over shape[0..rank) -> element offset of a view
 * (0 when rank is 0). Size-1 dims are skipped: their coordinate is 0. i >= 0. */
int64_t pt_offset_of(int64_t i, int rank, int64_t shape[PT_MAX_RANK], int64_t st[PT_MAX_RANK]) {
  int64_t off = 0;
  for (int d = min(rank, PT_MAX_RANK) - 1; d >= 0; d--) {
    if (shape[d] != 1l) {
      const int64_t q = i / shape[d];
      off += (i - q * shape[d]) * st[d];
      i = q;
    }
  }
  return off;
}
`;

/** The start of every program: header, then the shared helpers. */
export const PREAMBLE = HEADER + HELPERS;

/** What the templates written once (src/kernels/templates/) need of GLSL besides the preamble's macros. */
export const GLSL_DIALECT: Dialect = { kernel: "void main() {", bounds: () => "", sharedBytes: 32 * 1024 };
