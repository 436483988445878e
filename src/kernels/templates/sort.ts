/**
 * sort written once (ROW launch: groups of 256, grid = min(rows, 65535)). The CPU version is
 * sort.c, and both give exactly the stable order.
 *
 * Keys are sort.c's: an unsigned integer whose order is the wanted order. Floats flip
 * their sign bit (all bits when negative), -0.0 ties with 0.0, every NaN becomes one quiet
 * NaN above +inf; ints flip the sign bit; descending inverts the key. Keys come from the
 * stored bits, so a device that flushes f32 subnormals in arithmetic still orders them. Ties
 * are broken by the original position, ascending in both directions, which is what makes
 * the sort stable.
 *
 * The sort is a bitonic network, O(n log^2 n) compare-exchanges per row with no
 * data-dependent control flow. Three paths, chosen per launch from n and dtype:
 *  - keys of 32 bits or less, n <= PT_SORT_CAP: one u64 per element in shared memory,
 *    key << 32 | position, so one integer compare orders by key and then by position;
 *  - 64-bit keys (f64, i64), n <= PT_SORT_PAIRS: (key, position) as two u64 arrays;
 *  - longer rows: the network over the positions in the indices output, keys read again
 *    from the input through them (the plan's chunks: runs of PT_SORT_PAIRS sorted in shared
 *    memory, and the steps whose comparators stay inside one run done there).
 * Short rows go several to a group (R rows side by side, each padded to a power of two), so
 * a group has enough comparators per step to keep its invocations busy between barriers.
 * Values are copied last by position, keeping their exact bits (NaN payloads, -0.0).
 */
import type { Dialect } from "../dialect.ts";
import { ROW_OFFSET } from "./reduce_rows.ts";

/** What a language's sort is sized by. */
export interface SortPlan {
  /** u64 slots of shared memory (a power of two): packed elements, or half as many (key, position) pairs. */
  readonly slots: number;
  /** Whether long rows sort runs of slots / 2 pairs in shared memory between their global steps. */
  readonly chunks: boolean;
  /** Comparators an invocation runs per loop pass of a global step. */
  readonly unroll: number;
}

/** Compare-exchange of slots lo < hi: the smaller goes to lo. */
const CX_PACKED = String.raw`const pt_u64 a = sm[lo], b = sm[hi];
      if (b < a) { sm[lo] = b; sm[hi] = a; }`;
const CX_PAIRS = String.raw`const pt_u64 ka = sm[lo], kb = sm[hi], ia = sm[PT_SORT_PAIRS + lo], ib = sm[PT_SORT_PAIRS + hi];
      if (kb < ka || (kb == ka && ib < ia)) {
        sm[lo] = kb; sm[hi] = ka;
        sm[PT_SORT_PAIRS + lo] = ib; sm[PT_SORT_PAIRS + hi] = ia;
      }`;

/* Steps j = jtop, jtop/2, ..., 1 of stage k of the bitonic network over w slots (powers of
 * two). Every comparator points up: the first step of a stage (j = k/2) pairs slot lo with
 * its mirror lo ^ (k-1), later ones lo with lo + j. So a stage k sorts each aligned k-block
 * on its own (rows side by side never mix), and sentinels at the top of a block never move
 * (a row of n is sorted as if padded with +inf). k = 0: no mirror step (the long path's
 * in-chunk half of a stage). Invocation t's comparators are t, t+256, ...; while j <= 32 a
 * warp's comparators stay inside 64 slots of its own from step to step, so only steps of
 * j >= 32 need the whole group at the barrier. The caller puts a barrier before the first
 * step and after the last. */
const network = (form: string, cx: string): string =>
  String.raw`
PT_FN void pt_bitonic_${form}(PT_SH(pt_u64, sm) int w, int k, int jtop, int tid) {
  for (int j = jtop; j > 0; j >>= 1) {
    if (j >= 32) PT_SYNC();
    else PT_SYNC_32();
    const bool mirror = j == k >> 1;
    for (int t = tid; t < w >> 1; t += PT_BLOCK) {
      const int lo = ((t & ~(j - 1)) << 1) | (t & (j - 1)), hi = mirror ? lo ^ (k - 1) : lo + j;
      ${cx}
    }
  }
}
/* The whole network up to stage kmax, between two barriers of the caller's. */
PT_FN void pt_bitonic_sort_${form}(PT_SH(pt_u64, sm) int w, int kmax, int tid) {
  for (int k = 2; k <= kmax; k <<= 1) pt_bitonic_${form}(PT_SH_PASS(sm) w, k, k >> 1, tid);
}
`;

const KEYS = String.raw`
PT_FN pt_u32 pt_key_f32(pt_u32 b) {
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  else if ((b & 0x7fffffffu) == 0u) b = 0u;
  return (b & 0x80000000u) != 0u ? ~b : b | 0x80000000u;
}
PT_FN pt_u64 pt_key_f64(pt_u64 b) {
  const pt_u64 sgn = pt_u64(1) << 63, mag = b & ~sgn;
  if (mag > (pt_u64(0x7ff00000u) << 32)) b = pt_u64(0x7ff80000u) << 32;
  else if (mag == pt_u64(0)) b = pt_u64(0);
  return (b & sgn) != pt_u64(0) ? ~b : b | sgn;
}
PT_FN bool pt_key_wide(int dt) { return dt == PT_F64 || dt == PT_I64; }
/* Keys of dtypes narrower than 8 bytes, in 32 bits. */
PT_FN pt_u32 pt_key32(PT_PTR b, int dt, pt_i64 i, bool desc) {
  pt_u32 k;
  switch (dt) {
  case PT_F32: k = pt_key_f32(pt_u32(pt_raw_i32(b, i))); break;
  case PT_F16: k = pt_key_f32(pt_f32_bits(pt_f16_to_f32(pt_raw_u16(b, i)))); break;
  case PT_BF16: k = pt_key_f32(pt_raw_u16(b, i) << 16); break;
  case PT_I32: k = pt_u32(pt_raw_i32(b, i)) ^ 0x80000000u; break;
  case PT_I16: k = pt_raw_u16(b, i) ^ 0x8000u; break; /* the sign bit flipped orders two's complement as unsigned */
  case PT_I8: k = pt_raw_u8(b, i) ^ 0x80u; break;
  default: k = pt_raw_u8(b, i); break;
  }
  return desc ? ~k : k;
}
/* Any dtype in 64 bits (the order of a 32-bit key is kept by widening it). */
PT_FN pt_u64 pt_key64(PT_PTR b, int dt, pt_i64 i, bool desc) {
  if (dt == PT_F64) { const pt_u64 k = pt_key_f64(pt_u64(pt_raw_i64(b, i))); return desc ? ~k : k; }
  if (dt == PT_I64) { const pt_u64 k = pt_u64(pt_raw_i64(b, i)) ^ (pt_u64(1) << 63); return desc ? ~k : k; }
  return pt_u64(pt_key32(b, dt, i, desc));
}
`;

/** One step (j) of stage k over the positions in the indices output, plan.unroll comparators a loop pass. */
function globalStep(plan: SortPlan): string {
  const body = String.raw`const pt_i64 lo = ((t & ~(j - 1)) << 1) | (t & (j - 1)), hi = j == k >> 1 ? lo ^ (k - 1) : lo + j;
          if (hi >= n) continue; /* the pad above n never moves */
          const pt_i64 a = pt_raw_i64_coherent(idx.b, xo + lo * ia), b = pt_raw_i64_coherent(idx.b, xo + hi * ia);
          const pt_u64 ka = pt_key64(vin.b, vin.dt, io + a * sa, desc), kb = pt_key64(vin.b, vin.dt, io + b * sa, desc);
          if (kb < ka || (kb == ka && b < a)) {
            pt_put_i64_coherent(idx.b, xo + lo * ia, b);
            pt_put_i64_coherent(idx.b, xo + hi * ia, a);
          }`;
  if (plan.unroll === 1) {
    return String.raw`for (pt_i64 t = tid; t < N >> 1; t += PT_BLOCK) {
          ${body}
        }`;
  }
  return String.raw`for (pt_i64 t0 = tid; t0 < N >> 1; t0 += PT_SORT_UNROLL * PT_BLOCK) PT_UNROLL for (int u = 0; u < PT_SORT_UNROLL; u++) {
          const pt_i64 t = t0 + pt_i64(u * PT_BLOCK);
          if (t >= N >> 1) continue;
          ${body}
        }`;
}

/* A chunk of every stage k >= C: its positions' pairs into shared memory, the stage's steps
 * inside C slots (the whole network at k == C), the positions back. */
const CHUNK_STEPS = String.raw`
    for (pt_i64 c0 = 0; c0 < n; c0 += C) {
      PT_SYNC_GLOBAL(); /* global steps and the previous chunk are done */
      for (int q = tid; q < C; q += PT_BLOCK) {
        const pt_i64 at = c0 + q;
        pt_i64 pos = at;
        if (at < n && k > C) pos = pt_raw_i64_coherent(idx.b, xo + at * ia);
        sm[q] = at < n ? pt_key64(vin.b, vin.dt, io + pos * sa, desc) : PT_SORT_NONE;
        sm[C + q] = at < n ? pt_u64(pos) : PT_SORT_NONE;
      }
      PT_SYNC();
      if (k == C) pt_bitonic_sort_pairs(PT_SH_PASS(sm) C, C, tid);
      else pt_bitonic_pairs(PT_SH_PASS(sm) C, 0, C >> 1, tid);
      PT_SYNC();
      for (int q = tid; q < C && c0 + q < n; q += PT_BLOCK) pt_put_i64_coherent(idx.b, xo + (c0 + q) * ia, pt_i64(sm[C + q]));
    }`;

/* Rows longer than shared memory: the network's steps over the positions in the indices
 * output, each in global memory (keys read again from the input) or, with chunks, only
 * those whose comparators span more than C slots; then values by position. */
function longRows(plan: SortPlan): string {
  const C = plan.chunks ? "PT_SORT_PAIRS" : "1";
  /* Without chunks, the network starts from the positions in order; with them, the first chunks' loads do. */
  const start = plan.chunks ? "" : "\n  for (pt_i64 r = tid; r < n; r += PT_BLOCK) pt_put_i64_coherent(idx.b, xo + r * ia, r);";
  return String.raw`
PT_FN void pt_sort_long(PT_SH(pt_u64, sm) PT_CREF(pt_view) vin, PT_CREF(pt_view) vals, PT_CREF(pt_view) idx, pt_i64 io,
                        pt_i64 vo, pt_i64 xo, pt_i64 n, pt_i64 sa, pt_i64 va, pt_i64 ia, bool desc, int tid) {
  const int C = ${C};
  pt_i64 N = C;
  while (N < n) N <<= 1;${start}
  for (pt_i64 k = C; k <= N; k <<= 1) {
    if (k > C) {
      for (pt_i64 j = k >> 1; j >= C; j >>= 1) {
        PT_SYNC_GLOBAL(); /* the group's global writes of the last step are visible */
        ${globalStep(plan)}
      }
    }${plan.chunks ? CHUNK_STEPS : ""}
  }
  PT_SYNC_GLOBAL();
  for (pt_i64 r = tid; r < n; r += PT_BLOCK) {
    const pt_i64 pos = pt_raw_i64_coherent(idx.b, xo + r * ia);
    pt_copy_elem(vals.b, vals.dt, vo + r * va, vin.b, vin.dt, io + pos * sa);
  }
}
`;
}

/** The sort kernel in dialect d, sized by plan. */
export const sort = (d: Dialect, plan: SortPlan): string =>
  String.raw`
#define PT_SORT_CAP ${plan.slots}  /* packed elements in shared memory */
#define PT_SORT_PAIRS ${plan.slots / 2} /* (key, position) pairs in the same memory */
#define PT_SORT_MAXR 64   /* rows side by side in one group */
#define PT_SORT_NONE (~pt_u64(0)) /* a sentinel: above every real element (positions are < 2^63) */
#define PT_SORT_UNROLL ${plan.unroll}
PT_SHARED_GLOBAL_N(pt_u64, sm, PT_SORT_CAP)
PT_SHARED_GLOBAL_N(pt_i64, soff, 3 * PT_SORT_MAXR)
${KEYS}${network("packed", CX_PACKED)}${network("pairs", CX_PAIRS)}${ROW_OFFSET}${longRows(plan)}
/* sort (slots.ts; IDX is int64); ROW launch over the rows.
 * On CUDA, 33.5 KB of shared memory and, by the launch bound, 48 registers a thread (ptxas
 * on sm_90, no spills): five blocks share an SM. */
${d.bounds(5)}${d.kernel}
  PT_SHARED_LOCAL_N(pt_u64, sm, PT_SORT_CAP)
  PT_SHARED_LOCAL_N(pt_i64, soff, 3 * PT_SORT_MAXR) /* each row's first element in IN, VALS and IDX */
  const bool desc = PT_A(PT_SORT_DESCENDING) != 0;
  const int orank = int(PT_A(PT_SORT_ORANK));
  pt_i64 rows = 1;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) rows *= d < orank ? PT_A(PT_SORT_OSHAPE + d) : pt_i64(1);
  const pt_i64 n = PT_A(PT_SORT_N), sa = PT_A(PT_SORT_IN_STRIDE), va = PT_A(PT_SORT_VALS_STRIDE), ia = PT_A(PT_SORT_IDX_STRIDE);
  const pt_view vin = PT_VIEW(PT_SORT_IN), vals = PT_VIEW(PT_SORT_VALS), idx = PT_VIEW(PT_SORT_IDX);
  const int tid = PT_TID;
  const bool wide = pt_key_wide(vin.dt), packed = !wide && n <= PT_SORT_CAP;
  const bool fits = packed || n <= PT_SORT_PAIRS;
  /* P: a row's slots (n up to a power of two); R rows a group while there are enough rows
   * left to give every group of a full grid work (at least 1024 groups of rows). */
  int lp = 0, lr = 0;
  while (fits && (pt_i64(1) << lp) < n) lp++;
  const int cap = packed ? PT_SORT_CAP : PT_SORT_PAIRS;
  while (fits && (2 << lr) <= PT_SORT_MAXR && (2 << (lr + lp)) <= cap && (pt_i64(2) << lr) * 1024 <= rows) lr++;
  const int P = 1 << lp, R = 1 << lr, w = R * P;
  /* Strided rows (an inner axis): neighbouring rows are usually neighbours in memory, so
   * the row index varies fastest across invocations when moving data. */
  const bool rowfast = R > 1 && sa != 1 && sa != -1;
  const pt_i64 ngroups = (rows + R - 1) / R;
  for (pt_i64 g = pt_i64(PT_GROUP_ID); g < ngroups; g += pt_i64(PT_GROUPS)) {
    PT_SYNC(); /* the previous group no longer reads shared memory */
    if (tid < R) {
      const pt_i64 row = g * R + tid < rows ? g * R + tid : rows - 1;
      soff[tid] = pt_row_offset(PT_PASS row, orank, PT_SORT_OSHAPE, PT_SORT_IN);
      soff[PT_SORT_MAXR + tid] = pt_row_offset(PT_PASS row, orank, PT_SORT_OSHAPE, PT_SORT_VALS);
      soff[2 * PT_SORT_MAXR + tid] = pt_row_offset(PT_PASS row, orank, PT_SORT_OSHAPE, PT_SORT_IDX);
    }
    PT_SYNC();
    if (!fits) {
      pt_sort_long(PT_SH_PASS(sm) vin, vals, idx, soff[0], soff[PT_SORT_MAXR], soff[2 * PT_SORT_MAXR], n, sa, va, ia, desc, tid);
      continue;
    }
    for (int e = tid; e < w; e += PT_BLOCK) {
      const int r = rowfast ? e & (R - 1) : e >> lp, q = rowfast ? e >> lr : e & (P - 1), slot = r * P + q;
      const bool real = q < n && g * R + r < rows;
      if (packed) {
        sm[slot] = real ? pt_u64(pt_key32(vin.b, vin.dt, soff[r] + q * sa, desc)) << 32 | pt_u64(q) : PT_SORT_NONE;
      } else {
        sm[slot] = real ? pt_key64(vin.b, vin.dt, soff[r] + q * sa, desc) : PT_SORT_NONE;
        sm[PT_SORT_PAIRS + slot] = real ? pt_u64(q) : PT_SORT_NONE;
      }
    }
    PT_SYNC();
    if (packed) pt_bitonic_sort_packed(PT_SH_PASS(sm) w, P, tid);
    else pt_bitonic_sort_pairs(PT_SH_PASS(sm) w, P, tid);
    PT_SYNC();
    for (int e = tid; e < w; e += PT_BLOCK) {
      const int r = rowfast ? e & (R - 1) : e >> lp, q = rowfast ? e >> lr : e & (P - 1), slot = r * P + q;
      if (q >= n || g * R + r >= rows) continue;
      const pt_i64 pos = packed ? pt_i64(sm[slot] & pt_u64(0xffffffffu)) : pt_i64(sm[PT_SORT_PAIRS + slot]);
      pt_st_i64(idx.b, idx.dt, soff[2 * PT_SORT_MAXR + r] + q * ia, pos);
      pt_copy_elem(vals.b, vals.dt, soff[PT_SORT_MAXR + r] + q * va, vin.b, vin.dt, soff[r] + pos * sa);
    }
  }
}
`;
