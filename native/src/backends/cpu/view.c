/* view.c: parsing and bounds-checking of VIEW slots (see view.h, kernels.h).
 *
 * Argument blocks come straight from callers, so every slot may be NaN, fractional or
 * huge. Each is checked to be an integer of bounded size before it becomes an int64, and
 * the offset arithmetic uses overflow-checked builtins, so a hostile block ends in
 * PT_EINVAL and never in an out-of-bounds pointer.
 */
#include "view.h"

/* 2^53: the largest range in which a double holds every integer exactly. */
#define PT_SLOT_MAX 9007199254740992.0

static int slot_int(double d, int64_t *out) {
  if (!(d >= -PT_SLOT_MAX && d <= PT_SLOT_MAX) || d != floor(d)) return 0;
  *out = (int64_t)d;
  return 1;
}

int cpu_shape_parse(const double *a, int rank, int64_t *shape, const char *what) {
  if (!what) what = "shape";
  if (rank < 0 || rank > PT_MAX_RANK) return pt_error(PT_EINVAL, "%s: rank %d is outside [0, %d]", what, rank, PT_MAX_RANK);
  if (rank > 0 && !a) return pt_error(PT_EINVAL, "%s: missing shape slots", what);
  int64_t total = 1;
  int empty = 0;
  for (int i = 0; i < PT_MAX_RANK; i++) shape[i] = 1;
  for (int i = 0; i < rank; i++) {
    if (!slot_int(a[i], &shape[i]) || shape[i] < 0)
      return pt_error(PT_EINVAL, "%s: dim %d is %g, not an integer >= 0", what, i, a[i]);
    if (shape[i] == 0) empty = 1;
    else if (!empty && __builtin_mul_overflow(total, shape[i], &total)) total = INT64_MAX;
  }
  /* An empty shape touches nothing; otherwise its element count must stay exact. */
  if (!empty && total > (int64_t)PT_SLOT_MAX)
    return pt_error(PT_EINVAL, "%s: %d dims hold more than 2^53 elements", what, rank);
  return PT_OK;
}

int64_t cpu_numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (shape[i] <= 0) return 0;
    if (__builtin_mul_overflow(n, shape[i], &n)) return INT64_MAX;
  }
  return n;
}

/* Widens [lo, hi] by dim's reach; returns 0 on overflow. */
static int reach(int64_t dim, int64_t stride, int64_t *lo, int64_t *hi) {
  int64_t span;
  if (__builtin_mul_overflow(stride, dim - 1, &span)) return 0;
  if (span < 0) return !__builtin_add_overflow(*lo, span, lo);
  return !__builtin_add_overflow(*hi, span, hi);
}

int cpu_view_parse(const pt_mem_ref *bufs, int nbuf, const double *a, int rank, const int64_t *shape,
                   int extra_rank, const int64_t *extra_shape, const int64_t *extra_stride,
                   const char *what, cpu_view *v) {
  if (!what) what = "view";
  if (!a || !v) return pt_error(PT_EINVAL, "%s: missing view slots", what);
  if (rank < 0 || rank > PT_MAX_RANK || extra_rank < 0 || extra_rank > PT_MAX_RANK)
    return pt_error(PT_EINVAL, "%s: rank %d (+%d extra) is outside [0, %d]", what, rank, extra_rank, PT_MAX_RANK);
  if ((rank > 0 && !shape) || (extra_rank > 0 && (!extra_shape || !extra_stride)))
    return pt_error(PT_EINVAL, "%s: missing shape", what);
  int64_t bi, dt;
  if (!slot_int(a[PT_VIEW_BUF], &bi) || bi < 0 || bi >= nbuf || !bufs)
    return pt_error(PT_EINVAL, "%s: buffer index %g is outside [0, %d)", what, a[PT_VIEW_BUF], nbuf);
  if (!slot_int(a[PT_VIEW_DTYPE], &dt) || dt < 0 || dt >= PT_DTYPE_COUNT)
    return pt_error(PT_EINVAL, "%s: dtype %g is not a valid dtype", what, a[PT_VIEW_DTYPE]);
  memset(v, 0, sizeof *v);
  v->dtype = (int)dt;
  if (!slot_int(a[PT_VIEW_OFFSET], &v->offset)) return pt_error(PT_EINVAL, "%s: offset %g is not an integer", what, a[PT_VIEW_OFFSET]);
  for (int i = 0; i < PT_MAX_RANK; i++)
    if (!slot_int(a[PT_VIEW_STRIDES + i], &v->stride[i]))
      return pt_error(PT_EINVAL, "%s: stride %d is %g, not an integer", what, i, a[PT_VIEW_STRIDES + i]);

  const pt_mem_ref *b = &bufs[bi];
  v->base = (uint8_t *)b->host;
  for (int i = 0; i < rank; i++)
    if (shape[i] <= 0) return PT_OK; /* empty: touches nothing */
  for (int i = 0; i < extra_rank; i++)
    if (extra_shape[i] <= 0) return PT_OK;

  int64_t lo = v->offset, hi = v->offset;
  int ok = 1;
  for (int i = 0; i < rank && ok; i++) ok = reach(shape[i], v->stride[i], &lo, &hi);
  for (int i = 0; i < extra_rank && ok; i++) ok = reach(extra_shape[i], extra_stride[i], &lo, &hi);
  int64_t elems = (int64_t)(b->bytes / (size_t)pt_dtype_size[dt]);
  if (!ok)
    return pt_error(PT_EINVAL, "%s: element offsets overflow (offset %lld, buffer %lld of %d holds %lld elements)",
                    what, (long long)v->offset, (long long)bi, nbuf, (long long)elems);
  if (lo < 0 || hi >= elems)
    return pt_error(PT_EINVAL, "%s: touches elements %lld..%lld but buffer %lld holds %lld elements (%llu bytes)",
                    what, (long long)lo, (long long)hi, (long long)bi, (long long)elems, (unsigned long long)b->bytes);
  if (!v->base) return pt_error(PT_EINVAL, "%s: buffer %lld is not host-addressable", what, (long long)bi);
  return PT_OK;
}
