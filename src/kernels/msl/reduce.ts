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

/**
 * reduce: threads stride over the row's inner extent (row-major over the inner dims) with
 * a private accumulator, then fold the 256 accumulators in threadgroup memory as a fixed
 * tree, so a result never depends on timing. argmax/argmin carry the position, and the
 * fold breaks ties by the lower position (first occurrence); the first NaN wins for both.
 *
 * The passes read a row through an element source S (templates): the overloads
 * pt_src_df/f/i/nz(src, k) give inner position k as pt_ld_df, pt_ld_f, pt_ld_i and
 * pt_is_nonzero would load it. The reduce template's source is a VIEW (pt_view_row);
 * ewreduce's is the expression's values (elementwise.ts renderEwReduce), which then go
 * through the same folds in the same order as over the materialized expression.
 * REDUCE_CORE is what both kernels share.
 */
export const REDUCE_CORE = String.raw`
enum { R_SUM, R_PROD, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_ANY, R_ALL, R_MEAN, R_VAR, R_STD, R_COUNT };
enum { K_SUM, K_SQDEV, K_PROD, K_MAX, K_MIN, K_ARGMAX, K_ARGMIN, K_COUNT };

/* f: float value (max/min/arg use f.hi); i: int value or nonzero count; idx: arg position
 * (-1: none yet); nan: a float max/min saw a NaN. */
typedef struct {
  pt_df f;
  long i, idx;
  int nan;
} pt_acc;

inline int pt_kind_of(int op, int second_pass) {
  switch (op) {
  case R_PROD: return K_PROD;
  case R_MAX: return K_MAX;
  case R_MIN: return K_MIN;
  case R_ARGMAX: return K_ARGMAX;
  case R_ARGMIN: return K_ARGMIN;
  case R_ANY: case R_ALL: case R_COUNT: return K_COUNT;
  case R_VAR: case R_STD: return second_pass ? K_SQDEV : K_SUM;
  default: return K_SUM;
  }
}

inline void pt_acc_init(thread pt_acc &s, int kind) {
  s.f = pt_df_of(kind == K_PROD ? 1.0f : kind == K_MAX ? -PT_INF_F : kind == K_MIN ? PT_INF_F : 0.0f);
  s.i = kind == K_PROD ? 1 : kind == K_MAX ? PT_I64_MIN : kind == K_MIN ? PT_I64_MAX : 0;
  s.idx = -1;
  s.nan = 0;
}

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
inline float pt_src_f(const thread pt_view_row &r, long k) { return pt_ld_f(r.v.b, r.v.dt, pt_row_off(r, k)); }
inline long pt_src_i(const thread pt_view_row &r, long k) { return pt_ld_i(r.v.b, r.v.dt, pt_row_off(r, k)); }
inline bool pt_src_nz(const thread pt_view_row &r, long k) { return pt_is_nonzero(r.v.b, r.v.dt, pt_row_off(r, k)); }

/* The element at inner position pos (positions arrive in increasing order per thread). */
template <class S> inline void pt_acc_add_f(thread pt_acc &s, int kind, const thread S &src, long pos, pt_df mean) {
  if (kind == K_SUM) { s.f = pt_df_add(s.f, pt_src_df(src, pos)); return; }
  if (kind == K_SQDEV) {
    const pt_df d = pt_df_sub(pt_src_df(src, pos), mean);
    s.f = pt_df_add(s.f, pt_df_mul(d, d));
    return;
  }
  if (kind == K_PROD) { s.f = pt_df_mul(s.f, pt_src_df(src, pos)); return; }
  const float x = pt_src_f(src, pos);
  switch (kind) {
  case K_MAX: s.nan |= x != x; s.f.hi = x > s.f.hi ? x : s.f.hi; break;
  case K_MIN: s.nan |= x != x; s.f.hi = x < s.f.hi ? x : s.f.hi; break;
  default: /* K_ARGMAX, K_ARGMIN */
    if (s.idx < 0 || (kind == K_ARGMAX ? x > s.f.hi : x < s.f.hi) || (x != x && s.f.hi == s.f.hi)) { s.f.hi = x; s.idx = pos; }
  }
}

inline void pt_acc_add_i(thread pt_acc &s, int kind, long x, long pos) {
  switch (kind) {
  case K_SUM: s.i = (long)((ulong)s.i + (ulong)x); break;
  case K_PROD: s.i = (long)((ulong)s.i * (ulong)x); break;
  case K_MAX: s.i = x > s.i ? x : s.i; break;
  case K_MIN: s.i = x < s.i ? x : s.i; break;
  default: /* K_ARGMAX, K_ARGMIN */
    if (s.idx < 0 || (kind == K_ARGMAX ? x > s.i : x < s.i)) { s.i = x; s.idx = pos; }
  }
}

/* a = a folded with b, where both cover interleaved positions. */
inline void pt_acc_merge(thread pt_acc &a, pt_acc b, int kind, bool fl) {
  switch (kind) {
  case K_SUM: case K_SQDEV: case K_COUNT:
    a.f = pt_df_add(a.f, b.f);
    a.i = (long)((ulong)a.i + (ulong)b.i);
    break;
  case K_PROD:
    a.f = pt_df_mul(a.f, b.f);
    a.i = (long)((ulong)a.i * (ulong)b.i);
    break;
  case K_MAX: a.f.hi = b.f.hi > a.f.hi ? b.f.hi : a.f.hi; a.i = b.i > a.i ? b.i : a.i; a.nan |= b.nan; break;
  case K_MIN: a.f.hi = b.f.hi < a.f.hi ? b.f.hi : a.f.hi; a.i = b.i < a.i ? b.i : a.i; a.nan |= b.nan; break;
  default: {
    if (b.idx < 0) break;
    bool take;
    if (a.idx < 0) take = true;
    else if (fl) {
      const bool an = a.f.hi != a.f.hi, bn = b.f.hi != b.f.hi;
      if (an || bn) take = an && bn ? b.idx < a.idx : bn;
      else if (b.f.hi == a.f.hi) take = b.idx < a.idx;
      else take = kind == K_ARGMAX ? b.f.hi > a.f.hi : b.f.hi < a.f.hi;
    } else {
      take = b.i == a.i ? b.idx < a.idx : kind == K_ARGMAX ? b.i > a.i : b.i < a.i;
    }
    if (take) a = b;
  }
  }
}

/* One pass over a row of n inner positions, read from src. */
template <class S>
inline pt_acc pt_reduce_pass(const thread S &src, int kind, bool fl, long n, pt_df mean, threadgroup pt_acc *sh, uint lid) {
  pt_acc s;
  pt_acc_init(s, kind);
  for (long k = lid; k < n; k += PT_BLOCK) {
    if (kind == K_COUNT) s.i += pt_src_nz(src, k) ? 1 : 0;
    else if (fl) pt_acc_add_f(s, kind, src, k, mean);
    else pt_acc_add_i(s, kind, pt_src_i(src, k), k);
  }
  sh[lid] = s;
  PT_BARRIER;
  for (uint w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (lid < w) {
      pt_acc x = sh[lid];
      pt_acc_merge(x, sh[lid + w], kind, fl);
      sh[lid] = x;
    }
    PT_BARRIER;
  }
  const pt_acc r = sh[0];
  PT_BARRIER; /* sh is reused by the next pass */
  return r;
}

/* One row of the block's op (slot 0; ddof: slot 1, both blocks'): n positions read from src
 * (fsrc: its elements are floats), the result stored at element oo of out by thread 0. */
template <class S>
inline void pt_reduce_row(constant pt_mtl_params &p, device pt_mtl_error *err, const thread S &src, bool fsrc, long n,
                          pt_view vout, long oo, threadgroup pt_acc *sh, uint lid) {
  const int op = (int)PT_A(0);
  if (n == 0) { /* the op's identity; max/min/argmax/argmin have none */
    if (lid == 0) {
      if (op >= R_MAX && op <= R_ARGMIN) pt_fail(err, PT_KERR_COUNT, 1, 0, 0);
      else if (op == R_PROD || op == R_ALL) pt_st_i(vout.b, vout.dt, oo, 1);
      else if (op == R_MEAN || op == R_VAR || op == R_STD) pt_st_f(vout.b, vout.dt, oo, PT_NAN_F);
      else pt_st_i(vout.b, vout.dt, oo, 0);
    }
    return;
  }
  const bool fl = fsrc || op == R_VAR || op == R_STD;
  const pt_df nd = pt_df_of_long(n);
  pt_df mean = pt_df_of(0.0f);
  if (op == R_VAR || op == R_STD) mean = pt_df_div(pt_reduce_pass(src, K_SUM, fl, n, mean, sh, lid).f, nd);
  const pt_acc s = pt_reduce_pass(src, pt_kind_of(op, 1), fl, n, mean, sh, lid);
  if (lid != 0) return;
  switch (op) {
  case R_SUM: case R_PROD:
    if (fl) pt_st_df(vout.b, vout.dt, oo, s.f);
    else pt_st_i(vout.b, vout.dt, oo, s.i);
    break;
  case R_MAX: case R_MIN:
    if (fl) pt_st_f(vout.b, vout.dt, oo, s.nan ? PT_NAN_F : s.f.hi);
    else pt_st_i(vout.b, vout.dt, oo, s.i);
    break;
  case R_ARGMAX: case R_ARGMIN: pt_st_i(vout.b, vout.dt, oo, s.idx); break;
  case R_ANY: pt_st_i(vout.b, vout.dt, oo, s.i > 0 ? 1 : 0); break;
  case R_ALL: pt_st_i(vout.b, vout.dt, oo, s.i == n ? 1 : 0); break;
  case R_COUNT: pt_st_i(vout.b, vout.dt, oo, s.i); break;
  case R_MEAN: pt_st_df(vout.b, vout.dt, oo, pt_df_div(fl ? s.f : pt_df_of_long(s.i), nd)); break;
  default: { /* var, std: a divisor below zero is clamped to zero, as NumPy and PyTorch do */
    const pt_df ddof = PT_A(1) != 0 ? pt_df_of_long(PT_A(1)) : pt_df_of(PT_F(1));
    pt_df div = pt_df_sub(nd, ddof);
    if (!(div.hi > 0.0f)) div = pt_df_of(0.0f);
    const pt_df v = pt_df_div(s.f, div);
    pt_st_df(vout.b, vout.dt, oo, op == R_STD ? pt_df_sqrt(v) : v);
  }
  }
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
    pt_reduce_row(p, err, src, pt_is_float(vin.dt), n, vout, vout.off + pt_offset_of(row, orank, oshape, vout.st), sh, lid);
  }
}
`;
