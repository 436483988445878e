/* cuda.c: what only CUDA does: its sticky errors and error text, inventory through the
 * driver API, the primary context, and NVRTC's options and output (cuda.h's vendor hooks).
 *
 * Ownership and ordering. Inventory calls only cuInit and cuDeviceGet*, so listing devices
 * never creates a context. vendor_open() retains the device's primary context (one per
 * device per process, shared with the CUDA runtime and so cuBLAS); vendor_close() releases
 * it and, after a sticky error, resets it so that the next retain builds a fresh one. After
 * an illegal address it does not: CUDA documents that the process must be restarted, and on
 * driver 580 (H200) the reopen's retain fails with the same error; vendor_open() says so.
 */
#include <stdio.h>
#include <string.h>
#include "cuda.h"
#include "program_cache.h"

/* ---- errors ----------------------------------------------------------------------- */

/* Errors after which the context cannot run anything again (CUDA's "sticky" errors). */
int vendor_is_sticky(CUresult r) {
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

const char *vendor_error_name(CUresult r) {
  const char *name = NULL;
  if (!cu.GetErrorName || cu.GetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA_ERROR_(unnamed)";
  return name;
}

const char *vendor_error_text(CUresult r) {
  const char *text = NULL;
  if (!cu.GetErrorString || cu.GetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "no description";
  return text;
}

/* ---- inventory (no context) --------------------------------------------------------- */

int vendor_count(void) {
  if (cu_load() != PT_OK) return 0; /* the reason is set */
  int n = 0;
  CUresult r = cu.DeviceGetCount(&n);
  if (r != CUDA_SUCCESS) { cu_fail(NULL, "cuDeviceGetCount", r); return 0; }
  if (n <= 0) { pt_error(PT_EUNAVAILABLE, "cuda: the driver reports no CUDA device"); return 0; }
  return n;
}

int vendor_device_attrs(int index, dev_attrs *d) {
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

/* f16 arithmetic arrived with sm_53 and bf16 with sm_80. */
int vendor_device_info(int index, const dev_attrs *d, double *f) {
  (void)index;
  int cc = d->major * 10 + d->minor;
  f[PT_INFO_HAS_F16] = cc >= 53;
  f[PT_INFO_HAS_BF16] = cc >= 80;
  /* Whether this process holds the primary context (ours or the runtime's), asked without
   * creating it: the test that listing devices made no context. */
  unsigned flags = 0;
  int active = 0;
  CUresult r = cu.PrimaryCtxGetState(d->dev, &flags, &active);
  if (r != CUDA_SUCCESS) return cu_fail(NULL, "cuDevicePrimaryCtxGetState", r);
  f[PT_INFO_CONTEXT] = active != 0;
  return PT_OK;
}

int vendor_has(int index, const dev_attrs *d, const char *cap) {
  (void)index;
  int cc = d->major * 10 + d->minor;
  if (strcmp(cap, "f16") == 0) return cc >= 53;
  if (strcmp(cap, "bf16") == 0) return cc >= 80;
  return 0;
}

/* ---- the primary context ------------------------------------------------------------ */

int vendor_open(cuda_ctx *c) {
  CUresult r = cu.PrimaryCtxRetain(&c->v.cu, c->dev);
  if (r == CUDA_SUCCESS) return PT_OK;
  int st = cu_fail(NULL, "cuDevicePrimaryCtxRetain", r);
  if (!vendor_is_sticky(r)) return st;
  return pt_error(st, "cuda: cuDevicePrimaryCtxRetain failed: %s (%d): an earlier kernel fault left CUDA unusable in "
                  "this process (CUDA cannot recover from it); restart the process", vendor_error_name(r), r);
}

int vendor_bind(cuda_ctx *c) { return cu.CtxSetCurrent(c->v.cu); }

void vendor_close(cuda_ctx *c, int dead) {
  if (dead) cu.CtxSetCurrent(NULL); /* no thread of ours should hold the lost context */
  cu.PrimaryCtxRelease(c->dev);
  /* A lost context keeps failing for everyone sharing it; a reset lets the next retain
   * build a fresh one, where the error allows that at all. */
  if (dead) cu.PrimaryCtxReset(c->dev);
}

/* ---- NVRTC ---------------------------------------------------------------------------- */

static const char *const options[] = {"-default-device", "--std=c++17", "-fmad=false"}; /* no contraction: match the CPU */

/* The device's own arch as a CUBIN when this NVRTC knows it; else PTX for the newest arch
 * it knows below the device's, which the driver compiles on load. */
static int pick_arch(const cuda_ctx *c, char *opt, size_t cap, int *cubin) {
  int want = c->cc_major * 10 + c->cc_minor, best = want, n = 0, archs[128];
  *cubin = nvrtc.GetCUBIN && nvrtc.GetCUBINSize;
  if (nvrtc.GetNumSupportedArchs && nvrtc.GetSupportedArchs && nvrtc.GetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0 &&
      n <= 128 && nvrtc.GetSupportedArchs(archs) == NVRTC_SUCCESS) {
    best = 0;
    for (int i = 0; i < n; i++)
      if (archs[i] <= want && archs[i] > best) best = archs[i];
    if (best == 0)
      return pt_error(PT_EUNSUPPORTED, "cuda: NVRTC %d.%d (%s) compiles for sm_%d and newer; this device is sm_%d",
                      nvrtc_version() / 1000, nvrtc_version() % 1000 / 10, nvrtc_path(), archs[0], want);
  }
  if (best != want) *cubin = 0;
  snprintf(opt, cap, "--gpu-architecture=%s_%d", *cubin ? "sm" : "compute", best);
  return PT_OK;
}

int vendor_build_setup(const cuda_ctx *c, cuda_build *b) {
  int cubin = 0, st = pick_arch(c, b->target, sizeof b->target, &cubin);
  if (st != PT_OK) return st;
  b->nopt = 0;
  b->opts[b->nopt++] = b->target;
  for (size_t i = 0; i < sizeof options / sizeof *options; i++) b->opts[b->nopt++] = options[i];
  b->size = cubin ? nvrtc.GetCUBINSize : nvrtc.GetPTXSize;
  b->get = cubin ? nvrtc.GetCUBIN : nvrtc.GetPTX;
  int vers[2] = {nvrtc_version(), cu_driver_version()};
  uint64_t key = pt_cache_hash(PT_CACHE_SEED, "polytensor-cuda-1", 18);
  key = pt_cache_hash(key, b->target, strlen(b->target) + 1);
  key = pt_cache_hash(key, vers, sizeof vers);
  for (size_t i = 0; i < sizeof options / sizeof *options; i++) key = pt_cache_hash(key, options[i], strlen(options[i]) + 1);
  b->key = key;
  return PT_OK;
}

/* A module from a newer NVRTC than the driver may not load: say so after the driver's words. */
int vendor_load_hint(const cuda_ctx *c, const cuda_build *b, CUresult r, int st) {
  (void)c;
  (void)r;
  if (nvrtc_version() <= cu_driver_version()) return st;
  char msg[1024];
  int n = pt_last_error((uint8_t *)msg, (int32_t)sizeof msg - 1);
  msg[n < (int)sizeof msg - 1 ? n : (int)sizeof msg - 1] = 0;
  int nv = nvrtc_version(), dv = cu_driver_version();
  return pt_error(st, "%s (compiled by NVRTC %d.%d for %s, newer than the driver's CUDA %d.%d: use an NVRTC no newer "
                  "than the driver)", msg, nv / 1000, nv % 1000 / 10, b->target, dv / 1000, dv % 1000 / 10);
}
