/**
 * reduce's accumulator and the scan kernel, written once. Floats accumulate in the
 * dialect's pt_facc (double; float-float on Metal), integers in int64 with wrap, as the
 * CPU's reduce.c and scan.c do.
 */
import type { Dialect } from "../dialect.ts";

/** pt_facc for a language with a double (CUDA, GLSL): the double and its helpers. */
export const DOUBLE_FACC = String.raw`#define pt_facc double
#define pt_facc_of(x) double(x)
#define pt_facc_add pt_add
#define pt_facc_mul pt_mul
#define pt_ld_facc pt_ld_f64
#define pt_st_facc pt_st_f64
#define PT_HI(x) (x)
#define pt_facc_sub pt_sub
#define pt_facc_div pt_div
#define pt_facc_sqrt pt_sqrt
#define pt_facc_of_i64(x) double(x)
#define pt_facc_lt(a, b) ((a) < (b))
`;
/**
 * The accumulator of reduce and ewreduce: what a row's op folds (kinds), how
 * one element and one partial result fold in, and what a row's result stores. Floats
 * accumulate in pt_facc (double; float-float on Metal), ints in int64 with wrap; var/std
 * make two passes (the mean, then squared deviations). argmax/argmin carry the position, a
 * fold breaks ties by the lower position (first occurrence), and the first NaN wins for
 * both. The passes over a row that read the elements and combine the partial results are
 * templates/reduce_rows.ts's, over each language's element source (cuda/, glsl/, msl/reduce.ts).
 */
export const REDUCE_ACC = String.raw`
#define R_SUM 0
#define R_PROD 1
#define R_MAX 2
#define R_MIN 3
#define R_ARGMAX 4
#define R_ARGMIN 5
#define R_ANY 6
#define R_ALL 7
#define R_MEAN 8
#define R_VAR 9
#define R_STD 10
#define R_COUNT 11
#define K_SUM 0
#define K_SQDEV 1
#define K_PROD 2
#define K_MAX 3
#define K_MIN 4
#define K_ARGMAX 5
#define K_ARGMIN 6
#define K_COUNT 7

/* f: float value; i: int value or nonzero count; idx: arg position (-1: none yet); nan: a
 * float max/min saw a NaN. */
struct pt_acc {
  pt_facc f;
  pt_i64 i;
  pt_i64 idx;
  int nan;
};

PT_FN int pt_kind_of(int op, bool second_pass) {
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

PT_FN pt_acc pt_acc_init(int kind) {
  pt_acc s;
  s.f = kind == K_PROD ? pt_facc_of(1) : kind == K_MAX ? PT_FACC_NINF : kind == K_MIN ? PT_FACC_INF : pt_facc_of(0);
  s.i = kind == K_PROD ? pt_i64(1) : kind == K_MAX ? PT_I64_MIN : kind == K_MIN ? PT_I64_MAX : pt_i64(0);
  s.idx = pt_i64(-1);
  s.nan = 0;
  return s;
}

/* Value x at inner position pos (positions arrive in increasing order per invocation). */
PT_FN void pt_acc_add_f(PT_INOUT(pt_acc) s, int kind, pt_facc x, pt_i64 pos, pt_facc mean) {
  switch (kind) {
  case K_SUM: s.f = pt_facc_add(s.f, x); break;
  case K_SQDEV: { const pt_facc d = pt_facc_sub(x, mean); s.f = pt_facc_add(s.f, pt_facc_mul(d, d)); break; }
  case K_PROD: s.f = pt_facc_mul(s.f, x); break;
  case K_MAX: if (pt_facc_isnan(x)) s.nan = 1; if (PT_HI(x) > PT_HI(s.f)) s.f = x; break;
  case K_MIN: if (pt_facc_isnan(x)) s.nan = 1; if (PT_HI(x) < PT_HI(s.f)) s.f = x; break;
  case K_ARGMAX: case K_ARGMIN:
    if (s.idx < pt_i64(0) || (kind == K_ARGMAX ? PT_HI(x) > PT_HI(s.f) : PT_HI(x) < PT_HI(s.f)) ||
        (pt_facc_isnan(x) && !pt_facc_isnan(s.f))) { s.f = x; s.idx = pos; }
    break;
  default: if (pt_facc_nonzero(x)) s.i += pt_i64(1); /* NaN counts as nonzero */
  }
}

PT_FN void pt_acc_add_i(PT_INOUT(pt_acc) s, int kind, pt_i64 x, pt_i64 pos) {
  switch (kind) {
  case K_SUM: s.i = pt_i64(pt_u64(s.i) + pt_u64(x)); break;
  case K_PROD: s.i = pt_i64(pt_u64(s.i) * pt_u64(x)); break;
  case K_MAX: if (x > s.i) s.i = x; break;
  case K_MIN: if (x < s.i) s.i = x; break;
  case K_ARGMAX: case K_ARGMIN:
    if (s.idx < pt_i64(0) || (kind == K_ARGMAX ? x > s.i : x < s.i)) { s.i = x; s.idx = pos; }
    break;
  default: if (x != pt_i64(0)) s.i += pt_i64(1);
  }
}

/* a folded with b, where both cover interleaved positions. */
PT_FN pt_acc pt_acc_merge(pt_acc a, pt_acc b, int kind, bool fl) {
  switch (kind) {
  case K_SUM: case K_SQDEV: case K_COUNT:
    a.f = pt_facc_add(a.f, b.f);
    a.i = pt_i64(pt_u64(a.i) + pt_u64(b.i));
    break;
  case K_PROD:
    a.f = pt_facc_mul(a.f, b.f);
    a.i = pt_i64(pt_u64(a.i) * pt_u64(b.i));
    break;
  case K_MAX: if (PT_HI(b.f) > PT_HI(a.f)) a.f = b.f; if (b.i > a.i) a.i = b.i; a.nan |= b.nan; break;
  case K_MIN: if (PT_HI(b.f) < PT_HI(a.f)) a.f = b.f; if (b.i < a.i) a.i = b.i; a.nan |= b.nan; break;
  default: {
    if (b.idx < pt_i64(0)) break;
    bool take;
    if (a.idx < pt_i64(0)) take = true;
    else if (fl) {
      const bool an = pt_facc_isnan(a.f), bn = pt_facc_isnan(b.f);
      if (an || bn) take = an && bn ? b.idx < a.idx : bn;
      else if (PT_HI(b.f) == PT_HI(a.f)) take = b.idx < a.idx;
      else take = kind == K_ARGMAX ? PT_HI(b.f) > PT_HI(a.f) : PT_HI(b.f) < PT_HI(a.f);
    } else {
      take = b.i == a.i ? b.idx < a.idx : kind == K_ARGMAX ? b.i > a.i : b.i < a.i;
    }
    if (take) a = b;
  }
  }
  return a;
}

/* An empty row's result (the op's identity; max/min/argmax/argmin have none), stored by one invocation. */
PT_FN void pt_reduce_empty(PT_CTX int op, pt_view vout, pt_i64 oo) {
  if (op >= R_MAX && op <= R_ARGMIN) PT_FAIL(PT_KERR_COUNT, 1, 0, 0);
  else if (op == R_PROD || op == R_ALL) pt_st_i64(vout.b, vout.dt, oo, pt_i64(1));
  else if (op == R_MEAN || op == R_VAR || op == R_STD) pt_st_facc(vout.b, vout.dt, oo, PT_FACC_NAN);
  else pt_st_i64(vout.b, vout.dt, oo, pt_i64(0));
}

/* A row's result from its folded s (n > 0 positions; fl: s holds floats), stored by one invocation. */
PT_FN void pt_reduce_store(PT_CTX int op, pt_acc s, bool fl, pt_i64 n, pt_view vout, pt_i64 oo) {
  switch (op) {
  case R_SUM: case R_PROD:
    if (fl) pt_st_facc(vout.b, vout.dt, oo, s.f);
    else pt_st_i64(vout.b, vout.dt, oo, s.i);
    break;
  case R_MAX: case R_MIN:
    if (fl) pt_st_facc(vout.b, vout.dt, oo, s.nan != 0 ? PT_FACC_NAN : s.f);
    else pt_st_i64(vout.b, vout.dt, oo, s.i);
    break;
  case R_ARGMAX: case R_ARGMIN: pt_st_i64(vout.b, vout.dt, oo, s.idx); break;
  case R_ANY: pt_st_i64(vout.b, vout.dt, oo, pt_i64(s.i > pt_i64(0) ? 1 : 0)); break;
  case R_ALL: pt_st_i64(vout.b, vout.dt, oo, pt_i64(s.i == n ? 1 : 0)); break;
  case R_COUNT: pt_st_i64(vout.b, vout.dt, oo, s.i); break;
  case R_MEAN: pt_st_facc(vout.b, vout.dt, oo, pt_facc_div(fl ? s.f : pt_facc_of_i64(s.i), pt_facc_of_i64(n))); break;
  default: { /* var, std: a divisor below zero is clamped to zero, as NumPy and PyTorch do */
    pt_facc div = pt_facc_sub(pt_facc_of_i64(n), PT_FACC_SLOT(PT_REDUCE_DDOF)); /* ewreduce's ddof is at the same slot */
    if (!(PT_HI(div) > PT_HI(pt_facc_of(0)))) div = pt_facc_of(0);
    const pt_facc v = pt_facc_div(s.f, div);
    pt_st_facc(vout.b, vout.dt, oo, op == R_STD ? pt_facc_sqrt(v) : v);
  }
  }
}
`;

/**
 * scan: the row moves through shared memory 256 positions at a time (all invocations load
 * and store, converting), and invocation 0 runs the dependent chain over each chunk in
 * order, so the result is the CPU's sequential accumulation. The chain runs PT_SCAN_STEPS
 * steps a loop pass: with one a pass, llvmpipe ends invocation 0's loops on rows past 64k
 * (glsl/preamble.ts); with 16, rows of up to 800k scan there.
 */
export const scan = (d: Dialect): string =>
  String.raw`
#define PT_SCAN_STEPS 16
PT_SHARED_GLOBAL(pt_facc, bf)
PT_SHARED_GLOBAL(pt_u64, bu)
/* scan [op, orank, oshape x8, n, IN VIEW (outer strides), in axis stride,
 *       OUT VIEW (outer strides), out axis stride]; op 0 cumsum, 1 cumprod; ROW launch. */
${d.kernel}
  PT_SHARED_LOCAL(pt_facc, bf)
  PT_SHARED_LOCAL(pt_u64, bu)
  const int op = int(PT_A(PT_SCAN_OP)), orank = int(PT_A(PT_SCAN_ORANK));
  pt_i64 oshape[PT_MAX_RANK];
  const pt_i64 rows = PT_SHAPE(PT_SCAN_OSHAPE, orank, oshape);
  const pt_i64 n = PT_A(PT_SCAN_N), sa = PT_A(PT_SCAN_IN_STRIDE), oa = PT_A(PT_SCAN_OUT_STRIDE);
  const pt_view vin = PT_VIEW(PT_SCAN_IN), vout = PT_VIEW(PT_SCAN_OUT);
  const bool fl = pt_is_float(vin.dt);
  const int tid = PT_TID;
  for (pt_i64 row = pt_i64(PT_GROUP_ID); row < rows; row += pt_i64(PT_GROUPS)) {
    const pt_i64 io = vin.off + pt_offset_of(row, orank, oshape, vin.st);
    const pt_i64 oo = vout.off + pt_offset_of(row, orank, oshape, vout.st);
    pt_facc accf = pt_facc_of(op != 0 ? 1 : 0); /* invocation 0's running values */
    pt_u64 accu = pt_u64(op != 0 ? 1 : 0);
    for (pt_i64 k0 = 0; k0 < n; k0 += PT_BLOCK) {
      const pt_i64 k = k0 + pt_i64(tid);
      if (k < n) {
        if (fl) bf[tid] = pt_ld_facc(vin.b, vin.dt, io + k * sa);
        else bu[tid] = pt_u64(pt_ld_i64(vin.b, vin.dt, io + k * sa));
      }
      PT_SYNC();
      if (tid == 0) {
        const int m = n - k0 < pt_i64(PT_BLOCK) ? int(n - k0) : PT_BLOCK;
        if (fl) {
          for (int j0 = 0; j0 < m; j0 += PT_SCAN_STEPS) {
            PT_UNROLL
            for (int u = 0; u < PT_SCAN_STEPS; u++) {
              const int j = j0 + u;
              if (j < m) { accf = op != 0 ? pt_facc_mul(accf, bf[j]) : pt_facc_add(accf, bf[j]); bf[j] = accf; }
            }
          }
        } else {
          for (int j0 = 0; j0 < m; j0 += PT_SCAN_STEPS) {
            PT_UNROLL
            for (int u = 0; u < PT_SCAN_STEPS; u++) {
              const int j = j0 + u;
              if (j < m) { accu = op != 0 ? accu * bu[j] : accu + bu[j]; bu[j] = accu; }
            }
          }
        }
      }
      PT_SYNC();
      if (k < n) {
        if (fl) pt_st_facc(vout.b, vout.dt, oo + k * oa, bf[tid]);
        else pt_st_i64(vout.b, vout.dt, oo + k * oa, pt_i64(bu[tid]));
      }
      PT_SYNC(); /* the slots are read before the next chunk overwrites them */
    }
  }
}
`;
