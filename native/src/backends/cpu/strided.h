/* strided.h: block-slot parsing and typed strided copies shared by reduce.c, scan.c and
 * sort.c (private to those kernels).
 *
 * The kernels move data between a strided view of any dtype and a small contiguous buffer
 * of double or int64 (or of raw elements), then compute on the buffer. Switching on the
 * dtype once per run, not once per element, is what lets these loops vectorise.
 */
#ifndef PT_CPU_STRIDED_H
#define PT_CPU_STRIDED_H
#include "view.h"

/* Slots come from callers: NaN, fractions and values beyond 2^53 are refused before any
 * conversion to int64 (which would be undefined for them). */
static inline int kslot(double d, int64_t lo, int64_t hi, int64_t *out) {
  if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != floor(d)) return 0;
  int64_t v = (int64_t)d;
  if (v < lo || v > hi) return 0;
  *out = v;
  return 1;
}
#define KSLOT_MAX 9007199254740992LL
#define KSLOT_ANY (-KSLOT_MAX), KSLOT_MAX

/* The loop bodies are spelled out per type so each instance is a plain indexed loop. */
#define KGATHER(T, CONV)                                                               \
  {                                                                                    \
    const T *q = (const T *)p;                                                         \
    if (s == 1 && os == 1) for (int64_t i = 0; i < n; i++) o[i] = CONV(q[i]);          \
    else for (int64_t i = 0; i < n; i++) o[i * os] = CONV(q[i * s]);                    \
  }                                                                                    \
  break;
#define KSCATTER(T, CONV)                                                              \
  {                                                                                    \
    T *q = (T *)p;                                                                     \
    if (s == 1 && os == 1) for (int64_t i = 0; i < n; i++) q[i] = CONV(o[i]);          \
    else for (int64_t i = 0; i < n; i++) q[i * s] = CONV(o[i * os]);                    \
  }                                                                                    \
  break;
#define KID(x) (x)
#define KF16(x) ((double)pt_f16_to_f32(x))
#define KBF16(x) ((double)pt_bf16_to_f32(x))

/* n elements at p (stride s elements, dtype dt) -> o[i * os] as double. */
static inline void kgather_f(const uint8_t *p, int dt, int64_t s, int64_t n, double *o, int64_t os) {
  switch (dt) {
  case PT_F32: KGATHER(float, KID)
  case PT_F64: KGATHER(double, KID)
  case PT_F16: KGATHER(uint16_t, KF16)
  case PT_BF16: KGATHER(uint16_t, KBF16)
  case PT_I32: KGATHER(int32_t, (double))
  case PT_I64: KGATHER(int64_t, (double))
  case PT_I8: KGATHER(int8_t, KID)
  case PT_I16: KGATHER(int16_t, KID)
  default: KGATHER(uint8_t, KID)
  }
}

/* Integer dtypes only (ints accumulate in int64; floats never take this path). */
static inline void kgather_i(const uint8_t *p, int dt, int64_t s, int64_t n, int64_t *o, int64_t os) {
  switch (dt) {
  case PT_I32: KGATHER(int32_t, KID)
  case PT_I64: KGATHER(int64_t, KID)
  case PT_U8: case PT_BOOL: KGATHER(uint8_t, KID)
  case PT_I8: KGATHER(int8_t, KID)
  case PT_I16: KGATHER(int16_t, KID)
  default: for (int64_t i = 0; i < n; i++) o[i * os] = pt_load_i64(p + i * s * pt_dtype_size[dt], dt);
  }
}

#define KTO_F16(x) pt_f32_to_f16((float)(x))
#define KTO_BF16(x) pt_f32_to_bf16((float)(x))
#define KTO_I32(x) ((int32_t)(uint32_t)(uint64_t)pt_f2i64(x))
#define KTO_U8(x) ((uint8_t)(uint64_t)pt_f2i64(x))
#define KTO_U16(x) ((uint16_t)(uint64_t)pt_f2i64(x))
#define KTO_BOOL(x) ((uint8_t)((x) != 0))

static inline void kscatter_f(uint8_t *p, int dt, int64_t s, int64_t n, const double *o, int64_t os) {
  switch (dt) {
  case PT_F32: KSCATTER(float, (float))
  case PT_F64: KSCATTER(double, KID)
  case PT_F16: KSCATTER(uint16_t, KTO_F16)
  case PT_BF16: KSCATTER(uint16_t, KTO_BF16)
  case PT_I32: KSCATTER(int32_t, KTO_I32)
  case PT_I64: KSCATTER(int64_t, pt_f2i64)
  case PT_U8: case PT_I8: KSCATTER(uint8_t, KTO_U8)
  case PT_I16: KSCATTER(uint16_t, KTO_U16)
  default: KSCATTER(uint8_t, KTO_BOOL)
  }
}

#define KWRAP32(x) ((int32_t)(uint32_t)(uint64_t)(x))
#define KWRAP8(x) ((uint8_t)(uint64_t)(x))
#define KWRAP16(x) ((uint16_t)(uint64_t)(x))
static inline void kscatter_i(uint8_t *p, int dt, int64_t s, int64_t n, const int64_t *o, int64_t os) {
  switch (dt) {
  case PT_I32: KSCATTER(int32_t, KWRAP32)
  case PT_I64: KSCATTER(int64_t, KID)
  case PT_U8: case PT_I8: KSCATTER(uint8_t, KWRAP8)
  case PT_I16: KSCATTER(uint16_t, KWRAP16)
  case PT_BOOL: KSCATTER(uint8_t, KTO_BOOL)
  default: for (int64_t i = 0; i < n; i++) pt_store_i64(p + i * s * pt_dtype_size[dt], dt, o[i * os]);
  }
}

/* Raw element copies (no conversion), by element size. */
static inline void kgather_raw(const uint8_t *p, int esz, int64_t s, int64_t n, void *dst) {
  switch (esz) {
  case 1: { const uint8_t *q = p; uint8_t *o = (uint8_t *)dst; for (int64_t i = 0; i < n; i++) o[i] = q[i * s]; break; }
  case 2: { const uint16_t *q = (const uint16_t *)p; uint16_t *o = (uint16_t *)dst; for (int64_t i = 0; i < n; i++) o[i] = q[i * s]; break; }
  case 4: { const uint32_t *q = (const uint32_t *)p; uint32_t *o = (uint32_t *)dst; for (int64_t i = 0; i < n; i++) o[i] = q[i * s]; break; }
  default: { const uint64_t *q = (const uint64_t *)p; uint64_t *o = (uint64_t *)dst; for (int64_t i = 0; i < n; i++) o[i] = q[i * s]; break; }
  }
}

#endif
