/* gpu.c: the sticky loss, the error word's check and the grid planning of gpu.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"
#include "blocks.h"

void pt_sticky_init(pt_sticky *s) {
  atomic_init(&s->code, 0);
  s->lock = (pt_mutex)PT_MUTEX_INIT;
  s->msg[0] = 0;
}

void pt_sticky_set(pt_sticky *s, int code, const char *fmt, ...) {
  pt_mutex_lock(&s->lock);
  if (!atomic_load(&s->code)) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    atomic_store(&s->code, code);
  }
  pt_mutex_unlock(&s->lock);
}

int pt_sticky_cause(pt_sticky *s, char *msg, size_t cap) {
  int code = atomic_load(&s->code);
  if (!code || cap == 0) return code;
  pt_mutex_lock(&s->lock);
  snprintf(msg, cap, "%s", s->msg);
  pt_mutex_unlock(&s->lock);
  return code;
}

void pt_word_mark(pt_word *w, uint32_t kinds, int reports) {
  if (reports) w->launched = 1;
  w->kinds_since |= kinds;
}

int pt_word_check(pt_word *w, pt_mutex *lock, int (*read)(void *arg, long long out[4]), void *arg, const char *where) {
  long long out[4] = {0, 0, 0, 0};
  uint32_t kinds = 0;
  pt_mutex_lock(lock);
  if (w->launch_fail.status < 0) {
    int st = pt_outcome_take(&w->launch_fail);
    pt_mutex_unlock(lock);
    return st;
  }
  if (!w->launched) {
    pt_mutex_unlock(lock);
    return PT_OK;
  }
  int st = read(arg, out);
  if (out[0] != 0) {
    kinds = w->kinds_since;
    w->kinds_since = 0;
  }
  pt_mutex_unlock(lock);
  if (st != PT_OK) return st;
  return out[0] ? pt_kernel_error(out[0], out + 1, kinds, where) : PT_OK;
}

int pt_launch_check(const char *tag, const char *api, int max_bufs, int max_args, int kind, const pt_mem_ref *bufs, int nbuf,
                    const double *args, int nargs, int64_t *work, pt_matmul_plan *mm, uint32_t *writes) {
  const char *name = pt_program_kind_name(kind);
  memset(mm, 0, sizeof *mm);
  if (nbuf > max_bufs)
    return pt_error(PT_EINVAL, "%s: a %s launch names %d buffers; %s kernels take at most %d (params.h)", tag, name, nbuf, api,
                    max_bufs);
  if (nargs > max_args)
    return pt_error(PT_EINVAL, "%s: a %s launch has %d argument slots; %s kernels take at most %d (params.h)", tag, name, nargs,
                    api, max_args);
  return pt_block_check(kind, bufs, nbuf, args, nargs, work, mm, writes);
}

static unsigned cap(int64_t x) { return (unsigned)(x < 65535 ? x : 65535); }

void pt_grid_tiles(int64_t m, int64_t n, int64_t batch, int64_t tile, unsigned g[3]) {
  g[0] = cap((n + tile - 1) / tile);
  g[1] = cap((m + tile - 1) / tile);
  g[2] = cap(batch);
}

unsigned pt_grid_groups(int kind, int64_t work, int64_t group, int64_t element_cap) {
  switch (pt_program_kind_shape(kind)) {
  case PT_SHAPE_ELEMENT: {
    int64_t groups = (work + group - 1) / group;
    return (unsigned)(work <= 0 ? 0 : groups < element_cap ? groups : element_cap);
  }
  case PT_SHAPE_ROW:
    return work <= 0 ? 0 : cap(work);
  default:
    return 1;
  }
}
