/* rownorm.c: the "rownorm" template (blocks.h): softmax, logSoftmax, layerNorm and rmsNorm of each row.
 *
 * A row is read two or three times (its statistics, then its outputs) through a chunk on the stack, so nothing is
 * allocated; rows run in parallel. Statistics add up in double and the outputs are computed in float, as the composition
 * of the library's ops computes them; exp is expf.h's, which vectorises. NaN and infinities follow PyTorch (blocks.h).
 */
#include <math.h>
#include <string.h>
#include "expf.h"
#include "kernels.h"
#include "pool.h"
#include "strided.h"
#include "../../core/blocks.h"

enum { IN, W, B, OUT, NVIEW };
enum { SOFTMAX, LOG_SOFTMAX, LAYER_NORM, RMS_NORM };
typedef struct {
  int op, rank, affine;
  int64_t shape[PT_MAX_RANK], n, step[NVIEW];
  float eps;
  cpu_view v[NVIEW];
} rownorm_t;

static int64_t row_offset(const rownorm_t *g, int w, int64_t r) {
  int64_t off = g->v[w].offset;
  for (int d = g->rank - 1; d >= 0; d--) {
    off += r % g->shape[d] * g->v[w].stride[d];
    r /= g->shape[d];
  }
  return off;
}

/* Rows pass through a contiguous chunk t of CH elements, so every loop below is over plain arrays and vectorises
 * whatever the strides; sums run in LANES double partial sums, a fixed order. */
#define CH 1024
#define LANES 8
static void load(const float *x, int64_t sx, int64_t c, float *t) {
  if (sx == 1) memcpy(t, x, (size_t)c * sizeof *t);
  else for (int64_t i = 0; i < c; i++) t[i] = x[i * sx];
}
static void store(float *y, int64_t sy, int64_t c, const float *t) {
  if (sy == 1) memcpy(y, t, (size_t)c * sizeof *t);
  else for (int64_t i = 0; i < c; i++) y[i * sy] = t[i];
}
/* The sum of t[i] (sq 0) or of t[i]^2 (sq 1). */
static double lanes_sum(const float *t, int64_t c, int sq) {
  double acc[LANES] = {0};
  int64_t i = 0;
  for (; i + LANES <= c; i += LANES)
    for (int l = 0; l < LANES; l++) acc[l] += sq ? (double)t[i + l] * t[i + l] : t[i + l];
  double s = 0;
  for (; i < c; i++) s += sq ? (double)t[i] * t[i] : t[i];
  for (int l = 0; l < LANES; l++) s += acc[l];
  return s;
}

static void softmax_row(const rownorm_t *g, const float *x, int64_t sx, float *y, int64_t sy) {
  const int64_t n = g->n;
  float t[CH], mx[LANES];
  int nan = 0;
  for (int l = 0; l < LANES; l++) mx[l] = -INFINITY;
  for (int64_t k = 0; k < n; k += CH) {
    const int64_t c = n - k < CH ? n - k : CH;
    load(x + k * sx, sx, c, t);
    int64_t i = 0;
    for (; i + LANES <= c; i += LANES)
      for (int l = 0; l < LANES; l++) {
        nan |= t[i + l] != t[i + l];
        mx[l] = t[i + l] > mx[l] ? t[i + l] : mx[l];
      }
    for (; i < c; i++) {
      nan |= t[i] != t[i];
      mx[0] = t[i] > mx[0] ? t[i] : mx[0];
    }
  }
  float m = mx[0];
  for (int l = 1; l < LANES; l++) m = mx[l] > m ? mx[l] : m;
  if (nan) m = NAN; /* the max propagates NaN, as PyTorch's */
  double s = 0;
  for (int64_t k = 0; k < n; k += CH) {
    const int64_t c = n - k < CH ? n - k : CH;
    load(x + k * sx, sx, c, t);
    for (int64_t i = 0; i < c; i++) t[i] = ew_expf(t[i] - m);
    s += lanes_sum(t, c, 0);
    if (g->op == SOFTMAX) store(y + k * sy, sy, c, t);
  }
  const float fs = (float)s, l = logf(fs);
  for (int64_t k = 0; k < n; k += CH) {
    const int64_t c = n - k < CH ? n - k : CH;
    if (g->op == SOFTMAX) {
      load(y + k * sy, sy, c, t);
      for (int64_t i = 0; i < c; i++) t[i] = t[i] / fs;
    } else {
      load(x + k * sx, sx, c, t);
      for (int64_t i = 0; i < c; i++) t[i] = (t[i] - m) - l;
    }
    store(y + k * sy, sy, c, t);
  }
}

static void norm_row(const rownorm_t *g, const float *x, int64_t sx, float *y, int64_t sy, const float *w, const float *b) {
  const int64_t n = g->n;
  float t[CH], u[CH], mean = 0;
  double q = 0;
  if (g->op == LAYER_NORM) {
    double s = 0;
    for (int64_t k = 0; k < n; k += CH) {
      const int64_t c = n - k < CH ? n - k : CH;
      load(x + k * sx, sx, c, t);
      s += lanes_sum(t, c, 0);
    }
    mean = (float)(s / (double)n);
  }
  for (int64_t k = 0; k < n; k += CH) {
    const int64_t c = n - k < CH ? n - k : CH;
    load(x + k * sx, sx, c, t);
    for (int64_t i = 0; i < c; i++) t[i] = t[i] - mean;
    q += lanes_sum(t, c, 1);
  }
  const float rstd = 1.0f / sqrtf((float)(q / (double)n) + g->eps);
  for (int64_t k = 0; k < n; k += CH) {
    const int64_t c = n - k < CH ? n - k : CH;
    load(x + k * sx, sx, c, t);
    for (int64_t i = 0; i < c; i++) t[i] = (t[i] - mean) * rstd;
    if (w) {
      load(w + k * g->step[W], g->step[W], c, u);
      for (int64_t i = 0; i < c; i++) t[i] = t[i] * u[i];
    }
    if (b) {
      load(b + k * g->step[B], g->step[B], c, u);
      for (int64_t i = 0; i < c; i++) t[i] = t[i] + u[i];
    }
    store(y + k * sy, sy, c, t);
  }
}

static void rows(void *ctx, size_t begin, size_t end) {
  const rownorm_t *g = ctx;
  const float *w = (g->affine & 1) ? (const float *)g->v[W].base + g->v[W].offset : NULL;
  const float *b = (g->affine & 2) ? (const float *)g->v[B].base + g->v[B].offset : NULL;
  for (size_t r = begin; r < end; r++) {
    const float *x = (const float *)g->v[IN].base + row_offset(g, IN, (int64_t)r);
    float *y = (float *)g->v[OUT].base + row_offset(g, OUT, (int64_t)r);
    if (g->op == SOFTMAX || g->op == LOG_SOFTMAX) softmax_row(g, x, g->step[IN], y, g->step[OUT]);
    else norm_row(g, x, g->step[IN], y, g->step[OUT], w, b);
  }
}

int cpu_rownorm(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  static const char *const names[NVIEW] = {"rownorm: IN", "rownorm: W", "rownorm: B", "rownorm: OUT"};
  static const int slot[NVIEW] = {PT_ROWNORM_IN, PT_ROWNORM_W, PT_ROWNORM_B, PT_ROWNORM_OUT};
  rownorm_t g;
  int64_t x, bits;
  int rc;
  memset(&g, 0, sizeof g);
  if (!a || na < PT_ROWNORM_SLOTS) return pt_error(PT_EINVAL, "rownorm: argument block has %d slots, needs %d", na, PT_ROWNORM_SLOTS);
  if (!kslot(a[PT_ROWNORM_ORANK], 0, PT_MAX_RANK, &x)) return pt_error(PT_EINVAL, "rownorm: row rank %g is invalid", a[PT_ROWNORM_ORANK]);
  g.rank = (int)x;
  if ((rc = cpu_shape_parse(a + PT_ROWNORM_OSHAPE, g.rank, g.shape, "rownorm: row shape"))) return rc;
  if (!kslot(a[PT_ROWNORM_OP], 0, 3, &x)) return pt_error(PT_EINVAL, "rownorm: op %g is invalid", a[PT_ROWNORM_OP]);
  g.op = (int)x;
  if (!kslot(a[PT_ROWNORM_N], 0, KSLOT_MAX, &g.n)) return pt_error(PT_EINVAL, "rownorm: row length %g is invalid", a[PT_ROWNORM_N]);
  if (!kslot(a[PT_ROWNORM_EPS_BITS], 0, 4294967295LL, &bits) || !kslot(a[PT_ROWNORM_AFFINE], 0, 3, &x))
    return pt_error(PT_EINVAL, "rownorm: eps or affine slot is invalid");
  g.affine = (int)x;
  uint32_t u = (uint32_t)bits;
  memcpy(&g.eps, &u, 4);
  for (int w = 0; w < NVIEW; w++) {
    if ((w == W && !(g.affine & 1)) || (w == B && !(g.affine & 2))) continue;
    if (!kslot(a[slot[w] + PT_VIEW_SLOTS], KSLOT_ANY, &g.step[w])) return pt_error(PT_EINVAL, "%s: the row stride is not an integer", names[w]);
    if ((rc = cpu_view_parse(bufs, nbuf, a + slot[w], g.rank, g.shape, 1, &g.n, &g.step[w], names[w], &g.v[w]))) return rc;
    if (g.v[w].dtype != PT_F32) return pt_error(PT_EINVAL, "%s: dtype %d is not f32", names[w], g.v[w].dtype);
  }
  const int64_t count = cpu_numel(g.rank, g.shape);
  if (count > 0 && g.n > 0) cpu_parallel_for((size_t)count, (size_t)((1 << 16) / (g.n + 1) + 1), rows, &g);
  return PT_OK;
}
