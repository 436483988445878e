/**
 * reduce and scan (ROW launches: one group of 256 invocations per output row, rows
 * gl_WorkGroupID.x, + gl_NumWorkGroups.x, ...). Blocks and rules are blocks.h's; the CPU
 * versions are reduce.c / reduce_ops.h and scan.c; the structure is cuda/reduce.ts's.
 */

/**
 * reduce: invocations stride over the row's inner extent (row-major over the inner dims)
 * with a private accumulator, then fold the 256 accumulators in shared memory as a fixed
 * tree, so a result never depends on timing. Floats accumulate in double, ints in int64
 * with wrap; var/std make two passes (the mean, then squared deviations). argmax/argmin
 * carry the position, and the fold breaks ties by the lower position (first occurrence);
 * the first NaN wins for both.
 */
export const REDUCE = String.raw`
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
  double f;
  int64_t i;
  int64_t idx;
  int nan;
};
shared pt_acc sh[PT_BLOCK];

int pt_kind_of(int op, bool second_pass) {
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

pt_acc pt_acc_init(int kind) {
  pt_acc s;
  s.f = kind == K_PROD ? 1.0lf : kind == K_MAX ? -pt_inf() : kind == K_MIN ? pt_inf() : 0.0lf;
  s.i = kind == K_PROD ? 1l : kind == K_MAX ? PT_I64_MIN : kind == K_MIN ? PT_I64_MAX : 0l;
  s.idx = -1l;
  s.nan = 0;
  return s;
}

/* Value x at inner position pos (positions arrive in increasing order per invocation). */
void pt_acc_add_f(inout pt_acc s, int kind, double x, int64_t pos, double mean) {
  switch (kind) {
  case K_SUM: s.f = pt_add(s.f, x); break;
  case K_SQDEV: { const double d = pt_sub(x, mean); s.f = pt_add(s.f, pt_mul(d, d)); break; }
  case K_PROD: s.f = pt_mul(s.f, x); break;
  case K_MAX: if (isnan(x)) s.nan = 1; s.f = x > s.f ? x : s.f; break;
  case K_MIN: if (isnan(x)) s.nan = 1; s.f = x < s.f ? x : s.f; break;
  case K_ARGMAX: case K_ARGMIN:
    if (s.idx < 0l || (kind == K_ARGMAX ? x > s.f : x < s.f) || (isnan(x) && !isnan(s.f))) { s.f = x; s.idx = pos; }
    break;
  default: if (x != 0.0lf) s.i += 1l; /* unordered: NaN counts as nonzero */
  }
}

void pt_acc_add_i(inout pt_acc s, int kind, int64_t x, int64_t pos) {
  switch (kind) {
  case K_SUM: s.i += x; break;
  case K_PROD: s.i *= x; break;
  case K_MAX: s.i = x > s.i ? x : s.i; break;
  case K_MIN: s.i = x < s.i ? x : s.i; break;
  case K_ARGMAX: case K_ARGMIN:
    if (s.idx < 0l || (kind == K_ARGMAX ? x > s.i : x < s.i)) { s.i = x; s.idx = pos; }
    break;
  default: if (x != 0l) s.i += 1l;
  }
}

/* a folded with b, where both cover interleaved positions. */
pt_acc pt_acc_merge(pt_acc a, pt_acc b, int kind, bool fl) {
  switch (kind) {
  case K_SUM: case K_SQDEV: case K_COUNT:
    a.f = pt_add(a.f, b.f);
    a.i += b.i;
    break;
  case K_PROD:
    a.f = pt_mul(a.f, b.f);
    a.i *= b.i;
    break;
  case K_MAX: a.f = b.f > a.f ? b.f : a.f; a.i = b.i > a.i ? b.i : a.i; a.nan |= b.nan; break;
  case K_MIN: a.f = b.f < a.f ? b.f : a.f; a.i = b.i < a.i ? b.i : a.i; a.nan |= b.nan; break;
  default: {
    if (b.idx < 0l) break;
    bool take;
    if (a.idx < 0l) take = true;
    else if (fl) {
      const bool an = isnan(a.f), bn = isnan(b.f);
      if (an || bn) take = an && bn ? b.idx < a.idx : bn;
      else if (b.f == a.f) take = b.idx < a.idx;
      else take = kind == K_ARGMAX ? b.f > a.f : b.f < a.f;
    } else {
      take = b.i == a.i ? b.idx < a.idx : kind == K_ARGMAX ? b.i > a.i : b.i < a.i;
    }
    if (take) a = b;
  }
  }
  return a;
}

/* One pass over a row: inner position k is at element io + offset(k) of the input. The
 * inner dims were coalesced so that, usually, only the last one is longer than 1. */
pt_acc pt_reduce_pass(pt_view vin, int kind, bool fl, int64_t io, int64_t n, int64_t ishape[PT_MAX_RANK],
                      int64_t istr[PT_MAX_RANK], bool isflat, double mean) {
  const int tid = int(gl_LocalInvocationID.x);
  pt_acc s = pt_acc_init(kind);
  int64_t k = int64_t(tid);
  if (isflat) { /* 8 positions a step with their loads first, to keep more reads in flight */
    const int64_t st = istr[PT_MAX_RANK - 1];
    for (; k + 7l * PT_BLOCK < n; k += 8l * PT_BLOCK) {
      if (fl) {
        double x[8];
        for (int u = 0; u < 8; u++) x[u] = pt_ld_f64(vin.b, vin.dt, io + (k + int64_t(u * PT_BLOCK)) * st);
        for (int u = 0; u < 8; u++) pt_acc_add_f(s, kind, x[u], k + int64_t(u * PT_BLOCK), mean);
      } else {
        int64_t x[8];
        for (int u = 0; u < 8; u++) x[u] = pt_ld_i64(vin.b, vin.dt, io + (k + int64_t(u * PT_BLOCK)) * st);
        for (int u = 0; u < 8; u++) pt_acc_add_i(s, kind, x[u], k + int64_t(u * PT_BLOCK));
      }
    }
  }
  for (; k < n; k += PT_BLOCK) {
    const int64_t off = io + (isflat ? k * istr[PT_MAX_RANK - 1] : pt_offset_of(k, PT_MAX_RANK, ishape, istr));
    if (fl) pt_acc_add_f(s, kind, pt_ld_f64(vin.b, vin.dt, off), k, mean);
    else pt_acc_add_i(s, kind, pt_ld_i64(vin.b, vin.dt, off), k);
  }
  sh[tid] = s;
  barrier();
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) sh[tid] = pt_acc_merge(sh[tid], sh[tid + w], kind, fl);
    barrier();
  }
  const pt_acc r = sh[0];
  barrier(); /* sh is reused by the next pass */
  return r;
}

/* reduce [op, ddof, orank, oshape x8, irank, ishape x8, IN VIEW (outer strides),
 *         in inner stride x8, OUT VIEW (outer strides)]; ROW launch over the outputs. */
void main() {
  const int op = int(PT_P.a[0]);
  const double ddof = PT_P.a[1];
  const int orank = int(PT_P.a[2]);
  /* Inner dims past irank are size 1 (stride 0), which leaves the row-major position ->
   * offset map unchanged, so offsets are taken over all 8 dims. */
  const int irank = int(PT_P.a[11]);
  int64_t oshape[PT_MAX_RANK], ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  const int64_t onum = pt_shape_at(3, orank, oshape);
  const int64_t n = pt_shape_at(12, irank, ishape);
  for (int d = 0; d < PT_MAX_RANK; d++) istr[d] = d < irank ? PT_A(31 + d) : 0l;
  /* Coalesce: move size-1 dims outward and merge dims that are contiguous with the next;
   * neither changes the row-major position -> offset map, so argmax's answer is kept. */
  for (int d = 1; d < PT_MAX_RANK; d++) {
    if (ishape[d] == 1l) {
      ishape[d] = ishape[d - 1];
      istr[d] = istr[d - 1];
      ishape[d - 1] = 1l;
    } else if (ishape[d - 1] == 1l || istr[d - 1] == istr[d] * ishape[d]) {
      ishape[d] *= ishape[d - 1];
      ishape[d - 1] = 1l;
    }
  }
  bool isflat = true;
  for (int d = 0; d < PT_MAX_RANK - 1; d++) isflat = isflat && ishape[d] == 1l;
  const pt_view vin = pt_view_at(20), vout = pt_view_at(39);
  const bool fl = pt_is_float(vin.dt) || op == R_VAR || op == R_STD;
  const bool first = gl_LocalInvocationID.x == 0u;
  for (int64_t row = int64_t(gl_WorkGroupID.x); row < onum; row += int64_t(gl_NumWorkGroups.x)) {
    const int64_t io = vin.off + pt_offset_of(row, orank, oshape, vin.st);
    const int64_t oo = vout.off + pt_offset_of(row, orank, oshape, vout.st);
    if (n == 0l) { /* the op's identity; max/min/argmax/argmin have none */
      if (first) {
        if (op >= R_MAX && op <= R_ARGMIN) pt_fail(PT_KERR_COUNT, 1l, 0l, 0l);
        else if (op == R_PROD || op == R_ALL) pt_st_i64(vout.b, vout.dt, oo, 1l);
        else if (op == R_MEAN || op == R_VAR || op == R_STD) pt_st_f64(vout.b, vout.dt, oo, pt_nan());
        else pt_st_i64(vout.b, vout.dt, oo, 0l);
      }
      continue;
    }
    double mean = 0.0lf;
    if (op == R_VAR || op == R_STD) mean = pt_div(pt_reduce_pass(vin, K_SUM, fl, io, n, ishape, istr, isflat, 0.0lf).f, double(n));
    const pt_acc s = pt_reduce_pass(vin, pt_kind_of(op, true), fl, io, n, ishape, istr, isflat, mean);
    if (first) { /* the others go on to the next row's barriers, which wait for it */
      switch (op) {
      case R_SUM: case R_PROD:
        if (fl) pt_st_f64(vout.b, vout.dt, oo, s.f);
        else pt_st_i64(vout.b, vout.dt, oo, s.i);
        break;
      case R_MAX: case R_MIN:
        if (fl) pt_st_f64(vout.b, vout.dt, oo, s.nan != 0 ? pt_nan() : s.f);
        else pt_st_i64(vout.b, vout.dt, oo, s.i);
        break;
      case R_ARGMAX: case R_ARGMIN: pt_st_i64(vout.b, vout.dt, oo, s.idx); break;
      case R_ANY: pt_st_i64(vout.b, vout.dt, oo, s.i > 0l ? 1l : 0l); break;
      case R_ALL: pt_st_i64(vout.b, vout.dt, oo, s.i == n ? 1l : 0l); break;
      case R_COUNT: pt_st_i64(vout.b, vout.dt, oo, s.i); break;
      case R_MEAN: pt_st_f64(vout.b, vout.dt, oo, pt_div(fl ? s.f : double(s.i), double(n))); break;
      default: { /* var, std: a divisor below zero is clamped to zero, as NumPy and PyTorch do */
        const double div = pt_sub(double(n), ddof), v = pt_div(s.f, div > 0.0lf ? div : 0.0lf);
        pt_st_f64(vout.b, vout.dt, oo, op == R_STD ? pt_sqrt(v) : v);
      }
      }
    }
  }
}
`;

/**
 * scan: the row moves through shared memory 256 positions at a time (all invocations load
 * and store, converting), and invocation 0 runs the dependent chain over each chunk in
 * order, so the result is the CPU's sequential double (or wrapping int64) accumulation.
 */
export const SCAN = String.raw`
shared double bf[PT_BLOCK];
shared uint64_t bu[PT_BLOCK];
/* scan [op, orank, oshape x8, n, IN VIEW (outer strides), in axis stride,
 *       OUT VIEW (outer strides), out axis stride]; op 0 cumsum, 1 cumprod; ROW launch. */
void main() {
  const int op = int(PT_P.a[0]), orank = int(PT_P.a[1]);
  int64_t oshape[PT_MAX_RANK];
  const int64_t rows = pt_shape_at(2, orank, oshape);
  const int64_t n = PT_A(10), sa = PT_A(22), oa = PT_A(34);
  const pt_view vin = pt_view_at(11), vout = pt_view_at(23);
  const bool fl = pt_is_float(vin.dt);
  const int tid = int(gl_LocalInvocationID.x);
  for (int64_t row = int64_t(gl_WorkGroupID.x); row < rows; row += int64_t(gl_NumWorkGroups.x)) {
    const int64_t io = vin.off + pt_offset_of(row, orank, oshape, vin.st);
    const int64_t oo = vout.off + pt_offset_of(row, orank, oshape, vout.st);
    double accf = op != 0 ? 1.0lf : 0.0lf; /* invocation 0's running values */
    uint64_t accu = op != 0 ? 1ul : 0ul;
    for (int64_t k0 = 0; k0 < n; k0 += PT_BLOCK) {
      const int64_t k = k0 + int64_t(tid);
      if (k < n) {
        if (fl) bf[tid] = pt_ld_f64(vin.b, vin.dt, io + k * sa);
        else bu[tid] = uint64_t(pt_ld_i64(vin.b, vin.dt, io + k * sa));
      }
      barrier();
      if (tid == 0) {
        const int m = n - k0 < int64_t(PT_BLOCK) ? int(n - k0) : PT_BLOCK;
        if (fl) for (int j = 0; j < m; j++) { accf = op != 0 ? pt_mul(accf, bf[j]) : pt_add(accf, bf[j]); bf[j] = accf; }
        else for (int j = 0; j < m; j++) { accu = op != 0 ? accu * bu[j] : accu + bu[j]; bu[j] = accu; }
      }
      barrier();
      if (k < n) {
        if (fl) pt_st_f64(vout.b, vout.dt, oo + k * oa, bf[tid]);
        else pt_st_i64(vout.b, vout.dt, oo + k * oa, int64_t(bu[tid]));
      }
      barrier(); /* the slots are read before the next chunk overwrites them */
    }
  }
}
`;
