/* vkdrv.h: the Vulkan driver's private objects and the functions its files share.
 *
 * Ownership and ordering. lib.c owns the loader, the process-wide VkInstance and the
 * inventory (vk_phys rows), made once and kept for the process. One vk_ctx per opened
 * device (device.c): the logical device, its VkQueues, the pipeline layout and cache, the
 * error block and the timestamp pool. A vk_queue (queue.c) records launches and copies
 * into an open batch (a command buffer plus a params ring and an upload arena) and submits
 * it at a sync point, when it fills, or at flush; each submit signals the queue's timeline
 * semaphore with the batch's value, and a batch slot is reused only once that value has
 * passed; a captured step (graph.c) is recorded like a batch and submitted like one.
 * A fence is (queue, value) and holds a reference on its queue, and so does a wait
 * on another queue's semaphore until the batch that waits has completed, so a queue freed
 * before its fences or its waiters keeps its semaphore until the last of them goes. Entry points arrive from
 * any thread: every mutable field of the ctx and its queues sits under ctx->lock, which is
 * never held across a host wait for the GPU (the one exception: a queue whose batch slots
 * are all in flight waits for its oldest under the lock, to bound memory).
 */
#ifndef PT_VKDRV_H
#define PT_VKDRV_H
#include <stdatomic.h>
#include <stdint.h>
#include "driver.h"
#include "sync.h"
#include "ring.h"
#include "blocks.h"
#include "gpu.h"
#include "vk.h"
#include "params.h"

#define VK_MAX_DEVICES 16
#define VK_MAX_VQUEUES 4        /* VkQueues taken from the compute family; pt queues share them round-robin */
#define VK_BATCH_SLOTS 3        /* batches per queue: one recording, the rest in flight */
#define VK_BATCH_DISPATCHES 512 /* a batch is submitted when it holds this many dispatches ... */
#define VK_RING_BYTES (512u << 10)  /* ... or its params ring is full ... */
#define VK_EARLY_DISPATCHES 32  /* ... or holds a multiple of 32 while at most one earlier batch still runs */
#define VK_ELEMENT_GROUPS 4096  /* workgroups of an ELEMENT launch at most; the grid-stride loop does the rest. Each
                                   group first reads its params and sets up its views, so fewer, longer-lived groups
                                   run a large launch faster (docs/measurements.md) */
#define VK_UPLOAD_BYTES (1u << 20)  /* per-batch arena for writes and small reads; larger ones get their own buffer */
#define VK_PARAMS_BYTES (VK_RING_BYTES + 4096) /* a params buffer: the ring's last record may extend
                                                  sizeof(pt_vk_params) past VK_RING_BYTES */
#define VK_RING_RECORDS 256     /* launches a queue's ring holds before its producer waits (program.c) */
#define VK_HAZARD_SET 64        /* buffers tracked per barrier interval; beyond that, barrier anyway */
#define VK_MAX_WAITS 16         /* device-side waits attached to one submission */
#define VK_QUERIES 1024         /* timestamp slots for fences */

/* Inventory of one physical device, read once (lib.c). */
typedef struct {
  VkPhysicalDevice pd;
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  uint32_t api, driver_version, vendor, device_id, type;
  uint8_t cache_uuid[VK_UUID_SIZE], dev_uuid[VK_UUID_SIZE];
  double mem_total;
  int f16_arith, f64, i64, i16, i8_arith, s8, s16, bda, timeline, vmm, unified, denorm32, budget, portability;
  int coopmat; /* float16 16x16x16 products into float32 at subgroup scope, subgroups of 32 (glsl/coopmat.ts) */
  uint32_t subgroup, max_wg;
  uint32_t family, nqueues, ts_bits;
  float ts_period;
  char missing[96]; /* the first requirement of params.h it lacks, or "" */
} vk_phys;

typedef struct { /* one raw allocation: a buffer with its own memory */
  VkBuffer buf;
  VkDeviceMemory dm;
  VkDeviceAddress addr;
  void *map;   /* host address when host-visible, else NULL */
  size_t bytes;
} vk_mem;

typedef struct {
  VkCommandBuffer cb;
  int state; /* BATCH_FREE, BATCH_OPEN, BATCH_SENT */
  int pins;  /* readers copying out of the arena after the wait */
  uint64_t value;
  int ndisp, nops;
  VkPipeline bound;
  size_t ring_used, up_used;
  vk_mem *params;  /* the params ring: written by the host, read by kernels (VK_MEM_PARAMS) */
  vk_mem *scratch; /* the upload arena, host-visible; NULL in a captured step */
  vk_mem **extra;  /* dedicated staging buffers freed when the batch completes */
  int nextra, capextra;
  struct vk_queue *held[VK_MAX_WAITS]; /* queues whose semaphores it waits on, referenced until it completes */
  int nheld;
} vk_batch;
enum { BATCH_FREE, BATCH_OPEN, BATCH_SENT };

typedef struct vk_ctx vk_ctx;
typedef struct vk_graph vk_graph; /* graph.c */
typedef struct vk_queue {
  vk_ctx *c;
  struct vk_queue *next; /* the ctx's list */
  VkQueue vq;
  VkCommandPool pool;
  VkSemaphore sem;
  uint64_t assigned, submitted; /* last value given to a batch; last value submitted */
  int open;                     /* index of the recording batch, or -1 */
  vk_batch b[VK_BATCH_SLOTS];
  const vk_mem *rd[VK_HAZARD_SET], *wr[VK_HAZARD_SET];
  int nrd, nwr, full;
  VkSemaphore wsem[VK_MAX_WAITS]; /* waits for the next submission; each holds a reference on wq[i] */
  uint64_t wval[VK_MAX_WAITS];
  struct vk_queue *wq[VK_MAX_WAITS];
  int nwait;
  int refs, freed;
  vk_graph *cap; /* the step it is capturing (graph.c), or NULL */
  atomic_int capturing; /* cap != NULL, readable without the lock: a launch must not wait on a recording thread */
  pt_ring ring;  /* launches on their way to being recorded (program.c); not under lock */
} vk_queue;

typedef struct {
  vk_queue *q;
  uint64_t value;
  int slot;   /* timestamp query, or -1 */
  pt_outcome out; /* sticky once known */
} vk_fence;

typedef struct {
  int kind;
  VkPipeline pipe;
} vk_prog;

struct vk_ctx {
  int index;
  const vk_phys *ph;
  VkDevice dev;
  vk_dev_api d;
  VkQueue vq[VK_MAX_VQUEUES];
  uint32_t nvq, next_vq;
  VkPhysicalDeviceMemoryProperties mp;
  int unified; /* raw buffers are host-visible, coherent and mapped */
  VkPipelineLayout layout;
  VkPipelineCache pcache;
  uint64_t pcache_key;
  vk_mem *errblk; /* params.h's error block */
  VkQueryPool qpool;
  uint8_t qused[VK_QUERIES];
  vk_queue *queues;
  pt_sticky dead;  /* the VkResult that lost the context and its cause; 0 while healthy */
  pt_mutex lock;   /* guards everything mutable here and in the queues */
  pt_word word;    /* the error block's bookkeeping (core/gpu.h), and a launch a ring failed to record */
  char where[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + 16]; /* "vulkan (name)", for kernel error reports */
};

/* lib.c */
extern vk_inst_api vki;
extern shaderc_api shc;
extern VkInstance vk_instance;
int vk_load(void);                     /* loader + instance + inventory; PT_OK or the reason */
int vk_phys_count(void);
const vk_phys *vk_phys_get(int index); /* after vk_load() succeeded */
int vk_coopmat(const vk_phys *p); /* float16 matmul on cooperative matrices: p->coopmat, a compiler for them, and not PT_VK_COOPMAT=0 */
int shaderc_load(void);
unsigned shaderc_version(void);
const char *vk_result_name(VkResult r);

/* device.c */
int vk_fail(vk_ctx *c, const char *fn, VkResult r); /* pt_error text; DEVICE_LOST kills the context */
int vk_enter(vk_ctx *c);                            /* PT_EDRIVER once the context is lost */

/* memory.c */
enum { VK_MEM_DEVICE, VK_MEM_STAGING, VK_MEM_PARAMS }; /* VK_MEM_PARAMS: host-visible, device-local where it can be */
int vk_mem_make(vk_ctx *c, size_t bytes, int kind, vk_mem **out);
void vk_mem_destroy(vk_ctx *c, vk_mem *m);
int vk_alloc(void *ctx, size_t bytes, void **mem, void **host);
void vk_free(void *ctx, void *mem);
int vk_mem_info(void *ctx, size_t *fr, size_t *total);
int vk_write(void *ctx, void *queue, void *mem, size_t off, const void *src, size_t bytes);
int vk_read(void *ctx, void *queue, void *mem, size_t off, void *dst, size_t bytes);
int vk_copy(void *ctx, void *queue, void *src, size_t soff, void *dst, size_t doff, size_t bytes);

/* queue.c: batches, barriers, submission, fences, the error block */
int vkq_open(vk_ctx *c, vk_queue *q, vk_batch **out);        /* under lock */
void vkq_barrier_in(vk_ctx *c, VkCommandBuffer cb);          /* all earlier work -> compute/transfer */
void vkq_barrier_out(vk_ctx *c, VkCommandBuffer cb);         /* compute/transfer writes -> host reads */
void vkq_access(vk_ctx *c, vk_queue *q, vk_batch *b, const vk_mem *const *rd, int nrd, const vk_mem *const *wr, int nwr);
int vkq_submit(vk_ctx *c, vk_queue *q);                       /* under lock; no-op without an open batch */
int vkq_wait(vk_ctx *c, vk_queue *q, uint64_t value);         /* without the lock */
void vkq_reap(vk_ctx *c, vk_queue *q);                        /* under lock */
int vkq_attach(vk_batch *b, vk_mem *m);                       /* frees m when b completes */
int vk_drain(vk_ctx *c);                                      /* record, submit and wait for everything; no lock held */
int vk_check_block(vk_ctx *c);                                /* after a host wait saw work finish */
void vkq_unref(vk_ctx *c, vk_queue *q);                       /* under lock */
int vk_queue_create(void *ctx, void **queue);
void vk_queue_free(void *ctx, void *queue);
int vk_sync(void *ctx, void *queue);
int vk_flush(void *ctx, void *queue);
int vk_fence_record(void *ctx, void *queue, void **fence);
int vk_fence_query(void *ctx, void *fence);
int vk_fence_wait(void *ctx, void *fence);
int vk_queue_wait(void *ctx, void *queue, void *fence);
double vk_fence_elapsed_ms(void *ctx, void *start, void *end);
void vk_fence_free(void *ctx, void *fence);

/* graph.c: captured steps as pre-recorded command buffers; the vkg_* run under lock */
int vkg_open(vk_ctx *c, vk_queue *q, vk_batch **out); /* vkq_open on a capturing queue: the step's recording */
int vkg_roll(vk_ctx *c, vk_queue *q);                 /* vkq_submit on a capturing queue: submits no work */
vk_graph *vkg_detach(vk_ctx *c, vk_queue *q);         /* ends the queue's capture; returns its graph or NULL */
int vk_capture_begin(void *ctx, void *queue);
int vk_capture_end(void *ctx, void *queue, void **graph);
int vk_graph_launch(void *ctx, void *queue, void *graph);
void vk_graph_free(void *ctx, void *graph);

/* glslc.c: PT_OK, PT_EINVAL with *log (malloc'd), or PT_EUNAVAILABLE when no tool runs */
int vk_glsl_external(const char *src, size_t len, const char *sg, int denorm, unsigned char **out, size_t *n, char **log,
                     const char **tool);

/* program.c */
int vk_program_create(void *ctx, const char *kind, const uint8_t *src, size_t len, void **prog);
void vk_program_free(void *ctx, void *prog);
int vk_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs);
int vk_ring_init(vk_queue *q); /* the queue's launch ring */

#endif
