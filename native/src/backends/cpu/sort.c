/* sort.c: the "sort" template, a stable sort of each row along one axis (see kernels.h).
 *
 * Each row is copied into scratch in its own dtype, and every value becomes an unsigned
 * key whose integer order is the wanted order: floats flip their sign bit (all bits when
 * negative), -0.0 becomes 0.0 so the two tie, and every NaN becomes one quiet NaN that
 * lands above +inf; descending just inverts the key. Keys of 32 bits or less carry their
 * position in the low half of a uint64 and go through an LSD radix sort on the key half
 * (stable, and about four times faster than merging once rows are a few hundred long);
 * 64-bit keys travel in (key, position) pairs through a merge sort that takes from the
 * right run only when strictly smaller. Both give exactly the stable order. Values are
 * then written by position from the scratch copy, so they keep their exact bits (NaN
 * payloads, -0.0).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include "kernels.h"
#include "pool.h"
#include "strided.h"

typedef struct { uint64_t k; int64_t i; } pair_t;

typedef struct {
  int desc, orank;
  int64_t oshape[PT_MAX_RANK], n, sa, va, ia;
  cpu_view in, vals, idx;
  atomic_int oom;
} job_t;

#define RUN 16
/* Bottom-up merge sort of a[0..n) using tmp; returns whichever of the two holds the result. */
#define MERGESORT(NAME, T, LESS)                                                        \
  static T *NAME(T *a, T *tmp, int64_t n) {                                             \
    for (int64_t lo = 0; lo < n; lo += RUN) {                                           \
      int64_t hi = lo + RUN < n ? lo + RUN : n;                                         \
      for (int64_t i = lo + 1; i < hi; i++) {                                           \
        T x = a[i];                                                                     \
        int64_t j = i;                                                                  \
        for (; j > lo && LESS(x, a[j - 1]); j--) a[j] = a[j - 1];                       \
        a[j] = x;                                                                       \
      }                                                                                 \
    }                                                                                   \
    T *src = a, *dst = tmp;                                                             \
    for (int64_t w = RUN; w < n; w *= 2) {                                              \
      for (int64_t lo = 0; lo < n; lo += 2 * w) {                                       \
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;    \
        int64_t i = lo, j = mid, k = lo;                                                \
        if (mid < hi && LESS(src[mid], src[mid - 1]))                                   \
          while (i < mid && j < hi) { /* branch-free: random keys mispredict half the time */ \
            T x = src[i], y = src[j];                                                   \
            int t = LESS(y, x);                                                         \
            dst[k++] = t ? y : x;                                                       \
            i += !t;                                                                    \
            j += t;                                                                     \
          }                                                                             \
        while (i < mid) dst[k++] = src[i++];                                            \
        while (j < hi) dst[k++] = src[j++];                                             \
      }                                                                                 \
      T *t = src; src = dst; dst = t;                                                   \
    }                                                                                   \
    return src;                                                                         \
  }
#define LESS_U64(x, y) ((x) < (y))
#define LESS_PAIR(x, y) ((x).k < (y).k)
MERGESORT(sort_u64, uint64_t, LESS_U64)
MERGESORT(sort_pair, pair_t, LESS_PAIR)

/* Stable LSD radix sort of a[0..n) by bits 32..63, a byte per pass; a pass whose byte
 * is the same in every item is skipped (small ints, f16 keys). */
static uint64_t *radix_u64(uint64_t *a, uint64_t *tmp, int64_t n) {
  uint32_t cnt[4][256];
  memset(cnt, 0, sizeof cnt);
  for (int64_t i = 0; i < n; i++) {
    uint32_t k = (uint32_t)(a[i] >> 32);
    cnt[0][k & 255]++;
    cnt[1][(k >> 8) & 255]++;
    cnt[2][(k >> 16) & 255]++;
    cnt[3][k >> 24]++;
  }
  uint64_t *src = a, *dst = tmp;
  for (int p = 0; p < 4; p++) {
    uint32_t sum = 0, *c = cnt[p];
    int same = 0;
    for (int b = 0; b < 256; b++) {
      uint32_t x = c[b];
      same |= x == (uint64_t)n;
      c[b] = sum;
      sum += x;
    }
    if (same) continue;
    for (int64_t i = 0; i < n; i++) {
      uint64_t v = src[i];
      dst[c[(v >> (32 + 8 * p)) & 255]++] = v;
    }
    uint64_t *t = src;
    src = dst;
    dst = t;
  }
  return src;
}

static inline uint32_t key_f32(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  else if ((b & 0x7fffffffu) == 0) b = 0;
  return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
static inline uint64_t key_f64(double f) {
  uint64_t b;
  memcpy(&b, &f, 8);
  const uint64_t sign = 0x8000000000000000ull, abs = b & ~sign;
  if (abs > 0x7ff0000000000000ull) b = 0x7ff8000000000000ull;
  else if (abs == 0) b = 0;
  return (b & sign) ? ~b : b | sign;
}

/* Small keys: (key << 32 | position), inverted key for descending. */
static void make_small(const job_t *j, const void *raw, uint64_t *out) {
  int64_t n = j->n;
  uint64_t flip = j->desc ? 0xffffffffull : 0;
  switch (j->in.dtype) {
  case PT_F32: { const float *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)(key_f32(r[i]) ^ flip) << 32 | (uint64_t)i; break; }
  case PT_I32: { const uint32_t *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)((r[i] ^ 0x80000000u) ^ flip) << 32 | (uint64_t)i; break; }
  case PT_F16: { const uint16_t *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)(key_f32(pt_f16_to_f32(r[i])) ^ flip) << 32 | (uint64_t)i; break; }
  case PT_BF16: { const uint16_t *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)(key_f32(pt_bf16_to_f32(r[i])) ^ flip) << 32 | (uint64_t)i; break; }
  case PT_I16: { const uint16_t *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)((r[i] ^ 0x8000u) ^ flip) << 32 | (uint64_t)i; break; }
  case PT_I8: { const uint8_t *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)((r[i] ^ 0x80u) ^ flip) << 32 | (uint64_t)i; break; }
  default: { const uint8_t *r = raw; for (int64_t i = 0; i < n; i++) out[i] = (uint64_t)(r[i] ^ flip) << 32 | (uint64_t)i; break; }
  }
}

static void make_pairs(const job_t *j, const void *raw, pair_t *out) {
  int64_t n = j->n;
  uint64_t flip = j->desc ? ~0ull : 0;
  if (j->in.dtype == PT_F64) {
    const double *r = raw;
    for (int64_t i = 0; i < n; i++) { out[i].k = key_f64(r[i]) ^ flip; out[i].i = i; }
  } else {
    const uint64_t *r = raw;
    for (int64_t i = 0; i < n; i++) { out[i].k = (r[i] ^ 0x8000000000000000ull) ^ flip; out[i].i = i; }
  }
}

/* vals[r] = raw[pos[r]], in the vals dtype; same dtype copies bits. */
static void put_vals(const job_t *j, const uint8_t *raw, const int64_t *pos, uint8_t *dst) {
  int idt = j->in.dtype, vdt = j->vals.dtype, esz = pt_dtype_size[idt], vsz = pt_dtype_size[vdt];
  int64_t n = j->n, s = j->va;
  if (idt == vdt) {
    switch (esz) {
    case 1: for (int64_t r = 0; r < n; r++) dst[r * s] = raw[pos[r]]; break;
    case 2: for (int64_t r = 0; r < n; r++) ((uint16_t *)dst)[r * s] = ((const uint16_t *)raw)[pos[r]]; break;
    case 4: for (int64_t r = 0; r < n; r++) ((uint32_t *)dst)[r * s] = ((const uint32_t *)raw)[pos[r]]; break;
    default: for (int64_t r = 0; r < n; r++) ((uint64_t *)dst)[r * s] = ((const uint64_t *)raw)[pos[r]]; break;
    }
  } else if (pt_is_float(idt)) {
    for (int64_t r = 0; r < n; r++) pt_store_f64(dst + r * s * vsz, vdt, pt_load_f64(raw + pos[r] * esz, idt));
  } else {
    for (int64_t r = 0; r < n; r++) pt_store_i64(dst + r * s * vsz, vdt, pt_load_i64(raw + pos[r] * esz, idt));
  }
}

static void sort_rows(void *ctx, size_t begin, size_t end) {
  job_t *j = ctx;
  int64_t n = j->n;
  int esz = pt_dtype_size[j->in.dtype], small = esz < 8;
  /* raw row (8 bytes each at most), two item arrays of 16 bytes, positions */
  uint8_t *mem = malloc((size_t)n * (8 + 16 + 16 + 8));
  if (!mem) { atomic_store(&j->oom, 1); return; }
  uint8_t *raw = mem;
  void *items = mem + n * 8, *tmp = mem + n * 24;
  int64_t *pos = (int64_t *)(mem + n * 40);
  for (size_t row = begin; row < end; row++) {
    int64_t o = (int64_t)row, io = 0, vo = 0, xo = 0;
    for (int d = j->orank - 1; d >= 0; d--) {
      int64_t q = o % j->oshape[d];
      o /= j->oshape[d];
      io += q * j->in.stride[d];
      vo += q * j->vals.stride[d];
      xo += q * j->idx.stride[d];
    }
    kgather_raw(PT_ELEM(&j->in, io), esz, j->sa, n, raw);
    if (small) {
      make_small(j, raw, items);
      const uint64_t *s = n >= 128 ? radix_u64(items, tmp, n) : sort_u64(items, tmp, n);
      for (int64_t r = 0; r < n; r++) pos[r] = (int64_t)(s[r] & 0xffffffffu);
    } else {
      make_pairs(j, raw, items);
      const pair_t *s = sort_pair(items, tmp, n);
      for (int64_t r = 0; r < n; r++) pos[r] = s[r].i;
    }
    int64_t *ix = (int64_t *)PT_ELEM(&j->idx, xo);
    for (int64_t r = 0; r < n; r++) ix[r * j->ia] = pos[r];
    put_vals(j, raw, pos, PT_ELEM(&j->vals, vo));
  }
  free(mem);
}

int cpu_sort(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  job_t j;
  int64_t v;
  int rc;
  memset(&j, 0, sizeof j);
  if (!a || na < PT_SORT_SLOTS) return pt_error(PT_EINVAL, "sort: argument block has %d slots, needs %d", na, PT_SORT_SLOTS);
  if (!kslot(a[PT_SORT_DESCENDING], 0, 1, &v)) return pt_error(PT_EINVAL, "sort: descending flag %g is not 0 or 1", a[PT_SORT_DESCENDING]);
  j.desc = (int)v;
  if (!kslot(a[PT_SORT_ORANK], 0, PT_MAX_RANK, &v)) return pt_error(PT_EINVAL, "sort: rank %g is not in [0, %d]", a[PT_SORT_ORANK], PT_MAX_RANK);
  j.orank = (int)v;
  if ((rc = cpu_shape_parse(a + PT_SORT_OSHAPE, j.orank, j.oshape, "sort: outer shape"))) return rc;
  /* Positions ride in 32 bits next to small keys. */
  if (!kslot(a[PT_SORT_N], 0, 0xffffffffLL, &j.n)) return pt_error(PT_EINVAL, "sort: axis length %g is not in [0, 2^32)", a[PT_SORT_N]);
  if (!kslot(a[PT_SORT_IN_STRIDE], KSLOT_ANY, &j.sa) || !kslot(a[PT_SORT_VALS_STRIDE], KSLOT_ANY, &j.va) || !kslot(a[PT_SORT_IDX_STRIDE], KSLOT_ANY, &j.ia))
    return pt_error(PT_EINVAL, "sort: axis strides %g, %g, %g are not integers", a[PT_SORT_IN_STRIDE], a[PT_SORT_VALS_STRIDE], a[PT_SORT_IDX_STRIDE]);
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_SORT_IN, j.orank, j.oshape, 1, &j.n, &j.sa, "sort: input", &j.in)) ||
      (rc = cpu_view_parse(bufs, nbuf, a + PT_SORT_VALS, j.orank, j.oshape, 1, &j.n, &j.va, "sort: values", &j.vals)) ||
      (rc = cpu_view_parse(bufs, nbuf, a + PT_SORT_IDX, j.orank, j.oshape, 1, &j.n, &j.ia, "sort: indices", &j.idx)))
    return rc;
  if (j.idx.dtype != PT_I64) return pt_error(PT_EINVAL, "sort: the indices view has dtype %d, not int64", j.idx.dtype);
  int64_t rows = cpu_numel(j.orank, j.oshape), total;
  if (rows == 0 || j.n == 0) return PT_OK;
  if (__builtin_mul_overflow(rows, j.n, &total)) /* stride-0 views can claim any size */
    return pt_error(PT_EINVAL, "sort: %lld rows of %lld is too many", (long long)rows, (long long)j.n);
  atomic_init(&j.oom, 0);
  cpu_parallel_for((size_t)rows, (size_t)(j.n >= 16384 ? 1 : 16384 / j.n), sort_rows, &j);
  if (atomic_load(&j.oom)) return pt_error(PT_EOOM, "sort: no memory for a row of %lld", (long long)j.n);
  return PT_OK;
}
