/* reduce.c: the "reduce" template (see kernels.h for the block and the op rules).
 *
 * Each output reduces its inner extent, walked in row-major order of the inner dims, in
 * BLK-element blocks that are gathered into a double (or int64) buffer and reduced there
 * with several independent lanes, so the loops vectorise whatever the input dtype. The
 * extent is cut into fixed CHUNK-element pieces whose partial results are combined in
 * order: a large single reduction runs its pieces on several threads, yet the result is
 * the same for every thread count. Outputs that sit next to each other in memory (a sum
 * over axis 0, say) are walked together in tiles so each cache line is read once.
 */
#include <stdlib.h>
#include "kernels.h"
#include "pool.h"
#include "strided.h"

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_ARGMAX, OP_ARGMIN, OP_ANY, OP_ALL, OP_MEAN, OP_VAR, OP_STD, OP_COUNT, OP_N };
/* What a pass computes on each block; var/std run K_SUM (for the mean), then K_SQDEV. */
enum { K_SUM, K_SQDEV, K_PROD, K_MAX, K_MIN, K_ARGMAX, K_ARGMIN, K_COUNT };

#define BLK 256
#define CHUNK 65536 /* a multiple of BLK */
#define TILE 512    /* widest column tile */
#define LANES 16

typedef struct { double f; int64_t i, idx; int nan; } acc_t;

typedef struct {
  int op, fl;            /* fl: the pass reads doubles (float input, or var/std) */
  int64_t ddof;
  int orank, irank;
  int64_t oshape[PT_MAX_RANK], ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  int64_t onum, n, tile, tpr, ntiles, nchunks;
  cpu_view in, out;
  int kind;               /* of the current pass */
  const double *mean;     /* per output, for K_SQDEV; NULL: compute it in the same item */
  acc_t *part;            /* [onum][nchunks] partials when nchunks > 1 */
} job_t;

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

/* One block's sum: update_f's K_SUM, and the direct path for contiguous f32/f64 input,
 * which skips the gather but must give the same bits. */
#define SUM_LANES(NAME, T)                                                             \
  static double NAME(const T *x, int64_t n) {                                          \
    double l[LANES] = {0};                                                             \
    int64_t i = 0;                                                                     \
    for (; i + LANES <= n; i += LANES)                                                 \
      for (int k = 0; k < LANES; k++) l[k] += x[i + k];                                \
    for (; i < n; i++) l[i % LANES] += x[i];                                           \
    return fold(l);                                                                    \
  }
SUM_LANES(sum_f32, float)
SUM_LANES(sum_f64, double)

/* A block's largest (want_max) or smallest value, ignoring NaN, and whether it held one. */
static double extreme_f(int want_max, const double *x, int64_t n, int *nan) {
  double l[LANES], c[LANES];
  int64_t i = 0;
  for (int k = 0; k < LANES; k++) { l[k] = want_max ? -INFINITY : INFINITY; c[k] = 0; }
  if (want_max)
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) { double v = x[i + k]; c[k] += v != v; l[k] = v > l[k] ? v : l[k]; }
  else
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) { double v = x[i + k]; c[k] += v != v; l[k] = v < l[k] ? v : l[k]; }
  for (; i < n; i++) {
    double v = x[i];
    c[0] += v != v;
    l[0] = (want_max ? v > l[0] : v < l[0]) ? v : l[0];
  }
  double m = l[0], any = 0;
  for (int k = 0; k < LANES; k++) {
    m = (want_max ? l[k] > m : l[k] < m) ? l[k] : m;
    any += c[k];
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

static void update_f(int kind, acc_t *s, const double *x, int64_t n, int64_t pos, double m) {
  double l[LANES];
  int64_t i = 0, c = 0;
  int nan, want_max = kind == K_MAX || kind == K_ARGMAX;
  switch (kind) {
  case K_SUM: s->f += sum_f64(x, n); break;
  case K_SQDEV:
    for (int k = 0; k < LANES; k++) l[k] = 0;
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) l[k] += (x[i + k] - m) * (x[i + k] - m);
    for (; i < n; i++) l[i % LANES] += (x[i] - m) * (x[i] - m);
    s->f += fold(l);
    break;
  case K_PROD: {
    double p = 1.0;
    for (int k = 0; k < LANES; k++) l[k] = 1.0;
    for (; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) l[k] *= x[i + k];
    for (; i < n; i++) l[i % LANES] *= x[i];
    for (int k = 0; k < LANES; k++) p *= l[k];
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

/* Element offsets (input, output) of output number o. */
static void out_offsets(const job_t *j, int64_t o, int64_t *in_off, int64_t *out_off) {
  if (j->orank == 1) { /* the common case once outer dims are merged: no division */
    *in_off = o * j->in.stride[0];
    *out_off = o * j->out.stride[0];
    return;
  }
  int64_t io = 0, oo = 0;
  for (int d = j->orank - 1; d >= 0; d--) {
    int64_t q = o % j->oshape[d];
    o /= j->oshape[d];
    io += q * j->in.stride[d];
    oo += q * j->out.stride[d];
  }
  *in_off = io;
  *out_off = oo;
}

/* Finds inner element lo: its multi-index and element offset from base. */
static int64_t locate(const job_t *j, int64_t lo, int64_t base, int64_t *idx) {
  if (j->irank == 1) { idx[0] = lo; return base + lo * j->istr[0]; }
  for (int d = j->irank - 1; d >= 0; d--) {
    idx[d] = lo % j->ishape[d];
    lo /= j->ishape[d];
    base += idx[d] * j->istr[d];
  }
  return base;
}

/* Reduces inner elements [lo, hi) of one output (input element offset `base`) into *st. */
static void reduce_range(const job_t *j, int kind, int64_t base, int64_t lo, int64_t hi, double mean, acc_t *st) {
  union { double f[BLK]; int64_t i[BLK]; } buf;
  int last = j->irank - 1, dt = j->in.dtype;
  acc_init(st, kind);
  if (kind == K_SUM && j->fl && j->istr[last] == 1 && last == 0 && (dt == PT_F32 || dt == PT_F64)) {
    for (int64_t b = lo; b < hi; b += BLK) {
      int64_t nb = hi - b < BLK ? hi - b : BLK;
      const uint8_t *p = PT_ELEM(&j->in, base + b);
      st->f += dt == PT_F32 ? sum_f32((const float *)p, nb) : sum_f64((const double *)p, nb);
    }
    return;
  }
  for (int64_t b = lo; b < hi; b += BLK) {
    int64_t nb = hi - b < BLK ? hi - b : BLK, idx[PT_MAX_RANK], done = 0, off = locate(j, b, base, idx);
    while (done < nb) { /* one run along the innermost inner dim per step */
      int64_t take = j->ishape[last] - idx[last], s = j->istr[last];
      if (take > nb - done) take = nb - done;
      const uint8_t *p = PT_ELEM(&j->in, off);
      if (j->fl) kgather_f(p, dt, s, take, buf.f + done, 1);
      else kgather_i(p, dt, s, take, buf.i + done, 1);
      done += take;
      off += take * s;
      idx[last] += take;
      for (int d = last; d > 0 && idx[d] == j->ishape[d]; d--) {
        off += j->istr[d - 1] - idx[d] * j->istr[d];
        idx[d] = 0;
        idx[d - 1]++;
      }
    }
    if (j->fl) update_f(kind, st, buf.f, nb, b, mean);
    else update_i(kind, st, buf.i, nb, b);
  }
}

/* Column tiles: cnt neighbouring outputs (tstep apart, close in memory) advance together
 * one inner position at a time, so each step reads one contiguous stretch of a row and a
 * sum over axis 0 streams through memory as a hand-written loop would. Each output takes
 * its positions in order; the loops across the tile vectorise. */
static void reduce_cols(const job_t *j, int kind, int64_t base, int64_t tstep, int cnt, int64_t lo, int64_t hi,
                        const double *mean, acc_t *st) {
  double v[TILE], f[TILE];
  int64_t w[TILE], c[TILE], ix[TILE], idx[PT_MAX_RANK];
  int last = j->irank - 1, dt = j->in.dtype, fl = j->fl, want_max = kind == K_MAX || kind == K_ARGMAX;
  acc_t init;
  acc_init(&init, kind);
  for (int t = 0; t < cnt; t++) { f[t] = init.f; c[t] = fl && (kind == K_MAX || kind == K_MIN) ? 0 : init.i; ix[t] = -1; }
  int64_t off = locate(j, lo, base, idx);
  for (int64_t p = lo; p < hi; p++) {
    const uint8_t *src = PT_ELEM(&j->in, off);
    if (fl) {
      kgather_f(src, dt, tstep, cnt, v, 1);
      switch (kind) {
      case K_SUM: for (int t = 0; t < cnt; t++) f[t] += v[t]; break;
      case K_SQDEV: for (int t = 0; t < cnt; t++) f[t] += (v[t] - mean[t]) * (v[t] - mean[t]); break;
      case K_PROD: for (int t = 0; t < cnt; t++) f[t] *= v[t]; break;
      case K_MAX: for (int t = 0; t < cnt; t++) { c[t] += v[t] != v[t]; f[t] = v[t] > f[t] ? v[t] : f[t]; } break;
      case K_MIN: for (int t = 0; t < cnt; t++) { c[t] += v[t] != v[t]; f[t] = v[t] < f[t] ? v[t] : f[t]; } break;
      case K_COUNT: for (int t = 0; t < cnt; t++) c[t] += v[t] != 0; break;
      default:
        for (int t = 0; t < cnt; t++) {
          double x = v[t], b = f[t];
          if (ix[t] < 0 || (want_max ? x > b : x < b) || (x != x && b == b)) { f[t] = x; ix[t] = p; }
        }
      }
    } else {
      kgather_i(src, dt, tstep, cnt, w, 1);
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
    off += j->istr[last];
    if (++idx[last] == j->ishape[last])
      for (int d = last; d > 0 && idx[d] == j->ishape[d]; d--) {
        off += j->istr[d - 1] - idx[d] * j->istr[d];
        idx[d] = 0;
        idx[d - 1]++;
      }
  }
  for (int t = 0; t < cnt; t++) {
    st[t] = init;
    st[t].f = f[t];
    st[t].idx = ix[t];
    if (fl && (kind == K_MAX || kind == K_MIN)) st[t].nan = c[t] != 0;
    else st[t].i = c[t];
  }
}

static void store(const job_t *j, int64_t out_off, const acc_t *s) {
  uint8_t *p = PT_ELEM(&j->out, out_off);
  int dt = j->out.dtype;
  double n = (double)j->n;
  switch (j->op) {
  case OP_SUM: case OP_PROD: if (j->fl) pt_store_f64(p, dt, s->f); else pt_store_i64(p, dt, s->i); break;
  case OP_MAX: case OP_MIN: if (j->fl) pt_store_f64(p, dt, s->nan ? NAN : s->f); else pt_store_i64(p, dt, s->i); break;
  case OP_ARGMAX: case OP_ARGMIN: pt_store_i64(p, dt, s->idx); break;
  case OP_ANY: pt_store_i64(p, dt, s->i > 0); break;
  case OP_ALL: pt_store_i64(p, dt, s->i == j->n); break;
  case OP_COUNT: pt_store_i64(p, dt, s->i); break;
  case OP_MEAN: pt_store_f64(p, dt, (j->fl ? s->f : (double)s->i) / n); break;
  default: { /* var, std: a divisor below zero is clamped, as NumPy and PyTorch do */
    double div = n - (double)j->ddof, v = s->f / (div > 0 ? div : 0.0);
    pt_store_f64(p, dt, j->op == OP_STD ? sqrt(v) : v);
  }
  }
}

static void run_items(void *ctx, size_t begin, size_t end) {
  const job_t *j = ctx;
  acc_t st[TILE];
  double mean[TILE];
  for (size_t w = begin; w < end; w++) {
    int64_t tile = (int64_t)w, chunk = 0, o0 = tile, io, oo, tstep = 0, ostep = 0;
    int cnt = 1;
    if (j->nchunks > 1) { tile = (int64_t)w / j->nchunks; chunk = (int64_t)w % j->nchunks; o0 = tile; }
    if (j->tile > 1) { /* tiles run along the last outer dim, tpr of them to a row */
      int64_t len = j->oshape[j->orank - 1], c0 = (tile % j->tpr) * j->tile;
      o0 = (tile / j->tpr) * len + c0;
      cnt = (int)(len - c0 < j->tile ? len - c0 : j->tile);
      tstep = j->in.stride[j->orank - 1];
      ostep = j->out.stride[j->orank - 1];
    }
    int64_t lo = chunk * CHUNK, hi = lo + CHUNK < j->n ? lo + CHUNK : j->n;
    out_offsets(j, o0, &io, &oo);
    /* var/std over a whole extent in one item: the mean first, here */
    if (j->kind == K_SQDEV && !j->mean) {
      if (cnt > 1) reduce_cols(j, K_SUM, io, tstep, cnt, lo, hi, NULL, st);
      else reduce_range(j, K_SUM, io, lo, hi, 0, st);
      for (int t = 0; t < cnt; t++) mean[t] = st[t].f / (double)j->n;
    }
    const double *m = j->kind != K_SQDEV ? NULL : j->mean ? j->mean + o0 : mean;
    if (cnt > 1) reduce_cols(j, j->kind, io, tstep, cnt, lo, hi, m, st);
    else reduce_range(j, j->kind, io, lo, hi, m ? m[0] : 0, st);
    if (j->nchunks > 1)
      for (int t = 0; t < cnt; t++) j->part[(o0 + t) * j->nchunks + chunk] = st[t];
    else
      for (int t = 0; t < cnt; t++) store(j, oo + t * ostep, &st[t]);
  }
}

static int kind_of(int op, int pass) {
  static const int k[OP_N] = {K_SUM, K_PROD, K_MAX, K_MIN, K_ARGMAX, K_ARGMIN, K_COUNT, K_COUNT, K_SUM, K_SUM, K_SUM, K_COUNT};
  return (op == OP_VAR || op == OP_STD) && pass ? K_SQDEV : k[op];
}

/* Empty inner extent: every output gets the op's identity, or there is no answer. */
static int reduce_empty(job_t *j) {
  static const char *names[OP_N] = {"sum", "prod", "max", "min", "argmax", "argmin", "any", "all", "mean", "var", "std", "count_nonzero"};
  if (j->op >= OP_MAX && j->op <= OP_ARGMIN)
    return pt_error(PT_EINVAL, "reduce: %s of an empty extent has no identity (%lld outputs)", names[j->op], (long long)j->onum);
  for (int64_t o = 0; o < j->onum; o++) {
    int64_t io, oo;
    out_offsets(j, o, &io, &oo);
    uint8_t *p = PT_ELEM(&j->out, oo);
    switch (j->op) {
    case OP_PROD: case OP_ALL: pt_store_i64(p, j->out.dtype, 1); break;
    case OP_MEAN: case OP_VAR: case OP_STD: pt_store_f64(p, j->out.dtype, NAN); break;
    default: pt_store_i64(p, j->out.dtype, 0);
    }
  }
  return PT_OK;
}

/* Drops size-1 inner dims and merges neighbours that are contiguous with each other; the
 * row-major inner index (argmax's answer) is unchanged by either. */
static void coalesce_inner(job_t *j) {
  int r = 0;
  for (int d = 0; d < j->irank; d++) {
    if (j->ishape[d] == 1) continue;
    if (r > 0 && j->istr[r - 1] == j->istr[d] * j->ishape[d]) {
      j->ishape[r - 1] *= j->ishape[d];
      j->istr[r - 1] = j->istr[d];
    } else {
      j->ishape[r] = j->ishape[d];
      j->istr[r] = j->istr[d];
      r++;
    }
  }
  if (r == 0) { j->ishape[0] = 1; j->istr[0] = 0; r = 1; }
  j->irank = r;
}

/* The same for outer dims, where input and output strides must both allow the merge;
 * outputs keep their row-major numbering. */
static void coalesce_outer(job_t *j) {
  int r = 0;
  for (int d = 0; d < j->orank; d++) {
    int64_t n = j->oshape[d], is = j->in.stride[d], os = j->out.stride[d];
    if (n == 1) continue;
    if (r > 0 && j->in.stride[r - 1] == is * n && j->out.stride[r - 1] == os * n) {
      j->oshape[r - 1] *= n;
    } else {
      j->oshape[r] = n;
      r++;
    }
    j->in.stride[r - 1] = is;
    j->out.stride[r - 1] = os;
  }
  j->orank = r;
}

/* Runs one pass (kind) over every item; with nchunks > 1, folds the partials in order. */
static int run_pass(job_t *j, int pass, double *means, acc_t *folded) {
  j->kind = kind_of(j->op, pass);
  int64_t per = j->tile * (j->n < CHUNK ? j->n : CHUNK);
  cpu_parallel_for((size_t)(j->ntiles * j->nchunks), (size_t)(per >= 32768 ? 1 : 32768 / per), run_items, j);
  if (j->nchunks == 1) return PT_OK;
  for (int64_t o = 0; o < j->onum; o++) {
    acc_t *s = &j->part[o * j->nchunks];
    for (int64_t c = 1; c < j->nchunks; c++) acc_merge(j->kind, j->fl, s, &s[c]);
    if (means) means[o] = s->f / (double)j->n;
    else folded[o] = *s;
  }
  return PT_OK;
}

int cpu_reduce(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  job_t j;
  int64_t v, orank, irank;
  int rc;
  memset(&j, 0, sizeof j);
  if (!a || na < 50) return pt_error(PT_EINVAL, "reduce: argument block has %d slots, needs 50", na);
  if (!kslot(a[0], 0, OP_N - 1, &v)) return pt_error(PT_EINVAL, "reduce: op %g is not in [0, %d]", a[0], OP_N - 1);
  j.op = (int)v;
  if (!kslot(a[1], KSLOT_ANY, &j.ddof)) return pt_error(PT_EINVAL, "reduce: ddof %g is not an integer", a[1]);
  if (!kslot(a[2], 0, PT_MAX_RANK, &orank) || !kslot(a[11], 0, PT_MAX_RANK, &irank))
    return pt_error(PT_EINVAL, "reduce: ranks %g, %g are not in [0, %d]", a[2], a[11], PT_MAX_RANK);
  j.orank = (int)orank;
  j.irank = (int)irank;
  if ((rc = cpu_shape_parse(a + 3, j.orank, j.oshape, "reduce: output shape")) ||
      (rc = cpu_shape_parse(a + 12, j.irank, j.ishape, "reduce: inner shape")))
    return rc;
  for (int d = 0; d < PT_MAX_RANK; d++)
    if (!kslot(a[31 + d], KSLOT_ANY, &j.istr[d]))
      return pt_error(PT_EINVAL, "reduce: inner stride %d is %g, not an integer", d, a[31 + d]);
  if ((rc = cpu_view_parse(bufs, nbuf, a + 20, j.orank, j.oshape, j.irank, j.ishape, j.istr, "reduce: input", &j.in)) ||
      (rc = cpu_view_parse(bufs, nbuf, a + 39, j.orank, j.oshape, 0, NULL, NULL, "reduce: output", &j.out)))
    return rc;
  j.onum = cpu_numel(j.orank, j.oshape);
  j.n = cpu_numel(j.irank, j.ishape);
  if (j.onum == 0) return PT_OK;
  coalesce_outer(&j);
  if (j.n == 0) return reduce_empty(&j);
  int64_t total;
  if (__builtin_mul_overflow(j.onum, j.n, &total)) /* stride-0 views can claim any size */
    return pt_error(PT_EINVAL, "reduce: %lld x %lld elements is too many", (long long)j.onum, (long long)j.n);

  j.fl = pt_is_float(j.in.dtype) || j.op == OP_VAR || j.op == OP_STD;
  coalesce_inner(&j);
  /* Tiles only pay when neighbouring outputs share cache lines and each output's own walk
   * is not already contiguous. */
  int64_t ts = j.orank ? j.in.stride[j.orank - 1] : 0, s_in = j.istr[j.irank - 1];
  j.tile = 1;
  if (j.orank && (ts < 0 ? -ts : ts) * pt_dtype_size[j.in.dtype] < 64 && s_in != 1 && s_in != -1)
    j.tile = j.oshape[j.orank - 1] < TILE ? j.oshape[j.orank - 1] : TILE;
  j.tpr = j.orank ? (j.oshape[j.orank - 1] + j.tile - 1) / j.tile : 1;
  j.ntiles = j.orank ? j.onum / j.oshape[j.orank - 1] * j.tpr : 1;
  j.nchunks = (j.n + CHUNK - 1) / CHUNK;
  if (j.nchunks == 1) return run_pass(&j, (j.op == OP_VAR || j.op == OP_STD), NULL, NULL);

  /* Here n > CHUNK, so onum * nchunks is below twice the element count / CHUNK. */
  acc_t *part = malloc((size_t)(j.onum * j.nchunks) * sizeof *part);
  acc_t *folded = malloc((size_t)j.onum * sizeof *folded);
  double *means = malloc((size_t)j.onum * sizeof *means);
  if (!part || !folded || !means) {
    free(part); free(folded); free(means);
    return pt_error(PT_EOOM, "reduce: no memory for %lld partial results", (long long)(j.onum * j.nchunks));
  }
  j.part = part;
  if (j.op == OP_VAR || j.op == OP_STD) {
    run_pass(&j, 0, means, NULL);
    j.mean = means;
    run_pass(&j, 1, NULL, folded);
  } else run_pass(&j, 0, NULL, folded);
  for (int64_t o = 0; o < j.onum; o++) {
    int64_t io, oo;
    out_offsets(&j, o, &io, &oo);
    store(&j, oo, &folded[o]);
  }
  free(part); free(folded); free(means);
  return PT_OK;
}
