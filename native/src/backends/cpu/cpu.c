/* cpu.c: the CPU driver: one device, host memory, synchronous queues, built-in kernels.
 *
 * Everything runs at launch on the calling thread (fanned out through pool.c), so queues
 * need no state, a fence has passed the moment it is recorded, and an error surfaces from
 * the launch that caused it. Fences keep a monotonic timestamp so that elapsed time
 * between two of them measures the work launched in between.
 */
#define _DEFAULT_SOURCE  /* glibc: posix_memalign, clock_gettime, _SC_PHYS_PAGES */
#define _DARWIN_C_SOURCE /* macOS: sysctlbyname */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "pool.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <malloc.h>
#else
#include <time.h>
#include <unistd.h>
#endif
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif

static int mem_info(size_t *fr, size_t *total) {
#ifdef _WIN32
  MEMORYSTATUSEX ms;
  ms.dwLength = sizeof ms;
  if (!GlobalMemoryStatusEx(&ms)) return pt_error(PT_EDRIVER, "cpu: GlobalMemoryStatusEx failed (%lu)", GetLastError());
  *total = (size_t)ms.ullTotalPhys;
  *fr = (size_t)ms.ullAvailPhys;
#elif defined(__APPLE__)
  uint64_t mem = 0;
  uint32_t pages = 0;
  size_t len = sizeof mem, plen = sizeof pages;
  if (sysctlbyname("hw.memsize", &mem, &len, NULL, 0) != 0) return pt_error(PT_EDRIVER, "cpu: sysctl hw.memsize failed");
  *total = (size_t)mem;
  *fr = sysctlbyname("vm.page_free_count", &pages, &plen, NULL, 0) == 0 ? (size_t)pages * (size_t)getpagesize() : (size_t)mem;
#else
  long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return pt_error(PT_EDRIVER, "cpu: sysconf cannot tell the memory size");
  *total = (size_t)pages * (size_t)psize;
  *fr = avail > 0 ? (size_t)avail * (size_t)psize : *total;
#endif
  return PT_OK;
}

static double now_ms(void) {
#ifdef _WIN32
  LARGE_INTEGER f, c;
  QueryPerformanceFrequency(&f);
  QueryPerformanceCounter(&c);
  return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
#endif
}

/* ---- inventory ---------------------------------------------------------------------- */

static int cpu_count(void) { return 1; }

static int cpu_device_name(int index, char *buf, size_t cap) {
  (void)index;
  snprintf(buf, cap, "CPU (%d threads)", cpu_thread_count());
  return PT_OK;
}

static int cpu_device_info(int index, double *f) {
  (void)index;
  size_t fr = 0, total = 0;
  mem_info(&fr, &total);
  f[PT_INFO_MEMORY_TOTAL] = (double)total;
  f[PT_INFO_HAS_F16] = f[PT_INFO_HAS_BF16] = f[PT_INFO_HAS_F64] = f[PT_INFO_HAS_I64] = 1;
  f[PT_INFO_SUBGROUP] = 1;
  f[PT_INFO_MAX_WORKGROUP] = 1;
  f[PT_INFO_UNIFIED_MEMORY] = 1;
  f[PT_INFO_COMPUTE_UNITS] = cpu_thread_count();
  return PT_OK;
}

static int cpu_has(int index, const char *cap) {
  (void)index;
  static const char *const yes[] = {"host_wrap", "f16", "bf16", "f64", "i64", "int64", "unified_memory"};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    if (strcmp(cap, yes[i]) == 0) return 1;
  if (strcmp(cap, "blas") == 0) return cpu_has_blas() > 0;
  return 0;
}

/* ---- context, memory, queues, fences ------------------------------------------------ */

static char cpu_context, cpu_queue; /* stateless: their addresses are the tokens */

static int cpu_activate(int index, void **ctx) { (void)index; *ctx = &cpu_context; return PT_OK; }
static void cpu_shutdown(void *ctx) { (void)ctx; cpu_pool_shutdown(); }
static int cpu_mem_info(void *ctx, size_t *fr, size_t *total) { (void)ctx; return mem_info(fr, total); }

static int cpu_alloc(void *ctx, size_t bytes, void **mem, void **host) {
  (void)ctx;
  void *p = NULL;
#ifdef _WIN32
  p = _aligned_malloc(bytes ? bytes : 1, 64);
#else
  if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) p = NULL;
#endif
  if (!p) return pt_error(PT_EOOM, "cpu: cannot allocate %zu bytes of host memory", bytes);
  *mem = *host = p;
  return PT_OK;
}

static void cpu_free(void *ctx, void *mem) {
  (void)ctx;
#ifdef _WIN32
  _aligned_free(mem);
#else
  free(mem);
#endif
}

static int cpu_wrap(void *ctx, void *host, size_t bytes, void **mem) { (void)ctx; (void)bytes; *mem = host; return PT_OK; }
static int cpu_queue_create(void *ctx, void **q) { (void)ctx; *q = &cpu_queue; return PT_OK; }
static void cpu_queue_free(void *ctx, void *q) { (void)ctx; (void)q; }

static int cpu_write(void *ctx, void *q, void *mem, size_t off, const void *src, size_t n) {
  (void)ctx; (void)q;
  memcpy((uint8_t *)mem + off, src, n);
  return PT_OK;
}
static int cpu_read(void *ctx, void *q, void *mem, size_t off, void *dst, size_t n) {
  (void)ctx; (void)q;
  memcpy(dst, (const uint8_t *)mem + off, n);
  return PT_OK;
}
static int cpu_copy(void *ctx, void *q, void *src, size_t soff, void *dst, size_t doff, size_t n) {
  (void)ctx; (void)q;
  memmove((uint8_t *)dst + doff, (const uint8_t *)src + soff, n); /* src and dst may be one buffer */
  return PT_OK;
}
static int cpu_sync(void *ctx, void *q) { (void)ctx; (void)q; return PT_OK; }

static int cpu_fence_record(void *ctx, void *q, void **fence) {
  (void)ctx; (void)q;
  double *t = malloc(sizeof *t);
  if (!t) return pt_error(PT_EOOM, "cpu: out of host memory for a fence");
  *t = now_ms();
  *fence = t;
  return PT_OK;
}
static int cpu_fence_query(void *ctx, void *f) { (void)ctx; (void)f; return 1; }
static int cpu_fence_wait(void *ctx, void *f) { (void)ctx; (void)f; return PT_OK; }
static int cpu_queue_wait(void *ctx, void *q, void *f) { (void)ctx; (void)q; (void)f; return PT_OK; }
static double cpu_fence_elapsed_ms(void *ctx, void *s, void *e) { (void)ctx; return *(double *)e - *(double *)s; }
static void cpu_fence_free(void *ctx, void *f) { (void)ctx; free(f); }

/* ---- programs ----------------------------------------------------------------------- */

enum { K_EW, K_REDUCE, K_SCAN, K_MATMUL, K_SORT, K_GATHER, K_SCATTER, K_INDEX_PUT, K_INDEX_GET, K_NONZERO, K_MASKED_SELECT, K_PHILOX, K_EWREDUCE, K_ATTENTION, K_ROWNORM, K_IM2COL, K_COUNT };
static const char *const kind_names[K_COUNT] = {"ew", "reduce", "scan", "matmul", "sort", "gather", "scatter",
                                                "index_put", "index_get", "nonzero", "masked_select", "philox",
                                                "ewreduce", "attention", "rownorm", "im2col"};

typedef struct { int kind; cpu_ew_program *ew; } cpu_prog;

static int cpu_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **out) {
  (void)ctx;
  int k = 0;
  while (k < K_COUNT && strcmp(kind, kind_names[k]) != 0) k++;
  if (k == K_COUNT)
    return pt_error(PT_EINVAL, "cpu: unknown program kind \"%s\" (expected ew, reduce, scan, matmul, sort, gather, scatter, "
                    "index_put, index_get, nonzero, masked_select, philox, ewreduce, attention, rownorm or im2col)", kind);
  cpu_prog *p = calloc(1, sizeof *p);
  if (!p) return pt_error(PT_EOOM, "cpu: out of host memory for a program");
  p->kind = k;
  if (k == K_EW || k == K_EWREDUCE) {
    int st = cpu_ew_compile(src, len, &p->ew);
    if (st != PT_OK) { free(p); return st; }
  }
  *out = p;
  return PT_OK;
}

static void cpu_program_free(void *ctx, void *prog) {
  (void)ctx;
  cpu_prog *p = prog;
  if (p->ew) cpu_ew_free(p->ew);
  free(p);
}

static int cpu_launch(void *ctx, void *q, void *prog, const pt_mem_ref *b, int nb, const double *a, int na) {
  (void)ctx; (void)q;
  const cpu_prog *p = prog;
  switch (p->kind) {
  case K_EW: return cpu_ew_run(p->ew, b, nb, a, na);
  case K_REDUCE: return cpu_reduce(b, nb, a, na);
  case K_SCAN: return cpu_scan(b, nb, a, na);
  case K_MATMUL: return cpu_matmul(b, nb, a, na);
  case K_SORT: return cpu_sort(b, nb, a, na);
  case K_GATHER: return cpu_gather(b, nb, a, na);
  case K_SCATTER: return cpu_scatter(b, nb, a, na);
  case K_INDEX_PUT: return cpu_index_put(b, nb, a, na, 0);
  case K_INDEX_GET: return cpu_index_put(b, nb, a, na, 1);
  case K_NONZERO: return cpu_nonzero(b, nb, a, na);
  case K_MASKED_SELECT: return cpu_masked_select(b, nb, a, na);
  case K_PHILOX: return cpu_philox(b, nb, a, na);
  case K_EWREDUCE: return cpu_ewreduce(p->ew, b, nb, a, na);
  case K_ATTENTION: return cpu_attention(b, nb, a, na);
  case K_ROWNORM: return cpu_rownorm(b, nb, a, na);
  case K_IM2COL: return cpu_im2col(b, nb, a, na);
  default: return pt_error(PT_EINVAL, "cpu: corrupt program");
  }
}

const pt_driver pt_driver_cpu = {
    .name = "cpu",
    .count = cpu_count,
    .device_name = cpu_device_name,
    .device_info = cpu_device_info,
    .language = "bytecode",
    .has = cpu_has,
    .activate = cpu_activate,
    .shutdown = cpu_shutdown,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .wrap = cpu_wrap,
    .queue_create = cpu_queue_create,
    .queue_free = cpu_queue_free,
    .write = cpu_write,
    .read = cpu_read,
    .copy = cpu_copy,
    .sync = cpu_sync,
    .fence_record = cpu_fence_record,
    .fence_query = cpu_fence_query,
    .fence_wait = cpu_fence_wait,
    .queue_wait = cpu_queue_wait,
    .fence_elapsed_ms = cpu_fence_elapsed_ms,
    .fence_free = cpu_fence_free,
    .program_create = cpu_program_create,
    .program_free = cpu_program_free,
    .launch = cpu_launch,
    .mem_info = cpu_mem_info,
    .unwrap = NULL,
};
