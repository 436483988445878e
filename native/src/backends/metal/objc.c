/* objc.c: the Objective-C runtime and Metal opened at run time, and the few helpers
 * every Metal file uses (pools, strings, the device list).
 *
 * Ownership and ordering. mtl_load() runs once per process under load_lock: it dlopens
 * libobjc, Foundation and Metal (never closed: the Objective-C runtime cannot unload),
 * resolves objc_msgSend and friends with dlsym (zig cc has no Apple SDK, so -lobjc cannot
 * link) and registers every selector of metal.h. The device list from MTLCopyAllDevices
 * is taken once and kept for the process, so indices stay stable; listing devices makes
 * no command queue. Off macOS nothing is opened and the reason is "Metal is only
 * available on macOS".
 *
 * Message signatures, checked against Apple's declarations (metal-cpp and the Metal
 * reference); each call site casts objc_msgSend to exactly these C types:
 *   NSArray -count:NSUInteger  -objectAtIndex:(NSUInteger):id      NSString +stringWithUTF8String:(const char*):id
 *   MTLDevice -recommendedMaxWorkingSetSize:uint64_t  -currentAllocatedSize:NSUInteger
 *     -hasUnifiedMemory:BOOL  -maxThreadsPerThreadgroup:MTLSize (a 24-byte struct return:
 *     objc_msgSend_stret on x86_64)  -supportsFamily:(NSInteger):BOOL  -newSharedEvent:id
 *     -newBufferWithLength:(NSUInteger)options:(NSUInteger):id
 *     -newBufferWithBytes:(const void*)length:(NSUInteger)options:(NSUInteger):id
 *     -newLibraryWithSource:(NSString*)options:(MTLCompileOptions*)error:(NSError**):id
 *     -newComputePipelineStateWithFunction:(id)error:(NSError**):id
 *   MTLCommandBuffer -encodeSignalEvent:(id)value:(uint64_t)  -encodeWaitForEvent:(id)value:(uint64_t)
 *     -computeCommandEncoderWithDispatchType:(NSUInteger):id  -status:NSUInteger
 *     -GPUStartTime/-GPUEndTime:double (CFTimeInterval)
 *   MTLComputeCommandEncoder -setBuffers:(const id*)offsets:(const NSUInteger*)withRange:(NSRange)
 *     -setBytes:(const void*)length:(NSUInteger)atIndex:(NSUInteger)
 *     -dispatchThreadgroups:(MTLSize)threadsPerThreadgroup:(MTLSize)  -memoryBarrierWithScope:(NSUInteger)
 *   MTLBlitCommandEncoder -copyFromBuffer:(id)sourceOffset:(NSUInteger)toBuffer:(id)destinationOffset:(NSUInteger)size:(NSUInteger)
 *   MTLSharedEvent -signaledValue:uint64_t  -setSignaledValue:(uint64_t)
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stdio.h>
#include <string.h>
#include "metal.h"
#if defined(__APPLE__)
#include <dlfcn.h>
#include <sched.h>
#include <time.h>
#elif defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <sched.h>
#include <time.h>
#endif

mtl_runtime mtl;
mtl_sels S;

static pt_mutex load_lock = PT_MUTEX_INIT;
static int load_state; /* 0 not tried, 1 ready, -1 failed (load_why says why) */
static char load_why[320];
static id devices; /* the kept NSArray of MTLCopyAllDevices */
static int ndevices;

#if defined(__APPLE__)
static void *open_lib(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(load_why, sizeof load_why, "metal: cannot open %s: %s", path, e ? e : "unknown reason");
  }
  return h;
}

#define SYM(lib, field, name)                                                                           \
  do {                                                                                                  \
    void *p_ = dlsym(lib, name);                                                                        \
    if (!p_) { snprintf(load_why, sizeof load_why, "metal: %s lacks %s", #lib, name); return -1; }      \
    memcpy(&mtl.field, &p_, sizeof p_);                                                                 \
  } while (0)

static int load(void) {
  void *objc = open_lib("/usr/lib/libobjc.A.dylib");
  if (!objc || !open_lib("/System/Library/Frameworks/Foundation.framework/Foundation")) return -1;
  void *metal = open_lib("/System/Library/Frameworks/Metal.framework/Metal");
  if (!metal) return -1;
  SYM(objc, send, "objc_msgSend");
#if defined(__x86_64__)
  SYM(objc, send_stret, "objc_msgSend_stret");
#endif
  SYM(objc, sel, "sel_registerName");
  SYM(objc, cls, "objc_getClass");
  SYM(objc, pool_push, "objc_autoreleasePoolPush");
  SYM(objc, pool_pop, "objc_autoreleasePoolPop");
  SYM(metal, copy_all_devices, "MTLCopyAllDevices");
#define PT_MTL_SEL_REG(f, s) S.f = mtl.sel(s);
  MTL_SELECTORS(PT_MTL_SEL_REG)
#undef PT_MTL_SEL_REG
  mtl.NSString = mtl.cls("NSString");
  mtl.MTLCompileOptions = mtl.cls("MTLCompileOptions");
  if (!mtl.NSString || !mtl.MTLCompileOptions) {
    snprintf(load_why, sizeof load_why, "metal: the Objective-C runtime has no class %s",
             mtl.NSString ? "MTLCompileOptions" : "NSString");
    return -1;
  }
  void *pool = mtl.pool_push();
  devices = mtl.copy_all_devices(); /* +1: kept for the process */
  ndevices = devices ? (int)MSG0(NSUInteger)(devices, S.count) : 0;
  mtl.pool_pop(pool);
  return 1;
}
#else
static int load(void) {
  snprintf(load_why, sizeof load_why, "metal: Metal is only available on macOS");
  return -1;
}
#endif

int mtl_load(void) {
  pt_mutex_lock(&load_lock);
  if (load_state == 0) load_state = load();
  int st = load_state;
  pt_mutex_unlock(&load_lock);
  return st == 1 ? PT_OK : pt_error(PT_EUNAVAILABLE, "%s", load_why);
}

int mtl_devices(id *array) {
  if (mtl_load() != PT_OK) return 0;
  if (ndevices <= 0) {
    pt_error(PT_EUNAVAILABLE, "metal: MTLCopyAllDevices lists no Metal device");
    return 0;
  }
  if (array) *array = devices;
  return ndevices;
}

id mtl_device(int index) {
  id arr = NULL;
  int n = mtl_devices(&arr);
  if (n <= 0) return NULL;
  if (index < 0 || index >= n) {
    pt_error(PT_EINVAL, "metal: device index %d is out of range (%d device%s)", index, n, n == 1 ? "" : "s");
    return NULL;
  }
  return MSGA(id, NSUInteger)(arr, S.objectAtIndex, (NSUInteger)index);
}

void *mtl_pool(void) { return mtl.pool_push ? mtl.pool_push() : NULL; }
void mtl_unpool(void *pool) {
  if (pool && mtl.pool_pop) mtl.pool_pop(pool);
}

void mtl_release(id obj) {
  if (obj) MSG0(void)(obj, S.release);
}

id mtl_str(const char *utf8) { return MSGA(id, const char *)(mtl.NSString, S.stringWithUTF8String, utf8); }

void mtl_text(id s, char *buf, size_t cap) {
  if (!cap) return;
  const char *t = s ? MSG0(const char *)(s, S.UTF8String) : NULL;
  snprintf(buf, cap, "%s", t ? t : "");
}

void mtl_error_text(id err, char *buf, size_t cap) {
  mtl_text(err ? MSG0(id)(err, S.localizedDescription) : NULL, buf, cap);
  if (cap && !buf[0]) snprintf(buf, cap, "no description");
}

MTLSize mtl_max_threads(id dev) {
  MTLSize r = {0, 0, 0};
#if defined(__x86_64__)
  if (mtl.send_stret) ((void (*)(MTLSize *, id, SEL))mtl.send_stret)(&r, dev, S.maxThreadsPerThreadgroup);
#else
  r = MSG0(MTLSize)(dev, S.maxThreadsPerThreadgroup);
#endif
  return r;
}

void mtl_nap(unsigned *round) {
  unsigned r = (*round)++;
  if (r < 64) { /* the first ~tens of microseconds: stay hot, short kernels end here */
#if defined(_WIN32)
    SwitchToThread();
#else
    sched_yield();
#endif
    return;
  }
  unsigned shift = r - 64 < 10 ? r - 64 : 10; /* 1 us doubling to ~1 ms */
#if defined(_WIN32)
  Sleep(shift >= 10 ? 1 : 0);
#else
  struct timespec ts = {0, (long)(1000u << shift)};
  nanosleep(&ts, NULL);
#endif
}
