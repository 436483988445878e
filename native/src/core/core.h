/* core.h: the shared core's objects, lock and allocator, private to native/src/core.
 *
 * Ownership and ordering. One global mutex (pt_lock) guards the handle table, every
 * object's counts and every device's allocator; driver calls that may take long (copies,
 * launches, compiles, waits) run outside it. Such a call first pins what it uses with
 * pt_obj_use() (a reference on each object plus the device's busy count) and unpins with
 * pt_obj_put() afterwards. An object is destroyed when its last reference goes; a device
 * is closed by dropping all its handles, waiting for busy to reach 0, then shutting the
 * driver context down, so no driver call ever races with its own context's teardown.
 */
#ifndef PT_CORE_H
#define PT_CORE_H
#include <stddef.h>
#include "driver.h"
#include "handles.h"

#define PT_SMALL_LIMIT (1u << 20) /* sizes up to 1 MiB round to 512 B, larger to 2 MiB */
#define PT_SMALL_ROUND 512u
#define PT_LARGE_ROUND (2u << 20)
#define PT_SMALL_BUCKETS (PT_SMALL_LIMIT / PT_SMALL_ROUND + 1)

typedef struct pt_block {
  void *mem, *host;
  size_t size; /* rounded */
  struct pt_block *next;
} pt_block;

typedef struct {
  pt_block *small[PT_SMALL_BUCKETS]; /* cached blocks, by size / 512 */
  pt_block *large;                   /* cached blocks over 1 MiB */
  size_t in_use, cached, peak;
  size_t cache_limit; /* cached bytes kept at most: a quarter of device memory */
  double allocs, frees, hits, driver_allocs;
} pt_alloc;

typedef struct pt_dev pt_dev;

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
  int busy, closing;
  pt_alloc alloc;
  pt_dev *next;
};

typedef struct { pt_obj o; pt_block *block; void *mem, *host; size_t bytes; int owners, wrapped; } pt_buf;
typedef struct pt_graph pt_graph;
typedef struct { pt_obj o; void *q; pt_graph *capture; /* set between pt_capture_begin and _end */ } pt_queue;
typedef struct { pt_obj o; void *f; } pt_fence;
typedef struct { pt_obj o; void *p; } pt_prog;

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

/* Allocator (under the lock). pt_alloc_get rounds, takes from the cache or the driver. */
int pt_alloc_get(pt_dev *d, size_t bytes, pt_block **out);
void pt_alloc_put(pt_dev *d, pt_block *b);
void pt_alloc_trim(pt_dev *d);
void pt_alloc_stats(const pt_dev *d, double *fields);

/* Live buffer bytes across devices (exact sizes), kept by the buffer code. */
extern double pt_live_buffer_bytes;

int pt_error_prefix(int status, const char *fmt, ...);

#endif
