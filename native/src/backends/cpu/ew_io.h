/* ew_io.h: moving rows between a strided view and a register block, converting between
 * the storage dtype and the compute type (included by ew.c only).
 *
 * A call moves `rows` rows of `len` elements (rows `row_stride` apart in the view, packed
 * in the block), so that short rows cost one dispatch per run of rows rather than per row.
 * One loop per (dtype, compute type) pair, each with a unit-stride copy that the compiler
 * can vectorise and a general strided one. Conversions follow kernels.h: float -> int
 * truncates with NaN -> 0 and saturation at the target's range, int -> u8, i8 and i16 storage keeps
 * the low bits (a float goes through int64 first, so an out-of-range float wraps too), bool storage holds (v != 0), f16/bf16 round to nearest even (through f32).
 */
#ifndef PT_CPU_EW_IO_H
#define PT_CPU_EW_IO_H
#include "ew_ops.h"

static const int ew_ctype_size[4] = {4, 8, 4, 8};

#define EW_LOAD_LOOP(ST, DT, expr)                                                         \
  for (int64_t r = 0; r < rows; r++) {                                                     \
    const ST *restrict src_ = (const ST *)src + r * row_stride;                            \
    DT *restrict dst_ = (DT *)dst + r * len;                                               \
    if (stride == 1) for (int64_t k = 0; k < len; k++) { ST v = src_[k]; dst_[k] = (expr); } \
    else for (int64_t k = 0; k < len; k++) { ST v = src_[k * stride]; dst_[k] = (expr); }    \
  }

#define EW_LOAD_TO(CT, DT, from_float, from_double, from_i64)                                  \
  case CT * 16 + PT_F32: EW_LOAD_LOOP(float, DT, from_float(v)); break;                         \
  case CT * 16 + PT_F16: EW_LOAD_LOOP(uint16_t, DT, from_float(pt_f16_to_f32(v))); break;       \
  case CT * 16 + PT_BF16: EW_LOAD_LOOP(uint16_t, DT, from_float(pt_bf16_to_f32(v))); break;     \
  case CT * 16 + PT_F64: EW_LOAD_LOOP(double, DT, from_double(v)); break;                       \
  case CT * 16 + PT_I32: EW_LOAD_LOOP(int32_t, DT, (DT)v); break;                               \
  case CT * 16 + PT_I64: EW_LOAD_LOOP(int64_t, DT, from_i64(v)); break;                         \
  case CT * 16 + PT_U8: EW_LOAD_LOOP(uint8_t, DT, (DT)v); break;                                \
  case CT * 16 + PT_I8: EW_LOAD_LOOP(int8_t, DT, (DT)v); break;                                 \
  case CT * 16 + PT_I16: EW_LOAD_LOOP(int16_t, DT, (DT)v); break;                               \
  case CT * 16 + PT_BOOL: EW_LOAD_LOOP(uint8_t, DT, (DT)(v != 0)); break;

#define EW_AS_F32(v) ((float)(v))
#define EW_AS_F64(v) ((double)(v))
#define EW_WRAP_I32(v) ((int32_t)(uint32_t)(uint64_t)(v))
#define EW_AS_I64(v) ((int64_t)(v))

/* dst[r*len + k] = src element r*row_stride + k*stride, converted from dtype to ctype. */
static void ew_load_rows(int dtype, int ctype, const uint8_t *src, int64_t rows, int64_t row_stride, int64_t len,
                         int64_t stride, void *dst) {
  switch (ctype * 16 + dtype) {
  EW_LOAD_TO(EW_F32, float, EW_AS_F32, EW_AS_F32, EW_AS_F32)
  EW_LOAD_TO(EW_F64, double, EW_AS_F64, EW_AS_F64, EW_AS_F64)
  EW_LOAD_TO(EW_I32, int32_t, pt_f2i32, pt_f2i32, EW_WRAP_I32)
  EW_LOAD_TO(EW_I64, int64_t, pt_f2i64, pt_f2i64, EW_AS_I64)
  default: break;
  }
}

#define EW_STORE_LOOP(RT, OT, expr)                                                        \
  for (int64_t r = 0; r < rows; r++) {                                                     \
    const RT *restrict src_ = (const RT *)src + r * len;                                   \
    OT *restrict dst_ = (OT *)dst + r * row_stride;                                        \
    if (stride == 1) for (int64_t k = 0; k < len; k++) { RT v = src_[k]; dst_[k] = (expr); } \
    else for (int64_t k = 0; k < len; k++) { RT v = src_[k]; dst_[k * stride] = (expr); }    \
  }

#define EW_STORE_FROM(CT, RT, to_i32, to_i64)                                                  \
  case CT * 16 + PT_F32: EW_STORE_LOOP(RT, float, (float)v); break;                             \
  case CT * 16 + PT_F16: EW_STORE_LOOP(RT, uint16_t, pt_f32_to_f16((float)v)); break;           \
  case CT * 16 + PT_BF16: EW_STORE_LOOP(RT, uint16_t, pt_f32_to_bf16((float)v)); break;         \
  case CT * 16 + PT_F64: EW_STORE_LOOP(RT, double, (double)v); break;                           \
  case CT * 16 + PT_I32: EW_STORE_LOOP(RT, int32_t, to_i32(v)); break;                          \
  case CT * 16 + PT_I64: EW_STORE_LOOP(RT, int64_t, to_i64(v)); break;                          \
  case CT * 16 + PT_U8: case CT * 16 + PT_I8: EW_STORE_LOOP(RT, uint8_t, (uint8_t)(uint64_t)to_i64(v)); break; \
  case CT * 16 + PT_I16: EW_STORE_LOOP(RT, uint16_t, (uint16_t)(uint64_t)to_i64(v)); break;     \
  case CT * 16 + PT_BOOL: EW_STORE_LOOP(RT, uint8_t, (uint8_t)(v != 0)); break;

/* dst element r*row_stride + k*stride = src[r*len + k], converted from ctype to dtype. An
 * f64 register goes to f16/bf16 through f32 (as pt_store_f64 does), which can double-round
 * in rare ties. */
static void ew_store_rows(int ctype, int dtype, const void *src, uint8_t *dst, int64_t rows, int64_t row_stride,
                          int64_t len, int64_t stride) {
  switch (ctype * 16 + dtype) {
  EW_STORE_FROM(EW_F32, float, pt_f2i32, pt_f2i64)
  EW_STORE_FROM(EW_F64, double, pt_f2i32, pt_f2i64)
  EW_STORE_FROM(EW_I32, int32_t, EW_WRAP_I32, EW_AS_I64)
  EW_STORE_FROM(EW_I64, int64_t, EW_WRAP_I32, EW_AS_I64)
  default: break;
  }
}

#endif
