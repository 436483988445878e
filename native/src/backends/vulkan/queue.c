/* queue.c: batches, barriers, submission and completion of a Vulkan queue.
 *
 * Ownership and ordering. A vk_queue owns its command pool, its timeline semaphore and
 * VK_BATCH_SLOTS batch slots (vkdrv.h). Work is recorded into the open batch under
 * ctx->lock; each batch begins with a barrier against everything before it on its VkQueue
 * (submission order is the queue's order), ends with one that makes its writes visible to
 * the host, and signals the semaphore with its value when submitted. Inside a batch a
 * barrier is recorded only on a real hazard between buffers (read after write, write after
 * write, write after read) since the last barrier. A batch slot, and with it the params
 * ring and upload arena, is reused only after the semaphore passed its value and no reader
 * has it pinned. A device-side wait on another queue's fence is attached to this queue's
 * next submission, after the other queue's batch holding that value has been submitted,
 * so every wait is on a value already submitted and no cycle can form. While a queue
 * captures a step, vkq_open hands out the step's recording and vkq_submit submits nothing
 * (graph.c); the barriers are the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"

#define COMPUTE_TRANSFER (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT)
#define ALL_WRITES (VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)
#define ALL_ACCESS (VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)

static void barrier(vk_ctx *c, VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst, VkAccessFlags sa,
                    VkAccessFlags da) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = sa, .dstAccessMask = da};
  c->d.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

void vkq_barrier_in(vk_ctx *c, VkCommandBuffer cb) {
  barrier(c, cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, COMPUTE_TRANSFER, VK_ACCESS_MEMORY_WRITE_BIT, ALL_ACCESS);
}

void vkq_barrier_out(vk_ctx *c, VkCommandBuffer cb) {
  barrier(c, cb, COMPUTE_TRANSFER, VK_PIPELINE_STAGE_HOST_BIT, ALL_WRITES, VK_ACCESS_HOST_READ_BIT);
}

static void free_extras(vk_ctx *c, vk_batch *b) {
  for (int i = 0; i < b->nextra; i++) vk_mem_destroy(c, b->extra[i]);
  b->nextra = 0;
  for (int i = 0; i < b->nheld; i++) vkq_unref(c, b->held[i]);
  b->nheld = 0;
}

int vkq_attach(vk_batch *b, vk_mem *m) {
  if (b->nextra == b->capextra) {
    int cap = b->capextra ? b->capextra * 2 : 8;
    vk_mem **e = realloc(b->extra, (size_t)cap * sizeof *e);
    if (!e) return pt_error(PT_EOOM, "vulkan: out of host memory for a staging list");
    b->extra = e;
    b->capextra = cap;
  }
  b->extra[b->nextra++] = m;
  return PT_OK;
}

void vkq_reap(vk_ctx *c, vk_queue *q) {
  uint64_t done = 0;
  int any = 0;
  for (int i = 0; i < VK_BATCH_SLOTS; i++) any |= q->b[i].state == BATCH_SENT;
  if (!any || c->d.vkGetSemaphoreCounterValue(c->dev, q->sem, &done) != VK_SUCCESS) return;
  for (int i = 0; i < VK_BATCH_SLOTS; i++) {
    vk_batch *b = &q->b[i];
    if (b->state == BATCH_SENT && b->value <= done && b->pins == 0) {
      free_extras(c, b);
      b->state = BATCH_FREE;
    }
  }
}

/* How long a wait polls the semaphore before it blocks: NVIDIA's blocking wait returns tens
 * of microseconds after the GPU is done, which is longer than a small batch runs. A CPU
 * implementation (lavapipe) does not spin by default: its own threads need the cores.
 * PT_VK_SPIN_US sets the limit for every device (0: block at once). */
static uint64_t spin_ns(const vk_ctx *c) {
  static _Atomic int64_t env = -2; /* -2: not read yet; -1: unset */
  int64_t v = atomic_load(&env);
  if (v == -2) {
    const char *e = getenv("PT_VK_SPIN_US");
    v = e && *e ? (int64_t)strtoll(e, NULL, 10) * 1000 : -1;
    atomic_store(&env, v = v < -1 ? 0 : v);
  }
  if (v >= 0) return (uint64_t)v;
  return c->ph->type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : 200000;
}

int vkq_wait(vk_ctx *c, vk_queue *q, uint64_t value) {
  if (value == 0) return PT_OK;
  uint64_t limit = spin_ns(c), until = limit ? pt_now_ns() + limit : 0, done = 0;
  for (unsigned i = 0; limit; i++) {
    if (c->d.vkGetSemaphoreCounterValue(c->dev, q->sem, &done) != VK_SUCCESS) break; /* the blocking wait reports it */
    if (done >= value) return PT_OK;
    pt_cpu_relax();
    if (i % 16 == 15 && pt_now_ns() > until) break;
  }
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &q->sem,
                            .pValues = &value};
  VkResult r = c->d.vkWaitSemaphores(c->dev, &wi, UINT64_MAX);
  return r == VK_SUCCESS ? PT_OK : vk_fail(c, "vkWaitSemaphores", r);
}

int vkq_open(vk_ctx *c, vk_queue *q, vk_batch **out) {
  int st, idx = -1;
  if (q->cap) return vkg_open(c, q, out);
  for (;;) {
    if (q->open >= 0) { *out = &q->b[q->open]; return PT_OK; }
    if ((st = vk_enter(c)) != PT_OK) return st;
    vkq_reap(c, q);
    uint64_t oldest = UINT64_MAX;
    for (int i = 0; i < VK_BATCH_SLOTS && idx < 0; i++)
      if (q->b[i].state == BATCH_FREE) idx = i;
    if (idx >= 0) break;
    for (int i = 0; i < VK_BATCH_SLOTS; i++)
      if (q->b[i].state == BATCH_SENT && q->b[i].value < oldest) oldest = q->b[i].value;
    /* Every slot is in flight: wait for the oldest, letting other threads in meanwhile. */
    q->refs++;
    pt_mutex_unlock(&c->lock);
    st = vkq_wait(c, q, oldest == UINT64_MAX ? 0 : oldest);
    pt_mutex_lock(&c->lock);
    q->refs--;
    if (st != PT_OK) return st;
  }
  vk_batch *b = &q->b[idx];
  VkResult r;
  if (!b->cb) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = q->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    if ((r = c->d.vkAllocateCommandBuffers(c->dev, &ai, &b->cb)) != VK_SUCCESS) { b->cb = NULL; return vk_fail(c, "vkAllocateCommandBuffers", r); }
  }
  if (!b->params && (st = vk_mem_make(c, VK_PARAMS_BYTES, VK_MEM_PARAMS, &b->params)) != PT_OK) return st;
  if (!b->scratch && (st = vk_mem_make(c, VK_UPLOAD_BYTES, VK_MEM_STAGING, &b->scratch)) != PT_OK) return st;
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  if ((r = c->d.vkBeginCommandBuffer(b->cb, &bi)) != VK_SUCCESS) return vk_fail(c, "vkBeginCommandBuffer", r);
  vkq_barrier_in(c, b->cb); /* orders this batch after everything submitted before it on the VkQueue */
  b->value = ++q->assigned;
  b->ndisp = b->nops = 0;
  b->ring_used = b->up_used = 0;
  b->bound = NULL;
  b->state = BATCH_OPEN;
  q->open = idx;
  q->nrd = q->nwr = q->full = 0;
  *out = b;
  return PT_OK;
}

static int in_set(const vk_mem *const *set, int n, const vk_mem *m) {
  for (int i = 0; i < n; i++)
    if (set[i] == m) return 1;
  return 0;
}

void vkq_access(vk_ctx *c, vk_queue *q, vk_batch *b, const vk_mem *const *rd, int nrd, const vk_mem *const *wr, int nwr) {
  int need = q->full;
  for (int i = 0; i < nrd && !need; i++) need = in_set(q->wr, q->nwr, rd[i]);                                  /* RAW */
  for (int i = 0; i < nwr && !need; i++) need = in_set(q->wr, q->nwr, wr[i]) || in_set(q->rd, q->nrd, wr[i]); /* WAW, WAR */
  if (need) {
    barrier(c, b->cb, COMPUTE_TRANSFER, COMPUTE_TRANSFER, ALL_WRITES, ALL_ACCESS);
    q->nrd = q->nwr = q->full = 0;
  }
  for (int i = 0; i < nrd; i++)
    if (!in_set(q->rd, q->nrd, rd[i])) {
      if (q->nrd == VK_HAZARD_SET) q->full = 1;
      else q->rd[q->nrd++] = rd[i];
    }
  for (int i = 0; i < nwr; i++)
    if (!in_set(q->wr, q->nwr, wr[i])) {
      if (q->nwr == VK_HAZARD_SET) q->full = 1;
      else q->wr[q->nwr++] = wr[i];
    }
}

int vkq_submit(vk_ctx *c, vk_queue *q) {
  if (q->cap) return vkg_roll(c, q);
  if (q->open < 0) {
    if (q->nwait == 0) return PT_OK;
    /* Waits with no work after them yet: an empty batch carries them, so that a read or
     * sync of this queue, which waits for its last submission, comes after them too. */
    vk_batch *empty;
    int st = vkq_open(c, q, &empty);
    if (st != PT_OK) return st;
  }
  vk_batch *b = &q->b[q->open];
  q->open = -1;
  vkq_barrier_out(c, b->cb);
  VkResult r = c->d.vkEndCommandBuffer(b->cb);
  if (r != VK_SUCCESS) { b->state = BATCH_FREE; free_extras(c, b); return vk_fail(c, "vkEndCommandBuffer", r); }
  VkPipelineStageFlags stages[VK_MAX_WAITS];
  for (int i = 0; i < q->nwait; i++) stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .waitSemaphoreValueCount = (uint32_t)q->nwait, .pWaitSemaphoreValues = q->wval,
                                      .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &b->value};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ti, .waitSemaphoreCount = (uint32_t)q->nwait,
                     .pWaitSemaphores = q->wsem, .pWaitDstStageMask = stages, .commandBufferCount = 1,
                     .pCommandBuffers = &b->cb, .signalSemaphoreCount = 1, .pSignalSemaphores = &q->sem};
  r = c->d.vkQueueSubmit(q->vq, 1, &si, NULL);
  for (int i = 0; i < q->nwait; i++) b->held[b->nheld++] = q->wq[i]; /* released when b completes */
  q->nwait = 0;
  if (r != VK_SUCCESS) { /* the semaphore never reaches this value: the context is lost (vk_fail) */
    b->state = BATCH_FREE;
    free_extras(c, b);
    return vk_fail(c, "vkQueueSubmit", r);
  }
  b->state = BATCH_SENT;
  q->submitted = b->value;
  return PT_OK;
}

int vk_drain(vk_ctx *c) {
  if (pt_sticky_code(&c->dead)) return PT_OK;
  int n = 0, st = PT_OK;
  pt_mutex_lock(&c->lock);
  for (vk_queue *q = c->queues; q; q = q->next) n++;
  vk_queue **qs = calloc((size_t)n + 1, sizeof *qs);
  uint64_t *vals = calloc((size_t)n + 1, sizeof *vals);
  if (!qs || !vals) st = pt_error(PT_EOOM, "vulkan: out of host memory");
  n = 0;
  for (vk_queue *q = c->queues; q && st == PT_OK; q = q->next) {
    q->refs++;
    qs[n++] = q;
  }
  pt_mutex_unlock(&c->lock);
  for (int i = 0; i < n; i++) pt_ring_drain(&qs[i]->ring); /* launches on their way are recorded (program.c) */
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < n; i++) vals[i] = vkq_submit(c, qs[i]) == PT_OK ? qs[i]->submitted : 0;
  pt_mutex_unlock(&c->lock);
  for (int i = 0; i < n; i++)
    if (vkq_wait(c, qs[i], vals[i]) != PT_OK) st = PT_EDRIVER;
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < n; i++) {
    vkq_reap(c, qs[i]);
    vkq_unref(c, qs[i]);
  }
  pt_mutex_unlock(&c->lock);
  free(qs);
  free(vals);
  return st;
}

/* ---- the error block (params.h) ------------------------------------------------------- */

/* pt_word_check's reader, under ctx->lock: the block is mapped and coherent. */
static int read_block(void *arg, long long out[4]) {
  vk_ctx *c = arg;
  volatile uint32_t *code = c->errblk->map;
  volatile int64_t *det = (volatile int64_t *)((char *)c->errblk->map + 8);
  if ((out[0] = *code) == 0) return PT_OK;
  for (int i = 0; i < 3; i++) out[1 + i] = (long long)det[i];
  memset(c->errblk->map, 0, 32); /* the next submission sees it cleared */
  return PT_OK;
}

int vk_check_block(vk_ctx *c) { return pt_word_check(&c->word, &c->lock, read_block, c, c->where); }

/* ---- queues ------------------------------------------------------------------------- */

void vkq_unref(vk_ctx *c, vk_queue *q) {
  if (--q->refs > 0) return;
  for (int i = 0; i < q->nwait; i++) vkq_unref(c, q->wq[i]);
  for (int i = 0; i < VK_BATCH_SLOTS; i++) {
    free_extras(c, &q->b[i]);
    free(q->b[i].extra);
    if (q->b[i].params) vk_mem_destroy(c, q->b[i].params);
    if (q->b[i].scratch) vk_mem_destroy(c, q->b[i].scratch);
  }
  if (q->pool) c->d.vkDestroyCommandPool(c->dev, q->pool, NULL); /* frees its command buffers */
  if (q->sem) c->d.vkDestroySemaphore(c->dev, q->sem, NULL);
  free(q);
}

int vk_queue_create(void *ctx, void **out) {
  vk_ctx *c = ctx;
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  vk_queue *q = calloc(1, sizeof *q);
  if (!q) return pt_error(PT_EOOM, "vulkan: out of host memory for a queue");
  q->c = c;
  q->open = -1;
  q->refs = 1;
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = c->ph->family};
  VkResult r = c->d.vkCreateCommandPool(c->dev, &pci, NULL, &q->pool);
  const char *fn = "vkCreateCommandPool";
  if (r == VK_SUCCESS) {
    VkSemaphoreTypeCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
    fn = "vkCreateSemaphore (timeline)";
    r = c->d.vkCreateSemaphore(c->dev, &sci, NULL, &q->sem);
  } else q->pool = NULL;
  if (r != VK_SUCCESS) {
    q->sem = NULL;
    pt_mutex_lock(&c->lock);
    vkq_unref(c, q);
    pt_mutex_unlock(&c->lock);
    return vk_fail(c, fn, r);
  }
  if ((st = vk_ring_init(q)) != PT_OK) {
    pt_mutex_lock(&c->lock);
    vkq_unref(c, q);
    pt_mutex_unlock(&c->lock);
    return st;
  }
  pt_mutex_lock(&c->lock);
  q->vq = c->vq[c->next_vq++ % c->nvq]; /* separate VkQueues let separate queues overlap */
  q->next = c->queues;
  c->queues = q;
  pt_mutex_unlock(&c->lock);
  *out = q;
  return PT_OK;
}

void vk_queue_free(void *ctx, void *queue) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  pt_ring_fini(&q->ring); /* its last launches are recorded, and its thread is gone */
  pt_mutex_lock(&c->lock);
  vk_graph *cap = vkg_detach(c, q); /* an unfinished capture, never submitted */
  vkq_submit(c, q);
  uint64_t v = q->submitted;
  for (vk_queue **p = &c->queues; *p; p = &(*p)->next)
    if (*p == q) { *p = q->next; break; }
  q->freed = 1;
  pt_mutex_unlock(&c->lock);
  if (!pt_sticky_code(&c->dead)) vkq_wait(c, q, v); /* its command buffers must be done before the pool goes */
  else c->d.vkDeviceWaitIdle(c->dev);
  pt_mutex_lock(&c->lock);
  vkq_reap(c, q);
  vkq_unref(c, q);
  pt_mutex_unlock(&c->lock);
  if (cap) vk_graph_free(c, cap);
}

int vk_flush(void *ctx, void *queue) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  pt_mutex_lock(&c->lock);
  st = vkq_submit(c, queue);
  pt_mutex_unlock(&c->lock);
  return st;
}

int vk_sync(void *ctx, void *queue) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  pt_mutex_lock(&c->lock);
  st = vkq_submit(c, q);
  uint64_t v = q->submitted;
  pt_mutex_unlock(&c->lock);
  if (st == PT_OK) st = vkq_wait(c, q, v);
  pt_mutex_lock(&c->lock);
  vkq_reap(c, q);
  pt_mutex_unlock(&c->lock);
  return st == PT_OK ? vk_check_block(c) : st;
}
