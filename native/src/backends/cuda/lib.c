/* lib.c: finds and opens the CUDA driver, NVRTC and cuBLAS at run time.
 *
 * Ownership and ordering. Each library is looked for once per process, on first use,
 * through core/dlib.h's pt_lib_once, which keeps the outcome. The driver comes from the loader path
 * only (it belongs to the installed kernel module). NVRTC and cuBLAS are looked for on the
 * loader path, then under $CUDA_PATH/$CUDA_HOME, /usr/local/cuda and pip's NVIDIA wheels,
 * since a toolkit is often present but not on the loader path; among what is found, a
 * library no newer than the driver wins (a newer one emits code the driver rejects).
 * Loaded libraries are never closed (lib.h says why).
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"
#include "driver.h"
#include "dlib.h"

#ifndef _WIN32
#include <glob.h>
#endif

cu_api cu;
nvrtc_api nvrtc;
cublas_api cublas;
const pt_lib_row cu_rows[] = {PT_CU_FUNCS(PT_API_ROW) PT_CU_OWN(PT_OWN_ROW)};
const pt_lib_row nvrtc_rows[] = {PT_NVRTC_FUNCS(PT_API_ROW) PT_NVRTC_OWN(PT_OWN_ROW)};
const pt_lib_row cublas_rows[] = {PT_CUBLAS_FUNCS(PT_API_ROW) PT_CUBLAS_OWN(PT_OWN_ROW)};
_Static_assert(sizeof cu == PT_LIB_NROWS(cu_rows) * sizeof(void *) &&
                   sizeof nvrtc == PT_LIB_NROWS(nvrtc_rows) * sizeof(void *) &&
                   sizeof cublas == PT_LIB_NROWS(cublas_rows) * sizeof(void *),
               "a table is its rows' pointers, in order (CU_NAME counts on it)");

static pt_lib_state cu_state, nvrtc_state, cublas_state;

/* ---- where toolkits live -------------------------------------------------------------- */

/* subs: the pip wheels' folders below site-packages that hold the library. */
static void toolkit_dirs(pt_lib_dirs *l, const char *const *subs) {
  static const char *const homes[] = {"CUDA_PATH", "CUDA_HOME"};
  for (int i = 0; i < 2; i++) {
#ifdef _WIN32
    pt_lib_dirs_add(l, getenv(homes[i]), "bin\\x64"); /* CUDA 13 moved the DLLs here */
    pt_lib_dirs_add(l, getenv(homes[i]), "bin");
#else
    pt_lib_dirs_add(l, getenv(homes[i]), "lib64");
    pt_lib_dirs_add(l, getenv(homes[i]), "lib");
#endif
  }
#ifndef _WIN32
  pt_lib_dirs_glob(l, "/usr/local/cuda/targets/*/lib", NULL, 0);
  pt_lib_dirs_add(l, "/usr/local/cuda/lib64", NULL);
  pt_lib_dirs_glob(l, "/usr/local/cuda-*/targets/*/lib", NULL, 0); /* versioned installs without the symlink */
  pt_lib_dirs_glob(l, "/usr/local/cuda-*/lib64", NULL, 0);
  pt_lib_dirs_add(l, getenv("CONDA_PREFIX"), "lib");
  char pat[400];
  const char *home = getenv("HOME"), *venv = getenv("VIRTUAL_ENV");
  const char *sites[6] = {"/usr/lib/python3*/dist-packages", "/usr/local/lib/python3*/dist-packages",
                          "/usr/local/lib/python3*/site-packages", NULL, NULL, NULL};
  char s3[400] = "", s4[400] = "";
  if (home) { snprintf(s3, sizeof s3, "%s/.local/lib/python3*/site-packages", home); sites[3] = s3; }
  if (venv) { snprintf(s4, sizeof s4, "%s/lib/python3*/site-packages", venv); sites[4] = s4; }
  for (int i = 0; i < 6; i++)
    for (int j = 0; sites[i] && subs[j]; j++) {
      snprintf(pat, sizeof pat, "%s/%s", sites[i], subs[j]);
      pt_lib_dirs_glob(l, pat, NULL, 0);
    }
#else
  (void)subs;
#endif
}

/* ---- the three libraries ---------------------------------------------------------------- */

static int cu_load_locked(void) {
  pt_lib_state *s = &cu_state;
#ifdef __APPLE__
  return pt_lib_fail(s, PT_EUNAVAILABLE, "cuda: there is no CUDA driver on macOS%s%s", "", NULL);
#else
#ifdef _WIN32
  static const char *const names[] = {"nvcuda.dll"};
#else
  static const char *const names[] = {"libcuda.so.1", "libcuda.so", "/usr/lib/wsl/lib/libcuda.so.1"};
#endif
  char why[300] = "", first[300] = "";
  void *h = NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names && !h; i++) {
    h = pt_lib_open(names[i], 0, why, sizeof why);
    if (!h && !first[0]) snprintf(first, sizeof first, "%s", why);
    if (h) snprintf(s->path, sizeof s->path, "%s", names[i]);
  }
  if (!h) return pt_lib_fail(s, PT_EUNAVAILABLE, "cuda: %s not found (no NVIDIA driver is installed): %s", names[0], first);
  const char *missing = pt_lib_resolve(h, cu_rows, PT_LIB_NROWS(cu_rows), &cu);
  if (missing) return pt_lib_fail(s, PT_EUNAVAILABLE, "cuda: the driver library lacks %s%s (driver too old?)", missing, NULL);
  CUresult r = cu.Init(0);
  if (r != CUDA_SUCCESS) {
    const char *name = NULL, *text = NULL;
    if (cu.GetErrorName(r, &name) != CUDA_SUCCESS) name = "CUDA_ERROR_?";
    if (cu.GetErrorString(r, &text) != CUDA_SUCCESS) text = "";
    snprintf(s->reason, sizeof s->reason, "cuda: cuInit failed: %s (%d): %s", name, r, text);
    return s->status = PT_EUNAVAILABLE;
  }
  if (cu.DriverGetVersion(&s->version) != CUDA_SUCCESS) s->version = 0;
  return s->status = PT_OK;
#endif
}

/* Tries names on the loader path, then in every toolkit folder; keeps the first library
 * whose version is no newer than the driver, else the first one found. subs: pip folders.
 * cuBLAS needs cublasLt, loaded globally from the same folder first: a toolkit's lib64
 * carries no RUNPATH for it. */
static void *find_versioned(pt_lib_state *s, const char *const *names, const char *const *subs, const pt_lib_row *rows,
                            size_t nrows, void *table, size_t table_size, int (*version)(void), const char *what) {
  pt_lib_dirs *l = pt_lib_dirs_new(NULL);
  if (!l) { pt_lib_fail(s, PT_EOOM, "cuda: out of host memory looking for %s%s", what, NULL); return NULL; }
  toolkit_dirs(l, subs);
  int driver = cu_state.version;
  void *best = NULL, *fallback = NULL;
  char fallback_path[512] = "", path[512];
  unsigned char fallback_table[512];
  if (table_size > sizeof fallback_table) { free(l); return NULL; }
  for (int d = 0; d < l->n && !best; d++) {
    for (int i = 0; names[i] && !best; i++) {
      pt_lib_join(path, sizeof path, l->dir[d], names[i]);
#ifndef _WIN32
      if (l->dir[d][0] && strstr(names[i], "libcublas.")) { /* preload libcublasLt.so<same suffix> */
        char lt[512];
        snprintf(lt, sizeof lt, "%s/libcublasLt%s", l->dir[d], names[i] + strlen("libcublas"));
        if (!pt_lib_open(lt, 1, NULL, 0)) continue;
      }
#endif
      void *h = pt_lib_open(path, 0, NULL, 0);
      if (!h) continue;
      if (pt_lib_resolve(h, rows, nrows, table)) { pt_lib_close(h); continue; }
      int v = version();
      if (driver == 0 || v == 0 || v / 1000 <= driver / 1000) {
        best = h;
        snprintf(s->path, sizeof s->path, "%s", path);
      } else if (!fallback) {
        fallback = h;
        snprintf(fallback_path, sizeof fallback_path, "%s", path);
        memcpy(fallback_table, table, table_size);
      }
    }
  }
  free(l);
  if (!best && fallback) {
    memcpy(table, fallback_table, table_size);
    snprintf(s->path, sizeof s->path, "%s", fallback_path);
    best = fallback;
  }
  if (best) s->version = version();
  return best;
}

static int nvrtc_version_now(void) {
  int ma = 0, mi = 0;
  return nvrtc.Version && nvrtc.Version(&ma, &mi) == NVRTC_SUCCESS ? ma * 1000 + mi * 10 : 0;
}

static int cublas_version_now(void) {
  int ma = 0, mi = 0;
  if (!cublas.GetProperty || cublas.GetProperty(0, &ma) != 0 || cublas.GetProperty(1, &mi) != 0) return 0;
  return ma * 1000 + mi * 10;
}

static int nvrtc_load_locked(void) {
  pt_lib_state *s = &nvrtc_state;
#ifdef _WIN32
  static const char *const names[] = {"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll", NULL};
#else
  static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", NULL};
#endif
  static const char *const subs[] = {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", NULL};
  void *h = find_versioned(s, names, subs, nvrtc_rows, PT_LIB_NROWS(nvrtc_rows), &nvrtc, sizeof nvrtc, nvrtc_version_now, "NVRTC");
  if (!h) {
    if (s->status == PT_EOOM) return s->status;
    return pt_lib_fail(s, PT_EUNAVAILABLE,
                "cuda: NVRTC (%s) not found on the loader path, under $CUDA_PATH, $CUDA_HOME, /usr/local/cuda or in "
                "pip's nvidia packages; install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`%s",
                names[0], NULL);
  }
#ifndef _WIN32
  /* NVRTC dlopens libnvrtc-builtins by name at compile time; loaded globally from NVRTC's own
   * folder first, it is found there even when that folder is not on the loader path. */
  const char *slash = strrchr(s->path, '/');
  if (slash) {
    char pat[600];
    snprintf(pat, sizeof pat, "%.*s/libnvrtc-builtins.so*", (int)(slash - s->path), s->path);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) pt_lib_open(g.gl_pathv[i], 1, NULL, 0);
      globfree(&g);
    }
  }
#endif
  return s->status = PT_OK;
}

static int cublas_load_locked(void) {
  pt_lib_state *s = &cublas_state;
#ifdef _WIN32
  static const char *const names[] = {"cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll", NULL};
#else
  static const char *const names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", NULL};
#endif
  static const char *const subs[] = {"nvidia/cu13/lib", "nvidia/cublas/lib", NULL};
  void *h = find_versioned(s, names, subs, cublas_rows, PT_LIB_NROWS(cublas_rows), &cublas, sizeof cublas, cublas_version_now,
                           "cuBLAS");
  if (!h) {
    if (s->status == PT_EOOM) return s->status;
    return pt_lib_fail(s, PT_EUNAVAILABLE, "cuda: cuBLAS (%s) not found; matmul uses its own kernel%s", names[0], NULL);
  }
  return s->status = PT_OK;
}

int cu_load(void) { return pt_lib_once(&cu_state, cu_load_locked, NULL, NULL); }
int nvrtc_load(void) { return pt_lib_once(&nvrtc_state, nvrtc_load_locked, &cu_state, cu_load_locked); }
int cublas_load(void) { return pt_lib_once(&cublas_state, cublas_load_locked, &cu_state, cu_load_locked); }
int cu_driver_version(void) { return cu_state.version; }
int nvrtc_version(void) { return nvrtc_state.version; }
const char *nvrtc_path(void) { return nvrtc_state.path; }
const char *cublas_path(void) { return cublas_state.path; }
