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
#define TILE 16
#define LANES 16

typedef struct { double f; int64_t i, idx; int nan; } acc_t;

typedef struct {
  int op, fl;            /* fl: the pass reads doubles (float input, or var/std) */
  int64_t ddof;
  int orank, irank, last; /* last: the outer dim tiles run along, -1 if none */
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

static void update_f(int kind, acc_t *s, const double *x, int64_t n, int64_t pos, double m) {
  double l[LANES];
  int64_t i = 0, c = 0;
  switch (kind) {
  case K_SUM: s->f += sum_f64(x, n); break;
  case K_SQDEV: case K_PROD: {
    double init = kind == K_PROD ? 1.0 : 0.0;
    for (int k = 0; k < LANES; k++) l[k] = init;
    if (kind == K_SQDEV)
      for (; i + LANES <= n; i += LANES) for (int k = 0; k < LANES; k++) l[k] += (x[i + k] - m) * (x[i + k] - m);
    else
      for (; i + LANES <= n; i += LANES) for (int k = 0; k < LANES; k++) l[k] *= x[i + k];
    for (; i < n; i++) {
      double v = kind == K_SQDEV ? (x[i] - m) * (x[i] - m) : x[i];
      if (kind == K_PROD) l[i % LANES] *= v; else l[i % LANES] += v;
    }
    if (kind == K_PROD) {
      double p = 1.0;
      for (int k = 0; k < LANES; k++) p *= l[k];
      s->f *= p;
    } else s->f += fold(l);
    break;
  }
  case K_MAX: case K_MIN: {
    double nan[LANES];
    for (int k = 0; k < LANES; k++) { l[k] = s->f; nan[k] = 0; }
    if (kind == K_MAX)
      for (; i + LANES <= n; i += LANES)
        for (int k = 0; k < LANES; k++) { double v = x[i + k]; nan[k] += v != v; l[k] = v > l[k] ? v : l[k]; }
    else
      for (; i + LANES <= n; i += LANES)
        for (int k = 0; k < LANES; k++) { double v = x[i + k]; nan[k] += v != v; l[k] = v < l[k] ? v : l[k]; }
    for (; i < n; i++) {
      double v = x[i];
      nan[0] += v != v;
      l[0] = (kind == K_MAX ? v > l[0] : v < l[0]) ? v : l[0];
    }
    for (int k = 0; k < LANES; k++) {
      s->f = (kind == K_MAX ? l[k] > s->f : l[k] < s->f) ? l[k] : s->f;
      s->nan |= nan[k] != 0;
    }
    break;
  }
  case K_ARGMAX: case K_ARGMIN:
    /* The first NaN wins and nothing replaces it; otherwise only a strictly better value. */
    for (; i < n; i++) {
      double v = x[i], b = s->f;
      int better = kind == K_ARGMAX ? v > b : v < b;
      if (s->idx < 0 || better || (v != v && b == b)) { s->f = v; s->idx = pos + i; }
    }
    break;
  default: /* K_COUNT: NaN != 0, so NaN counts as nonzero */
    for (; i < n; i++) c += x[i] != 0;
    s->i += c;
  }
}

static void update_i(int kind, acc_t *s, const int64_t *x, int64_t n, int64_t pos) {
  uint64_t u = kind == K_PROD ? 1 : 0;
  int64_t i = 0, c = 0;
  switch (kind) {
  case K_SUM: for (; i < n; i++) u += (uint64_t)x[i]; s->i = (int64_t)((uint64_t)s->i + u); break;
  case K_PROD: for (; i < n; i++) u *= (uint64_t)x[i]; s->i = (int64_t)((uint64_t)s->i * u); break;
  case K_MAX: for (; i < n; i++) s->i = x[i] > s->i ? x[i] : s->i; break;
  case K_MIN: for (; i < n; i++) s->i = x[i] < s->i ? x[i] : s->i; break;
  case K_ARGMAX: case K_ARGMIN:
    for (; i < n; i++) {
      int better = kind == K_ARGMAX ? x[i] > s->i : x[i] < s->i;
      if (s->idx < 0 || better) { s->i = x[i]; s->idx = pos + i; }
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

/* Reduces inner elements [lo, hi) of the tile's cnt outputs (input element offset `base`,
 * consecutive outputs `tstep` apart) into st[0..cnt). */
static void reduce_range(const job_t *j, int kind, int64_t base, int64_t tstep, int cnt, int64_t lo, int64_t hi,
                         const double *mean, acc_t *st) {
  union { double f[TILE * BLK]; int64_t i[TILE * BLK]; } buf;
  int last = j->irank - 1, dt = j->in.dtype;
  for (int t = 0; t < cnt; t++) acc_init(&st[t], kind);
  if (kind == K_SUM && j->fl && cnt == 1 && j->istr[last] == 1 && last == 0 && (dt == PT_F32 || dt == PT_F64)) {
    for (int64_t b = lo; b < hi; b += BLK) {
      int64_t nb = hi - b < BLK ? hi - b : BLK;
      const uint8_t *p = PT_ELEM(&j->in, base + b);
      st->f += dt == PT_F32 ? sum_f32((const float *)p, nb) : sum_f64((const double *)p, nb);
    }
    return;
  }
  for (int64_t b = lo; b < hi; b += BLK) {
    int64_t nb = hi - b < BLK ? hi - b : BLK, idx[PT_MAX_RANK], rem = b, off = base, done = 0;
    for (int d = last; d >= 0; d--) {
      idx[d] = rem % j->ishape[d];
      rem /= j->ishape[d];
      off += idx[d] * j->istr[d];
    }
    while (done < nb) { /* one run along the innermost inner dim per step */
      int64_t take = j->ishape[last] - idx[last], s = j->istr[last];
      if (take > nb - done) take = nb - done;
      for (int t = 0; t < cnt; t++) {
        const uint8_t *p = PT_ELEM(&j->in, off + t * tstep);
        if (j->fl) kgather_f(p, dt, s, take, buf.f + t * BLK + done, 1);
        else kgather_i(p, dt, s, take, buf.i + t * BLK + done, 1);
      }
      done += take;
      off += take * s;
      idx[last] += take;
      for (int d = last; d > 0 && idx[d] == j->ishape[d]; d--) {
        off += j->istr[d - 1] - idx[d] * j->istr[d];
        idx[d] = 0;
        idx[d - 1]++;
      }
    }
    for (int t = 0; t < cnt; t++) {
      if (j->fl) update_f(kind, &st[t], buf.f + t * BLK, nb, b, mean ? mean[t] : 0);
      else update_i(kind, &st[t], buf.i + t * BLK, nb, b);
    }
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

/* The outputs of tile t: the first one's number, their count, and the input step between them. */
static int tile_outputs(const job_t *j, int64_t t, int64_t *o0, int64_t *tstep) {
  if (j->last < 0) { *o0 = t; *tstep = 0; return 1; }
  int64_t len = j->oshape[j->last], c0 = (t % j->tpr) * j->tile;
  *o0 = (t / j->tpr) * len + c0;
  *tstep = j->in.stride[j->last];
  return (int)(len - c0 < j->tile ? len - c0 : j->tile);
}

static void run_items(void *ctx, size_t begin, size_t end) {
  const job_t *j = ctx;
  acc_t st[TILE];
  double mean[TILE];
  for (size_t w = begin; w < end; w++) {
    int64_t tile = (int64_t)w / j->nchunks, chunk = (int64_t)w % j->nchunks, o0, tstep, in_off, out_off;
    int cnt = tile_outputs(j, tile, &o0, &tstep);
    int64_t lo = chunk * CHUNK, hi = lo + CHUNK < j->n ? lo + CHUNK : j->n;
    out_offsets(j, o0, &in_off, &out_off);
    const double *m = NULL;
    if (j->kind == K_SQDEV) {
      if (j->mean) m = j->mean + o0;
      else { /* the whole extent is this item's: take the mean first, here */
        reduce_range(j, K_SUM, in_off, tstep, cnt, lo, hi, NULL, st);
        for (int t = 0; t < cnt; t++) mean[t] = st[t].f / (double)j->n;
        m = mean;
      }
    }
    reduce_range(j, j->kind, in_off, tstep, cnt, lo, hi, m, st);
    if (j->nchunks > 1) {
      for (int t = 0; t < cnt; t++) j->part[(o0 + t) * j->nchunks + chunk] = st[t];
      continue;
    }
    for (int t = 0; t < cnt; t++) {
      int64_t io, oo;
      out_offsets(j, o0 + t, &io, &oo);
      store(j, oo, &st[t]);
    }
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
  if (j.n == 0) return reduce_empty(&j);
  int64_t total;
  if (__builtin_mul_overflow(j.onum, j.n, &total)) /* stride-0 views can claim any size */
    return pt_error(PT_EINVAL, "reduce: %lld x %lld elements is too many", (long long)j.onum, (long long)j.n);

  int in_float = pt_is_float(j.in.dtype);
  j.fl = in_float || j.op == OP_VAR || j.op == OP_STD;
  coalesce_inner(&j);
  /* Tiles only pay when neighbouring outputs share cache lines and each output's own walk
   * is not already contiguous. */
  j.last = j.orank - 1;
  while (j.last >= 0 && j.oshape[j.last] == 1) j.last--;
  int64_t ts = j.last >= 0 ? j.in.stride[j.last] : 0;
  int64_t s_in = j.istr[j.irank - 1];
  j.tile = j.last >= 0 && (ts < 0 ? -ts : ts) * pt_dtype_size[j.in.dtype] < 64 && s_in != 1 && s_in != -1 ? TILE : 1;
  if (j.last < 0) { j.tpr = 1; j.ntiles = 1; }
  else {
    int64_t len = j.oshape[j.last];
    j.tpr = (len + j.tile - 1) / j.tile;
    j.ntiles = j.onum / len * j.tpr;
  }
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
