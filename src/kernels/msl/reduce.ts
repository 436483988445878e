/**
 * reduce (templates/reduce_rows.ts) in Metal: the CPU versions are reduce.c / reduce_ops.h.
 *
 * Where the CPU accumulates floats in double, these accumulate in float-float (df.ts):
 * sums, products, means, the two passes of var/std, and the running value of cumsum and
 * cumprod carry ~48 significant bits, so a result rounded to f32 equals the CPU's except
 * where the double lies within ~2^-47 (relative) of a float midpoint; in reductions the
 * summation order differs from the CPU's too (a fixed tree over 256 partial sums), which
 * at 48 bits is below f32's resolution unless the sum cancels heavily. Integers
 * accumulate in int64 with wrap, exactly. Counts test the bits (a subnormal is nonzero).
 */
import { MSL_DIALECT } from "./preamble.ts";
import { REDUCE_ACC } from "../templates/reduce.ts";
import { GROUP_FOLD, reduceKernel, type ReducePlan, rowPasses } from "../templates/reduce_rows.ts";

/** Metal's passes: generic over the source; one position at a time (float-float arithmetic, not loads, bounds them); no vectorised pass. */
export const MSL_REDUCE: ReducePlan = {
  generic: "template <class S>\n",
  source: "S",
  unroll: "1",
  fast: false,
  sharedInner: false,
  blockOffsets: false,
};

/**
 * The element sources: the overloads pt_src_df/i/nz(src, k) give inner position k as
 * pt_ld_df, pt_ld_i and pt_is_nonzero would load it. The reduce template's source is a
 * VIEW (pt_view_row); ewreduce's is the expression's values (elementwise.ts
 * renderEwReduce), which then go through the same folds in the same order as over the
 * materialized expression. REDUCE_CORE is what both kernels share.
 */
export const REDUCE_CORE = REDUCE_ACC + GROUP_FOLD + String.raw`
/* Inner position k of a VIEW's row is at element io + offset(k) (flat: the inner dims were coalesced into the last one). */
typedef struct {
  pt_ptr b;
  int dt;
  long io;
  const thread long *ishape;
  const thread long *istr;
  bool flat;
} pt_view_row;
inline long pt_row_off(const thread pt_view_row &r, long k) {
  return r.io + (r.flat ? k * r.istr[PT_MAX_RANK - 1] : pt_offset_of(k, PT_MAX_RANK, r.ishape, r.istr));
}
inline pt_df pt_src_df(const thread pt_view_row &r, long k) { return pt_ld_df(r.b, r.dt, pt_row_off(r, k)); }
inline long pt_src_i(const thread pt_view_row &r, long k) { return pt_ld_i(r.b, r.dt, pt_row_off(r, k)); }
inline bool pt_src_nz(const thread pt_view_row &r, long k) { return pt_is_nonzero(r.b, r.dt, pt_row_off(r, k)); }

template <class S> inline bool pt_row_flat(const thread S &) { return false; }
template <class S> inline void pt_row_add(const thread S &src, thread pt_acc &s, int kind, bool fl, long k, pt_df mean) {
  if (kind == K_COUNT) s.i += pt_src_nz(src, k) ? 1 : 0; /* by the bits: Metal flushes subnormals */
  else if (fl) pt_acc_add_f(s, kind, pt_src_df(src, k), k, mean);
  else pt_acc_add_i(s, kind, pt_src_i(src, k), k);
}
template <class S> inline void pt_row_step(const thread S &src, thread pt_acc &s, int kind, bool fl, long k, pt_df mean) {
  pt_row_add(src, s, kind, fl, k, mean);
}
${rowPasses(MSL_REDUCE)}
/* ewreduce's call (elementwise.ts): the block's op (PT_EWREDUCE_OP), fsrc: the source's elements are floats. */
template <class S>
inline void pt_reduce_row(PT_CTX const thread S &src, bool fsrc, long n, pt_view vout, long oo, threadgroup pt_acc *sh, uint lid, bool one) {
  const int op = (int)PT_A(PT_EWREDUCE_OP);
  pt_reduce_row(PT_PASS sh, src, op, pt_kind_of(op, true), fsrc || op == R_VAR || op == R_STD, false, n, vout, oo, int(lid), one);
}
`;

/** The reduce template: REDUCE_CORE over a VIEW's rows. */
export const REDUCE = REDUCE_CORE + reduceKernel(MSL_DIALECT, MSL_REDUCE);
