/* matmul.c: the "matmul" template, batched C = A @ B over arbitrary strides (kernels.h).
 *
 * f32/f64 go to a system BLAS when one can be opened at run time (nothing to link, so the
 * shim loads on machines without one) and every matrix has a unit stride in one of its
 * dims, which is what cblas_?gemm can describe. Otherwise, and when PT_BLAS=0, our own
 * kernel runs: the classic Goto/BLIS blocking, with KC x NC panels of B and MC x KC
 * blocks of A packed so the micro-kernel streams both from cache, and an MR x NR tile of
 * accumulators that stays in registers. The micro-kernel is plain C that compilers
 * vectorise; on x86-64 builds without AVX2 it is also compiled for AVX2+FMA and picked at
 * run time. Row blocks of C run in parallel; each thread packs its own A blocks.
 * i32/i64 take a plain row loop with wrapping uint64 accumulation.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "kernels.h"
#include "pool.h"
#include "strided.h"
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <dlfcn.h>
#include <pthread.h>
#endif

#define MR 6
#define KC 256
#define MC 72   /* a multiple of MR: with KC, an A block of 72 KiB (f32) for the L2 */
#define NC 3072 /* a multiple of both NRs */

typedef struct {
  int64_t M, N, K, ars, acs, brs, bcs, crs, ccs;
  const uint8_t *A, *B;
  uint8_t *C;
} mat_t;

/* ---- BLAS, opened once ---- */

enum { CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 };
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
static sgemm_fn blas_sgemm;
static dgemm_fn blas_dgemm;
#ifndef _WIN32
/* The library's thread-count setter, where it has one, and the count it started with
 * (its own environment variable's, or the cores). */
typedef void (*set_threads_fn)(int);
typedef int (*get_threads_fn)(void);
static set_threads_fn blas_set_threads;
static int blas_max_threads, blas_threads_now;
#endif

/* Libraries tried in order. A generic name (libblas.so.3, libcblas.so.3) is often the
 * netlib reference BLAS, far slower than our own kernel, so it is kept only when it turns
 * out to be a tuned one under that name (an alternatives link to OpenBLAS, BLIS, MKL). */
#define GENERIC "?"
static const char *const blas_names[] = {
#if defined(_WIN32)
    "libopenblas.dll", "openblas.dll", "mkl_rt.2.dll", "mkl_rt.dll",
#elif defined(__APPLE__)
    "/System/Library/Frameworks/Accelerate.framework/Accelerate", "libopenblas.dylib",
    "/opt/homebrew/opt/openblas/lib/libopenblas.dylib", "/usr/local/opt/openblas/lib/libopenblas.dylib",
#else
    "libopenblas.so.0", "libopenblas.so", "libmkl_rt.so.2", "libmkl_rt.so", "libblis.so.4",
    GENERIC "libblas.so.3", GENERIC "libcblas.so.3",
#endif
};

static void blas_load(void) {
  for (size_t i = 0; i < sizeof blas_names / sizeof blas_names[0]; i++) {
    void *s, *d;
    const char *name = blas_names[i];
    int generic = name[0] == GENERIC[0];
#ifdef _WIN32
    HMODULE h = LoadLibraryA(name);
    if (!h) continue;
    FARPROC fs = GetProcAddress(h, "cblas_sgemm"), fd = GetProcAddress(h, "cblas_dgemm");
    memcpy(&s, &fs, sizeof s);
    memcpy(&d, &fd, sizeof d);
    (void)generic;
    if (!s || !d) { FreeLibrary(h); continue; }
#else
    void *h = dlopen(name + generic, RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    s = dlsym(h, "cblas_sgemm");
    d = dlsym(h, "cblas_dgemm");
    static const char *const tuned_marks[] = {"openblas_get_config", "bli_info_get_version_str", "MKL_Get_Version"};
    int tuned = !generic;
    for (size_t k = 0; k < sizeof tuned_marks / sizeof tuned_marks[0] && !tuned; k++) tuned = dlsym(h, tuned_marks[k]) != NULL;
    if (!s || !d || !tuned) { dlclose(h); continue; }
#endif
    /* ISO C has no cast between object and function pointers; copying the bits is the
     * form POSIX blesses. The library stays open for the life of the process. */
    memcpy(&blas_sgemm, &s, sizeof s);
    memcpy(&blas_dgemm, &d, sizeof d);
#ifndef _WIN32
    /* OpenBLAS and BLIS name the pair differently; MKL's setter returns the old value, which is ignored. */
    static const char *const setters[][2] = {{"openblas_set_num_threads", "openblas_get_num_threads"},
                                             {"bli_thread_set_num_threads", "bli_thread_get_num_threads"}};
    for (size_t k = 0; k < sizeof setters / sizeof setters[0] && !blas_set_threads; k++) {
      void *set = dlsym(h, setters[k][0]), *get = dlsym(h, setters[k][1]);
      if (!set || !get) continue;
      get_threads_fn g;
      memcpy(&g, &get, sizeof g);
      int n = g();
      if (n < 1) continue;
      memcpy(&blas_set_threads, &set, sizeof set);
      blas_max_threads = blas_threads_now = n;
    }
#endif
    return;
  }
}

#ifdef _WIN32
static INIT_ONCE blas_once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK blas_once_fn(PINIT_ONCE o, PVOID p, PVOID *c) { (void)o; (void)p; (void)c; blas_load(); return TRUE; }
static void blas_init(void) { InitOnceExecuteOnce(&blas_once, blas_once_fn, NULL, NULL); }
#else
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void blas_init(void) { pthread_once(&blas_once, blas_load); }
#endif

/* Read on every call, so a test can switch BLAS off and on in one process. */
static int blas_enabled(void) {
  const char *e = getenv("PT_BLAS");
  if (e && e[0] == '0' && !e[1]) return 0;
  blas_init();
  return blas_sgemm != NULL;
}

int cpu_has_blas(void) { return blas_enabled(); }

/* A [rows x cols] operand with strides (rs, cs) as cblas sees it in row-major order: as
 * is (unit column stride) or transposed (unit row stride). A dim of extent 1 lets its
 * stride be anything, so it is replaced by the value BLAS wants. */
static int blas_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *trans, int *ld) {
  int64_t need_r = cols > 1 ? cols : 1, need_c = rows > 1 ? rows : 1;
  if ((cs == 1 || cols == 1) && (rows == 1 || (rs >= need_r && rs <= INT_MAX))) {
    *trans = CblasNoTrans;
    *ld = (int)(rows == 1 ? need_r : rs);
    return 1;
  }
  if ((rs == 1 || rows == 1) && (cols == 1 || (cs >= need_c && cs <= INT_MAX))) {
    *trans = CblasTrans;
    *ld = (int)(cols == 1 ? need_c : cs);
    return 1;
  }
  return 0;
}

static void blas_call(int dt, int ta, int tb, int rows, int cols, const mat_t *m, const void *x, int lda, const void *y,
                      int ldb, int ldc);

/* Calls ?gemm for one matrix, or returns 0 when BLAS cannot describe its layout. */
static int blas_gemm(int dt, const mat_t *m, int dry_run) {
  int ta, tb, tc, lda, ldb, ldc;
  if (m->M > INT_MAX || m->N > INT_MAX || m->K > INT_MAX) return 0;
  if (!blas_operand(m->M, m->N, m->crs, m->ccs, &tc, &ldc)) return 0;
  const void *x, *y;
  int rows, cols;
  if (tc == CblasNoTrans) { /* C = A B */
    if (!blas_operand(m->M, m->K, m->ars, m->acs, &ta, &lda) || !blas_operand(m->K, m->N, m->brs, m->bcs, &tb, &ldb)) return 0;
    x = m->A; y = m->B; rows = (int)m->M; cols = (int)m->N;
  } else { /* C is column-major: C^T = B^T A^T, row-major */
    if (!blas_operand(m->N, m->K, m->bcs, m->brs, &ta, &lda) || !blas_operand(m->K, m->M, m->acs, m->ars, &tb, &ldb)) return 0;
    x = m->B; y = m->A; rows = (int)m->N; cols = (int)m->M;
  }
  if (dry_run) return 1;
#ifndef _WIN32
  if (blas_set_threads) {
    /* A BLAS wakes all its threads for any product past a small size, and for the products of a
     * small model (64 x 784 x 64) that hand-off costs more than the arithmetic: one thread per
     * 16 Mflop. The setter is process-wide, so the set and the call go together. */
    static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
    double flops = 2.0 * (double)m->M * (double)m->N * (double)m->K;
    double per = flops / (1 << 24) + 1;
    int want = per >= blas_max_threads ? blas_max_threads : (int)per;
    pthread_mutex_lock(&set_lock);
    if (want != blas_threads_now) {
      blas_set_threads(want);
      blas_threads_now = want;
    }
    blas_call(dt, ta, tb, rows, cols, m, x, lda, y, ldb, ldc);
    pthread_mutex_unlock(&set_lock);
    return 1;
  }
#endif
  blas_call(dt, ta, tb, rows, cols, m, x, lda, y, ldb, ldc);
  return 1;
}

static void blas_call(int dt, int ta, int tb, int rows, int cols, const mat_t *m, const void *x, int lda, const void *y,
                      int ldb, int ldc) {
  if (dt == PT_F32) blas_sgemm(CblasRowMajor, ta, tb, rows, cols, (int)m->K, 1.0f, x, lda, y, ldb, 0.0f, (float *)m->C, ldc);
  else blas_dgemm(CblasRowMajor, ta, tb, rows, cols, (int)m->K, 1.0, x, lda, y, ldb, 0.0, (double *)m->C, ldc);
}

/* ---- our kernel ---- */

#if defined(__x86_64__) && !defined(__AVX2__) && (defined(__clang__) || defined(__GNUC__))
#define PT_MM_DISPATCH 1
#include <cpuid.h>
/* AVX2 and FMA, and an OS that saves the ymm registers (OSXSAVE + XCR0 bits 1, 2). */
static int have_avx2_fma(void) {
  unsigned a, b, c, d, lo, hi;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 12)) || !(c & (1u << 27)) || !(c & (1u << 28))) return 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b >> 5) & 1;
}
#endif

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Everything below is stamped out for float (NR 16) and double (NR 8): 12 vector
 * accumulators of 8 floats or 4 doubles on AVX2, 24 of 4 or 2 on NEON. */
#define GEMM_IMPL(T, S, NR)                                                                   \
  typedef void (*ukr_##S##_fn)(int64_t, const T *, const T *, T *, int64_t, int64_t, int64_t, int64_t, int); \
  static ALWAYS_INLINE void ukr_##S##_body(int64_t kc, const T *restrict a, const T *restrict b, T *restrict c, \
                                           int64_t crs, int64_t ccs, int64_t mr, int64_t nr, int first) { \
    T acc[MR][NR];                                                                            \
    for (int i = 0; i < MR; i++)                                                              \
      for (int j = 0; j < NR; j++) acc[i][j] = 0;                                             \
    for (int64_t k = 0; k < kc; k++, a += MR, b += NR)                                        \
      for (int i = 0; i < MR; i++)                                                            \
        for (int j = 0; j < NR; j++) acc[i][j] += a[i] * b[j];                                \
    if (mr == MR && nr == NR && ccs == 1) {                                                   \
      for (int i = 0; i < MR; i++)                                                            \
        for (int j = 0; j < NR; j++) c[i * crs + j] = first ? acc[i][j] : c[i * crs + j] + acc[i][j]; \
    } else {                                                                                  \
      for (int64_t i = 0; i < mr; i++)                                                        \
        for (int64_t j = 0; j < nr; j++) {                                                    \
          T *p = c + i * crs + j * ccs;                                                       \
          *p = first ? acc[i][j] : *p + acc[i][j];                                            \
        }                                                                                     \
    }                                                                                         \
  }                                                                                           \
  static void ukr_##S##_plain(int64_t kc, const T *a, const T *b, T *c, int64_t crs, int64_t ccs, int64_t mr, \
                              int64_t nr, int first) {                                        \
    ukr_##S##_body(kc, a, b, c, crs, ccs, mr, nr, first);                                     \
  }                                                                                           \
  UKR_AVX2(T, S)                                                                              \
                                                                                              \
  /* MR-row micro-panels, k-major, zero-padded past mc. */                                    \
  static void pack_a_##S(const T *A, int64_t rs, int64_t cs, int64_t mc, int64_t kc, T *ap) { \
    for (int64_t i0 = 0; i0 < mc; i0 += MR) {                                                 \
      int64_t mr = mc - i0 < MR ? mc - i0 : MR;                                               \
      for (int64_t k = 0; k < kc; k++, ap += MR)                                              \
        for (int64_t r = 0; r < MR; r++) ap[r] = r < mr ? A[(i0 + r) * rs + k * cs] : 0;      \
    }                                                                                         \
  }                                                                                           \
  typedef struct {                                                                            \
    const mat_t *m;                                                                           \
    T *bp;                                                                                    \
    int64_t jc, nc, pc, kc;                                                                   \
    ukr_##S##_fn ukr;                                                                         \
    atomic_int oom;                                                                           \
  } job_##S;                                                                                  \
  /* NR-column slivers of B, k-major, zero-padded past nc. */                                 \
  static void pack_b_##S(void *ctx, size_t s0, size_t s1) {                                   \
    job_##S *g = ctx;                                                                         \
    const T *B = (const T *)g->m->B;                                                          \
    int64_t rs = g->m->brs, cs = g->m->bcs;                                                   \
    for (int64_t s = (int64_t)s0; s < (int64_t)s1; s++) {                                     \
      int64_t j0 = s * NR, nr = g->nc - j0 < NR ? g->nc - j0 : NR;                            \
      T *bp = g->bp + s * NR * g->kc;                                                         \
      for (int64_t k = 0; k < g->kc; k++, bp += NR) {                                         \
        const T *row = B + (g->pc + k) * rs + (g->jc + j0) * cs;                              \
        if (nr == NR && cs == 1) for (int64_t j = 0; j < NR; j++) bp[j] = row[j];             \
        else for (int64_t j = 0; j < NR; j++) bp[j] = j < nr ? row[j * cs] : 0;               \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
  static void row_blocks_##S(void *ctx, size_t b0, size_t b1) {                               \
    job_##S *g = ctx;                                                                         \
    const mat_t *m = g->m;                                                                    \
    T *ap = malloc(sizeof(T) * MC * KC);                                                      \
    if (!ap) { atomic_store(&g->oom, 1); return; }                                            \
    for (int64_t blk = (int64_t)b0; blk < (int64_t)b1; blk++) {                               \
      int64_t ic = blk * MC, mc = m->M - ic < MC ? m->M - ic : MC;                            \
      pack_a_##S((const T *)m->A + ic * m->ars + g->pc * m->acs, m->ars, m->acs, mc, g->kc, ap); \
      for (int64_t jr = 0; jr < g->nc; jr += NR)                                              \
        for (int64_t ir = 0; ir < mc; ir += MR) {                                             \
          T *c = (T *)m->C + (ic + ir) * m->crs + (g->jc + jr) * m->ccs;                      \
          g->ukr(g->kc, ap + ir * g->kc, g->bp + jr * g->kc, c, m->crs, m->ccs,               \
                 mc - ir < MR ? mc - ir : MR, g->nc - jr < NR ? g->nc - jr : NR, g->pc == 0); \
        }                                                                                     \
    }                                                                                         \
    free(ap);                                                                                 \
  }                                                                                           \
  static int gemm_##S(const mat_t *m) {                                                       \
    job_##S g = {m, NULL, 0, 0, 0, 0, PICK_UKR(S), 0};                                        \
    int64_t ncap = m->N < NC ? m->N : NC, nblk = (m->M + MC - 1) / MC;                        \
    g.bp = malloc(sizeof(T) * (size_t)(KC * ((ncap + NR - 1) / NR * NR)));                    \
    if (!g.bp) return 0;                                                                      \
    /* Below about a million flops per row block the pool costs more than it saves. */       \
    int64_t work = MC * (m->N < NC ? m->N : NC) * (m->K < KC ? m->K : KC);                    \
    size_t grain = work >= (1 << 20) ? 1 : (size_t)((1 << 20) / (work ? work : 1));            \
    for (g.jc = 0; g.jc < m->N; g.jc += NC) {                                                 \
      g.nc = m->N - g.jc < NC ? m->N - g.jc : NC;                                             \
      for (g.pc = 0; g.pc < m->K; g.pc += KC) {                                               \
        g.kc = m->K - g.pc < KC ? m->K - g.pc : KC;                                           \
        cpu_parallel_for((size_t)((g.nc + NR - 1) / NR), 64, pack_b_##S, &g);                  \
        cpu_parallel_for((size_t)nblk, grain, row_blocks_##S, &g);                            \
      }                                                                                       \
    }                                                                                         \
    free(g.bp);                                                                               \
    return !atomic_load(&g.oom);                                                              \
  }

#ifdef PT_MM_DISPATCH
#define UKR_AVX2(T, S)                                                                        \
  __attribute__((target("avx2,fma"))) static void ukr_##S##_avx2(int64_t kc, const T *a, const T *b, T *c, \
                                                                  int64_t crs, int64_t ccs, int64_t mr, int64_t nr, int first) { \
    ukr_##S##_body(kc, a, b, c, crs, ccs, mr, nr, first);                                     \
  }
#define PICK_UKR(S) (have_avx2_fma() ? ukr_##S##_avx2 : ukr_##S##_plain)
#else
#define UKR_AVX2(T, S)
#define PICK_UKR(S) ukr_##S##_plain
#endif

GEMM_IMPL(float, f32, 16)
GEMM_IMPL(double, f64, 8)

/* ---- integers ---- */

typedef struct { const mat_t *m; int dt; atomic_int oom; } ijob_t;

static void int_rows(void *ctx, size_t r0, size_t r1) {
  ijob_t *g = ctx;
  const mat_t *m = g->m;
  uint64_t *acc = malloc(sizeof *acc * (size_t)m->N);
  if (!acc) { atomic_store(&g->oom, 1); return; }
  for (int64_t i = (int64_t)r0; i < (int64_t)r1; i++) {
    memset(acc, 0, sizeof *acc * (size_t)m->N);
    for (int64_t k = 0; k < m->K; k++) {
      if (g->dt == PT_I32) {
        const int32_t *b = (const int32_t *)m->B + k * m->brs;
        uint64_t x = (uint64_t)(int64_t)((const int32_t *)m->A)[i * m->ars + k * m->acs];
        for (int64_t j = 0; j < m->N; j++) acc[j] += x * (uint64_t)(int64_t)b[j * m->bcs];
      } else {
        const int64_t *b = (const int64_t *)m->B + k * m->brs;
        uint64_t x = (uint64_t)((const int64_t *)m->A)[i * m->ars + k * m->acs];
        for (int64_t j = 0; j < m->N; j++) acc[j] += x * (uint64_t)b[j * m->bcs];
      }
    }
    if (g->dt == PT_I32) {
      int32_t *c = (int32_t *)m->C + i * m->crs;
      for (int64_t j = 0; j < m->N; j++) c[j * m->ccs] = (int32_t)(uint32_t)acc[j];
    } else {
      int64_t *c = (int64_t *)m->C + i * m->crs;
      for (int64_t j = 0; j < m->N; j++) c[j * m->ccs] = (int64_t)acc[j];
    }
  }
  free(acc);
}

/* ---- one matrix, the batch, the entry point ---- */

static int gemm_one(int dt, const mat_t *m, int use_blas) {
  if (m->K == 0) { /* an empty sum: C = 0 */
    int esz = pt_dtype_size[dt];
    for (int64_t i = 0; i < m->M; i++)
      for (int64_t j = 0; j < m->N; j++) memset(m->C + (i * m->crs + j * m->ccs) * esz, 0, (size_t)esz);
    return 1;
  }
  if (use_blas && blas_gemm(dt, m, 0)) return 1;
  if (dt == PT_F32) return gemm_f32(m);
  if (dt == PT_F64) return gemm_f64(m);
  ijob_t g = {m, dt, 0};
  int64_t per = m->N * m->K;
  cpu_parallel_for((size_t)m->M, per >= 65536 ? 1 : (size_t)(65536 / (per ? per : 1)), int_rows, &g);
  return !atomic_load(&g.oom);
}

typedef struct {
  mat_t m; /* batch entry 0; the others differ by their batch offsets */
  int dt, brank, use_blas;
  atomic_int oom;
  int64_t bshape[PT_MAX_RANK];
  cpu_view a, b, c;
} batch_t;

static void batch_entries(void *ctx, size_t e0, size_t e1) {
  batch_t *g = ctx;
  int esz = pt_dtype_size[g->dt];
  for (int64_t e = (int64_t)e0; e < (int64_t)e1; e++) {
    mat_t m = g->m;
    int64_t rem = e;
    for (int d = g->brank - 1; d >= 0; d--) {
      int64_t q = rem % g->bshape[d];
      rem /= g->bshape[d];
      m.A += q * g->a.stride[d] * esz;
      m.B += q * g->b.stride[d] * esz;
      m.C += q * g->c.stride[d] * esz;
    }
    if (!gemm_one(g->dt, &m, g->use_blas)) atomic_store(&g->oom, 1);
  }
}

int cpu_matmul(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  batch_t g;
  int64_t v, sh[2], st[2];
  int rc;
  memset(&g, 0, sizeof g);
  if (!a || na < PT_MATMUL_SLOTS) return pt_error(PT_EINVAL, "matmul: argument block has %d slots, needs %d", na, PT_MATMUL_SLOTS);
  if (!kslot(a[PT_MATMUL_BRANK], 0, PT_MAX_RANK, &v)) return pt_error(PT_EINVAL, "matmul: batch rank %g is not in [0, %d]", a[PT_MATMUL_BRANK], PT_MAX_RANK);
  g.brank = (int)v;
  if ((rc = cpu_shape_parse(a + PT_MATMUL_BSHAPE, g.brank, g.bshape, "matmul: batch shape"))) return rc;
  mat_t *m = &g.m;
  if (!kslot(a[PT_MATMUL_M], 0, KSLOT_MAX, &m->M) || !kslot(a[PT_MATMUL_N], 0, KSLOT_MAX, &m->N) || !kslot(a[PT_MATMUL_K], 0, KSLOT_MAX, &m->K))
    return pt_error(PT_EINVAL, "matmul: M, N, K = %g, %g, %g are not integers >= 0", a[PT_MATMUL_M], a[PT_MATMUL_N], a[PT_MATMUL_K]);
  if (!kslot(a[PT_MATMUL_A_ROWS], KSLOT_ANY, &m->ars) || !kslot(a[PT_MATMUL_A_COLS], KSLOT_ANY, &m->acs) || !kslot(a[PT_MATMUL_B_ROWS], KSLOT_ANY, &m->brs) ||
      !kslot(a[PT_MATMUL_B_COLS], KSLOT_ANY, &m->bcs) || !kslot(a[PT_MATMUL_C_ROWS], KSLOT_ANY, &m->crs) || !kslot(a[PT_MATMUL_C_COLS], KSLOT_ANY, &m->ccs))
    return pt_error(PT_EINVAL, "matmul: a row or column stride is not an integer");
  sh[0] = m->M; sh[1] = m->K; st[0] = m->ars; st[1] = m->acs;
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_MATMUL_A, g.brank, g.bshape, 2, sh, st, "matmul: A", &g.a))) return rc;
  sh[0] = m->K; sh[1] = m->N; st[0] = m->brs; st[1] = m->bcs;
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_MATMUL_B, g.brank, g.bshape, 2, sh, st, "matmul: B", &g.b))) return rc;
  sh[0] = m->M; sh[1] = m->N; st[0] = m->crs; st[1] = m->ccs;
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_MATMUL_C, g.brank, g.bshape, 2, sh, st, "matmul: C", &g.c))) return rc;
  if (!kslot(a[PT_MATMUL_TF32], 0, 1, &v)) return pt_error(PT_EINVAL, "matmul: tf32 flag %g is not 0 or 1", a[PT_MATMUL_TF32]);
  g.dt = g.a.dtype;
  if (g.b.dtype != g.dt || g.c.dtype != g.dt || !(g.dt == PT_F32 || g.dt == PT_F64 || g.dt == PT_I32 || g.dt == PT_I64))
    return pt_error(PT_EINVAL, "matmul: dtypes %d, %d, %d must be one of f32, f64, i32, i64, the same for A, B and C",
                    g.a.dtype, g.b.dtype, g.c.dtype);
  int64_t batch = cpu_numel(g.brank, g.bshape), mn, mnk, total;
  if (batch == 0 || m->M == 0 || m->N == 0) return PT_OK;
  /* stride-0 views can claim any size; the counts below must not wrap */
  if (__builtin_mul_overflow(m->M, m->N, &mn) || __builtin_mul_overflow(mn, m->K ? m->K : 1, &mnk) ||
      __builtin_mul_overflow(mnk, batch, &total) || total > KSLOT_MAX)
    return pt_error(PT_EINVAL, "matmul: %lld x (%lld x %lld x %lld) is too large", (long long)batch, (long long)m->M,
                    (long long)m->N, (long long)m->K);
  m->A = PT_ELEM(&g.a, 0);
  m->B = PT_ELEM(&g.b, 0);
  m->C = PT_ELEM(&g.c, 0);
  /* Many small products: one per thread beats splitting each (the nested parallel_for
   * calls inside then run inline), and beats a BLAS call apiece. BLAS threads itself, so
   * its calls go one at a time. */
  int small = batch > 1 && mnk < (1 << 18);
  g.use_blas = (g.dt == PT_F32 || g.dt == PT_F64) && !(small && mnk < (1 << 15)) && blas_enabled() &&
               blas_gemm(g.dt, m, 1);
  int per_entry = small && !g.use_blas;
  if (per_entry) cpu_parallel_for((size_t)batch, (size_t)((1 << 18) / mnk + 1), batch_entries, &g);
  else batch_entries(&g, 0, (size_t)batch);
  if (atomic_load(&g.oom)) return pt_error(PT_EOOM, "matmul: no memory for packing buffers");
  return PT_OK;
}
