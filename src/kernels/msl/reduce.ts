/**
 * reduce (ROW launches: one threadgroup of 256 per output row, rows group.x,
 * +groups.x, ...). Blocks and rules are blocks.h's; the CPU versions are reduce.c /
 * reduce_ops.h, the CUDA ones cuda/reduce.ts.
 *
 * Where the CPU accumulates floats in double, these accumulate in float-float (df.ts):
 * sums, products, means, the two passes of var/std, and the running value of cumsum and
 * cumprod carry ~48 significant bits, so a result rounded to f32 equals the CPU's except
 * where the double lies within ~2^-47 (relative) of a float midpoint; in reductions the
 * summation order differs from the CPU's too (a fixed tree over 256 partial sums), which
 * at 48 bits is below f32's resolution unless the sum cancels heavily. Integers
 * accumulate in int64 with wrap, exactly. Counts test the bits (a subnormal is nonzero).
 */
import { KERNEL_HEAD } from "./preamble.ts";
import { REDUCE_ACC } from "../templates/reduce.ts";

/**
 * reduce: threads stride over the row's inner extent (row-major over the inner dims) with
 * a private accumulator, then fold the 256 accumulators in threadgroup memory as a fixed
 * tree, so a result never depends on timing. argmax/argmin carry the position, and the
 * fold breaks ties by the lower position (first occurrence); the first NaN wins for both.
 *
 * The passes read a row through an element source S (templates): the overloads
 * pt_src_df/i/nz(src, k) give inner position k as pt_ld_df, pt_ld_i and
 * pt_is_nonzero would load it. The reduce template's source is a VIEW (pt_view_row);
 * ewreduce's is the expression's values (elementwise.ts renderEwReduce), which then go
 * through the same folds in the same order as over the materialized expression.
 * REDUCE_CORE is what both kernels share.
 */
export const REDUCE_CORE = REDUCE_ACC + String.raw`
/* The reduce template's element source: inner position k of a VIEW's row is at element
 * io + offset(k) (flat: the inner dims were coalesced into the last one). */
typedef struct {
  pt_view v;
  long io;
  const thread long *ishape;
  const thread long *istr;
  bool flat;
} pt_view_row;
inline long pt_row_off(const thread pt_view_row &r, long k) {
  return r.io + (r.flat ? k * r.istr[PT_MAX_RANK - 1] : pt_offset_of(k, PT_MAX_RANK, r.ishape, r.istr));
}
inline pt_df pt_src_df(const thread pt_view_row &r, long k) { return pt_ld_df(r.v.b, r.v.dt, pt_row_off(r, k)); }
inline long pt_src_i(const thread pt_view_row &r, long k) { return pt_ld_i(r.v.b, r.v.dt, pt_row_off(r, k)); }
inline bool pt_src_nz(const thread pt_view_row &r, long k) { return pt_is_nonzero(r.v.b, r.v.dt, pt_row_off(r, k)); }

/* One pass over a row of n inner positions, read from src. */
template <class S>
inline pt_acc pt_reduce_pass(const thread S &src, int kind, bool fl, long n, pt_df mean, threadgroup pt_acc *sh, uint lid) {
  pt_acc s = pt_acc_init(kind);
  for (long k = lid; k < n; k += PT_BLOCK) {
    if (kind == K_COUNT) s.i += pt_src_nz(src, k) ? 1 : 0; /* by the bits: Metal flushes subnormals */
    else if (fl) pt_acc_add_f(s, kind, pt_src_df(src, k), k, mean);
    else pt_acc_add_i(s, kind, pt_src_i(src, k), k);
  }
  sh[lid] = s;
  PT_BARRIER;
  for (uint w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (lid < w) sh[lid] = pt_acc_merge(sh[lid], sh[lid + w], kind, fl);
    PT_BARRIER;
  }
  const pt_acc r = sh[0];
  PT_BARRIER; /* sh is reused by the next pass */
  return r;
}

/* One row of the block's op (slot 0; ddof: slot 1, both blocks'): n positions read from src
 * (fsrc: its elements are floats), the result stored at element oo of out by thread 0. */
template <class S>
inline void pt_reduce_row(PT_CTX const thread S &src, bool fsrc, long n,
                          pt_view vout, long oo, threadgroup pt_acc *sh, uint lid) {
  const int op = (int)PT_A(0);
  if (n == 0) {
    if (lid == 0) pt_reduce_empty(PT_PASS op, vout, oo);
    return;
  }
  const bool fl = fsrc || op == R_VAR || op == R_STD;
  pt_df mean = pt_df_of(0.0f);
  if (op == R_VAR || op == R_STD) mean = pt_df_div(pt_reduce_pass(src, K_SUM, fl, n, mean, sh, lid).f, pt_df_of_long(n));
  const pt_acc s = pt_reduce_pass(src, pt_kind_of(op, true), fl, n, mean, sh, lid);
  if (lid == 0) pt_reduce_store(PT_PASS op, s, fl, n, vout, oo);
}
`;

/** The reduce template: REDUCE_CORE over a VIEW's rows. */
export const REDUCE = REDUCE_CORE + String.raw`
/* reduce [op, ddof, orank, oshape x8, irank, ishape x8, IN VIEW (outer strides),
 *         in inner stride x8, OUT VIEW (outer strides)]; ROW launch over the outputs. */
${KERNEL_HEAD}
  threadgroup pt_acc sh[PT_BLOCK];
  const int orank = (int)PT_A(2);
  /* Inner dims past irank are size 1 (stride 0), which leaves the row-major position ->
   * offset map unchanged, so offsets are taken over all 8 dims. */
  const int irank = (int)PT_A(11);
  long oshape[PT_MAX_RANK], ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  const long onum = pt_shape_at(p, 3, orank, oshape);
  const long n = pt_shape_at(p, 12, irank, ishape);
  for (int d = 0; d < PT_MAX_RANK; d++) istr[d] = d < irank ? PT_A(31 + d) : 0;
  /* Coalesce: move size-1 dims outward and merge dims that are contiguous with the next;
   * neither changes the row-major position -> offset map, so argmax's answer is kept. */
  for (int d = 1; d < PT_MAX_RANK; d++) {
    if (ishape[d] == 1) {
      ishape[d] = ishape[d - 1];
      istr[d] = istr[d - 1];
      ishape[d - 1] = 1;
    } else if (ishape[d - 1] == 1 || istr[d - 1] == istr[d] * ishape[d]) {
      ishape[d] *= ishape[d - 1];
      ishape[d - 1] = 1;
    }
  }
  bool flat = true;
  for (int d = 0; d < PT_MAX_RANK - 1; d++) flat = flat && ishape[d] == 1;
  const pt_view vin = pt_view_at(p, B, 20), vout = pt_view_at(p, B, 39);
  for (long row = group.x; row < onum; row += groups.x) {
    const pt_view_row src = {vin, vin.off + pt_offset_of(row, orank, oshape, vin.st), ishape, istr, flat};
    pt_reduce_row(PT_PASS src, pt_is_float(vin.dt), n, vout, vout.off + pt_offset_of(row, orank, oshape, vout.st), sh, lid);
  }
}
`;
