/* view.h: strided views and element conversion shared by the CPU kernels.
 *
 * A cpu_view is parsed from an argument block's 11-slot VIEW and checked against its
 * buffer once, before a kernel touches memory; after that, element access is plain
 * pointer arithmetic. Conversions follow the rules in kernels.h (NaN -> 0 and saturation
 * for float -> int, low bits kept for u8, i8 and i16, round-to-nearest-even for f16/bf16).
 */
#ifndef PT_CPU_VIEW_H
#define PT_CPU_VIEW_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "../../core/driver.h"
#include "../../core/slots.h"

typedef struct {
  uint8_t *base;       /* host address of element 0 of the buffer */
  int dtype;
  int64_t offset;      /* elements */
  int64_t stride[PT_MAX_RANK];
} cpu_view;

static const int pt_dtype_size[PT_DTYPE_COUNT] = {4, 2, 2, 8, 4, 8, 1, 1, 1, 2};

static inline int pt_is_float(int dt) { return dt == PT_F32 || dt == PT_F16 || dt == PT_BF16 || dt == PT_F64; }

/* Parses a VIEW at a[0..PT_VIEW_SLOTS) and checks that every element of `shape` (rank dims) lies in
 * the buffer. extra_strides/extra_shape (may be NULL/0) add dims whose strides live
 * elsewhere in the block (reduce's inner dims, an axis stride). */
int cpu_view_parse(const pt_mem_ref *bufs, int nbuf, const double *a, int rank, const int64_t *shape,
                   int extra_rank, const int64_t *extra_shape, const int64_t *extra_stride,
                   const char *what, cpu_view *v);
/* Reads n shape slots (padded with 1) and checks each is >= 0. */
int cpu_shape_parse(const double *a, int rank, int64_t *shape, const char *what);
int64_t cpu_numel(int rank, const int64_t *shape);

static inline float pt_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);
  else if (exp != 0) bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0) bits = sign;
  else { /* subnormal: normalise */
    int e = -1;
    do { man <<= 1; e++; } while (!(man & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
  }
  float f; memcpy(&f, &bits, 4); return f;
}

static inline uint16_t pt_f32_to_f16(float f) {
  uint32_t x; memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 | ((ax >> 13) & 0x3ff) : 0));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds to inf */
  if (ax < 0x38800000u) { /* subnormal or zero in f16 */
    if (ax < 0x33000000u) return (uint16_t)sign;
    uint32_t e = ax >> 23, m = (ax & 0x7fffff) | 0x800000, shift = 126 - e;
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
  return (uint16_t)(sign | r);
}

static inline float pt_bf16_to_f32(uint16_t h) { uint32_t b = (uint32_t)h << 16; float f; memcpy(&f, &b, 4); return f; }
static inline uint16_t pt_f32_to_bf16(float f) {
  uint32_t x; memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/* float -> int64 with NaN -> 0 and saturation (C's cast is undefined out of range). */
static inline int64_t pt_f2i64(double d) {
  if (d != d) return 0;
  if (d >= 9223372036854775807.0) return INT64_MAX;
  if (d <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)d;
}
static inline int32_t pt_f2i32(double d) {
  if (d != d) return 0;
  if (d >= 2147483647.0) return INT32_MAX;
  if (d <= -2147483648.0) return INT32_MIN;
  return (int32_t)d;
}

/* Generic element access (the slow path; hot loops specialise on dtype). */
static inline double pt_load_f64(const uint8_t *p, int dt) {
  switch (dt) {
  case PT_F32: { float v; memcpy(&v, p, 4); return v; }
  case PT_F16: { uint16_t v; memcpy(&v, p, 2); return pt_f16_to_f32(v); }
  case PT_BF16: { uint16_t v; memcpy(&v, p, 2); return pt_bf16_to_f32(v); }
  case PT_F64: { double v; memcpy(&v, p, 8); return v; }
  case PT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case PT_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
  case PT_I8: return (int8_t)*p;
  case PT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
  default: return *p;
  }
}
static inline int64_t pt_load_i64(const uint8_t *p, int dt) {
  switch (dt) {
  case PT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case PT_I64: { int64_t v; memcpy(&v, p, 8); return v; }
  case PT_U8: case PT_BOOL: return *p;
  case PT_I8: return (int8_t)*p;
  case PT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
  default: return pt_f2i64(pt_load_f64(p, dt));
  }
}
static inline void pt_store_f64(uint8_t *p, int dt, double d) {
  switch (dt) {
  case PT_F32: { float v = (float)d; memcpy(p, &v, 4); break; }
  case PT_F16: { uint16_t v = pt_f32_to_f16((float)d); memcpy(p, &v, 2); break; }
  case PT_BF16: { uint16_t v = pt_f32_to_bf16((float)d); memcpy(p, &v, 2); break; }
  case PT_F64: memcpy(p, &d, 8); break;
  case PT_I32: { int32_t v = pt_f2i32(d); memcpy(p, &v, 4); break; }
  case PT_I64: { int64_t v = pt_f2i64(d); memcpy(p, &v, 8); break; }
  case PT_U8: case PT_I8: *p = (uint8_t)(uint64_t)pt_f2i64(d); break;
  case PT_I16: { uint16_t v = (uint16_t)(uint64_t)pt_f2i64(d); memcpy(p, &v, 2); break; }
  default: *p = (d != 0); break; /* NaN != 0 is true */
  }
}
static inline void pt_store_i64(uint8_t *p, int dt, int64_t i) {
  switch (dt) {
  case PT_I32: { int32_t v = (int32_t)(uint32_t)(uint64_t)i; memcpy(p, &v, 4); break; }
  case PT_I64: memcpy(p, &i, 8); break;
  case PT_U8: case PT_I8: *p = (uint8_t)(uint64_t)i; break;
  case PT_I16: { uint16_t v = (uint16_t)(uint64_t)i; memcpy(p, &v, 2); break; }
  case PT_BOOL: *p = (i != 0); break;
  default: pt_store_f64(p, dt, (double)i); break;
  }
}

#define PT_ELEM(v, off) ((v)->base + (size_t)((v)->offset + (off)) * (size_t)pt_dtype_size[(v)->dtype])

#endif
