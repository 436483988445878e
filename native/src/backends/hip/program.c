/* program.c: HIP C++ source -> hiprtc -> code object -> module -> pt_main, through the
 * core's program cache.
 *
 * Ownership and ordering. A program owns its module; the kind (blocks.h's PT_K_*) stays
 * with it because launch shapes and error reports depend on it. Code objects are cached
 * (core program_cache.c) by a hash of (source, gcnArchName, wave size, hiprtc and runtime
 * versions, options), in memory and on disk as <hash>.hsaco; an entry that fails to load is
 * rebuilt. Compiles are serialised (compile_lock): hiprtc's thread safety is not documented,
 * and the cost is paid once per program. Options: -ffp-contract=off, because HIP's clang
 * contracts a*b+c into fma by default and the CPU backend rounds each op; denormals are kept
 * (clang's default for HIP: no -fgpu-flush-denormals-to-zero), as the CPU keeps them.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hip.h"
#include "program_cache.h"

static pt_mutex compile_lock = PT_MUTEX_INIT;

#define LOG_EXCERPT 640 /* the core's message buffer is 1 KB; the full log goes to disk */

static const char *const options[] = {"-O3", "-std=c++17", "-ffp-contract=off"};
#define NOPT (sizeof options / sizeof *options)

/* Writes the failed source and the whole log next to the cache, for whoever debugs the
 * renderer; returns the log's path or "". */
static const char *dump(uint64_t key, const char *src, const char *log, char *path, size_t cap) {
  char p[800];
  FILE *f;
  if (!pt_cache_path(p, sizeof p, key, "-failed.hip") || !(f = fopen(p, "wb"))) return "";
  fputs(src, f);
  fclose(f);
  if (!pt_cache_path(path, cap, key, "-failed.log") || !(f = fopen(path, "wb"))) return "";
  fputs(log, f);
  fclose(f);
  return path;
}

/* extra: the device's options (arch, wave size), NULL-terminated. */
static int compile(const char *kind, const char *src, const char *const *extra, uint64_t key, unsigned char **out,
                   size_t *n) {
  hiprtcProgram prog = NULL;
  char name[80], dumped[800];
  snprintf(name, sizeof name, "pt_%s.hip", kind);
  const char *opts[NOPT + 4];
  int nopt = 0;
  for (size_t i = 0; i < NOPT; i++) opts[nopt++] = options[i];
  for (int i = 0; extra[i] && nopt < (int)(sizeof opts / sizeof *opts); i++) opts[nopt++] = extra[i];
  hiprtcResult r = hiprtc.CreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != HIPRTC_SUCCESS) return pt_error(PT_EDRIVER, "hip: hiprtcCreateProgram failed: %s (%d)", hiprtc.GetErrorString(r), r);
  if ((r = hiprtc.CompileProgram(prog, nopt, opts)) != HIPRTC_SUCCESS) {
    size_t len = 0;
    char *log = NULL;
    if (hiprtc.GetProgramLogSize(prog, &len) == HIPRTC_SUCCESS && (log = malloc(len + 1)) &&
        hiprtc.GetProgramLog(prog, log) == HIPRTC_SUCCESS)
      log[len] = 0;
    else if (log)
      log[0] = 0;
    const char *where = log ? dump(key, src, log, dumped, sizeof dumped) : "";
    int st = pt_error(PT_EDRIVER, "hip: hiprtc (%s) could not compile the %s program: %s (%d): %.*s%s%s", hiprtc_path(), kind,
                      hiprtc.GetErrorString(r), r, LOG_EXCERPT, log ? log : "(no log)", *where ? " (full log: " : "",
                      *where ? where : "");
    if (*where) { /* close the parenthesis without overflowing the excerpt */
      char msg[1100];
      int m = pt_last_error((uint8_t *)msg, (int32_t)sizeof msg - 2);
      if (m > 0 && m < (int)sizeof msg - 2) { msg[m] = ')'; msg[m + 1] = 0; pt_error(st, "%s", msg); }
    }
    free(log);
    hiprtc.DestroyProgram(&prog);
    return st;
  }
  size_t size = 0;
  unsigned char *img = NULL;
  if ((r = hiprtc.GetCodeSize(prog, &size)) == HIPRTC_SUCCESS && size > 0 && (img = malloc(size)))
    r = hiprtc.GetCode(prog, (char *)img);
  hiprtc.DestroyProgram(&prog);
  if (!img) return pt_error(PT_EOOM, "hip: no code object from hiprtc for the %s program (%zu bytes)", kind, size);
  if (r != HIPRTC_SUCCESS) {
    free(img);
    return pt_error(PT_EDRIVER, "hip: hiprtcGetCode failed: %s (%d)", hiprtc.GetErrorString(r), r);
  }
  *out = img;
  *n = size;
  return PT_OK;
}

/* *rejected: the runtime refused the image itself (stale cache entry, other arch). */
static int load(hip_ctx *c, hip_prog *p, const unsigned char *img, int *rejected) {
  hipError_t r = hip.ModuleLoadData(&p->mod, img);
  *rejected = r == hipErrorInvalidImage || r == hipErrorNoBinaryForGpu || r == hipErrorInvalidKernelFile;
  if (r != hipSuccess) { p->mod = NULL; return hip_fail(c, "hipModuleLoadData", r); }
  if ((r = hip.ModuleGetFunction(&p->fn, p->mod, "pt_main")) != hipSuccess) {
    hip.ModuleUnload(p->mod);
    p->mod = NULL;
    return hip_fail(c, "hipModuleGetFunction (pt_main)", r);
  }
  return PT_OK;
}

int hipd_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **out) {
  hip_ctx *c = ctx;
  int k = pt_program_kind(kind), st;
  if (k < 0)
    return pt_error(PT_EINVAL, "hip: unknown program kind \"%s\" (expected ew, reduce, scan, matmul, sort, gather, scatter, "
                    "index_put, index_get, nonzero, masked_select or philox)", kind);
  if (len == 0 && k != PT_K_MATMUL) /* matmul may rely on hipBLAS alone */
    return pt_error(PT_EINVAL, "hip: a %s program needs HIP source defining pt_main; got none", kind);
  if (len > 0 && src[len - 1] == 0) len--; /* renderers NUL-terminate their text */
  if (len > 0 && memchr(src, 0, len)) return pt_error(PT_EINVAL, "hip: the %s program's source contains a NUL byte", kind);
  hip_prog *p = calloc(1, sizeof *p);
  char *text = malloc(len + 1);
  if (!p || !text) { free(p); free(text); return pt_error(PT_EOOM, "hip: out of host memory for a program"); }
  p->kind = k;
  if (len > 0) memcpy(text, src, len);
  text[len] = 0;
  if (len == 0) { free(text); *out = p; return PT_OK; }
  if ((st = hip_enter(c)) != PT_OK || (st = hiprtc_load()) != PT_OK) goto fail;

  /* No arch known: hiprtc compiles for the current device, which hip_enter selected. */
  char arch[160], wave[40];
  snprintf(arch, sizeof arch, "--offload-arch=%s", c->arch);
  snprintf(wave, sizeof wave, "-DPT_WAVE_SIZE=%d", c->wave);
  const char *extra[3] = {wave, c->arch[0] ? arch : NULL, NULL};
  int vers[3] = {hiprtc_version(), hip_runtime_version(), c->wave};
  uint64_t key = pt_cache_hash(PT_CACHE_SEED, "polytensor-hip-1", 17);
  key = pt_cache_hash(key, c->arch, strlen(c->arch) + 1);
  key = pt_cache_hash(key, vers, sizeof vers);
  for (size_t i = 0; i < NOPT; i++) key = pt_cache_hash(key, options[i], strlen(options[i]) + 1);
  key = pt_cache_hash(key, text, len);

  /* Only images that loaded go into the memory cache, so a bad disk entry is met once. */
  size_t n = 0;
  unsigned char *img = pt_cache_mem_get(key, &n);
  int from_disk = 0, rejected = 0;
  if (!img) from_disk = (img = pt_cache_disk_get(key, ".hsaco", &n)) != NULL;
  if (img && load(c, p, img, &rejected) == PT_OK) {
    if (from_disk) pt_cache_mem_put(key, img, n);
  } else if (img) { /* stale or corrupt: build it again */
    free(img);
    img = NULL;
    if (atomic_load(&c->dead)) { st = hip_enter(c); goto fail; }
  }
  if (!p->mod) {
    pt_mutex_lock(&compile_lock);
    st = compile(kind, text, extra, key, &img, &n);
    pt_mutex_unlock(&compile_lock);
    if (st != PT_OK) goto fail;
    if ((st = load(c, p, img, &rejected)) != PT_OK) {
      free(img);
      if (rejected) {
        char msg[600];
        int m = pt_last_error((uint8_t *)msg, (int32_t)sizeof msg - 1);
        msg[m > 0 && m < (int)sizeof msg ? m : 0] = 0;
        st = pt_error(st, "%s (the runtime %s rejected the code object hiprtc %s built for %s: use the hiprtc of the "
                      "same ROCm as the runtime)", msg, hip_path(), hiprtc_path(), c->arch[0] ? c->arch : "the current device");
      }
      goto fail;
    }
    pt_cache_mem_put(key, img, n);
    pt_cache_disk_put(key, ".hsaco", img, n);
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

void hipd_program_free(void *ctx, void *prog) {
  hip_ctx *c = ctx;
  hip_prog *p = prog;
  /* The core drops a program while kernels launched from it may still be queued, and
   * hipModuleUnload documents no wait: wait here (programs are freed rarely). */
  if (p->mod && hip_enter(c) == PT_OK) {
    hipError_t r = hip.DeviceSynchronize();
    if (r != hipSuccess) hip_fail(c, "hipDeviceSynchronize", r);
    hip.ModuleUnload(p->mod);
  }
  free(p);
}
