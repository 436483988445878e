/* api_exec.c: programs, launches, queues and fences.
 *
 * Compiles, launches and waits run outside the core lock with their objects pinned; an
 * object made while its device was being closed is undone at once, since its handle
 * would otherwise outlive the close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "program_cache.h"
#include "slots.h"

#define PT_MAX_LAUNCH_BUFS 4096
#define PT_MAX_LAUNCH_ARGS (1 << 24)

static int32_t new_handle(pt_dev *d, int kind, pt_obj *o) {
  *o = (pt_obj){kind, 0, 1, d};
  int32_t h = pt_handle_new(kind, o);
  if (h > 0) o->handle = h;
  return h;
}

/* The error for a block that is not the layout its program was built for. */
/* The slot of a block's view count, for the kinds whose layout declares one; else -1. */
static int view_count_slot(int kind) {
  return kind == PT_K_EW ? PT_EW_NVIEWS : kind == PT_K_EWREDUCE ? PT_EWREDUCE_NVIEWS : -1;
}

static int layout_mismatch(int32_t program, const pt_layout *l, int nbuf, const double *a, int na) {
  char want[160], has[96];
  int at = view_count_slot(l->kind);
  if (at > 0 && na > at) {
    double v = a[at];
    snprintf(has, sizeof has, "%g views (%g inputs + output) and %d buffer%s", v, v - 1, nbuf, nbuf == 1 ? "" : "s");
  } else {
    snprintf(has, sizeof has, "%d buffer%s", nbuf, nbuf == 1 ? "" : "s");
  }
  return pt_error(PT_EINVAL, "pt_launch: program %d was built for the layout %s, but the block has %s; nothing was launched", program,
                  pt_layout_text(l, want, sizeof want), has);
}

PT_API int32_t pt_device_sync(int32_t device) {
  pt_lock();
  pt_dev *d;
  int st = pt_obj_use(device, PT_KIND_DEVICE, (void **)&d);
  if (st != PT_OK) { pt_unlock(); return st; }
  /* Pin every live queue of the device (its list, not a scan of every handle: a sync is a
   * hot call), then wait on each outside the lock. */
  int n = 0;
  pt_queue *few[8], **qs = few;
  for (pt_queue *q = d->queues; q; q = q->next) n++;
  if (n > 8 && !(qs = malloc((size_t)n * sizeof *qs))) {
    pt_obj_put(d);
    pt_unlock();
    return pt_error(PT_EOOM, "pt_device_sync: out of host memory");
  }
  n = 0;
  for (pt_queue *q = d->queues; q; q = q->next)
    if (pt_obj_use(q->o.handle, PT_KIND_QUEUE, (void **)&qs[n]) == PT_OK) n++;
  for (int i = 0; i < n && st == PT_OK; i++) st = pt_capture_forbids(qs[i], d, "pt_device_sync");
  pt_unlock();
  for (int i = 0; i < n && st == PT_OK; i++)
    if ((st = d->drv->sync(d->ctx, qs[i]->q)) != PT_OK) st = pt_error_prefix(st, "pt_device_sync on %s device %d", d->drv->name, d->index);
  pt_lock();
  for (int i = 0; i < n; i++) pt_obj_put(qs[i]);
  pt_obj_put(d);
  pt_unlock();
  if (qs != few) free(qs);
  return st;
}

PT_API int32_t pt_program_create(int32_t device, const uint8_t *kind, int32_t kind_len, const uint8_t *source, int32_t source_len) {
  return pt_program_create_layout(device, kind, kind_len, source, source_len, 0);
}

PT_API int32_t pt_program_create_layout(int32_t device, const uint8_t *kind, int32_t kind_len, const uint8_t *source,
                                        int32_t source_len, int32_t views) {
  char k[64];
  if (!kind || kind_len <= 0 || kind_len >= (int32_t)sizeof k)
    return pt_error(PT_EINVAL, "pt_program_create: kind of length %d%s", kind_len, kind ? "" : " is NULL");
  if (source_len < 0 || (!source && source_len > 0))
    return pt_error(PT_EINVAL, "pt_program_create: source of length %d%s", source_len, source ? "" : " is NULL");
  memcpy(k, kind, (size_t)kind_len);
  k[kind_len] = 0;
  if (strlen(k) != (size_t)kind_len) return pt_error(PT_EINVAL, "pt_program_create: kind contains a NUL byte");
  pt_layout layout;
  if (pt_layout_make(pt_program_kind(k), views, source, (size_t)source_len, &layout) != PT_OK)
    return pt_error_prefix(PT_EINVAL, "pt_program_create(\"%s\")", k);
  pt_prog *p = calloc(1, sizeof *p);
  if (!p) return pt_error(PT_EOOM, "pt_program_create: out of host memory");
  p->layout = layout;
  pt_lock();
  pt_dev *d;
  int st = pt_obj_use(device, PT_KIND_DEVICE, (void **)&d);
  if (st != PT_OK) { pt_unlock(); free(p); return st; }
  pt_unlock();
  pt_cache_set_layout(&layout); /* what the driver's cached images are stored with and checked against */
  st = d->drv->program_create(d->ctx, k, source, (size_t)source_len, &p->p);
  pt_cache_set_layout(NULL);
  if (st != PT_OK) st = pt_error_prefix(st, "pt_program_create(\"%s\") on %s device %d", k, d->drv->name, d->index);
  pt_lock();
  if (st == PT_OK && d->closing) {
    d->drv->program_free(d->ctx, p->p);
    st = pt_error(PT_EHANDLE, "pt_program_create: device %d was closed during the call", device);
  }
  if (st == PT_OK && (st = new_handle(d, PT_KIND_PROGRAM, &p->o)) < 0) d->drv->program_free(d->ctx, p->p);
  if (st < 0) free(p);
  pt_obj_put(d);
  pt_unlock();
  return st;
}

PT_API int32_t pt_program_free(int32_t program) {
  pt_lock();
  pt_prog *p;
  int st = pt_handle_get(program, PT_KIND_PROGRAM, (void **)&p);
  if (st == PT_OK) pt_obj_drop(p, PT_FREED_BY_CALLER);
  pt_unlock();
  return st;
}

PT_API int32_t pt_launch(int32_t queue, int32_t program, const double *args, int32_t nargs) {
  if (!args || nargs < 1 || nargs > PT_MAX_LAUNCH_ARGS)
    return pt_error(PT_EINVAL, "pt_launch: argument block of %d slots%s; it needs at least [nbuf]", nargs, args ? "" : " is NULL");
  double nb = args[0];
  if (!(nb >= 0 && nb <= nargs - 1 && nb <= PT_MAX_LAUNCH_BUFS) || nb != (double)(int)nb)
    return pt_error(PT_EINVAL, "pt_launch: nbuf is %g, expected a whole number in [0, %d]", nb,
                    nargs - 1 < PT_MAX_LAUNCH_BUFS ? nargs - 1 : PT_MAX_LAUNCH_BUFS);
  int nbuf = (int)nb;
  pt_mem_ref local[16], *refs = nbuf <= 16 ? local : malloc((size_t)nbuf * sizeof *refs);
  pt_buf *lb[16], **bufs = nbuf <= 16 ? lb : malloc((size_t)nbuf * sizeof *bufs);
  if (!refs || !bufs) {
    if (refs != local) free(refs);
    if (bufs != lb) free(bufs);
    return pt_error(PT_EOOM, "pt_launch: out of host memory for %d buffers", nbuf);
  }
  pt_queue *q;
  pt_prog *p = NULL;
  int got = 0;
  pt_lock();
  int st = pt_obj_use(queue, PT_KIND_QUEUE, (void **)&q);
  if (st != PT_OK) goto done;
  if ((st = pt_obj_use(program, PT_KIND_PROGRAM, (void **)&p)) != PT_OK) goto put;
  if (p->o.dev != q->o.dev) { st = pt_error(PT_EINVAL, "pt_launch: program %d and queue %d are on different devices", program, queue); goto put; }
  for (; got < nbuf; got++) {
    double v = args[1 + got];
    if (!(v >= 1 && v <= 2147483647.0) || v != (double)(int32_t)v) {
      st = pt_error(PT_EHANDLE, "pt_launch: argument slot %d is %g, not a buffer handle", 1 + got, v);
      goto put;
    }
    if ((st = pt_obj_use((int32_t)v, PT_KIND_BUFFER, (void **)&bufs[got])) != PT_OK) {
      st = pt_error_prefix(st, "pt_launch: argument slot %d", 1 + got);
      goto put;
    }
    pt_buf *b = bufs[got];
    refs[got] = (pt_mem_ref){b->mem, b->host, b->bytes};
    if (b->o.dev != q->o.dev) {
      got++;
      st = pt_error(PT_EINVAL, "pt_launch: buffer %d (slot %d) is not on queue %d's device", (int32_t)v, got, queue);
      goto put;
    }
  }
  /* The block against the program's layout (after the handles, so a stale one is named
   * first): the buffers it may name and an ew block's view count. */
  const double *rest = args + 1 + nbuf;
  int vslot = view_count_slot(p->layout.kind);
  if (nbuf > p->layout.bufs ||
      (vslot > 0 && p->layout.views > 0 && nargs - 1 - nbuf > vslot && rest[vslot] != p->layout.views)) {
    st = layout_mismatch(program, &p->layout, nbuf, rest, nargs - 1 - nbuf);
    goto put;
  }
  pt_dev *d = q->o.dev;
  if (q->capture && (st = pt_capture_launch(q, p, bufs, nbuf, args + 1 + nbuf, nargs - 1 - nbuf)) != PT_OK) goto put;
  /* After the last queue that used each buffer's memory (core.h); a driver that records a
   * capture runs nothing now, so its step is ordered when it runs instead. */
  int runs = !q->capture || !pt_capture_by_driver(q);
  for (int i = 0; runs && i < nbuf; i++)
    if ((st = pt_block_order(q, bufs[i]->block)) != PT_OK) {
      st = pt_error_prefix(st, "pt_launch on %s device %d: ordering it after another queue's use of buffer %d", d->drv->name,
                           d->index, bufs[i]->o.handle);
      goto put;
    }
  pt_unlock();
  st = d->drv->launch(d->ctx, q->q, p->p, refs, nbuf, args + 1 + nbuf, nargs - 1 - nbuf);
  if (st != PT_OK) st = pt_error_prefix(st, "pt_launch on %s device %d", d->drv->name, d->index);
  pt_lock();
  if (runs) {
    q->seq++;
    for (int i = 0; i < nbuf; i++) pt_block_stamp(q, bufs[i]->block);
  }
put:
  for (int i = 0; i < got; i++) pt_obj_put(bufs[i]);
  if (p) pt_obj_put(p);
  pt_obj_put(q);
done:
  pt_unlock();
  if (refs != local) free(refs);
  if (bufs != lb) free(bufs);
  return st;
}

PT_API int32_t pt_queue_create(int32_t device) {
  pt_queue *q = calloc(1, sizeof *q);
  if (!q) return pt_error(PT_EOOM, "pt_queue_create: out of host memory");
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st == PT_OK && (st = d->drv->queue_create(d->ctx, &q->q)) != PT_OK)
    st = pt_error_prefix(st, "pt_queue_create on %s device %d", d->drv->name, d->index);
  else if (st == PT_OK && (st = new_handle(d, PT_KIND_QUEUE, &q->o)) < 0)
    d->drv->queue_free(d->ctx, q->q);
  else if (st > 0)
    pt_queue_link(d, q);
  pt_unlock();
  if (st < 0) free(q);
  return st;
}

PT_API int32_t pt_queue_free(int32_t queue) {
  pt_lock();
  pt_queue *q;
  int st = pt_handle_get(queue, PT_KIND_QUEUE, (void **)&q);
  if (st == PT_OK && q->o.dev->queue0 == queue)
    st = pt_error(PT_EINVAL, "pt_queue_free: queue %d is its device's default queue; pt_device_close frees it", queue);
  else if (st == PT_OK)
    pt_obj_drop(q, PT_FREED_BY_CALLER);
  pt_unlock();
  return st;
}

PT_API int32_t pt_queue_wait_fence(int32_t queue, int32_t fence) {
  pt_lock();
  pt_queue *q;
  pt_fence *f;
  int st = pt_handle_get(queue, PT_KIND_QUEUE, (void **)&q);
  if (st == PT_OK && (st = pt_handle_get(fence, PT_KIND_FENCE, (void **)&f)) == PT_OK) {
    pt_dev *d = q->o.dev;
    if (f->o.dev != d) st = pt_error(PT_EINVAL, "pt_queue_wait_fence: fence %d and queue %d are on different devices", fence, queue);
    else if ((st = d->drv->queue_wait(d->ctx, q->q, f->f)) != PT_OK)
      st = pt_error_prefix(st, "pt_queue_wait_fence on %s device %d", d->drv->name, d->index);
    else if (!q->capture) /* blocks last used before the fence need no other wait on q (core.h) */
      pt_queue_note_wait(q, f->qid, f->qseq);
  }
  pt_unlock();
  return st;
}

PT_API int32_t pt_queue_flush(int32_t queue) {
  pt_lock();
  pt_queue *q;
  int st = pt_handle_get(queue, PT_KIND_QUEUE, (void **)&q);
  if (st == PT_OK && q->o.dev->drv->flush) {
    pt_dev *d = q->o.dev;
    if ((st = d->drv->flush(d->ctx, q->q)) != PT_OK) st = pt_error_prefix(st, "pt_queue_flush on %s device %d", d->drv->name, d->index);
  }
  pt_unlock();
  return st;
}

PT_API int32_t pt_fence_record(int32_t queue) {
  pt_fence *f = calloc(1, sizeof *f);
  if (!f) return pt_error(PT_EOOM, "pt_fence_record: out of host memory");
  pt_lock();
  pt_queue *q;
  int st = pt_handle_get(queue, PT_KIND_QUEUE, (void **)&q);
  pt_dev *d = st == PT_OK ? q->o.dev : NULL;
  if (st == PT_OK) st = pt_capture_forbids(q, d, "pt_fence_record");
  if (st == PT_OK && (st = d->drv->fence_record(d->ctx, q->q, &f->f)) != PT_OK)
    st = pt_error_prefix(st, "pt_fence_record on %s device %d", d->drv->name, d->index);
  else if (st == PT_OK && (st = new_handle(d, PT_KIND_FENCE, &f->o)) < 0)
    d->drv->fence_free(d->ctx, f->f);
  else if (st > 0) {
    f->qid = q->id;
    f->qseq = q->seq;
  }
  pt_unlock();
  if (st < 0) free(f);
  return st;
}

PT_API int32_t pt_fence_query(int32_t fence) {
  pt_lock();
  pt_fence *f;
  int st = pt_handle_get(fence, PT_KIND_FENCE, (void **)&f);
  if (st == PT_OK) st = f->o.dev->drv->fence_query(f->o.dev->ctx, f->f);
  pt_unlock();
  return st;
}

PT_API int32_t pt_fence_wait(int32_t fence) {
  pt_lock();
  pt_fence *f;
  int st = pt_obj_use(fence, PT_KIND_FENCE, (void **)&f);
  if (st != PT_OK) { pt_unlock(); return st; }
  pt_dev *d = f->o.dev;
  pt_unlock();
  st = d->drv->fence_wait(d->ctx, f->f);
  if (st != PT_OK) st = pt_error_prefix(st, "pt_fence_wait on %s device %d", d->drv->name, d->index);
  pt_lock();
  pt_obj_put(f);
  pt_unlock();
  return st;
}

PT_API double pt_fence_elapsed_ms(int32_t start, int32_t end) {
  pt_lock();
  pt_fence *s, *e;
  double r = pt_handle_get(start, PT_KIND_FENCE, (void **)&s);
  if (r == PT_OK && (r = pt_handle_get(end, PT_KIND_FENCE, (void **)&e)) == PT_OK) {
    if (s->o.dev != e->o.dev) r = pt_error(PT_EINVAL, "pt_fence_elapsed_ms: fences %d and %d are on different devices", start, end);
    else r = s->o.dev->drv->fence_elapsed_ms(s->o.dev->ctx, s->f, e->f);
  }
  pt_unlock();
  return r;
}

PT_API int32_t pt_fence_free(int32_t fence) {
  pt_lock();
  pt_fence *f;
  int st = pt_handle_get(fence, PT_KIND_FENCE, (void **)&f);
  if (st == PT_OK) pt_obj_drop(f, PT_FREED_BY_CALLER);
  pt_unlock();
  return st;
}
