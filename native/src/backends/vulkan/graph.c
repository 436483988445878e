/* graph.c: captured steps as pre-recorded Vulkan command buffers.
 *
 * Ownership and ordering. capture_begin submits the queue's open batch, then makes the
 * queue record into the graph instead: vkq_open hands out the graph's own vk_batch, whose
 * command buffer comes from a pool the graph owns and whose params ring is a host-visible
 * chunk the graph owns (a full ring starts another chunk, never a submission), so launches
 * and copies are recorded by the usual code with the usual barriers: the buffer starts with
 * a full barrier against earlier work, has one inside only on a real hazard (vkq_access),
 * and ends with one that makes its writes visible to the host. Staging and temporary
 * buffers attached to the recording belong to the graph too. capture_end ends the command
 * buffer; the core keeps every buffer and program it names alive. A replay submits the
 * queue's open batch (and pending waits) first, then the command buffer (simultaneous use,
 * so replays may overlap), signalling the queue's timeline semaphore with the next value
 * like a batch, so fences, syncs and frees wait for it. The graph holds a reference on each
 * queue it was replayed on and remembers the last value there; graph_free waits for those
 * before it destroys the pool and the memory. Device waits made while capturing are not
 * part of the step: they hold back the queue's next submission as usual (the first replay,
 * or one of their own should they fill up). All graph and queue fields sit under ctx->lock.
 */
#include <stdlib.h>
#include "vkdrv.h"

typedef struct { vk_queue *q; uint64_t value; } vk_sub; /* a queue it was replayed on; its last value */

struct vk_graph {
  vk_batch b;         /* the recording: command buffer, params chunk (b.params), owned buffers (b.extra) */
  VkCommandPool pool; /* owns b.cb */
  uint32_t kinds;     /* program kinds that may write the error block on a replay */
  vk_sub *subs;
  int nsub, nheld;
  vk_queue **held; /* queues whose semaphores its submissions waited on */
};

static void destroy(vk_ctx *c, vk_graph *g) {
  for (int i = 0; i < g->b.nextra; i++) vk_mem_destroy(c, g->b.extra[i]);
  free(g->b.extra);
  if (g->b.params) vk_mem_destroy(c, g->b.params);
  if (g->pool) c->d.vkDestroyCommandPool(c->dev, g->pool, NULL); /* frees b.cb */
  free(g->subs);
  free(g->held);
  free(g);
}

/* Submits cb (NULL: none, only the queue's pending waits) on q, signalling the queue's next
 * value like a batch; the graph remembers the value and keeps the queues waited on. */
static int send(vk_ctx *c, vk_queue *q, vk_graph *g, const VkCommandBuffer *cb) {
  int i = 0;
  while (i < g->nsub && g->subs[i].q != q) i++;
  vk_sub *n = i < g->nsub ? g->subs : realloc(g->subs, (size_t)(i + 1) * sizeof *n);
  vk_queue **h = n ? realloc(g->held, (size_t)(g->nheld + q->nwait + 1) * sizeof *h) : NULL;
  if (n) g->subs = n;
  if (h) g->held = h;
  if (!h) return pt_error(PT_EOOM, "vulkan: out of host memory for a captured step's submission");
  if (i == g->nsub) {
    g->subs[g->nsub++] = (vk_sub){q, 0};
    q->refs++; /* its semaphore must outlive the submission, even if the queue is freed first */
  }
  VkPipelineStageFlags stages[VK_MAX_WAITS];
  for (int k = 0; k < q->nwait; k++) stages[k] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  uint64_t v = ++q->assigned;
  VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                      .waitSemaphoreValueCount = (uint32_t)q->nwait, .pWaitSemaphoreValues = q->wval,
                                      .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &v};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ti, .waitSemaphoreCount = (uint32_t)q->nwait,
                     .pWaitSemaphores = q->wsem, .pWaitDstStageMask = stages, .commandBufferCount = cb ? 1 : 0,
                     .pCommandBuffers = cb, .signalSemaphoreCount = 1, .pSignalSemaphores = &q->sem};
  VkResult r = c->d.vkQueueSubmit(q->vq, 1, &si, NULL);
  for (int k = 0; k < q->nwait; k++) g->held[g->nheld++] = q->wq[k];
  q->nwait = 0;
  if (r != VK_SUCCESS) return vk_fail(c, "vkQueueSubmit", r); /* the value is never signalled: the context is lost */
  q->submitted = g->subs[i].value = v;
  return PT_OK;
}

int vkg_open(vk_ctx *c, vk_queue *q, vk_batch **out) {
  *out = &q->cap->b;
  return vk_enter(c);
}

/* vkq_submit on a capturing queue: no work is submitted (only waits, when they fill up);
 * the next record gets a fresh chunk when the current one could not hold it. */
int vkg_roll(vk_ctx *c, vk_queue *q) {
  vk_batch *b = &q->cap->b;
  int st = q->nwait == VK_MAX_WAITS ? send(c, q, q->cap, NULL) : PT_OK; /* waits made while capturing */
  if (st != PT_OK) return st;
  b->ndisp = 0;
  if (VK_RING_BYTES - b->ring_used >= sizeof(pt_vk_params)) return PT_OK;
  vk_mem *m;
  st = vk_mem_make(c, VK_PARAMS_BYTES, VK_MEM_PARAMS, &m);
  if (st == PT_OK && (st = vkq_attach(b, b->params)) != PT_OK) vk_mem_destroy(c, m);
  if (st != PT_OK) return st;
  b->params = m;
  b->ring_used = 0;
  return PT_OK;
}

vk_graph *vkg_detach(vk_ctx *c, vk_queue *q) {
  vk_graph *g = q->cap;
  q->cap = NULL;
  atomic_store(&q->capturing, 0);
  if (g) g->kinds = c->word.kinds_since; /* kinds launched since the last reported failure: at least the step's */
  return g;
}

int vk_capture_begin(void *ctx, void *queue) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  vk_graph *g = calloc(1, sizeof *g);
  if (!g) return pt_error(PT_EOOM, "vulkan: out of host memory for a captured step");
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = c->ph->family};
  VkResult r = c->d.vkCreateCommandPool(c->dev, &pci, NULL, &g->pool);
  if (r != VK_SUCCESS) { g->pool = NULL; destroy(c, g); return vk_fail(c, "vkCreateCommandPool", r); }
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = g->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  const char *fn = "vkAllocateCommandBuffers";
  if ((r = c->d.vkAllocateCommandBuffers(c->dev, &ai, &g->b.cb)) == VK_SUCCESS) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
    fn = "vkBeginCommandBuffer";
    r = c->d.vkBeginCommandBuffer(g->b.cb, &bi);
  }
  if (r != VK_SUCCESS) { destroy(c, g); return vk_fail(c, fn, r); }
  if ((st = vk_mem_make(c, VK_PARAMS_BYTES, VK_MEM_PARAMS, &g->b.params)) != PT_OK) { destroy(c, g); return st; }
  vkq_barrier_in(c, g->b.cb);
  g->b.state = BATCH_OPEN;
  g->b.up_used = VK_UPLOAD_BYTES; /* no upload arena: host writes are refused while capturing */
  pt_mutex_lock(&c->lock);
  if (q->cap) st = pt_error(PT_EINVAL, "vulkan: the queue is already capturing a step");
  else if ((st = vkq_submit(c, q)) == PT_OK) { /* work recorded before the step runs before it */
    q->cap = g;
    atomic_store(&q->capturing, 1);
    q->nrd = q->nwr = q->full = 0; /* the full barrier above covers everything before */
  }
  pt_mutex_unlock(&c->lock);
  if (st != PT_OK) destroy(c, g);
  return st;
}

int vk_capture_end(void *ctx, void *queue, void **out) {
  vk_ctx *c = ctx;
  pt_mutex_lock(&c->lock);
  vk_graph *g = vkg_detach(c, queue);
  pt_mutex_unlock(&c->lock);
  if (!g) return pt_error(PT_EINVAL, "vulkan: the queue is not capturing a step");
  vkq_barrier_out(c, g->b.cb);
  VkResult r = c->d.vkEndCommandBuffer(g->b.cb);
  if (r != VK_SUCCESS) { /* nothing was submitted: the context is fine */
    destroy(c, g);
    return vk_fail(c, "vkEndCommandBuffer (captured step)", r);
  }
  *out = g;
  return PT_OK;
}

int vk_graph_launch(void *ctx, void *queue, void *graph) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  vk_graph *g = graph;
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  pt_mutex_lock(&c->lock);
  if (q->cap) st = pt_error(PT_EINVAL, "vulkan: the queue is capturing a step; captured steps do not nest");
  else if ((st = vkq_submit(c, q)) == PT_OK && (st = send(c, q, g, &g->b.cb)) == PT_OK) { /* the open batch goes first */
    pt_word_mark(&c->word, g->kinds, g->kinds != 0);
  }
  pt_mutex_unlock(&c->lock);
  return st;
}

void vk_graph_free(void *ctx, void *graph) {
  vk_ctx *c = ctx;
  vk_graph *g = graph;
  if (pt_sticky_code(&c->dead)) c->d.vkDeviceWaitIdle(c->dev);
  else
    for (int i = 0; i < g->nsub; i++) vkq_wait(c, g->subs[i].q, g->subs[i].value); /* no replay may be pending */
  pt_mutex_lock(&c->lock);
  for (int i = 0; i < g->nsub; i++) vkq_unref(c, g->subs[i].q);
  for (int i = 0; i < g->nheld; i++) vkq_unref(c, g->held[i]);
  pt_mutex_unlock(&c->lock);
  destroy(c, g);
}
