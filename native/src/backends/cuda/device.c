/* device.c: the CUDA driver's error text, context lifetime, device name and its table
 * (compiled for HIP too: cuda.h says how).
 *
 * Ownership and ordering. Inventory is the vendor's (cuda.c, hip/hip.c): it never creates a
 * context. activate() opens the device's context through the vendor (CUDA retains the
 * device's primary context, the one the CUDA runtime and so cuBLAS also use), makes a
 * service stream and the error word block; the core then makes queue 0 through
 * queue_create. shutdown() undoes activate() after the core has freed every queue, fence,
 * program and buffer of the device, and frees the pinned staging ring that the first
 * host<->device copy made (staging.c), even when the context was lost. A sticky error (an
 * illegal address, a failed launch) poisons a context for good: cu_fail() marks the ctx dead
 * (core/gpu.h's pt_sticky keeps the first cause), every later call fails at once with it,
 * and the vendor's close resets the device, so that pt_device_close() followed by
 * pt_device_open() builds a fresh one where the driver allows it (cuda.c says where not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"

/* ---- errors ----------------------------------------------------------------------- */

int cu_fail(cuda_ctx *c, const char *fn, CUresult r) {
  const char *name = vendor_error_name(r), *text = vendor_error_text(r);
  if (c && vendor_is_sticky(r)) {
    pt_sticky_set(&c->dead, r, "%s failed: %s (%d): %s", fn, name, r, text);
    return pt_error(PT_ELOST, GPU_TAG ": %s failed: %s (%d): %s; " GPU_LOST " is lost (it is rebuilt on next use "
                    "where " GPU_API " allows it)", fn, name, r, text, c->index);
  }
  return pt_error(r == CUDA_ERROR_OUT_OF_MEMORY ? PT_EOOM : PT_EDRIVER, GPU_TAG ": %s failed: %s (%d): %s", fn, name, r, text);
}

int cu_fail_for(cuda_ctx *c, const char *fn, const char *what, CUresult r) {
  char at[200];
  if (what) snprintf(at, sizeof at, "%s (%s)", fn, what);
  return cu_fail(c, what ? at : fn, r);
}

int cu_enter(cuda_ctx *c) {
  char msg[sizeof c->dead.msg];
  if (pt_sticky_cause(&c->dead, msg, sizeof msg))
    return pt_error(PT_ELOST, GPU_TAG ": " GPU_LOST " was lost earlier (%s); close the device (pt_device_close) "
                    "and open it again, or restart the process if that fails", c->index, msg);
  /* Calls come from any thread (Workers): the context is current per thread. */
  CUresult r = vendor_bind(c);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(GPU_BIND), r);
}

static int cuda_lost(void *ctx) { return pt_sticky_code(&((cuda_ctx *)ctx)->dead) != 0; }

/* ---- inventory: what the vendors' devices have in common ---------------------------- */

static int cuda_device_name(int index, char *buf, size_t cap) {
  dev_attrs d;
  int st = vendor_device_attrs(index, &d);
  if (st != PT_OK) return st;
  CUresult r = cu.DeviceGetName(buf, cap > 0x7fffffff ? 0x7fffffff : (int)cap, d.dev);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(NULL, CU_NAME(DeviceGetName), r);
}

/* Every device has f64 and i64 (f64 is slow on consumer parts, but exact); buffers are
 * device memory, with no host address. */
static int cuda_device_info(int index, double *f) {
  dev_attrs d;
  int st = vendor_device_attrs(index, &d);
  if (st != PT_OK) return st;
  size_t total = 0;
  CUresult r = cu.DeviceTotalMem(&total, d.dev);
  if (r != CUDA_SUCCESS) return cu_fail(NULL, CU_NAME(DeviceTotalMem), r);
  f[PT_INFO_MEMORY_TOTAL] = (double)total;
  f[PT_INFO_HAS_F64] = 1;
  f[PT_INFO_HAS_I64] = 1;
  f[PT_INFO_SUBGROUP] = d.warp;
  f[PT_INFO_MAX_WORKGROUP] = d.max_threads;
  f[PT_INFO_UNIFIED_MEMORY] = 0;
  f[PT_INFO_COMPUTE_UNITS] = d.sms;
  return vendor_device_info(index, &d, f); /* f16, bf16 and PT_INFO_CONTEXT */
}

static int cuda_has(int index, const char *cap) {
  dev_attrs d;
  if (vendor_device_attrs(index, &d) != PT_OK) return 0;
  if (strcmp(cap, "f64") == 0 || strcmp(cap, "i64") == 0 || strcmp(cap, "int64") == 0) return 1;
  if (strcmp(cap, "blas") == 0) return cublas_load() == PT_OK;
  /* the matmul block takes f16 and bf16 operands, and f32 may round to TF32: GemmEx on tensor cores (blas.c) */
  if (strcmp(cap, "matmul_f16") == 0 || strcmp(cap, "matmul_bf16") == 0 || strcmp(cap, "matmul_tf32") == 0)
    return cublas_load() == PT_OK && cublas.GemmEx && cublas.GemmStridedBatchedEx;
  if (strcmp(cap, "graphs") == 0) return cuda_has_graphs(); /* pt_capture_* use them */
  if (strcmp(cap, "async_launch") == 0) return 1; /* launches return before the kernel runs */
  if (strcmp(cap, "batched_submit") == 0) return 1; /* launch rings: a flush at the end of a task hands them on */
  return vendor_has(index, &d, cap); /* host_wrap, unified_memory: on neither vendor */
}

/* ---- context lifetime --------------------------------------------------------------- */

static void release(cuda_ctx *c) {
  pt_outcome_free(&c->word.launch_fail);
  cuda_stage_free(c); /* the staging ring, after its last copies (staging.c) */
  if (c->errhost) cu.MemFreeHost((void *)c->errhost);
  else if (c->errblk) cu.MemFree(c->errblk);
  if (c->svc) cu.StreamDestroy(c->svc);
  vendor_close(c, pt_sticky_code(&c->dead));
  free(c);
}

static int cuda_activate(int index, void **out) {
  dev_attrs d;
  int st = vendor_device_attrs(index, &d);
  if (st != PT_OK) return st;
  cuda_ctx *c = calloc(1, sizeof *c);
  if (!c) return pt_error(PT_EOOM, GPU_TAG ": out of host memory for a context");
  c->lock = (pt_mutex)PT_MUTEX_INIT;
  c->qlock = (pt_mutex)PT_MUTEX_INIT;
  pt_sticky_init(&c->dead);
  c->index = index;
  c->dev = d.dev;
  c->cc_major = d.major;
  c->cc_minor = d.minor;
  c->warp = d.warp;
  c->sms = d.sms > 0 ? d.sms : 1;
  if ((st = vendor_open(c)) != PT_OK) {
    free(c);
    return st;
  }
  CUresult r;
  const char *fn = CU_NAME(GPU_BIND), *what = NULL;
  if ((r = vendor_bind(c)) != CUDA_SUCCESS) goto fail;
  fn = CU_NAME(StreamCreate);
  if ((r = cu.StreamCreate(&c->svc, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) goto fail;
  /* The error word lives in mapped pinned memory where the driver allows it, so that a
   * sync reads it with a plain load instead of a copy and a second stream wait. */
  void *host = NULL;
  if (cu.MemHostAlloc && cu.MemHostGetDevicePointer && cu.MemFreeHost &&
      cu.MemHostAlloc(&host, 4 * sizeof(long long), GPU_HOST_MAPPED) == CUDA_SUCCESS) {
    if (cu.MemHostGetDevicePointer(&c->errblk, host, 0) == CUDA_SUCCESS) {
      c->errhost = host;
      memset(host, 0, 4 * sizeof(long long));
    } else {
      cu.MemFreeHost(host);
      c->errblk = 0;
    }
  }
  fn = CU_NAME(MemAlloc), what = "error word block";
  if (!c->errhost && (r = cu.MemAlloc(&c->errblk, 4 * sizeof(long long))) != CUDA_SUCCESS) goto fail;
  fn = CU_NAME(MemsetD8Async);
  if ((r = cu.MemsetD8Async(c->errblk, 0, 4 * sizeof(long long), c->svc)) != CUDA_SUCCESS) goto fail;
  fn = CU_NAME(StreamSynchronize), what = NULL;
  if ((r = cu.StreamSynchronize(c->svc)) != CUDA_SUCCESS) goto fail;
  *out = c;
  return PT_OK;
fail:
  st = cu_fail_for(c, fn, what, r);
  release(c);
  return st;
}

static void cuda_shutdown(void *ctx) {
  cuda_ctx *c = ctx;
  vendor_bind(c); /* even when dead: the frees below need it current */
  cuda_blas_shutdown(c);
  release(c);
}

const pt_driver GPU_DRIVER = {
    .name = GPU_TAG,
    .count = vendor_count,
    .device_name = cuda_device_name,
    .device_info = cuda_device_info,
    .language = GPU_TAG,
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
