/* random.c: the "philox" kernel (kernels.h): counter-based random numbers.
 *
 * Element i depends only on (seed, offset + i), so a fill splits across threads freely
 * and any backend that implements the same mapping produces the same tensor. The
 * generator is Random123's Philox4x32-10, checked against its known-answer vectors.
 */
#include "kernels.h"
#include "pool.h"
#include "view.h"

/* a + u*(b-a) must round twice, as the formula says, not once as a fused multiply-add:
 * otherwise uniform's last bit depends on the compiler and the CPU. (GCC in ISO mode
 * does not contract; clang does unless told.) */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define GRAIN 8192
#define SLOT_MAX 9007199254740992.0 /* 2^53 */
#define TWO63 9223372036854775808.0

/* In place: ten rounds, the key bumped before each round but the first. */
static void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    if (r > 0) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0], p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = (uint32_t)p1;
    c[2] = n2;
    c[3] = (uint32_t)p0;
  }
}

enum { DIST_UNIFORM = 0, DIST_NORMAL = 1, DIST_RANDINT = 2 };

typedef struct {
  int dist, f64;
  uint32_t k0, k1;
  uint64_t offset, range; /* range = b - a for randint */
  int64_t lo;             /* a for randint */
  double a, b;
  cpu_view out;
} philox_job;

static void philox_range(void *p, size_t begin, size_t end) {
  const philox_job *j = p;
  const double two24 = 1.0 / 16777216.0, two53 = 1.0 / 9007199254740992.0, two_pi = 6.283185307179586476925;
  for (size_t i = begin; i < end; i++) {
    uint64_t c = j->offset + i;
    uint32_t w[4] = {(uint32_t)c, (uint32_t)(c >> 32), 0, 0};
    philox4x32_10(w, j->k0, j->k1);
    uint8_t *o = PT_ELEM(&j->out, (int64_t)i * j->out.stride[0]);
    if (j->dist == DIST_RANDINT) {
      uint64_t x = (uint64_t)w[1] << 32 | w[0];
      pt_store_i64(o, j->out.dtype, (int64_t)((uint64_t)j->lo + x % j->range));
    } else if (j->dist == DIST_UNIFORM) {
      double u = j->f64 ? ((double)(w[0] >> 5) * 67108864.0 + (double)(w[1] >> 6)) * two53
                        : (double)(w[0] >> 8) * two24;
      pt_store_f64(o, j->out.dtype, j->a + u * (j->b - j->a));
    } else {
      /* u1 in (0, 1] keeps the log finite. */
      double u1 = ((double)(w[0] >> 8) + 1.0) * two24, u2 = (double)(w[1] >> 8) * two24;
      pt_store_f64(o, j->out.dtype, j->a + j->b * (sqrt(-2.0 * log(u1)) * cos(two_pi * u2)));
    }
  }
}

static int bad(const char *name, double v) {
  return pt_error(PT_EINVAL, "philox: %s %g is invalid in the argument block", name, v);
}

/* [dist, seed lo, seed hi, offset, a, b, OUT VIEW, n] */
int cpu_philox(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  const int need = PT_PHILOX_SLOTS;
  if (!a || na < need) return pt_error(PT_EINVAL, "philox: argument block has %d slots, needs %d", na, need);
  philox_job j;
  double dist = a[PT_PHILOX_DIST], lo = a[PT_PHILOX_SEED_LO], hi = a[PT_PHILOX_SEED_HI], off = a[PT_PHILOX_OFFSET], n = a[PT_PHILOX_N];
  if (!(dist == 0 || dist == 1 || dist == 2)) return bad("dist", dist);
  if (!(lo >= 0 && lo <= 4294967295.0) || lo != floor(lo)) return bad("seed lo", lo);
  if (!(hi >= 0 && hi <= 4294967295.0) || hi != floor(hi)) return bad("seed hi", hi);
  if (!(off >= 0 && off <= SLOT_MAX) || off != floor(off)) return bad("offset", off);
  if (!(n >= 0 && n <= SLOT_MAX) || n != floor(n)) return bad("n", n);
  j.dist = (int)dist;
  j.k0 = (uint32_t)lo;
  j.k1 = (uint32_t)hi;
  j.offset = (uint64_t)off;
  j.a = a[PT_PHILOX_A];
  j.b = a[PT_PHILOX_B];
  int64_t count = (int64_t)n;
  int st = cpu_view_parse(bufs, nbuf, a + PT_PHILOX_OUT, 1, &count, 0, NULL, NULL, "philox OUT", &j.out);
  if (st != PT_OK) return st;
  j.f64 = j.out.dtype == PT_F64;
  if (j.dist == DIST_RANDINT) {
    /* Bounds are integers within int64, a < b; the difference is taken in uint64 so that
     * even [-2^63, 2^63 - 1] has an exact range. */
    if (!(j.a >= -TWO63 && j.a < TWO63) || j.a != floor(j.a)) return bad("randint low", j.a);
    if (!(j.b >= -TWO63 && j.b < TWO63) || j.b != floor(j.b)) return bad("randint high", j.b);
    if (!(j.a < j.b)) return pt_error(PT_EINVAL, "philox: randint range [%g, %g) is empty", j.a, j.b);
    j.lo = (int64_t)j.a;
    j.range = (uint64_t)(int64_t)j.b - (uint64_t)j.lo;
  } else if (!pt_is_float(j.out.dtype)) {
    return pt_error(PT_EINVAL, "philox: %s into dtype %d needs a floating-point output",
                    j.dist == DIST_UNIFORM ? "uniform" : "normal", j.out.dtype);
  }
  if (count > 0) cpu_parallel_for((size_t)count, GRAIN, philox_range, &j);
  return PT_OK;
}
