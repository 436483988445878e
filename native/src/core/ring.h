/* ring.h: launches handed to a thread of their own, issued in the order they were queued.
 *
 * Ownership and ordering. A driver that wants its launch calls off the caller's thread
 * gives each queue a pt_ring. A producer (any thread; producers are serialised) reserves
 * the next record, fills it and publishes it; records are issued, one issue() call each, in
 * publish order, by whichever thread holds the issue lock: the ring's own thread, started
 * and woken once two records wait (or at pt_ring_kick), or a caller of pt_ring_drain, which
 * issues what is left itself instead of waiting for the thread to wake. A lone record (the
 * first in over lone_ns, 10 us, with the thread asleep) is issued by its producer at once.
 * So a lone launch costs what a direct launch costs and its device work overlaps what the
 * caller does next, and a run of launches overlaps the caller's next ones. Everything else
 * the driver does on the queue's stream must drain first, so the stream still sees the
 * queue's work in call order; so must anything that
 * frees what a record names (memory, programs). A record is the driver's to define; it is
 * done with once issue() returns, when its slot may be reused. issue() keeps its own
 * failures (the ring has no error path). The ring's own thread runs enter() once first.
 */
#ifndef PT_RING_H
#define PT_RING_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "sync.h"

typedef struct {
  size_t rec_bytes;
  uint32_t cap;
  char *recs;
  void (*issue)(void *arg, void *rec);
  void (*enter)(void *arg);
  void *arg;
  _Atomic uint64_t head;  /* records published */
  _Atomic uint64_t tail;  /* records issued */
  pt_mutex push_lock;     /* held from reserve to publish */
  pt_mutex issue_lock;    /* held by the thread issuing records */
  pt_mutex sleep_lock;
  pt_cond wake;
  atomic_int sleeping, stop;
  int started;            /* under push_lock: 1 thread running, -1 could not be made (issue inline) */
  uint64_t last_ns;       /* under push_lock: when the last record was published */
  uint64_t lone_ns;       /* a record published this long after the last, to a sleeping thread, is issued at once */
  pt_thread thread;
} pt_ring;

/* 0, or PT_EOOM with the error set. */
int pt_ring_init(pt_ring *r, size_t rec_bytes, uint32_t cap, void (*issue)(void *, void *), void (*enter)(void *), void *arg);
/* The next free record (waiting, and issuing, while the ring is full); the producer lock is
 * held until pt_ring_publish. */
void *pt_ring_reserve(pt_ring *r);
void pt_ring_publish(pt_ring *r);
/* Returns once every record published before the call has been issued. */
void pt_ring_drain(pt_ring *r);
/* Hands waiting records to the ring's thread (the end of a script's task). Never waits. */
void pt_ring_kick(pt_ring *r);
/* Drains, stops the thread and frees the records. */
void pt_ring_fini(pt_ring *r);

#endif
