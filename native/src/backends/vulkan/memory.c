/* memory.c: raw allocations and the transfers that are recorded into a queue's batch.
 *
 * Ownership and ordering. A raw allocation is one VkBuffer bound to its own VkDeviceMemory
 * of the exact size (a zero-byte one is backed by 16 bytes, so it still has an address),
 * allocated with DEVICE_ADDRESS; it is device-local, and mapped where the device's memory
 * is unified. Writes and copies are recorded into the queue's open batch in order with
 * launches: small aligned writes inline (vkCmdUpdateBuffer copies the bytes into the
 * command buffer), others through the batch's upload arena or a staging buffer the batch
 * frees when it completes, so the caller's pointer is never kept. A read submits the
 * batch, waits for it outside the lock and copies out; the batch is pinned meanwhile so
 * its arena is not reused under the copy. Freeing memory waits for the device's queues
 * first: recorded or running work may still use it.
 */
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"

#define INLINE_MAX 65536 /* vkCmdUpdateBuffer's limit */

static int pick_type(vk_ctx *c, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) {
  int found = -1;
  for (uint32_t i = 0; i < c->mp.memoryTypeCount; i++) {
    VkMemoryPropertyFlags f = c->mp.memoryTypes[i].propertyFlags;
    if (!(bits & (1u << i)) || (f & want) != want) continue;
    if ((f & prefer) == prefer) return (int)i;
    if (found < 0) found = (int)i;
  }
  return found;
}

int vk_mem_make(vk_ctx *c, size_t bytes, int kind, vk_mem **out) {
  vk_mem *m = calloc(1, sizeof *m);
  if (!m) return pt_error(PT_EOOM, "vulkan: out of host memory for a buffer record");
  m->bytes = bytes;
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = bytes ? bytes : 16,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = c->d.vkCreateBuffer(c->dev, &bci, NULL, &m->buf);
  const char *fn = "vkCreateBuffer";
  if (r != VK_SUCCESS) goto fail;
  VkMemoryRequirements req;
  c->d.vkGetBufferMemoryRequirements(c->dev, m->buf, &req);
  const VkMemoryPropertyFlags vis = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  /* Staging is read back by the host: cached memory. Params are only written by the host and
   * read by every workgroup of a launch: device-local memory the host can map (a BAR) keeps
   * those reads off the bus (docs/measurements.md). */
  const int host = kind != VK_MEM_DEVICE;
  int t = kind == VK_MEM_STAGING  ? pick_type(c, req.memoryTypeBits, vis, VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
          : kind == VK_MEM_PARAMS ? pick_type(c, req.memoryTypeBits, vis, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
          : c->unified            ? pick_type(c, req.memoryTypeBits, vis | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)
                                  : pick_type(c, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (t < 0) {
    c->d.vkDestroyBuffer(c->dev, m->buf, NULL);
    free(m);
    return pt_error(PT_EUNSUPPORTED, "vulkan: device %d (%s) has no %s memory type for storage buffers", c->index,
                    c->ph->name, host ? "host-visible coherent" : "device-local");
  }
  VkMemoryAllocateFlagsInfo fl = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                  .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &fl, .allocationSize = req.size,
                              .memoryTypeIndex = (uint32_t)t};
  fn = "vkAllocateMemory";
  if ((r = c->d.vkAllocateMemory(c->dev, &mai, NULL, &m->dm)) != VK_SUCCESS) {
    /* A full BAR heap: params fall back to staging memory, slower to read but as correct. */
    int alt = kind == VK_MEM_PARAMS ? pick_type(c, req.memoryTypeBits, vis, VK_MEMORY_PROPERTY_HOST_CACHED_BIT) : -1;
    if (alt < 0 || alt == t) goto fail;
    mai.memoryTypeIndex = (uint32_t)(t = alt);
    if ((r = c->d.vkAllocateMemory(c->dev, &mai, NULL, &m->dm)) != VK_SUCCESS) goto fail;
  }
  fn = "vkBindBufferMemory";
  if ((r = c->d.vkBindBufferMemory(c->dev, m->buf, m->dm, 0)) != VK_SUCCESS) goto fail;
  if (c->mp.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    fn = "vkMapMemory";
    if ((r = c->d.vkMapMemory(c->dev, m->dm, 0, VK_WHOLE_SIZE, 0, &m->map)) != VK_SUCCESS) goto fail;
  }
  VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = m->buf};
  m->addr = c->d.vkGetBufferDeviceAddress(c->dev, &ai);
  *out = m;
  return PT_OK;
fail:
  vk_mem_destroy(c, m);
  return vk_fail(c, fn, r);
}

void vk_mem_destroy(vk_ctx *c, vk_mem *m) {
  if (m->buf) c->d.vkDestroyBuffer(c->dev, m->buf, NULL);
  if (m->dm) c->d.vkFreeMemory(c->dev, m->dm, NULL); /* unmaps too */
  free(m);
}

int vk_alloc(void *ctx, size_t bytes, void **mem, void **host) {
  vk_ctx *c = ctx;
  int st = vk_enter(c);
  vk_mem *m;
  if (st != PT_OK || (st = vk_mem_make(c, bytes, VK_MEM_DEVICE, &m)) != PT_OK) return st; /* PT_EOOM: the core trims and retries */
  *mem = m;
  *host = m->map;
  return PT_OK;
}

void vk_free(void *ctx, void *mem) {
  vk_ctx *c = ctx;
  vk_drain(c); /* a lost device runs nothing more: its memory can go at once */
  vk_mem_destroy(c, mem);
}

int vk_mem_info(void *ctx, size_t *fr, size_t *total) {
  vk_ctx *c = ctx;
  VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                                          .pNext = c->ph->budget ? &b : NULL};
  vki.vkGetPhysicalDeviceMemoryProperties2(c->ph->pd, &mp);
  size_t f = 0, t = 0;
  for (uint32_t i = 0; i < mp.memoryProperties.memoryHeapCount; i++) {
    if (!(mp.memoryProperties.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
    t += mp.memoryProperties.memoryHeaps[i].size;
    /* Without VK_EXT_memory_budget, the heap size is all we know. */
    f += !c->ph->budget ? mp.memoryProperties.memoryHeaps[i].size
         : b.heapBudget[i] > b.heapUsage[i] ? b.heapBudget[i] - b.heapUsage[i] : 0;
  }
  *fr = f;
  *total = t;
  return PT_OK;
}

/* Host-visible bytes for a transfer in batch b: the arena if it fits, else a staging
 * buffer that the batch owns. Under the lock. */
static int stage(vk_ctx *c, vk_batch *b, size_t n, VkBuffer *buf, size_t *off, void **map) {
  size_t at = (b->up_used + 15) & ~(size_t)15;
  if (b->scratch && at + n <= VK_UPLOAD_BYTES) {
    b->up_used = at + n;
    *buf = b->scratch->buf;
    *off = at;
    *map = (char *)b->scratch->map + *off;
    return PT_OK;
  }
  vk_mem *s;
  int st = vk_mem_make(c, n, VK_MEM_STAGING, &s);
  if (st == PT_OK && (st = vkq_attach(b, s)) != PT_OK) vk_mem_destroy(c, s);
  if (st != PT_OK) return st;
  *buf = s->buf;
  *off = 0;
  *map = s->map;
  return PT_OK;
}

int vk_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t n) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  vk_mem *m = mem;
  int st = vk_enter(c);
  if (st != PT_OK || n == 0) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  vk_batch *b;
  pt_mutex_lock(&c->lock);
  if ((st = vkq_open(c, q, &b)) != PT_OK) goto out;
  const vk_mem *w = m;
  if (n <= INLINE_MAX && off % 4 == 0 && n % 4 == 0) {
    vkq_access(c, q, b, NULL, 0, &w, 1);
    c->d.vkCmdUpdateBuffer(b->cb, m->buf, off, n, src);
  } else {
    VkBuffer sb;
    size_t so;
    void *p;
    if ((st = stage(c, b, n, &sb, &so, &p)) != PT_OK) goto out;
    memcpy(p, src, n); /* host writes before the submit are visible to it */
    vkq_access(c, q, b, NULL, 0, &w, 1);
    VkBufferCopy reg = {so, off, n};
    c->d.vkCmdCopyBuffer(b->cb, sb, m->buf, 1, &reg);
  }
  b->nops++;
out:
  pt_mutex_unlock(&c->lock);
  return st;
}

int vk_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t n) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  vk_mem *m = mem;
  int st = vk_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  vk_batch *b = NULL;
  void *p = NULL;
  uint64_t target;
  pt_mutex_lock(&c->lock);
  if (m->map || n == 0) { /* mapped: wait for the queue, then read in place */
    st = vkq_submit(c, q);
    target = q->submitted;
  } else {
    VkBuffer sb;
    size_t so;
    const vk_mem *r = m;
    if ((st = vkq_open(c, q, &b)) == PT_OK && (st = stage(c, b, n, &sb, &so, &p)) == PT_OK) {
      vkq_access(c, q, b, &r, 1, NULL, 0);
      VkBufferCopy reg = {off, so, n};
      c->d.vkCmdCopyBuffer(b->cb, m->buf, sb, 1, &reg);
      b->nops++;
      b->pins++;
      target = b->value;
      if ((st = vkq_submit(c, q)) != PT_OK) b->pins--;
    }
  }
  pt_mutex_unlock(&c->lock);
  if (st != PT_OK) return st;
  st = vkq_wait(c, q, target);
  if (st == PT_OK && n > 0) memcpy(dst, p ? p : (char *)m->map + off, n);
  if (b) {
    pt_mutex_lock(&c->lock);
    b->pins--;
    vkq_reap(c, q);
    pt_mutex_unlock(&c->lock);
  }
  return st == PT_OK ? vk_check_block(c) : st;
}

int vk_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t n) {
  vk_ctx *c = ctx;
  vk_queue *q = queue;
  vk_mem *s = src, *d = dst;
  int st = vk_enter(c);
  if (st != PT_OK || n == 0 || (s == d && soff == doff)) return st;
  pt_ring_drain(&q->ring); /* its launches are recorded first (program.c) */
  vk_batch *b;
  pt_mutex_lock(&c->lock);
  if ((st = vkq_open(c, q, &b)) != PT_OK) goto out;
  const vk_mem *r = s, *w = d;
  if (s == d && soff < doff + n && doff < soff + n) {
    /* Vulkan forbids overlapping regions in one copy: go through a temporary. */
    vk_mem *t;
    if ((st = vk_mem_make(c, n, VK_MEM_DEVICE, &t)) != PT_OK) goto out;
    if ((st = vkq_attach(b, t)) != PT_OK) { vk_mem_destroy(c, t); goto out; }
    const vk_mem *tw = t;
    vkq_access(c, q, b, &r, 1, &tw, 1);
    VkBufferCopy a = {soff, 0, n};
    c->d.vkCmdCopyBuffer(b->cb, s->buf, t->buf, 1, &a);
    vkq_access(c, q, b, &tw, 1, &w, 1);
    VkBufferCopy z = {0, doff, n};
    c->d.vkCmdCopyBuffer(b->cb, t->buf, d->buf, 1, &z);
  } else {
    vkq_access(c, q, b, &r, 1, &w, 1);
    VkBufferCopy reg = {soff, doff, n};
    c->d.vkCmdCopyBuffer(b->cb, s->buf, d->buf, 1, &reg);
  }
  b->nops++;
out:
  pt_mutex_unlock(&c->lock);
  return st;
}
