/* capture.c: captured steps. Work queued between pt_capture_begin and pt_capture_end
 * becomes a graph that pt_graph_launch replays without any per-op work in the caller.
 *
 * Ownership and ordering. A graph pins (one reference each, without an owner share) every
 * buffer and program its work touched, so memory the step freed while it was recorded
 * never returns to the allocator's cache: replays find the same buffers, and nothing else
 * is handed their memory, until pt_graph_free. A driver with a capture of its own (a vendor
 * graph API, pre-recorded command buffers) records the work it is given and replays it
 * itself; for the others this file keeps the list of launches and copies, which a replay
 * hands to the driver one by one with the block as recorded. While a queue captures, host
 * reads, writes and waits on its device are errors: they would read values that do not
 * exist yet or bake a host pointer into every replay. Everything here runs under the lock
 * except the driver calls of begin, end and launch, made with the queue pinned.
 *
 * Block reuse across queues (core.h). Work a driver records runs only when the step does,
 * so it is ordered then: every run (the one pt_capture_end makes and each pt_graph_launch)
 * first waits for the last other queue that used any pinned buffer, then stamps them all
 * with its queue. Work this file records runs at once too and is ordered by pt_launch.
 */
#include <stdlib.h>
#include <string.h>
#include "core.h"

typedef struct {
  pt_prog *p; /* NULL: a copy */
  pt_buf **bufs;
  int nbuf, na;
  double *a;
  size_t soff, doff, bytes;
} rec;

struct pt_graph {
  pt_obj o;
  void *g;      /* the driver's graph, or NULL when the list below is replayed */
  int driver;   /* 1: the driver captures (and replays) the work itself */
  int failed;   /* a launch could not be recorded: the graph is unusable */
  pt_obj **pins;
  int npins, pcap;
  rec *recs;
  int nrec, rcap;
};

static int pin(pt_graph *g, pt_obj *o) {
  for (int i = 0; i < g->npins; i++)
    if (g->pins[i] == o) return PT_OK;
  if (g->npins == g->pcap) {
    int cap = g->pcap ? g->pcap * 2 : 16;
    pt_obj **n = realloc(g->pins, (size_t)cap * sizeof *n);
    if (!n) return pt_error(PT_EOOM, "capture: out of host memory");
    g->pins = n;
    g->pcap = cap;
  }
  o->refs++;
  g->pins[g->npins++] = o;
  return PT_OK;
}

static int add_rec(pt_graph *g, rec r) {
  if (g->nrec == g->rcap) {
    int cap = g->rcap ? g->rcap * 2 : 16;
    rec *n = realloc(g->recs, (size_t)cap * sizeof *n);
    if (!n) return pt_error(PT_EOOM, "capture: out of host memory");
    g->recs = n;
    g->rcap = cap;
  }
  g->recs[g->nrec++] = r;
  return PT_OK;
}

static int fail(pt_graph *g, int st) {
  g->failed = 1;
  return st;
}

int pt_capture_launch(pt_queue *q, pt_prog *p, pt_buf *const *bufs, int nbuf, const double *a, int na) {
  pt_graph *g = q->capture;
  int st = pin(g, &p->o);
  for (int i = 0; i < nbuf && st == PT_OK; i++) st = pin(g, &bufs[i]->o);
  if (st != PT_OK || g->driver) return st == PT_OK ? st : fail(g, st);
  rec r = {p, malloc((size_t)(nbuf ? nbuf : 1) * sizeof *bufs), nbuf, na, malloc((size_t)(na ? na : 1) * sizeof *a), 0, 0, 0};
  if (!r.bufs || !r.a) {
    free(r.bufs);
    free(r.a);
    return fail(g, pt_error(PT_EOOM, "capture: out of host memory"));
  }
  memcpy(r.bufs, bufs, (size_t)nbuf * sizeof *bufs);
  memcpy(r.a, a, (size_t)na * sizeof *a);
  if ((st = add_rec(g, r)) != PT_OK) {
    free(r.bufs);
    free(r.a);
    return fail(g, st);
  }
  return PT_OK;
}

int pt_capture_copy(pt_queue *q, pt_buf *src, size_t soff, pt_buf *dst, size_t doff, size_t bytes) {
  pt_graph *g = q->capture;
  int st = pin(g, &src->o);
  if (st == PT_OK) st = pin(g, &dst->o);
  if (st == PT_OK && !g->driver) {
    rec r = {NULL, malloc(2 * sizeof(pt_buf *)), 2, 0, NULL, soff, doff, bytes};
    if (!r.bufs) return fail(g, pt_error(PT_EOOM, "capture: out of host memory"));
    r.bufs[0] = src;
    r.bufs[1] = dst;
    if ((st = add_rec(g, r)) != PT_OK) free(r.bufs);
  }
  return st == PT_OK ? st : fail(g, st);
}

int pt_capture_by_driver(const pt_queue *q) { return q->capture && q->capture->driver; }

/* A step's run is ordered after the last queue that used each buffer it pinned, and then
 * stamps them with q (core.h): replays on another queue, and memory the step's buffers give
 * back once the graph is freed, are ordered like any other work. One compare per buffer
 * per run while they stay on one queue. */
static int order_pins(pt_queue *q, pt_graph *g) {
  for (int i = 0; i < g->npins; i++) {
    if (g->pins[i]->kind != PT_KIND_BUFFER) continue;
    pt_buf *b = (pt_buf *)g->pins[i];
    int st = pt_block_order(q, b->block);
    if (st != PT_OK) return pt_error_prefix(st, "ordering the step after another queue's use of buffer %d", b->o.handle);
  }
  return PT_OK;
}

static void stamp_pins(pt_queue *q, pt_graph *g) {
  q->seq++;
  for (int i = 0; i < g->npins; i++)
    if (g->pins[i]->kind == PT_KIND_BUFFER) pt_block_stamp(q, ((pt_buf *)g->pins[i])->block);
}

int pt_capture_forbids(const pt_queue *q, const pt_dev *d, const char *what) {
  if (q && q->capture)
    return pt_error(PT_EINVAL, "%s: queue %d is capturing a step; host reads, writes and waits are not allowed until "
                    "pt_capture_end", what, q->o.handle);
  (void)d;
  return PT_OK;
}

void pt_graph_destroy(pt_graph *g) {
  pt_dev *d = g->o.dev;
  if (g->g) d->drv->graph_free(d->ctx, g->g);
  for (int i = 0; i < g->nrec; i++) {
    free(g->recs[i].bufs);
    free(g->recs[i].a);
  }
  free(g->recs);
  pt_obj **pins = g->pins;
  int n = g->npins;
  free(g);
  for (int i = 0; i < n; i++) pt_obj_unref(pins[i]);
  free(pins);
}

PT_API int32_t pt_capture_begin(int32_t queue) {
  pt_graph *g = calloc(1, sizeof *g);
  if (!g) return pt_error(PT_EOOM, "pt_capture_begin: out of host memory");
  pt_lock();
  pt_queue *q;
  int st = pt_obj_use(queue, PT_KIND_QUEUE, (void **)&q);
  if (st != PT_OK) goto out;
  pt_dev *d = q->o.dev;
  if (q->capture) st = pt_error(PT_EINVAL, "pt_capture_begin: queue %d is already capturing a step (capture does not nest)", queue);
  else if (d->drv->capture_begin) {
    /* While the driver records, q's stream takes no fence: this one stands for q's earlier
     * work when another queue must wait for it (alloc.c); freed when the capture ends. */
    if (d->drv->fence_record && (st = d->drv->fence_record(d->ctx, q->q, &q->pre)) != PT_OK) q->pre = NULL;
    else if ((st = d->drv->capture_begin(d->ctx, q->q)) != PT_OK && q->pre) {
      d->drv->fence_free(d->ctx, q->pre);
      q->pre = NULL;
    }
    if (st != PT_OK) st = pt_error_prefix(st, "pt_capture_begin on %s device %d", d->drv->name, d->index);
  }
  if (st == PT_OK) {
    g->o = (pt_obj){PT_KIND_GRAPH, 0, 1, d};
    g->driver = d->drv->capture_begin != NULL;
    q->capture = g;
    g = NULL;
  }
  pt_obj_put(q);
out:
  pt_unlock();
  free(g);
  return st;
}

/* Ends the capture and runs the recorded work once, so that the call that recorded a step
 * also has its results, whichever way the device captures. */
PT_API int32_t pt_capture_end(int32_t queue) {
  pt_lock();
  pt_queue *q;
  int st = pt_obj_use(queue, PT_KIND_QUEUE, (void **)&q);
  if (st != PT_OK) { pt_unlock(); return st; }
  pt_graph *g = q->capture;
  pt_dev *d = q->o.dev;
  if (!g) {
    st = pt_error(PT_EINVAL, "pt_capture_end: queue %d is not capturing", queue);
    pt_obj_put(q);
    pt_unlock();
    return st;
  }
  q->capture = NULL;
  int32_t h = 0;
  if (g->driver) {
    pt_unlock();
    st = d->drv->capture_end(d->ctx, q->q, &g->g);
    pt_lock();
    if (q->pre) d->drv->fence_free(d->ctx, q->pre);
    q->pre = NULL;
    if (st == PT_OK && !g->failed && (st = order_pins(q, g)) == PT_OK) {
      pt_unlock();
      st = d->drv->graph_launch(d->ctx, q->q, g->g);
      pt_lock();
      stamp_pins(q, g);
    }
    if (st != PT_OK) st = pt_error_prefix(st, "pt_capture_end on %s device %d", d->drv->name, d->index);
  }
  if (st == PT_OK && g->failed) st = pt_error(PT_EINVAL, "pt_capture_end: a launch inside the step failed, so queue %d recorded no usable step", queue);
  if (st == PT_OK && (h = pt_handle_new(PT_KIND_GRAPH, &g->o)) > 0) g->o.handle = h;
  if (st != PT_OK || h <= 0) {
    if (st == PT_OK) st = h;
    pt_graph_destroy(g);
  }
  pt_obj_put(q);
  pt_unlock();
  return st == PT_OK ? h : st;
}

PT_API int32_t pt_graph_launch(int32_t graph, int32_t queue) {
  pt_lock();
  pt_graph *g;
  pt_queue *q;
  int st = pt_obj_use(graph, PT_KIND_GRAPH, (void **)&g);
  if (st != PT_OK) { pt_unlock(); return st; }
  if ((st = pt_obj_use(queue, PT_KIND_QUEUE, (void **)&q)) != PT_OK) goto out;
  pt_dev *d = q->o.dev;
  if (d != g->o.dev) st = pt_error(PT_EINVAL, "pt_graph_launch: step %d and queue %d are on different devices", graph, queue);
  else if (q->capture) st = pt_error(PT_EINVAL, "pt_graph_launch: queue %d is capturing a step; captured steps do not nest", queue);
  else if ((st = order_pins(q, g)) == PT_OK) {
    pt_unlock();
    if (g->driver) {
      st = d->drv->graph_launch(d->ctx, q->q, g->g);
    } else {
      pt_mem_ref refs[64];
      for (int i = 0; i < g->nrec && st == PT_OK; i++) {
        rec *r = &g->recs[i];
        if (!r->p) {
          st = d->drv->copy(d->ctx, q->q, r->bufs[0]->mem, r->soff, r->bufs[1]->mem, r->doff, r->bytes);
          continue;
        }
        pt_mem_ref *rr = r->nbuf <= 64 ? refs : malloc((size_t)r->nbuf * sizeof *rr);
        if (!rr) { st = pt_error(PT_EOOM, "pt_graph_launch: out of host memory"); break; }
        for (int k = 0; k < r->nbuf; k++) rr[k] = (pt_mem_ref){r->bufs[k]->mem, r->bufs[k]->host, r->bufs[k]->bytes};
        st = d->drv->launch(d->ctx, q->q, r->p->p, rr, r->nbuf, r->a, r->na);
        if (rr != refs) free(rr);
      }
    }
    pt_lock();
    stamp_pins(q, g);
  }
  if (st != PT_OK && st != PT_EINVAL) st = pt_error_prefix(st, "pt_graph_launch of step %d on %s device %d", graph, d->drv->name, d->index);
  pt_obj_put(q);
out:
  pt_obj_put(g);
  pt_unlock();
  return st;
}

PT_API int32_t pt_graph_free(int32_t graph) {
  pt_lock();
  pt_graph *g;
  int st = pt_handle_get(graph, PT_KIND_GRAPH, (void **)&g);
  if (st == PT_OK) pt_obj_drop(g, PT_FREED_BY_CALLER);
  pt_unlock();
  return st;
}
