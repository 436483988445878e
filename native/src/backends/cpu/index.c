/* index.c: gather, scatter, index_put / index_get, nonzero and masked_select (kernels.h).
 *
 * Every block is parsed and every view bounds-checked before memory is touched, and in
 * error mode every index is checked before the first write, so a failed scatter or
 * index_put leaves its output untouched. Writes that may collide (scatter, index_put) run
 * on one thread in row-major order, which is what makes "last writer wins" and float
 * accumulation independent of the thread count. Reads (gather, index_get) run on the
 * pool; nonzero and masked_select count per block, then write from each block's prefix.
 */
#include "kernels.h"
#include "pool.h"
#include "view.h"

#define GRAIN 16384
#define MAX_BLOCKS 256
#define ITER_VIEWS (PT_MAX_RANK + 1)
#define SLOT_MAX 9007199254740992.0 /* 2^53: doubles hold integers exactly up to here */

static int slot(const double *a, int i, double lo, double hi, int64_t *out) {
  double d = a[i];
  if (!(d >= lo && d <= hi) || d != floor(d)) return 0;
  *out = (int64_t)d;
  return 1;
}

static int bad_slot(const char *op, const char *name, double v) {
  return pt_error(PT_EINVAL, "%s: %s %g is invalid in the argument block", op, name, v);
}

static int rank_shape(const char *op, const double *a, int at, int *rank, int64_t *shape) {
  int64_t x;
  if (!slot(a, at, 0, PT_MAX_RANK, &x)) return bad_slot(op, "rank", a[at]);
  *rank = (int)x;
  return cpu_shape_parse(a + at + 1, *rank, shape, op);
}

/* ---- row-major iteration over a shape, carrying one element offset per view ---- */

typedef struct {
  int rank, nv;
  int64_t shape[PT_MAX_RANK], pos[PT_MAX_RANK];
  int64_t stride[ITER_VIEWS][PT_MAX_RANK];
  int64_t off[ITER_VIEWS];
  int64_t step[ITER_VIEWS]; /* innermost stride: hot loops walk a row with it */
} iter;

static void it_init(iter *it, int rank, const int64_t *shape) {
  memset(it, 0, sizeof *it);
  it->rank = rank;
  for (int d = 0; d < rank; d++) it->shape[d] = shape[d];
}

static void it_add(iter *it, const int64_t *stride) {
  for (int d = 0; d < it->rank; d++) it->stride[it->nv][d] = stride[d];
  it->step[it->nv] = it->rank > 0 ? stride[it->rank - 1] : 0;
  it->nv++;
}

/* Only called on nonempty shapes, so no dim is 0. */
static void it_seek(iter *it, int64_t lin) {
  for (int v = 0; v < it->nv; v++) it->off[v] = 0;
  for (int d = it->rank - 1; d >= 0; d--) {
    it->pos[d] = lin % it->shape[d];
    lin /= it->shape[d];
    for (int v = 0; v < it->nv; v++) it->off[v] += it->pos[d] * it->stride[v][d];
  }
}

/* Advances cnt elements, at most to the end of the current row. Stepping past the last
 * element wraps back to the first, which index_put relies on. */
static void it_skip(iter *it, int64_t cnt) {
  for (int d = it->rank - 1; d >= 0; d--, cnt = 1) {
    for (int v = 0; v < it->nv; v++) it->off[v] += cnt * it->stride[v][d];
    if ((it->pos[d] += cnt) < it->shape[d]) return;
    for (int v = 0; v < it->nv; v++) it->off[v] -= it->stride[v][d] * it->shape[d];
    it->pos[d] = 0;
  }
}

/* How many of the next `left` elements lie in the current innermost row. */
static int64_t it_run(const iter *it, int64_t left) {
  if (it->rank == 0) return left;
  int64_t r = it->shape[it->rank - 1] - it->pos[it->rank - 1];
  return r < left ? r : left;
}

/* ---- elements ---- */

static void convert_elem(uint8_t *d, int ddt, const uint8_t *s, int sdt) {
  if (pt_is_float(sdt)) pt_store_f64(d, ddt, pt_load_f64(s, sdt));
  else pt_store_i64(d, ddt, pt_load_i64(s, sdt));
}

/* Forced inline: a call per element costs more than the copy itself in the row loops,
 * where the dtype tests are predictable. */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

HOT void copy_elem(uint8_t *d, int ddt, const uint8_t *s, int sdt) {
  if (ddt != sdt) convert_elem(d, ddt, s, sdt);
  else if (pt_dtype_size[ddt] == 4) memcpy(d, s, 4);
  else if (pt_dtype_size[ddt] == 8) memcpy(d, s, 8);
  else if (pt_dtype_size[ddt] == 2) memcpy(d, s, 2);
  else *d = *s;
}

/* reduce: 0 set 1 add 2 max 3 min. Floats combine in double (exact for an f32 sum, then
 * one rounding); ints in int64 with two's-complement wrap, so i64 never loses bits. */
static void combine(uint8_t *d, int ddt, const uint8_t *s, int sdt, int reduce) {
  if (reduce == 0) { copy_elem(d, ddt, s, sdt); return; }
  if (pt_is_float(ddt)) {
    double x = pt_load_f64(d, ddt), y = pt_load_f64(s, sdt), r;
    if (reduce == 1) r = x + y;
    else if (x != x || y != y) r = x != x ? x : y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_store_f64(d, ddt, r);
  } else {
    int64_t x = pt_load_i64(d, ddt), y = pt_load_i64(s, sdt), r;
    if (reduce == 1) r = (int64_t)((uint64_t)x + (uint64_t)y);
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_store_i64(d, ddt, r);
  }
}

HOT int is_nonzero(const uint8_t *p, int dt) {
  switch (dt) {
  case PT_F32: { float v; memcpy(&v, p, 4); return v != 0; } /* NaN != 0 */
  case PT_F64: { double v; memcpy(&v, p, 8); return v != 0; }
  case PT_F16: case PT_BF16: { uint16_t v; memcpy(&v, p, 2); return (v & 0x7fff) != 0; } /* -0 is zero */
  case PT_I16: { uint16_t v; memcpy(&v, p, 2); return v != 0; }
  case PT_I32: { uint32_t v; memcpy(&v, p, 4); return v != 0; }
  case PT_I64: { uint64_t v; memcpy(&v, p, 8); return v != 0; }
  default: return *p != 0;
  }
}

/* ---- indices ---- */

HOT int64_t load_index(const cpu_view *v, int64_t off) {
  int32_t x32;
  int64_t x64;
  if (v->dtype == PT_I32) return memcpy(&x32, PT_ELEM(v, off), 4), x32;
  return memcpy(&x64, PT_ELEM(v, off), 8), x64;
}

/* size > 0. Mode 1 clamps the raw value (-1 -> 0, not size-1); mode 2 is Python's %.
 * Returns -1 only in mode 0, for a value outside [-size, size). */
HOT int64_t norm_index(int64_t v, int64_t size, int mode) {
  if (mode == 0) return v < -size || v >= size ? -1 : v < 0 ? v + size : v;
  if (mode == 1) return v < 0 ? 0 : v >= size ? size - 1 : v;
  int64_t r = v % size;
  return r < 0 ? r + size : r;
}

static int index_dtype_ok(const char *op, const cpu_view *v) {
  if (v->dtype == PT_I32 || v->dtype == PT_I64) return PT_OK;
  return pt_error(PT_EINVAL, "%s: index dtype %d is not int32 or int64", op, v->dtype);
}

static int range_error(const char *op, int64_t value, int axis, int64_t size) {
  return pt_error(PT_EKERNEL, "%s: index %lld is out of range for axis %d of size %lld", op,
                  (long long)value, axis, (long long)size);
}

/* Fixed blocks (not the pool's chunks) so that per-block results have a known home and
 * a deterministic order: the first bad index reported, each block's output prefix. */
typedef void (*block_fn)(void *ctx, int blk, int64_t begin, int64_t end);
typedef struct { block_fn fn; void *ctx; int64_t n, nb; } blocks;

static void blocks_range(void *p, size_t b0, size_t b1) {
  const blocks *b = p;
  for (size_t k = b0; k < b1; k++)
    b->fn(b->ctx, (int)k, b->n * (int64_t)k / b->nb, b->n * (int64_t)(k + 1) / b->nb);
}

static int run_blocks(int64_t n, block_fn fn, void *ctx) {
  int64_t nb = (n + GRAIN - 1) / GRAIN;
  if (nb < 1) nb = 1;
  if (nb > MAX_BLOCKS) nb = MAX_BLOCKS;
  blocks b = {fn, ctx, n, nb};
  cpu_parallel_for((size_t)nb, 1, blocks_range, &b);
  return (int)nb;
}

typedef struct {
  iter it;
  const cpu_view *v;
  int64_t size;
  int64_t bad_at[MAX_BLOCKS], bad_val[MAX_BLOCKS];
} check_job;

static void check_block(void *p, int blk, int64_t begin, int64_t end) {
  check_job *j = p;
  iter it = j->it;
  j->bad_at[blk] = -1;
  it_seek(&it, begin);
  for (int64_t i = begin; i < end;) {
    int64_t n = it_run(&it, end - i), o = it.off[0];
    for (int64_t t = 0; t < n; t++, o += it.step[0]) {
      int64_t x = load_index(j->v, o);
      if (norm_index(x, j->size, 0) < 0) { j->bad_at[blk] = i + t; j->bad_val[blk] = x; return; }
    }
    it_skip(&it, n);
    i += n;
  }
}

/* Reports the first offending index in row-major order. A zero-size axis has no valid
 * index in any mode, so it fails whenever there is an index at all. */
static int check_indices(const char *op, const cpu_view *v, int rank, const int64_t *shape,
                         int64_t size, int mode, int axis) {
  int64_t n = cpu_numel(rank, shape);
  if (n == 0) return PT_OK;
  if (size == 0) return range_error(op, load_index(v, 0), axis, size);
  if (mode != 0) return PT_OK;
  check_job j = {.v = v, .size = size};
  it_init(&j.it, rank, shape);
  it_add(&j.it, v->stride);
  int nb = run_blocks(n, check_block, &j);
  for (int b = 0; b < nb; b++)
    if (j.bad_at[b] >= 0) return range_error(op, j.bad_val[b], axis, size);
  return PT_OK;
}

/* ---- gather / scatter: [rank, shape x8, axis, axis size, mode, (reduce), V0, IDX, V2] ---- */

typedef struct {
  int rank, axis, mode, reduce;
  int64_t shape[PT_MAX_RANK], size, n, astride;
  cpu_view v[3]; /* v[0] spans `size` along the axis (gather: IN, scatter: OUT); v[1] IDX */
  iter it;       /* over the index shape: v[0] with its axis stride zeroed, v[1], v[2] */
} axis_job;

static int axis_parse(axis_job *j, const char *op, const pt_mem_ref *bufs, int nbuf,
                      const double *a, int na, int has_reduce) {
  static const char *names[2][3] = {{"gather IN", "gather IDX", "gather OUT"},
                                    {"scatter OUT", "scatter IDX", "scatter SRC"}};
  /* scatter's block is gather's with reduce before its views (blocks.c asserts the shared slots) */
  int v0 = has_reduce ? PT_SCATTER_OUT : PT_GATHER_IN, need = has_reduce ? PT_SCATTER_SLOTS : PT_GATHER_SLOTS, st;
  int64_t x;
  if (!a || na < need) return pt_error(PT_EINVAL, "%s: argument block has %d slots, needs %d", op, na, need);
  if ((st = rank_shape(op, a, PT_GATHER_RANK, &j->rank, j->shape)) != PT_OK) return st;
  /* A 0-d index is treated as 1-d of one element, as PyTorch accepts dim 0 on scalars. */
  if (j->rank == 0) j->rank = 1;
  if (!slot(a, PT_GATHER_AXIS, 0, j->rank - 1, &x)) return bad_slot(op, "axis", a[PT_GATHER_AXIS]);
  j->axis = (int)x;
  if (!slot(a, PT_GATHER_SIZE, 0, SLOT_MAX, &j->size)) return bad_slot(op, "axis size", a[PT_GATHER_SIZE]);
  if (!slot(a, PT_GATHER_MODE, 0, 2, &x)) return bad_slot(op, "mode", a[PT_GATHER_MODE]);
  j->mode = (int)x;
  j->reduce = 0;
  if (has_reduce) {
    if (!slot(a, PT_SCATTER_REDUCE, 0, 3, &x)) return bad_slot(op, "reduce", a[PT_SCATTER_REDUCE]);
    j->reduce = (int)x;
  }
  int64_t vshape[PT_MAX_RANK];
  memcpy(vshape, j->shape, sizeof vshape);
  vshape[j->axis] = j->size;
  for (int i = 0; i < 3; i++) {
    st = cpu_view_parse(bufs, nbuf, a + v0 + i * PT_VIEW_SLOTS, j->rank, i == 0 ? vshape : j->shape, 0,
                        NULL, NULL, names[has_reduce][i], &j->v[i]);
    if (st != PT_OK) return st;
  }
  if ((st = index_dtype_ok(op, &j->v[1])) != PT_OK) return st;
  j->n = cpu_numel(j->rank, j->shape);
  j->astride = j->v[0].stride[j->axis];
  int64_t s0[PT_MAX_RANK];
  memcpy(s0, j->v[0].stride, sizeof s0);
  s0[j->axis] = 0;
  it_init(&j->it, j->rank, j->shape);
  it_add(&j->it, s0);
  it_add(&j->it, j->v[1].stride);
  it_add(&j->it, j->v[2].stride);
  return check_indices(op, &j->v[1], j->rank, j->shape, j->size, j->mode, j->axis);
}

static void gather_range(void *p, size_t begin, size_t end) {
  const axis_job *j = p;
  const cpu_view *in = &j->v[0], *idx = &j->v[1], *out = &j->v[2];
  iter it = j->it;
  it_seek(&it, (int64_t)begin);
  for (int64_t i = (int64_t)begin; i < (int64_t)end;) {
    int64_t n = it_run(&it, (int64_t)end - i), s = it.off[0], x = it.off[1], o = it.off[2];
    for (int64_t t = 0; t < n; t++, s += it.step[0], x += it.step[1], o += it.step[2]) {
      int64_t k = norm_index(load_index(idx, x), j->size, j->mode);
      copy_elem(PT_ELEM(out, o), out->dtype, PT_ELEM(in, s + k * j->astride), in->dtype);
    }
    it_skip(&it, n);
    i += n;
  }
}

int cpu_gather(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  axis_job j;
  int st = axis_parse(&j, "gather", bufs, nbuf, a, na, 0);
  if (st != PT_OK || j.n == 0) return st;
  cpu_parallel_for((size_t)j.n, GRAIN, gather_range, &j);
  return PT_OK;
}

int cpu_scatter(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  axis_job j;
  int st = axis_parse(&j, "scatter", bufs, nbuf, a, na, 1);
  if (st != PT_OK || j.n == 0) return st;
  const cpu_view *out = &j.v[0], *idx = &j.v[1], *src = &j.v[2];
  iter it = j.it;
  for (int64_t i = 0; i < j.n;) {
    int64_t n = it_run(&it, j.n - i), o = it.off[0], x = it.off[1], s = it.off[2];
    for (int64_t t = 0; t < n; t++, o += it.step[0], x += it.step[1], s += it.step[2]) {
      int64_t k = norm_index(load_index(idx, x), j.size, j.mode);
      combine(PT_ELEM(out, o + k * j.astride), out->dtype, PT_ELEM(src, s), src->dtype, j.reduce);
    }
    it_skip(&it, n);
    i += n;
  }
  return PT_OK;
}

/* ---- index_put / index_get ---- */

typedef struct {
  int k, get, acc, mode;
  int64_t nb, nr, dims[PT_MAX_RANK];
  cpu_view out, vals, idx[PT_MAX_RANK];
  iter bit; /* over bshape: idx[0..k-1], then vals' b strides */
  iter rit; /* over rshape: out's rest strides, vals' rest strides */
} ip_job;

static int rest_strides(const char *op, const double *a, int at, int64_t *stride) {
  for (int i = 0; i < PT_MAX_RANK; i++)
    if (!slot(a, at + i, -SLOT_MAX, SLOT_MAX, &stride[i])) return bad_slot(op, "rest stride", a[at + i]);
  return PT_OK;
}

static int64_t ip_base(const ip_job *j, const iter *bit) {
  int64_t off = 0;
  for (int q = 0; q < j->k; q++)
    off += norm_index(load_index(&j->idx[q], bit->off[q]), j->dims[q], j->mode) * j->out.stride[q];
  return off;
}

/* [begin, end) of the row-major (b, r) space; index_put runs it whole on one thread. */
static void ip_range(void *p, size_t begin, size_t end) {
  const ip_job *j = p;
  iter bit = j->bit, rit = j->rit;
  int64_t r = (int64_t)begin % j->nr;
  it_seek(&bit, (int64_t)begin / j->nr);
  it_seek(&rit, r);
  int64_t base = ip_base(j, &bit);
  for (size_t i = begin; i < end; i++) {
    uint8_t *o = PT_ELEM(&j->out, base + rit.off[0]), *v = PT_ELEM(&j->vals, bit.off[j->k] + rit.off[1]);
    if (j->get) copy_elem(v, j->vals.dtype, o, j->out.dtype);
    else combine(o, j->out.dtype, v, j->vals.dtype, j->acc);
    it_skip(&rit, 1);
    if (++r == j->nr && i + 1 < end) {
      r = 0;
      it_skip(&bit, 1);
      base = ip_base(j, &bit);
    }
  }
}

int cpu_index_put(const pt_mem_ref *bufs, int nbuf, const double *a, int na, int get) {
  static const char *names[2][3] = {{"index_put OUT", "index_put VALS", "index_put IDX"},
                                    {"index_get OUT", "index_get VALS", "index_get IDX"}};
  const char *op = get ? "index_get" : "index_put", **name = names[get != 0];
  ip_job j;
  int64_t x, bshape[PT_MAX_RANK], rshape[PT_MAX_RANK], ostr[PT_MAX_RANK], vstr[PT_MAX_RANK];
  int st, brank, rrank;
  if (!a || na < 1) return pt_error(PT_EINVAL, "%s: empty argument block", op);
  if (!slot(a, PT_INDEX_K, 1, PT_MAX_RANK, &x)) return bad_slot(op, "k", a[PT_INDEX_K]);
  j.k = (int)x;
  int vals_at = PT_INDEX_VALS(j.k), need = PT_INDEX_SLOTS(j.k);
  if (na < need) return pt_error(PT_EINVAL, "%s: argument block has %d slots, needs %d", op, na, need);
  if ((st = rank_shape(op, a, PT_INDEX_BRANK, &brank, bshape)) != PT_OK || (st = rank_shape(op, a, PT_INDEX_RRANK, &rrank, rshape)) != PT_OK)
    return st;
  if (!slot(a, PT_INDEX_MODE, 0, 2, &x)) return bad_slot(op, "mode", a[PT_INDEX_MODE]);
  j.mode = (int)x;
  if (!slot(a, PT_INDEX_ACCUMULATE, 0, 1, &x)) return bad_slot(op, "accumulate", a[PT_INDEX_ACCUMULATE]);
  j.acc = get ? 0 : (int)x; /* combine()'s reduce: 0 set, 1 add */
  j.get = get;
  if ((st = cpu_shape_parse(a + PT_INDEX_DIMS, j.k, j.dims, op)) != PT_OK) return st;
  if ((st = rest_strides(op, a, PT_INDEX_OUT_REST, ostr)) != PT_OK || (st = rest_strides(op, a, PT_INDEX_VALS_REST(j.k), vstr)) != PT_OK)
    return st;
  if ((st = cpu_view_parse(bufs, nbuf, a + PT_INDEX_OUT, j.k, j.dims, rrank, rshape, ostr, name[0], &j.out)) != PT_OK ||
      (st = cpu_view_parse(bufs, nbuf, a + vals_at, brank, bshape, rrank, rshape, vstr, name[1], &j.vals)) != PT_OK)
    return st;
  for (int q = 0; q < j.k; q++) {
    st = cpu_view_parse(bufs, nbuf, a + PT_INDEX_IDX + q * PT_VIEW_SLOTS, brank, bshape, 0, NULL, NULL, name[2], &j.idx[q]);
    if (st != PT_OK || (st = index_dtype_ok(op, &j.idx[q])) != PT_OK) return st;
  }
  j.nb = cpu_numel(brank, bshape);
  j.nr = cpu_numel(rrank, rshape);
  if (j.nb > 0 && j.nr > (int64_t)SLOT_MAX / j.nb)
    return pt_error(PT_EINVAL, "%s: %lld x %lld elements is more than 2^53", op, (long long)j.nb, (long long)j.nr);
  for (int q = 0; q < j.k; q++)
    if ((st = check_indices(op, &j.idx[q], brank, bshape, j.dims[q], j.mode, q)) != PT_OK) return st;
  if (j.nb == 0 || j.nr == 0) return PT_OK;

  it_init(&j.bit, brank, bshape);
  for (int q = 0; q < j.k; q++) it_add(&j.bit, j.idx[q].stride);
  it_add(&j.bit, j.vals.stride);
  it_init(&j.rit, rrank, rshape);
  it_add(&j.rit, ostr);
  it_add(&j.rit, vstr);
  if (get) cpu_parallel_for((size_t)(j.nb * j.nr), GRAIN, ip_range, &j);
  else ip_range(&j, 0, (size_t)(j.nb * j.nr));
  return PT_OK;
}

/* ---- nonzero / masked_select: count per block, check the total, write from prefixes ---- */

typedef struct {
  iter it;                 /* views: the tested one, then (masked_select) IN */
  const cpu_view *test, *in, *out; /* in, out: masked_select only */
  int64_t *coords;         /* nonzero only: int64 [count, rank] */
  int nonzero, rank, writing;
  int64_t count[MAX_BLOCKS], start[MAX_BLOCKS];
} compact_job;

static void compact_block(void *p, int blk, int64_t begin, int64_t end) {
  compact_job *j = p;
  iter it = j->it;
  int64_t row = j->writing ? j->start[blk] : 0;
  it_seek(&it, begin);
  for (int64_t i = begin; i < end;) {
    int64_t n = it_run(&it, end - i), m = it.off[0], s = it.off[1];
    for (int64_t t = 0; t < n; t++, m += it.step[0], s += it.step[1]) {
      if (!is_nonzero(PT_ELEM(j->test, m), j->test->dtype)) continue;
      if (!j->writing) {
      } else if (!j->nonzero) {
        copy_elem(PT_ELEM(j->out, row * j->out->stride[0]), j->out->dtype, PT_ELEM(j->in, s), j->in->dtype);
      } else if (j->rank > 0) {
        memcpy(j->coords + row * j->rank, it.pos, (size_t)j->rank * sizeof(int64_t));
        j->coords[row * j->rank + j->rank - 1] += t;
      }
      row++;
    }
    it_skip(&it, n);
    i += n;
  }
  if (!j->writing) j->count[blk] = row;
}

static int compact(const char *op, compact_job *j, int64_t n, int64_t want) {
  j->writing = 0;
  int nb = n > 0 ? run_blocks(n, compact_block, j) : 0;
  int64_t total = 0;
  for (int b = 0; b < nb; b++) { j->start[b] = total; total += j->count[b]; }
  if (total != want)
    return pt_error(PT_EKERNEL, "%s: found %lld nonzero elements but the output was sized for %lld", op,
                    (long long)total, (long long)want);
  j->writing = 1;
  if (total > 0) run_blocks(n, compact_block, j);
  return PT_OK;
}

int cpu_nonzero(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  const char *op = "nonzero";
  int64_t shape[PT_MAX_RANK], ob, count;
  cpu_view in;
  int st, rank;
  if (!a || na < PT_NONZERO_SLOTS) return pt_error(PT_EINVAL, "%s: argument block has %d slots, needs %d", op, na, PT_NONZERO_SLOTS);
  if ((st = rank_shape(op, a, PT_NONZERO_RANK, &rank, shape)) != PT_OK) return st;
  if ((st = cpu_view_parse(bufs, nbuf, a + PT_NONZERO_IN, rank, shape, 0, NULL, NULL, "nonzero IN", &in)) != PT_OK) return st;
  if (!slot(a, PT_NONZERO_OUT, 0, nbuf - 1, &ob) || !bufs) return bad_slot(op, "OUT buffer", a[PT_NONZERO_OUT]);
  if (!slot(a, PT_NONZERO_COUNT, 0, SLOT_MAX, &count)) return bad_slot(op, "count", a[PT_NONZERO_COUNT]);
  uint64_t bytes = (uint64_t)count * (uint64_t)rank * 8u;
  if (bytes > bufs[ob].bytes || (bytes > 0 && !bufs[ob].host))
    return pt_error(PT_EINVAL, "%s: OUT buffer %lld holds %llu bytes, needs %llu", op, (long long)ob,
                    (unsigned long long)bufs[ob].bytes, (unsigned long long)bytes);
  compact_job j = {.test = &in, .coords = (int64_t *)bufs[ob].host, .nonzero = 1, .rank = rank};
  it_init(&j.it, rank, shape);
  it_add(&j.it, in.stride);
  return compact(op, &j, cpu_numel(rank, shape), count);
}

int cpu_masked_select(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  const char *op = "masked_select";
  int64_t shape[PT_MAX_RANK], count;
  cpu_view in, mask, out;
  int st, rank;
  if (!a || na < PT_MASKED_SELECT_SLOTS)
    return pt_error(PT_EINVAL, "%s: argument block has %d slots, needs %d", op, na, PT_MASKED_SELECT_SLOTS);
  if ((st = rank_shape(op, a, PT_MASKED_SELECT_RANK, &rank, shape)) != PT_OK) return st;
  if (!slot(a, PT_MASKED_SELECT_COUNT, 0, SLOT_MAX, &count)) return bad_slot(op, "count", a[PT_MASKED_SELECT_COUNT]);
  if ((st = cpu_view_parse(bufs, nbuf, a + PT_MASKED_SELECT_IN, rank, shape, 0, NULL, NULL, "masked_select IN", &in)) != PT_OK ||
      (st = cpu_view_parse(bufs, nbuf, a + PT_MASKED_SELECT_MASK, rank, shape, 0, NULL, NULL, "masked_select MASK", &mask)) != PT_OK ||
      (st = cpu_view_parse(bufs, nbuf, a + PT_MASKED_SELECT_OUT, 1, &count, 0, NULL, NULL, "masked_select OUT", &out)) != PT_OK)
    return st;
  compact_job j = {.test = &mask, .in = &in, .out = &out, .rank = rank};
  it_init(&j.it, rank, shape);
  it_add(&j.it, mask.stride);
  it_add(&j.it, in.stride);
  return compact(op, &j, cpu_numel(rank, shape), count);
}
