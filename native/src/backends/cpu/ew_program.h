/* ew_program.h: the compiled form of elementwise bytecode, shared by ew_compile.c, which
 * builds it, and ew.c, which runs it (private to those two files).
 *
 * Registers and blocks. The interpreter runs each instruction over a block of elements at
 * a time, so a register's value lives in a block of memory. Blocks are assigned at compile
 * time so that an instruction never writes a block it also reads (every op loop can then
 * take restrict pointers, even for `r1 = r1 + r2`). A CONST, or a LOAD of a view that turns
 * out to be one broadcast value, holds the same data in every block, so its block can be
 * filled once per thread; for that, each distinct constant or input gets a block nothing
 * else writes ("once"), whichever register it lands in. The other results share a pool.
 */
#ifndef PT_CPU_EW_PROGRAM_H
#define PT_CPU_EW_PROGRAM_H
#include "kernels.h"

#define EW_MAX_REGS 32
#define EW_MAX_INPUTS 64
#define EW_MAX_UNIFORM 16 /* constants and inputs that get a block of their own */

enum ew_ctype { EW_F32 = 0, EW_F64 = 1, EW_I32 = 2, EW_I64 = 3 };

enum ew_opcode {
  EW_LOAD = 0, EW_CONST = 1, EW_INDEX = 2, EW_CAST = 3,
  EW_NEG = 10, EW_ABS, EW_SIGN, EW_SQUARE, EW_RECIP, EW_EXP, EW_EXP2, EW_LOG, EW_LOG2, EW_LOG1P,
  EW_SQRT = 20, EW_RSQRT, EW_SIN, EW_COS, EW_TAN, EW_TANH, EW_SIGMOID, EW_RELU, EW_GELU,
  EW_FLOOR = 29, EW_CEIL, EW_ROUND, EW_TRUNC,
  EW_NOT = 33, EW_ISNAN, EW_ISINF, EW_ISFINITE, EW_NONZERO,
  EW_ERF = 38, EW_ERFC, EW_EXPM1, EW_ASIN, EW_ACOS, EW_ATAN, EW_SINH, EW_COSH, EW_ASINH, EW_ACOSH, EW_ATANH,
  EW_LOG10 = 49,
  EW_ADD = 50, EW_SUB, EW_MUL, EW_DIV, EW_POW, EW_MOD, EW_MAX, EW_MIN,
  EW_EQ = 58, EW_NE, EW_LT, EW_LE, EW_GT, EW_GE, EW_AND, EW_OR, EW_XOR,
  EW_ATAN2 = 67, EW_HYPOT, EW_FMOD, EW_FLOORDIV, EW_BITAND, EW_BITOR, EW_BITXOR, EW_SHL, EW_SHR,
  EW_WHERE = 80, EW_STORE = 90
};

enum ew_kind { EW_K_LOAD, EW_K_CONST, EW_K_INDEX, EW_K_CAST, EW_K_UNARY, EW_K_PREDICATE,
               EW_K_BINARY, EW_K_COMPARE, EW_K_WHERE, EW_K_STORE, EW_K_UNKNOWN };

/* One decoded instruction: the bytecode's six words plus what compiling worked out. */
typedef struct {
  int op, kind, ctype, dst, a, b, c;
  int src_type; /* the type of the register(s) read: b for CAST, else ctype */
  int block;    /* register block written, or -1 for STORE */
  int a_from, b_from; /* the instructions that wrote registers a and b (binary ops), or -1 */
  int once;     /* CONST or LOAD with a block of its own: may run once per thread */
} ew_instr;

struct cpu_ew_program {
  int ninputs, nregs, ninstr, nblocks;
  int elem_bytes;    /* of the widest compute type used: the register block's element */
  int nconst_needed; /* 1 + the largest CONST index */
  ew_instr ins[];
};

#endif
