/* ew.c: the CPU backend's elementwise interpreter (bytecode and argument block: kernels.h).
 *
 * A program runs over the output in row-major order, one block of at most EW_BLOCK
 * elements at a time: every instruction processes the whole block before the next one
 * starts, so the interpreter's dispatch cost is paid per block, not per element, and the
 * per-op loops (ew_ops.h) vectorise. Before running, dims that every view walks the same
 * way are merged, so that contiguous and broadcast operands become one long row.
 *
 * Register blocks. A register names a value; the block that holds it is assigned when the
 * program is compiled so that an instruction never writes a block it also reads (which
 * lets every loop take restrict pointers even for `r1 = r1 + r2`). A register written
 * only by a CONST, or by a LOAD of a view that turns out to be one broadcast value, is
 * filled once per thread rather than per block, so it gets a block of its own. Two more
 * shortcuts avoid copies: a unit-stride LOAD whose dtype is its compute type points the
 * register at the input, and when the output overlaps no input, the instruction before
 * STORE writes straight into a unit-stride output of the register's own type.
 *
 * Outputs too large to stay in cache are instead written with non-temporal stores from the
 * register block: that skips reading each output line before overwriting it, which is a
 * quarter of the memory traffic of a two-input op and most of its cost.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "pool.h"
#include "view.h"
#include "ew_ops.h"
#include "ew_io.h"

#define EW_MAGIC 0x50540001
#define EW_MAX_REGS 32
#define EW_MAX_INPUTS 64
#define EW_BLOCK 1024
#define EW_PARALLEL_MIN 32768 /* elements; below this a thread hand-off costs more than it saves */
#define EW_STACK_BYTES 16384  /* register storage that small runs keep on the stack */
#ifndef EW_STREAM_BYTES /* (tests set it low to run every case through the streaming path) */
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

enum ew_kind { EW_K_LOAD, EW_K_CONST, EW_K_INDEX, EW_K_CAST, EW_K_UNARY, EW_K_PREDICATE,
               EW_K_BINARY, EW_K_COMPARE, EW_K_WHERE, EW_K_STORE, EW_K_UNKNOWN };

typedef struct {
  int op, kind, ctype, dst, a, b, c;
  int src_type; /* the type of the register(s) read: b for CAST, else ctype */
  int block;    /* register block written, or -1 for STORE */
  int once;     /* CONST or LOAD of a register nothing else writes: may run once per thread */
} ew_instr;

struct cpu_ew_program {
  int ninputs, nregs, ninstr, nblocks;
  int nconst_needed; /* 1 + the largest CONST index */
  ew_instr ins[];
};

static int ew_kind_of(int op) {
  if (op == EW_LOAD) return EW_K_LOAD;
  if (op == EW_CONST) return EW_K_CONST;
  if (op == EW_INDEX) return EW_K_INDEX;
  if (op == EW_CAST) return EW_K_CAST;
  if (op >= EW_NEG && op <= EW_TRUNC) return EW_K_UNARY;
  if (op >= EW_NOT && op <= EW_NONZERO) return EW_K_PREDICATE;
  if (op >= EW_ADD && op <= EW_MIN) return EW_K_BINARY;
  if (op >= EW_EQ && op <= EW_XOR) return EW_K_COMPARE;
  if (op == EW_WHERE) return EW_K_WHERE;
  if (op == EW_STORE) return EW_K_STORE;
  return EW_K_UNKNOWN;
}

/* Transcendental and reciprocal ops have no integer meaning; the encoder promotes first. */
static int ew_float_only(int op) {
  return (op >= EW_RECIP && op <= EW_TANH) || op == EW_SIGMOID || op == EW_GELU;
}

static int32_t ew_word(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static const char *const ew_type_name[4] = {"f32", "f64", "i32", "i64"};

/* Checks that register r may be read as type t at instruction i. */
static int ew_check_read(int i, int r, int t, int nregs, const int *reg_type) {
  if (r < 0 || r >= nregs) return pt_error(PT_EINVAL, "ew bytecode: instruction %d reads register %d of %d", i, r, nregs);
  if (reg_type[r] < 0) return pt_error(PT_EINVAL, "ew bytecode: instruction %d reads register %d before it is written", i, r);
  if (reg_type[r] != t)
    return pt_error(PT_EINVAL, "ew bytecode: instruction %d reads register %d as %s but it holds %s", i, r,
                    ew_type_name[t], ew_type_name[reg_type[r]]);
  return 0;
}

static int ew_validate(cpu_ew_program *p) {
  int reg_type[EW_MAX_REGS];
  for (int r = 0; r < EW_MAX_REGS; r++) reg_type[r] = -1;
  for (int i = 0; i < p->ninstr; i++) {
    ew_instr *in = &p->ins[i];
    int st;
    if (in->kind == EW_K_UNKNOWN) return pt_error(PT_EINVAL, "ew bytecode: instruction %d has unknown op %d", i, in->op);
    if (in->ctype < 0 || in->ctype > 3)
      return pt_error(PT_EINVAL, "ew bytecode: instruction %d has ctype %d, not 0..3", i, in->ctype);
    if ((in->kind == EW_K_STORE) != (i == p->ninstr - 1))
      return pt_error(PT_EINVAL, "ew bytecode: instruction %d: %s", i,
                      in->kind == EW_K_STORE ? "STORE must be the last instruction" : "the last instruction must be STORE");
    if (in->ctype >= EW_I32 && ew_float_only(in->op))
      return pt_error(PT_EINVAL, "ew bytecode: instruction %d: op %d needs a float ctype, not %s", i, in->op,
                      ew_type_name[in->ctype]);
    in->src_type = in->ctype;
    switch (in->kind) {
    case EW_K_LOAD:
      if (in->a < 0 || in->a >= p->ninputs)
        return pt_error(PT_EINVAL, "ew bytecode: instruction %d loads input %d of %d", i, in->a, p->ninputs);
      break;
    case EW_K_CONST:
      /* The bound keeps nconst_needed (index + 1) from overflowing. */
      if (in->a < 0 || in->a >= (1 << 24))
        return pt_error(PT_EINVAL, "ew bytecode: instruction %d uses constant %d", i, in->a);
      if (in->a >= p->nconst_needed) p->nconst_needed = in->a + 1;
      break;
    case EW_K_INDEX: break;
    case EW_K_CAST:
      if (in->b < 0 || in->b > 3)
        return pt_error(PT_EINVAL, "ew bytecode: instruction %d casts from ctype %d, not 0..3", i, in->b);
      in->src_type = in->b;
      if ((st = ew_check_read(i, in->a, in->b, p->nregs, reg_type))) return st;
      break;
    case EW_K_UNARY: case EW_K_PREDICATE: case EW_K_STORE:
      if ((st = ew_check_read(i, in->a, in->ctype, p->nregs, reg_type))) return st;
      break;
    case EW_K_BINARY: case EW_K_COMPARE:
      if ((st = ew_check_read(i, in->a, in->ctype, p->nregs, reg_type))) return st;
      if ((st = ew_check_read(i, in->b, in->ctype, p->nregs, reg_type))) return st;
      break;
    default: /* WHERE */
      if ((st = ew_check_read(i, in->a, EW_I32, p->nregs, reg_type))) return st;
      if ((st = ew_check_read(i, in->b, in->ctype, p->nregs, reg_type))) return st;
      if ((st = ew_check_read(i, in->c, in->ctype, p->nregs, reg_type))) return st;
      break;
    }
    if (in->kind == EW_K_STORE) break;
    if (in->dst < 0 || in->dst >= p->nregs)
      return pt_error(PT_EINVAL, "ew bytecode: instruction %d writes register %d of %d", i, in->dst, p->nregs);
    reg_type[in->dst] = (in->kind == EW_K_PREDICATE || in->kind == EW_K_COMPARE) ? EW_I32 : in->ctype;
  }
  return 0;
}

static int ew_reads(const ew_instr *in, int r) {
  switch (in->kind) {
  case EW_K_CAST: case EW_K_UNARY: case EW_K_PREDICATE: return in->a == r;
  case EW_K_BINARY: case EW_K_COMPARE: return in->a == r || in->b == r;
  case EW_K_WHERE: return in->a == r || in->b == r || in->c == r;
  default: return 0;
  }
}

/* Assigns register blocks (see the top of the file). Registers marked `once` own a block;
 * the others share a pool of (their count + 1) blocks, enough for a destination to take a
 * free block whenever it is also an operand. */
static void ew_assign_blocks(cpu_ew_program *p) {
  int writes[EW_MAX_REGS] = {0}, block_of[EW_MAX_REGS], in_use[2 * EW_MAX_REGS + 1] = {0}, next = 0;
  for (int i = 0; i < p->ninstr - 1; i++) writes[p->ins[i].dst]++;
  for (int r = 0; r < EW_MAX_REGS; r++) block_of[r] = -1;
  for (int i = 0; i < p->ninstr - 1; i++) {
    ew_instr *in = &p->ins[i];
    in->once = (in->kind == EW_K_LOAD || in->kind == EW_K_CONST) && writes[in->dst] == 1;
    if (in->once) block_of[in->dst] = next++;
  }
  int pool_start = next;
  for (int i = 0; i < p->ninstr - 1; i++) {
    ew_instr *in = &p->ins[i];
    if (!in->once && (block_of[in->dst] < 0 || ew_reads(in, in->dst))) {
      int free_block = pool_start;
      while (in_use[free_block]) free_block++;
      if (block_of[in->dst] >= 0) in_use[block_of[in->dst]] = 0;
      in_use[free_block] = 1;
      block_of[in->dst] = free_block;
      if (free_block >= next) next = free_block + 1;
    }
    in->block = block_of[in->dst];
  }
  p->ins[p->ninstr - 1].block = -1;
  p->nblocks = next;
}

int cpu_ew_compile(const uint8_t *src, size_t len, cpu_ew_program **out) {
  *out = NULL;
  if (!src || len < 16) return pt_error(PT_EINVAL, "ew bytecode: %d bytes, shorter than the 16-byte header", (int)len);
  int32_t magic = ew_word(src), ninputs = ew_word(src + 4), nregs = ew_word(src + 8), ninstr = ew_word(src + 12);
  if ((uint32_t)magic != EW_MAGIC) return pt_error(PT_EINVAL, "ew bytecode: bad magic 0x%08x", (unsigned)magic);
  if (ninputs < 0 || ninputs > EW_MAX_INPUTS)
    return pt_error(PT_EINVAL, "ew bytecode: %d inputs, not 0..%d", (int)ninputs, EW_MAX_INPUTS);
  if (nregs < 1 || nregs > EW_MAX_REGS) return pt_error(PT_EINVAL, "ew bytecode: %d registers, not 1..%d", (int)nregs, EW_MAX_REGS);
  if (ninstr < 1 || (size_t)ninstr > (len - 16) / 24 || len != 16 + (size_t)ninstr * 24)
    return pt_error(PT_EINVAL, "ew bytecode: %d instructions do not fill %d bytes (16 + 24 each)", (int)ninstr, (int)len);
  cpu_ew_program *p = malloc(sizeof *p + (size_t)ninstr * sizeof(ew_instr));
  if (!p) return pt_error(PT_EOOM, "ew bytecode: out of memory for %d instructions", (int)ninstr);
  p->ninputs = ninputs; p->nregs = nregs; p->ninstr = ninstr; p->nconst_needed = 0;
  for (int i = 0; i < ninstr; i++) {
    const uint8_t *w = src + 16 + (size_t)i * 24;
    ew_instr *in = &p->ins[i];
    in->op = ew_word(w); in->ctype = ew_word(w + 4); in->dst = ew_word(w + 8);
    in->a = ew_word(w + 12); in->b = ew_word(w + 16); in->c = ew_word(w + 20);
    in->kind = ew_kind_of(in->op); in->once = 0; in->block = -1;
  }
  int st = ew_validate(p);
  if (st) { free(p); return st; }
  ew_assign_blocks(p);
  *out = p;
  return 0;
}

void cpu_ew_free(cpu_ew_program *p) { free(p); }

/* ---- running ---- */

typedef struct {
  uint8_t *base;
  int dtype, esize, buf;
  int64_t offset, stride[PT_MAX_RANK]; /* over the merged dims */
  int broadcast;                      /* every stride is 0: one value */
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

static int64_t ew_offset_of(const ew_run *run, const ew_view *v, const int64_t *idx) {
  int64_t off = v->offset;
  for (int d = 0; d < run->rank; d++) off += idx[d] * v->stride[d];
  return off;
}

/* Moves idx (and the element offset `off` that goes with it) from the end of a row to the
 * start of the next. */
static void ew_next_row(const ew_run *run, const int64_t *stride, int64_t *idx, int64_t *off) {
  int d = run->rank - 1;
  *off -= idx[d] * stride[d];
  idx[d] = 0;
  for (d--; d >= 0; d--) {
    idx[d]++;
    *off += stride[d];
    if (idx[d] < run->shape[d]) return;
    *off -= idx[d] * stride[d];
    idx[d] = 0;
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

/* Copies n elements starting at multi-index idx0 between view v and a register block. */
static void ew_transfer(const ew_run *run, const ew_view *v, const int64_t *idx0, int64_t n, int ctype,
                        uint8_t *reg, int store) {
  int last = run->rank - 1, csize = ew_ctype_size[ctype];
  int64_t idx[PT_MAX_RANK], off = ew_offset_of(run, v, idx0), done = 0;
  memcpy(idx, idx0, sizeof(int64_t) * (size_t)run->rank);
  for (;;) {
    int64_t seg = run->shape[last] - idx[last];
    if (seg > n - done) seg = n - done;
    uint8_t *at = v->base + off * v->esize;
    if (!store) ew_load_segment(v->dtype, ctype, at, v->stride[last], seg, reg + done * csize);
    else if (run->stream_store && v->stride[last] == 1) ew_stream_copy(at, reg + done * csize, (size_t)(seg * csize));
    else ew_store_segment(ctype, v->dtype, reg + done * csize, at, v->stride[last], seg);
    done += seg;
    if (done == n) return;
    idx[last] += seg;
    off += seg * v->stride[last];
    ew_next_row(run, v->stride, idx, &off);
  }
}

typedef struct {
  void *reg[EW_MAX_REGS];
  uint8_t *blocks;
  size_t block_bytes;
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
  int direct = run->direct_store && one_row && out->stride[last] == 1;
  for (int i = 0; i < p->ninstr; i++) {
    const ew_instr *in = &p->ins[i];
    if (in->once && ew_hoisted(run, in)) continue;
    void *dst = in->block >= 0 ? t->blocks + (size_t)in->block * t->block_bytes : NULL;
    if (direct && i == p->ninstr - 2) dst = out->base + ew_offset_of(run, out, idx) * out->esize;
    switch (in->kind) {
    case EW_K_LOAD: {
      const ew_view *v = &run->views[in->a + 1];
      if (one_row && v->stride[last] == 1 && ew_same_repr(v->dtype, in->ctype) && !(direct && i == p->ninstr - 2)) {
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
      int64_t k = ew_binary(in->ctype, in->op, n, t->reg[in->a], t->reg[in->b], dst);
      if (k >= 0) return (start + k) * 4 + ew_failure_of(in->op);
      break;
    }
    case EW_K_WHERE: ew_where(in->ctype, n, t->reg[in->a], t->reg[in->b], t->reg[in->c], dst); break;
    default: /* STORE */
      if (!direct) ew_transfer(run, out, idx, n, in->ctype, t->reg[in->a], 1);
      continue;
    }
    t->reg[in->dst] = dst;
  }
  return -1;
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
  t.block_bytes = ((size_t)run->unit_len * 8 + 63) & ~(size_t)63;
  size_t bytes = t.block_bytes * (size_t)p->nblocks;
  void *heap = NULL;
  if (bytes <= sizeof stack_blocks) t.blocks = stack_blocks;
  else {
    if (!(heap = malloc(bytes + 63))) { atomic_store(&run->out_of_memory, 1); atomic_store(&run->stop, 1); return; }
    t.blocks = (uint8_t *)(((uintptr_t)heap + 63) & ~(uintptr_t)63);
  }
  int64_t zero_idx[PT_MAX_RANK] = {0};
  for (int i = 0; i < p->ninstr - 1; i++) { /* fill the once-per-thread registers */
    const ew_instr *in = &p->ins[i];
    if (!in->once || !ew_hoisted(run, in)) continue;
    void *dst = t.blocks + (size_t)in->block * t.block_bytes;
    if (in->kind == EW_K_CONST) ew_fill_const(in->ctype, run->unit_len, run->consts[in->a], dst);
    else ew_transfer(run, &run->views[in->a + 1], zero_idx, run->unit_len, in->ctype, dst, 0);
    t.reg[in->dst] = dst;
  }
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
 * dropping size-1 dims; row-major order, and so INDEX, is unchanged. */
static void ew_merge_dims(ew_run *run, int rank, const int64_t *shape, const cpu_view *cv, int nviews) {
  int r = 0;
  for (int d = 0; d < rank; d++) {
    if (shape[d] == 1) continue;
    int merge = r > 0;
    for (int v = 0; v < nviews && merge; v++)
      merge = run->views[v].stride[r - 1] == cv[v].stride[d] * shape[d];
    if (merge) {
      run->shape[r - 1] *= shape[d];
      for (int v = 0; v < nviews; v++) run->views[v].stride[r - 1] = cv[v].stride[d];
    } else {
      run->shape[r] = shape[d];
      for (int v = 0; v < nviews; v++) run->views[v].stride[r] = cv[v].stride[d];
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
    run->views[v].broadcast = 1;
    for (int d = 0; d < r; d++) run->views[v].broadcast &= run->views[v].stride[d] == 0;
  }
}

static int ew_overlaps(const pt_mem_ref *x, const pt_mem_ref *y) {
  const uint8_t *xs = x->host, *ys = y->host;
  return x->bytes && y->bytes && xs < ys + y->bytes && ys < xs + x->bytes;
}

int cpu_ew_run(const cpu_ew_program *p, const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  int64_t rank, nviews, nconst, shape[PT_MAX_RANK];
  int st;
  if (na < 10 || ew_slot_int(a[0], 0, PT_MAX_RANK, &rank))
    return pt_error(PT_EINVAL, "ew: argument block of %d slots has no valid rank", na);
  if ((st = cpu_shape_parse(a + 1, (int)rank, shape, "ew"))) return st;
  if (ew_slot_int(a[9], 0, EW_MAX_INPUTS + 1, &nviews) || nviews != p->ninputs + 1)
    return pt_error(PT_EINVAL, "ew: %g views for a program of %d inputs (+1 output)", a[9], p->ninputs);
  int64_t const_slot = 10 + nviews * PT_VIEW_SLOTS;
  if (na <= const_slot || ew_slot_int(a[const_slot], 0, na - const_slot - 1, &nconst))
    return pt_error(PT_EINVAL, "ew: argument block of %d slots is too short for %d views and the constants", na,
                    (int)nviews);
  if (nconst < p->nconst_needed)
    return pt_error(PT_EINVAL, "ew: %d constants given, the program uses %d", (int)nconst, p->nconst_needed);

  ew_run *run = malloc(sizeof *run);
  if (!run) return pt_error(PT_EOOM, "ew: out of memory");
  cpu_view cv[EW_MAX_INPUTS + 1];
  for (int v = 0; v < nviews; v++) {
    char what[32];
    if (v) snprintf(what, sizeof what, "ew input %d", v - 1);
    else snprintf(what, sizeof what, "ew output");
    const double *slots = a + 10 + v * PT_VIEW_SLOTS;
    if ((st = cpu_view_parse(bufs, nbuf, slots, (int)rank, shape, 0, NULL, NULL, what, &cv[v]))) { free(run); return st; }
    ew_view *ev = &run->views[v];
    ev->base = cv[v].base; ev->dtype = cv[v].dtype; ev->esize = pt_dtype_size[cv[v].dtype];
    ev->offset = cv[v].offset; ev->buf = (int)slots[0];
  }
  run->p = p;
  run->consts = a + const_slot + 1;
  run->numel = cpu_numel((int)rank, shape);
  if (run->numel == 0) { free(run); return 0; }
  ew_merge_dims(run, (int)rank, shape, cv, (int)nviews);

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
  int oom = atomic_load(&run->out_of_memory);
  free(run);
  if (oom) return pt_error(PT_EOOM, "ew: out of memory for register blocks");
  if (failed_at == INT64_MAX) return 0;
  static const char *const why[4] = {"", "integer division by zero", "integer modulo by zero",
                                     "integer power with a negative exponent"};
  return pt_error(PT_EKERNEL, "ew: %s at element %lld", why[failed_at % 4], (long long)(failed_at / 4));
}
