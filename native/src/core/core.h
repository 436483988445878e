/* core.h: the shared core's objects, lock and allocator, private to native/src/core.
 *
 * Ownership and ordering. One global mutex (pt_lock) guards the handle table, every
 * object's counts and every device's allocator; driver calls that may take long (copies,
 * launches, compiles, waits) run outside it. Such a call first pins what it uses with
 * pt_obj_use() (a reference on each object plus the device's busy count) and unpins with
 * pt_obj_put() afterwards. An object is destroyed when its last reference goes; a device
 * is closed by dropping all its handles, waiting for busy to reach 0, then shutting the
 * driver context down, so no driver call ever races with its own context's teardown.
 *
 * Block reuse across queues. A block remembers the queue that last used it (qid, qseq:
 * that queue's id and its submission count at the use); the stamp lives in the block, so it
 * survives the free and the reuse. Before work on queue q uses a block stamped by another
 * live queue a, the core makes q wait for a on the device (fence_record on a, queue_wait on
 * q), unless q already waits for a at or after the stamp (q->waited); then the work stamps
 * the block with q. So a freed buffer's memory handed to a new buffer on another queue is
 * never written (or read) before the old user's work is done. One compare per buffer per
 * submission when a block stays on one queue. This is the only cross-queue ordering there is: the
 * TypeScript front end keeps none, and a wrapped buffer carries a block of its own for the stamps. Ids are never reused, so a stamp is never a
 * dangling pointer: a queue that goes first makes its device's default queue wait for it,
 * and a stamp whose queue is gone counts as the default queue at that point (dead_seq).
 */
#ifndef PT_CORE_H
#define PT_CORE_H
#include <stddef.h>
#include "blocks.h"
#include "driver.h"
#include "handles.h"

#define PT_SMALL_LIMIT (1u << 20) /* sizes up to 1 MiB round to 512 B, larger to 2 MiB */
#define PT_SMALL_ROUND 512u
#define PT_LARGE_ROUND (2u << 20)
#define PT_SMALL_BUCKETS (PT_SMALL_LIMIT / PT_SMALL_ROUND + 1)

typedef struct pt_block {
  void *mem, *host;
  size_t size;         /* rounded */
  uint64_t qid, qseq;  /* the queue that last used it (0: none yet) and its pt_queue.seq then */
  struct pt_block *next;
} pt_block;

typedef struct {
  pt_block *small[PT_SMALL_BUCKETS]; /* cached blocks, by size / 512 */
  pt_block *large;                   /* cached blocks over 1 MiB */
  size_t in_use, cached, peak;
  size_t cache_limit; /* cached bytes kept at most: a quarter of device memory */
  double allocs, frees, hits, driver_allocs;
  double queue_waits; /* device-side waits pt_block_order made: one per change of queue */
} pt_alloc;

typedef struct pt_dev pt_dev;
typedef struct pt_queue pt_queue;

typedef struct { /* common head of every object */
  int kind;
  int32_t handle;
  int refs; /* the handle's share (owners for buffers) + pins */
  pt_dev *dev;
} pt_obj;

struct pt_dev {
  pt_obj o;
  const pt_driver *drv;
  int backend, index;
  void *ctx;
  int32_t queue0;
  pt_queue *q0;      /* the default queue */
  pt_queue *queues;  /* live queues, linked by pt_queue.next */
  uint64_t dead_seq; /* q0's seq once it waited for the last queue that went: a gone queue's stamps mean this */
  int busy, closing;
  pt_alloc alloc;
  pt_dev *next;
};

/* A wrapped buffer's block is its own `stamp`, outside the allocator: it carries the queue
 * stamps (cross-queue ordering) and nothing else. */
typedef struct { pt_obj o; pt_block *block; void *mem, *host; size_t bytes; int owners, wrapped; pt_block stamp; } pt_buf;
typedef struct pt_graph pt_graph;
#define PT_WAITED 4
struct pt_queue {
  pt_obj o;
  void *q;
  pt_graph *capture; /* set between pt_capture_begin and _end */
  uint64_t id;       /* unique for the process, never reused; 0 never */
  uint64_t seq;      /* submissions (launches, copies, writes, replays) stamped so far, each once the driver took it */
  struct { uint64_t qid, seq; } waited[PT_WAITED]; /* other queues' positions this one waits for on the device */
  int wnext;
  void *pre;         /* while the driver captures: a fence recorded just before, for other queues to wait on */
  pt_queue *next;
};
typedef struct { pt_obj o; void *f; uint64_t qid, qseq; /* its queue and that queue's seq at the record */ } pt_fence;
typedef struct { pt_obj o; void *p; pt_layout layout; /* what its blocks must be: checked by pt_launch */ } pt_prog;

void pt_lock(void);
void pt_unlock(void);

/* Under the lock: look a handle up and pin it (and its device, which must be open). */
int pt_obj_use(int32_t h, int kind, void **obj);
/* Under the lock: unpin; destroys the object when nothing else holds it. */
void pt_obj_put(void *obj);
/* Under the lock: frees the handle of obj and drops its share of references. */
void pt_obj_drop(void *obj, int reason);

/* Under the lock: drops a reference taken without pt_obj_use (a graph's pin). */
void pt_obj_unref(void *obj);

/* capture.c, under the lock: a launch or device copy on a capturing queue pins what it uses
 * for the graph (and records itself when the driver cannot capture); destroy frees a graph. */
int pt_capture_launch(pt_queue *q, pt_prog *p, pt_buf *const *bufs, int nbuf, const double *a, int na);
int pt_capture_copy(pt_queue *q, pt_buf *src, size_t soff, pt_buf *dst, size_t doff, size_t bytes);
void pt_graph_destroy(pt_graph *g);
/* PT_OK, or the error for a host read, write or wait while q (or any queue of d) captures. */
int pt_capture_forbids(const pt_queue *q, const pt_dev *d, const char *what);

/* capture.c: 1 while q's driver records its work instead of running it (a driver capture):
 * such work is ordered and stamped when the step runs (pt_capture_end, pt_graph_launch). */
int pt_capture_by_driver(const pt_queue *q);

/* Block reuse across queues (alloc.c, under the lock; the comment at the top says why).
 * pt_block_order, before work on q that uses b is handed to the driver: PT_OK, or the
 * driver's failure to order it (nothing was queued then). pt_block_stamp, after the driver
 * took the work (q->seq was advanced once for it): b was last used by q. A NULL b (no
 * stamps to keep) orders nothing. */
int pt_block_order_slow(pt_queue *q, const pt_block *b);
static inline int pt_block_order(pt_queue *q, const pt_block *b) {
  return b && b->qid != q->id && b->qid != 0 ? pt_block_order_slow(q, b) : PT_OK;
}
static inline void pt_block_stamp(const pt_queue *q, pt_block *b) {
  if (b) { b->qid = q->id; b->qseq = q->seq; }
}
/* A new queue gets its id and joins its device's list; pt_queue_unlink, before the driver
 * frees a queue, leaves the list and orders the default queue after the queue's work. */
void pt_queue_link(pt_dev *d, pt_queue *q);
void pt_queue_unlink(pt_queue *q);
/* q waits on the device for queue qid's work up to its seq (a pt_queue_wait_fence). */
void pt_queue_note_wait(pt_queue *q, uint64_t qid, uint64_t seq);

/* Allocator (under the lock). pt_alloc_get rounds, takes from the cache or the driver. */
int pt_alloc_get(pt_dev *d, size_t bytes, pt_block **out);
void pt_alloc_put(pt_dev *d, pt_block *b);
void pt_alloc_trim(pt_dev *d);
void pt_alloc_stats(const pt_dev *d, double *fields);

/* Live buffer bytes across devices (exact sizes), kept by the buffer code. */
extern double pt_live_buffer_bytes;

int pt_error_prefix(int status, const char *fmt, ...);

#endif
