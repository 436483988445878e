/* metal.c: the Metal driver's inventory, context lifetime, and its table.
 *
 * Ownership and ordering. Inventory (count, name, info, has) reads MTLDevice properties
 * of the process's kept device list (objc.c) and makes no command queue, so listing
 * devices leaves PT_INFO_CONTEXT at 0: that field counts the command queues this process
 * holds for the device (queue_create / queue_free keep live_queues). activate() retains
 * the device and makes the error block and the dummy buffer; the core then makes queue 0.
 * shutdown() runs after the core freed every queue, fence, program and buffer, releases
 * what activate() made and the pipeline cache, and a later activate() starts afresh. A
 * failed command buffer makes the context dead (fence.c): every later call fails with the
 * first cause until the device is closed; a reopen makes a new context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metal.h"

#define MAX_DEVS 64
static atomic_int live_queues[MAX_DEVS]; /* command queues this process holds, per device */

void mtl_count_queue(int index, int delta) {
  if (index >= 0 && index < MAX_DEVS) atomic_fetch_add(&live_queues[index], delta);
}

/* ---- inventory (no command queue) -------------------------------------------------------- */

static int mtl_count(void) { return mtl_devices(NULL); }

static int mtl_device_name(int index, char *buf, size_t cap) {
  id d = mtl_device(index); /* loads the runtime first, so the pool below is a real one */
  if (!d) return PT_EINVAL;
  void *pool = mtl_pool();
  mtl_text(MSG0(id)(d, S.name), buf, cap);
  mtl_unpool(pool);
  return PT_OK;
}

/* Every Apple-family GPU runs SIMD-groups of 32; other Macs' GPUs (AMD, Intel) say so only
 * through a compiled pipeline's threadExecutionWidth, so inventory reports 0 (unknown). */
static int is_apple_gpu(id d) {
  return MSGA(objc_bool, SEL)(d, S.respondsToSelector, S.supportsFamily) && /* macOS 10.15 */
         MSGA(objc_bool, long)(d, S.supportsFamily, MTL_GPU_FAMILY_APPLE1) != 0;
}

static int mtl_device_info(int index, double *f) {
  id d = mtl_device(index);
  if (!d) return PT_EINVAL;
  void *pool = mtl_pool();
  MTLSize mt = mtl_max_threads(d);
  f[PT_INFO_MEMORY_TOTAL] = (double)MSG0(uint64_t)(d, S.recommendedMaxWorkingSetSize);
  f[PT_INFO_HAS_F16] = 1;  /* half is core MSL on every Metal GPU */
  f[PT_INFO_HAS_BF16] = 1; /* stored as ushort and computed as float by the renderer (msl preamble) */
  f[PT_INFO_HAS_F64] = 0;  /* Metal has no 64-bit float */
  f[PT_INFO_HAS_I64] = 1;  /* long/ulong are core MSL */
  f[PT_INFO_SUBGROUP] = is_apple_gpu(d) ? 32 : 0;
  f[PT_INFO_MAX_WORKGROUP] = (double)mt.width;
  f[PT_INFO_UNIFIED_MEMORY] = MSG0(objc_bool)(d, S.hasUnifiedMemory) != 0;
  f[PT_INFO_COMPUTE_UNITS] = 0; /* Metal does not publish a core count */
  f[PT_INFO_CONTEXT] = index < MAX_DEVS && atomic_load(&live_queues[index]) > 0;
  mtl_unpool(pool);
  return PT_OK;
}

static int mtl_has(int index, const char *cap) {
  if (strcmp(cap, "f64") == 0 || strcmp(cap, "host_wrap") == 0) return 0;
  if (strcmp(cap, "f16") == 0 || strcmp(cap, "bf16") == 0 || strcmp(cap, "i64") == 0 || strcmp(cap, "int64") == 0 ||
      strcmp(cap, "batched_submit") == 0)
    return mtl_devices(NULL) > index;
  if (strcmp(cap, "unified_memory") == 0) {
    id d = mtl_device(index);
    return d && MSG0(objc_bool)(d, S.hasUnifiedMemory) != 0;
  }
  return 0; /* blas, graphs: not on this backend */
}

/* ---- context lifetime -------------------------------------------------------------------- */

int mtl_enter(mtl_ctx *c) {
  char msg[sizeof c->dead.msg];
  if (!pt_sticky_cause(&c->dead, msg, sizeof msg)) return PT_OK;
  return pt_error(PT_EDRIVER, "metal: device %d failed earlier (%s); close the device (pt_device_close) and open it "
                  "again", c->index, msg);
}

static void release_ctx(mtl_ctx *c) {
  mtl_cache_clear(c);
  mtl_release(c->errblk);
  mtl_release(c->dummy);
  mtl_release(c->dev);
  free(c->queues);
  free(c);
}

static int mtl_activate(int index, void **out) {
  id d = mtl_device(index);
  if (!d) return PT_EINVAL;
  void *pool = mtl_pool();
  int st = PT_OK;
  mtl_ctx *c = NULL;
  /* Shared events and concurrent dispatch arrived with macOS 10.14; the driver needs both. */
  if (!MSGA(objc_bool, SEL)(d, S.respondsToSelector, S.newSharedEvent)) {
    st = pt_error(PT_EUNSUPPORTED, "metal: device %d has no MTLSharedEvent (macOS 10.14 or later is needed)", index);
    goto done;
  }
  if (!(c = calloc(1, sizeof *c))) { st = pt_error(PT_EOOM, "metal: out of host memory for a context"); goto done; }
  c->lock = (pt_mutex)PT_MUTEX_INIT;
  c->errlock = (pt_mutex)PT_MUTEX_INIT;
  pt_sticky_init(&c->dead);
  atomic_init(&c->xwaits, 0);
  c->index = index;
  c->dev = MSG0(id)(d, S.retain);
  c->unified = MSG0(objc_bool)(d, S.hasUnifiedMemory) != 0;
  /* The error block is shared storage on every Mac (buffers may be shared even on discrete
   * GPUs), so the host reads and clears it without a blit. */
  c->errblk = MSGA(id, NSUInteger, NSUInteger)(d, S.newBufferWithLength, sizeof(pt_mtl_error), MTL_STORAGE_SHARED);
  c->dummy = MSGA(id, NSUInteger, NSUInteger)(d, S.newBufferWithLength, 16, MTL_STORAGE_SHARED);
  void *blk = c->errblk ? MSG0(void *)(c->errblk, S.contents) : NULL;
  if (!blk || !c->dummy) {
    st = pt_error(PT_EOOM, "metal: device %d could not allocate the %zu-byte error block", index, sizeof(pt_mtl_error));
    release_ctx(c);
    goto done;
  }
  memset(blk, 0, sizeof(pt_mtl_error));
  *out = c;
done:
  mtl_unpool(pool);
  return st;
}

static void mtl_shutdown(void *ctx) {
  void *pool = mtl_pool();
  release_ctx(ctx);
  mtl_unpool(pool);
}

static int mtl_mem_info(void *ctx, size_t *fr, size_t *total) {
  mtl_ctx *c = ctx;
  void *pool = mtl_pool();
  uint64_t t = MSG0(uint64_t)(c->dev, S.recommendedMaxWorkingSetSize);
  NSUInteger used = MSG0(NSUInteger)(c->dev, S.currentAllocatedSize);
  mtl_unpool(pool);
  *total = (size_t)t;
  *fr = used < t ? (size_t)(t - used) : 0;
  return PT_OK;
}

const pt_driver pt_driver_metal = {
    .name = "metal",
    .count = mtl_count,
    .device_name = mtl_device_name,
    .device_info = mtl_device_info,
    .language = "msl",
    .has = mtl_has,
    .activate = mtl_activate,
    .shutdown = mtl_shutdown,
    .alloc = mtl_alloc,
    .free = mtl_free,
    .wrap = NULL, /* newBufferWithBytesNoCopy needs page-aligned memory; not offered */
    .queue_create = mtl_queue_create,
    .queue_free = mtl_queue_free,
    .write = mtl_write,
    .read = mtl_read,
    .copy = mtl_copy,
    .sync = mtl_sync,
    .fence_record = mtl_fence_record,
    .fence_query = mtl_fence_query,
    .fence_wait = mtl_fence_wait,
    .queue_wait = mtl_queue_wait,
    .fence_elapsed_ms = mtl_fence_elapsed_ms,
    .fence_free = mtl_fence_free,
    .program_create = mtl_program_create,
    .program_free = mtl_program_free,
    .launch = mtl_launch,
    .mem_info = mtl_mem_info,
    .unwrap = NULL,
    .flush = mtl_flush,
};
