/* lib.c: finds and opens the HIP runtime, hiprtc and hipBLAS at run time.
 *
 * Ownership and ordering. Each library is looked for once per process, on first use,
 * through core/dlib.h's pt_lib_once, which keeps the outcome. The runtime (libamdhip64) is looked for on
 * the loader path, then under $ROCM_PATH, $HIP_PATH and /opt/rocm*; hiprtc and hipBLAS are
 * looked for first in the runtime's own folder (a hiprtc from another ROCm may emit code
 * objects that runtime rejects), then in the same places. Loaded libraries are never closed
 * (lib.h says why). Nothing here talks to a GPU: counting devices is hip.c's business.
 */
#define _DEFAULT_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"
#include "driver.h"
#include "dlib.h"

#ifdef _WIN32
#define SEP "\\"
#else
#include <glob.h>
#define SEP "/"
#endif

hip_api hip;
hiprtc_api hiprtc;
hipblas_api hipblas;

#define HIP_ROW(f, s, a, r, ret, args) {s, a, r, offsetof(hip_api, f)},
#define RTC_ROW(f, s, a, r, ret, args) {s, a, r, offsetof(hiprtc_api, f)},
#define BLAS_ROW(f, s, a, r, ret, args) {s, a, r, offsetof(hipblas_api, f)},
static const pt_lib_row hip_rows[] = {PT_HIP_FUNCS(HIP_ROW)};
static const pt_lib_row rtc_rows[] = {PT_HIPRTC_FUNCS(RTC_ROW)};
static const pt_lib_row blas_rows[] = {PT_HIPBLAS_FUNCS(BLAS_ROW)};

static pt_lib_state hip_state, rtc_state, blas_state;

/* ---- where ROCm lives ----------------------------------------------------------------- */

#define MAX_DIRS 24
typedef struct { int n; char dir[MAX_DIRS][400]; } dir_list;

static void add_dir(dir_list *l, const char *a, const char *b) {
  if (!a || (!*a && l->n > 0) || l->n == MAX_DIRS) return;
  int w = snprintf(l->dir[l->n], sizeof l->dir[0], "%s%s%s", a, b && *a ? SEP : "", b && *a ? b : "");
  if (w >= 0 && (size_t)w < sizeof l->dir[0]) l->n++;
}

/* dir[0] = "" (the loader path), then first (if any), then the usual ROCm homes. */
static void rocm_dirs(dir_list *l, const char *first) {
  l->n = 0;
  add_dir(l, "", NULL);
  if (first && *first) add_dir(l, first, NULL);
#ifdef _WIN32
  add_dir(l, getenv("HIP_PATH"), "bin");
#else
  add_dir(l, getenv("ROCM_PATH"), "lib");
  add_dir(l, getenv("HIP_PATH"), "lib");
  add_dir(l, "/opt/rocm/lib", NULL);
  glob_t g;
  if (glob("/opt/rocm-*/lib", 0, NULL, &g) == 0) {
    for (size_t i = g.gl_pathc; i > 0; i--) add_dir(l, g.gl_pathv[i - 1], NULL); /* newest first */
    globfree(&g);
  }
#endif
}

/* Opens the first of names, in the folders of l in order, that has every required symbol.
 * On failure *why holds the first loader error (or the missing symbol). */
static void *open_first(pt_lib_state *s, const dir_list *l, const char *const *names, const pt_lib_row *rows, size_t nrows,
                        void *table, char *why, size_t cap) {
  char path[900], err[400];
  why[0] = 0;
  for (int d = 0; d < l->n; d++) {
    for (int i = 0; names[i]; i++) {
      if (l->dir[d][0]) snprintf(path, sizeof path, "%s" SEP "%s", l->dir[d], names[i]);
      else snprintf(path, sizeof path, "%s", names[i]);
      void *h = pt_lib_open(path, 0, err, sizeof err);
      if (!h) {
        if (!why[0] && d == 0) snprintf(why, cap, "%s", err);
        continue;
      }
      const char *missing = pt_lib_resolve(h, rows, nrows, table);
      if (missing) {
        snprintf(why, cap, "%s lacks %s (too old?)", path, missing);
        pt_lib_close(h);
        continue;
      }
      snprintf(s->path, sizeof s->path, "%s", path);
      return h;
    }
  }
  return NULL;
}

/* ---- the three libraries ---------------------------------------------------------------- */

static int hip_load_locked(void) {
  pt_lib_state *s = &hip_state;
#ifdef __APPLE__
  (void)hip_rows;
  (void)open_first;
  return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: there is no HIP runtime on macOS%s%s", "", NULL);
#else
#ifdef _WIN32
  static const char *const names[] = {"amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll", NULL};
  const char *what = "amdhip64_7.dll, amdhip64_6.dll or amdhip64.dll";
#else
  static const char *const names[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
  const char *what = "libamdhip64.so (.7, .6, .5 or unversioned)";
#endif
  dir_list *l = malloc(sizeof *l);
  if (!l) return pt_lib_fail(s, PT_EOOM, "hip: out of host memory looking for the runtime%s%s", "", NULL);
  rocm_dirs(l, NULL);
  char why[400];
  void *h = open_first(s, l, names, hip_rows, PT_LIB_NROWS(hip_rows), &hip, why, sizeof why);
  free(l);
  if (!h)
    return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: %s not found on the loader path, under $ROCM_PATH, $HIP_PATH or /opt/rocm* (no "
                "ROCm HIP runtime is installed): %s", what, why);
  pt_lib_dir_of((void *)hip.GetDeviceCount, s->dir, sizeof s->dir);
  return s->status = PT_OK;
#endif
}

static int rtc_load_locked(void) {
  pt_lib_state *s = &rtc_state;
#ifdef _WIN32
  static const char *const names[] = {"hiprtc0702.dll", "hiprtc0701.dll", "hiprtc0700.dll", "hiprtc0605.dll",
                                      "hiprtc0604.dll", "hiprtc0603.dll", "hiprtc0602.dll", "hiprtc0601.dll",
                                      "hiprtc0600.dll", "hiprtc0507.dll", "hiprtc0505.dll", NULL};
#else
  static const char *const names[] = {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so", NULL};
#endif
  dir_list *l = malloc(sizeof *l);
  if (!l) return pt_lib_fail(s, PT_EOOM, "hip: out of host memory looking for hiprtc%s%s", "", NULL);
  rocm_dirs(l, hip_state.dir);
  /* The runtime's folder goes first: its hiprtc matches its code object loader. */
  if (l->n > 1 && hip_state.dir[0]) {
    char tmp[400];
    memcpy(tmp, l->dir[1], sizeof tmp);
    memcpy(l->dir[1], l->dir[0], sizeof tmp);
    memcpy(l->dir[0], tmp, sizeof tmp);
  }
  char why[400];
  void *h = open_first(s, l, names, rtc_rows, PT_LIB_NROWS(rtc_rows), &hiprtc, why, sizeof why);
  if (!h) { /* before ROCm 5.3 hiprtc lived inside libamdhip64 itself */
    const char *own[2] = {hip_state.path, NULL};
    char ignored[400];
    l->n = 1;
    l->dir[0][0] = 0;
    h = open_first(s, l, own, rtc_rows, PT_LIB_NROWS(rtc_rows), &hiprtc, ignored, sizeof ignored);
  }
  free(l);
  if (!h)
    return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: hiprtc (%s) not found beside the runtime, on the loader path or under "
                "/opt/rocm*; install ROCm's hiprtc package: %s", names[1], why);
  int ma = 0, mi = 0;
  s->version = hiprtc.Version && hiprtc.Version(&ma, &mi) == HIPRTC_SUCCESS ? ma * 1000 + mi * 10 : 0;
  return s->status = PT_OK;
}

static int blas_load_locked(void) {
  pt_lib_state *s = &blas_state;
#ifdef _WIN32
  static const char *const names[] = {"hipblas.dll", "libhipblas.dll", NULL};
#else
  static const char *const names[] = {"libhipblas.so.3", "libhipblas.so.2", "libhipblas.so.1", "libhipblas.so", NULL};
#endif
  dir_list *l = malloc(sizeof *l);
  if (!l) return pt_lib_fail(s, PT_EOOM, "hip: out of host memory looking for hipBLAS%s%s", "", NULL);
  rocm_dirs(l, hip_state.dir);
  char why[400];
  void *h = open_first(s, l, names, blas_rows, PT_LIB_NROWS(blas_rows), &hipblas, why, sizeof why);
  free(l);
  if (!h) return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: hipBLAS (%s) not found; matmul uses its own kernel: %s", names[1], why);
  return s->status = PT_OK;
}

int hip_load(void) { return pt_lib_once(&hip_state, hip_load_locked, NULL, NULL); }
int hiprtc_load(void) { return pt_lib_once(&rtc_state, rtc_load_locked, &hip_state, hip_load_locked); }
int hipblas_load(void) { return pt_lib_once(&blas_state, blas_load_locked, &hip_state, hip_load_locked); }

int hip_runtime_version(void) {
  int v = 0;
  if (hip_load() != PT_OK || hip.RuntimeGetVersion(&v) != hipSuccess) return 0;
  return v;
}
int hiprtc_version(void) { return rtc_state.version; }
const char *hip_path(void) { return hip_state.path; }
const char *hiprtc_path(void) { return rtc_state.path; }
const char *hipblas_path(void) { return blas_state.path; }
