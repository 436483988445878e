/* ew_compile.c: decoding and validating elementwise bytecode (kernels.h) into the form
 * ew.c runs (ew_program.h).
 *
 * Bytecode comes from callers, so everything is checked before anything runs: the header,
 * every op, type and index, that each register is written before it is read and read as
 * the type it holds, and that STORE comes last and once. A program that passes can only
 * fail at run time on its data (integer division by zero and the like).
 */
#include <stdlib.h>
#include "ew_program.h"

#define EW_MAGIC 0x50540001

static int ew_kind_of(int op) {
  if (op == EW_LOAD) return EW_K_LOAD;
  if (op == EW_CONST) return EW_K_CONST;
  if (op == EW_INDEX) return EW_K_INDEX;
  if (op == EW_CAST) return EW_K_CAST;
  if ((op >= EW_NEG && op <= EW_TRUNC) || (op >= EW_ERF && op <= EW_LOG10)) return EW_K_UNARY;
  if (op >= EW_NOT && op <= EW_NONZERO) return EW_K_PREDICATE;
  if ((op >= EW_ADD && op <= EW_MIN) || (op >= EW_ATAN2 && op <= EW_SHR)) return EW_K_BINARY;
  if (op >= EW_EQ && op <= EW_XOR) return EW_K_COMPARE;
  if (op == EW_WHERE) return EW_K_WHERE;
  if (op == EW_STORE) return EW_K_STORE;
  return EW_K_UNKNOWN;
}

/* Transcendental and reciprocal ops have no integer meaning; the encoder promotes first. */
static int ew_float_only(int op) {
  return (op >= EW_RECIP && op <= EW_TANH) || op == EW_SIGMOID || op == EW_GELU || (op >= EW_ERF && op <= EW_LOG10) ||
         op == EW_ATAN2 || op == EW_HYPOT;
}

/* Bitwise ops have no float meaning. */
static int ew_int_only(int op) {
  return op >= EW_BITAND && op <= EW_SHR;
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
  int reg_type[EW_MAX_REGS], last_writer[EW_MAX_REGS];
  for (int r = 0; r < EW_MAX_REGS; r++) reg_type[r] = last_writer[r] = -1;
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
    if (in->ctype <= EW_F64 && ew_int_only(in->op))
      return pt_error(PT_EINVAL, "ew bytecode: instruction %d: op %d needs an integer ctype, not %s", i, in->op,
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
      in->a_from = last_writer[in->a];
      in->b_from = last_writer[in->b];
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
    last_writer[in->dst] = i;
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

/* Assigns register blocks (see the top of the file). Blocks [0, nuniform) belong to the
 * distinct (CONST index or input, type) sources, up to EW_MAX_UNIFORM of them; any beyond
 * run per block like other ops. The rest form a pool in which a register holds at most one
 * block; nregs + 1 blocks are enough for a destination that is also an operand to take a
 * free block. */
static void ew_assign_blocks(cpu_ew_program *p) {
  int source_kind[EW_MAX_UNIFORM], source_index[EW_MAX_UNIFORM], source_type[EW_MAX_UNIFORM], nuniform = 0;
  for (int i = 0; i < p->ninstr - 1; i++) {
    ew_instr *in = &p->ins[i];
    if (in->kind != EW_K_LOAD && in->kind != EW_K_CONST) continue;
    int u = 0;
    while (u < nuniform && !(source_kind[u] == in->kind && source_index[u] == in->a && source_type[u] == in->ctype)) u++;
    if (u == nuniform && nuniform < EW_MAX_UNIFORM) {
      source_kind[u] = in->kind; source_index[u] = in->a; source_type[u] = in->ctype;
      nuniform++;
    }
    if (u < nuniform) { in->once = 1; in->block = u; }
  }
  int pool_block_of[EW_MAX_REGS], in_use[EW_MAX_REGS + 1] = {0}, pool_size = 0;
  for (int r = 0; r < EW_MAX_REGS; r++) pool_block_of[r] = -1;
  for (int i = 0; i < p->ninstr - 1; i++) {
    ew_instr *in = &p->ins[i];
    int *held = &pool_block_of[in->dst];
    if (in->once) { /* the register moves to a uniform block */
      if (*held >= 0) in_use[*held] = 0;
      *held = -1;
      continue;
    }
    if (*held < 0 || ew_reads(in, in->dst)) {
      int free_block = 0;
      while (in_use[free_block]) free_block++;
      if (*held >= 0) in_use[*held] = 0;
      in_use[free_block] = 1;
      *held = free_block;
      if (free_block >= pool_size) pool_size = free_block + 1;
    }
    in->block = nuniform + *held;
  }
  p->ins[p->ninstr - 1].block = -1;
  p->nblocks = nuniform + pool_size;
  p->elem_bytes = 4;
  for (int i = 0; i < p->ninstr; i++)
    if (p->ins[i].ctype == EW_F64 || p->ins[i].ctype == EW_I64) p->elem_bytes = 8;
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
    in->kind = ew_kind_of(in->op); in->once = 0; in->block = -1; in->a_from = in->b_from = -1;
  }
  int st = ew_validate(p);
  if (st) { free(p); return st; }
  ew_assign_blocks(p);
  *out = p;
  return 0;
}

void cpu_ew_free(cpu_ew_program *p) { free(p); }
