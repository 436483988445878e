/* attention.c: the "attention" template (blocks.h), softmax(scale q k^T + mask) v one query row at a time.
 *
 * Each row keeps a running maximum, normaliser and output (online softmax) over its keys in order, so no
 * [L, S] matrix is ever made; the output is rescaled only when the maximum grows. Rows run in parallel.
 * Sums are float32, as the GPU kernels keep them, so every backend rounds alike to a few ulp.
 */
#include <math.h>
#include <string.h>
#include "kernels.h"
#include "pool.h"
#include "strided.h"
#include "../../core/blocks.h"

enum { Q, K, V, MASK, OUT, NVIEW };
typedef struct {
  int brank, causal, masked;
  int64_t bshape[PT_MAX_RANK], L, S, E, EV, rs[NVIEW], cs[NVIEW];
  float scale;
  cpu_view v[NVIEW];
} att_t;

/* Element (row, col) of view w in batch entry b, as a float pointer. */
static const float *at(const att_t *g, int w, int64_t b, int64_t row, int64_t col) {
  int64_t off = g->v[w].offset + row * g->rs[w] + col * g->cs[w];
  for (int d = g->brank - 1; d >= 0; d--) {
    off += b % g->bshape[d] * g->v[w].stride[d];
    b /= g->bshape[d];
  }
  return (const float *)g->v[w].base + off;
}

static void rows(void *ctx, size_t begin, size_t end) {
  const att_t *g = ctx;
  float q[PT_ATTENTION_MAX_E], o[PT_ATTENTION_MAX_E];
  for (size_t r = begin; r < end; r++) {
    const int64_t b = (int64_t)r / g->L, i = (int64_t)r % g->L, last = g->causal ? (i + 1 < g->S ? i + 1 : g->S) : g->S;
    for (int64_t e = 0; e < g->E; e++) q[e] = *at(g, Q, b, i, e);
    for (int64_t e = 0; e < g->EV; e++) o[e] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    for (int64_t j = 0; j < last; j++) {
      const float *k = at(g, K, b, j, 0), *v = at(g, V, b, j, 0);
      float s = 0.0f;
      for (int64_t e = 0; e < g->E; e++) s += q[e] * k[e * g->cs[K]];
      s *= g->scale;
      if (g->masked) s += *at(g, MASK, b, i, j);
      if (s == -INFINITY) continue; /* masked out; a NaN goes on, to make the row NaN as PyTorch's */
      if (s > m) {
        const float c = expf(m - s);
        l *= c;
        for (int64_t e = 0; e < g->EV; e++) o[e] *= c;
        m = s;
      }
      const float p = expf(s - m);
      l += p;
      for (int64_t e = 0; e < g->EV; e++) o[e] += p * v[e * g->cs[V]];
    }
    float *out = (float *)at(g, OUT, b, i, 0);
    for (int64_t e = 0; e < g->EV; e++) out[e * g->cs[OUT]] = o[e] / l;
  }
}

int cpu_attention(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  static const char *const names[NVIEW] = {"attention: Q", "attention: K", "attention: V", "attention: MASK", "attention: OUT"};
  static const int slot[NVIEW] = {PT_ATTENTION_Q, PT_ATTENTION_K, PT_ATTENTION_V, PT_ATTENTION_MASK, PT_ATTENTION_OUT};
  att_t g;
  int64_t x;
  int rc;
  memset(&g, 0, sizeof g);
  if (!a || na < PT_ATTENTION_SLOTS) return pt_error(PT_EINVAL, "attention: argument block has %d slots, needs %d", na, PT_ATTENTION_SLOTS);
  if (!kslot(a[PT_ATTENTION_BRANK], 0, PT_MAX_RANK, &x)) return pt_error(PT_EINVAL, "attention: batch rank %g is invalid", a[PT_ATTENTION_BRANK]);
  g.brank = (int)x;
  if ((rc = cpu_shape_parse(a + PT_ATTENTION_BSHAPE, g.brank, g.bshape, "attention: batch shape"))) return rc;
  if (!kslot(a[PT_ATTENTION_L], 0, KSLOT_MAX, &g.L) || !kslot(a[PT_ATTENTION_S], 0, KSLOT_MAX, &g.S) ||
      !kslot(a[PT_ATTENTION_E], 0, PT_ATTENTION_MAX_E, &g.E) || !kslot(a[PT_ATTENTION_EV], 0, PT_ATTENTION_MAX_E, &g.EV))
    return pt_error(PT_EINVAL, "attention: L, S, E, Ev = %g, %g, %g, %g are invalid (E, Ev <= %d)", a[PT_ATTENTION_L],
                    a[PT_ATTENTION_S], a[PT_ATTENTION_E], a[PT_ATTENTION_EV], PT_ATTENTION_MAX_E);
  int64_t causal, masked, bits;
  if (!kslot(a[PT_ATTENTION_CAUSAL], 0, 1, &causal) || !kslot(a[PT_ATTENTION_MASKED], 0, 1, &masked) ||
      !kslot(a[PT_ATTENTION_SCALE_BITS], 0, 4294967295LL, &bits))
    return pt_error(PT_EINVAL, "attention: causal, masked or scale slot is invalid");
  uint32_t u = (uint32_t)bits;
  memcpy(&g.scale, &u, 4);
  g.causal = (int)causal;
  g.masked = (int)masked;
  const int64_t nrow[NVIEW] = {g.L, g.S, g.S, g.L, g.L}, ncol[NVIEW] = {g.E, g.E, g.EV, g.S, g.EV};
  for (int w = 0; w < NVIEW; w++) {
    if (w == MASK && !g.masked) continue;
    if (!kslot(a[slot[w] + PT_VIEW_SLOTS], KSLOT_ANY, &g.rs[w]) || !kslot(a[slot[w] + PT_VIEW_SLOTS + 1], KSLOT_ANY, &g.cs[w]))
      return pt_error(PT_EINVAL, "%s: a row or column stride is not an integer", names[w]);
    int64_t sh[2] = {nrow[w], ncol[w]}, st[2] = {g.rs[w], g.cs[w]};
    if ((rc = cpu_view_parse(bufs, nbuf, a + slot[w], g.brank, g.bshape, 2, sh, st, names[w], &g.v[w]))) return rc;
    if (g.v[w].dtype != PT_F32) return pt_error(PT_EINVAL, "%s: dtype %d is not f32", names[w], g.v[w].dtype);
  }
  const int64_t n = cpu_numel(g.brank, g.bshape) * g.L, cost = (g.S + 1) * (g.E + g.EV + 1);
  if (n > 0) cpu_parallel_for((size_t)n, (size_t)((1 << 16) / cost + 1), rows, &g);
  return PT_OK;
}
