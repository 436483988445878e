/* program.c: kernel source -> NVRTC (hiprtc) -> module -> pt_main, through the core's
 * program cache.
 *
 * Ownership and ordering. A program owns its module; the kind (blocks.h's PT_K_*) stays
 * with it because launch shapes and error reports depend on it. Compiled images are cached
 * (core program_cache.c) by a hash of the source and of what the vendor's build_setup
 * hashes (CUDA: target arch, NVRTC and driver versions, options; cuda.c), in memory and on
 * disk as <hash>.cubin (.hsaco on HIP); an entry that fails to load is rebuilt. Compiles
 * are serialised (compile_lock): NVRTC's thread safety varies by version, hiprtc's is not
 * documented, and the cost is paid once per program.
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"
#include "program_cache.h"

static pt_mutex compile_lock = PT_MUTEX_INIT;

static int compile(const char *kind, const char *src, const cuda_build *b, uint64_t key, unsigned char **out, size_t *n) {
  nvrtcProgram prog = NULL;
  char name[80];
  snprintf(name, sizeof name, "pt_%s" GPU_SRC_EXT, kind);
  nvrtcResult r = nvrtc.CreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) return pt_error(PT_EDRIVER, GPU_TAG ": %s failed: %s (%d)", RTC_NAME(CreateProgram), nvrtc.GetErrorString(r), r);
  if ((r = nvrtc.CompileProgram(prog, b->nopt, b->opts)) != NVRTC_SUCCESS) {
    size_t len = 0;
    char *log = NULL;
    if (nvrtc.GetProgramLogSize(prog, &len) == NVRTC_SUCCESS && (log = malloc(len + 1)) &&
        nvrtc.GetProgramLog(prog, log) == NVRTC_SUCCESS)
      log[len] = 0;
    else if (log) log[0] = 0;
    int st = pt_compile_failed(key, GPU_SRC_EXT, src, log ? log : "", GPU_TAG ": the %s program does not compile (" GPU_RTC
                               " %d.%d, %s): %s (%d)", kind, nvrtc_version() / 1000, nvrtc_version() % 1000 / 10, b->target,
                               nvrtc.GetErrorString(r), r);
    free(log);
    nvrtc.DestroyProgram(&prog);
    return st;
  }
  r = b->size(prog, n);
  if (r == NVRTC_SUCCESS && !(*out = malloc(*n ? *n : 1))) r = -1;
  if (r == NVRTC_SUCCESS) r = b->get(prog, (char *)*out);
  nvrtc.DestroyProgram(&prog);
  if (r == -1) return pt_error(PT_EOOM, GPU_TAG ": out of host memory for a compiled program");
  if (r != NVRTC_SUCCESS) { free(*out); return pt_error(PT_EDRIVER, GPU_TAG ": reading " GPU_RTC "'s output failed: %s (%d)", nvrtc.GetErrorString(r), r); }
  return PT_OK;
}

/* ---- programs --------------------------------------------------------------------------- */

/* *refused: the driver's answer to the image itself (CUDA_SUCCESS when it loaded). */
static int load(cuda_ctx *c, cuda_prog *p, const unsigned char *img, CUresult *refused) {
  CUresult r = cu.ModuleLoadData(&p->mod, img);
  *refused = r;
  if (r != CUDA_SUCCESS) { p->mod = NULL; return cu_fail(c, CU_NAME(ModuleLoadData), r); }
  if ((r = cu.ModuleGetFunction(&p->fn, p->mod, "pt_main")) != CUDA_SUCCESS) {
    int st = r == CUDA_ERROR_NOT_FOUND
                 ? pt_error(PT_EINVAL, GPU_TAG ": the %s program defines no extern \"C\" __global__ pt_main (params.h)", pt_program_kind_name(p->kind))
                 : cu_fail(c, CU_NAME(ModuleGetFunction), r);
    cu.ModuleUnload(p->mod);
    p->mod = NULL;
    return st;
  }
  int threads = PT_CUDA_BLOCK;
  if (cu.FuncGetAttribute && cu.FuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p->fn) == CUDA_SUCCESS &&
      threads < PT_CUDA_BLOCK) {
    cu.ModuleUnload(p->mod);
    p->mod = NULL;
    return pt_error(PT_EINVAL, GPU_TAG ": the %s kernel can run at most %d threads a block (registers); launches use %d",
                    pt_program_kind_name(p->kind), threads, PT_CUDA_BLOCK);
  }
  return PT_OK;
}

/* One program_create's state, for core's pt_cache_image. refused: the driver's answer to the
 * fresh image (load_hint's cue), cleared when a cached one was refused. */
typedef struct {
  cuda_ctx *c;
  cuda_prog *p;
  const char *kind, *text;
  cuda_build b;
  uint64_t key;
  CUresult refused;
} job;

static int job_load(void *arg, const unsigned char *img, size_t n) {
  job *j = arg;
  (void)n;
  return load(j->c, j->p, img, &j->refused);
}

static int job_usable(void *arg) {
  job *j = arg;
  j->refused = CUDA_SUCCESS;
  return pt_sticky_code(&j->c->dead) ? cu_enter(j->c) : PT_OK;
}

static int job_build(void *arg, unsigned char **img, size_t *n) {
  job *j = arg;
  return compile(j->kind, j->text, &j->b, j->key, img, n);
}

static const pt_image_ops job_ops = {job_load, job_usable, job_build};

int cuda_program_create(void *ctx, const char *kind, const uint8_t *src, size_t srclen, void **out) {
  cuda_ctx *c = ctx;
  int k, st;
  char *text;
  size_t len;
  if ((st = pt_program_source(GPU_TAG, kind, src, srclen, GPU_SOURCE " source defining pt_main", PT_K_MATMUL, &k, &text, &len)) != PT_OK)
    return st;
  cuda_prog *p = calloc(1, sizeof *p);
  if (!p) { free(text); return pt_error(PT_EOOM, GPU_TAG ": out of host memory for a program"); }
  p->kind = k;
  /* the renderers' only ways to write the word (cuda/preamble.ts): a direct call, or the templates' macro */
  p->reports = strstr(text, "pt_fail(p.err") != NULL || strstr(text, "PT_FAIL(PT_KERR_") != NULL;
  job j = {.c = c, .p = p, .kind = kind, .text = text, .refused = CUDA_SUCCESS};
  if (len > 0 && (st = cu_enter(c)) == PT_OK && (st = nvrtc_load()) == PT_OK && (st = vendor_build_setup(c, &j.b)) == PT_OK) {
    j.key = pt_cache_hash(j.b.key, text, len);
    st = pt_cache_image(j.key, GPU_IMAGE_EXT, &compile_lock, &job_ops, &j);
    if (st != PT_OK && j.refused != CUDA_SUCCESS) st = vendor_load_hint(c, &j.b, j.refused, st);
  }
  free(text);
  if (st != PT_OK) {
    free(p);
    return st;
  }
  *out = p;
  return PT_OK;
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
    if (r != CUDA_SUCCESS) cu_fail(c, CU_NAME(CtxSynchronize), r);
    cu.ModuleUnload(p->mod);
  }
  free(p);
}
