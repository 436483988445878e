/* program.c: GLSL -> libshaderc -> SPIR-V -> compute pipeline, and launches.
 *
 * Ownership and ordering. A program owns its VkPipeline; its kind (blocks.h) stays with it
 * for dispatch sizes and error reports. SPIR-V is cached (core program_cache.c) in memory
 * and on disk as <hash>.spv, keyed by the source, the macros the driver defines and the
 * shaderc version; pipelines go through the context's VkPipelineCache (device.c). Compiles
 * are serialised (compile_lock): the cost is paid once per program, and it keeps us clear
 * of any thread-safety doubt about a shaderc build we did not choose. A launch checks its
 * block on the host (pt_block_check) before anything is recorded and hands a copy of it to
 * the queue's launch ring (core/ring.h), whose thread (or the next drain: queue.c) writes its
 * pt_vk_params record into the open batch's params ring and records bind, push constant and
 * dispatch, so the recording's host time overlaps the script's next call. The params space
 * is the batch's until it completes (queue.c). A launch into a capture is recorded at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"
#include "program_cache.h"

static pt_mutex compile_lock = PT_MUTEX_INIT;

static int compile_failed(const char *kind, const char *who, const char *src, const char *log, uint64_t key) {
  return pt_compile_failed(key, ".comp", src, log, "vulkan: the %s program does not compile (%s, Vulkan 1.2)", kind, who);
}

static int compile_shaderc(const char *kind, const char *src, size_t len, const char *sg, int denorm, int coopmat, uint64_t key,
                           unsigned char **out, size_t *n) {
  shaderc_compiler_t comp = shc.shaderc_compiler_initialize();
  shaderc_compile_options_t opt = shc.shaderc_compile_options_initialize();
  if (!comp || !opt) {
    if (comp) shc.shaderc_compiler_release(comp);
    if (opt) shc.shaderc_compile_options_release(opt);
    return pt_error(PT_EOOM, "vulkan: libshaderc could not start a compiler");
  }
  shc.shaderc_compile_options_set_target_env(opt, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
  shc.shaderc_compile_options_set_optimization_level(opt, shaderc_optimization_level_performance);
  shc.shaderc_compile_options_add_macro_definition(opt, "PT_VK_SUBGROUP", 14, sg, strlen(sg));
  if (denorm) shc.shaderc_compile_options_add_macro_definition(opt, "PT_VK_DENORM_PRESERVE_F32", 25, "1", 1);
  if (coopmat) shc.shaderc_compile_options_add_macro_definition(opt, "PT_VK_COOPMAT", 13, "1", 1);
  char name[80];
  snprintf(name, sizeof name, "pt_%s.comp", kind);
  shaderc_compilation_result_t res = shc.shaderc_compile_into_spv(comp, src, len, shaderc_glsl_compute_shader, name, "main", opt);
  int st = PT_OK;
  if (!res) st = pt_error(PT_EOOM, "vulkan: libshaderc returned no result for the %s program", kind);
  else if (shc.shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
    const char *log = shc.shaderc_result_get_error_message(res);
    st = compile_failed(kind, "libshaderc", src, log ? log : "", key);
  } else {
    *n = shc.shaderc_result_get_length(res);
    if (!(*out = malloc(*n ? *n : 1))) st = pt_error(PT_EOOM, "vulkan: out of host memory for SPIR-V");
    else memcpy(*out, shc.shaderc_result_get_bytes(res), *n);
  }
  if (res) shc.shaderc_result_release(res);
  shc.shaderc_compile_options_release(opt);
  shc.shaderc_compiler_release(comp);
  return st;
}

/* libshaderc when it loads, else a command-line compiler (glslc.c). */
/* coopmat: define PT_VK_COOPMAT (a compiler with GL_KHR_cooperative_matrix; the command-line fallback's is older) */
static int compile(const char *kind, const char *src, size_t len, const char *sg, int denorm, int coopmat, uint64_t key,
                   unsigned char **out, size_t *n) {
  if (shaderc_load() == PT_OK) return compile_shaderc(kind, src, len, sg, denorm, coopmat, key, out, n);
  char why[512];
  int wl = pt_last_error((uint8_t *)why, (int32_t)sizeof why - 1);
  why[wl < (int)sizeof why - 1 ? wl : (int)sizeof why - 1] = 0;
  char *log = NULL;
  const char *tool = "";
  int st = vk_glsl_external(src, len, sg, denorm, out, n, &log, &tool);
  if (st == PT_EINVAL) st = compile_failed(kind, tool, src, log ? log : "", key);
  else if (st == PT_EUNAVAILABLE)
    st = pt_error(PT_EUNAVAILABLE, "%s; nor is glslangValidator (glslang-tools) or glslc on PATH to compile the %s program",
                  why, kind);
  free(log);
  return st;
}

static int make_pipeline(vk_ctx *c, vk_prog *p, const unsigned char *spv, size_t n) {
  if (n == 0 || n % 4) return pt_error(PT_EINVAL, "vulkan: SPIR-V of %zu bytes (not whole words)", n);
  VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n, .pCode = (const uint32_t *)spv};
  VkShaderModule mod;
  VkResult r = c->d.vkCreateShaderModule(c->dev, &mci, NULL, &mod);
  if (r != VK_SUCCESS) return vk_fail(c, "vkCreateShaderModule", r);
  VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .layout = c->layout};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = mod;
  ci.stage.pName = "main";
  r = c->d.vkCreateComputePipelines(c->dev, c->pcache, 1, &ci, NULL, &p->pipe);
  c->d.vkDestroyShaderModule(c->dev, mod, NULL); /* the pipeline keeps what it needs */
  if (r != VK_SUCCESS) { p->pipe = NULL; return vk_fail(c, "vkCreateComputePipelines", r); }
  return PT_OK;
}

/* One program_create's state, for core's pt_cache_image. */
typedef struct {
  vk_ctx *c;
  vk_prog *p;
  const char *kind, *text;
  size_t len;
  char sg[16];
  int denorm, coopmat;
  uint64_t key;
} job;

static int job_load(void *arg, const unsigned char *spv, size_t n) {
  job *j = arg;
  return make_pipeline(j->c, j->p, spv, n);
}

static int job_usable(void *arg) { return vk_enter(((job *)arg)->c); }

static int job_build(void *arg, unsigned char **spv, size_t *n) {
  job *j = arg;
  return compile(j->kind, j->text, j->len, j->sg, j->denorm, j->coopmat, j->key, spv, n);
}

static const pt_image_ops job_ops = {job_load, job_usable, job_build};

int vk_program_create(void *ctx, const char *kind, const uint8_t *src, size_t srclen, void **out) {
  vk_ctx *c = ctx;
  int k, st;
  char *text;
  size_t len;
  if ((st = pt_program_source("vulkan", kind, src, srclen, "GLSL compute source (params.h)", -1, &k, &text, &len)) != PT_OK) return st;
  if ((st = vk_enter(c)) != PT_OK) { free(text); return st; }
  vk_prog *p = calloc(1, sizeof *p);
  if (!p) { free(text); return pt_error(PT_EOOM, "vulkan: out of host memory for a program"); }
  p->kind = k;
  job j = {.c = c, .p = p, .kind = kind, .text = text, .len = len, .denorm = c->ph->denorm32, .coopmat = vk_coopmat(c->ph)};
  snprintf(j.sg, sizeof j.sg, "%u", c->ph->subgroup ? c->ph->subgroup : 1);
  /* libshaderc's SPIR-V version, or 0 for the command-line fallback. */
  unsigned ver = shaderc_load() == PT_OK ? shaderc_version() : 0;

  uint64_t key = pt_cache_hash(PT_CACHE_SEED, "polytensor-vk-1", 15);
  key = pt_cache_hash(key, j.sg, strlen(j.sg) + 1);
  key = pt_cache_hash(key, &j.denorm, sizeof j.denorm);
  key = pt_cache_hash(key, &j.coopmat, sizeof j.coopmat);
  key = pt_cache_hash(key, &ver, sizeof ver);
  j.key = pt_cache_hash(key, text, len);
  st = pt_cache_image(j.key, ".spv", &compile_lock, &job_ops, &j);
  free(text);
  if (st != PT_OK) {
    free(p);
    return st;
  }
  *out = p;
  return PT_OK;
}

void vk_program_free(void *ctx, void *prog) {
  vk_ctx *c = ctx;
  vk_prog *p = prog;
  /* Recorded or running batches may still bind the pipeline: let them finish (programs are
   * freed rarely: a cache eviction or a device close). */
  if (p->pipe) {
    vk_drain(c);
    c->d.vkDestroyPipeline(c->dev, p->pipe, NULL);
  }
  free(p);
}

/* Whether to send a batch before it fills: every VK_EARLY_DISPATCHES dispatches while at
 * most one earlier batch is still running, so a script that records many small launches
 * keeps the GPU fed instead of leaving it idle until the next sync, and a busy GPU costs
 * one semaphore read per VK_EARLY_DISPATCHES launches. (Sending only to an idle GPU, and
 * only at 32, 64, 128 and 256 dispatches, left it waiting between checks:
 * docs/measurements.md.) */
static int send_early(vk_ctx *c, vk_queue *q, const vk_batch *b) {
  int n = b->ndisp;
  if (q->cap || n < VK_EARLY_DISPATCHES || n % VK_EARLY_DISPATCHES != 0) return 0;
  uint64_t done = 0;
  return c->d.vkGetSemaphoreCounterValue(c->dev, q->sem, &done) == VK_SUCCESS && done + 1 >= q->submitted;
}

/* A launch as its queue's ring carries it: everything record() needs, nothing of the caller's. */
typedef struct {
  vk_prog *p;
  uint32_t gx, gy, gz, writes;
  int nbuf, nargs;
  const vk_mem *mem[PT_VK_MAX_BUFS];
  double a[PT_VK_MAX_ARGS];
} vk_launch_rec;

/* Records one checked launch into the queue's open batch (or its capture). */
static int record(vk_ctx *c, vk_queue *q, const vk_launch_rec *l) {
  size_t rec = ((offsetof(pt_vk_params, a) + (size_t)l->nargs * sizeof(double)) + 15) & ~(size_t)15;
  const vk_mem *rd[PT_VK_MAX_BUFS], *wr[PT_VK_MAX_BUFS];
  int nrd = 0, nwr = 0;
  for (int i = 0; i < l->nbuf; i++) {
    if (l->writes & (1u << i)) wr[nwr++] = l->mem[i];
    else rd[nrd++] = l->mem[i];
  }
  vk_batch *b;
  pt_mutex_lock(&c->lock);
  int st = vkq_open(c, q, &b);
  if (st == PT_OK && (b->ndisp >= VK_BATCH_DISPATCHES || b->ring_used + rec > VK_RING_BYTES || send_early(c, q, b))) {
    if ((st = vkq_submit(c, q)) == PT_OK) st = vkq_open(c, q, &b); /* full, or the GPU idles: send it, start the next */
  }
  if (st == PT_OK) {
    pt_vk_params *rp = (pt_vk_params *)((char *)b->params->map + b->ring_used);
    for (int i = 0; i < l->nbuf; i++) rp->buf[i] = l->mem[i]->addr;
    rp->err = c->errblk->addr;
    rp->nbuf = l->nbuf;
    rp->nargs = l->nargs;
    if (l->nargs > 0) memcpy(rp->a, l->a, (size_t)l->nargs * sizeof(double));
    uint64_t addr = b->params->addr + b->ring_used;
    b->ring_used += rec;
    vkq_access(c, q, b, rd, nrd, wr, nwr);
    if (b->bound != l->p->pipe) {
      c->d.vkCmdBindPipeline(b->cb, VK_PIPELINE_BIND_POINT_COMPUTE, l->p->pipe);
      b->bound = l->p->pipe;
    }
    c->d.vkCmdPushConstants(b->cb, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, &addr);
    c->d.vkCmdDispatch(b->cb, l->gx, l->gy, l->gz);
    b->ndisp++;
    b->nops++;
    /* Marked with the launch, so a wait that sees it finish also reads the error block and
     * a report can name the kinds that may have written it. Every kind counts as a writer:
     * the block is mapped, so reading it costs a load, not a copy. */
    pt_word_mark(&c->word, 1u << l->p->kind, 1);
  }
  pt_mutex_unlock(&c->lock);
  return st;
}

/* The ring's issue(): a failure stays with the context until the next wait reports it. */
static void issue(void *arg, void *rec) {
  vk_queue *q = arg;
  vk_ctx *c = q->c;
  int st = record(c, q, rec);
  if (st == PT_OK) return;
  pt_mutex_lock(&c->lock);
  pt_outcome_settle(&c->word.launch_fail, st);
  pt_mutex_unlock(&c->lock);
}

int vk_ring_init(vk_queue *q) { return pt_ring_init(&q->ring, sizeof(vk_launch_rec), VK_RING_RECORDS, issue, NULL, q); }

int vk_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  vk_prog *p = prog;
  int64_t work = 0;
  uint32_t writes = 0;
  pt_matmul_plan mm;
  int st = pt_launch_check("vulkan", "Vulkan", PT_VK_MAX_BUFS, PT_VK_MAX_ARGS, p->kind, bufs, nbuf, args, nargs, &work, &mm, &writes);
  if (st != PT_OK) return st;
  uint32_t gx = 1, gy = 1, gz = 1;
  if (p->kind == PT_K_MATMUL) {
    if (mm.batch <= 0 || mm.M <= 0 || mm.N <= 0) return PT_OK;
    /* params.h: 128x128 tiles when both M and N exceed 64, else 64x64 (the shader's rule);
     * 65535 groups a dimension is also Vulkan's least maxComputeWorkGroupCount */
    unsigned g[3];
    pt_grid_tiles(mm.M, mm.N, mm.batch, mm.M > 64 && mm.N > 64 ? 128 : 64, g);
    gx = g[0], gy = g[1], gz = g[2];
    if (mm.M * mm.N <= 256) { /* params.h's small products: 256 / (M*N) batches a group */
      int64_t per = 256 / (mm.M * mm.N), groups = (mm.batch + per - 1) / per;
      gx = gy = 1, gz = (uint32_t)(groups < 65535 ? groups : 65535);
    }
  } else {
    if (work <= 0) return PT_OK; /* no work: nothing is recorded, not even a SERIAL group */
    gx = pt_grid_groups(p->kind, work, PT_VK_GROUP, VK_ELEMENT_GROUPS);
  }
  if ((st = vk_enter(c)) != PT_OK) return st;
  int capturing = atomic_load(&q->capturing);
  vk_launch_rec local, *l = &local;
  if (capturing) pt_ring_drain(&q->ring); /* recorded into the step now, after what came before */
  else l = pt_ring_reserve(&q->ring);
  l->p = p; /* field by field: the record is 2 KB, most of it slots this launch leaves unread */
  l->gx = gx, l->gy = gy, l->gz = gz;
  l->writes = writes;
  l->nbuf = nbuf, l->nargs = nargs;
  for (int i = 0; i < nbuf; i++) l->mem[i] = bufs[i].mem;
  if (nargs > 0) memcpy(l->a, args, (size_t)nargs * sizeof(double));
  if (capturing) return record(c, q, l);
  pt_ring_publish(&q->ring);
  return PT_OK;
}
