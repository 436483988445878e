/* lib.c: finds and opens the HIP runtime, hiprtc and hipBLAS at run time, into the tables of
 * cuda/lib.h's rows (HIP's column, and vendor.h's own rows).
 *
 * Ownership and ordering. Each library is looked for once per process, on first use,
 * through core/dlib.h's pt_lib_once, which keeps the outcome. The runtime (libamdhip64) is
 * looked for on the loader path, then under $ROCM_PATH, $HIP_PATH and /opt/rocm*; hiprtc
 * and hipBLAS are looked for first in the runtime's own folder (a hiprtc from another ROCm
 * may emit code objects that runtime rejects), then in the same places. Loaded libraries
 * are never closed (cuda/lib.h says why). Nothing here talks to a GPU: counting devices is
 * hip.c's business.
 */
#include <stdlib.h>
#include "../cuda/lib.h"
#include "driver.h"

cu_api hip;
nvrtc_api hiprtc;
cublas_api hipblas;
const pt_lib_row hip_rows[] = {PT_CU_FUNCS(PT_API_ROW) PT_HIP_OWN(PT_OWN_ROW)};
const pt_lib_row hiprtc_rows[] = {PT_NVRTC_FUNCS(PT_API_ROW)};
const pt_lib_row hipblas_rows[] = {PT_CUBLAS_FUNCS(PT_API_ROW)};
_Static_assert(sizeof hip == PT_LIB_NROWS(hip_rows) * sizeof(void *) &&
                   sizeof hiprtc == PT_LIB_NROWS(hiprtc_rows) * sizeof(void *) &&
                   sizeof hipblas == PT_LIB_NROWS(hipblas_rows) * sizeof(void *),
               "a table is its rows' pointers, in order (CU_NAME counts on it)");

static pt_lib_state hip_state, rtc_state, blas_state;

/* First (when known), the loader path, then the usual ROCm homes, newest first. */
static pt_lib_dirs *rocm_dirs(const char *first) {
  pt_lib_dirs *l = pt_lib_dirs_new(first);
  if (!l) return NULL;
#ifdef _WIN32
  pt_lib_dirs_add(l, getenv("HIP_PATH"), "bin");
#else
  pt_lib_dirs_add(l, getenv("ROCM_PATH"), "lib");
  pt_lib_dirs_add(l, getenv("HIP_PATH"), "lib");
  pt_lib_dirs_add(l, "/opt/rocm/lib", NULL);
  pt_lib_dirs_glob(l, "/opt/rocm-*/lib", NULL, 1);
#endif
  return l;
}

/* ---- the three libraries ---------------------------------------------------------------- */

static int hip_load_locked(void) {
  pt_lib_state *s = &hip_state;
#ifdef __APPLE__
  (void)rocm_dirs;
  return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: there is no HIP runtime on macOS%s%s", "", NULL);
#else
#ifdef _WIN32
  static const char *const names[] = {"amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll", NULL};
  const char *what = "amdhip64_7.dll, amdhip64_6.dll or amdhip64.dll";
#else
  static const char *const names[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL};
  const char *what = "libamdhip64.so (.7, .6, .5 or unversioned)";
#endif
  pt_lib_dirs *l = rocm_dirs(NULL);
  if (!l) return pt_lib_fail(s, PT_EOOM, "hip: out of host memory looking for the runtime%s%s", "", NULL);
  char why[400];
  void *h = pt_lib_search(s, l, names, hip_rows, PT_LIB_NROWS(hip_rows), &hip, why, sizeof why);
  free(l);
  if (!h)
    return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: %s not found on the loader path, under $ROCM_PATH, $HIP_PATH or /opt/rocm* (no "
                "ROCm HIP runtime is installed): %s", what, why);
  pt_lib_dir_of((void *)hip.DeviceGetCount, s->dir, sizeof s->dir);
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
  pt_lib_dirs *l = rocm_dirs(hip_state.dir); /* the runtime's folder first: its hiprtc matches its code object loader */
  if (!l) return pt_lib_fail(s, PT_EOOM, "hip: out of host memory looking for hiprtc%s%s", "", NULL);
  char why[400];
  void *h = pt_lib_search(s, l, names, hiprtc_rows, PT_LIB_NROWS(hiprtc_rows), &hiprtc, why, sizeof why);
  if (!h) { /* before ROCm 5.3 hiprtc lived inside libamdhip64 itself */
    const char *own[2] = {hip_state.path, NULL};
    char ignored[400];
    l->n = 1;
    l->dir[0][0] = 0;
    h = pt_lib_search(s, l, own, hiprtc_rows, PT_LIB_NROWS(hiprtc_rows), &hiprtc, ignored, sizeof ignored);
  }
  free(l);
  if (!h)
    return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: hiprtc (%s) not found beside the runtime, on the loader path or under "
                "/opt/rocm*; install ROCm's hiprtc package: %s", names[1], why);
  int ma = 0, mi = 0;
  s->version = hiprtc.Version && hiprtc.Version(&ma, &mi) == NVRTC_SUCCESS ? ma * 1000 + mi * 10 : 0;
  return s->status = PT_OK;
}

static int blas_load_locked(void) {
  pt_lib_state *s = &blas_state;
#ifdef _WIN32
  static const char *const names[] = {"hipblas.dll", "libhipblas.dll", NULL};
#else
  static const char *const names[] = {"libhipblas.so.3", "libhipblas.so.2", "libhipblas.so.1", "libhipblas.so", NULL};
#endif
  pt_lib_dirs *l = rocm_dirs(hip_state.dir);
  if (!l) return pt_lib_fail(s, PT_EOOM, "hip: out of host memory looking for hipBLAS%s%s", "", NULL);
  char why[400];
  void *h = pt_lib_search(s, l, names, hipblas_rows, PT_LIB_NROWS(hipblas_rows), &hipblas, why, sizeof why);
  free(l);
  if (!h) return pt_lib_fail(s, PT_EUNAVAILABLE, "hip: hipBLAS (%s) not found; matmul uses its own kernel: %s", names[1], why);
  return s->status = PT_OK;
}

int hip_load(void) { return pt_lib_once(&hip_state, hip_load_locked, NULL, NULL); }
int hiprtc_load(void) { return pt_lib_once(&rtc_state, rtc_load_locked, &hip_state, hip_load_locked); }
int hipblas_load(void) { return pt_lib_once(&blas_state, blas_load_locked, &hip_state, hip_load_locked); }

int hip_runtime_version(void) {
  int v = 0;
  if (hip_load() != PT_OK || hip.RuntimeGetVersion(&v) != CUDA_SUCCESS) return 0;
  return v;
}
int hiprtc_version(void) { return rtc_state.version; }
const char *hip_path(void) { return hip_state.path; }
const char *hiprtc_path(void) { return rtc_state.path; }
const char *hipblas_path(void) { return blas_state.path; }
