/* api_mem.c: buffers: allocation, wrapping, ownership, copies, memory statistics.
 *
 * Sizes and offsets arrive as doubles and are checked to be whole numbers in [0, 2^53]
 * before any arithmetic. Copies pin their queue and buffers under the lock and run the
 * driver outside it, so a long copy never stalls other threads' calls.
 */
#include <stdint.h>
#include <stdlib.h>
#include "core.h"

#define PT_EXACT_MAX 9007199254740992.0 /* 2^53 */

static int size_arg(double v, const char *fn, const char *what, size_t *out) {
  if (!(v >= 0 && v <= PT_EXACT_MAX) || (double)(uint64_t)v != v || (uint64_t)v > SIZE_MAX)
    return pt_error(PT_EINVAL, "%s: %s is %g, expected a whole number of bytes in [0, 2^53]", fn, what, v);
  *out = (size_t)v;
  return PT_OK;
}

static int range_check(const pt_buf *b, size_t off, size_t n, const char *fn, const char *what) {
  if (off > b->bytes || n > b->bytes - off)
    return pt_error(PT_EINVAL, "%s: %s range [%zu, %zu + %zu) is outside buffer %d of %zu bytes", fn, what, off, off, n,
                    b->o.handle, b->bytes);
  return PT_OK;
}

static int32_t new_buffer(pt_dev *d, pt_block *blk, void *mem, void *host, size_t bytes, int wrapped) {
  pt_buf *b = calloc(1, sizeof *b);
  if (!b) {
    if (blk) pt_alloc_put(d, blk);
    return pt_error(PT_EOOM, "out of host memory for a buffer record");
  }
  *b = (pt_buf){.o = {PT_KIND_BUFFER, 0, 1, d}, .block = blk, .mem = mem, .host = host, .bytes = bytes, .owners = 1, .wrapped = wrapped};
  if (wrapped) b->block = &b->stamp;
  int32_t h = pt_handle_new(PT_KIND_BUFFER, b);
  if (h < 0) {
    if (blk) pt_alloc_put(d, blk);
    free(b);
    return h;
  }
  b->o.handle = h;
  pt_live_buffer_bytes += (double)bytes;
  return h;
}

PT_API int32_t pt_buffer_alloc(int32_t device, double bytes) {
  size_t n;
  int st = size_arg(bytes, "pt_buffer_alloc", "bytes", &n);
  if (st != PT_OK) return st;
  pt_lock();
  pt_dev *d;
  pt_block *blk;
  if ((st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d)) == PT_OK && (st = pt_alloc_get(d, n, &blk)) == PT_OK)
    st = new_buffer(d, blk, blk->mem, blk->host, n, 0);
  pt_unlock();
  return st;
}

PT_API int32_t pt_buffer_wrap(int32_t device, void *host, double bytes) {
  size_t n;
  int st = size_arg(bytes, "pt_buffer_wrap", "bytes", &n);
  if (st != PT_OK) return st;
  if (!host) return pt_error(PT_EINVAL, "pt_buffer_wrap: host pointer is NULL");
  pt_lock();
  pt_dev *d;
  void *mem = NULL;
  if ((st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d)) != PT_OK) goto out;
  if (!d->drv->wrap || !d->drv->has || d->drv->has(d->index, "host_wrap") <= 0) {
    st = pt_error(PT_EUNSUPPORTED, "pt_buffer_wrap: %s device %d cannot wrap host memory (no host_wrap)", d->drv->name, d->index);
    goto out;
  }
  if ((st = d->drv->wrap(d->ctx, host, n, &mem)) != PT_OK) {
    st = pt_error_prefix(st, "pt_buffer_wrap on %s device %d", d->drv->name, d->index);
    goto out;
  }
  if ((st = new_buffer(d, NULL, mem, host, n, 1)) < 0 && d->drv->unwrap) d->drv->unwrap(d->ctx, mem);
out:
  pt_unlock();
  return st;
}

PT_API int32_t pt_buffer_retain(int32_t buffer) {
  pt_lock();
  pt_buf *b;
  int st = pt_handle_get(buffer, PT_KIND_BUFFER, (void **)&b);
  if (st == PT_OK) {
    if (b->owners >= INT32_MAX / 2) st = pt_error(PT_EINVAL, "pt_buffer_retain: buffer %d has too many owners", buffer);
    else { b->owners++; b->o.refs++; }
  }
  pt_unlock();
  return st;
}

PT_API int32_t pt_buffer_release(int32_t buffer) {
  pt_lock();
  pt_buf *b;
  int st = pt_handle_get(buffer, PT_KIND_BUFFER, (void **)&b);
  if (st == PT_OK) {
    if (b->owners == 1) pt_obj_drop(b, PT_FREED_BY_CALLER);
    else { b->owners--; b->o.refs--; }
  }
  pt_unlock();
  return st;
}

PT_API double pt_buffer_size(int32_t buffer) {
  pt_lock();
  pt_buf *b;
  int st = pt_handle_get(buffer, PT_KIND_BUFFER, (void **)&b);
  double r = st == PT_OK ? (double)b->bytes : st;
  pt_unlock();
  return r;
}

PT_API void *pt_buffer_host(int32_t buffer) {
  pt_lock();
  pt_buf *b;
  void *r = NULL;
  if (pt_handle_get(buffer, PT_KIND_BUFFER, (void **)&b) == PT_OK && !(r = b->host))
    pt_error(PT_EUNSUPPORTED, "pt_buffer_host: buffer %d on %s device %d is not host-addressable", buffer,
             b->o.dev->drv->name, b->o.dev->index);
  pt_unlock();
  return r;
}

/* Pins a queue and a buffer of the same device. */
static int pin2(int32_t queue, int32_t buffer, pt_queue **q, pt_buf **b, const char *fn) {
  int st = pt_obj_use(queue, PT_KIND_QUEUE, (void **)q);
  if (st != PT_OK) return st;
  if ((st = pt_obj_use(buffer, PT_KIND_BUFFER, (void **)b)) != PT_OK) { pt_obj_put(*q); return st; }
  if ((*b)->o.dev != (*q)->o.dev) {
    pt_obj_put(*b);
    pt_obj_put(*q);
    return pt_error(PT_EINVAL, "%s: buffer %d and queue %d are on different devices", fn, buffer, queue);
  }
  return PT_OK;
}

static int32_t transfer(int32_t queue, int32_t buffer, double offset, void *host, double bytes, int write) {
  const char *fn = write ? "pt_buffer_write" : "pt_buffer_read";
  size_t off, n;
  int st;
  if ((st = size_arg(offset, fn, "offset", &off)) != PT_OK || (st = size_arg(bytes, fn, "bytes", &n)) != PT_OK) return st;
  if (!host && n > 0) return pt_error(PT_EINVAL, "%s: host pointer is NULL for %zu bytes", fn, n);
  pt_queue *q;
  pt_buf *b;
  pt_lock();
  if ((st = pin2(queue, buffer, &q, &b, fn)) != PT_OK) { pt_unlock(); return st; }
  if ((st = pt_capture_forbids(q, NULL, fn)) == PT_OK && (st = range_check(b, off, n, fn, "byte")) == PT_OK && (n > 0 || !write)) {
    pt_dev *d = b->o.dev;
    /* After the last queue that used the buffer's memory (core.h). A read has finished when
     * it returns, so only a write, which may still be queued, stamps the block. */
    if ((st = pt_block_order(q, b->block)) != PT_OK) {
      st = pt_error_prefix(st, "%s on %s device %d: ordering it after another queue's use of buffer %d", fn, d->drv->name, d->index,
                           buffer);
      goto out;
    }
    pt_unlock();
    /* A zero-byte read still waits for the queue (polytensor.h), so it reports a failure queued before it. */
    st = write ? d->drv->write(d->ctx, q->q, b->mem, off, host, n)
         : n > 0 ? d->drv->read(d->ctx, q->q, b->mem, off, host, n) : d->drv->sync(d->ctx, q->q);
    if (st != PT_OK) st = pt_error_prefix(st, "%s on %s device %d", fn, d->drv->name, d->index);
    pt_lock();
    if (write) {
      q->seq++;
      pt_block_stamp(q, b->block);
    }
  }
out:
  pt_obj_put(b);
  pt_obj_put(q);
  pt_unlock();
  return st;
}

PT_API int32_t pt_queue_wait_buffer(int32_t queue, int32_t buffer) {
  pt_queue *q;
  pt_buf *b;
  pt_lock();
  int st = pin2(queue, buffer, &q, &b, "pt_queue_wait_buffer");
  if (st != PT_OK) { pt_unlock(); return st; }
  pt_dev *d = q->o.dev;
  if ((st = pt_block_order(q, b->block)) != PT_OK)
    st = pt_error_prefix(st, "pt_queue_wait_buffer on %s device %d: ordering queue %d after another queue's use of buffer %d",
                         d->drv->name, d->index, queue, buffer);
  pt_obj_put(b);
  pt_obj_put(q);
  pt_unlock();
  return st;
}

PT_API int32_t pt_buffer_write(int32_t queue, int32_t buffer, double offset, const void *src, double bytes) {
  return transfer(queue, buffer, offset, (void *)src, bytes, 1);
}

PT_API int32_t pt_buffer_read(int32_t queue, int32_t buffer, double offset, void *dst, double bytes) {
  return transfer(queue, buffer, offset, dst, bytes, 0);
}

PT_API int32_t pt_buffer_copy(int32_t queue, int32_t src, double src_offset, int32_t dst, double dst_offset, double bytes) {
  const char *fn = "pt_buffer_copy";
  size_t so, dof, n;
  int st;
  if ((st = size_arg(src_offset, fn, "src_offset", &so)) != PT_OK || (st = size_arg(dst_offset, fn, "dst_offset", &dof)) != PT_OK ||
      (st = size_arg(bytes, fn, "bytes", &n)) != PT_OK)
    return st;
  pt_queue *q;
  pt_buf *s, *d2;
  pt_lock();
  if ((st = pin2(queue, src, &q, &s, fn)) != PT_OK) { pt_unlock(); return st; }
  if ((st = pt_obj_use(dst, PT_KIND_BUFFER, (void **)&d2)) != PT_OK) goto out2;
  if (d2->o.dev != q->o.dev) st = pt_error(PT_EINVAL, "%s: buffer %d and queue %d are on different devices", fn, dst, queue);
  else if ((st = range_check(s, so, n, fn, "source")) == PT_OK && (st = range_check(d2, dof, n, fn, "destination")) == PT_OK && n > 0 &&
           (!q->capture || (st = pt_capture_copy(q, s, so, d2, dof, n)) == PT_OK)) {
    pt_dev *d = q->o.dev;
    /* As pt_launch: after the last queue that used either buffer's memory, unless the driver records it for a step. */
    int runs = !q->capture || !pt_capture_by_driver(q);
    pt_buf *ob = NULL;
    if (runs && (st = pt_block_order(q, (ob = s)->block)) == PT_OK) st = pt_block_order(q, (ob = d2)->block);
    if (st != PT_OK) {
      st = pt_error_prefix(st, "%s on %s device %d: ordering it after another queue's use of buffer %d", fn, d->drv->name, d->index,
                           ob->o.handle);
      goto out1;
    }
    pt_unlock();
    st = d->drv->copy(d->ctx, q->q, s->mem, so, d2->mem, dof, n);
    if (st != PT_OK) st = pt_error_prefix(st, "%s on %s device %d", fn, d->drv->name, d->index);
    pt_lock();
    if (runs) {
      q->seq++;
      pt_block_stamp(q, s->block);
      pt_block_stamp(q, d2->block);
    }
  }
out1:
  pt_obj_put(d2);
out2:
  pt_obj_put(s);
  pt_obj_put(q);
  pt_unlock();
  return st;
}

PT_API int32_t pt_memory_stats(int32_t device, double *fields) {
  if (!fields) return pt_error(PT_EINVAL, "pt_memory_stats: fields is NULL");
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st == PT_OK) pt_alloc_stats(d, fields);
  pt_unlock();
  return st;
}

PT_API int32_t pt_memory_trim(int32_t device) {
  pt_lock();
  pt_dev *d;
  int st = pt_handle_get(device, PT_KIND_DEVICE, (void **)&d);
  if (st == PT_OK) pt_alloc_trim(d);
  pt_unlock();
  return st;
}

PT_API double pt_live_bytes(void) {
  pt_lock();
  double r = pt_live_buffer_bytes;
  pt_unlock();
  return r;
}
