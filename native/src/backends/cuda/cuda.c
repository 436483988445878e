/* cuda.c: the CUDA driver's inventory, context lifetime, error text, and its table.
 *
 * Ownership and ordering. Inventory (count, name, info, has) calls only cuInit and
 * cuDeviceGet*, so listing devices never creates a context. activate() retains the
 * device's primary context (the one the CUDA runtime, and so cuBLAS, also uses: one context
 * per device per process), makes a service stream and the error word block; the core then
 * makes queue 0 through queue_create. shutdown() undoes activate() after the core has freed
 * every queue, fence, program and buffer of the device, and frees the pinned staging ring
 * that the first host<->device copy made (staging.c), even when the context was lost. A
 * sticky error (an illegal address, a failed launch) poisons a CUDA context for good:
 * cu_fail() marks the ctx dead, every later call fails at once with the first cause, and
 * shutdown() releases and resets the primary context, so that pt_device_close() followed
 * by pt_device_open() builds a fresh one where the driver allows it. After an illegal
 * address it does not: CUDA documents that the process must be restarted, and on driver
 * 580 (H200) the reopen's retain fails with the same error; activate() then says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"

/* ---- errors ----------------------------------------------------------------------- */

/* Errors after which the context cannot run anything again (CUDA's "sticky" errors). */
static int is_sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ECC_UNCORRECTABLE: case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED: case CUDA_ERROR_ASSERT: case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION: case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC: case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_UNKNOWN:
    return 1;
  default:
    return 0;
  }
}

int cu_fail(cuda_ctx *c, const char *fn, CUresult r) {
  const char *name = NULL, *text = NULL;
  if (!cu.GetErrorName || cu.GetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA_ERROR_(unnamed)";
  if (!cu.GetErrorString || cu.GetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "no description";
  if (c && is_sticky(r)) {
    pt_mutex_lock(&c->lock);
    if (!atomic_load(&c->dead)) {
      snprintf(c->dead_msg, sizeof c->dead_msg, "%s failed: %s (%d): %s", fn, name, r, text);
      atomic_store(&c->dead, r);
    }
    pt_mutex_unlock(&c->lock);
    return pt_error(PT_ELOST, "cuda: %s failed: %s (%d): %s; device %d's context is lost (it is rebuilt on next use "
                    "where CUDA allows it)", fn, name, r, text, c->index);
  }
  return pt_error(r == CUDA_ERROR_OUT_OF_MEMORY ? PT_EOOM : PT_EDRIVER, "cuda: %s failed: %s (%d): %s", fn, name, r, text);
}

/* "CUDA_ERROR_X (n)" for messages that add their own context. */
static const char *last_cause(CUresult r) {
  static _Thread_local char buf[96];
  const char *name = NULL;
  if (cu.GetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA_ERROR_(unnamed)";
  snprintf(buf, sizeof buf, "%s (%d)", name, r);
  return buf;
}

int cu_enter(cuda_ctx *c) {
  if (atomic_load(&c->dead)) {
    char msg[sizeof c->dead_msg];
    pt_mutex_lock(&c->lock);
    memcpy(msg, c->dead_msg, sizeof msg);
    pt_mutex_unlock(&c->lock);
    return pt_error(PT_ELOST, "cuda: device %d's context was lost earlier (%s); close the device (pt_device_close) "
                    "and open it again, or restart the process if that fails", c->index, msg);
  }
  /* Calls come from any thread (Workers): the context is current per thread. */
  CUresult r = cu.CtxSetCurrent(c->cu);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, "cuCtxSetCurrent", r);
}

static int cuda_lost(void *ctx) { return atomic_load(&((cuda_ctx *)ctx)->dead) != 0; }

/* ---- inventory (no context) --------------------------------------------------------- */

static int cuda_count(void) {
  if (cu_load() != PT_OK) return 0; /* the reason is set */
  int n = 0;
  CUresult r = cu.DeviceGetCount(&n);
  if (r != CUDA_SUCCESS) { cu_fail(NULL, "cuDeviceGetCount", r); return 0; }
  if (n <= 0) { pt_error(PT_EUNAVAILABLE, "cuda: the driver reports no CUDA device"); return 0; }
  return n;
}

typedef struct { CUdevice dev; int major, minor, warp, max_threads, sms; } dev_attrs;

static int device_attrs(int index, dev_attrs *d) {
  int st = cu_load();
  if (st != PT_OK) return st;
  CUresult r = cu.DeviceGet(&d->dev, index);
  if (r != CUDA_SUCCESS) return cu_fail(NULL, "cuDeviceGet", r);
  static const int attr[5] = {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                              CU_DEVICE_ATTRIBUTE_WARP_SIZE, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT};
  int *out[5] = {&d->major, &d->minor, &d->warp, &d->max_threads, &d->sms};
  for (int i = 0; i < 5; i++)
    if ((r = cu.DeviceGetAttribute(out[i], attr[i], d->dev)) != CUDA_SUCCESS) return cu_fail(NULL, "cuDeviceGetAttribute", r);
  return PT_OK;
}

static int cuda_device_name(int index, char *buf, size_t cap) {
  dev_attrs d;
  int st = device_attrs(index, &d);
  if (st != PT_OK) return st;
  CUresult r = cu.DeviceGetName(buf, cap > 0x7fffffff ? 0x7fffffff : (int)cap, d.dev);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(NULL, "cuDeviceGetName", r);
}

/* f16 arithmetic arrived with sm_53 and bf16 with sm_80; every CUDA GPU has f64 and i64
 * (f64 is slow on consumer parts, but exact). */
static int cuda_device_info(int index, double *f) {
  dev_attrs d;
  int st = device_attrs(index, &d);
  if (st != PT_OK) return st;
  size_t total = 0;
  CUresult r = cu.DeviceTotalMem(&total, d.dev);
  if (r != CUDA_SUCCESS) return cu_fail(NULL, "cuDeviceTotalMem", r);
  int cc = d.major * 10 + d.minor;
  f[PT_INFO_MEMORY_TOTAL] = (double)total;
  f[PT_INFO_HAS_F16] = cc >= 53;
  f[PT_INFO_HAS_BF16] = cc >= 80;
  f[PT_INFO_HAS_F64] = 1;
  f[PT_INFO_HAS_I64] = 1;
  f[PT_INFO_SUBGROUP] = d.warp;
  f[PT_INFO_MAX_WORKGROUP] = d.max_threads;
  f[PT_INFO_UNIFIED_MEMORY] = 0; /* buffers are device memory: no host address */
  f[PT_INFO_COMPUTE_UNITS] = d.sms;
  /* Whether this process holds the primary context (ours or the runtime's), asked without
   * creating it: the test that listing devices made no context. */
  unsigned flags = 0;
  int active = 0;
  if ((r = cu.PrimaryCtxGetState(d.dev, &flags, &active)) != CUDA_SUCCESS) return cu_fail(NULL, "cuDevicePrimaryCtxGetState", r);
  f[PT_INFO_CONTEXT] = active != 0;
  return PT_OK;
}

static int cuda_has(int index, const char *cap) {
  dev_attrs d;
  if (device_attrs(index, &d) != PT_OK) return 0;
  int cc = d.major * 10 + d.minor;
  if (strcmp(cap, "f16") == 0) return cc >= 53;
  if (strcmp(cap, "bf16") == 0) return cc >= 80;
  if (strcmp(cap, "f64") == 0 || strcmp(cap, "i64") == 0 || strcmp(cap, "int64") == 0) return 1;
  if (strcmp(cap, "blas") == 0) return cublas_load() == PT_OK;
  if (strcmp(cap, "graphs") == 0) return cu.StreamBeginCapture && cu.GraphLaunch; /* pt_capture_* use them */
  if (strcmp(cap, "async_launch") == 0) return 1; /* launches return before the kernel runs */
  if (strcmp(cap, "batched_submit") == 0) return 1; /* launch rings: a flush at the end of a task hands them on */
  return 0; /* host_wrap, unified_memory: not on this backend */
}

/* ---- context lifetime --------------------------------------------------------------- */

static void release(cuda_ctx *c, int retained) {
  pt_outcome_free(&c->launch_fail);
  cuda_stage_free(c); /* the staging ring, after its last copies (staging.c) */
  if (c->errhost) cu.MemFreeHost((void *)c->errhost);
  else if (c->errblk) cu.MemFree(c->errblk);
  if (c->svc) cu.StreamDestroy(c->svc);
  if (retained) {
    int dead = atomic_load(&c->dead);
    if (dead) cu.CtxSetCurrent(NULL); /* no thread of ours should hold the lost context */
    cu.PrimaryCtxRelease(c->dev);
    /* A lost context keeps failing for everyone sharing it; a reset lets the next retain
     * build a fresh one, where the error allows that at all. */
    if (dead) cu.PrimaryCtxReset(c->dev);
  }
  free(c);
}

static int cuda_activate(int index, void **out) {
  dev_attrs d;
  int st = device_attrs(index, &d);
  if (st != PT_OK) return st;
  cuda_ctx *c = calloc(1, sizeof *c);
  if (!c) return pt_error(PT_EOOM, "cuda: out of host memory for a context");
  c->lock = (pt_mutex)PT_MUTEX_INIT;
  c->qlock = (pt_mutex)PT_MUTEX_INIT;
  atomic_init(&c->dead, 0);
  c->index = index;
  c->dev = d.dev;
  c->cc_major = d.major;
  c->cc_minor = d.minor;
  c->sms = d.sms > 0 ? d.sms : 1;
  CUresult r = cu.PrimaryCtxRetain(&c->cu, c->dev);
  if (r != CUDA_SUCCESS) {
    st = cu_fail(NULL, "cuDevicePrimaryCtxRetain", r);
    if (is_sticky(r))
      st = pt_error(st, "cuda: cuDevicePrimaryCtxRetain failed: %s: an earlier kernel fault left CUDA unusable in this "
                    "process (CUDA cannot recover from it); restart the process", last_cause(r));
    free(c);
    return st;
  }
  const char *fn = "cuCtxSetCurrent";
  if ((r = cu.CtxSetCurrent(c->cu)) != CUDA_SUCCESS) goto fail;
  fn = "cuStreamCreate";
  if ((r = cu.StreamCreate(&c->svc, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) goto fail;
  /* The error word lives in mapped pinned memory where the driver allows it, so that a
   * sync reads it with a plain load instead of a copy and a second stream wait. */
  void *host = NULL;
  if (cu.MemHostAlloc && cu.MemHostGetDevicePointer && cu.MemFreeHost &&
      cu.MemHostAlloc(&host, 4 * sizeof(long long), CU_MEMHOSTALLOC_DEVICEMAP) == CUDA_SUCCESS) {
    if (cu.MemHostGetDevicePointer(&c->errblk, host, 0) == CUDA_SUCCESS) {
      c->errhost = host;
      memset(host, 0, 4 * sizeof(long long));
    } else {
      cu.MemFreeHost(host);
      c->errblk = 0;
    }
  }
  fn = "cuMemAlloc (error word block)";
  if (!c->errhost && (r = cu.MemAlloc(&c->errblk, 4 * sizeof(long long))) != CUDA_SUCCESS) goto fail;
  fn = "cuMemsetD8Async (error word block)";
  if ((r = cu.MemsetD8Async(c->errblk, 0, 4 * sizeof(long long), c->svc)) != CUDA_SUCCESS) goto fail;
  fn = "cuStreamSynchronize";
  if ((r = cu.StreamSynchronize(c->svc)) != CUDA_SUCCESS) goto fail;
  *out = c;
  return PT_OK;
fail:
  st = cu_fail(c, fn, r);
  release(c, 1);
  return st;
}

static void cuda_shutdown(void *ctx) {
  cuda_ctx *c = ctx;
  cu.CtxSetCurrent(c->cu); /* even when dead: the frees below need it current */
  cuda_blas_shutdown(c);
  release(c, 1);
}

const pt_driver pt_driver_cuda = {
    .name = "cuda",
    .count = cuda_count,
    .device_name = cuda_device_name,
    .device_info = cuda_device_info,
    .language = "cuda",
    .has = cuda_has,
    .activate = cuda_activate,
    .shutdown = cuda_shutdown,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .wrap = NULL, /* host_wrap would need cuMemHostRegister; not offered */
    .queue_create = cuda_queue_create,
    .queue_free = cuda_queue_free,
    .write = cuda_write,
    .read = cuda_read,
    .copy = cuda_copy,
    .sync = cuda_sync,
    .fence_record = cuda_fence_record,
    .fence_query = cuda_fence_query,
    .fence_wait = cuda_fence_wait,
    .queue_wait = cuda_queue_wait,
    .fence_elapsed_ms = cuda_fence_elapsed_ms,
    .fence_free = cuda_fence_free,
    .program_create = cuda_program_create,
    .program_free = cuda_program_free,
    .launch = cuda_launch,
    .lost = cuda_lost,
    .mem_info = cuda_mem_info,
    .unwrap = NULL,
    .flush = cuda_flush,
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .graph_launch = cuda_graph_launch,
    .graph_free = cuda_graph_free,
};
