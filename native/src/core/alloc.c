/* alloc.c: the caching allocator above each driver's exact raw allocation.
 *
 * Sizes round up (512 B steps to 1 MiB, 2 MiB steps above) so that freed blocks match
 * later requests of similar size; a freed block waits in its device's cache for a request
 * of the same rounded size. On out-of-memory the cache is returned to the driver and the
 * allocation retried once, because cached blocks are the likeliest cause of a false OOM.
 * Called with the core lock held.
 */
#include <stdint.h>
#include <stdlib.h>
#include "core.h"

static size_t round_size(size_t n) {
  if (n <= PT_SMALL_LIMIT) return n == 0 ? PT_SMALL_ROUND : (n + PT_SMALL_ROUND - 1) / PT_SMALL_ROUND * PT_SMALL_ROUND;
  return (n + PT_LARGE_ROUND - 1) / PT_LARGE_ROUND * PT_LARGE_ROUND;
}

static pt_block *cache_take(pt_alloc *a, size_t size) {
  pt_block **p = size <= PT_SMALL_LIMIT ? &a->small[size / PT_SMALL_ROUND] : &a->large;
  for (; *p; p = &(*p)->next) {
    if ((*p)->size != size) continue;
    pt_block *b = *p;
    *p = b->next;
    a->cached -= b->size;
    return b;
  }
  return NULL;
}

static void release_list(pt_dev *d, pt_block **list) {
  while (*list) {
    pt_block *b = *list;
    *list = b->next;
    d->alloc.cached -= b->size;
    d->drv->free(d->ctx, b->mem);
    free(b);
  }
}

void pt_alloc_trim(pt_dev *d) {
  for (size_t i = 0; i < PT_SMALL_BUCKETS; i++) release_list(d, &d->alloc.small[i]);
  release_list(d, &d->alloc.large);
}

static void note_use(pt_alloc *a, size_t size) {
  a->in_use += size;
  if (a->in_use > a->peak) a->peak = a->in_use;
  a->allocs++;
}

int pt_alloc_get(pt_dev *d, size_t bytes, pt_block **out) {
  pt_alloc *a = &d->alloc;
  if (bytes > SIZE_MAX - PT_LARGE_ROUND)
    return pt_error(PT_EOOM, "out of memory on %s device %d: %zu bytes asked", d->drv->name, d->index, bytes);
  size_t size = round_size(bytes);
  pt_block *b = cache_take(a, size);
  if (b) {
    a->hits++;
    note_use(a, size);
    *out = b;
    return PT_OK;
  }
  b = malloc(sizeof *b);
  if (!b) return pt_error(PT_EOOM, "out of host memory for a block record");
  *b = (pt_block){.size = size};
  size_t held = a->cached;
  int st = d->drv->alloc(d->ctx, size, &b->mem, &b->host);
  if (st == PT_EOOM && held > 0) {
    pt_alloc_trim(d);
    st = d->drv->alloc(d->ctx, size, &b->mem, &b->host);
  }
  if (st != PT_OK) {
    free(b);
    if (st != PT_EOOM) return pt_error_prefix(st, "allocating %zu bytes on %s device %d", bytes, d->drv->name, d->index);
    size_t fr = 0, total = 0;
    int known = d->drv->mem_info && d->drv->mem_info(d->ctx, &fr, &total) == PT_OK;
    if (!known)
      return pt_error(PT_EOOM, "out of memory on %s device %d: %zu bytes asked (%zu rounded), free/total unknown, "
                      "the cache held %zu bytes (trimmed and retried)", d->drv->name, d->index, bytes, size, held);
    return pt_error(PT_EOOM, "out of memory on %s device %d: %zu bytes asked (%zu rounded), %zu bytes free of %zu total, "
                    "the cache held %zu bytes (trimmed and retried)", d->drv->name, d->index, bytes, size, fr, total, held);
  }
  a->driver_allocs++;
  note_use(a, size);
  *out = b;
  return PT_OK;
}

void pt_alloc_put(pt_dev *d, pt_block *b) {
  pt_alloc *a = &d->alloc;
  a->in_use -= b->size;
  a->frees++;
  /* Host memory rarely reports OOM (overcommit), so the trim-on-OOM path alone would let
   * a cache of many distinct sizes grow without bound: past the limit, give blocks back. */
  if (a->cached + b->size > a->cache_limit) {
    d->drv->free(d->ctx, b->mem);
    free(b);
    return;
  }
  pt_block **list = b->size <= PT_SMALL_LIMIT ? &a->small[b->size / PT_SMALL_ROUND] : &a->large;
  b->next = *list;
  *list = b;
  a->cached += b->size;
}

void pt_alloc_stats(const pt_dev *d, double *f) {
  const pt_alloc *a = &d->alloc;
  f[PT_MEM_IN_USE] = (double)a->in_use;
  f[PT_MEM_CACHED] = (double)a->cached;
  f[PT_MEM_PEAK] = (double)a->peak;
  f[PT_MEM_ALLOCS] = a->allocs;
  f[PT_MEM_FREES] = a->frees;
  f[PT_MEM_CACHE_HITS] = a->hits;
  f[PT_MEM_DRIVER_ALLOCS] = a->driver_allocs;
}
