/* metal.h: the Metal driver's private objects, its Objective-C runtime table, and the
 * functions its files share.
 *
 * Ownership and ordering. One mtl_ctx per opened device: activate() (metal.c) retains the
 * MTLDevice and makes the error block and a dummy buffer; shutdown() releases them after
 * the core has freed every queue, fence, program and buffer of the device. A queue
 * (queue.c) owns an MTLCommandQueue, an MTLSharedEvent whose value v is signalled at the
 * end of the queue's v-th committed command buffer, the command buffer being recorded and
 * the committed ones not yet seen complete; each command buffer first waits for the
 * event's previous value, so a queue's command buffers finish in order and "value v
 * passed" means all work before it passed. Fences (fence.c) hold a reference on their
 * queue's record, which outlives the MTLCommandQueue until the last fence goes. Lock
 * order: ctx->lock before any queue's lock; ctx->errlock is a leaf. Entry points arrive
 * from any thread (Workers), so each one that calls Objective-C runs inside its own
 * autorelease pool (mtl_pool / mtl_unpool).
 *
 * UNVERIFIED: there is no Mac where this was written. Every file compiles for
 * aarch64-macos and x86_64-macos (and, with the runtime absent, for Linux and Windows), but
 * none of it has run. The message signatures were checked by reading against Apple's
 * documented declarations (the list is in objc.c). Unproven on hardware: whether a failed
 * command buffer still signals its event (the waits assume it may not and release waiters
 * themselves); GPUStartTime/GPUEndTime of a command buffer holding only an event signal
 * (fence timing on a queue that never ran anything); the MTLSize/NSRange by-value calls and
 * the objc_msgSend_stret return on x86_64; the cost of chaining each command buffer to the
 * previous one through the event; and fastMathEnabled = NO meaning no contraction and no
 * subnormal flushing with today's compiler (the renderer also writes one op per function).
 */
#ifndef PT_METAL_H
#define PT_METAL_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "driver.h"
#include "sync.h"
#include "blocks.h"
#include "params.h"
#include "gpu.h"

/* ---- the Objective-C runtime, as plain C ---------------------------------------------- */

typedef void *id;
typedef void *SEL;
typedef uintptr_t NSUInteger; /* unsigned long on both macOS ABIs */
#if defined(__x86_64__)
typedef signed char objc_bool; /* BOOL is signed char on x86_64, bool on arm64 */
#else
typedef _Bool objc_bool;
#endif
typedef struct { NSUInteger width, height, depth; } MTLSize;
typedef struct { NSUInteger location, length; } NSRange;

/* objc_msgSend is a trampoline: each call casts it to the method's exact C type. */
#define MSG0(R) ((R (*)(id, SEL))mtl.send)
#define MSGA(R, ...) ((R (*)(id, SEL, __VA_ARGS__))mtl.send)

/* Selectors, registered once by mtl_load(); X(field, "selector:name:"). */
#define MTL_SELECTORS(X)                                                                                \
  X(alloc, "alloc") X(init, "init") X(retain, "retain") X(release, "release")                          \
  X(respondsToSelector, "respondsToSelector:") X(count, "count") X(objectAtIndex, "objectAtIndex:")    \
  X(UTF8String, "UTF8String") X(stringWithUTF8String, "stringWithUTF8String:")                        \
  X(localizedDescription, "localizedDescription") X(name, "name") X(hasUnifiedMemory, "hasUnifiedMemory") \
  X(recommendedMaxWorkingSetSize, "recommendedMaxWorkingSetSize")                                     \
  X(currentAllocatedSize, "currentAllocatedSize") X(maxThreadsPerThreadgroup, "maxThreadsPerThreadgroup") \
  X(supportsFamily, "supportsFamily:") X(newCommandQueue, "newCommandQueue")                           \
  X(newBufferWithLength, "newBufferWithLength:options:")                                               \
  X(newBufferWithBytes, "newBufferWithBytes:length:options:") X(contents, "contents")                 \
  X(newSharedEvent, "newSharedEvent") X(signaledValue, "signaledValue")                                \
  X(setSignaledValue, "setSignaledValue:") X(commandBuffer, "commandBuffer")                           \
  X(computeEncoderWithType, "computeCommandEncoderWithDispatchType:")                                  \
  X(blitCommandEncoder, "blitCommandEncoder") X(endEncoding, "endEncoding")                            \
  X(copyFromBuffer, "copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:")                    \
  X(encodeSignalEvent, "encodeSignalEvent:value:") X(encodeWaitForEvent, "encodeWaitForEvent:value:")  \
  X(commit, "commit") X(waitUntilCompleted, "waitUntilCompleted") X(status, "status") X(error, "error") \
  X(GPUStartTime, "GPUStartTime") X(GPUEndTime, "GPUEndTime")                                          \
  X(setComputePipelineState, "setComputePipelineState:") X(setBuffers, "setBuffers:offsets:withRange:") \
  X(setBuffer, "setBuffer:offset:atIndex:") X(setBytes, "setBytes:length:atIndex:")                    \
  X(dispatchThreadgroups, "dispatchThreadgroups:threadsPerThreadgroup:")                               \
  X(memoryBarrierWithScope, "memoryBarrierWithScope:") X(setFastMathEnabled, "setFastMathEnabled:")    \
  X(newLibraryWithSource, "newLibraryWithSource:options:error:")                                      \
  X(newFunctionWithName, "newFunctionWithName:")                                                       \
  X(newComputePipelineState, "newComputePipelineStateWithFunction:error:")                            \
  X(maxTotalThreadsPerThreadgroup, "maxTotalThreadsPerThreadgroup")                                    \
  X(threadExecutionWidth, "threadExecutionWidth") X(maxBufferLength, "maxBufferLength")

typedef struct {
#define PT_MTL_SEL_FIELD(f, s) SEL f;
  MTL_SELECTORS(PT_MTL_SEL_FIELD)
#undef PT_MTL_SEL_FIELD
} mtl_sels;

typedef struct {
  void (*send)(void);       /* objc_msgSend */
  void (*send_stret)(void); /* objc_msgSend_stret (x86_64 struct returns); NULL on arm64 */
  SEL (*sel)(const char *);
  id (*cls)(const char *);
  void *(*pool_push)(void);
  void (*pool_pop)(void *);
  id (*copy_all_devices)(void); /* MTLCopyAllDevices: a +1 NSArray */
  id NSString, MTLCompileOptions;
} mtl_runtime;

extern mtl_runtime mtl;
extern mtl_sels S;

/* Metal's enum values (MTLResourceOptions, MTLCommandBufferStatus, ...). */
#define MTL_STORAGE_SHARED 0u   /* MTLResourceStorageModeShared << 4 */
#define MTL_STORAGE_PRIVATE 32u /* MTLResourceStorageModePrivate (2) << 4 */
#define MTL_CB_COMPLETED 4u
#define MTL_CB_ERROR 5u
#define MTL_DISPATCH_CONCURRENT 1u
#define MTL_BARRIER_BUFFERS 1u
#define MTL_GPU_FAMILY_APPLE1 1001

/* objc.c */
int mtl_load(void); /* PT_OK, or PT_EUNAVAILABLE with the reason set (always off macOS) */
void *mtl_pool(void);
void mtl_unpool(void *pool);
id mtl_str(const char *utf8); /* autoreleased NSString, NULL on bad UTF-8 */
/* Copies an NSString (or an NSError's localizedDescription) into buf; "" for nil. */
void mtl_text(id nsstring, char *buf, size_t cap);
void mtl_error_text(id nserror, char *buf, size_t cap);
MTLSize mtl_max_threads(id device);
void mtl_nap(unsigned *round); /* backoff for polling waits: spins, then sleeps up to 1 ms */
/* The process's device list (MTLCopyAllDevices, kept); count or 0 with the reason set. */
int mtl_devices(id *array);
id mtl_device(int index); /* not retained; NULL with the reason set */
void mtl_release(id obj);

/* ---- driver objects --------------------------------------------------------------------- */

typedef struct mtl_queue mtl_queue;
typedef struct { uint64_t key; char *src; id pso; } mtl_cached;

typedef struct {
  int index, unified;
  id dev;              /* retained */
  id errblk;           /* shared MTLBuffer holding one pt_mtl_error */
  id dummy;            /* bound at unused buffer indices */
  pt_sticky dead;      /* 1 once a command buffer failed, and why: sticky until close */
  atomic_int xwaits;   /* device waits across queues were recorded: host waits poll */
  pt_mutex lock;       /* guards the fields below */
  mtl_queue **queues;
  int nqueues, capqueues;
  mtl_cached *cache;   /* compiled pipelines by source */
  int ncache, capcache;
  id copy_pso;         /* the driver's own byte-copy kernel, for copies blits cannot do */
  pt_mutex errlock;    /* guards the error block's reads and word */
  pt_word word;        /* the error block's bookkeeping (core/gpu.h) */
} mtl_ctx;

typedef struct { id cb; uint64_t value; } mtl_pending;

struct mtl_queue {
  mtl_ctx *c;
  atomic_int refs;     /* the queue itself plus one per fence */
  pt_mutex lock;       /* guards everything below */
  id q;                /* MTLCommandQueue; NULL once the queue is freed */
  id ev;               /* MTLSharedEvent: value v = end of committed command buffer v */
  uint64_t issued;     /* value of the last committed command buffer */
  id last;             /* that command buffer (retained), for fences and timing */
  id cb, enc;          /* command buffer being recorded, its open compute encoder */
  int ndispatch;
  id last_pso;
  void *wr[64], *rd[64]; /* buffers written / touched since the encoder's last barrier */
  int nwr, nrd;
  mtl_pending *pend;   /* committed, not yet seen complete, oldest first */
  int npend, cappend;
};

typedef struct { mtl_queue *q; id cb; uint64_t value; pt_outcome out; } mtl_fence;
typedef struct { int kind; id pso; } mtl_prog;

#define PT_MTL_BATCH 128 /* dispatches per command buffer before it is committed unasked */

/* metal.c */
int mtl_enter(mtl_ctx *c); /* PT_OK, or the sticky failure */
void mtl_count_queue(int index, int delta); /* PT_INFO_CONTEXT's count of live command queues */

/* queue.c */
int mtl_alloc(void *ctx, size_t bytes, void **mem, void **host);
void mtl_free(void *ctx, void *mem);
int mtl_queue_create(void *ctx, void **queue);
void mtl_queue_free(void *ctx, void *queue);
void mtl_queue_put(mtl_queue *q);
int mtl_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t bytes);
int mtl_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t bytes);
int mtl_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t bytes);
int mtl_sync(void *ctx, void *queue);
int mtl_flush(void *ctx, void *queue);
/* With q->lock held: */
int mtl_ensure_cb(mtl_queue *q);
int mtl_ensure_compute(mtl_queue *q);
void mtl_end_encoder(mtl_queue *q);
int mtl_commit_locked(mtl_queue *q);

/* fence.c */
void mtl_poison(mtl_ctx *c, id failed_cb);
int mtl_wait_done(mtl_queue *q, uint64_t value);  /* host wait, oldest first; PT_OK or the sticky failure */
int mtl_wait_value(mtl_queue *q, uint64_t value); /* the same, then the error block */
int mtl_check_block(mtl_ctx *c);
int mtl_fence_record(void *ctx, void *queue, void **fence);
int mtl_fence_query(void *ctx, void *fence);
int mtl_fence_wait(void *ctx, void *fence);
int mtl_queue_wait(void *ctx, void *queue, void *fence);
double mtl_fence_elapsed_ms(void *ctx, void *start, void *end);
void mtl_fence_free(void *ctx, void *fence);

/* program.c */
/* Compiles MSL source (fast math off) and makes the pipeline of `entry`; what names it in errors. */
int mtl_compile(mtl_ctx *c, const char *what, const char *src, size_t len, const char *entry, id *pso);
id mtl_copy_kernel(mtl_ctx *c); /* the byte-copy pipeline, compiled on first use; NULL with the error set */
int mtl_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **prog);
void mtl_program_free(void *ctx, void *prog);
void mtl_cache_clear(mtl_ctx *c);

/* launch.c */
/* With q->lock held: binds bufs[0..n) at 0..n-1, `bytes` at index n and `extra` (if any) at
 * n+1, orders the dispatch after earlier ones that it depends on (bit i of writes: bufs[i]
 * is written), and dispatches `groups` threadgroups of PT_MTL_GROUP threads. */
int mtl_dispatch_locked(mtl_queue *q, id pso, id *bufs, int n, uint32_t writes, const void *bytes, size_t nbytes,
                        id extra, MTLSize groups);
int mtl_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs);

#endif
