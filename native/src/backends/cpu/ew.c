/* ew.c: running compiled elementwise programs (ew_program.h) over an argument block
 * (kernels.h).
 *
 * The output is walked in row-major order, one block of at most EW_BLOCK elements at a
 * time: every instruction processes the whole block before the next starts, so the
 * interpreter's dispatch is paid per block, not per element, and the per-op loops
 * (ew_ops.h) vectorise. First, dims that every view walks the same way are merged, so that
 * contiguous and broadcast operands become one long row; a view that is row-major
 * contiguous over the merged shape stays one run per block even where rows are short.
 *
 * Copies are avoided where the data allows: a unit-stride LOAD whose dtype is its compute
 * type points the register at the input; a binary op whose operand is a constant or
 * broadcast value reads one scalar rather than a block of copies; and when the output
 * overlaps no input, the instruction before STORE writes straight into a unit-stride
 * output of its own type. Outputs too large to stay in cache are written from the block
 * with non-temporal stores instead: that skips reading each output line before
 * overwriting it, a quarter of the memory traffic of a two-input op.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ew_program.h"
#include "pool.h"
#include "view.h"
#include "ew_ops.h"
#include "ew_io.h"

#define EW_BLOCK 4096         /* elements; larger blocks cost less per block but spill out of L1 */
#define EW_PARALLEL_MIN 32768 /* elements; below this a thread hand-off costs more than it saves */
#define EW_STACK_BYTES 16384  /* register storage that small runs keep on the stack */
#ifndef EW_STREAM_BYTES       /* (tests set it low to run every case through the streaming path) */
#define EW_STREAM_BYTES (16 << 20) /* outputs at least this large bypass the cache */
#endif

#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define EW_HAVE_STREAM 1
#endif
#endif
#ifndef EW_HAVE_STREAM
#define EW_HAVE_STREAM 0
#endif

typedef struct {
  uint8_t *base;
  int dtype, esize, buf;
  int64_t offset, stride[PT_MAX_RANK]; /* over the merged dims */
  int broadcast;                      /* every stride is 0: one value */
  int linear;                         /* row-major contiguous: element i is at offset + i */
} ew_view;

typedef struct {
  const cpu_ew_program *p;
  int rank;                      /* merged; at least 1 */
  int64_t shape[PT_MAX_RANK], numel;
  int64_t pieces_per_row;        /* rows split into EW_BLOCK pieces; 0: a block may span rows */
  int64_t units, unit_len;       /* work items and the longest one */
  int direct_store;
  int stream_store;              /* unit-stride runs of the output use ew_stream_copy */
  const double *consts;
  int values_only;               /* cpu_ew_values: STORE hands its register over instead of writing */
  ew_view views[EW_MAX_INPUTS + 1];
  _Atomic int64_t failed_at;     /* element index * 4 + ew_failure, or INT64_MAX */
  atomic_int stop, out_of_memory;
} ew_run;

static int ew_same_repr(int dtype, int ctype) {
  return (dtype == PT_F32 && ctype == EW_F32) || (dtype == PT_F64 && ctype == EW_F64) ||
         (dtype == PT_I32 && ctype == EW_I32) || (dtype == PT_I64 && ctype == EW_I64);
}

static int ew_hoisted(const ew_run *run, const ew_instr *in) {
  return in->once && (in->kind == EW_K_CONST || run->views[in->a + 1].broadcast);
}

/* Whether instruction `from` (-1: none) produced one value for every element. */
static int ew_uniform(const ew_run *run, int from) {
  return from >= 0 && run->p->ins[from].once && ew_hoisted(run, &run->p->ins[from]);
}

static int64_t ew_offset_of(const ew_run *run, const ew_view *v, const int64_t *idx) {
  int64_t off = v->offset;
  for (int d = 0; d < run->rank; d++) off += idx[d] * v->stride[d];
  return off;
}

/* Adds count to idx[d] (moving the element offset `off` with it), carrying into outer dims;
 * idx[d] + count must not pass shape[d]. */
static void ew_step(const ew_run *run, const int64_t *stride, int64_t *idx, int64_t *off, int d, int64_t count) {
  idx[d] += count;
  *off += count * stride[d];
  for (; d > 0 && idx[d] == run->shape[d]; d--) {
    *off += stride[d - 1] - idx[d] * stride[d];
    idx[d] = 0;
    idx[d - 1]++;
  }
}

/* memcpy with non-temporal stores for the aligned middle. */
static void ew_stream_copy(uint8_t *dst, const uint8_t *src, size_t bytes) {
#if EW_HAVE_STREAM
  typedef uint32_t ew_vec __attribute__((vector_size(32)));
  size_t head = (size_t)(-(uintptr_t)dst & 31);
  if (head > bytes) head = bytes;
  memcpy(dst, src, head);
  dst += head; src += head; bytes -= head;
  for (; bytes >= 32; bytes -= 32, dst += 32, src += 32) {
    ew_vec v;
    memcpy(&v, src, 32);
    __builtin_nontemporal_store(v, (ew_vec *)(void *)dst);
  }
#endif
  memcpy(dst, src, bytes);
}

/* Moves rows x len elements between view v (from element offset off) and the register
 * block reg, converting between v's dtype and ctype. */
static void ew_move_rows(const ew_run *run, const ew_view *v, int64_t off, int64_t rows, int64_t row_stride,
                         int64_t len, int64_t stride, int ctype, uint8_t *reg, int store) {
  uint8_t *at = v->base + off * v->esize;
  if (!store) ew_load_rows(v->dtype, ctype, at, rows, row_stride, len, stride, reg);
  else if (run->stream_store && stride == 1 && rows == 1) ew_stream_copy(at, reg, (size_t)(len * ew_ctype_size[ctype]));
  else ew_store_rows(ctype, v->dtype, reg, at, rows, row_stride, len, stride);
}

/* Copies n elements starting at multi-index idx0 between view v and a register block:
 * partial rows one at a time, whole rows in runs along the next dim out. */
static void ew_transfer(const ew_run *run, const ew_view *v, const int64_t *idx0, int64_t n, int ctype,
                        uint8_t *reg, int store) {
  int last = run->rank - 1, csize = ew_ctype_size[ctype];
  int64_t idx[PT_MAX_RANK], off = ew_offset_of(run, v, idx0), done = 0, inner = run->shape[last];
  if (v->linear) { ew_move_rows(run, v, off, 1, 0, n, 1, ctype, reg, store); return; }
  memcpy(idx, idx0, sizeof(int64_t) * (size_t)run->rank);
  while (done < n) {
    int64_t left = n - done;
    if (idx[last] == 0 && last > 0 && left >= inner) {
      int64_t rows = run->shape[last - 1] - idx[last - 1];
      if (rows > left / inner) rows = left / inner;
      ew_move_rows(run, v, off, rows, v->stride[last - 1], inner, v->stride[last], ctype, reg + done * csize, store);
      done += rows * inner;
      if (done < n) ew_step(run, v->stride, idx, &off, last - 1, rows);
    } else {
      int64_t len = inner - idx[last] < left ? inner - idx[last] : left;
      ew_move_rows(run, v, off, 1, 0, len, v->stride[last], ctype, reg + done * csize, store);
      done += len;
      if (done < n) ew_step(run, v->stride, idx, &off, last, len);
    }
  }
}

typedef struct {
  void *reg[EW_MAX_REGS];
  uint8_t *blocks;
  size_t block_bytes;
  const void *result; /* values mode: the register STORE named */
} ew_thread;

/* Runs the program over elements [start, start + n); returns -1, or the failing element's
 * index * 4 + ew_failure. */
static int64_t ew_exec_block(const ew_run *run, ew_thread *t, int64_t start, int64_t n) {
  const cpu_ew_program *p = run->p;
  int64_t idx[PT_MAX_RANK], rest = start;
  for (int d = run->rank - 1; d >= 0; d--) { idx[d] = rest % run->shape[d]; rest /= run->shape[d]; }
  int last = run->rank - 1;
  int one_row = idx[last] + n <= run->shape[last];
  const ew_view *out = &run->views[0];
  int direct = run->direct_store && (out->linear || (one_row && out->stride[last] == 1));
  int writes_output = direct ? p->ninstr - 2 : -1; /* the instruction that writes the output */
  for (int i = 0; i < p->ninstr; i++) {
    const ew_instr *in = &p->ins[i];
    void *dst = in->block >= 0 ? t->blocks + (size_t)in->block * t->block_bytes : NULL;
    if (in->once && ew_hoisted(run, in)) { t->reg[in->dst] = dst; continue; }
    if (i == writes_output) dst = out->base + ew_offset_of(run, out, idx) * out->esize;
    switch (in->kind) {
    case EW_K_LOAD: {
      const ew_view *v = &run->views[in->a + 1];
      if ((v->linear || (one_row && v->stride[last] == 1)) && ew_same_repr(v->dtype, in->ctype) &&
          i != writes_output) {
        t->reg[in->dst] = v->base + ew_offset_of(run, v, idx) * v->esize;
        continue;
      }
      ew_transfer(run, v, idx, n, in->ctype, dst, 0);
      break;
    }
    case EW_K_CONST: ew_fill_const(in->ctype, n, run->consts[in->a], dst); break;
    case EW_K_INDEX: ew_fill_index(in->ctype, n, start, dst); break;
    case EW_K_CAST: ew_cast(in->ctype, in->src_type, n, t->reg[in->a], dst); break;
    case EW_K_UNARY: case EW_K_PREDICATE: ew_unary(in->ctype, in->op, n, t->reg[in->a], dst); break;
    case EW_K_BINARY: case EW_K_COMPARE: {
      int64_t k;
      int swapped;
      if (ew_uniform(run, in->b_from)) k = ew_binary_scalar(in->ctype, in->op, n, t->reg[in->a], t->reg[in->b], dst);
      else if (ew_uniform(run, in->a_from) && (swapped = ew_swapped_op(in->op)) >= 0)
        k = ew_binary_scalar(in->ctype, swapped, n, t->reg[in->b], t->reg[in->a], dst);
      else k = ew_binary(in->ctype, in->op, n, t->reg[in->a], t->reg[in->b], dst);
      if (k >= 0) return (start + k) * 4 + ew_failure_of(in->op);
      break;
    }
    case EW_K_WHERE: ew_where(in->ctype, n, t->reg[in->a], t->reg[in->b], t->reg[in->c], dst); break;
    default: /* STORE */
      if (run->values_only) t->result = t->reg[in->a];
      else if (!direct) ew_transfer(run, out, idx, n, in->ctype, t->reg[in->a], 1);
      continue;
    }
    t->reg[in->dst] = dst;
  }
  return -1;
}

/* Fills the thread's once-per-thread blocks (constants, broadcast inputs) for n elements.
 * A broadcast input is one value read n times with stride 0, not a walk over the run's
 * shape: n can pass the run's numel (ewreduce's blocks are sized for BLK values however
 * short the expression), and a walk has nothing left to step over there. */
static void ew_fill_hoisted(const ew_run *run, ew_thread *t, int64_t n) {
  const cpu_ew_program *p = run->p;
  for (int i = 0; i < p->ninstr - 1; i++) {
    const ew_instr *in = &p->ins[i];
    if (!in->once || !ew_hoisted(run, in)) continue;
    void *dst = t->blocks + (size_t)in->block * t->block_bytes;
    const ew_view *v = &run->views[in->a + 1];
    if (in->kind == EW_K_CONST) ew_fill_const(in->ctype, n, run->consts[in->a], dst);
    else ew_move_rows(run, v, v->offset, 1, 0, n, 0, in->ctype, dst, 0);
  }
}

static void ew_unit_range(const ew_run *run, int64_t u, int64_t *start, int64_t *n) {
  if (run->pieces_per_row) {
    int64_t inner = run->shape[run->rank - 1], row = u / run->pieces_per_row;
    int64_t piece = u % run->pieces_per_row;
    *start = row * inner + piece * EW_BLOCK;
    *n = inner - piece * EW_BLOCK < EW_BLOCK ? inner - piece * EW_BLOCK : EW_BLOCK;
  } else {
    *start = u * EW_BLOCK;
    *n = run->numel - *start < EW_BLOCK ? run->numel - *start : EW_BLOCK;
  }
}

static void ew_record_failure(ew_run *run, int64_t code) {
  int64_t seen = atomic_load(&run->failed_at);
  while (code < seen && !atomic_compare_exchange_weak(&run->failed_at, &seen, code)) {}
  atomic_store(&run->stop, 1);
}

static void ew_run_units(void *ctx, size_t begin, size_t end) {
  ew_run *run = ctx;
  const cpu_ew_program *p = run->p;
  if (atomic_load_explicit(&run->stop, memory_order_relaxed)) return;
  _Alignas(64) uint8_t stack_blocks[EW_STACK_BYTES];
  ew_thread t;
  t.block_bytes = ((size_t)run->unit_len * (size_t)p->elem_bytes + 63) & ~(size_t)63;
  size_t bytes = t.block_bytes * (size_t)p->nblocks;
  void *heap = NULL;
  if (bytes <= sizeof stack_blocks) t.blocks = stack_blocks;
  else {
    if (!(heap = malloc(bytes + 63))) { atomic_store(&run->out_of_memory, 1); atomic_store(&run->stop, 1); return; }
    t.blocks = (uint8_t *)(((uintptr_t)heap + 63) & ~(uintptr_t)63);
  }
  ew_fill_hoisted(run, &t, run->unit_len);
  for (size_t u = begin; u < end; u++) {
    int64_t start, n, failure;
    if (atomic_load_explicit(&run->stop, memory_order_relaxed)) break;
    ew_unit_range(run, (int64_t)u, &start, &n);
    if ((failure = ew_exec_block(run, &t, start, n)) >= 0) { ew_record_failure(run, failure); break; }
  }
  /* non-temporal stores are weakly ordered: make them visible before the caller reads */
  if (run->stream_store) atomic_thread_fence(memory_order_seq_cst);
  free(heap);
}

static int ew_slot_int(double d, int64_t lo, int64_t hi, int64_t *v) {
  if (!(d >= (double)lo && d <= (double)hi) || d != (double)(int64_t)d) return -1;
  *v = (int64_t)d;
  return 0;
}

/* Merges dims that every view walks as one (stride[i] == stride[i+1] * shape[i+1]) after
 * dropping size-1 dims; row-major order, and so INDEX, is unchanged. Works in place: the
 * merged dim r never passes the source dim d. */
static void ew_merge_dims(ew_run *run, int rank, int nviews) {
  int r = 0;
  for (int d = 0; d < rank; d++) {
    int64_t size = run->shape[d];
    if (size == 1) continue;
    int merge = r > 0;
    for (int v = 0; v < nviews && merge; v++)
      merge = run->views[v].stride[r - 1] == run->views[v].stride[d] * size;
    if (merge) {
      run->shape[r - 1] *= size;
      for (int v = 0; v < nviews; v++) run->views[v].stride[r - 1] = run->views[v].stride[d];
    } else {
      run->shape[r] = size;
      for (int v = 0; v < nviews; v++) run->views[v].stride[r] = run->views[v].stride[d];
      r++;
    }
  }
  if (r == 0) { /* a single element */
    run->shape[0] = 1;
    for (int v = 0; v < nviews; v++) run->views[v].stride[0] = 0;
    r = 1;
  }
  run->rank = r;
  for (int v = 0; v < nviews; v++) {
    ew_view *ev = &run->views[v];
    int64_t dense = 1;
    ev->broadcast = ev->linear = 1;
    for (int d = r - 1; d >= 0; d--) {
      ev->broadcast &= ev->stride[d] == 0;
      ev->linear &= ev->stride[d] == dense;
      dense *= run->shape[d];
    }
  }
}

static int ew_overlaps(const pt_mem_ref *x, const pt_mem_ref *y) {
  const uint8_t *xs = x->host, *ys = y->host;
  return x->bytes && y->bytes && xs < ys + y->bytes && ys < xs + x->bytes;
}

/* Parses VIEW v of the block into run->views[v] (dims not yet merged). */
static int ew_view_parse(ew_run *run, const pt_mem_ref *bufs, int nbuf, const double *slots, int rank,
                         const int64_t *shape, int v) {
  cpu_view cv;
  if (cpu_view_parse(bufs, nbuf, slots, rank, shape, 0, NULL, NULL, "ew view", &cv)) {
    char what[32]; /* named only on failure: formatting costs more than a small kernel */
    if (v) snprintf(what, sizeof what, "ew input %d", v - 1);
    else snprintf(what, sizeof what, "ew output");
    return cpu_view_parse(bufs, nbuf, slots, rank, shape, 0, NULL, NULL, what, &cv);
  }
  ew_view *ev = &run->views[v];
  ev->base = cv.base; ev->dtype = cv.dtype; ev->esize = pt_dtype_size[cv.dtype];
  ev->offset = cv.offset; ev->buf = (int)slots[PT_VIEW_BUF];
  memcpy(ev->stride, cv.stride, sizeof ev->stride);
  return 0;
}

int cpu_ew_run(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  int64_t rank, nviews, nconst;
  int st;
  ew_run run_state, *run = &run_state;
  if (na < PT_EW_VIEWS || ew_slot_int(a[PT_EW_RANK], 0, PT_MAX_RANK, &rank))
    return pt_error(PT_EINVAL, "ew: argument block of %d slots has no valid rank", na);
  if ((st = cpu_shape_parse(a + PT_EW_SHAPE, (int)rank, run->shape, "ew"))) return st;
  if (ew_slot_int(a[PT_EW_NVIEWS], 0, EW_MAX_INPUTS + 1, &nviews) || nviews != p->ninputs + 1)
    return pt_error(PT_EINVAL, "ew: %g views for a program of %d inputs (+1 output)", a[PT_EW_NVIEWS], p->ninputs);
  int64_t const_slot = PT_EW_NCONST(nviews);
  if (na <= const_slot || ew_slot_int(a[const_slot], 0, na - const_slot - 1, &nconst))
    return pt_error(PT_EINVAL, "ew: argument block of %d slots is too short for %d views and the constants", na,
                    (int)nviews);
  if (nconst < p->nconst_needed)
    return pt_error(PT_EINVAL, "ew: %d constants given, the program uses %d", (int)nconst, p->nconst_needed);

  for (int v = 0; v < nviews; v++)
    if ((st = ew_view_parse(run, bufs, nbuf, a + PT_EW_VIEWS + v * PT_VIEW_SLOTS, (int)rank, run->shape, v))) return st;
  run->p = p;
  run->values_only = 0;
  run->consts = a + const_slot + 1;
  run->numel = cpu_numel((int)rank, run->shape);
  if (run->numel == 0) return 0;
  ew_merge_dims(run, (int)rank, (int)nviews);

  /* Rows long enough are split at row boundaries so that each block is one strided run;
   * short rows are packed several to a block instead. */
  int64_t inner = run->shape[run->rank - 1];
  if (inner >= EW_BLOCK / 4) {
    run->pieces_per_row = (inner + EW_BLOCK - 1) / EW_BLOCK;
    run->units = run->numel / inner * run->pieces_per_row;
    run->unit_len = inner < EW_BLOCK ? inner : EW_BLOCK;
  } else {
    run->pieces_per_row = 0;
    run->units = (run->numel + EW_BLOCK - 1) / EW_BLOCK;
    run->unit_len = run->numel < EW_BLOCK ? run->numel : EW_BLOCK;
  }

  const ew_instr *before_store = p->ninstr >= 2 ? &p->ins[p->ninstr - 2] : NULL;
  const ew_instr *store = &p->ins[p->ninstr - 1];
  run->direct_store = before_store && before_store->dst == store->a && !ew_hoisted(run, before_store) &&
                      ew_same_repr(run->views[0].dtype, store->ctype);
  for (int v = 1; v < nviews && run->direct_store; v++)
    run->direct_store = !ew_overlaps(&bufs[run->views[0].buf], &bufs[run->views[v].buf]);
  run->stream_store = EW_HAVE_STREAM && ew_same_repr(run->views[0].dtype, store->ctype) &&
                      run->numel * run->views[0].esize >= EW_STREAM_BYTES;
  if (run->stream_store) run->direct_store = 0;

  atomic_init(&run->failed_at, INT64_MAX);
  atomic_init(&run->stop, 0);
  atomic_init(&run->out_of_memory, 0);
  if (run->numel < EW_PARALLEL_MIN || run->units == 1) ew_run_units(run, 0, (size_t)run->units);
  else {
    int64_t per_unit = run->numel / run->units;
    cpu_parallel_for((size_t)run->units, (size_t)((EW_PARALLEL_MIN + per_unit - 1) / per_unit), ew_run_units, run);
  }

  int64_t failed_at = atomic_load(&run->failed_at);
  if (atomic_load(&run->out_of_memory)) return pt_error(PT_EOOM, "ew: out of memory for register blocks");
  if (failed_at == INT64_MAX) return 0;
  static const char *const why[3] = {"", "integer division by zero", "integer modulo by zero"};
  return pt_error(PT_EKERNEL, "ew: %s at element %lld", why[failed_at % 4], (long long)(failed_at / 4));
}

/* ---- values of an expression, for kernels that consume them (ew_values.h) ------------ */

struct cpu_ew_values { ew_run run; };
struct cpu_ew_thread { ew_thread t; int64_t max_n; void *heap; };

int cpu_ew_values_open(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, int rank, const int64_t *shape,
                       const double *views, int nviews, const double *consts, int nconst, cpu_ew_values **out) {
  if (nviews != p->ninputs + 1)
    return pt_error(PT_EINVAL, "ewreduce: %d views for a program of %d inputs (+1 output)", nviews, p->ninputs);
  if (nconst < p->nconst_needed)
    return pt_error(PT_EINVAL, "ewreduce: %d constants given, the program uses %d", nconst, p->nconst_needed);
  cpu_ew_values *v = calloc(1, sizeof *v);
  if (!v) return pt_error(PT_EOOM, "ewreduce: out of host memory");
  ew_run *run = &v->run;
  memcpy(run->shape, shape, sizeof run->shape);
  int st;
  for (int i = 1; i < nviews; i++)
    if ((st = ew_view_parse(run, bufs, nbuf, views + (i - 1) * PT_VIEW_SLOTS, rank, run->shape, i))) { free(v); return st; }
  /* View 0 stands for the values: row-major contiguous, so it never stops a merge. */
  int64_t dense = 1;
  for (int d = rank - 1; d >= 0; d--) { run->views[0].stride[d] = dense; dense *= run->shape[d]; }
  run->views[0].dtype = PT_F64;
  run->views[0].esize = 8;
  run->p = p;
  run->consts = consts;
  run->values_only = 1;
  run->numel = cpu_numel(rank, run->shape);
  ew_merge_dims(run, rank, nviews);
  atomic_init(&run->failed_at, INT64_MAX);
  atomic_init(&run->stop, 0);
  atomic_init(&run->out_of_memory, 0);
  *out = v;
  return PT_OK;
}

void cpu_ew_values_close(cpu_ew_values *v) { free(v); }

int cpu_ew_values_ctype(const cpu_ew_values *v) { return v->run.p->ins[v->run.p->ninstr - 1].ctype; }

cpu_ew_thread *cpu_ew_thread_new(const cpu_ew_values *v, int64_t max_n) {
  const cpu_ew_program *p = v->run.p;
  cpu_ew_thread *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->max_n = max_n;
  t->t.block_bytes = ((size_t)max_n * (size_t)p->elem_bytes + 63) & ~(size_t)63;
  if (!(t->heap = malloc(t->t.block_bytes * (size_t)(p->nblocks > 0 ? p->nblocks : 1) + 63))) { free(t); return NULL; }
  t->t.blocks = (uint8_t *)(((uintptr_t)t->heap + 63) & ~(uintptr_t)63);
  ew_fill_hoisted(&v->run, &t->t, max_n);
  return t;
}

void cpu_ew_thread_free(cpu_ew_thread *t) {
  if (t) free(t->heap);
  free(t);
}

const void *cpu_ew_values_at(const cpu_ew_values *v, cpu_ew_thread *t, int64_t start, int64_t n, int64_t *failed) {
  int64_t f = ew_exec_block(&v->run, &t->t, start, n);
  *failed = f;
  return f >= 0 ? NULL : t->t.result;
}

int cpu_ew_failure(int64_t failed) {
  static const char *const why[3] = {"", "integer division by zero", "integer modulo by zero"};
  return pt_error(PT_EKERNEL, "ewreduce: %s at element %lld", why[failed % 4], (long long)(failed / 4));
}
