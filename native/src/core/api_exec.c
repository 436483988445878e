/* api_exec.c: programs, launches, queues and fences.
 *
 * Compiles, launches and waits run outside the core lock with their objects pinned; an
 * object made while its device was being closed is undone at once, since its handle
 * would otherwise outlive the close.
 */
#include <stdlib.h>
#include <string.h>
#include "core.h"

#define PT_MAX_LAUNCH_BUFS 4096
#define PT_MAX_LAUNCH_ARGS (1 << 24)

static int32_t new_handle(pt_dev *d, int kind, pt_obj *o) {
  *o = (pt_obj){kind, 0, 1, d};
  int32_t h = pt_handle_new(kind, o);
  if (h > 0) o->handle = h;
  return h;
}

PT_API int32_t pt_device_sync(int32_t device) {
  pt_lock();
  pt_dev *d;
  int st = pt_obj_use(device, PT_KIND_DEVICE, (void **)&d);
  if (st != PT_OK) { pt_unlock(); return st; }
  /* Pin every queue of the device, then wait on each outside the lock. */
  int n = 0, cap = 0, cursor = 0, kind;
  int32_t h;
  void *obj;
  pt_queue **qs = NULL;
  while (pt_handle_next(&cursor, &h, &kind, &obj)) {
    if (kind != PT_KIND_QUEUE || ((pt_obj *)obj)->dev != d) continue;
    if (n == cap) {
      pt_queue **nq = realloc(qs, (size_t)(cap = cap ? cap * 2 : 8) * sizeof *nq);
      if (!nq) { st = pt_error(PT_EOOM, "pt_device_sync: out of host memory"); break; }
      qs = nq;
    }
    pt_obj_use(h, PT_KIND_QUEUE, (void **)&qs[n++]);
  }
  for (int i = 0; i < n && st == PT_OK; i++) st = pt_capture_forbids(qs[i], d, "pt_device_sync");
  pt_unlock();
  for (int i = 0; i < n && st == PT_OK; i++)
    if ((st = d->drv->sync(d->ctx, qs[i]->q)) != PT_OK) st = pt_error_prefix(st, "pt_device_sync on %s device %d", d->drv->name, d->index);
  pt_lock();
  for (int i = 0; i < n; i++) pt_obj_put(qs[i]);
  pt_obj_put(d);
  pt_unlock();
  free(qs);
  return st;
}

PT_API int32_t pt_program_create(int32_t device, const uint8_t *kind, int32_t kind_len, const uint8_t *source, int32_t source_len) {
  char k[64];
  if (!kind || kind_len <= 0 || kind_len >= (int32_t)sizeof k)
    return pt_error(PT_EINVAL, "pt_program_create: kind of length %d%s", kind_len, kind ? "" : " is NULL");
  if (source_len < 0 || (!source && source_len > 0))
    return pt_error(PT_EINVAL, "pt_program_create: source of length %d%s", source_len, source ? "" : " is NULL");
  memcpy(k, kind, (size_t)kind_len);
  k[kind_len] = 0;
  if (strlen(k) != (size_t)kind_len) return pt_error(PT_EINVAL, "pt_program_create: kind contains a NUL byte");
  pt_prog *p = calloc(1, sizeof *p);
  if (!p) return pt_error(PT_EOOM, "pt_program_create: out of host memory");
  pt_lock();
  pt_dev *d;
  int st = pt_obj_use(device, PT_KIND_DEVICE, (void **)&d);
  if (st != PT_OK) { pt_unlock(); free(p); return st; }
  pt_unlock();
  st = d->drv->program_create(d->ctx, k, source, (size_t)source_len, &p->p);
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
  pt_dev *d = q->o.dev;
  if (q->capture && (st = pt_capture_launch(q, p, bufs, nbuf, args + 1 + nbuf, nargs - 1 - nbuf)) != PT_OK) goto put;
  pt_unlock();
  st = d->drv->launch(d->ctx, q->q, p->p, refs, nbuf, args + 1 + nbuf, nargs - 1 - nbuf);
  if (st != PT_OK) st = pt_error_prefix(st, "pt_launch on %s device %d", d->drv->name, d->index);
  pt_lock();
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
