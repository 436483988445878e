/* reduce_ops.h: what reduce.c does with the values it walks (included by reduce.c only).
 *
 * A reduction pass has a kind (K_*) and keeps an acc_t per output. Values arrive either as
 * a block of one output's extent, reduced with LANES independent lanes so the loop
 * vectorises (update_f, update_i), or as one position across a tile of neighbouring
 * outputs (col_update_*), where the loop runs across outputs instead. Floats accumulate in
 * double, ints in int64 with wrapping (done in uint64, where overflow is defined).
 */
#ifndef PT_CPU_REDUCE_OPS_H
#define PT_CPU_REDUCE_OPS_H
#include <math.h>
#include <stdint.h>
#include <string.h>

/* What a pass computes; var/std run K_SUM (for the mean), then K_SQDEV. */
enum { K_SUM, K_SQDEV, K_PROD, K_MAX, K_MIN, K_ARGMAX, K_ARGMIN, K_COUNT };

#define LANES 16

/* f: float sum/product/extreme; i: int sum/product/extreme or nonzero count; idx: arg
 * position (-1 before the first value); nan: a float max/min saw a NaN. */
typedef struct { double f; int64_t i, idx; int nan; } acc_t;

static void acc_init(acc_t *s, int kind) {
  s->f = kind == K_PROD ? 1.0 : kind == K_MAX ? -INFINITY : kind == K_MIN ? INFINITY : 0.0;
  s->i = kind == K_PROD ? 1 : kind == K_MAX ? INT64_MIN : kind == K_MIN ? INT64_MAX : 0;
  s->idx = -1;
  s->nan = 0;
}

/* Lanes are summed pairwise in a fixed order, so a block's partial never depends on timing. */
static double fold(double *l) {
  for (int w = LANES / 2; w > 0; w /= 2)
    for (int k = 0; k < w; k++) l[k] += l[k + w];
  return l[0];
}

/* One block's sum, from doubles or straight from contiguous f32 (same bits either way).
 * The lanes move to a second array before the tail and the fold: touching them in other
 * orders inside the same array lets clang's SLP pass shuffle the main loop into 128-bit
 * pieces, at half the speed. The same goes for the loops below. */
#define SUM_LANES(NAME, T)                                                             \
  static double NAME(const T *x, int64_t n) {                                          \
    double l[LANES] = {0}, r[LANES];                                                   \
    int64_t i = 0;                                                                     \
    for (; i + LANES <= n; i += LANES)                                                 \
      for (int k = 0; k < LANES; k++) l[k] += x[i + k];                                \
    memcpy(r, l, sizeof r);                                                            \
    for (; i < n; i++) r[i % LANES] += x[i];                                           \
    return fold(r);                                                                    \
  }
SUM_LANES(sum_f32, float)
SUM_LANES(sum_f64, double)

/* A block's largest (want_max) or smallest value, ignoring NaN, and whether it held one. */
static double extreme_f(int want_max, const double *x, int64_t n, int *nan) {
  double l[LANES];
  uint64_t c[LANES];
  int64_t i = 0;
  for (int k = 0; k < LANES; k++) { l[k] = want_max ? -INFINITY : INFINITY; c[k] = 0; }
  if (want_max)
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) { double v = x[i + k]; c[k] |= v != v; l[k] = v > l[k] ? v : l[k]; }
  else
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) { double v = x[i + k]; c[k] |= v != v; l[k] = v < l[k] ? v : l[k]; }
  double r[LANES];
  memcpy(r, l, sizeof r);
  uint64_t any = 0;
  for (; i < n; i++) {
    double v = x[i];
    any |= v != v;
    r[0] = (want_max ? v > r[0] : v < r[0]) ? v : r[0];
  }
  double m = r[0];
  for (int k = 0; k < LANES; k++) {
    m = (want_max ? r[k] > m : r[k] < m) ? r[k] : m;
    any |= c[k];
  }
  *nan = any != 0;
  return m;
}

static int64_t extreme_i(int want_max, const int64_t *x, int64_t n) {
  int64_t m = x[0];
  if (want_max) for (int64_t i = 1; i < n; i++) m = x[i] > m ? x[i] : m;
  else for (int64_t i = 1; i < n; i++) m = x[i] < m ? x[i] : m;
  return m;
}

/* x[0..n) are positions pos.. of one output; m is its mean (K_SQDEV). */
static void update_f(int kind, acc_t *s, const double *x, int64_t n, int64_t pos, double m) {
  double l[LANES], r[LANES];
  int64_t i = 0, c = 0;
  int nan, want_max = kind == K_MAX || kind == K_ARGMAX;
  switch (kind) {
  case K_SUM: s->f += sum_f64(x, n); break;
  case K_SQDEV:
    for (int k = 0; k < LANES; k++) l[k] = 0;
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) l[k] += (x[i + k] - m) * (x[i + k] - m);
    memcpy(r, l, sizeof r);
    for (; i < n; i++) r[i % LANES] += (x[i] - m) * (x[i] - m);
    s->f += fold(r);
    break;
  case K_PROD: {
    double p = 1.0;
    for (int k = 0; k < LANES; k++) l[k] = 1.0;
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) l[k] *= x[i + k];
    memcpy(r, l, sizeof r);
    for (; i < n; i++) r[i % LANES] *= x[i];
    for (int k = 0; k < LANES; k++) p *= r[k];
    s->f *= p;
    break;
  }
  case K_MAX: case K_MIN: {
    double e = extreme_f(want_max, x, n, &nan);
    s->f = (want_max ? e > s->f : e < s->f) ? e : s->f;
    s->nan |= nan;
    break;
  }
  case K_ARGMAX: case K_ARGMIN: {
    /* The first NaN wins and nothing replaces it; otherwise only a strictly better value,
     * so a later equal one never does. The index search runs only on a better block. */
    if (s->idx >= 0 && s->f != s->f) break;
    double e = extreme_f(want_max, x, n, &nan);
    if (nan) {
      while (x[i] == x[i]) i++;
      s->f = x[i];
      s->idx = pos + i;
    } else if (s->idx < 0 || (want_max ? e > s->f : e < s->f)) {
      while (x[i] != e) i++;
      s->f = e;
      s->idx = pos + i;
    }
    break;
  }
  default: /* K_COUNT: NaN != 0, so NaN counts as nonzero */
    for (; i < n; i++) c += x[i] != 0;
    s->i += c;
  }
}

/* Locals, not s->i, carry the loops: s could alias x as far as the compiler knows. */
static void update_i(int kind, acc_t *s, const int64_t *x, int64_t n, int64_t pos) {
  uint64_t u = kind == K_PROD ? 1 : 0;
  int64_t i = 0, c = 0, e;
  int want_max = kind == K_MAX || kind == K_ARGMAX;
  switch (kind) {
  case K_SUM: for (; i < n; i++) u += (uint64_t)x[i]; s->i = (int64_t)((uint64_t)s->i + u); break;
  case K_PROD: for (; i < n; i++) u *= (uint64_t)x[i]; s->i = (int64_t)((uint64_t)s->i * u); break;
  case K_MAX: case K_MIN:
    e = extreme_i(want_max, x, n);
    s->i = (want_max ? e > s->i : e < s->i) ? e : s->i;
    break;
  case K_ARGMAX: case K_ARGMIN:
    e = extreme_i(want_max, x, n);
    if (s->idx < 0 || (want_max ? e > s->i : e < s->i)) {
      while (x[i] != e) i++;
      s->i = e;
      s->idx = pos + i;
    }
    break;
  default: for (; i < n; i++) c += x[i] != 0; s->i += c;
  }
}

/* Folds the partial of a later chunk (b) into that of an earlier one (a). */
static void acc_merge(int kind, int fl, acc_t *a, const acc_t *b) {
  switch (kind) {
  case K_SUM: case K_SQDEV: case K_COUNT: a->f += b->f; a->i = (int64_t)((uint64_t)a->i + (uint64_t)b->i); break;
  case K_PROD: a->f *= b->f; a->i = (int64_t)((uint64_t)a->i * (uint64_t)b->i); break;
  case K_MAX: a->f = b->f > a->f ? b->f : a->f; a->i = b->i > a->i ? b->i : a->i; a->nan |= b->nan; break;
  case K_MIN: a->f = b->f < a->f ? b->f : a->f; a->i = b->i < a->i ? b->i : a->i; a->nan |= b->nan; break;
  default: {
    if (b->idx < 0) break;
    int better = fl ? (kind == K_ARGMAX ? b->f > a->f : b->f < a->f) || (b->f != b->f && a->f == a->f)
                    : (kind == K_ARGMAX ? b->i > a->i : b->i < a->i);
    if (a->idx < 0 || better) *a = *b;
  }
  }
}

/* Column tiles: position p of cnt outputs, values v[t]. f/c/ix hold each output's float
 * accumulator, int accumulator (or NaN/nonzero count) and arg position. */
static void col_update_f(int kind, const double *v, int cnt, int64_t p, const double *mean, double *f, int64_t *c,
                         int64_t *ix) {
  int want_max = kind == K_ARGMAX;
  switch (kind) {
  case K_SUM: for (int t = 0; t < cnt; t++) f[t] += v[t]; break;
  case K_SQDEV: for (int t = 0; t < cnt; t++) f[t] += (v[t] - mean[t]) * (v[t] - mean[t]); break;
  case K_PROD: for (int t = 0; t < cnt; t++) f[t] *= v[t]; break;
  case K_MAX: for (int t = 0; t < cnt; t++) { c[t] |= v[t] != v[t]; f[t] = v[t] > f[t] ? v[t] : f[t]; } break;
  case K_MIN: for (int t = 0; t < cnt; t++) { c[t] |= v[t] != v[t]; f[t] = v[t] < f[t] ? v[t] : f[t]; } break;
  case K_COUNT: for (int t = 0; t < cnt; t++) c[t] += v[t] != 0; break;
  default:
    for (int t = 0; t < cnt; t++) {
      double x = v[t], b = f[t];
      if (ix[t] < 0 || (want_max ? x > b : x < b) || (x != x && b == b)) { f[t] = x; ix[t] = p; }
    }
  }
}

static void col_update_i(int kind, const int64_t *w, int cnt, int64_t p, int64_t *c, int64_t *ix) {
  int want_max = kind == K_ARGMAX;
  switch (kind) {
  case K_SUM: for (int t = 0; t < cnt; t++) c[t] = (int64_t)((uint64_t)c[t] + (uint64_t)w[t]); break;
  case K_PROD: for (int t = 0; t < cnt; t++) c[t] = (int64_t)((uint64_t)c[t] * (uint64_t)w[t]); break;
  case K_MAX: for (int t = 0; t < cnt; t++) c[t] = w[t] > c[t] ? w[t] : c[t]; break;
  case K_MIN: for (int t = 0; t < cnt; t++) c[t] = w[t] < c[t] ? w[t] : c[t]; break;
  case K_COUNT: for (int t = 0; t < cnt; t++) c[t] += w[t] != 0; break;
  default:
    for (int t = 0; t < cnt; t++)
      if (ix[t] < 0 || (want_max ? w[t] > c[t] : w[t] < c[t])) { c[t] = w[t]; ix[t] = p; }
  }
}

#endif
