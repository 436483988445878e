/* hip.c: the HIP driver's inventory, device lifetime, error text, and its table.
 *
 * Ownership and ordering. Inventory (count, name, info, has) calls hipGetDeviceCount,
 * hipDeviceGet*, hipDeviceGetAttribute and hipGetDeviceProperties only. HIP has no call that
 * lists devices without starting its runtime (the first call opens the kernel driver), but
 * none of these makes a device current, allocates or creates a stream; PT_INFO_CONTEXT
 * reports this process's own activations, which is what "listing made no context" tests.
 * activate() selects the device, makes a service stream and the error word block; the core
 * then makes queue 0 through queue_create. shutdown() undoes activate() after the core has
 * freed every queue, fence, program and buffer of the device. A sticky error (a kernel that
 * faulted) breaks the device for the process: hip_fail() marks the ctx dead, every later
 * call fails at once with the first cause, and shutdown() resets the device so that a
 * reopen can try again. (ROCm's default on a GPU memory fault is to end the process, which
 * is why every launch is checked on the host first: blocks.h's pt_block_check.)
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hip.h"

#define MAX_TRACKED 64
static atomic_int activations[MAX_TRACKED]; /* per device index: live activate()s of ours */

/* ---- errors ----------------------------------------------------------------------- */

static int is_sticky(hipError_t r) {
  switch (r) {
  case hipErrorIllegalAddress: case hipErrorLaunchFailure: case hipErrorLaunchTimeOut: case hipErrorECCNotCorrectable:
  case hipErrorAssert: case hipErrorContextIsDestroyed: case hipErrorUnknown:
    return 1;
  default:
    return 0;
  }
}

const char *hip_err_name(hipError_t r) {
  static _Thread_local char buf[96];
  const char *name = hip.GetErrorName ? hip.GetErrorName(r) : NULL;
  snprintf(buf, sizeof buf, "%s (%d)", name ? name : "hipError(unnamed)", r);
  return buf;
}

int hip_fail(hip_ctx *c, const char *fn, hipError_t r) {
  const char *text = hip.GetErrorString ? hip.GetErrorString(r) : NULL;
  if (!text) text = "no description";
  if (c && is_sticky(r)) {
    pt_mutex_lock(&c->lock);
    if (!atomic_load(&c->dead)) {
      snprintf(c->dead_msg, sizeof c->dead_msg, "%s failed: %s: %s", fn, hip_err_name(r), text);
      atomic_store(&c->dead, r);
    }
    pt_mutex_unlock(&c->lock);
    return pt_error(PT_ELOST, "hip: %s failed: %s: %s; device %d is lost (it is rebuilt on next use where HIP allows "
                    "it)", fn, hip_err_name(r), text, c->index);
  }
  return pt_error(r == hipErrorOutOfMemory ? PT_EOOM : PT_EDRIVER, "hip: %s failed: %s: %s", fn, hip_err_name(r), text);
}

int hip_enter(hip_ctx *c) {
  if (atomic_load(&c->dead)) {
    char msg[sizeof c->dead_msg];
    pt_mutex_lock(&c->lock);
    memcpy(msg, c->dead_msg, sizeof msg);
    pt_mutex_unlock(&c->lock);
    return pt_error(PT_ELOST, "hip: device %d was lost earlier (%s); close the device (pt_device_close) and open it "
                    "again, or restart the process if that fails", c->index, msg);
  }
  /* The current device is per thread, and calls come from any thread (Workers). */
  hipError_t r = hip.SetDevice(c->index);
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipSetDevice", r);
}

static int hip_lost(void *ctx) { return atomic_load(&((hip_ctx *)ctx)->dead) != 0; }

/* ---- inventory ---------------------------------------------------------------------- */

static int hip_count(void) {
  if (hip_load() != PT_OK) return 0; /* the reason is set */
  int n = 0;
  hipError_t r = hip.GetDeviceCount(&n);
  if (r != hipSuccess) {
    pt_error(PT_EUNAVAILABLE, "hip: %s loaded, but hipGetDeviceCount found no device: %s", hip_path(), hip_err_name(r));
    return 0;
  }
  if (n <= 0) {
    pt_error(PT_EUNAVAILABLE, "hip: %s loaded, but hipGetDeviceCount found no device (it reported %d)", hip_path(), n);
    return 0;
  }
  return n;
}

typedef struct { hipDevice_t dev; int wave, max_threads, sms; } dev_attrs;

static int device_attrs(int index, dev_attrs *d) {
  int st = hip_load();
  if (st != PT_OK) return st;
  hipError_t r = hip.DeviceGet(&d->dev, index);
  if (r != hipSuccess) return hip_fail(NULL, "hipDeviceGet", r);
  static const int attr[3] = {hipDeviceAttributeWarpSize, hipDeviceAttributeMaxThreadsPerBlock,
                              hipDeviceAttributeMultiprocessorCount};
  int *out[3] = {&d->wave, &d->max_threads, &d->sms};
  for (int i = 0; i < 3; i++)
    if ((r = hip.DeviceGetAttribute(out[i], attr[i], index)) != hipSuccess) return hip_fail(NULL, "hipDeviceGetAttribute", r);
  /* Attribute numbers changed in HIP 5.0; an older runtime answers other questions. */
  if ((d->wave != 32 && d->wave != 64) || d->max_threads < PT_HIP_BLOCK || d->max_threads > 65536 || d->sms <= 0)
    return pt_error(PT_EUNSUPPORTED, "hip: device %d reports wave size %d, %d threads per block and %d compute units, "
                    "which cannot be right: %s is older than HIP 5.0 (its attribute numbers differ); use ROCm 5 or newer",
                    index, d->wave, d->max_threads, d->sms, hip_path());
  return PT_OK;
}

/* gcnArchName without the struct's layout (it differs between ROCm 5 and 6): the properties
 * land in a buffer larger than either layout, and the field is the one string after name[256]
 * that starts with "gfx". "" when the runtime cannot say; hiprtc then targets the current
 * device itself. */
static void device_arch(int index, char *out, size_t cap) {
  out[0] = 0;
  if (!hip.GetDeviceProperties) return;
  const size_t size = 16384;
  char *props = calloc(1, size);
  if (!props) return;
  if (hip.GetDeviceProperties(props, index) == hipSuccess) {
    for (size_t i = 256; i + 4 < size; i++) {
      if (memcmp(props + i, "gfx", 3) != 0 || props[i - 1] != 0) continue;
      size_t n = strnlen(props + i, size - i);
      if (n < 4 || n >= cap || i + n >= size) continue;
      memcpy(out, props + i, n + 1);
      break;
    }
  }
  free(props);
}

static int hipd_device_name(int index, char *buf, size_t cap) {
  dev_attrs d;
  int st = device_attrs(index, &d);
  if (st != PT_OK) return st;
  hipError_t r = hip.DeviceGetName(buf, cap > 0x7fffffff ? 0x7fffffff : (int)cap, d.dev);
  return r == hipSuccess ? PT_OK : hip_fail(NULL, "hipDeviceGetName", r);
}

/* f16 and bf16 are stored as bits and computed in f32 by the kernels (src/kernels/cuda/
 * preamble.ts), so every AMD GPU has them; every one has f64 and i64 too. */
static int hipd_device_info(int index, double *f) {
  dev_attrs d;
  int st = device_attrs(index, &d);
  if (st != PT_OK) return st;
  size_t total = 0;
  hipError_t r = hip.DeviceTotalMem(&total, d.dev);
  if (r != hipSuccess) return hip_fail(NULL, "hipDeviceTotalMem", r);
  f[PT_INFO_MEMORY_TOTAL] = (double)total;
  f[PT_INFO_HAS_F16] = 1;
  f[PT_INFO_HAS_BF16] = 1;
  f[PT_INFO_HAS_F64] = 1;
  f[PT_INFO_HAS_I64] = 1;
  f[PT_INFO_SUBGROUP] = d.wave;
  f[PT_INFO_MAX_WORKGROUP] = d.max_threads;
  f[PT_INFO_UNIFIED_MEMORY] = 0; /* buffers are hipMalloc memory: no host address */
  f[PT_INFO_COMPUTE_UNITS] = d.sms;
  f[PT_INFO_CONTEXT] = index >= 0 && index < MAX_TRACKED && atomic_load(&activations[index]) > 0;
  return PT_OK;
}

static int hipd_has(int index, const char *cap) {
  dev_attrs d;
  if (device_attrs(index, &d) != PT_OK) return 0;
  if (strcmp(cap, "f16") == 0 || strcmp(cap, "bf16") == 0 || strcmp(cap, "f64") == 0 || strcmp(cap, "i64") == 0 ||
      strcmp(cap, "int64") == 0)
    return 1;
  if (strcmp(cap, "blas") == 0) return hipblas_load() == PT_OK;
  if (strcmp(cap, "graphs") == 0) return hipd_has_graphs(); /* pt_capture_* use them */
  if (strcmp(cap, "wave64") == 0) return d.wave == 64;
  return 0; /* host_wrap, unified_memory: not on this backend */
}

/* ---- device lifetime ---------------------------------------------------------------- */

static void release(hip_ctx *c) {
  if (c->errblk) hip.Free(c->errblk);
  if (c->svc) hip.StreamDestroy(c->svc);
  /* A lost device keeps failing for the whole process; a reset lets a reopen start fresh,
   * where the fault allows that at all. */
  if (atomic_load(&c->dead) && hip.DeviceReset) hip.DeviceReset();
  if (c->index >= 0 && c->index < MAX_TRACKED) atomic_fetch_sub(&activations[c->index], 1);
  free(c);
}

static int hipd_activate(int index, void **out) {
  dev_attrs d;
  int st = device_attrs(index, &d);
  if (st != PT_OK) return st;
  hip_ctx *c = calloc(1, sizeof *c);
  if (!c) return pt_error(PT_EOOM, "hip: out of host memory for a device");
  c->lock = (pt_mutex)PT_MUTEX_INIT;
  atomic_init(&c->dead, 0);
  c->index = index;
  c->dev = d.dev;
  c->wave = d.wave;
  c->sms = d.sms;
  device_arch(index, c->arch, sizeof c->arch);
  if (index >= 0 && index < MAX_TRACKED) atomic_fetch_add(&activations[index], 1);
  const char *fn = "hipSetDevice";
  hipError_t r;
  if ((r = hip.SetDevice(index)) != hipSuccess) goto fail;
  fn = "hipStreamCreateWithFlags";
  if ((r = hip.StreamCreateWithFlags(&c->svc, hipStreamNonBlocking)) != hipSuccess) goto fail;
  fn = "hipMalloc (error word block)";
  if ((r = hip.Malloc(&c->errblk, 4 * sizeof(long long))) != hipSuccess) goto fail;
  fn = "hipMemsetAsync (error word block)";
  if ((r = hip.MemsetAsync(c->errblk, 0, 4 * sizeof(long long), c->svc)) != hipSuccess) goto fail;
  fn = "hipStreamSynchronize";
  if ((r = hip.StreamSynchronize(c->svc)) != hipSuccess) goto fail;
  *out = c;
  return PT_OK;
fail:
  st = hip_fail(c, fn, r);
  release(c);
  return st;
}

static void hipd_shutdown(void *ctx) {
  hip_ctx *c = ctx;
  hip.SetDevice(c->index); /* even when dead: the frees below need it current */
  hipd_blas_shutdown(c);
  release(c);
}

const pt_driver pt_driver_hip = {
    .name = "hip",
    .count = hip_count,
    .device_name = hipd_device_name,
    .device_info = hipd_device_info,
    .language = "hip",
    .has = hipd_has,
    .activate = hipd_activate,
    .shutdown = hipd_shutdown,
    .alloc = hipd_alloc,
    .free = hipd_free,
    .wrap = NULL, /* host_wrap would need hipHostRegister; not offered */
    .queue_create = hipd_queue_create,
    .queue_free = hipd_queue_free,
    .write = hipd_write,
    .read = hipd_read,
    .copy = hipd_copy,
    .sync = hipd_sync,
    .fence_record = hipd_fence_record,
    .fence_query = hipd_fence_query,
    .fence_wait = hipd_fence_wait,
    .queue_wait = hipd_queue_wait,
    .fence_elapsed_ms = hipd_fence_elapsed_ms,
    .fence_free = hipd_fence_free,
    .program_create = hipd_program_create,
    .program_free = hipd_program_free,
    .launch = hipd_launch,
    .lost = hip_lost,
    .mem_info = hipd_mem_info,
    .unwrap = NULL,
    .capture_begin = hipd_capture_begin,
    .capture_end = hipd_capture_end,
    .graph_launch = hipd_graph_launch,
    .graph_free = hipd_graph_free,
};
