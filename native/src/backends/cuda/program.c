/* program.c: CUDA C source -> NVRTC -> module -> pt_main, through the core's program cache.
 *
 * Ownership and ordering. A program owns its module; the kind (blocks.h's PT_K_*) stays
 * with it because launch shapes and error reports depend on it. Compiled images are cached
 * (core program_cache.c) by a hash of (source, target arch, NVRTC version, driver version,
 * options), in memory and on disk as <hash>.cubin; an entry that fails to load is rebuilt. Compiles
 * are serialised (compile_lock): NVRTC's thread safety varies by version, and the cost
 * is paid once per program.
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"
#include "program_cache.h"

static pt_mutex compile_lock = PT_MUTEX_INIT;
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <direct.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

#define LOG_EXCERPT 640           /* the core's message buffer is 1 KB; the full log goes to disk */

static const char *const options[] = {"-default-device", "--std=c++17", "-fmad=false"}; /* no contraction: match the CPU */

/* ---- NVRTC ---------------------------------------------------------------------------- */

/* The device's own arch as a CUBIN when this NVRTC knows it; else PTX for the newest arch
 * it knows below the device's, which the driver compiles on load. */
static int pick_arch(const cuda_ctx *c, char *opt, size_t cap, int *cubin) {
  int want = c->cc_major * 10 + c->cc_minor, best = want, n = 0, archs[128];
  *cubin = nvrtc.GetCUBIN && nvrtc.GetCUBINSize;
  if (nvrtc.GetNumSupportedArchs && nvrtc.GetSupportedArchs && nvrtc.GetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0 &&
      n <= 128 && nvrtc.GetSupportedArchs(archs) == NVRTC_SUCCESS) {
    best = 0;
    for (int i = 0; i < n; i++)
      if (archs[i] <= want && archs[i] > best) best = archs[i];
    if (best == 0)
      return pt_error(PT_EUNSUPPORTED, "cuda: NVRTC %d.%d (%s) compiles for sm_%d and newer; this device is sm_%d",
                      nvrtc_version() / 1000, nvrtc_version() % 1000 / 10, nvrtc_path(), archs[0], want);
  }
  if (best != want) *cubin = 0;
  snprintf(opt, cap, "--gpu-architecture=%s_%d", *cubin ? "sm" : "compute", best);
  return PT_OK;
}

/* Writes the failed source and the whole log next to the cache, for whoever debugs the
 * renderer; returns the log's path or "". */
static const char *dump(uint64_t key, const char *src, const char *log, char *path, size_t cap) {
  char p[800];
  FILE *f;
  if (!pt_cache_path(p, sizeof p, key, "-failed.cu") || !(f = fopen(p, "wb"))) return "";
  fputs(src, f);
  fclose(f);
  if (!pt_cache_path(path, cap, key, "-failed.log") || !(f = fopen(path, "wb"))) return "";
  fputs(log, f);
  fclose(f);
  return path;
}

static int compile(const char *kind, const char *src, const char *arch, int cubin, uint64_t key, unsigned char **out, size_t *n) {
  nvrtcProgram prog = NULL;
  char name[80], dumped[800];
  snprintf(name, sizeof name, "pt_%s.cu", kind);
  const char *opts[4] = {arch, options[0], options[1], options[2]};
  nvrtcResult r = nvrtc.CreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) return pt_error(PT_EDRIVER, "cuda: nvrtcCreateProgram failed: %s (%d)", nvrtc.GetErrorString(r), r);
  if ((r = nvrtc.CompileProgram(prog, 4, opts)) != NVRTC_SUCCESS) {
    size_t len = 0;
    char *log = NULL;
    if (nvrtc.GetProgramLogSize(prog, &len) == NVRTC_SUCCESS && (log = malloc(len + 1)) &&
        nvrtc.GetProgramLog(prog, log) == NVRTC_SUCCESS)
      log[len] = 0;
    else if (log) log[0] = 0;
    const char *where = dump(key, src, log ? log : "", dumped, sizeof dumped);
    int st = pt_error(PT_EINVAL, "cuda: the %s program does not compile (NVRTC %d.%d, %s): %s (%d)%s%s:\n%.*s%s", kind,
                      nvrtc_version() / 1000, nvrtc_version() % 1000 / 10, arch, nvrtc.GetErrorString(r), r,
                      *where ? "; source and full log at " : "", where, LOG_EXCERPT, log ? log : "",
                      log && strlen(log) > LOG_EXCERPT ? "..." : "");
    free(log);
    nvrtc.DestroyProgram(&prog);
    return st;
  }
  r = cubin ? nvrtc.GetCUBINSize(prog, n) : nvrtc.GetPTXSize(prog, n);
  if (r == NVRTC_SUCCESS && !(*out = malloc(*n ? *n : 1))) r = -1;
  if (r == NVRTC_SUCCESS) r = cubin ? nvrtc.GetCUBIN(prog, (char *)*out) : nvrtc.GetPTX(prog, (char *)*out);
  nvrtc.DestroyProgram(&prog);
  if (r == -1) return pt_error(PT_EOOM, "cuda: out of host memory for a compiled program");
  if (r != NVRTC_SUCCESS) { free(*out); return pt_error(PT_EDRIVER, "cuda: reading NVRTC's output failed: %s (%d)", nvrtc.GetErrorString(r), r); }
  return PT_OK;
}

/* ---- programs --------------------------------------------------------------------------- */

static int load(cuda_ctx *c, cuda_prog *p, const unsigned char *img, int *rejected) {
  CUresult r = cu.ModuleLoadData(&p->mod, img);
  *rejected = r != CUDA_SUCCESS;
  if (r != CUDA_SUCCESS) return cu_fail(c, "cuModuleLoadData", r);
  if ((r = cu.ModuleGetFunction(&p->fn, p->mod, "pt_main")) != CUDA_SUCCESS) {
    int st = r == CUDA_ERROR_NOT_FOUND
                 ? pt_error(PT_EINVAL, "cuda: the %s program defines no extern \"C\" __global__ pt_main (params.h)", pt_program_kind_name(p->kind))
                 : cu_fail(c, "cuModuleGetFunction", r);
    cu.ModuleUnload(p->mod);
    p->mod = NULL;
    return st;
  }
  int threads = PT_CUDA_BLOCK;
  if (cu.FuncGetAttribute && cu.FuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p->fn) == CUDA_SUCCESS &&
      threads < PT_CUDA_BLOCK) {
    cu.ModuleUnload(p->mod);
    p->mod = NULL;
    return pt_error(PT_EINVAL, "cuda: the %s kernel can run at most %d threads a block (registers); launches use %d",
                    pt_program_kind_name(p->kind), threads, PT_CUDA_BLOCK);
  }
  return PT_OK;
}

/* A module from a newer NVRTC than the driver may not load: say so after the driver's words. */
static int newer_hint(int st, const char *arch) {
  char msg[1024];
  int n = pt_last_error((uint8_t *)msg, (int32_t)sizeof msg - 1);
  msg[n < (int)sizeof msg - 1 ? n : (int)sizeof msg - 1] = 0;
  int nv = nvrtc_version(), dv = cu_driver_version();
  return pt_error(st, "%s (compiled by NVRTC %d.%d for %s, newer than the driver's CUDA %d.%d: use an NVRTC no newer "
                  "than the driver)", msg, nv / 1000, nv % 1000 / 10, arch, dv / 1000, dv % 1000 / 10);
}

int cuda_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **out) {
  cuda_ctx *c = ctx;
  int k = pt_program_kind(kind), st, cubin = 0;
  if (k < 0)
    return pt_error(PT_EINVAL, "cuda: unknown program kind \"%s\" (expected ew, reduce, scan, matmul, sort, gather, scatter, "
                    "index_put, index_get, nonzero, masked_select or philox)", kind);
  if (len == 0 && k != PT_K_MATMUL) /* matmul may rely on cuBLAS alone */
    return pt_error(PT_EINVAL, "cuda: a %s program needs CUDA C source defining pt_main; got none", kind);
  if (len > 0 && src[len - 1] == 0) len--; /* renderers may NUL-terminate their text */
  if (len > 0 && memchr(src, 0, len)) return pt_error(PT_EINVAL, "cuda: the %s program's source contains a NUL byte", kind);
  cuda_prog *p = calloc(1, sizeof *p);
  char *text = malloc(len + 1), arch[40];
  if (!p || !text) { free(p); free(text); return pt_error(PT_EOOM, "cuda: out of host memory for a program"); }
  p->kind = k;
  if (len > 0) memcpy(text, src, len);
  text[len] = 0;
  /* the renderers' only ways to write the word (cuda/preamble.ts): a direct call, or the templates' macro */
  p->reports = strstr(text, "pt_fail(p.err") != NULL || strstr(text, "PT_FAIL(PT_KERR_") != NULL;
  if (len == 0) { free(text); *out = p; return PT_OK; }
  if ((st = cu_enter(c)) != PT_OK || (st = nvrtc_load()) != PT_OK || (st = pick_arch(c, arch, sizeof arch, &cubin)) != PT_OK) goto fail;

  int vers[2] = {nvrtc_version(), cu_driver_version()};
  uint64_t key = pt_cache_hash(PT_CACHE_SEED, "polytensor-cuda-1", 18);
  key = pt_cache_hash(key, arch, strlen(arch) + 1);
  key = pt_cache_hash(key, vers, sizeof vers);
  for (size_t i = 0; i < sizeof options / sizeof *options; i++) key = pt_cache_hash(key, options[i], strlen(options[i]) + 1);
  key = pt_cache_hash(key, text, len);

  /* Only images that loaded go into the memory cache, so a bad disk entry is met once. */
  size_t n = 0;
  unsigned char *img = pt_cache_mem_get(key, &n);
  int from_disk = 0;
  if (!img) from_disk = (img = pt_cache_disk_get(key, ".cubin", &n)) != NULL;
  int rejected = 0;
  if (img && load(c, p, img, &rejected) == PT_OK) {
    if (from_disk) pt_cache_mem_put(key, img, n);
  } else if (img) { /* stale or corrupt: build it again */
    free(img);
    img = NULL;
    if (atomic_load(&c->dead)) { st = cu_enter(c); goto fail; }
  }
  if (!p->mod) {
    pt_mutex_lock(&compile_lock);
    st = compile(kind, text, arch, cubin, key, &img, &n);
    pt_mutex_unlock(&compile_lock);
    if (st != PT_OK) goto fail;
    if ((st = load(c, p, img, &rejected)) != PT_OK) {
      free(img);
      if (rejected && nvrtc_version() > cu_driver_version()) st = newer_hint(st, arch);
      goto fail;
    }
    pt_cache_mem_put(key, img, n);
    pt_cache_disk_put(key, ".cubin", img, n);
  }
  free(img);
  free(text);
  *out = p;
  return PT_OK;
fail:
  free(text);
  free(p);
  return st;
}

void cuda_program_free(void *ctx, void *prog) {
  cuda_ctx *c = ctx;
  cuda_prog *p = prog;
  /* The core drops a program while kernels launched from it may still be queued; the
   * driver documents no wait in cuModuleUnload, so wait here (programs are freed rarely:
   * a cache eviction or a device close). */
  if (p->mod && cu_enter(c) == PT_OK) {
    cuda_drain_all(c); /* launch records naming its function are issued first */
    CUresult r = cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) cu_fail(c, "cuCtxSynchronize", r);
    cu.ModuleUnload(p->mod);
  }
  free(p);
}
