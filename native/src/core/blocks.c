/* blocks.c: checks an argument block (blocks.h) against its buffers before a GPU launch.
 *
 * Ownership and ordering. Runs on the host in a driver's launch, before anything is queued,
 * and reads only the block and the buffer sizes. A GPU kernel cannot return PT_EINVAL:
 * reading past a buffer there is an illegal address, which kills the whole context (a
 * sticky error). So every VIEW is checked here as the CPU backend checks it (lowest and
 * highest element touched, overflow-checked), with the CPU's wording, and the per-kind
 * work count that a driver turns into a launch shape comes out of the same parse. What
 * only the data can tell (an index out of range, a count that differs) is the kernel's
 * to report through the error word.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blocks.h"
#include "slots.h"

#define RANK PT_MAX_RANK
#define VS PT_VIEW_SLOTS
#define SLOT_MAX 9007199254740992.0 /* 2^53 */
static const int dsize[PT_DTYPE_COUNT] = {4, 2, 2, 8, 4, 8, 1, 1, 1, 2};

static int sint(double d, int64_t lo, int64_t hi, int64_t *o) {
  if (!(d >= -SLOT_MAX && d <= SLOT_MAX) || d != floor(d) || (int64_t)d < lo || (int64_t)d > hi) return 0;
  *o = (int64_t)d;
  return 1;
}
#define ANY (-(int64_t)SLOT_MAX), ((int64_t)SLOT_MAX)

static int bad(const char *op, const char *what, double v) {
  return pt_error(PT_EINVAL, "%s: %s %g is invalid in the argument block", op, what, v);
}

static int64_t numel(int rank, const int64_t *sh) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (sh[i] <= 0) return 0;
    if (__builtin_mul_overflow(n, sh[i], &n)) return INT64_MAX;
  }
  return n;
}

/* a[0] = rank, a[1..8] = shape; a rank of 0 counts as `min_rank` dims of 1. */
static int rank_shape(const char *op, const double *a, int min_rank, int *rank, int64_t *sh) {
  int64_t r;
  if (!sint(a[0], 0, RANK, &r)) return bad(op, "rank", a[0]);
  for (int i = 0; i < RANK; i++) sh[i] = 1;
  for (int i = 0; i < r; i++)
    if (!sint(a[1 + i], 0, (int64_t)SLOT_MAX, &sh[i])) return pt_error(PT_EINVAL, "%s: dim %d is %g, not an integer >= 0", op, i, a[1 + i]);
  int64_t n = numel((int)r, sh);
  if (n > (int64_t)SLOT_MAX) return pt_error(PT_EINVAL, "%s: %d dims hold more than 2^53 elements", op, (int)r);
  *rank = r < min_rank ? min_rank : (int)r;
  return PT_OK;
}

static int reach(int64_t dim, int64_t stride, int64_t *lo, int64_t *hi) {
  int64_t span;
  if (__builtin_mul_overflow(stride, dim - 1, &span)) return 0;
  return span < 0 ? !__builtin_add_overflow(*lo, span, lo) : !__builtin_add_overflow(*hi, span, hi);
}

typedef struct { int buf, dtype; int64_t offset, stride[RANK]; } view_t;

/* A VIEW at a[0..VS) over shape (rank dims) plus extra dims whose strides live elsewhere. */
static int view(const pt_mem_ref *bufs, int nbuf, const double *a, int rank, const int64_t *sh, int xr,
                const int64_t *xsh, const int64_t *xst, const char *what, view_t *v) {
  int64_t b, dt;
  if (!sint(a[PT_VIEW_BUF], 0, nbuf - 1, &b))
    return pt_error(PT_EINVAL, "%s: buffer index %g is outside [0, %d)", what, a[PT_VIEW_BUF], nbuf);
  if (!sint(a[PT_VIEW_DTYPE], 0, PT_DTYPE_COUNT - 1, &dt))
    return pt_error(PT_EINVAL, "%s: dtype %g is not a valid dtype", what, a[PT_VIEW_DTYPE]);
  v->buf = (int)b;
  v->dtype = (int)dt;
  if (!sint(a[PT_VIEW_OFFSET], ANY, &v->offset)) return pt_error(PT_EINVAL, "%s: offset %g is not an integer", what, a[PT_VIEW_OFFSET]);
  const double *st = a + PT_VIEW_STRIDES;
  for (int i = 0; i < RANK; i++)
    if (!sint(st[i], ANY, &v->stride[i])) return pt_error(PT_EINVAL, "%s: stride %d is %g, not an integer", what, i, st[i]);
  if (numel(rank, sh) == 0 || numel(xr, xsh) == 0) return PT_OK; /* empty: touches nothing */
  int64_t lo = v->offset, hi = v->offset, elems = (int64_t)(bufs[b].bytes / (size_t)dsize[dt]);
  int ok = 1;
  for (int i = 0; i < rank && ok; i++) ok = reach(sh[i], v->stride[i], &lo, &hi);
  for (int i = 0; i < xr && ok; i++) ok = reach(xsh[i], xst[i], &lo, &hi);
  if (!ok) return pt_error(PT_EINVAL, "%s: element offsets overflow (offset %lld, buffer %lld)", what, (long long)v->offset, (long long)b);
  if (lo < 0 || hi >= elems)
    return pt_error(PT_EINVAL, "%s: touches elements %lld..%lld but buffer %lld holds %lld elements (%llu bytes)", what,
                    (long long)lo, (long long)hi, (long long)b, (long long)elems, (unsigned long long)bufs[b].bytes);
  return PT_OK;
}

static int strides(const char *op, const double *a, int64_t *st) {
  for (int i = 0; i < RANK; i++)
    if (!sint(a[i], ANY, &st[i])) return bad(op, "stride", a[i]);
  return PT_OK;
}

static int need(const char *op, int na, int n) {
  return na < n ? pt_error(PT_EINVAL, "%s: argument block has %d slots, needs %d", op, na, n) : PT_OK;
}

static int index_dtype(const char *op, const view_t *v) {
  return v->dtype == PT_I32 || v->dtype == PT_I64 ? PT_OK
                                                  : pt_error(PT_EINVAL, "%s: index dtype %d is not int32 or int64", op, v->dtype);
}

/* Indices into an empty axis are all out of range (the CPU names the first; the host
 * cannot read device memory, so this names none). */
static int empty_axis(const char *op, int64_t n, int64_t size, int axis) {
  return n > 0 && size == 0 ? pt_error(PT_EKERNEL, "%s: every index is out of range for axis %d of size 0", op, axis) : PT_OK;
}

/* scan and sort: [op, orank, oshape, n, then per view: VIEW, axis stride]; the two tables agree
 * on every slot up to scan's end (the static asserts below), so one parse serves both. */
_Static_assert(PT_SCAN_ORANK == PT_SORT_ORANK && PT_SCAN_N == PT_SORT_N && PT_SCAN_IN == PT_SORT_IN &&
                   PT_SCAN_OUT == PT_SORT_VALS && PT_SORT_IDX - PT_SORT_VALS == PT_SORT_VALS - PT_SORT_IN &&
                   PT_SORT_IN_STRIDE == PT_SORT_IN + VS,
               "scan and sort blocks share their prefix");
static int axis_rows(const char *op, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int nviews, int64_t *rows) {
  int rank, st;
  int64_t sh[RANK], n, ax;
  view_t v;
  static const char *names[2][3] = {{"scan: input", "scan: output", ""}, {"sort: input", "sort: values", "sort: indices"}};
  if ((st = need(op, na, nviews == 3 ? PT_SORT_SLOTS : PT_SCAN_SLOTS)) != PT_OK || (st = rank_shape(op, a + PT_SORT_ORANK, 0, &rank, sh)) != PT_OK)
    return st;
  if (!sint(a[PT_SORT_DESCENDING], 0, 1, &n)) return bad(op, nviews == 3 ? "descending flag" : "op", a[PT_SORT_DESCENDING]);
  if (!sint(a[PT_SORT_N], 0, (int64_t)SLOT_MAX, &n)) return bad(op, "axis length", a[PT_SORT_N]);
  for (int i = 0; i < nviews; i++) {
    const double *p = a + PT_SORT_IN + i * (PT_SORT_VALS - PT_SORT_IN);
    if (!sint(p[VS], ANY, &ax)) return bad(op, "axis stride", p[VS]);
    if ((st = view(bufs, nbuf, p, rank, sh, 1, &n, &ax, names[nviews == 3][i], &v)) != PT_OK) return st;
    if (i == 2 && v.dtype != PT_I64) return pt_error(PT_EINVAL, "sort: indices dtype %d is not int64", v.dtype);
  }
  *rows = numel(rank, sh);
  return PT_OK;
}

/* A ROW launch's work over rows of n positions: short rows take one thread each (blocks.h). */
static int64_t row_work(int64_t rows, int64_t n) {
  return n <= PT_SHORT_ROW ? (rows + PT_GROUP_THREADS - 1) / PT_GROUP_THREADS : rows;
}

static int reduce_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *rows) {
  static const char *const names[12] = {"sum", "prod", "max", "min", "argmax", "argmin", "any", "all", "mean", "var", "std", "count_nonzero"};
  int orank, irank, st;
  int64_t op, ddof, osh[RANK], ish[RANK], ist[RANK];
  view_t v;
  if ((st = need("reduce", na, PT_REDUCE_SLOTS)) != PT_OK) return st;
  if (!sint(a[PT_REDUCE_OP], 0, 11, &op)) return bad("reduce", "op", a[PT_REDUCE_OP]);
  if (!sint(a[PT_REDUCE_DDOF], ANY, &ddof)) return bad("reduce", "ddof", a[PT_REDUCE_DDOF]);
  if ((st = rank_shape("reduce", a + PT_REDUCE_ORANK, 0, &orank, osh)) != PT_OK ||
      (st = rank_shape("reduce", a + PT_REDUCE_IRANK, 0, &irank, ish)) != PT_OK || (st = strides("reduce", a + PT_REDUCE_IN_INNER, ist)) != PT_OK ||
      (st = view(bufs, nbuf, a + PT_REDUCE_IN, orank, osh, irank, ish, ist, "reduce: input", &v)) != PT_OK ||
      (st = view(bufs, nbuf, a + PT_REDUCE_OUT, orank, osh, 0, NULL, NULL, "reduce: output", &v)) != PT_OK)
    return st;
  int64_t outs = numel(orank, osh);
  if (outs > 0 && numel(irank, ish) == 0 && op >= 2 && op <= 5)
    return pt_error(PT_EINVAL, "reduce: %s of an empty extent has no identity (%lld outputs)", names[op], (long long)outs);
  *rows = row_work(outs, numel(irank, ish));
  return PT_OK;
}

/* gather [rank, shape, axis, size, mode, IN, IDX, OUT]; scatter adds reduce before OUT, IDX, SRC. */
_Static_assert(PT_GATHER_RANK == PT_SCATTER_RANK && PT_GATHER_AXIS == PT_SCATTER_AXIS && PT_GATHER_SIZE == PT_SCATTER_SIZE &&
                   PT_GATHER_MODE == PT_SCATTER_MODE && PT_GATHER_IDX - PT_GATHER_IN == VS && PT_SCATTER_IDX - PT_SCATTER_OUT == VS &&
                   PT_GATHER_OUT - PT_GATHER_IDX == VS && PT_SCATTER_SRC - PT_SCATTER_IDX == VS,
               "gather and scatter blocks share their prefix and hold three adjacent views");
static int axis_block(int scatter, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  static const char *names[2][3] = {{"gather IN", "gather IDX", "gather OUT"}, {"scatter OUT", "scatter IDX", "scatter SRC"}};
  const char *op = scatter ? "scatter" : "gather";
  int rank, st, v0 = scatter ? PT_SCATTER_OUT : PT_GATHER_IN;
  int64_t sh[RANK], vsh[RANK], axis, size, x;
  view_t v[3];
  if ((st = need(op, na, scatter ? PT_SCATTER_SLOTS : PT_GATHER_SLOTS)) != PT_OK ||
      (st = rank_shape(op, a + PT_GATHER_RANK, 1, &rank, sh)) != PT_OK)
    return st;
  if (!sint(a[PT_GATHER_AXIS], 0, rank - 1, &axis)) return bad(op, "axis", a[PT_GATHER_AXIS]);
  if (!sint(a[PT_GATHER_SIZE], 0, (int64_t)SLOT_MAX, &size)) return bad(op, "axis size", a[PT_GATHER_SIZE]);
  if (!sint(a[PT_GATHER_MODE], 0, 2, &x)) return bad(op, "mode", a[PT_GATHER_MODE]);
  if (scatter && !sint(a[PT_SCATTER_REDUCE], 0, 3, &x)) return bad(op, "reduce", a[PT_SCATTER_REDUCE]);
  memcpy(vsh, sh, sizeof vsh);
  vsh[axis] = size;
  for (int i = 0; i < 3; i++)
    if ((st = view(bufs, nbuf, a + v0 + i * VS, rank, i == 0 ? vsh : sh, 0, NULL, NULL, names[scatter][i], &v[i])) != PT_OK) return st;
  if ((st = index_dtype(op, &v[1])) != PT_OK) return st;
  *work = numel(rank, sh);
  return empty_axis(op, *work, size, (int)axis);
}

/* [k, brank, bshape, rrank, rshape, mode, accumulate, dims, OUT VIEW + rest strides, IDX x k, VALS VIEW + rest strides] */
static int index_block(int get, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  const char *op = get ? "index_get" : "index_put";
  int brank, rrank, st, k;
  int64_t x, bsh[RANK], rsh[RANK], dims[RANK], ost[RANK], vst[RANK];
  view_t v;
  if ((st = need(op, na, 1)) != PT_OK) return st;
  if (!sint(a[PT_INDEX_K], 1, RANK, &x)) return bad(op, "k", a[PT_INDEX_K]);
  k = (int)x;
  if ((st = need(op, na, PT_INDEX_SLOTS(k))) != PT_OK || (st = rank_shape(op, a + PT_INDEX_BRANK, 0, &brank, bsh)) != PT_OK ||
      (st = rank_shape(op, a + PT_INDEX_RRANK, 0, &rrank, rsh)) != PT_OK)
    return st;
  if (!sint(a[PT_INDEX_MODE], 0, 2, &x)) return bad(op, "mode", a[PT_INDEX_MODE]);
  if (!sint(a[PT_INDEX_ACCUMULATE], 0, 1, &x)) return bad(op, "accumulate", a[PT_INDEX_ACCUMULATE]);
  for (int i = 0; i < RANK; i++) dims[i] = 1;
  for (int i = 0; i < k; i++)
    if (!sint(a[PT_INDEX_DIMS + i], 0, (int64_t)SLOT_MAX, &dims[i])) return bad(op, "indexed dim size", a[PT_INDEX_DIMS + i]);
  char name[32];
  if ((st = strides(op, a + PT_INDEX_OUT_REST, ost)) != PT_OK || (st = strides(op, a + PT_INDEX_VALS_REST(k), vst)) != PT_OK) return st;
  snprintf(name, sizeof name, "%s OUT", op);
  if ((st = view(bufs, nbuf, a + PT_INDEX_OUT, k, dims, rrank, rsh, ost, name, &v)) != PT_OK) return st;
  snprintf(name, sizeof name, "%s VALS", op);
  if ((st = view(bufs, nbuf, a + PT_INDEX_VALS(k), brank, bsh, rrank, rsh, vst, name, &v)) != PT_OK) return st;
  snprintf(name, sizeof name, "%s IDX", op);
  for (int q = 0; q < k; q++)
    if ((st = view(bufs, nbuf, a + PT_INDEX_IDX + q * VS, brank, bsh, 0, NULL, NULL, name, &v)) != PT_OK ||
        (st = index_dtype(op, &v)) != PT_OK)
      return st;
  int64_t nb = numel(brank, bsh), nr = numel(rrank, rsh);
  if (nb > 0 && nr > (int64_t)SLOT_MAX / nb)
    return pt_error(PT_EINVAL, "%s: %lld x %lld elements is more than 2^53", op, (long long)nb, (long long)nr);
  for (int q = 0; q < k; q++)
    if ((st = empty_axis(op, nb, dims[q], q)) != PT_OK) return st;
  *work = nr > 0 ? nb * nr : 0;
  return PT_OK;
}

static int compact_block(int masked, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  const char *op = masked ? "masked_select" : "nonzero";
  int rank, st;
  int64_t sh[RANK], count, ob;
  view_t v;
  const int count_at = masked ? PT_MASKED_SELECT_COUNT : PT_NONZERO_COUNT;
  _Static_assert(PT_MASKED_SELECT_RANK == PT_NONZERO_RANK && PT_MASKED_SELECT_IN == PT_NONZERO_IN, "nonzero and masked_select share their prefix");
  if ((st = need(op, na, masked ? PT_MASKED_SELECT_SLOTS : PT_NONZERO_SLOTS)) != PT_OK ||
      (st = rank_shape(op, a + PT_NONZERO_RANK, 0, &rank, sh)) != PT_OK)
    return st;
  if (!sint(a[count_at], 0, (int64_t)SLOT_MAX, &count)) return bad(op, "count", a[count_at]);
  if ((st = view(bufs, nbuf, a + PT_NONZERO_IN, rank, sh, 0, NULL, NULL, masked ? "masked_select IN" : "nonzero IN", &v)) != PT_OK) return st;
  if (masked) {
    if ((st = view(bufs, nbuf, a + PT_MASKED_SELECT_MASK, rank, sh, 0, NULL, NULL, "masked_select MASK", &v)) != PT_OK ||
        (st = view(bufs, nbuf, a + PT_MASKED_SELECT_OUT, 1, &count, 0, NULL, NULL, "masked_select OUT", &v)) != PT_OK)
      return st;
  } else {
    if (!sint(a[PT_NONZERO_OUT], 0, nbuf - 1, &ob)) return bad(op, "OUT buffer", a[PT_NONZERO_OUT]);
    uint64_t bytes = (uint64_t)count * (uint64_t)rank * 8u;
    if (bytes > bufs[ob].bytes)
      return pt_error(PT_EINVAL, "%s: OUT buffer %lld holds %llu bytes, needs %llu", op, (long long)ob,
                      (unsigned long long)bufs[ob].bytes, (unsigned long long)bytes);
  }
  *work = numel(rank, sh);
  return PT_OK;
}

static int philox_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  int64_t x, n;
  view_t v;
  int st = need("philox", na, PT_PHILOX_SLOTS);
  if (st != PT_OK) return st;
  const double dist = a[PT_PHILOX_DIST];
  if (!sint(dist, 0, 2, &x)) return bad("philox", "dist", dist);
  if (!sint(a[PT_PHILOX_SEED_LO], 0, 4294967295LL, &x)) return bad("philox", "seed lo", a[PT_PHILOX_SEED_LO]);
  if (!sint(a[PT_PHILOX_SEED_HI], 0, 4294967295LL, &x)) return bad("philox", "seed hi", a[PT_PHILOX_SEED_HI]);
  if (!sint(a[PT_PHILOX_OFFSET], 0, (int64_t)SLOT_MAX, &x)) return bad("philox", "offset", a[PT_PHILOX_OFFSET]);
  if (!sint(a[PT_PHILOX_N], 0, (int64_t)SLOT_MAX, &n)) return bad("philox", "n", a[PT_PHILOX_N]);
  if ((st = view(bufs, nbuf, a + PT_PHILOX_OUT, 1, &n, 0, NULL, NULL, "philox OUT", &v)) != PT_OK) return st;
  if (dist == 2 && !(a[PT_PHILOX_A] < a[PT_PHILOX_B]))
    return pt_error(PT_EINVAL, "philox: randint range [%g, %g) is empty", a[PT_PHILOX_A], a[PT_PHILOX_B]);
  if (dist != 2 && !(v.dtype == PT_F32 || v.dtype == PT_F16 || v.dtype == PT_BF16 || v.dtype == PT_F64))
    return pt_error(PT_EINVAL, "philox: %s into dtype %d needs a floating-point output", dist == 0 ? "uniform" : "normal", v.dtype);
  *work = n;
  return PT_OK;
}

static int ew_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  int rank, st;
  int64_t sh[RANK], nv, nc;
  view_t v;
  if ((st = need("ew", na, PT_EW_SLOTS(0))) != PT_OK || (st = rank_shape("ew", a + PT_EW_RANK, 0, &rank, sh)) != PT_OK) return st;
  if (!sint(a[PT_EW_NVIEWS], 1, (na - PT_EW_SLOTS(0)) / VS, &nv)) return bad("ew", "view count", a[PT_EW_NVIEWS]);
  int at = PT_EW_NCONST(nv);
  if (!sint(a[at], 0, na - at - 1, &nc)) return bad("ew", "constant count", a[at]);
  for (int i = 0; i < nv; i++) {
    char name[24];
    snprintf(name, sizeof name, "ew view %d", i);
    if ((st = view(bufs, nbuf, a + PT_EW_VIEWS + i * VS, rank, sh, 0, NULL, NULL, name, &v)) != PT_OK) return st;
  }
  *work = numel(rank, sh);
  return PT_OK;
}

/* [op, ddof, rank, shape, start, rows, rowlen, nviews, VIEW x nviews (OUT, then the inputs), nconst, consts] */
static int ewreduce_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  const char *op = "ewreduce";
  int rank, st;
  int64_t sh[RANK], x, start, rows, rowlen, nv, nc, span;
  view_t v;
  if ((st = need(op, na, PT_EWREDUCE_SLOTS(1))) != PT_OK) return st;
  if (!sint(a[PT_EWREDUCE_OP], 0, 11, &x)) return bad(op, "op", a[PT_EWREDUCE_OP]);
  if (!sint(a[PT_EWREDUCE_DDOF], ANY, &x)) return bad(op, "ddof", a[PT_EWREDUCE_DDOF]);
  if ((st = rank_shape(op, a + PT_EWREDUCE_RANK, 0, &rank, sh)) != PT_OK) return st;
  if (!sint(a[PT_EWREDUCE_START], 0, (int64_t)SLOT_MAX, &start)) return bad(op, "start", a[PT_EWREDUCE_START]);
  if (!sint(a[PT_EWREDUCE_ROWS], 0, (int64_t)SLOT_MAX, &rows)) return bad(op, "rows", a[PT_EWREDUCE_ROWS]);
  if (!sint(a[PT_EWREDUCE_ROWLEN], 0, (int64_t)SLOT_MAX, &rowlen)) return bad(op, "row length", a[PT_EWREDUCE_ROWLEN]);
  if (!sint(a[PT_EWREDUCE_NVIEWS], 1, (na - PT_EWREDUCE_SLOTS(0)) / VS, &nv)) return bad(op, "view count", a[PT_EWREDUCE_NVIEWS]);
  int at = PT_EWREDUCE_NCONST(nv);
  if (!sint(a[at], 0, na - at - 1, &nc)) return bad(op, "constant count", a[at]);
  if (__builtin_mul_overflow(rows, rowlen, &span) || span > numel(rank, sh) - start)
    return pt_error(PT_EINVAL, "%s: %lld rows of %lld from element %lld pass the %lld elements of the expression", op,
                    (long long)rows, (long long)rowlen, (long long)start, (long long)numel(rank, sh));
  if ((st = view(bufs, nbuf, a + PT_EWREDUCE_VIEWS, 1, &rows, 0, NULL, NULL, "ewreduce OUT", &v)) != PT_OK) return st;
  for (int i = 1; i < nv; i++) {
    char name[32];
    snprintf(name, sizeof name, "ewreduce input %d", i - 1);
    if ((st = view(bufs, nbuf, a + PT_EWREDUCE_VIEWS + i * VS, rank, sh, 0, NULL, NULL, name, &v)) != PT_OK) return st;
  }
  *work = row_work(rows, rowlen);
  return PT_OK;
}

static int attention_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  static const char *const names[5] = {"attention: Q", "attention: K", "attention: V", "attention: MASK", "attention: OUT"};
  static const int at[5] = {PT_ATTENTION_Q, PT_ATTENTION_K, PT_ATTENTION_V, PT_ATTENTION_MASK, PT_ATTENTION_OUT};
  int brank, st = need("attention", na, PT_ATTENTION_SLOTS);
  int64_t bshape[RANK], l, s, e, ev, x, masked;
  if (st != PT_OK || (st = rank_shape("attention: batch shape", a + PT_ATTENTION_BRANK, 0, &brank, bshape)) != PT_OK) return st;
  if (!sint(a[PT_ATTENTION_L], 0, (int64_t)SLOT_MAX, &l)) return bad("attention", "L", a[PT_ATTENTION_L]);
  if (!sint(a[PT_ATTENTION_S], 0, (int64_t)SLOT_MAX, &s)) return bad("attention", "S", a[PT_ATTENTION_S]);
  if (!sint(a[PT_ATTENTION_E], 0, PT_ATTENTION_MAX_E, &e)) return bad("attention", "E", a[PT_ATTENTION_E]);
  if (!sint(a[PT_ATTENTION_EV], 0, PT_ATTENTION_MAX_E, &ev)) return bad("attention", "Ev", a[PT_ATTENTION_EV]);
  if (!sint(a[PT_ATTENTION_SCALE_BITS], 0, 4294967295LL, &x)) return bad("attention", "scale bits", a[PT_ATTENTION_SCALE_BITS]);
  if (!sint(a[PT_ATTENTION_CAUSAL], 0, 1, &x)) return bad("attention", "causal", a[PT_ATTENTION_CAUSAL]);
  if (!sint(a[PT_ATTENTION_MASKED], 0, 1, &masked)) return bad("attention", "masked", a[PT_ATTENTION_MASKED]);
  const int64_t rows[5] = {l, s, s, l, l}, cols[5] = {e, e, ev, s, ev};
  for (int i = 0; i < 5; i++) {
    if (i == 3 && !masked) continue;
    int64_t rs, cs;
    if (!sint(a[at[i] + VS], ANY, &rs) || !sint(a[at[i] + VS + 1], ANY, &cs))
      return pt_error(PT_EINVAL, "%s: a row or column stride is not an integer", names[i]);
    int64_t sh[2] = {rows[i], cols[i]}, sd[2] = {rs, cs};
    view_t v;
    if ((st = view(bufs, nbuf, a + at[i], brank, bshape, 2, sh, sd, names[i], &v)) != PT_OK) return st;
    if (v.dtype != PT_F32) return pt_error(PT_EINVAL, "%s: dtype %d is not f32", names[i], v.dtype);
  }
  *work = numel(brank, bshape) * ((l + 63) / 64); /* a row per 64 queries: ATTENTION_QUERIES of templates/attention.ts */
  return PT_OK;
}

static int rownorm_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  static const char *const names[4] = {"rownorm: IN", "rownorm: W", "rownorm: B", "rownorm: OUT"};
  static const int at[4] = {PT_ROWNORM_IN, PT_ROWNORM_W, PT_ROWNORM_B, PT_ROWNORM_OUT};
  int rank, st = need("rownorm", na, PT_ROWNORM_SLOTS);
  int64_t sh[RANK], op, n, x, affine;
  if (st != PT_OK || (st = rank_shape("rownorm: row shape", a + PT_ROWNORM_ORANK, 0, &rank, sh)) != PT_OK) return st;
  if (!sint(a[PT_ROWNORM_OP], 0, 3, &op)) return bad("rownorm", "op", a[PT_ROWNORM_OP]);
  if (!sint(a[PT_ROWNORM_N], 0, (int64_t)SLOT_MAX, &n)) return bad("rownorm", "row length", a[PT_ROWNORM_N]);
  if (!sint(a[PT_ROWNORM_EPS_BITS], 0, 4294967295LL, &x)) return bad("rownorm", "eps bits", a[PT_ROWNORM_EPS_BITS]);
  if (!sint(a[PT_ROWNORM_AFFINE], 0, 3, &affine)) return bad("rownorm", "affine", a[PT_ROWNORM_AFFINE]);
  for (int i = 0; i < 4; i++) {
    if ((i == 1 && !(affine & 1)) || (i == 2 && !(affine & 2))) continue;
    int64_t ax;
    view_t v;
    if (!sint(a[at[i] + VS], ANY, &ax)) return bad(names[i], "row stride", a[at[i] + VS]);
    if ((st = view(bufs, nbuf, a + at[i], rank, sh, 1, &n, &ax, names[i], &v)) != PT_OK) return st;
    if (v.dtype != PT_F32) return pt_error(PT_EINVAL, "%s: dtype %d is not f32", names[i], v.dtype);
  }
  *work = row_work(numel(rank, sh), n);
  return PT_OK;
}

static int im2col_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work) {
  static const char *const what[14] = {"N", "C", "H", "W", "kH", "kW", "stride h", "stride w", "padding h", "padding w",
                                       "dilation h", "dilation w", "OH", "OW"};
  int64_t v[14];
  int st = need("im2col", na, PT_IM2COL_SLOTS);
  if (st != PT_OK) return st;
  for (int i = 0; i < 14; i++) {
    const int64_t lo = (i >= 6 && i < 8) || (i >= 10 && i < 12) ? 1 : 0, hi = i < 2 ? (int64_t)SLOT_MAX : 2147483647LL;
    if (!sint(a[PT_IM2COL_N + i], lo, hi, &v[i])) return bad("im2col", what[i], a[PT_IM2COL_N + i]);
  }
  if (v[12] * v[13] > 2147483647LL) return pt_error(PT_EINVAL, "im2col: %lld x %lld outputs a plane is too many", (long long)v[12], (long long)v[13]);
  const int64_t ish[4] = {v[0], v[1], v[2], v[3]}, osh[4] = {v[0], v[1], v[4] * v[5], v[12] * v[13]};
  view_t in, out;
  if ((st = view(bufs, nbuf, a + PT_IM2COL_IN, 4, ish, 0, NULL, NULL, "im2col: IN", &in)) != PT_OK ||
      (st = view(bufs, nbuf, a + PT_IM2COL_OUT, 4, osh, 0, NULL, NULL, "im2col: OUT", &out)) != PT_OK)
    return st;
  if (in.dtype != PT_F32 || out.dtype != PT_F32) return pt_error(PT_EINVAL, "im2col: dtypes %d, %d are not f32", in.dtype, out.dtype);
  *work = numel(2, ish);
  return PT_OK;
}

static int matmul_block(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work, pt_matmul_plan *mm) {
  static const char *const names[3] = {"matmul: A", "matmul: B", "matmul: C"};
  view_t v[3];
  int st = need("matmul", na, PT_MATMUL_SLOTS);
  if (st != PT_OK || (st = rank_shape("matmul: batch shape", a + PT_MATMUL_BRANK, 0, &mm->brank, mm->bshape)) != PT_OK) return st;
  if (!sint(a[PT_MATMUL_M], 0, (int64_t)SLOT_MAX, &mm->M) || !sint(a[PT_MATMUL_N], 0, (int64_t)SLOT_MAX, &mm->N) ||
      !sint(a[PT_MATMUL_K], 0, (int64_t)SLOT_MAX, &mm->K))
    return pt_error(PT_EINVAL, "matmul: M, N, K = %g, %g, %g are not integers >= 0", a[PT_MATMUL_M], a[PT_MATMUL_N], a[PT_MATMUL_K]);
  const int64_t rows[3] = {mm->M, mm->K, mm->M}, cols[3] = {mm->K, mm->N, mm->N};
  static const int at[3][3] = {{PT_MATMUL_A, PT_MATMUL_A_ROWS, PT_MATMUL_A_COLS}, {PT_MATMUL_B, PT_MATMUL_B_ROWS, PT_MATMUL_B_COLS},
                               {PT_MATMUL_C, PT_MATMUL_C_ROWS, PT_MATMUL_C_COLS}};
  for (int i = 0; i < 3; i++) {
    const double *p = a + at[i][0];
    if (!sint(a[at[i][1]], ANY, &mm->rs[i]) || !sint(a[at[i][2]], ANY, &mm->cs[i]))
      return pt_error(PT_EINVAL, "matmul: a row or column stride is not an integer");
    int64_t sh[2] = {rows[i], cols[i]}, sd[2] = {mm->rs[i], mm->cs[i]};
    if ((st = view(bufs, nbuf, p, mm->brank, mm->bshape, 2, sh, sd, names[i], &v[i])) != PT_OK) return st;
    mm->buf[i] = v[i].buf;
    mm->off[i] = v[i].offset;
    memcpy(mm->bstride[i], v[i].stride, sizeof mm->bstride[i]);
  }
  mm->dtype = v[0].dtype;
  if (v[1].dtype != mm->dtype || v[2].dtype != mm->dtype ||
      !(mm->dtype == PT_F32 || mm->dtype == PT_F64 || mm->dtype == PT_I32 || mm->dtype == PT_I64 || mm->dtype == PT_F16 ||
        mm->dtype == PT_BF16))
    return pt_error(PT_EINVAL, "matmul: dtypes %d, %d, %d must be one of f32, f64, i32, i64, f16, bf16, the same for A, B and C",
                    v[0].dtype, v[1].dtype, v[2].dtype);
  int64_t tf32;
  if (!sint(a[PT_MATMUL_TF32], 0, 1, &tf32)) return bad("matmul", "tf32 flag", a[PT_MATMUL_TF32]);
  mm->tf32 = (int)tf32;
  mm->batch = numel(mm->brank, mm->bshape);
  int64_t mn, total;
  if (__builtin_mul_overflow(mm->M, mm->N, &mn) || __builtin_mul_overflow(mn, mm->batch, &total) || total > (int64_t)SLOT_MAX)
    return pt_error(PT_EINVAL, "matmul: %lld x (%lld x %lld) outputs is too many", (long long)mm->batch, (long long)mm->M, (long long)mm->N);
  *work = total;
  return PT_OK;
}

static const struct { const char *name; int shape; } kinds[PT_K_COUNT] = {
    [PT_K_EW] = {"ew", PT_SHAPE_ELEMENT},
    [PT_K_REDUCE] = {"reduce", PT_SHAPE_ROW},
    [PT_K_SCAN] = {"scan", PT_SHAPE_ROW},
    [PT_K_MATMUL] = {"matmul", PT_SHAPE_ELEMENT},
    [PT_K_SORT] = {"sort", PT_SHAPE_ROW},
    [PT_K_GATHER] = {"gather", PT_SHAPE_ELEMENT},
    [PT_K_SCATTER] = {"scatter", PT_SHAPE_SERIAL},
    [PT_K_INDEX_PUT] = {"index_put", PT_SHAPE_SERIAL},
    [PT_K_INDEX_GET] = {"index_get", PT_SHAPE_ELEMENT},
    [PT_K_NONZERO] = {"nonzero", PT_SHAPE_SERIAL},
    [PT_K_MASKED_SELECT] = {"masked_select", PT_SHAPE_SERIAL},
    [PT_K_PHILOX] = {"philox", PT_SHAPE_ELEMENT},
    [PT_K_EWREDUCE] = {"ewreduce", PT_SHAPE_ROW},
    [PT_K_ATTENTION] = {"attention", PT_SHAPE_ROW},
    [PT_K_ROWNORM] = {"rownorm", PT_SHAPE_ROW},
    [PT_K_IM2COL] = {"im2col", PT_SHAPE_ROW},
};

/* The VIEWs each kind's kernel reads and the buffers one launch may name (blocks.h). */
#define ANY_BUFS 0x7fffffff
static const struct { int views, bufs; } fixed[PT_K_COUNT] = {
    [PT_K_EW] = {0, ANY_BUFS}, /* the program's own: see pt_layout_make */
    [PT_K_REDUCE] = {2, 2},
    [PT_K_SCAN] = {2, 2},
    [PT_K_MATMUL] = {3, 3},
    [PT_K_SORT] = {3, 3},
    [PT_K_GATHER] = {3, 3},
    [PT_K_SCATTER] = {3, 3},
    [PT_K_INDEX_PUT] = {0, RANK + 2}, /* OUT, IDX x k (k <= 8, from the block), VALS */
    [PT_K_INDEX_GET] = {0, RANK + 2},
    [PT_K_NONZERO] = {1, 2}, /* IN VIEW and the OUT buffer */
    [PT_K_MASKED_SELECT] = {3, 3},
    [PT_K_PHILOX] = {1, 1},
    [PT_K_EWREDUCE] = {0, ANY_BUFS}, /* like ew: the program's own */
    [PT_K_ATTENTION] = {5, 5},
    [PT_K_ROWNORM] = {4, 4},
    [PT_K_IM2COL] = {2, 2},
};
#define EW_MAGIC 0x50540001
#define EW_MAX_DECLARED (1 << 20) /* more inputs than any block can hold: left to the driver to refuse */

int pt_layout_make(int kind, int32_t views, const uint8_t *src, size_t len, pt_layout *out) {
  *out = (pt_layout){PT_BLOCK_ABI, kind, 0, ANY_BUFS};
  if (kind < 0 || kind >= PT_K_COUNT) return PT_OK; /* the driver names the unknown kind */
  if (views < 0) return pt_error(PT_EINVAL, "a %s program declared %d views", kinds[kind].name, views);
  int ew_like = kind == PT_K_EW || kind == PT_K_EWREDUCE;
  if (!ew_like) {
    if (views != 0 && views != fixed[kind].views)
      return pt_error(PT_EINVAL, "a %s program declared %d views; its block has %s%d (blocks.h)", kinds[kind].name, views,
                      fixed[kind].views ? "" : "k + ", fixed[kind].views ? fixed[kind].views : 2);
    out->views = fixed[kind].views;
    out->bufs = fixed[kind].bufs;
    return PT_OK;
  }
  int32_t w[2];
  int from_src = 0;
  if (src && len >= 16) {
    memcpy(w, src, sizeof w);
    if (w[0] == EW_MAGIC && w[1] >= 0 && w[1] <= EW_MAX_DECLARED) from_src = w[1] + 1;
  }
  if (views > 0 && from_src > 0 && views != from_src)
    return pt_error(PT_EINVAL, "an %s program declared %d views (%d inputs + output) but its bytecode has %d input%s",
                    kinds[kind].name, views, views - 1, from_src - 1, from_src == 2 ? "" : "s");
  out->views = views > 0 ? views : from_src;
  if (out->views > 0) out->bufs = out->views;
  return PT_OK;
}

int pt_layout_same(const pt_layout *a, const pt_layout *b) {
  return a->abi == b->abi && a->kind == b->kind && a->views == b->views && a->bufs == b->bufs;
}

const char *pt_layout_text(const pt_layout *l, char *buf, size_t cap) {
  const char *name = pt_program_kind_name(l->kind);
  char views[64], bufs[32];
  if ((l->kind == PT_K_EW || l->kind == PT_K_EWREDUCE) && l->views > 0)
    snprintf(views, sizeof views, "%d input%s + output = %d views", l->views - 1, l->views == 2 ? "" : "s", l->views);
  else if (l->kind == PT_K_INDEX_PUT || l->kind == PT_K_INDEX_GET) snprintf(views, sizeof views, "k + 2 views");
  else if (l->views > 0) snprintf(views, sizeof views, "%d view%s", l->views, l->views == 1 ? "" : "s");
  else snprintf(views, sizeof views, "views undeclared");
  if (l->bufs == ANY_BUFS) snprintf(bufs, sizeof bufs, "any buffers");
  else snprintf(bufs, sizeof bufs, "up to %d buffer%s", l->bufs, l->bufs == 1 ? "" : "s");
  snprintf(buf, cap, "%s (%s, %s; block ABI %d)", name, views, bufs, l->abi);
  return buf;
}

int pt_program_kind(const char *name) {
  for (int k = 0; k < PT_K_COUNT; k++)
    if (strcmp(name, kinds[k].name) == 0) return k;
  return -1;
}

int pt_program_source(const char *tag, const char *kind, const uint8_t *src, size_t srclen, const char *needs, int empty_ok,
                      int *k, char **text, size_t *len) {
  *k = pt_program_kind(kind);
  if (*k < 0)
    return pt_error(PT_EINVAL, "%s: unknown program kind \"%s\" (expected ew, reduce, scan, matmul, sort, gather, scatter, "
                    "index_put, index_get, nonzero, masked_select, philox, ewreduce, attention, rownorm or im2col)", tag, kind);
  if (srclen > 0 && src[srclen - 1] == 0) srclen--; /* renderers may NUL-terminate their text */
  if (srclen == 0 && *k != empty_ok) return pt_error(PT_EINVAL, "%s: a %s program needs %s; got none", tag, kind, needs);
  if (srclen > 0 && memchr(src, 0, srclen)) return pt_error(PT_EINVAL, "%s: the %s program's source contains a NUL byte", tag, kind);
  if (!(*text = malloc(srclen + 1))) return pt_error(PT_EOOM, "%s: out of host memory for a program", tag);
  if (srclen > 0) memcpy(*text, src, srclen);
  (*text)[srclen] = 0;
  *len = srclen;
  return PT_OK;
}

const char *pt_program_kind_name(int kind) { return kind >= 0 && kind < PT_K_COUNT ? kinds[kind].name : "?"; }
int pt_program_kind_shape(int kind) { return kind >= 0 && kind < PT_K_COUNT ? kinds[kind].shape : PT_SHAPE_SERIAL; }

/* The buffer index of each written view (after the check has validated them). */
static uint32_t written(int kind, const double *a) {
#define BUF(view) (1u << (int)a[(view) + PT_VIEW_BUF])
  switch (kind) {
  case PT_K_EW: return BUF(PT_EW_VIEWS);
  case PT_K_REDUCE: return BUF(PT_REDUCE_OUT);
  case PT_K_SCAN: return BUF(PT_SCAN_OUT);
  case PT_K_SORT: return BUF(PT_SORT_VALS) | BUF(PT_SORT_IDX);
  case PT_K_MATMUL: return BUF(PT_MATMUL_C);
  case PT_K_GATHER: return BUF(PT_GATHER_OUT);
  case PT_K_SCATTER: return BUF(PT_SCATTER_OUT);
  case PT_K_INDEX_PUT: return BUF(PT_INDEX_OUT);
  case PT_K_INDEX_GET: return BUF(PT_INDEX_VALS((int)a[PT_INDEX_K]));
  case PT_K_NONZERO: return 1u << (int)a[PT_NONZERO_OUT];
  case PT_K_MASKED_SELECT: return BUF(PT_MASKED_SELECT_OUT);
  case PT_K_PHILOX: return BUF(PT_PHILOX_OUT);
  case PT_K_EWREDUCE: return BUF(PT_EWREDUCE_VIEWS);
  case PT_K_ATTENTION: return BUF(PT_ATTENTION_OUT);
  case PT_K_ROWNORM: return BUF(PT_ROWNORM_OUT);
  case PT_K_IM2COL: return BUF(PT_IM2COL_OUT);
  default: return 0;
  }
#undef BUF
}

static int check(int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work, pt_matmul_plan *mm) {
  pt_matmul_plan scratch;
  switch (kind) {
  case PT_K_EW: return ew_block(bufs, nbuf, a, na, work);
  case PT_K_REDUCE: return reduce_block(bufs, nbuf, a, na, work);
  case PT_K_SCAN: return axis_rows("scan", bufs, nbuf, a, na, 2, work);
  case PT_K_SORT: return axis_rows("sort", bufs, nbuf, a, na, 3, work);
  case PT_K_MATMUL: return matmul_block(bufs, nbuf, a, na, work, mm ? mm : &scratch);
  case PT_K_GATHER: return axis_block(0, bufs, nbuf, a, na, work);
  case PT_K_SCATTER: return axis_block(1, bufs, nbuf, a, na, work);
  case PT_K_INDEX_PUT: return index_block(0, bufs, nbuf, a, na, work);
  case PT_K_INDEX_GET: return index_block(1, bufs, nbuf, a, na, work);
  case PT_K_NONZERO: return compact_block(0, bufs, nbuf, a, na, work);
  case PT_K_MASKED_SELECT: return compact_block(1, bufs, nbuf, a, na, work);
  case PT_K_PHILOX: return philox_block(bufs, nbuf, a, na, work);
  case PT_K_EWREDUCE: return ewreduce_block(bufs, nbuf, a, na, work);
  case PT_K_ATTENTION: return attention_block(bufs, nbuf, a, na, work);
  case PT_K_ROWNORM: return rownorm_block(bufs, nbuf, a, na, work);
  case PT_K_IM2COL: return im2col_block(bufs, nbuf, a, na, work);
  default: return pt_error(PT_EINVAL, "corrupt program (kind %d)", kind);
  }
}

int pt_block_check(int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work,
                   pt_matmul_plan *mm, uint32_t *writes) {
  *work = 0;
  if (writes) *writes = 0;
  if (nbuf > 32) return pt_error(PT_EINVAL, "%s: %d buffers in one launch; at most 32", pt_program_kind_name(kind), nbuf);
  int st = check(kind, bufs, nbuf, a, na, work, mm);
  if (st == PT_OK && writes) *writes = written(kind, a);
  return st;
}

/* Which kinds can write each code: with the kinds launched since the last report, this
 * names the culprit (the block itself does not say who wrote it). */
static uint32_t writers(long long code) {
  switch (code) {
  case PT_KERR_INDEX: return 1u << PT_K_GATHER | 1u << PT_K_SCATTER | 1u << PT_K_INDEX_PUT | 1u << PT_K_INDEX_GET;
  case PT_KERR_INT_DIV: return 1u << PT_K_EW;
  case PT_KERR_COUNT: return 1u << PT_K_NONZERO | 1u << PT_K_MASKED_SELECT;
  default: return 0;
  }
}

int pt_kernel_error(long long code, const long long d[3], uint32_t kinds_launched, const char *where) {
  uint32_t who = kinds_launched & writers(code);
  if (!who) who = kinds_launched;
  char names[160] = "";
  size_t len = 0;
  for (int k = 0; k < PT_K_COUNT && len < 112; k++)
    if (who & (1u << k)) len += (size_t)snprintf(names + len, 112 - len, "%s%s", len ? " or " : "", pt_program_kind_name(k));
  if (!len) len = (size_t)snprintf(names, sizeof names, "a kernel");
  if (where && len < sizeof names) snprintf(names + len, sizeof names - len, " on %s", where);
  switch (code) {
  case PT_KERR_INDEX:
    return pt_error(PT_EKERNEL, "%s: index %lld is out of range for axis %lld of size %lld", names, d[0], d[1], d[2]);
  case PT_KERR_INT_DIV:
    return pt_error(PT_EKERNEL, "%s: integer %s by zero at element %lld", names, d[1] ? "modulo" : "division", d[0]);
  case PT_KERR_COUNT:
    return pt_error(PT_EKERNEL, "%s: found %lld nonzero elements but the output was sized for %lld", names, d[1], d[0]);
  default:
    return pt_error(PT_EKERNEL, "%s: kernel error code %lld (details %lld, %lld, %lld)", names, code, d[0], d[1], d[2]);
  }
}
