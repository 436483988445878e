/* launch.c: one pt_launch on a Metal queue: check, convert the block, encode a dispatch.
 *
 * Ownership and ordering. The core has resolved the block's buffer handles to MTLBuffers
 * and keeps them and the program alive for the call; the command buffer retains what the
 * dispatch binds, so nothing here must outlive the call (params go by setBytes, which
 * copies). The block is checked on the host first (pt_block_check), so a malformed block,
 * a view leaving its buffer or a float64 view fails before anything is recorded. Within
 * the queue's concurrent compute encoder a dispatch is ordered after earlier ones only
 * where it depends on them: it reads or writes a buffer written since the last barrier,
 * or writes one touched since then (the kind's written-buffer mask from blocks.h), and
 * memoryBarrierWithScope then orders everything before it. A kernel's failure is reported
 * later, at the next wait (fence.c), through the error block.
 */
#include <string.h>
#include "metal.h"
#include "slots.h"

/* The dtype of the VIEW at slot `view`. */
static int dt_at(const double *a, int view) { return (int)a[view + PT_VIEW_DTYPE]; }

/* Whether any view of the (already checked) block is float64, by each kind's layout. */
static int uses_f64(int kind, const double *a, const pt_matmul_plan *mm) {
  int s[4] = {-1, -1, -1, -1};
  switch (kind) {
  case PT_K_EW: case PT_K_EWREDUCE: { /* a run of views, OUT first */
    const int ew = kind == PT_K_EW, nv = (int)a[ew ? PT_EW_NVIEWS : PT_EWREDUCE_NVIEWS];
    for (int i = 0; i < nv; i++)
      if (dt_at(a, (ew ? PT_EW_VIEWS : PT_EWREDUCE_VIEWS) + i * PT_VIEW_SLOTS) == PT_F64) return 1;
    return 0;
  }
  case PT_K_MATMUL: return mm->dtype == PT_F64;
  case PT_K_REDUCE: s[0] = PT_REDUCE_IN; s[1] = PT_REDUCE_OUT; break;
  case PT_K_SCAN: s[0] = PT_SCAN_IN; s[1] = PT_SCAN_OUT; break;
  case PT_K_SORT: s[0] = PT_SORT_IN; s[1] = PT_SORT_VALS; break;
  case PT_K_GATHER: s[0] = PT_GATHER_IN; s[1] = PT_GATHER_OUT; break;
  case PT_K_SCATTER: s[0] = PT_SCATTER_OUT; s[1] = PT_SCATTER_SRC; break;
  case PT_K_INDEX_PUT: case PT_K_INDEX_GET: s[0] = PT_INDEX_OUT; s[1] = PT_INDEX_VALS((int)a[PT_INDEX_K]); break;
  case PT_K_NONZERO: s[0] = PT_NONZERO_IN; break;
  case PT_K_MASKED_SELECT: s[0] = PT_MASKED_SELECT_IN; s[1] = PT_MASKED_SELECT_MASK; s[2] = PT_MASKED_SELECT_OUT; break;
  case PT_K_PHILOX: s[0] = PT_PHILOX_OUT; break;
  default: return 0;
  }
  for (int i = 0; i < 4 && s[i] >= 0; i++)
    if (dt_at(a, s[i]) == PT_F64) return 1;
  return 0;
}

/* params.h: ai[k] = slot k as an exact integer (0 if it is none), af[k] = slot k as float. */
static void convert(pt_mtl_params *p, int nbuf, const double *a, int n) {
  memset(p, 0, sizeof *p);
  p->nbuf = nbuf;
  p->nargs = n;
  for (int k = 0; k < n; k++) {
    double d = a[k];
    int exact = d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(long long)d;
    p->ai[k] = exact ? (long long)d : 0;
    p->af[k] = (float)d;
  }
}

static int in_set(void *const *set, int n, void *x) {
  for (int i = 0; i < n; i++)
    if (set[i] == x) return 1;
  return 0;
}

int mtl_dispatch_locked(mtl_queue *q, id pso, id *bufs, int n, uint32_t writes, const void *bytes, size_t nbytes, id extra,
                        MTLSize groups) {
  int st = mtl_ensure_compute(q);
  if (st != PT_OK) return st;
  int barrier = q->nrd + n > 64 || q->nwr + n > 64; /* the sets are full: start afresh */
  for (int i = 0; i < n && !barrier; i++) {
    if (bufs[i] == q->c->dummy) continue; /* bound at unused slots, never accessed */
    if (in_set(q->wr, q->nwr, bufs[i]) || ((writes >> i & 1) && in_set(q->rd, q->nrd, bufs[i]))) barrier = 1;
  }
  if (barrier) {
    MSGA(void, NSUInteger)(q->enc, S.memoryBarrierWithScope, MTL_BARRIER_BUFFERS);
    q->nwr = q->nrd = 0;
  }
  for (int i = 0; i < n; i++) {
    if (bufs[i] == q->c->dummy) continue;
    if (!in_set(q->rd, q->nrd, bufs[i])) q->rd[q->nrd++] = bufs[i];
    if ((writes >> i & 1) && !in_set(q->wr, q->nwr, bufs[i])) q->wr[q->nwr++] = bufs[i];
  }
  if (pso != q->last_pso) {
    MSGA(void, id)(q->enc, S.setComputePipelineState, pso);
    q->last_pso = pso;
  }
  NSUInteger offsets[PT_MTL_MAX_BUFS] = {0};
  MSGA(void, const id *, const NSUInteger *, NSRange)(q->enc, S.setBuffers, bufs, offsets, (NSRange){0, (NSUInteger)n});
  MSGA(void, const void *, NSUInteger, NSUInteger)(q->enc, S.setBytes, bytes, nbytes, (NSUInteger)n);
  if (extra) MSGA(void, id, NSUInteger, NSUInteger)(q->enc, S.setBuffer, extra, 0, (NSUInteger)n + 1);
  MSGA(void, MTLSize, MTLSize)(q->enc, S.dispatchThreadgroups, groups, (MTLSize){PT_MTL_GROUP, 1, 1});
  /* A full command buffer goes now; if that fails (host memory), the work stays recorded
   * for the next commit, so the dispatch itself succeeded. */
  if (++q->ndispatch >= PT_MTL_BATCH) mtl_commit_locked(q);
  return PT_OK;
}

int mtl_launch(void *ctx, void *queue, void *prog, const pt_mem_ref *bufs, int nbuf, const double *args, int nargs) {
  mtl_ctx *c = ctx;
  mtl_queue *q = queue;
  mtl_prog *p = prog;
  int64_t work = 0;
  uint32_t writes = 0;
  pt_matmul_plan mm;
  int st = pt_launch_check("metal", "Metal", PT_MTL_MAX_BUFS, PT_MTL_MAX_ARGS, p->kind, bufs, nbuf, args, nargs, &work, &mm, &writes);
  if (st != PT_OK) return st;
  if (uses_f64(p->kind, args, &mm))
    return pt_error(PT_EUNSUPPORTED, "metal: float64 is not supported by Metal (a %s launch)", pt_program_kind_name(p->kind));
  MTLSize groups = {1, 1, 1};
  if (p->kind == PT_K_MATMUL) {
    if (mm.batch == 0 || mm.M == 0 || mm.N == 0) return PT_OK;
    unsigned g[3];
    pt_grid_tiles(mm.M, mm.N, mm.batch, 64, g); /* the shader's 64x64 tiles (params.h) */
    groups = (MTLSize){g[0], g[1], g[2]};
  } else if (work <= 0) {
    return PT_OK; /* nothing to do: nothing is recorded, not even a SERIAL group */
  } else {
    groups.width = pt_grid_groups(p->kind, work, PT_MTL_GROUP, 65535);
  }

  pt_mtl_params params;
  convert(&params, nbuf, args, nargs);
  id bound[PT_MTL_MAX_BUFS];
  for (int i = 0; i < PT_MTL_MAX_BUFS; i++) bound[i] = i < nbuf ? (id)bufs[i].mem : c->dummy;

  /* Marked before the dispatch, so that a wait that sees it finish also reads the block,
   * and a report can name the kinds that may have written it. */
  pt_mutex_lock(&c->errlock);
  pt_word_mark(&c->word, 1u << p->kind, 1); /* every kind: the block is shared memory, reading it costs a load */
  pt_mutex_unlock(&c->errlock);
  void *pool = mtl_pool();
  pt_mutex_lock(&q->lock);
  if ((st = mtl_enter(c)) == PT_OK)
    st = mtl_dispatch_locked(q, p->pso, bound, PT_MTL_MAX_BUFS, writes, &params, sizeof params, c->errblk, groups);
  pt_mutex_unlock(&q->lock);
  mtl_unpool(pool);
  return st;
}
