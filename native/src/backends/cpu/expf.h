/* expf.h: a float exp that vectorises, shared by the elementwise interpreter and rownorm.c.
 * Pure functions; nothing is kept. */
#ifndef PT_CPU_EXPF_H
#define PT_CPU_EXPF_H
#include <math.h>
#include <stdint.h>
#include <string.h>

/* exp for f32 in straight-line arithmetic, so that loops over it vectorise (libm's expf is a
 * call per element): Cephes' range reduction x = n ln2 + r, |r| <= ln2/2, a degree-6
 * polynomial for e^r, and 2^n applied as two exact powers so results that underflow to
 * subnormals round once. Within 1 ulp of the correctly rounded value over all floats
 * (checked against libm over every float in [-110, 90]; PyTorch's CPU exp, SLEEF's u10, has the same
 * bound). Contraction is off so that the bits do not depend on whether the target has FMA. */
static inline float ew_pow2i_f32(int32_t e) { /* 2^e for e in [-126, 127] */
  uint32_t b = (uint32_t)(e + 127) << 23;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}
static inline float ew_expf(float x) {
  _Pragma("STDC FP_CONTRACT OFF")
  const float big = 12582912.0f; /* 1.5 * 2^23: adding and subtracting it rounds to an integer */
  float xc = x > 88.8f ? 88.8f : x < -104.0f ? -104.0f : x;
  float n = (xc * 1.44269504088896341f + big) - big;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * (r * r) + r + 1.0f;
  int32_t ni = (int32_t)n, n1 = ni / 2, n2 = ni - n1;
  y = y * ew_pow2i_f32(n1) * ew_pow2i_f32(n2);
  return x != x ? x : x > 88.72283935546875f ? (float)INFINITY : x < -103.97208404541015625f ? 0.0f : y;
}
#endif
