/* ring.c: the launch ring of ring.h.
 *
 * The ring's thread spins a little after its last record (a script launching in a loop
 * queues the next one within microseconds) and then sleeps on a condition variable. The
 * sleep flag and the head are both sequentially consistent, so a producer that publishes
 * after the thread last looked either sees it asleep and wakes it, or is seen by its last
 * look: no record waits for a wake that never comes.
 */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sched_yield */
#include <sched.h>
#include <time.h>
#endif
#include <stdlib.h>
#include "core.h"
#include "ring.h"

#define PT_RING_SPIN_NS 50000 /* how long the thread waits for more work before it sleeps */

int pt_ring_init(pt_ring *r, size_t rec_bytes, uint32_t cap, void (*issue)(void *, void *), void (*enter)(void *), void *arg) {
  *r = (pt_ring){.rec_bytes = rec_bytes, .cap = cap, .issue = issue, .enter = enter, .arg = arg, .lone_ns = 10000};
  r->push_lock = r->issue_lock = r->sleep_lock = (pt_mutex)PT_MUTEX_INIT;
  r->wake = (pt_cond)PT_COND_INIT;
  if (!(r->recs = malloc(rec_bytes * cap))) return pt_error(PT_EOOM, "out of host memory for a launch ring of %u records", cap);
  return PT_OK;
}

#ifdef _WIN32
static void pt_yield(void) { SwitchToThread(); }
uint64_t pt_now_ns(void) {
  LARGE_INTEGER f, c;
  QueryPerformanceFrequency(&f);
  QueryPerformanceCounter(&c);
  return (uint64_t)((double)c.QuadPart * 1e9 / (double)f.QuadPart);
}
#else
static void pt_yield(void) { sched_yield(); }
uint64_t pt_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

static void *slot(pt_ring *r, uint64_t n) { return r->recs + (size_t)(n % r->cap) * r->rec_bytes; }

/* Under issue_lock: issues every published record. */
static void issue_all(pt_ring *r) {
  uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
  while (t < atomic_load_explicit(&r->head, memory_order_acquire)) {
    r->issue(r->arg, slot(r, t));
    atomic_store_explicit(&r->tail, ++t, memory_order_release);
  }
}

/* Issues on this thread if no one else is issuing; else lets them get on. */
static void help(pt_ring *r, unsigned *spins) {
  if (pt_mutex_trylock(&r->issue_lock)) {
    issue_all(r);
    pt_mutex_unlock(&r->issue_lock);
  } else if (++*spins % 64 == 0) {
    pt_yield();
  } else {
    pt_cpu_relax();
  }
}

static int empty(pt_ring *r) { return atomic_load(&r->tail) == atomic_load(&r->head); }

static void run(void *arg) {
  pt_ring *r = arg;
  if (r->enter) r->enter(r->arg);
  for (;;) {
    pt_mutex_lock(&r->issue_lock);
    issue_all(r);
    pt_mutex_unlock(&r->issue_lock);
    uint64_t until = pt_now_ns() + PT_RING_SPIN_NS;
    for (unsigned i = 1; empty(r) && !atomic_load(&r->stop); i++) {
      pt_cpu_relax();
      if (i % 32 == 0 && pt_now_ns() > until) break;
    }
    if (!empty(r)) continue;
    pt_mutex_lock(&r->sleep_lock);
    atomic_store(&r->sleeping, 1);
    while (empty(r) && !atomic_load(&r->stop)) pt_cond_wait(&r->wake, &r->sleep_lock);
    atomic_store(&r->sleeping, 0);
    pt_mutex_unlock(&r->sleep_lock);
    if (atomic_load(&r->stop) && empty(r)) return;
  }
}

/* Under push_lock: starts the thread on first need, and wakes it if it sleeps. */
static void wake(pt_ring *r) {
  if (r->started == 0) r->started = pt_thread_start(&r->thread, run, r) ? 1 : -1;
  if (r->started < 0) { /* no thread: the caller issues */
    unsigned spins = 0;
    while (!empty(r)) help(r, &spins);
    return;
  }
  if (atomic_load(&r->sleeping)) {
    pt_mutex_lock(&r->sleep_lock);
    pt_cond_broadcast(&r->wake);
    pt_mutex_unlock(&r->sleep_lock);
  }
}

void *pt_ring_reserve(pt_ring *r) {
  pt_mutex_lock(&r->push_lock);
  uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
  if (h - atomic_load_explicit(&r->tail, memory_order_acquire) >= r->cap) {
    wake(r);
    unsigned spins = 0;
    while (h - atomic_load_explicit(&r->tail, memory_order_acquire) >= r->cap) help(r, &spins);
  }
  return slot(r, h);
}

void pt_ring_publish(pt_ring *r) {
  uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed) + 1, now = pt_now_ns();
  atomic_store(&r->head, h);
  if (h - atomic_load(&r->tail) >= 2) {
    wake(r); /* a run of launches: worth the thread */
  } else if (now - r->last_ns > r->lone_ns && (r->started <= 0 || atomic_load(&r->sleeping)) &&
             pt_mutex_trylock(&r->issue_lock)) {
    issue_all(r); /* a lone launch: the device starts on it while the caller goes on, not at the next drain */
    pt_mutex_unlock(&r->issue_lock);
  }
  r->last_ns = now;
  pt_mutex_unlock(&r->push_lock);
}

void pt_ring_drain(pt_ring *r) {
  uint64_t want = atomic_load(&r->head);
  unsigned spins = 0;
  while (atomic_load_explicit(&r->tail, memory_order_acquire) < want) help(r, &spins);
}

void pt_ring_kick(pt_ring *r) {
  pt_mutex_lock(&r->push_lock);
  if (!empty(r)) wake(r);
  pt_mutex_unlock(&r->push_lock);
}

void pt_ring_fini(pt_ring *r) {
  if (!r->recs) return;
  pt_ring_drain(r);
  pt_mutex_lock(&r->push_lock);
  int started = r->started;
  pt_mutex_unlock(&r->push_lock);
  if (started > 0) {
    pt_mutex_lock(&r->sleep_lock);
    atomic_store(&r->stop, 1);
    pt_cond_broadcast(&r->wake);
    pt_mutex_unlock(&r->sleep_lock);
    pt_thread_join(r->thread);
  }
  free(r->recs);
  r->recs = NULL;
}
