/* hip.c: what only HIP does: its sticky errors and error text, inventory through the HIP
 * runtime, device selection, and hiprtc's options (cuda/cuda.h's vendor hooks; every
 * other driver entry point is the CUDA driver's, compiled for HIP through vendor.h).
 *
 * Ownership and ordering. Inventory calls hipGetDeviceCount, hipDeviceGet*,
 * hipDeviceGetAttribute and hipGetDeviceProperties only. HIP has no call that lists devices
 * without starting its runtime (the first call opens the kernel driver), but none of these
 * makes a device current, allocates or creates a stream; PT_INFO_CONTEXT reports this
 * process's own activations, which is what "listing made no context" tests. HIP keeps one
 * implicit context per device, selected per thread with hipSetDevice, so binding is that
 * call and nothing is retained; after a sticky error (a kernel that faulted) closing resets
 * the device so that a reopen can try again. (ROCm's default on a GPU memory fault is to end
 * the process, which is why every launch is checked on the host first: pt_block_check.)
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../cuda/cuda.h"
#include "program_cache.h"

#define MAX_TRACKED 64
static atomic_int activations[MAX_TRACKED]; /* per device index: live activate()s of ours */

/* HIP's sticky errors, under the CUDA numbers HIP keeps (hipErrorLaunchFailure is 719). */
int vendor_is_sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_FAILED: case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE: case CUDA_ERROR_ASSERT: case CUDA_ERROR_CONTEXT_IS_DESTROYED: case CUDA_ERROR_UNKNOWN:
    return 1;
  default:
    return 0;
  }
}

const char *vendor_error_name(CUresult r) {
  const char *name = hip.GetErrorName ? hip.GetErrorName(r) : NULL;
  return name ? name : "hipError(unnamed)";
}

const char *vendor_error_text(CUresult r) {
  const char *text = hip.GetErrorString ? hip.GetErrorString(r) : NULL;
  return text ? text : "no description";
}

/* ---- inventory ---------------------------------------------------------------------- */

int vendor_count(void) {
  if (hip_load() != PT_OK) return 0; /* the reason is set */
  int n = 0;
  CUresult r = hip.DeviceGetCount(&n);
  if (r != CUDA_SUCCESS) {
    pt_error(PT_EUNAVAILABLE, "hip: %s loaded, but hipGetDeviceCount found no device: %s (%d)", hip_path(),
             vendor_error_name(r), r);
    return 0;
  }
  if (n <= 0) {
    pt_error(PT_EUNAVAILABLE, "hip: %s loaded, but hipGetDeviceCount found no device (it reported %d)", hip_path(), n);
    return 0;
  }
  return n;
}

int vendor_device_attrs(int index, dev_attrs *d) {
  int st = hip_load();
  if (st != PT_OK) return st;
  CUresult r = hip.DeviceGet(&d->dev, index);
  if (r != CUDA_SUCCESS) return cu_fail(NULL, CU_NAME(DeviceGet), r);
  d->major = d->minor = 0; /* HIP's compute capability says nothing of the features used here */
  static const int attr[3] = {HIP_ATTR_WARP_SIZE, HIP_ATTR_MAX_THREADS_PER_BLOCK, HIP_ATTR_MULTIPROCESSOR_COUNT};
  int *out[3] = {&d->warp, &d->max_threads, &d->sms};
  for (int i = 0; i < 3; i++)
    if ((r = hip.DeviceGetAttribute(out[i], attr[i], index)) != CUDA_SUCCESS)
      return cu_fail(NULL, CU_NAME(DeviceGetAttribute), r);
  /* Attribute numbers changed in HIP 5.0; an older runtime answers other questions. */
  if ((d->warp != 32 && d->warp != 64) || d->max_threads < PT_CUDA_BLOCK || d->max_threads > 65536 || d->sms <= 0)
    return pt_error(PT_EUNSUPPORTED, "hip: device %d reports wave size %d, %d threads per block and %d compute units, "
                    "which cannot be right: %s is older than HIP 5.0 (its attribute numbers differ); use ROCm 5 or newer",
                    index, d->warp, d->max_threads, d->sms, hip_path());
  return PT_OK;
}

/* f16 and bf16 are stored as bits and computed in f32 by the kernels (src/kernels/cuda/
 * preamble.ts), so every AMD GPU has them. */
int vendor_device_info(int index, const dev_attrs *d, double *f) {
  (void)d;
  f[PT_INFO_HAS_F16] = 1;
  f[PT_INFO_HAS_BF16] = 1;
  f[PT_INFO_CONTEXT] = index >= 0 && index < MAX_TRACKED && atomic_load(&activations[index]) > 0;
  return PT_OK;
}

int vendor_has(int index, const dev_attrs *d, const char *cap) {
  (void)index;
  if (strcmp(cap, "f16") == 0 || strcmp(cap, "bf16") == 0) return 1;
  return strcmp(cap, "wave64") == 0 && d->warp == 64;
}

/* ---- the device --------------------------------------------------------------------- */

/* gcnArchName without the struct's layout (it differs between ROCm 5 and 6): the properties
 * land in a buffer larger than either layout, and the field is the one string after name[256]
 * that starts with "gfx". "" when the runtime cannot say; hiprtc then targets the current
 * device itself. */
static void device_arch(int index, char *out, size_t cap) {
  out[0] = 0;
  const size_t size = 16384;
  char *props = hip.GetDeviceProperties ? calloc(1, size) : NULL;
  if (props && hip.GetDeviceProperties(props, index) == CUDA_SUCCESS) {
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

int vendor_open(cuda_ctx *c) {
  device_arch(c->index, c->v.arch, sizeof c->v.arch);
  if (c->index >= 0 && c->index < MAX_TRACKED) atomic_fetch_add(&activations[c->index], 1);
  return PT_OK;
}

int vendor_bind(cuda_ctx *c) { return hip.SetDevice(c->index); } /* the current device is per thread */

void vendor_close(cuda_ctx *c, int dead) {
  /* A lost device keeps failing for the whole process; a reset lets a reopen start fresh,
   * where the fault allows that at all. */
  if (dead && hip.DeviceReset) hip.DeviceReset();
  if (c->index >= 0 && c->index < MAX_TRACKED) atomic_fetch_sub(&activations[c->index], 1);
}

/* ---- hiprtc ---------------------------------------------------------------------------- */

/* -ffp-contract=off: HIP's clang contracts a*b+c into fma by default and the CPU backend
 * rounds each op; denormals are kept (clang's default for HIP), as the CPU keeps them. */
static const char *const options[] = {"-O3", "-std=c++17", "-ffp-contract=off"};

int vendor_build_setup(const cuda_ctx *c, cuda_build *b) {
  const char *arch = c->v.arch;
  b->nopt = 0;
  for (size_t i = 0; i < sizeof options / sizeof *options; i++) b->opts[b->nopt++] = options[i];
  snprintf(b->extra, sizeof b->extra, "-DPT_WAVE_SIZE=%d", c->warp);
  b->opts[b->nopt++] = b->extra;
  /* No arch known: hiprtc compiles for the current device, which cu_enter selected. */
  snprintf(b->target, sizeof b->target, arch[0] ? "--offload-arch=%s" : "the current device", arch);
  if (arch[0]) b->opts[b->nopt++] = b->target;
  b->size = hiprtc.GetPTXSize; /* hiprtcGetCodeSize: the code object */
  b->get = hiprtc.GetPTX;
  int vers[3] = {hiprtc_version(), hip_runtime_version(), c->warp};
  uint64_t key = pt_cache_hash(PT_CACHE_SEED, "polytensor-hip-1", 17);
  key = pt_cache_hash(key, arch, strlen(arch) + 1);
  key = pt_cache_hash(key, vers, sizeof vers);
  for (size_t i = 0; i < sizeof options / sizeof *options; i++) key = pt_cache_hash(key, options[i], strlen(options[i]) + 1);
  b->key = key;
  return PT_OK;
}

/* The runtime refused the image itself (another arch, a hiprtc of another ROCm). */
int vendor_load_hint(const cuda_ctx *c, const cuda_build *b, CUresult r, int st) {
  if (r != CUDA_ERROR_INVALID_IMAGE && r != CUDA_ERROR_NO_BINARY_FOR_GPU && r != CUDA_ERROR_INVALID_PTX) return st;
  char msg[600];
  int m = pt_last_error((uint8_t *)msg, (int32_t)sizeof msg - 1);
  msg[m > 0 && m < (int)sizeof msg ? m : 0] = 0;
  return pt_error(st, "%s (the runtime %s rejected the code object hiprtc %s built for %s: use the hiprtc of the same ROCm "
                  "as the runtime)", msg, hip_path(), hiprtc_path(), c->v.arch[0] ? c->v.arch : b->target);
}
