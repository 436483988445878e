/* reduce.c: the "reduce" template (see kernels.h for the block and the op rules).
 *
 * An output's inner extent is walked in row-major order of the inner dims (merged where
 * contiguous) and cut into fixed CHUNK-element pieces whose partials are folded in order,
 * so one large reduction can run its pieces on several threads and still give the same
 * bits for every thread count. Two walks, chosen by layout alone:
 *  - one output at a time: BLK-element blocks gathered into a double (or int64) buffer and
 *    reduced there by reduce_ops.h with independent lanes (contiguous f32/f64 sums skip
 *    the gather);
 *  - column tiles, when neighbouring outputs are close in memory but each output's own
 *    walk is not (a sum over axis 0): the tile steps through positions together, reading
 *    one contiguous stretch of a row per step, as a hand-written loop would.
 *
 * "ewreduce" (transform-reduce) runs the same walks over the values of an expression
 * instead of a view: its input is the contiguous tensor the expression would write (a
 * virtual view), and each stretch a walk reads is computed just before it is read
 * (kernels.h's cpu_ew_values), so results are the bits of reducing the materialized tensor.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include "kernels.h"
#include "pool.h"
#include "reduce_ops.h"
#include "strided.h"

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_ARGMAX, OP_ARGMIN, OP_ANY, OP_ALL, OP_MEAN, OP_VAR, OP_STD, OP_COUNT, OP_N };

#define BLK 256
#define CHUNK 65536 /* a multiple of BLK */
#define TILE 4096   /* widest column tile */

typedef struct {
  int op, fl;             /* fl: the pass reads doubles (float input, or var/std) */
  int64_t ddof;
  int orank, irank;
  int64_t oshape[PT_MAX_RANK], ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  int64_t onum, n, tile, tpr, ntiles, nchunks;
  cpu_view in, out;
  int kind;               /* of the current pass */
  const double *mean;     /* per output, for K_SQDEV; NULL: compute it in the same item */
  acc_t *part;            /* [onum][nchunks] partials when nchunks > 1 */
  const cpu_ew_values *ev; /* ewreduce: `in` is virtual, its element k is the value at ev_start + k */
  int64_t ev_start;
  atomic_int oom;
  _Atomic int64_t ev_failed; /* the earliest failing element (cpu_ew_values_at), or INT64_MAX */
} job_t;

/* A worker's scratch for computed values (ewreduce only). */
typedef struct { cpu_ew_thread *t; uint8_t *zeros; } values_t;

/* Input elements [off, off + n) (contiguous when computed): the view's memory, or the values. */
static const uint8_t *elems(job_t *j, values_t *w, int64_t off, int64_t n) {
  if (!j->ev) return PT_ELEM(&j->in, off);
  int64_t failed;
  const void *v = cpu_ew_values_at(j->ev, w->t, j->ev_start + off, n, &failed);
  if (v) return v;
  int64_t seen = atomic_load(&j->ev_failed);
  while (failed < seen && !atomic_compare_exchange_weak(&j->ev_failed, &seen, failed)) {}
  return w->zeros; /* the job fails; finish the walk on zeros */
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

/* Steps idx/off past a finished run along the innermost inner dim. */
static int64_t carry(const job_t *j, int64_t *idx, int64_t off) {
  for (int d = j->irank - 1; d > 0 && idx[d] == j->ishape[d]; d--) {
    off += j->istr[d - 1] - idx[d] * j->istr[d];
    idx[d] = 0;
    idx[d - 1]++;
  }
  return off;
}

/* Reduces inner elements [lo, hi) of one output (input element offset `base`) into *st. */
static void reduce_range(job_t *j, values_t *w, int kind, int64_t base, int64_t lo, int64_t hi, double mean, acc_t *st) {
  union { double f[BLK]; int64_t i[BLK]; } buf;
  int last = j->irank - 1, dt = j->in.dtype;
  acc_init(st, kind);
  if (kind == K_SUM && j->fl && last == 0 && j->istr[0] == 1 && (dt == PT_F32 || dt == PT_F64)) {
    for (int64_t b = lo; b < hi; b += BLK) {
      int64_t nb = hi - b < BLK ? hi - b : BLK;
      const uint8_t *p = elems(j, w, base + b, nb);
      st->f += dt == PT_F32 ? sum_f32((const float *)p, nb) : sum_f64((const double *)p, nb);
    }
    return;
  }
  for (int64_t b = lo; b < hi; b += BLK) {
    int64_t nb = hi - b < BLK ? hi - b : BLK, idx[PT_MAX_RANK], done = 0, off = locate(j, b, base, idx);
    while (done < nb) {
      int64_t take = j->ishape[last] - idx[last], s = j->istr[last];
      if (take > nb - done) take = nb - done;
      const uint8_t *p = elems(j, w, off, take); /* computed values are contiguous: s == 1 */
      if (j->fl) kgather_f(p, dt, s, take, buf.f + done, 1);
      else kgather_i(p, dt, s, take, buf.i + done, 1);
      done += take;
      idx[last] += take;
      off = carry(j, idx, off + take * s);
    }
    if (j->fl) update_f(kind, st, buf.f, nb, b, mean);
    else update_i(kind, st, buf.i, nb, b);
  }
}

/* Scratch of a column tile (heap: a tile is up to TILE outputs wide). */
typedef struct { double v[TILE], f[TILE], mean[TILE]; int64_t w[TILE], c[TILE], ix[TILE]; acc_t st[TILE]; } cols_t;

/* The cnt outputs of a tile (tstep apart in the input) over positions [lo, hi) into st. */
static void reduce_cols(job_t *j, values_t *w, int kind, int64_t base, int64_t tstep, int cnt, int64_t lo, int64_t hi,
                        const double *mean, cols_t *x, acc_t *st) {
  int dt = j->in.dtype, fl = j->fl, nan_count = fl && (kind == K_MAX || kind == K_MIN);
  int64_t idx[PT_MAX_RANK], off = locate(j, lo, base, idx), s = j->istr[j->irank - 1];
  /* Computed values: the tile's whole stretch at once (tiles of computed rows have rows of
   * at most 32 elements, one after another: tstep == the row length). */
  const uint8_t *region = j->ev ? elems(j, w, off, (cnt - 1) * tstep + (hi - lo)) : NULL;
  const int64_t region_at = off;
  acc_t init;
  acc_init(&init, kind);
  for (int t = 0; t < cnt; t++) { x->f[t] = init.f; x->c[t] = nan_count ? 0 : init.i; x->ix[t] = -1; }
  for (int64_t p = lo; p < hi; p++) {
    const uint8_t *src = region ? region + (off - region_at) * pt_dtype_size[dt] : PT_ELEM(&j->in, off);
    if (fl && kind == K_SUM && dt == PT_F32 && tstep == 1)
      for (int t = 0; t < cnt; t++) x->f[t] += ((const float *)src)[t];
    else if (fl) {
      kgather_f(src, dt, tstep, cnt, x->v, 1);
      col_update_f(kind, x->v, cnt, p, mean, x->f, x->c, x->ix);
    } else {
      kgather_i(src, dt, tstep, cnt, x->w, 1);
      col_update_i(kind, x->w, cnt, p, x->c, x->ix);
    }
    off += s;
    if (++idx[j->irank - 1] == j->ishape[j->irank - 1]) off = carry(j, idx, off);
  }
  for (int t = 0; t < cnt; t++) {
    st[t] = init;
    st[t].f = x->f[t];
    st[t].idx = x->ix[t];
    if (nan_count) st[t].nan = x->c[t] != 0;
    else st[t].i = x->c[t];
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
  default: { /* var, std: a divisor below zero is clamped to zero, as NumPy and PyTorch do */
    double div = n - (double)j->ddof, v = s->f / (div > 0 ? div : 0.0);
    pt_store_f64(p, dt, j->op == OP_STD ? sqrt(v) : v);
  }
  }
}

/* Work item w: a tile of outputs (one output unless tiled) times a chunk of the extent. */
static void run_items(void *ctx, size_t begin, size_t end) {
  job_t *j = ctx;
  acc_t one;
  double one_mean;
  cols_t *x = NULL;
  values_t vals = {NULL, NULL};
  if (j->ev) {
    int64_t max_n = j->tile > 1 ? j->tile * j->n : BLK;
    vals.t = cpu_ew_thread_new(j->ev, max_n);
    vals.zeros = calloc((size_t)max_n, 8);
    if (!vals.t || !vals.zeros) { cpu_ew_thread_free(vals.t); free(vals.zeros); atomic_store(&j->oom, 1); return; }
  }
  if (j->tile > 1 && !(x = malloc(sizeof *x))) { cpu_ew_thread_free(vals.t); free(vals.zeros); atomic_store(&j->oom, 1); return; }
  acc_t *st = x ? x->st : &one;
  double *mean = x ? x->mean : &one_mean;
  for (size_t w = begin; w < end; w++) {
    int64_t tile = (int64_t)w, chunk = 0, o0, io, oo, tstep = 0, ostep = 0;
    int cnt = 1;
    if (j->nchunks > 1) { tile = (int64_t)w / j->nchunks; chunk = (int64_t)w % j->nchunks; }
    o0 = tile;
    if (j->tile > 1) { /* tiles run along the last outer dim, tpr of them to a row */
      int64_t len = j->oshape[j->orank - 1], c0 = (tile % j->tpr) * j->tile;
      o0 = (tile / j->tpr) * len + c0;
      cnt = (int)(len - c0 < j->tile ? len - c0 : j->tile);
      tstep = j->in.stride[j->orank - 1];
      ostep = j->out.stride[j->orank - 1];
    }
    int64_t lo = chunk * CHUNK, hi = lo + CHUNK < j->n ? lo + CHUNK : j->n;
    out_offsets(j, o0, &io, &oo);
    if (j->kind == K_SQDEV && !j->mean) { /* var/std over a whole extent here: the mean first */
      if (x) reduce_cols(j, &vals, K_SUM, io, tstep, cnt, lo, hi, NULL, x, st);
      else reduce_range(j, &vals, K_SUM, io, lo, hi, 0, st);
      for (int t = 0; t < cnt; t++) mean[t] = st[t].f / (double)j->n;
    }
    const double *m = j->kind != K_SQDEV ? NULL : j->mean ? j->mean + o0 : mean;
    if (x) reduce_cols(j, &vals, j->kind, io, tstep, cnt, lo, hi, m, x, st);
    else reduce_range(j, &vals, j->kind, io, lo, hi, m ? m[0] : 0, st);
    if (j->nchunks > 1)
      for (int t = 0; t < cnt; t++) j->part[(o0 + t) * j->nchunks + chunk] = st[t];
    else
      for (int t = 0; t < cnt; t++) store(j, oo + t * ostep, &st[t]);
  }
  free(x);
  cpu_ew_thread_free(vals.t);
  free(vals.zeros);
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
  if (atomic_load(&j->oom)) return pt_error(PT_EOOM, "reduce: no memory for a column tile or computed values");
  if (atomic_load(&j->ev_failed) != INT64_MAX) return cpu_ew_failure(atomic_load(&j->ev_failed));
  if (j->nchunks == 1) return PT_OK;
  for (int64_t o = 0; o < j->onum; o++) {
    acc_t *s = &j->part[o * j->nchunks];
    for (int64_t c = 1; c < j->nchunks; c++) acc_merge(j->kind, j->fl, s, &s[c]);
    if (means) means[o] = s->f / (double)j->n;
    else folded[o] = *s;
  }
  return PT_OK;
}

static int reduce_job(job_t *j);

int cpu_reduce(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  job_t j;
  int64_t v, orank, irank;
  int rc;
  memset(&j, 0, sizeof j);
  atomic_init(&j.oom, 0);
  if (!a || na < PT_REDUCE_SLOTS) return pt_error(PT_EINVAL, "reduce: argument block has %d slots, needs %d", na, PT_REDUCE_SLOTS);
  if (!kslot(a[PT_REDUCE_OP], 0, OP_N - 1, &v)) return pt_error(PT_EINVAL, "reduce: op %g is not in [0, %d]", a[PT_REDUCE_OP], OP_N - 1);
  j.op = (int)v;
  if (!kslot(a[PT_REDUCE_DDOF], KSLOT_ANY, &j.ddof)) return pt_error(PT_EINVAL, "reduce: ddof %g is not an integer", a[PT_REDUCE_DDOF]);
  if (!kslot(a[PT_REDUCE_ORANK], 0, PT_MAX_RANK, &orank) || !kslot(a[PT_REDUCE_IRANK], 0, PT_MAX_RANK, &irank))
    return pt_error(PT_EINVAL, "reduce: ranks %g, %g are not in [0, %d]", a[PT_REDUCE_ORANK], a[PT_REDUCE_IRANK], PT_MAX_RANK);
  j.orank = (int)orank;
  j.irank = (int)irank;
  if ((rc = cpu_shape_parse(a + PT_REDUCE_OSHAPE, j.orank, j.oshape, "reduce: output shape")) ||
      (rc = cpu_shape_parse(a + PT_REDUCE_ISHAPE, j.irank, j.ishape, "reduce: inner shape")))
    return rc;
  for (int d = 0; d < PT_MAX_RANK; d++)
    if (!kslot(a[PT_REDUCE_IN_INNER + d], KSLOT_ANY, &j.istr[d]))
      return pt_error(PT_EINVAL, "reduce: inner stride %d is %g, not an integer", d, a[PT_REDUCE_IN_INNER + d]);
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_REDUCE_IN, j.orank, j.oshape, j.irank, j.ishape, j.istr, "reduce: input", &j.in)) ||
      (rc = cpu_view_parse(bufs, nbuf, a + PT_REDUCE_OUT, j.orank, j.oshape, 0, NULL, NULL, "reduce: output", &j.out)))
    return rc;
  return reduce_job(&j);
}

/* Runs a parsed job (ops, shapes, views; for ewreduce the virtual input and values). */
static int reduce_job(job_t *j) {
  int rc;
  atomic_init(&j->oom, 0);
  atomic_init(&j->ev_failed, INT64_MAX);
  j->onum = cpu_numel(j->orank, j->oshape);
  j->n = cpu_numel(j->irank, j->ishape);
  if (j->onum == 0) return PT_OK;
  coalesce_outer(j);
  if (j->n == 0) return reduce_empty(j);
  int64_t total;
  if (__builtin_mul_overflow(j->onum, j->n, &total)) /* stride-0 views can claim any size */
    return pt_error(PT_EINVAL, "reduce: %lld x %lld elements is too many", (long long)j->onum, (long long)j->n);

  j->fl = pt_is_float(j->in.dtype) || j->op == OP_VAR || j->op == OP_STD;
  coalesce_inner(j);
  /* Column tiles pay when neighbouring outputs share cache lines and each output's own
   * walk is strided, or too short to be worth a call of its own. A tile's stretch of a row
   * stays within 16 KiB, so the lines it reads at one position serve the next. */
  int64_t ts = j->orank ? j->in.stride[j->orank - 1] : 0, s_in = j->istr[j->irank - 1];
  int64_t len = j->orank ? j->oshape[j->orank - 1] : 1, rows = j->onum / len;
  int64_t span = (ts < 0 ? -ts : ts ? ts : 1) * pt_dtype_size[j->in.dtype], cap = 16384 / span;
  j->nchunks = (j->n + CHUNK - 1) / CHUNK;
  j->tile = 1;
  if (j->orank && span <= 1024 && ((span < 64 && s_in != 1 && s_in != -1) || j->n <= 32)) {
    /* As wide as allowed, but narrow enough to give every thread something to do; the
     * width never changes a result (each output is summed alone). */
    int64_t want = 2 * cpu_thread_count(), have = rows * j->nchunks, split = have >= want ? 1 : (want + have - 1) / have;
    j->tile = (len + split - 1) / split;
    j->tile = j->tile < 16 && len > 16 ? 16 : j->tile > cap ? cap : j->tile;
  }
  j->tpr = (len + j->tile - 1) / j->tile;
  j->ntiles = rows * j->tpr;
  if (j->nchunks == 1) return run_pass(j, (j->op == OP_VAR || j->op == OP_STD), NULL, NULL);

  /* Here n > CHUNK, so onum * nchunks is below twice the element count / CHUNK. */
  acc_t *part = malloc((size_t)(j->onum * j->nchunks) * sizeof *part);
  acc_t *folded = malloc((size_t)j->onum * sizeof *folded);
  double *means = malloc((size_t)j->onum * sizeof *means);
  if (!part || !folded || !means) {
    free(part); free(folded); free(means);
    return pt_error(PT_EOOM, "reduce: no memory for %lld partial results", (long long)(j->onum * j->nchunks));
  }
  j->part = part;
  if (j->op == OP_VAR || j->op == OP_STD) {
    rc = run_pass(j, 0, means, NULL);
    j->mean = means;
    if (!rc) rc = run_pass(j, 1, NULL, folded);
  } else rc = run_pass(j, 0, NULL, folded);
  for (int64_t o = 0; o < j->onum && !rc; o++) {
    int64_t io, oo;
    out_offsets(j, o, &io, &oo);
    store(j, oo, &folded[o]);
  }
  free(part); free(folded); free(means);
  return rc;
}

/* [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x (nviews - 1),
 * nconst, consts] (blocks.h): rows of rowlen computed values, reduced as reduce would reduce
 * them in a contiguous tensor (outer [rows] of stride rowlen, inner [rowlen] of stride 1). */
int cpu_ewreduce(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  static const int dtype_of_ctype[4] = {PT_F32, PT_F64, PT_I32, PT_I64};
  job_t j;
  int64_t v, rank, shape[PT_MAX_RANK], start, rows, rowlen, nviews, nconst;
  int rc;
  memset(&j, 0, sizeof j);
  if (!a || na < PT_EWREDUCE_SLOTS(1))
    return pt_error(PT_EINVAL, "ewreduce: argument block has %d slots, needs at least %d", na, PT_EWREDUCE_SLOTS(1));
  if (!kslot(a[PT_EWREDUCE_OP], 0, OP_N - 1, &v)) return pt_error(PT_EINVAL, "ewreduce: op %g is not in [0, %d]", a[PT_EWREDUCE_OP], OP_N - 1);
  j.op = (int)v;
  if (!kslot(a[PT_EWREDUCE_DDOF], KSLOT_ANY, &j.ddof)) return pt_error(PT_EINVAL, "ewreduce: ddof %g is not an integer", a[PT_EWREDUCE_DDOF]);
  if (!kslot(a[PT_EWREDUCE_RANK], 0, PT_MAX_RANK, &rank)) return pt_error(PT_EINVAL, "ewreduce: rank %g is not in [0, %d]", a[PT_EWREDUCE_RANK], PT_MAX_RANK);
  if ((rc = cpu_shape_parse(a + PT_EWREDUCE_SHAPE, (int)rank, shape, "ewreduce: shape"))) return rc;
  if (!kslot(a[PT_EWREDUCE_START], 0, KSLOT_MAX, &start) || !kslot(a[PT_EWREDUCE_ROWS], 0, KSLOT_MAX, &rows) || !kslot(a[PT_EWREDUCE_ROWLEN], 0, KSLOT_MAX, &rowlen))
    return pt_error(PT_EINVAL, "ewreduce: start %g, rows %g, row length %g are not integers >= 0", a[PT_EWREDUCE_START], a[PT_EWREDUCE_ROWS], a[PT_EWREDUCE_ROWLEN]);
  int64_t total = cpu_numel((int)rank, shape), span;
  if (__builtin_mul_overflow(rows, rowlen, &span) || start > total || span > total - start)
    return pt_error(PT_EINVAL, "ewreduce: %lld rows of %lld from element %lld pass the %lld elements of the expression",
                    (long long)rows, (long long)rowlen, (long long)start, (long long)total);
  if (!kslot(a[PT_EWREDUCE_NVIEWS], 1, (na - PT_EWREDUCE_SLOTS(0)) / PT_VIEW_SLOTS, &nviews)) return pt_error(PT_EINVAL, "ewreduce: view count %g is invalid", a[PT_EWREDUCE_NVIEWS]);
  int64_t cslot = PT_EWREDUCE_NCONST(nviews);
  if (!kslot(a[cslot], 0, na - cslot - 1, &nconst)) return pt_error(PT_EINVAL, "ewreduce: constant count %g is invalid", a[cslot]);
  j.orank = 1;
  j.oshape[0] = rows;
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_EWREDUCE_VIEWS, 1, j.oshape, 0, NULL, NULL, "ewreduce: output", &j.out))) return rc;
  cpu_ew_values *ev;
  if ((rc = cpu_ew_values_open(p, bufs, nbuf, (int)rank, shape, a + PT_EWREDUCE_VIEWS + PT_VIEW_SLOTS, (int)nviews, a + cslot + 1,
                               (int)nconst, &ev)))
    return rc;
  j.irank = 1;
  j.ishape[0] = rowlen;
  j.istr[0] = 1;
  j.in.dtype = dtype_of_ctype[cpu_ew_values_ctype(ev) & 3];
  j.in.stride[0] = rowlen;
  j.ev = ev;
  j.ev_start = start;
  rc = reduce_job(&j);
  cpu_ew_values_close(ev);
  return rc;
}
