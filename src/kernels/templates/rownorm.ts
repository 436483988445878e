/**
 * rownorm written once (ROW launch; the CPU's is rownorm.c): softmax, logSoftmax, layerNorm and rmsNorm of each row, a
 * group of PT_BLOCK invocations a row (an invocation a row for rows of at most PT_SHORT_ROW). Invocation tid owns positions tid, tid + PT_BLOCK, ..., which each pass reads with
 * ROWNORM_STEP loads issued at a time, and eight groups share a multiprocessor (the H200's best of steps 4 and 8 and
 * bounds 4 and 8); passes after the first find the row in cache (holding 16 positions an invocation in registers
 * instead measured slower: fewer groups fit). A pass folds the invocation's positions in
 * order into its statistic (softmax: a running maximum and the sum of exp rescaled to it, online; layerNorm: the sum,
 * then the squared deviations; rmsNorm: the sum of squares), the group folds those as a fixed tree in shared memory,
 * and the last pass writes the outputs. Sums are float32. NaN and infinities are tested for, not left to arithmetic
 * that a driver may compile without NaN (Vulkan drivers need not keep it).
 */
import type { Dialect } from "../dialect.ts";

/** The positions a pass loads before it uses them (a step), to keep enough reads in flight. */
export const ROWNORM_STEP = 8;

/** The rownorm kernel. */
export const rownorm = (d: Dialect): string =>
  String.raw`
#undef PT_RN_P
#define PT_RN_P ${ROWNORM_STEP}
PT_SHARED_GLOBAL(float, rm)
PT_SHARED_GLOBAL(float, rs)
/* Folds x into a running (m, s), s the sum of exp(x - m) so far: -inf adds nothing, a NaN makes s NaN for good. */
PT_FN void pt_rn_online(PT_INOUT(float) m, PT_INOUT(float) s, float x) {
  if (pt_f32_isnan(x) || pt_f32_isnan(s)) {
    s = pt_as_f32(0x7fc00000u);
  } else if (x > m) {
    s = s * pt_exp_f32(m - x) + 1.0f;
    m = x;
  } else if (x > pt_as_f32(0xff800000u)) {
    s += pt_exp_f32(x - m);
  }
}
/* Pass \`what\` folds x: 0 the online softmax, 1 adds x, 2 adds (x - c)^2, 3 adds x^2. */
PT_FN void pt_rn_add(int what, float x, float c, PT_INOUT(float) m, PT_INOUT(float) s) {
  if (what == 0) {
    pt_rn_online(m, s, x);
  } else {
    const float dx = what == 2 ? x - c : x;
    s += what == 1 ? x : dx * dx;
  }
}
/* One pass over n positions of a row at element io of buffer b, stride si, read from memory: this invocation's share,
 * or every position for a short row (one). */
PT_FN void pt_rn_pass(PT_PTR b, pt_i64 io, pt_i64 si, pt_i64 n, int what, float c, int tid, bool one, PT_INOUT(float) m,
                      PT_INOUT(float) s) {
  pt_i64 k = pt_i64(one ? 0 : tid);
  for (; !one && k + pt_i64((PT_RN_P - 1) * PT_BLOCK) < n; k += pt_i64(PT_RN_P * PT_BLOCK)) {
    float x[PT_RN_P];
    PT_UNROLL
    for (int u = 0; u < PT_RN_P; u++) x[u] = pt_raw_f32(b, io + (k + pt_i64(u * PT_BLOCK)) * si);
    PT_UNROLL
    for (int u = 0; u < PT_RN_P; u++) pt_rn_add(what, x[u], c, m, s);
  }
  const pt_i64 inc = pt_i64(one ? 1 : PT_BLOCK);
  for (; k < n; k += inc) pt_rn_add(what, pt_raw_f32(b, io + k * si), c, m, s);
}
/* The group's fixed tree over every invocation's (m, s) (online) or s; every invocation gets the result. */
PT_FN void pt_rn_fold(PT_SH(float, rm) PT_SH(float, rs) bool online, int tid, PT_INOUT(float) m, PT_INOUT(float) s) {
  rm[tid] = m;
  rs[tid] = s;
  PT_SYNC();
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) {
      if (online) {
        const float m1 = rm[tid], m2 = rm[tid + w], s1 = rs[tid], s2 = rs[tid + w], mx = m1 > m2 ? m1 : m2;
        /* an empty part (s = 0) adds nothing, even where its m is -inf */
        if (pt_f32_isnan(s1) || pt_f32_isnan(s2)) rs[tid] = pt_as_f32(0x7fc00000u);
        else rs[tid] = (s1 == 0.0f ? 0.0f : s1 * pt_exp_f32(m1 - mx)) + (s2 == 0.0f ? 0.0f : s2 * pt_exp_f32(m2 - mx));
        rm[tid] = mx;
      } else {
        rs[tid] = rs[tid] + rs[tid + w];
      }
    }
    PT_SYNC();
  }
  m = rm[0];
  s = rs[0];
  PT_SYNC(); /* rm and rs are reused by the next fold */
}
/* Output y of x: op 0 exp(x - m) / s, 1 (x - m) - c, 2 and 3 (x - c) * scale then weight and bias; NaN for a NaN row.
 * Each step rounds on its own (pt_sub, ...): a driver free to reassociate made (x - m) - c into x - (m + c). */
PT_FN float pt_rn_out(int op, int affine, bool nanrow, float x, float m, float s, float c, float scale, pt_view vw, pt_i64 sw,
                      pt_view vb, pt_i64 sb, pt_i64 k) {
  if (op == 0) return nanrow ? pt_as_f32(0x7fc00000u) : pt_div(pt_exp_f32(x - m), s);
  if (op == 1) return nanrow ? pt_as_f32(0x7fc00000u) : pt_sub(pt_sub(x, m), c);
  float y = pt_mul(pt_sub(x, c), scale);
  if ((affine & 1) != 0) y = pt_mul(y, pt_raw_f32(vw.b, vw.off + k * sw));
  if ((affine & 2) != 0) y = pt_add(y, pt_raw_f32(vb.b, vb.off + k * sb));
  return y;
}
/* rownorm [op, orank, oshape x8, n, eps (f32 bits), affine, IN VIEW, in stride, W VIEW, w stride, B VIEW, b stride,
 *          OUT VIEW, out stride]; ROW launch over the rows. */
${d.bounds(8)}${d.kernel}
  PT_SHARED_LOCAL(float, rm)
  PT_SHARED_LOCAL(float, rs)
  const int op = int(PT_A(PT_ROWNORM_OP)), orank = int(PT_A(PT_ROWNORM_ORANK)), affine = int(PT_A(PT_ROWNORM_AFFINE));
  pt_i64 oshape[PT_MAX_RANK];
  const pt_i64 rows = PT_SHAPE(PT_ROWNORM_OSHAPE, orank, oshape);
  const pt_i64 n = PT_A(PT_ROWNORM_N), si = PT_A(PT_ROWNORM_IN_STRIDE), so = PT_A(PT_ROWNORM_OUT_STRIDE);
  const pt_i64 sw = PT_A(PT_ROWNORM_W_STRIDE), sb = PT_A(PT_ROWNORM_B_STRIDE);
  const float eps = pt_as_f32(pt_u32(PT_A(PT_ROWNORM_EPS_BITS))), ninf = pt_as_f32(0xff800000u), pinf = pt_as_f32(0x7f800000u);
  const pt_view vin = PT_VIEW(PT_ROWNORM_IN), vw = PT_VIEW(PT_ROWNORM_W), vb = PT_VIEW(PT_ROWNORM_B), vout = PT_VIEW(PT_ROWNORM_OUT);
  const bool soft = op < 2;
  const int tid = PT_TID, first = soft ? 0 : op == 2 ? 1 : 3;
  /* Short rows take an invocation each, PT_BLOCK a group (blocks.h's ROW work): a tree over the group would idle most
   * of it and cost software drivers a barrier a step. Two loops, each with ONE a constant, keep every barrier out of
   * the short rows' loop, whose trip count differs between invocations: llvmpipe runs a barrier even under a mask
   * that is all off. */
  if (n <= pt_i64(PT_SHORT_ROW)) {
    for (pt_i64 row = pt_i64(PT_GROUP_ID) * PT_BLOCK + tid; row < rows; row += pt_i64(PT_GROUPS) * PT_BLOCK) {
${rowBody("true")}    }
  } else {
    for (pt_i64 row = pt_i64(PT_GROUP_ID); row < rows; row += pt_i64(PT_GROUPS)) {
${rowBody("false")}    }
  }
}
`;

/** One row's passes and outputs, `one` (a constant) telling whether this invocation has the row to itself. */
const rowBody = (one: string): string =>
  String
    .raw`      const pt_i64 io = vin.off + pt_offset_of(row, orank, oshape, vin.st), oo = vout.off + pt_offset_of(row, orank, oshape, vout.st);
      float m = soft ? ninf : 0.0f, s = 0.0f;
      pt_rn_pass(vin.b, io, si, n, first, 0.0f, tid, ${one}, m, s);
      if (!${one}) pt_rn_fold(PT_SH_PASS(rm) PT_SH_PASS(rs) soft, tid, m, s);
      float c = 0.0f, scale = 1.0f;
      /* +inf - +inf, a NaN, or a row of -inf only: PyTorch's row is NaN */
      const bool nanrow = soft && (pt_f32_isnan(s) || m == pinf || m == ninf);
      if (op == 1 && !nanrow) c = pt_log_f32(s);
      if (op == 2) {
        c = pt_div(s, float(n));
        float q = 0.0f;
        pt_rn_pass(vin.b, io, si, n, 2, c, tid, ${one}, m, q);
        if (!${one}) pt_rn_fold(PT_SH_PASS(rm) PT_SH_PASS(rs) false, tid, m, q);
        s = q;
      }
      if (!soft) scale = pt_div(1.0f, pt_sqrt(pt_div(s, float(n)) + eps));
      /* the loads of a step are issued before its stores, which the compiler may not reorder (OUT may alias IN) */
      pt_i64 k = pt_i64(${one} ? 0 : tid);
      for (; !${one} && k + pt_i64((PT_RN_P - 1) * PT_BLOCK) < n; k += pt_i64(PT_RN_P * PT_BLOCK)) {
        float x[PT_RN_P];
        PT_UNROLL
        for (int u = 0; u < PT_RN_P; u++) x[u] = pt_raw_f32(vin.b, io + (k + pt_i64(u * PT_BLOCK)) * si);
        PT_UNROLL
        for (int u = 0; u < PT_RN_P; u++) {
          const pt_i64 ku = k + pt_i64(u * PT_BLOCK);
          pt_put_f32(vout.b, oo + ku * so, pt_rn_out(op, affine, nanrow, x[u], m, s, c, scale, vw, sw, vb, sb, ku));
        }
      }
      for (; k < n; k += pt_i64(${one} ? 1 : PT_BLOCK)) {
        const float x = pt_raw_f32(vin.b, io + k * si);
        pt_put_f32(vout.b, oo + k * so, pt_rn_out(op, affine, nanrow, x, m, s, c, scale, vw, sw, vb, sb, k));
      }
`;
