/* ring.c: the launch ring (core/ring.h) against a fake issue() that checks the order it
 * is called in, under ThreadSanitizer (zig build ring-test). Producers on several threads
 * publish numbered records while drains, kicks and a full ring interleave; every record
 * must be issued exactly once, each producer's in its own order, and a drain must return
 * only after everything published before it was issued. Exits 0 when all checks hold.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "ring.h"

int pt_error(int status, const char *fmt, ...) { /* the core's, as far as ring.c needs it */
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return status;
}

#define PRODUCERS 4
#define PER_PRODUCER 20000
typedef struct { int producer, n; } rec;

static int next_want[PRODUCERS]; /* written only by issuers, which the issue lock serialises */
static atomic_long issued, bad;
static atomic_int entered;

static void enter(void *arg) { (void)arg; atomic_fetch_add(&entered, 1); }

static void issue(void *arg, void *p) {
  (void)arg;
  rec *r = p;
  if (r->n != next_want[r->producer]) atomic_fetch_add(&bad, 1);
  next_want[r->producer] = r->n + 1;
  if (r->n % 97 == 0) { /* a slow launch now and then, so the ring fills */
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
  atomic_fetch_add(&issued, 1);
}

static pt_ring ring;

static void *produce(void *arg) {
  int id = (int)(long)arg;
  for (int i = 0; i < PER_PRODUCER; i++) {
    rec *r = pt_ring_reserve(&ring);
    r->producer = id;
    r->n = i;
    pt_ring_publish(&ring);
    if (i % 1000 == 999) { /* a drain sees every record this producer published */
      pt_ring_drain(&ring);
      if (next_want[id] < i + 1) atomic_fetch_add(&bad, 1);
    }
    if (i % 333 == 0) pt_ring_kick(&ring);
  }
  return NULL;
}

static int check(int ok, const char *what) {
  if (!ok) fprintf(stderr, "ring test: %s\n", what);
  return ok ? 0 : 1;
}

int main(void) {
  int fails = 0;
  if (pt_ring_init(&ring, sizeof(rec), 64, issue, enter, NULL) != 0) return 2;

  /* A lone record: issued by its producer at publish, no thread started. */
  rec *r = pt_ring_reserve(&ring);
  *r = (rec){0, 0};
  pt_ring_publish(&ring);
  fails += check(atomic_load(&issued) == 1 && atomic_load(&entered) == 0, "a lone record is issued at publish, without the thread");
  pt_ring_drain(&ring);
  next_want[0] = 0;
  atomic_store(&issued, 0);

  pthread_t t[PRODUCERS];
  for (long i = 0; i < PRODUCERS; i++) pthread_create(&t[i], NULL, produce, (void *)i);
  for (int i = 0; i < PRODUCERS; i++) pthread_join(t[i], NULL);
  pt_ring_drain(&ring);
  fails += check(atomic_load(&issued) == (long)PRODUCERS * PER_PRODUCER, "every record issued once");
  fails += check(atomic_load(&bad) == 0, "each producer's records issued in order, and drains wait for them");
  fails += check(atomic_load(&entered) == 1, "the ring's thread started once and entered once");

  /* After a pause, a lone record is issued at publish even with the thread started. */
  struct timespec nap = {0, 200000000};
  nanosleep(&nap, NULL); /* past the thread's spin: it sleeps */
  long before = atomic_load(&issued);
  r = pt_ring_reserve(&ring);
  *r = (rec){0, PER_PRODUCER};
  pt_ring_publish(&ring);
  fails += check(atomic_load(&issued) == before + 1, "a lone record after a pause is issued at publish");

  /* A kick hands a record to the sleeping thread: it is issued without a drain. */
  ring.lone_ns = UINT64_MAX; /* no record counts as lone */
  nanosleep(&nap, NULL);
  before = atomic_load(&issued);
  r = pt_ring_reserve(&ring);
  *r = (rec){0, PER_PRODUCER + 1};
  pt_ring_publish(&ring);
  fails += check(atomic_load(&issued) == before, "a record that is not lone waits for the thread");
  pt_ring_kick(&ring);
  for (int i = 0; i < 1000 && atomic_load(&issued) == before; i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
  fails += check(atomic_load(&issued) == before + 1, "a kicked record is issued by the thread");

  pt_ring_fini(&ring);
  if (fails == 0) printf("ring test: %ld records issued in order across %d producers\n", atomic_load(&issued), PRODUCERS);
  return fails ? 1 : 0;
}
