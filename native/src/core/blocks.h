/* blocks.h: the argument blocks of every program kind, the same for every backend, and a
 * host-side check of a block against its buffers for drivers whose kernels cannot fail
 * safely on a bad view (a GPU reading past a buffer kills the context).
 *
 * Ownership and ordering. Pure functions over the block and the buffer sizes; nothing is
 * kept. A driver calls pt_block_check() before it queues a launch, so a block that is
 * malformed, or whose views leave their buffers, fails with PT_EINVAL and nothing runs.
 *
 * Every block below follows pt_launch's [nbuf, handles...] prefix, which the core strips:
 * `bufs` is the resolved buffer array and `a` the rest of the block. Slots are doubles
 * holding integers. A VIEW is 11 slots: [buf index, dtype, offset (elements), stride x 8]
 * (strides in elements, may be 0 or negative; unused trailing strides are 0). Shapes are
 * 8 slots padded with 1. Kernels check every view against its buffer's size (lowest and
 * highest element touched) and return PT_EINVAL through pt_error() instead of reading
 * out of bounds. The slot of every field comes from one table, src/kernels/slots.ts, which
 * generates slots.h (PT_<KIND>_<FIELD>, used by C) and the same names in every kernel
 * language and fills blocks in TypeScript: a layout change is an edit of that table.
 *
 *   ew       [rank, shape x8, nviews, VIEW x nviews (view 0 = output), nconst, const x nconst]
 *            program source = elementwise bytecode (below).
 *   reduce   [op, ddof, orank, oshape x8, irank, ishape x8, IN VIEW (outer strides),
 *             in inner stride x8, OUT VIEW (outer strides)]
 *            op: 0 sum 1 prod 2 max 3 min 4 argmax 5 argmin 6 any 7 all 8 mean 9 var 10 std
 *            11 count_nonzero. Floats accumulate in double, ints in int64. argmax/argmin give
 *            the row-major index within the inner dims, first occurrence; NaN is the largest
 *            for max/argmax and the smallest for min/argmin (NaN propagates, as in PyTorch).
 *            An empty inner extent: sum 0, prod 1, any 0, all 1, count 0, mean/var/std NaN,
 *            max/min/argmax/argmin PT_EINVAL. var/std divide by (n - ddof).
 *   scan     [op, orank, oshape x8, n, IN VIEW (outer strides), in axis stride,
 *             OUT VIEW (outer strides), out axis stride]      op: 0 cumsum 1 cumprod
 *   matmul   [brank, bshape x8, M, N, K, A VIEW (batch strides), a row stride, a col stride,
 *             B VIEW, b row stride, b col stride, C VIEW, c row stride, c col stride, tf32]
 *            A, B, C share one dtype: f32, f64, i32 or i64, or f16/bf16 where the device has
 *            "matmul_half" (products accumulate in f32; the caller casts the rest). tf32 = 1
 *            lets a vendor BLAS round f32 operands to TF32 (setMatmulPrecision "high");
 *            a kernel may ignore it and stay exact.
 *   sort     [descending, orank, oshape x8, n, IN VIEW, in axis stride, VALS VIEW,
 *             vals axis stride, IDX VIEW (int64), idx axis stride]
 *            stable; NaN sorts above every number (last ascending, first descending).
 *   gather   [rank, shape x8 (of index = of output), axis, axis size, mode, IN VIEW,
 *             IDX VIEW, OUT VIEW]    out[p] = in[p with p[axis] = idx[p]]
 *   scatter  [rank, shape x8 (of index), axis, axis size, mode, reduce, OUT VIEW, IDX VIEW,
 *             SRC VIEW]   out[p with p[axis] = idx[p]] (=, +=, max=, min=) src[p], in
 *             row-major order of p, so overlapping writes are deterministic (last wins).
 *            reduce: 0 set 1 add 2 max 3 min.
 *   index_put [k, brank, bshape x8, rrank, rshape x8, mode, accumulate, dim sizes x8 (the k
 *             indexed dims), OUT: buf, dtype, offset, indexed-dim stride x8, rest stride x8,
 *             IDX VIEW x k (strides over bshape), VALS: buf, dtype, offset,
 *             b stride x8, rest stride x8]
 *            out[idx0[b], ..., idx(k-1)[b], r] (= or +=) vals[b, r]; row-major over (b, r).
 *   index_get  same block as index_put with accumulate = 0, but reads out[...] into vals.
 *   nonzero  [rank, shape x8, IN VIEW, OUT buf, count]   OUT is int64 [count, rank]
 *            contiguous, row-major order; count was measured first by the caller.
 *   masked_select [rank, shape x8, IN VIEW, MASK VIEW, OUT VIEW (1-D: stride 0 used), count]
 *   philox   [dist, seed lo, seed hi, offset, a, b, OUT VIEW (1-D: stride 0 used), n]
 *            dist: 0 uniform [a, b)  1 normal (mean a, std b)  2 randint [a, b)
 *            Element i: (w0..w3) = Philox4x32-10(counter = (lo32(offset+i), hi32(offset+i),
 *            0, 0), key = (seed lo, seed hi)). uniform: f64 out u = ((w0>>5)*2^26 +
 *            (w1>>6)) * 2^-53, other floats u = (w0>>8) * 2^-24; value = a + u*(b-a) in
 *            double, then stored. normal: u1 = ((w0>>8)+1) * 2^-24, u2 = (w1>>8) * 2^-24,
 *            z = sqrt(-2 ln u1) cos(2 pi u2), value = a + b*z. randint: a + ((w1<<32|w0) mod
 *            (b-a)) in uint64 arithmetic.
 *   ewreduce [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x
 *            (nviews - 1) (strides over shape), nconst, const x nconst]
 *            program source = elementwise bytecode, whose STORE names the value instead of
 *            writing view 0. A reduction of an elementwise expression (transform-reduce):
 *            let E be the contiguous tensor of `shape` that the ew program would write, of
 *            the dtype of STORE's ctype (f32, f64, i32 or i64; comparisons and logic give
 *            i32 0/1) in a buffer of its own. Row r < rows is E's elements [start + r *
 *            rowlen, start + (r + 1) * rowlen), and its result goes to OUT at offset + r *
 *            OUT's stride 0 (OUT's other strides are 0). op, ddof and every rule are
 *            reduce's, and a backend reduces each row in exactly the order its reduce
 *            kernel walks that row of E (one inner dim of stride 1, with
 *            outer dims [rows] of stride rowlen when rows > 1), E's buffer starting at an
 *            address aligned to 256 bytes, so a fused result is bit for bit the unfused one.
 *   attention [brank, bshape x8, L, S, E, Ev, scale (f32 bits), causal, masked, then Q, K, V, MASK
 *            and OUT, each a VIEW (batch strides) with its row and col strides]
 *            out[b, i, :] = softmax_j(scale * q[b, i, :] . k[b, j, :] + mask[b, i, j]) v[b, j, :]
 *            over j < S (j <= i when causal; mask only when masked, else MASK is not read).
 *            All f32; E, Ev <= 128. Rows of queries are independent (a ROW launch over
 *            batch x ceil(L / 64) tiles); a row with no key left is NaN, as 0 / 0.
 *   rownorm [op, orank, oshape x8, n, eps (f32 bits), affine, IN VIEW (outer strides), in stride,
 *            W VIEW, w stride, B VIEW, b stride, OUT VIEW (outer strides), out stride]
 *            Each row (an index of oshape) of n f32 elements x_k (IN at its outer offset
 *            plus k * in stride) gives OUT's row: op 0 softmax exp(x_k - m) / sum exp(x - m)
 *            (m the row max), 1 logSoftmax (x_k - m) - log(sum exp(x - m)), 2 layerNorm
 *            (x_k - mean) / sqrt(var + eps) (biased var), 3 rmsNorm x_k / sqrt(mean(x^2) + eps);
 *            2 and 3 then times w_k (affine bit 1) and plus b_k (affine bit 2), W and B
 *            the same for every row (their outer strides are 0), read only when their
 *            bit is set. A row holding +inf, only -inf, or a NaN is NaN (softmax forms), as
 *            PyTorch. All f32; ROW launch over the rows.
 *   im2col  [N, C, H, W, kH, kW, stride h, w, padding h, w, dilation h, w, OH, OW, IN VIEW (over
 *            [N, C, H, W]), OUT VIEW (over [N, C, kH * kW, OH * OW])]
 *            out[n, c, i * kW + j, oy * OW + ox] = in[n, c, oy * sh - ph + i * dh, ox * sw - pw + j * dw],
 *            0 where that position is outside [0, H) x [0, W): a convolution's columns. All f32; a
 *            ROW launch over the N * C planes; OH * OW and H, W < 2^31.
 *   mode (gather, scatter, index_put): 0 error (negative indices count from the end; outside
 *   [-size, size) is PT_EKERNEL naming the index, axis and size), 1 clamp, 2 wrap (modulo).
 *   Index views may be int32 or int64; values are normalized as int64 before any use.
 *
 * Elementwise bytecode (int32 little-endian words): [magic 0x50540001, ninputs, nregs,
 * ninstr], then ninstr instructions of 6 words [op, ctype, dst, a, b, c]. Registers hold
 * blocks of one compute type: ctype 0 f32, 1 f64, 2 i32, 3 i64 (bool, u8, i8, i16 compute as i32;
 * f16, bf16 as f32). For comparisons, predicates and logic ops ctype is the operand type
 * and the result register is i32 (0/1).
 *   0 LOAD   dst = view (a+1), converted to ctype      1 CONST dst = const[a] as ctype
 *   2 INDEX  dst = row-major linear index of the output element
 *   3 CAST   dst(ctype) = reg a of ctype b (float->int truncates, NaN -> 0, saturates;
 *            int->u8, i8, i16 storage keeps the low bits)
 *   10 NEG 11 ABS 12 SIGN 13 SQUARE 14 RECIP 15 EXP 16 EXP2 17 LOG 18 LOG2 19 LOG1P
 *   20 SQRT 21 RSQRT 22 SIN 23 COS 24 TAN 25 TANH 26 SIGMOID 27 RELU 28 GELU (erf form)
 *   29 FLOOR 30 CEIL 31 ROUND (half to even) 32 TRUNC
 *   33 NOT 34 ISNAN 35 ISINF 36 ISFINITE 37 NONZERO (NaN is nonzero)   -> i32 0/1
 *   38 ERF 39 ERFC 40 EXPM1 41 ASIN 42 ACOS 43 ATAN 44 SINH 45 COSH 46 ASINH 47 ACOSH
 *   48 ATANH 49 LOG10 (C99's functions, float only)
 *   50 ADD 51 SUB 52 MUL 53 DIV 54 POW 55 MOD (sign of divisor, Python's %) 56 MAX 57 MIN
 *   (MAX/MIN propagate NaN) 58 EQ 59 NE 60 LT 61 LE 62 GT 63 GE 64 AND 65 OR 66 XOR
 *   (58-66 -> i32 0/1; logic ops test nonzero)
 *   67 ATAN2 (a = y, b = x) 68 HYPOT (float only) 69 FMOD (C's: sign of the dividend;
 *   integer: truncated remainder) 70 FLOORDIV (float: Python's //, as PyTorch's
 *   div_floor_floating; b == 0 gives a / b; integer: DIV's floor division)
 *   71 BITAND 72 BITOR 73 BITXOR 74 SHL 75 SHR (integer only; W = the register's bit width:
 *   a count outside [0, W) shifts everything out, SHL giving 0 and SHR the sign fill, as
 *   PyTorch; SHR is arithmetic)
 *   80 WHERE  dst = reg a (i32) ? reg b : reg c
 *   90 STORE  view 0 = reg a converted to the output dtype; the last instruction.
 * Integer ADD/SUB/MUL/NEG/ABS wrap (two's complement); integer DIV is floor division;
 * integer DIV, MOD, FMOD or FLOORDIV by zero fail with PT_EKERNEL; integer POW with a negative exponent
 * truncates as PyTorch's powi does (1 for base 1, +-1 by parity for base -1, else 0).
 */
#ifndef PT_BLOCKS_H
#define PT_BLOCKS_H
#include <stddef.h>
#include <stdint.h>
#include "driver.h"

/* Program kinds, in the order above. */
enum { PT_K_EW, PT_K_REDUCE, PT_K_SCAN, PT_K_MATMUL, PT_K_SORT, PT_K_GATHER, PT_K_SCATTER, PT_K_INDEX_PUT,
       PT_K_INDEX_GET, PT_K_NONZERO, PT_K_MASKED_SELECT, PT_K_PHILOX, PT_K_EWREDUCE,
       PT_K_ATTENTION, PT_K_ROWNORM, PT_K_IM2COL, PT_K_COUNT };
/* The most features an attention block's query, key or value rows may have (a kernel holds a row in registers). */
#define PT_ATTENTION_MAX_E 128

/* The version of the block layouts above. Bump it whenever one of them changes: every
 * program records the layout it was built for (pt_layout), compiled programs cached on disk
 * carry it (program_cache.c), and an entry written for another version is named on stderr and
 * recompiled instead of launched. */
#define PT_BLOCK_ABI 5

/* The argument layout a program was built for, fixed when it is created: the block ABI, the
 * kind, the VIEWs its kernel reads (ew and ewreduce: 1 + its inputs, 0 = not declared; index_put and
 * index_get: 0, their block's k says) and the most buffers one launch may name (every buffer
 * of a block is some view's or slot's). pt_launch compares a block's nbuf, and an ew block's
 * view count, with it before anything runs (a few integer compares, no parse), and refuses a
 * mismatch with PT_EINVAL naming both; the full check of the block stays pt_block_check's
 * (GPU drivers) or the kernel's (CPU). */
typedef struct { int32_t abi, kind, views, bufs; } pt_layout;

/* The layout of a `kind` program (PT_K_*) whose caller declares `views` (0: the kind's own;
 * for ew, the bytecode header's inputs + 1 where the source is bytecode, else undeclared).
 * PT_OK, or PT_EINVAL naming the kind when views contradicts the kind or the bytecode. */
int pt_layout_make(int kind, int32_t views, const uint8_t *src, size_t len, pt_layout *out);
/* Text for diagnostics, e.g. "ew (2 inputs + output = 3 views, up to 3 buffers; block ABI 1)". */
const char *pt_layout_text(const pt_layout *l, char *buf, size_t cap);
/* Whether a and b describe the same layout. */
int pt_layout_same(const pt_layout *a, const pt_layout *b);

/* How a data-parallel device splits a kind's work (pt_block_check's *work counts it):
 *   ELEMENT: one thread per output element (work = elements of the output);
 *   ROW: one thread group per row of the outer shape (work = rows); a reduce, ewreduce or
 *        rownorm whose rows hold at most PT_SHORT_ROW positions (slots.h) folds one row a thread,
 *        so its work is ceil(rows / PT_GROUP_THREADS);
 *   SERIAL: one thread group keeps the row-major write order (last writer wins). */
enum { PT_SHAPE_ELEMENT, PT_SHAPE_ROW, PT_SHAPE_SERIAL };
#define PT_GROUP_THREADS 256 /* every GPU driver's threads a group (the kernels' PT_BLOCK) */

int pt_program_kind(const char *name); /* PT_K_* or -1 */
/* A program's source as a renderer sends it, checked for the driver named `tag`: its kind's
 * PT_K_* in *k and a NUL-terminated copy in *text of *len bytes (a trailing NUL dropped; the
 * caller frees it). Empty source is refused, naming `needs` (what the driver compiles),
 * unless the kind is empty_ok (a kind the driver can run from a vendor library alone; -1: none). */
int pt_program_source(const char *tag, const char *kind, const uint8_t *src, size_t srclen, const char *needs, int empty_ok,
                      int *k, char **text, size_t *len);
const char *pt_program_kind_name(int kind); /* "?" when out of range */
int pt_program_kind_shape(int kind);

/* Codes a GPU kernel writes into its driver's error block (every backend's params.h uses
 * these; 0 = none), and the text a driver reports for one at the next synchronisation:
 * PT_EKERNEL naming the kinds launched since the last report that can write the code,
 * then `where` (the driver and device names, or NULL), then the details d[0..2]. */
#ifndef PT_KERR_INDEX
#define PT_KERR_INDEX 1   /* details: index value, axis, axis size */
#define PT_KERR_INT_DIV 2 /* details: element, 0 division / 1 modulo */
/* 3 is not reused: it meant a negative integer exponent, which truncates (powi) instead */
#define PT_KERR_COUNT 4   /* nonzero/masked_select: count differs; details: expected, found */
#endif
int pt_kernel_error(long long code, const long long d[3], uint32_t kinds_launched, const char *where);

/* The parsed matmul block, for drivers that hand products to a vendor BLAS. */
typedef struct {
  int brank, dtype, tf32;
  int64_t bshape[8], M, N, K, batch;
  int64_t off[3], bstride[3][8], rs[3], cs[3]; /* A, B, C: element offset, batch strides, row/col stride */
  int buf[3];
} pt_matmul_plan;

/* Checks the block of `kind` (sizes, every view against its buffer, with the CPU's
 * wording) and sets *work as pt_program_kind_shape() counts it (0 = nothing to do). mm is filled
 * for matmul and may be NULL otherwise. *writes gets a bit per buffer index the kind
 * writes (may be NULL), so a driver can order only real dependencies. */
int pt_block_check(int kind, const pt_mem_ref *bufs, int nbuf, const double *a, int na, int64_t *work,
                   pt_matmul_plan *mm, uint32_t *writes);

#endif
