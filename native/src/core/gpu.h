/* gpu.h: what every GPU driver does the same way: a sticky loss, the kernel error word,
 * a launch's limits, and its grid (a kind's one-dimensional one, or a tiled matmul's).
 *
 * Ownership and ordering. Each driver context embeds one pt_sticky and one pt_word. The
 * sticky loss has its own leaf lock, taken only inside these calls, so a driver may mark a
 * loss while it holds its own locks; its code is read without a lock on every entry, so a
 * healthy call pays one atomic load. A pt_word's fields sit under the driver's lock (the
 * one it passes to pt_word_check): launches mark it before they are queued, and a wait that
 * saw work finish checks it, one reader at a time, so a code is reported once. The limit
 * and grid functions keep no state: a launch checks its limits before pt_block_check's
 * parse and plans its grid from the parse's work count.
 */
#ifndef PT_GPU_H
#define PT_GPU_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "driver.h"
#include "sync.h"
#include "blocks.h" /* pt_matmul_plan, pt_block_check */

/* The first failure that killed a context, kept for every later call's message. */
typedef struct {
  atomic_int code; /* the driver's failure code; 0 while healthy */
  pt_mutex lock;   /* guards msg */
  char msg[480];
} pt_sticky;

void pt_sticky_init(pt_sticky *s);
/* Records code (nonzero) and the formatted cause unless a cause is already kept. */
void pt_sticky_set(pt_sticky *s, int code, const char *fmt, ...);
/* 0 while healthy; else the code, with the kept cause copied into msg (cap bytes). */
int pt_sticky_cause(pt_sticky *s, char *msg, size_t cap);
static inline int pt_sticky_code(pt_sticky *s) { return atomic_load(&s->code); }

/* The error word's bookkeeping (blocks.h's PT_KERR_* codes written by kernels). */
typedef struct {
  int launched;           /* 1 once a kernel that can write the word was queued: before that no read is needed */
  uint32_t kinds_since;   /* bit per kind launched since the word was last read */
  pt_outcome launch_fail; /* a launch refused off the caller's thread (a ring): the next check reports it, once */
} pt_word;

/* Under the driver's lock, before the launch is queued: a wait that sees it finish reads the
 * word, and a report can name the kinds that may have written it. */
void pt_word_mark(pt_word *w, uint32_t kinds, int reports);
/* After a host wait: under lock, reports a kept launch failure, else (once a kernel was
 * launched) calls read(arg, out), which fills out[0..3] with code and details, clears the
 * device's word when out[0] != 0, and returns PT_OK or its own failure (raised). A code
 * becomes pt_kernel_error() text naming where (may be NULL) and the kinds since the last. */
int pt_word_check(pt_word *w, pt_mutex *lock, int (*read)(void *arg, long long out[4]), void *arg, const char *where);

/* Before a launch of kind is queued: PT_EINVAL (messages start with tag, kernels named by api)
 * when it names more buffers or argument slots than the driver's kernels take (its params.h),
 * else pt_block_check()'s answer, with *mm zeroed first. */
int pt_launch_check(const char *tag, const char *api, int max_bufs, int max_args, int kind, const pt_mem_ref *bufs, int nbuf,
                    const double *args, int nargs, int64_t *work, pt_matmul_plan *mm, uint32_t *writes);
/* Thread groups of a one-dimensional launch of kind over work items (pt_block_check's
 * count), `group` threads each: ELEMENT min(ceil(work / group), element_cap), ROW
 * min(work, 65535) (the portable limit of a grid dimension), SERIAL 1 (one group keeps
 * blocks.h's write order); 0 when an ELEMENT or ROW launch has no work. */
unsigned pt_grid_groups(int kind, int64_t work, int64_t group, int64_t element_cap);
/* The groups of a tiled matmul, tile x tile outputs each: g[0] over n columns, g[1] over m
 * rows, g[2] over batches, each within 65535 (the kernel strides over what is left). */
void pt_grid_tiles(int64_t m, int64_t n, int64_t batch, int64_t tile, unsigned g[3]);

#endif
