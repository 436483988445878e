/**
 * reduce's passes over a row, written once (ROW launches: one group of 256 per output row,
 * rows PT_GROUP_ID, + PT_GROUPS, ...; rows of at most PT_SHORT_ROW positions take one
 * invocation each, PT_BLOCK a group). Thread tid folds positions tid, tid + 256, ... of the
 * row in increasing order with a private accumulator (REDUCE_ACC), then the group folds the
 * 256 accumulators in shared memory as a fixed tree, so a result never depends on timing;
 * var/std make two passes (the mean, then squared deviations). Some rows may take a
 * language's vectorised pass instead (pt_row_fast: another fixed order, the same result up
 * to float rounding).
 *
 * A pass reads its row through an element source `src`, which each language supplies (a view
 * in memory for reduce; an expression's values for ewreduce, computed where they are read):
 *   pt_row_flat(src)                             whether positions are equally spaced (flat rows)
 *   pt_row_step(src, s, kind, fl, k, mean)      folds positions k, k + 256, ... (P of them), loads first
 *   pt_row_add(src, s, kind, fl, k, mean)       folds position k
 *   pt_row_fast(sh, src, kind, fl, n, tid)      the vectorised pass, folded (ReducePlan.fast)
 *   pt_row_fast_has(kind, dt)                   whether that pass has a body for kind over dt
 * and the struct pt_view_row {b, dt, io, ishape, istr, flat}: a VIEW's row at element io.
 */
import type { Dialect } from "../dialect.ts";

/** What a language's reduce passes are shaped by. */
export interface ReducePlan {
  /** What comes before a pass's declaration: "template <class S>" where the source is a type parameter, or "". */
  readonly generic: string;
  /** The element source's type in a pass's parameters. */
  readonly source: string;
  /** Positions a flat row's strided step folds (an expression in the source's terms). */
  readonly unroll: string;
  /** Whether unit-stride rows may take the language's vectorised pass (pt_row_fast). */
  readonly fast: boolean;
  /** Whether the kernel keeps the coalesced inner shape and strides in shared memory, one copy a group. */
  readonly sharedInner: boolean;
  /** Whether row offsets are read from the block each time (pt_row_offset) rather than from oshape and the views. */
  readonly blockOffsets: boolean;
}

/** The group's tree over its accumulators (before the element source, whose vectorised pass may end with it). */
export const GROUP_FOLD = String.raw`
PT_SHARED_GLOBAL(pt_acc, sh)
/* The fixed tree over the group's accumulators, in sh; every thread gets the result. */
PT_FN pt_acc pt_fold(PT_SH(pt_acc, sh) pt_acc s, int kind, bool fl, int tid) {
  sh[tid] = s;
  PT_SYNC();
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) sh[tid] = pt_acc_merge(sh[tid], sh[tid + w], kind, fl);
    PT_SYNC();
  }
  const pt_acc r = sh[0];
  PT_SYNC(); /* sh is reused by the next pass */
  return r;
}
`;

/** A strided pass and a row's result, after the element source. */
export const rowPasses = (plan: ReducePlan): string =>
  String.raw`
/* One pass over a row of n positions: each thread's positions in increasing order, on a flat
 * row P a step with their loads issued first, to keep more reads in flight, then the group's
 * fold; or, for a short row (one), all n positions by this thread alone, no barrier. */
${plan.generic}PT_FN pt_acc pt_reduce_pass(PT_SH(pt_acc, sh) PT_CREF(${plan.source}) src, int kind, bool fl, pt_i64 n, pt_facc mean, int tid, bool one) {
  const int P = ${plan.unroll};
  pt_acc s = pt_acc_init(kind);
  pt_i64 k = pt_i64(one ? 0 : tid);
  if (!one && pt_row_flat(src)) {
    for (; k + pt_i64((P - 1) * PT_BLOCK) < n; k += pt_i64(P * PT_BLOCK)) pt_row_step(src, s, kind, fl, k, mean);
  }
  const pt_i64 inc = pt_i64(one ? 1 : PT_BLOCK);
  for (; k < n; k += inc) pt_row_add(src, s, kind, fl, k, mean);
  if (!one) s = pt_fold(PT_SH_PASS(sh) s, kind, fl, tid);
  return s;
}

/* One row of op: n positions read from src, the result stored at element oo of vout by
 * thread 0, or by this thread alone for a short row (one: n <= PT_SHORT_ROW, where a tree over
 * the group would idle most of it and cost software drivers a barrier a step). kind is
 * pt_kind_of(op, true); fl: the row folds floats; fast: it takes pt_row_fast. var and std
 * first take the mean (a K_SUM pass); one copy of each pass serves both, which keeps the
 * program small for drivers that run every branch under a mask. */
${plan.generic}PT_FN void pt_reduce_row(PT_CTX PT_SH(pt_acc, sh) PT_CREF(${plan.source}) src, int op, int kind, bool fl, bool fast,
                          pt_i64 n, pt_view vout, pt_i64 oo, int tid, bool one) {
  if (n == 0) {
    if (one || tid == 0) pt_reduce_empty(PT_PASS op, vout, oo);
    return;
  }
  pt_facc mean = pt_facc_of(0);
  pt_acc s;
  for (int pass = op == R_VAR || op == R_STD ? 0 : 1; pass < 2; pass++) {
    const int pk = pass == 0 ? K_SUM : kind;
    ${
    plan.fast ? "if (fast && !one) s = pt_row_fast(PT_SH_PASS(sh) src, pk, fl, n, tid);\n    else " : ""
  }s = pt_reduce_pass(PT_SH_PASS(sh) src, pk, fl, n, mean, tid, one);
    if (pass == 0) mean = pt_facc_div(s.f, pt_facc_of_i64(n));
  }
  if (one || tid == 0) pt_reduce_store(PT_PASS op, s, fl, n, vout, oo); /* the others go on to the next row's barriers */
}
`;

/**
 * Row row's first element in the VIEW at slot k over the outer shape at slot s, every size and stride read from the block
 * when used (sort and CUDA's reduce): held in registers, they cost CUDA a block per SM.
 */
export const ROW_OFFSET = String.raw`
PT_FN pt_i64 pt_row_offset(PT_CTX pt_i64 row, int rank, int s, int k) {
  pt_i64 off = PT_A(k + PT_VIEW_OFFSET);
  PT_UNROLL
  for (int d = PT_MAX_RANK - 1; d >= 0; d--) {
    if (d < rank) {
      const pt_i64 size = PT_A(s + d);
      if (size != 1) {
        off += row % size * PT_A(k + PT_VIEW_STRIDES + d);
        row /= size;
      }
    }
  }
  return off;
}
`;

/**
 * The rows of a reduce-like kernel: each row of the source's view vin (its outer offset
 * from orank/oshape, or the block) reduced into vout, given op, onum (the rows) and
 * n/ishape/istr/isflat (the inner dims, coalesced).
 */
export const reduceRows = (plan: ReducePlan): string => {
  const offset = (k: string, v: string) =>
    plan.blockOffsets
      ? `pt_row_offset(PT_PASS row, orank, PT_REDUCE_OSHAPE, ${k})`
      : `${v}.off + pt_offset_of(row, orank, oshape, ${v}.st)`;
  /* Unit-stride rows whose elements are aligned (always, for buffers from the allocator)
   * take the vectorised pass where it has a body for the op and dtype. */
  const fast = plan.fast
    ? "isflat && istr[PT_MAX_RANK - 1] == 1 && pt_row_fast_has(kind, vin.dt) && pt_u64(vin.b) % pt_u64(pt_dtype_size(vin.dt)) == 0"
    : "false";
  const body = (one: string) =>
    String.raw`const pt_i64 io = ${offset("PT_REDUCE_IN", "vin")}, oo = ${offset("PT_REDUCE_OUT", "vout")};
      const pt_view_row src = {vin.b, vin.dt, io, ishape, istr, isflat};
      pt_reduce_row(PT_PASS PT_SH_PASS(sh) src, op, kind, fl, fast, n, vout, oo, tid, ${one});`;
  return String.raw`
  const int tid = PT_TID;
  const bool fl = pt_is_float(vin.dt) || op == R_VAR || op == R_STD;
  const int kind = pt_kind_of(op, true);
  const bool fast = ${fast};
  /* Short rows take a thread each, PT_BLOCK a group (blocks.h's ROW work for them). Two loops, each
   * passing \`one\` as a constant, keep every barrier out of the short rows' loop, whose trip count
   * differs between invocations: llvmpipe runs a barrier even under a mask that is all off. */
  if (n <= pt_i64(PT_SHORT_ROW)) {
    for (pt_i64 row = pt_i64(PT_GROUP_ID) * PT_BLOCK + tid; row < onum; row += pt_i64(PT_GROUPS) * PT_BLOCK) {
      ${body("true")}
    }
  } else {
    for (pt_i64 row = pt_i64(PT_GROUP_ID); row < onum; row += pt_i64(PT_GROUPS)) {
      ${body("false")}
    }
  }
`;
};

/* Coalesce: move size-1 dims outward and merge dims that are contiguous with the next;
 * neither changes the row-major position -> offset map, so argmax's answer is kept. */
const coalesce = (sz: string, st: string) =>
  String.raw`PT_UNROLL
    for (int d = 1; d < PT_MAX_RANK; d++) {
      if (${sz}[d] == 1) {
        ${sz}[d] = ${sz}[d - 1];
        ${st}[d] = ${st}[d - 1];
        ${sz}[d - 1] = 1;
      } else if (${sz}[d - 1] == 1 || ${st}[d - 1] == ${st}[d] * ${sz}[d]) {
        ${sz}[d] *= ${sz}[d - 1];
        ${sz}[d - 1] = 1;
      }
    }`;

/**
 * The reduce kernel, after the accumulator, the element source and rowPasses. Inner dims
 * past irank are size 1 (stride 0), which leaves the row-major position -> offset map
 * unchanged, so offsets are taken over all 8 dims.
 */
export const reduceKernel = (d: Dialect, plan: ReducePlan): string => {
  const outer = plan.blockOffsets
    ? "pt_i64 onum = 1;\n  PT_UNROLL\n  for (int d = 0; d < PT_MAX_RANK; d++) onum *= d < orank ? PT_A(PT_REDUCE_OSHAPE + d) : pt_i64(1);"
    : "pt_i64 oshape[PT_MAX_RANK];\n  const pt_i64 onum = PT_SHAPE(PT_REDUCE_OSHAPE, orank, oshape);";
  const read = (sz: string, st: string) =>
    String.raw`PT_UNROLL
    for (int d = 0; d < PT_MAX_RANK; d++) {
      ${sz}[d] = d < irank ? PT_A(PT_REDUCE_ISHAPE + d) : pt_i64(1);
      ${st}[d] = d < irank ? PT_A(PT_REDUCE_IN_INNER + d) : pt_i64(0);
    }
    ${coalesce(sz, st)}`;
  /* Held in registers, the inner shape and strides made CUDA's kernel too large for more than one block per SM. */
  const inner = plan.sharedInner
    ? String.raw`PT_SHARED_LOCAL_N(pt_i64, ishape, PT_MAX_RANK)
  PT_SHARED_LOCAL_N(pt_i64, istr, PT_MAX_RANK)
  if (PT_TID == 0) {
    pt_i64 sz[PT_MAX_RANK], st[PT_MAX_RANK];
    ${read("sz", "st")}
    for (int d = 0; d < PT_MAX_RANK; d++) {
      ishape[d] = sz[d];
      istr[d] = st[d];
    }
  }
  PT_SYNC();`
    : String.raw`pt_i64 ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  {
    ${read("ishape", "istr")}
  }`;
  const sharedAt = plan.sharedInner ? "PT_SHARED_GLOBAL_N(pt_i64, ishape, PT_MAX_RANK)\nPT_SHARED_GLOBAL_N(pt_i64, istr, PT_MAX_RANK)" : "";
  return String.raw`${sharedAt}
/* reduce [op, ddof, orank, oshape x8, irank, ishape x8, IN VIEW (outer strides),
 *         in inner stride x8, OUT VIEW (outer strides)]; ROW launch over the outputs.
 * On CUDA, the launch bound (80 registers a thread, ptxas on sm_90) lets three blocks share
 * an SM, enough loads in flight for the contiguous pass to reach full bandwidth. */
${d.bounds(3)}${d.kernel}
  PT_SHARED_LOCAL(pt_acc, sh)
  const int op = int(PT_A(PT_REDUCE_OP)), orank = int(PT_A(PT_REDUCE_ORANK)), irank = int(PT_A(PT_REDUCE_IRANK));
  ${outer}
  pt_i64 n = 1;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) n *= d < irank ? PT_A(PT_REDUCE_ISHAPE + d) : pt_i64(1);
  ${inner}
  bool isflat = true;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK - 1; d++) isflat = isflat && ishape[d] == 1;
  const pt_view vin = PT_VIEW(PT_REDUCE_IN), vout = PT_VIEW(PT_REDUCE_OUT);
${reduceRows(plan)}}
`;
};
