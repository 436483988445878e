/* slots.h: the slot of every field of every argument block (blocks.h says what they mean).
 * Generated from src/kernels/slots.ts by `deno run --allow-write tools/gen_slots.ts`; do not edit.
 * Fields after a run of VIEWs are macros of the run's count. PT_<KIND>_SLOTS is a block's length
 * without a trailing run of constants (ew, ewreduce). */
#ifndef PT_SLOTS_H
#define PT_SLOTS_H
#define PT_MAX_RANK 8
#define PT_VIEW_SLOTS 11
#define PT_SHORT_ROW 32
/* view: buf, dtype, offset, strides */
#define PT_VIEW_BUF 0
#define PT_VIEW_DTYPE 1
#define PT_VIEW_OFFSET 2
#define PT_VIEW_STRIDES 3
/* ew: rank, shape, nviews, views x nviews, nconst, consts x nconst */
#define PT_EW_RANK 0
#define PT_EW_SHAPE 1
#define PT_EW_NVIEWS 9
#define PT_EW_VIEWS 10
#define PT_EW_NCONST(nviews) (10 + 11 * (nviews))
#define PT_EW_CONSTS(nviews) (11 + 11 * (nviews))
#define PT_EW_SLOTS(nviews) (11 + 11 * (nviews))
/* reduce: op, ddof, orank, oshape, irank, ishape, in, in_inner, out */
#define PT_REDUCE_OP 0
#define PT_REDUCE_DDOF 1
#define PT_REDUCE_ORANK 2
#define PT_REDUCE_OSHAPE 3
#define PT_REDUCE_IRANK 11
#define PT_REDUCE_ISHAPE 12
#define PT_REDUCE_IN 20
#define PT_REDUCE_IN_INNER 31
#define PT_REDUCE_OUT 39
#define PT_REDUCE_SLOTS 50
/* scan: op, orank, oshape, n, in, in_stride, out, out_stride */
#define PT_SCAN_OP 0
#define PT_SCAN_ORANK 1
#define PT_SCAN_OSHAPE 2
#define PT_SCAN_N 10
#define PT_SCAN_IN 11
#define PT_SCAN_IN_STRIDE 22
#define PT_SCAN_OUT 23
#define PT_SCAN_OUT_STRIDE 34
#define PT_SCAN_SLOTS 35
/* matmul: brank, bshape, m, n, k, a, a_rows, a_cols, b, b_rows, b_cols, c, c_rows, c_cols, tf32 */
#define PT_MATMUL_BRANK 0
#define PT_MATMUL_BSHAPE 1
#define PT_MATMUL_M 9
#define PT_MATMUL_N 10
#define PT_MATMUL_K 11
#define PT_MATMUL_A 12
#define PT_MATMUL_A_ROWS 23
#define PT_MATMUL_A_COLS 24
#define PT_MATMUL_B 25
#define PT_MATMUL_B_ROWS 36
#define PT_MATMUL_B_COLS 37
#define PT_MATMUL_C 38
#define PT_MATMUL_C_ROWS 49
#define PT_MATMUL_C_COLS 50
#define PT_MATMUL_TF32 51
#define PT_MATMUL_SLOTS 52
/* sort: descending, orank, oshape, n, in, in_stride, vals, vals_stride, idx, idx_stride */
#define PT_SORT_DESCENDING 0
#define PT_SORT_ORANK 1
#define PT_SORT_OSHAPE 2
#define PT_SORT_N 10
#define PT_SORT_IN 11
#define PT_SORT_IN_STRIDE 22
#define PT_SORT_VALS 23
#define PT_SORT_VALS_STRIDE 34
#define PT_SORT_IDX 35
#define PT_SORT_IDX_STRIDE 46
#define PT_SORT_SLOTS 47
/* gather: rank, shape, axis, size, mode, in, idx, out */
#define PT_GATHER_RANK 0
#define PT_GATHER_SHAPE 1
#define PT_GATHER_AXIS 9
#define PT_GATHER_SIZE 10
#define PT_GATHER_MODE 11
#define PT_GATHER_IN 12
#define PT_GATHER_IDX 23
#define PT_GATHER_OUT 34
#define PT_GATHER_SLOTS 45
/* scatter: rank, shape, axis, size, mode, reduce, out, idx, src */
#define PT_SCATTER_RANK 0
#define PT_SCATTER_SHAPE 1
#define PT_SCATTER_AXIS 9
#define PT_SCATTER_SIZE 10
#define PT_SCATTER_MODE 11
#define PT_SCATTER_REDUCE 12
#define PT_SCATTER_OUT 13
#define PT_SCATTER_IDX 24
#define PT_SCATTER_SRC 35
#define PT_SCATTER_SLOTS 46
/* index: k, brank, bshape, rrank, rshape, mode, accumulate, dims, out, out_rest, idx x k, vals, vals_rest */
#define PT_INDEX_K 0
#define PT_INDEX_BRANK 1
#define PT_INDEX_BSHAPE 2
#define PT_INDEX_RRANK 10
#define PT_INDEX_RSHAPE 11
#define PT_INDEX_MODE 19
#define PT_INDEX_ACCUMULATE 20
#define PT_INDEX_DIMS 21
#define PT_INDEX_OUT 29
#define PT_INDEX_OUT_REST 40
#define PT_INDEX_IDX 48
#define PT_INDEX_VALS(k) (48 + 11 * (k))
#define PT_INDEX_VALS_REST(k) (59 + 11 * (k))
#define PT_INDEX_SLOTS(k) (67 + 11 * (k))
/* nonzero: rank, shape, in, out, count */
#define PT_NONZERO_RANK 0
#define PT_NONZERO_SHAPE 1
#define PT_NONZERO_IN 9
#define PT_NONZERO_OUT 20
#define PT_NONZERO_COUNT 21
#define PT_NONZERO_SLOTS 22
/* masked_select: rank, shape, in, mask, out, count */
#define PT_MASKED_SELECT_RANK 0
#define PT_MASKED_SELECT_SHAPE 1
#define PT_MASKED_SELECT_IN 9
#define PT_MASKED_SELECT_MASK 20
#define PT_MASKED_SELECT_OUT 31
#define PT_MASKED_SELECT_COUNT 42
#define PT_MASKED_SELECT_SLOTS 43
/* philox: dist, seed_lo, seed_hi, offset, a, b, out, n */
#define PT_PHILOX_DIST 0
#define PT_PHILOX_SEED_LO 1
#define PT_PHILOX_SEED_HI 2
#define PT_PHILOX_OFFSET 3
#define PT_PHILOX_A 4
#define PT_PHILOX_B 5
#define PT_PHILOX_OUT 6
#define PT_PHILOX_N 17
#define PT_PHILOX_SLOTS 18
/* ewreduce: op, ddof, rank, shape, start, rows, rowlen, nviews, views x nviews, nconst, consts x nconst */
#define PT_EWREDUCE_OP 0
#define PT_EWREDUCE_DDOF 1
#define PT_EWREDUCE_RANK 2
#define PT_EWREDUCE_SHAPE 3
#define PT_EWREDUCE_START 11
#define PT_EWREDUCE_ROWS 12
#define PT_EWREDUCE_ROWLEN 13
#define PT_EWREDUCE_NVIEWS 14
#define PT_EWREDUCE_VIEWS 15
#define PT_EWREDUCE_NCONST(nviews) (15 + 11 * (nviews))
#define PT_EWREDUCE_CONSTS(nviews) (16 + 11 * (nviews))
#define PT_EWREDUCE_SLOTS(nviews) (16 + 11 * (nviews))
/* attention: brank, bshape, l, s, e, ev, scale_bits, causal, masked, q, q_rows, q_cols, k, k_rows, k_cols, v, v_rows, v_cols, mask, mask_rows, mask_cols, out, out_rows, out_cols */
#define PT_ATTENTION_BRANK 0
#define PT_ATTENTION_BSHAPE 1
#define PT_ATTENTION_L 9
#define PT_ATTENTION_S 10
#define PT_ATTENTION_E 11
#define PT_ATTENTION_EV 12
#define PT_ATTENTION_SCALE_BITS 13
#define PT_ATTENTION_CAUSAL 14
#define PT_ATTENTION_MASKED 15
#define PT_ATTENTION_Q 16
#define PT_ATTENTION_Q_ROWS 27
#define PT_ATTENTION_Q_COLS 28
#define PT_ATTENTION_K 29
#define PT_ATTENTION_K_ROWS 40
#define PT_ATTENTION_K_COLS 41
#define PT_ATTENTION_V 42
#define PT_ATTENTION_V_ROWS 53
#define PT_ATTENTION_V_COLS 54
#define PT_ATTENTION_MASK 55
#define PT_ATTENTION_MASK_ROWS 66
#define PT_ATTENTION_MASK_COLS 67
#define PT_ATTENTION_OUT 68
#define PT_ATTENTION_OUT_ROWS 79
#define PT_ATTENTION_OUT_COLS 80
#define PT_ATTENTION_SLOTS 81
/* im2col: n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, in, out */
#define PT_IM2COL_N 0
#define PT_IM2COL_C 1
#define PT_IM2COL_H 2
#define PT_IM2COL_W 3
#define PT_IM2COL_KH 4
#define PT_IM2COL_KW 5
#define PT_IM2COL_SH 6
#define PT_IM2COL_SW 7
#define PT_IM2COL_PH 8
#define PT_IM2COL_PW 9
#define PT_IM2COL_DH 10
#define PT_IM2COL_DW 11
#define PT_IM2COL_OH 12
#define PT_IM2COL_OW 13
#define PT_IM2COL_IN 14
#define PT_IM2COL_OUT 25
#define PT_IM2COL_SLOTS 36
/* rownorm: op, orank, oshape, n, eps_bits, affine, in, in_stride, w, w_stride, b, b_stride, out, out_stride */
#define PT_ROWNORM_OP 0
#define PT_ROWNORM_ORANK 1
#define PT_ROWNORM_OSHAPE 2
#define PT_ROWNORM_N 10
#define PT_ROWNORM_EPS_BITS 11
#define PT_ROWNORM_AFFINE 12
#define PT_ROWNORM_IN 13
#define PT_ROWNORM_IN_STRIDE 24
#define PT_ROWNORM_W 25
#define PT_ROWNORM_W_STRIDE 36
#define PT_ROWNORM_B 37
#define PT_ROWNORM_B_STRIDE 48
#define PT_ROWNORM_OUT 49
#define PT_ROWNORM_OUT_STRIDE 60
#define PT_ROWNORM_SLOTS 61
#endif
