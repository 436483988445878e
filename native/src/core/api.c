/* api.c: the core lock, object lifetimes, inventory and device open/close.
 *
 * Objects live until their last reference goes (core.h). A device is closed in two
 * steps: all its handles are dropped at once, so new calls on them fail with PT_EHANDLE,
 * then the close waits for calls already inside the driver to finish before it frees the
 * driver objects and shuts the context down.
 */
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "sync.h"

static pt_mutex core_lock = PT_MUTEX_INIT;
static pt_cond core_idle = PT_COND_INIT;
static pt_dev *open_devs;
double pt_live_buffer_bytes;

void pt_lock(void) { pt_mutex_lock(&core_lock); }
void pt_unlock(void) { pt_mutex_unlock(&core_lock); }

static void destroy(pt_obj *o) {
  pt_dev *d = o->dev;
  switch (o->kind) {
  case PT_KIND_BUFFER: {
    pt_buf *b = (pt_buf *)o;
    pt_live_buffer_bytes -= (double)b->bytes;
    if (!b->wrapped) pt_alloc_put(d, b->block);
    else if (d->drv->unwrap) d->drv->unwrap(d->ctx, b->mem);
    break;
  }
  case PT_KIND_QUEUE:
    if (((pt_queue *)o)->capture) pt_graph_destroy(((pt_queue *)o)->capture); /* an unfinished capture */
    pt_queue_unlink((pt_queue *)o); /* the default queue waits for it: blocks it used may go to any queue */
    d->drv->queue_free(d->ctx, ((pt_queue *)o)->q);
    break;
  case PT_KIND_FENCE: d->drv->fence_free(d->ctx, ((pt_fence *)o)->f); break;
  case PT_KIND_PROGRAM: d->drv->program_free(d->ctx, ((pt_prog *)o)->p); break;
  case PT_KIND_GRAPH: pt_graph_destroy((pt_graph *)o); return; /* frees itself */
  default: return; /* devices are freed by close */
  }
  free(o);
}

int pt_obj_use(int32_t h, int kind, void **out) {
  void *p;
  int st = pt_handle_get(h, kind, &p);
  if (st != PT_OK) return st;
  pt_obj *o = p;
  if (kind != PT_KIND_DEVICE) o->refs++;
  o->dev->busy++;
  *out = p;
  return PT_OK;
}

void pt_obj_put(void *p) {
  pt_obj *o = p;
  pt_dev *d = o->dev;
  if (o->kind != PT_KIND_DEVICE && --o->refs == 0) destroy(o);
  if (--d->busy == 0 && d->closing) pt_cond_broadcast(&core_idle);
}

void pt_obj_unref(void *p) {
  pt_obj *o = p;
  if (--o->refs == 0) destroy(o);
}

void pt_obj_drop(void *p, int reason) {
  pt_obj *o = p;
  pt_handle_free(o->handle, reason);
  if (o->kind == PT_KIND_BUFFER) {
    pt_buf *b = p;
    o->refs -= b->owners;
    b->owners = 0;
  } else {
    o->refs--;
  }
  if (o->refs == 0) destroy(o);
}

/* ---- inventory ---------------------------------------------------------------------- */

static int copy_out(const char *s, uint8_t *buf, int32_t cap) {
  if (cap < 0 || (cap > 0 && !buf)) return pt_error(PT_EINVAL, "string buffer: capacity %d with %s buffer", cap, buf ? "a" : "a NULL");
  size_t n = strlen(s);
  if (n > 0x7fffffff) n = 0x7fffffff;
  if (cap > 0) memcpy(buf, s, n < (size_t)cap ? n : (size_t)cap);
  return (int32_t)n;
}

static const pt_driver *row(int32_t backend) {
  if (backend < 0 || backend >= pt_driver_count) {
    pt_error(PT_EINVAL, "backend %d is outside [0, %d)", backend, pt_driver_count);
    return NULL;
  }
  return pt_drivers[backend];
}

/* PT_OK if index names a device of the row; count() sets the reason when there is none. */
static int check_index(const pt_driver *drv, int32_t index) {
  int n = drv->count();
  if (n < 0) return n;
  if (n == 0) return PT_EUNAVAILABLE;
  if (index < 0 || index >= n) return pt_error(PT_EINVAL, "%s: device index %d is outside [0, %d)", drv->name, index, n);
  return PT_OK;
}

PT_API int32_t pt_abi_version(void) { return PT_ABI_VERSION; }
PT_API int32_t pt_backend_count(void) { return pt_driver_count; }

PT_API int32_t pt_backend_name(int32_t backend, uint8_t *buf, int32_t cap) {
  const pt_driver *drv = row(backend);
  return drv ? copy_out(drv->name, buf, cap) : PT_EINVAL;
}

PT_API int32_t pt_device_count(int32_t backend) {
  const pt_driver *drv = row(backend);
  return drv ? drv->count() : PT_EINVAL;
}

PT_API int32_t pt_device_name(int32_t backend, int32_t index, uint8_t *buf, int32_t cap) {
  const pt_driver *drv = row(backend);
  if (!drv) return PT_EINVAL;
  int st = check_index(drv, index);
  if (st != PT_OK) return st;
  char name[256] = {0};
  st = drv->device_name(index, name, sizeof name);
  if (st < 0) return st;
  name[sizeof name - 1] = 0;
  return copy_out(name, buf, cap);
}

PT_API int32_t pt_device_info(int32_t backend, int32_t index, double *fields) {
  const pt_driver *drv = row(backend);
  if (!drv) return PT_EINVAL;
  if (!fields) return pt_error(PT_EINVAL, "pt_device_info: fields is NULL");
  int st = check_index(drv, index);
  if (st != PT_OK) return st;
  for (int i = 0; i < PT_INFO_COUNT; i++) fields[i] = 0;
  st = drv->device_info(index, fields);
  if (st < 0) return st;
  /* A driver that can ask its system (e.g. about a primary context) fills PT_INFO_CONTEXT
   * itself; an open device of ours always has one. */
  pt_lock();
  for (pt_dev *d = open_devs; d; d = d->next)
    if (d->backend == backend && d->index == index) fields[PT_INFO_CONTEXT] = 1;
  pt_unlock();
  return PT_OK;
}

PT_API int32_t pt_device_language(int32_t backend, int32_t index, uint8_t *buf, int32_t cap) {
  const pt_driver *drv = row(backend);
  if (!drv) return PT_EINVAL;
  int st = check_index(drv, index);
  return st != PT_OK ? st : copy_out(drv->language, buf, cap);
}

/* ---- devices ------------------------------------------------------------------------ */

static int32_t open_locked(int32_t backend, int32_t index) {
  const pt_driver *drv = row(backend);
  if (!drv) return PT_EINVAL;
  for (pt_dev *d = open_devs; d; d = d->next)
    if (d->backend == backend && d->index == index) return d->o.handle;
  int st = check_index(drv, index);
  if (st != PT_OK) return st;
  pt_dev *d = calloc(1, sizeof *d);
  pt_queue *q = calloc(1, sizeof *q);
  if (!d || !q) { free(d); free(q); return pt_error(PT_EOOM, "pt_device_open: out of host memory"); }
  *d = (pt_dev){.o = {PT_KIND_DEVICE, 0, 1, d}, .drv = drv, .backend = backend, .index = index};
  if ((st = drv->activate(index, &d->ctx)) != PT_OK) {
    free(d); free(q);
    return pt_error_prefix(st, "opening %s device %d", drv->name, index);
  }
  if ((st = drv->queue_create(d->ctx, &q->q)) != PT_OK) {
    drv->shutdown(d->ctx);
    free(d); free(q);
    return pt_error_prefix(st, "opening %s device %d: default queue", drv->name, index);
  }
  size_t fr = 0, total = 0;
  d->alloc.cache_limit = drv->mem_info && drv->mem_info(d->ctx, &fr, &total) == PT_OK && total ? total / 4 : (size_t)1 << 30;
  q->o = (pt_obj){PT_KIND_QUEUE, 0, 1, d};
  int32_t hd = pt_handle_new(PT_KIND_DEVICE, d), hq = hd > 0 ? pt_handle_new(PT_KIND_QUEUE, q) : hd;
  if (hq < 0) {
    if (hd > 0) pt_handle_free(hd, PT_FREED_BY_CALLER);
    drv->queue_free(d->ctx, q->q);
    drv->shutdown(d->ctx);
    free(d); free(q);
    return hq;
  }
  d->o.handle = hd;
  q->o.handle = d->queue0 = hq;
  d->q0 = q;
  pt_queue_link(d, q);
  d->next = open_devs;
  open_devs = d;
  return hd;
}

PT_API int32_t pt_device_open(int32_t backend, int32_t index) {
  pt_lock();
  int32_t r = open_locked(backend, index);
  pt_unlock();
  return r;
}

PT_API int32_t pt_device_close(int32_t device) {
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st != PT_OK) { pt_unlock(); return st; }
  for (pt_dev **p = &open_devs; *p; p = &(*p)->next)
    if (*p == d) { *p = d->next; break; }
  d->closing = 1;
  pt_handle_free(device, PT_FREED_BY_CALLER);
  /* Graphs, fences and programs before buffers before queues: the reverse of dependence. */
  static const int order[] = {PT_KIND_GRAPH, PT_KIND_FENCE, PT_KIND_PROGRAM, PT_KIND_BUFFER, PT_KIND_QUEUE};
  for (int k = 0; k < 5; k++) {
    int cursor = 0, kind;
    int32_t h;
    void *obj;
    while (pt_handle_next(&cursor, &h, &kind, &obj))
      if (kind == order[k] && ((pt_obj *)obj)->dev == d) pt_obj_drop(obj, PT_FREED_BY_CLOSE);
  }
  while (d->busy > 0) pt_cond_wait(&core_idle, &core_lock);
  pt_alloc_trim(d);
  d->drv->shutdown(d->ctx);
  free(d);
  pt_unlock();
  return PT_OK;
}

PT_API int32_t pt_device_queue(int32_t device) {
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st == PT_OK) st = d->queue0;
  pt_unlock();
  return st;
}

PT_API int32_t pt_live_handles(void) {
  pt_lock();
  int n = pt_handle_live();
  pt_unlock();
  return n;
}

PT_API int32_t pt_device_lost(int32_t device) {
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st == PT_OK) st = d->drv->lost ? (d->drv->lost(d->ctx) > 0) : 0;
  pt_unlock();
  return st;
}

PT_API int32_t pt_device_has(int32_t device, const uint8_t *name, int32_t name_len) {
  char cap[64];
  if (!name || name_len <= 0 || name_len >= (int32_t)sizeof cap)
    return pt_error(PT_EINVAL, "pt_device_has: capability name of length %d%s", name_len, name ? "" : " is NULL");
  memcpy(cap, name, (size_t)name_len);
  cap[name_len] = 0;
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st == PT_OK) st = d->drv->has ? (d->drv->has(d->index, cap) > 0) : 0;
  pt_unlock();
  return st;
}
