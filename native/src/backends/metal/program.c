/* program.c: MSL source -> MTLLibrary -> pt_main -> compute pipeline, cached per context.
 *
 * Ownership and ordering. A program holds a retained pipeline state and its kind (launch
 * shapes and error reports depend on it). Pipelines are cached in memory per context by
 * their exact source text (hash, then a full compare), so a program made twice compiles
 * once; the cache is the context's and goes at shutdown. There is no on-disk cache: a
 * pipeline is a device object, Metal binary archives would be the way to keep one, and
 * macOS already keeps compiled Metal functions in its own shader cache across runs, so the
 * second process pays far less than the first (unmeasured here). Compiles run outside every
 * lock (newLibraryWithSource is thread-safe); two threads compiling one source at once both
 * compile, and the first to finish fills the cache. Fast math is off: no contraction, no
 * flushed subnormals, precise functions, as the CPU backend computes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metal.h"
#include "program_cache.h"

#define MAX_CACHED 4096

/* The driver's own kernel for copies a blit cannot do (offsets or size not multiples of 4). */
static const char copy_src[] =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void pt_copy_bytes(device const uchar *src [[buffer(0)]], device uchar *dst [[buffer(1)]],\n"
    "                          constant ulong *a [[buffer(2)]], uint3 group [[threadgroup_position_in_grid]],\n"
    "                          uint3 groups [[threadgroups_per_grid]], uint lid [[thread_position_in_threadgroup]]) {\n"
    "  for (ulong i = (ulong)group.x * 256 + lid; i < a[2]; i += (ulong)groups.x * 256) dst[a[1] + i] = src[a[0] + i];\n"
    "}\n";

int mtl_compile(mtl_ctx *c, const char *what, const char *src, size_t len, const char *entry, id *out) {
  char log[4096];
  int st = PT_OK;
  id lib = NULL, fn = NULL, err = NULL, pso = NULL;
  void *pool = mtl_pool();
  id text = mtl_str(src);
  id opts = MSG0(id)(MSG0(id)(mtl.MTLCompileOptions, S.alloc), S.init);
  if (!text) { st = pt_error(PT_EINVAL, "metal: the %s program's source is not valid UTF-8", what); goto done; }
  if (!opts) { st = pt_error(PT_EDRIVER, "metal: could not make MTLCompileOptions"); goto done; }
  MSGA(void, objc_bool)(opts, S.setFastMathEnabled, 0);
  lib = MSGA(id, id, id, id *)(c->dev, S.newLibraryWithSource, text, opts, &err);
  if (!lib) {
    mtl_error_text(err, log, sizeof log);
    uint64_t key = pt_cache_hash(PT_CACHE_SEED, src, len);
    st = pt_compile_failed(key, ".metal", src, log, "metal: the %s program does not compile", what);
    goto done;
  }
  if (!(fn = MSGA(id, id)(lib, S.newFunctionWithName, mtl_str(entry)))) {
    st = pt_error(PT_EINVAL, "metal: the %s program defines no kernel named %s (params.h)", what, entry);
    goto done;
  }
  err = NULL;
  if (!(pso = MSGA(id, id, id *)(c->dev, S.newComputePipelineState, fn, &err))) {
    mtl_error_text(err, log, sizeof log);
    st = pt_error(PT_EINVAL, "metal: the %s kernel compiled but makes no pipeline: %.*s", what, PT_LOG_EXCERPT, log);
    goto done;
  }
  NSUInteger most = MSG0(NSUInteger)(pso, S.maxTotalThreadsPerThreadgroup);
  if (most < PT_MTL_GROUP) {
    st = pt_error(PT_EUNSUPPORTED, "metal: the %s kernel can run at most %zu threads a threadgroup on device %d; launches "
                  "use %d (params.h)", what, (size_t)most, c->index, PT_MTL_GROUP);
    mtl_release(pso);
    pso = NULL;
  }
done:
  mtl_release(fn);
  mtl_release(lib);
  mtl_release(opts);
  mtl_unpool(pool);
  *out = pso;
  return st;
}

id mtl_copy_kernel(mtl_ctx *c) {
  pt_mutex_lock(&c->lock);
  id pso = c->copy_pso;
  pt_mutex_unlock(&c->lock);
  if (pso) return pso;
  if (mtl_compile(c, "byte-copy", copy_src, sizeof copy_src - 1, "pt_copy_bytes", &pso) != PT_OK) return NULL;
  pt_mutex_lock(&c->lock);
  if (c->copy_pso) { /* another thread got there first */
    mtl_release(pso);
    pso = c->copy_pso;
  } else {
    c->copy_pso = pso;
  }
  pt_mutex_unlock(&c->lock);
  return pso;
}

/* A cached pipeline for exactly this source, retained for the caller; NULL if none. */
static id lookup(mtl_ctx *c, uint64_t key, const char *text) {
  id pso = NULL;
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < c->ncache && !pso; i++)
    if (c->cache[i].key == key && strcmp(c->cache[i].src, text) == 0) pso = MSG0(id)(c->cache[i].pso, S.retain);
  pt_mutex_unlock(&c->lock);
  return pso;
}

/* Keeps pso (retaining it) under text, unless that source is there already or the cache is full. */
static void remember(mtl_ctx *c, uint64_t key, const char *text, size_t len, id pso) {
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < c->ncache; i++)
    if (c->cache[i].key == key && strcmp(c->cache[i].src, text) == 0) { pt_mutex_unlock(&c->lock); return; }
  if (c->ncache == c->capcache && c->capcache < MAX_CACHED) {
    int cap = c->capcache ? c->capcache * 2 : 32;
    mtl_cached *nc = realloc(c->cache, (size_t)cap * sizeof *nc);
    if (nc) { c->cache = nc; c->capcache = cap; }
  }
  char *copy = c->ncache < c->capcache ? malloc(len + 1) : NULL;
  if (copy) {
    memcpy(copy, text, len + 1);
    c->cache[c->ncache++] = (mtl_cached){key, copy, MSG0(id)(pso, S.retain)};
  }
  pt_mutex_unlock(&c->lock);
}

void mtl_cache_clear(mtl_ctx *c) {
  for (int i = 0; i < c->ncache; i++) {
    mtl_release(c->cache[i].pso);
    free(c->cache[i].src);
  }
  free(c->cache);
  c->cache = NULL;
  c->ncache = c->capcache = 0;
  mtl_release(c->copy_pso);
  c->copy_pso = NULL;
}

int mtl_program_create(void *ctx, const char *kind, const uint8_t *src, size_t srclen, void **out) {
  mtl_ctx *c = ctx;
  int k, st;
  char *text;
  size_t len;
  if ((st = pt_program_source("metal", kind, src, srclen, "MSL source defining pt_main (params.h)", -1, &k, &text, &len)) != PT_OK)
    return st;
  if ((st = mtl_enter(c)) != PT_OK) { free(text); return st; }
  mtl_prog *p = calloc(1, sizeof *p);
  if (!p) { free(text); return pt_error(PT_EOOM, "metal: out of host memory for a program"); }
  p->kind = k;
  uint64_t key = pt_cache_hash(PT_CACHE_SEED, text, len);
  void *pool = mtl_pool();
  if (!(p->pso = lookup(c, key, text)) && (st = mtl_compile(c, kind, text, len, "pt_main", &p->pso)) == PT_OK)
    remember(c, key, text, len, p->pso);
  mtl_unpool(pool);
  free(text);
  if (st != PT_OK) { free(p); return st; }
  *out = p;
  return PT_OK;
}

void mtl_program_free(void *ctx, void *prog) {
  (void)ctx;
  mtl_prog *p = prog;
  /* Command buffers retain the pipelines they use: queued work is unaffected. */
  mtl_release(p->pso);
  free(p);
}
