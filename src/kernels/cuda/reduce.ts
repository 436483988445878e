/**
 * reduce and scan (ROW launches: one block of 256 threads per output row, rows
 * blockIdx.x, +gridDim.x, ...). Blocks and rules are blocks.h's; the CPU versions are
 * reduce.c / reduce_ops.h and scan.c.
 */

/**
 * reduce: threads stride over the row's inner extent (row-major over the inner dims) with
 * a private accumulator, then fold the 256 accumulators in shared memory as a fixed tree,
 * so a result never depends on timing. Floats accumulate in double, ints in int64 with
 * wrap; var/std make two passes (the mean, then squared deviations). argmax/argmin carry
 * the position, and the fold breaks ties by the lower position (first occurrence); the
 * first NaN wins for both.
 */
export const REDUCE = String.raw`
enum { R_SUM, R_PROD, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_ANY, R_ALL, R_MEAN, R_VAR, R_STD, R_COUNT };
enum { K_SUM, K_SQDEV, K_PROD, K_MAX, K_MIN, K_ARGMAX, K_ARGMIN, K_COUNT };

/* f: float value; i: int value or nonzero count; idx: arg position (-1: none yet); nan: a
 * float max/min saw a NaN. */
typedef struct {
  double f;
  pt_i64 i, idx;
  int nan;
} pt_acc;

static __device__ __forceinline__ int pt_kind_of(int op, int second_pass) {
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

static __device__ __forceinline__ void pt_acc_init(pt_acc &s, int kind) {
  s.f = kind == K_PROD ? 1.0 : kind == K_MAX ? -PT_INF : kind == K_MIN ? PT_INF : 0.0;
  s.i = kind == K_PROD ? 1 : kind == K_MAX ? PT_I64_MIN : kind == K_MIN ? PT_I64_MAX : 0;
  s.idx = -1;
  s.nan = 0;
}

/* Value x at inner position pos (positions arrive in increasing order per thread). */
static __device__ __forceinline__ void pt_acc_add_f(pt_acc &s, int kind, double x, pt_i64 pos, double mean) {
  switch (kind) {
  case K_SUM: s.f = pt_add(s.f, x); break;
  case K_SQDEV: { double d = pt_sub(x, mean); s.f = pt_add(s.f, pt_mul(d, d)); break; }
  case K_PROD: s.f = pt_mul(s.f, x); break;
  case K_MAX: s.nan |= x != x; s.f = x > s.f ? x : s.f; break;
  case K_MIN: s.nan |= x != x; s.f = x < s.f ? x : s.f; break;
  case K_ARGMAX: case K_ARGMIN:
    if (s.idx < 0 || (kind == K_ARGMAX ? x > s.f : x < s.f) || (x != x && s.f == s.f)) { s.f = x; s.idx = pos; }
    break;
  default: s.i += x != 0; /* NaN counts as nonzero */
  }
}

static __device__ __forceinline__ void pt_acc_add_i(pt_acc &s, int kind, pt_i64 x, pt_i64 pos) {
  switch (kind) {
  case K_SUM: s.i = (pt_i64)((pt_u64)s.i + (pt_u64)x); break;
  case K_PROD: s.i = (pt_i64)((pt_u64)s.i * (pt_u64)x); break;
  case K_MAX: s.i = x > s.i ? x : s.i; break;
  case K_MIN: s.i = x < s.i ? x : s.i; break;
  case K_ARGMAX: case K_ARGMIN:
    if (s.idx < 0 || (kind == K_ARGMAX ? x > s.i : x < s.i)) { s.i = x; s.idx = pos; }
    break;
  default: s.i += x != 0;
  }
}

/* a = a folded with b, where both cover interleaved positions. */
static __device__ __forceinline__ void pt_acc_merge(pt_acc &a, const pt_acc &b, int kind, bool fl) {
  switch (kind) {
  case K_SUM: case K_SQDEV: case K_COUNT:
    a.f = pt_add(a.f, b.f);
    a.i = (pt_i64)((pt_u64)a.i + (pt_u64)b.i);
    break;
  case K_PROD:
    a.f = pt_mul(a.f, b.f);
    a.i = (pt_i64)((pt_u64)a.i * (pt_u64)b.i);
    break;
  case K_MAX: a.f = b.f > a.f ? b.f : a.f; a.i = b.i > a.i ? b.i : a.i; a.nan |= b.nan; break;
  case K_MIN: a.f = b.f < a.f ? b.f : a.f; a.i = b.i < a.i ? b.i : a.i; a.nan |= b.nan; break;
  default: {
    if (b.idx < 0) break;
    bool take;
    if (a.idx < 0) take = true;
    else if (fl) {
      bool an = a.f != a.f, bn = b.f != b.f;
      if (an || bn) take = an && bn ? b.idx < a.idx : bn;
      else if (b.f == a.f) take = b.idx < a.idx;
      else take = kind == K_ARGMAX ? b.f > a.f : b.f < a.f;
    } else {
      take = b.i == a.i ? b.idx < a.idx : kind == K_ARGMAX ? b.i > a.i : b.i < a.i;
    }
    if (take) a = b;
  }
  }
}

/* One pass over a row: inner position k is at element io + offset(k) of the input. The
 * inner dims were coalesced so that, usually, only the last one is longer than 1. */
static __device__ __forceinline__ pt_acc pt_reduce_pass(const pt_view &in, int kind, bool fl, pt_i64 io, pt_i64 n, int irank,
                                                      const pt_i64 *ishape, const pt_i64 *istr, bool flat, double mean,
                                                      pt_acc *sh) {
  const int tid = threadIdx.x;
  pt_acc s;
  pt_acc_init(s, kind);
  pt_i64 k = tid;
  if (flat) { /* 8 positions a step with their loads first, to keep more reads in flight */
    const pt_i64 st = istr[PT_MAX_RANK - 1];
    for (; k + 7 * PT_BLOCK < n; k += 8 * PT_BLOCK) {
      if (fl) {
        double x[8];
#pragma unroll
        for (int u = 0; u < 8; u++) x[u] = pt_ld_f64(in.b, in.dt, io + (k + u * PT_BLOCK) * st);
#pragma unroll
        for (int u = 0; u < 8; u++) pt_acc_add_f(s, kind, x[u], k + u * PT_BLOCK, mean);
      } else {
        pt_i64 x[8];
#pragma unroll
        for (int u = 0; u < 8; u++) x[u] = pt_ld_i64(in.b, in.dt, io + (k + u * PT_BLOCK) * st);
#pragma unroll
        for (int u = 0; u < 8; u++) pt_acc_add_i(s, kind, x[u], k + u * PT_BLOCK);
      }
    }
  }
  for (; k < n; k += PT_BLOCK) {
    const pt_i64 off = io + (flat ? k * istr[PT_MAX_RANK - 1] : pt_offset_of(k, irank, ishape, istr));
    if (fl) pt_acc_add_f(s, kind, pt_ld_f64(in.b, in.dt, off), k, mean);
    else pt_acc_add_i(s, kind, pt_ld_i64(in.b, in.dt, off), k);
  }
  sh[tid] = s;
  __syncthreads();
  for (int w = PT_BLOCK / 2; w > 0; w >>= 1) {
    if (tid < w) pt_acc_merge(sh[tid], sh[tid + w], kind, fl);
    __syncthreads();
  }
  pt_acc r = sh[0];
  __syncthreads(); /* sh is reused by the next pass */
  return r;
}

/* reduce [op, ddof, orank, oshape x8, irank, ishape x8, IN VIEW (outer strides),
 *         in inner stride x8, OUT VIEW (outer strides)]; ROW launch over the outputs. */
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_acc sh[PT_BLOCK];
  const int op = (int)p.a[0];
  const double ddof = p.a[1];
  const int orank = (int)p.a[2];
  /* Inner dims past irank are size 1 (stride 0), which leaves the row-major position ->
   * offset map unchanged, so offsets are taken over all 8 dims. */
  const int irank = (int)p.a[11];
  pt_i64 oshape[PT_MAX_RANK], ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  const pt_i64 onum = pt_shape_at(p, 3, orank, oshape);
  const pt_i64 n = pt_shape_at(p, 12, irank, ishape);
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) istr[d] = d < irank ? (pt_i64)p.a[31 + d] : 0;
  /* Coalesce: move size-1 dims outward and merge dims that are contiguous with the next;
   * neither changes the row-major position -> offset map, so argmax's answer is kept. */
#pragma unroll
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
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK - 1; d++) flat = flat && ishape[d] == 1;
  const pt_view in = pt_view_at(p, 20), out = pt_view_at(p, 39);
  const bool fl = pt_is_float(in.dt) || op == R_VAR || op == R_STD;
  const int tid = threadIdx.x;
  for (pt_i64 row = blockIdx.x; row < onum; row += gridDim.x) {
    const pt_i64 io = in.off + pt_offset_of(row, orank, oshape, in.st);
    const pt_i64 oo = out.off + pt_offset_of(row, orank, oshape, out.st);
    if (n == 0) { /* the op's identity; max/min/argmax/argmin have none */
      if (tid == 0) {
        if (op >= R_MAX && op <= R_ARGMIN) pt_fail(p.err, PT_KERR_COUNT, 1, 0, 0);
        else if (op == R_PROD || op == R_ALL) pt_st_i64(out.b, out.dt, oo, 1);
        else if (op == R_MEAN || op == R_VAR || op == R_STD) pt_st_f64(out.b, out.dt, oo, PT_NAN);
        else pt_st_i64(out.b, out.dt, oo, 0);
      }
      continue;
    }
    double mean = 0;
    if (op == R_VAR || op == R_STD) mean = pt_reduce_pass(in, K_SUM, fl, io, n, PT_MAX_RANK, ishape, istr, flat, 0, sh).f / (double)n;
    const pt_acc s = pt_reduce_pass(in, pt_kind_of(op, 1), fl, io, n, PT_MAX_RANK, ishape, istr, flat, mean, sh);
    if (tid != 0) continue;
    switch (op) {
    case R_SUM: case R_PROD:
      if (fl) pt_st_f64(out.b, out.dt, oo, s.f);
      else pt_st_i64(out.b, out.dt, oo, s.i);
      break;
    case R_MAX: case R_MIN:
      if (fl) pt_st_f64(out.b, out.dt, oo, s.nan ? PT_NAN : s.f);
      else pt_st_i64(out.b, out.dt, oo, s.i);
      break;
    case R_ARGMAX: case R_ARGMIN: pt_st_i64(out.b, out.dt, oo, s.idx); break;
    case R_ANY: pt_st_i64(out.b, out.dt, oo, s.i > 0); break;
    case R_ALL: pt_st_i64(out.b, out.dt, oo, s.i == n); break;
    case R_COUNT: pt_st_i64(out.b, out.dt, oo, s.i); break;
    case R_MEAN: pt_st_f64(out.b, out.dt, oo, (fl ? s.f : (double)s.i) / (double)n); break;
    default: { /* var, std: a divisor below zero is clamped to zero, as NumPy and PyTorch do */
      const double div = (double)n - ddof, v = s.f / (div > 0 ? div : 0.0);
      pt_st_f64(out.b, out.dt, oo, op == R_STD ? pt_sqrt(v) : v);
    }
    }
  }
}
`;

/**
 * scan: the row moves through shared memory 256 positions at a time (all threads load and
 * store, converting), and thread 0 runs the dependent chain over each chunk in order, so
 * the result is the CPU's sequential double (or wrapping int64) accumulation exactly.
 */
export const SCAN = String.raw`
/* scan [op, orank, oshape x8, n, IN VIEW (outer strides), in axis stride,
 *       OUT VIEW (outer strides), out axis stride]; op 0 cumsum, 1 cumprod; ROW launch. */
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ double bf[PT_BLOCK];
  __shared__ pt_u64 bu[PT_BLOCK];
  const int op = (int)p.a[0], orank = (int)p.a[1];
  pt_i64 oshape[PT_MAX_RANK];
  const pt_i64 rows = pt_shape_at(p, 2, orank, oshape);
  const pt_i64 n = PT_A(10), sa = PT_A(22), oa = PT_A(34);
  const pt_view in = pt_view_at(p, 11), out = pt_view_at(p, 23);
  const bool fl = pt_is_float(in.dt);
  const int tid = threadIdx.x;
  for (pt_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    const pt_i64 io = in.off + pt_offset_of(row, orank, oshape, in.st);
    const pt_i64 oo = out.off + pt_offset_of(row, orank, oshape, out.st);
    double accf = op ? 1.0 : 0.0; /* thread 0's running values */
    pt_u64 accu = op ? 1 : 0;
    for (pt_i64 k0 = 0; k0 < n; k0 += PT_BLOCK) {
      const pt_i64 k = k0 + tid;
      if (k < n) {
        if (fl) bf[tid] = pt_ld_f64(in.b, in.dt, io + k * sa);
        else bu[tid] = (pt_u64)pt_ld_i64(in.b, in.dt, io + k * sa);
      }
      __syncthreads();
      if (tid == 0) {
        const int m = n - k0 < PT_BLOCK ? (int)(n - k0) : PT_BLOCK;
        if (fl) for (int j = 0; j < m; j++) bf[j] = accf = op ? pt_mul(accf, bf[j]) : pt_add(accf, bf[j]);
        else for (int j = 0; j < m; j++) bu[j] = accu = op ? accu * bu[j] : accu + bu[j];
      }
      __syncthreads();
      if (k < n) {
        if (fl) pt_st_f64(out.b, out.dt, oo + k * oa, bf[tid]);
        else pt_st_i64(out.b, out.dt, oo + k * oa, (pt_i64)bu[tid]);
      }
      /* a thread rewrites only its own slot next, after reading it here */
    }
  }
}
`;
