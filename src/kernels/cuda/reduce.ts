import { CUDA_DIALECT } from "./preamble.ts";
import { REDUCE_ACC } from "../templates/reduce.ts";
import { GROUP_FOLD, reduceKernel, type ReducePlan, ROW_OFFSET, rowPasses } from "../templates/reduce_rows.ts";

/**
 * reduce (templates/reduce_rows.ts) in CUDA: the CPU versions are reduce.c / reduce_ops.h.
 * Floats accumulate in double, ints in int64 with wrap. Sum, mean, any, all and count over
 * unit-stride rows take the vectorised pt_fast_row (another fixed order: same results up to
 * float rounding).
 */

/** CUDA's passes: generic over the source, its own loads in flight a step (S::P); the inner dims in shared memory and the row offsets from the block, so neither holds registers across a row (three blocks an SM). */
export const CUDA_REDUCE: ReducePlan = {
  generic: "template <class S>\n",
  source: "S",
  unroll: "S::P",
  fast: true,
  sharedInner: true,
  blockOffsets: true,
};

/**
 * The passes read a row through an element source (a struct with the calls they make), so
 * the same order serves two kinds: the VIEW of the reduce template (pt_view_row,
 * pt_mem_row) and ewreduce's expression values (pt_fn_row, computed where they are read:
 * src/kernels/cuda/elementwise.ts), whose results are then the reduce template's over the
 * materialized expression, bit for bit. REDUCE_CORE is what both kernels share.
 */
export const REDUCE_CORE = REDUCE_ACC + GROUP_FOLD + String.raw`
/* A row of a VIEW, for pt_reduce_pass: inner position k is element at(k) = io + offset(k);
 * a value is read in two steps, load_f (load_i) then f (i), which for a VIEW are the load
 * and nothing (an expression computes in its second step: pt_fn_row). P positions a step
 * have their loads issued first. The inner dims were coalesced so that, usually, only the
 * last one is longer than 1 (flat). */
struct pt_view_row {
  enum { P = 4 };
  typedef double fitem;
  typedef pt_i64 iitem;
  const char *b;
  int dt;
  pt_i64 io;
  const pt_i64 *ishape, *istr;
  bool flat;
  __device__ __forceinline__ pt_i64 at(pt_i64 k) const {
    return io + (flat ? k * istr[PT_MAX_RANK - 1] : pt_offset_of(k, PT_MAX_RANK, ishape, istr));
  }
  __device__ __forceinline__ double load_f(pt_i64 e) const { return pt_ld_f64(b, dt, e); }
  __device__ __forceinline__ pt_i64 load_i(pt_i64 e) const { return pt_ld_i64(b, dt, e); }
  static __device__ __forceinline__ double f(double x) { return x; }
  static __device__ __forceinline__ pt_i64 i(pt_i64 x) { return x; }
};

/* The source calls of templates/reduce_rows.ts's passes, for any S above or pt_fn_row. */
template <class S> static __device__ __forceinline__ bool pt_row_flat(const S &src) { return src.flat; }
template <class S>
static __device__ __forceinline__ void pt_row_step(const S &src, pt_acc &s, int kind, bool fl, pt_i64 k, double mean) {
  if (fl) {
    typename S::fitem x[S::P];
#pragma unroll
    for (int u = 0; u < S::P; u++) x[u] = src.load_f(src.at(k + u * PT_BLOCK));
#pragma unroll
    for (int u = 0; u < S::P; u++) pt_acc_add_f(s, kind, src.f(x[u]), k + u * PT_BLOCK, mean);
  } else {
    typename S::iitem x[S::P];
#pragma unroll
    for (int u = 0; u < S::P; u++) x[u] = src.load_i(src.at(k + u * PT_BLOCK));
#pragma unroll
    for (int u = 0; u < S::P; u++) pt_acc_add_i(s, kind, src.i(x[u]), k + u * PT_BLOCK);
  }
}
template <class S>
static __device__ __forceinline__ void pt_row_add(const S &src, pt_acc &s, int kind, bool fl, pt_i64 k, double mean) {
  const pt_i64 e = src.at(k);
  if (fl) pt_acc_add_f(s, kind, src.f(src.load_f(e)), k, mean);
  else pt_acc_add_i(s, kind, src.i(src.load_i(e)), k);
}

/* Contiguous rows of sum, mean, any, all and count_nonzero, where order matters for
 * nothing but float rounding: 16-byte loads from the first aligned address (the elements
 * before it and after the last whole vector go one at a time), four loads in flight per
 * thread, then a warp-shuffle fold and the 8 warps' results in order. The order is fixed,
 * so the result never depends on timing; floats still accumulate in double. */
struct alignas(16) pt_v16 {
  pt_u32 w[4];
};

/* Element e of a 16-byte vector of DT, as the same bits a load of the element gives. */
template <int DT> static __device__ __forceinline__ pt_u64 pt_v16_elem(const pt_v16 &v, int e) {
  switch (DT) {
  case PT_F64: case PT_I64: return (pt_u64)v.w[2 * e] | (pt_u64)v.w[2 * e + 1] << 32;
  case PT_F32: case PT_I32: return v.w[e];
  case PT_F16: case PT_BF16: case PT_I16: return (v.w[e >> 1] >> (16 * (e & 1))) & 0xffffu;
  default: return (v.w[e >> 2] >> (8 * (e & 3))) & 0xffu;
  }
}
template <int DT> static __device__ __forceinline__ pt_u64 pt_raw_at(const char *row, pt_i64 i) {
  switch (DT) {
  case PT_F64: case PT_I64: return ((const pt_u64 *)row)[i];
  case PT_F32: case PT_I32: return ((const pt_u32 *)row)[i];
  case PT_F16: case PT_BF16: case PT_I16: return ((const pt_u16 *)row)[i];
  default: return ((const pt_u8 *)row)[i];
  }
}
/* Folds one element, given as its bits, with pt_ld_f64 / pt_ld_i64's conversions. */
template <int DT, int KIND> static __device__ __forceinline__ void pt_fast_add(pt_acc &s, pt_u64 raw) {
  switch (DT) {
  case PT_F32: pt_acc_add_f(s, KIND, (double)__uint_as_float((pt_u32)raw), 0, 0.0); break;
  case PT_F16: pt_acc_add_f(s, KIND, (double)pt_f16_to_f32((pt_u16)raw), 0, 0.0); break;
  case PT_BF16: pt_acc_add_f(s, KIND, (double)pt_bf16_to_f32((pt_u16)raw), 0, 0.0); break;
  case PT_F64: pt_acc_add_f(s, KIND, __longlong_as_double((pt_i64)raw), 0, 0.0); break;
  case PT_I32: pt_acc_add_i(s, KIND, (pt_i64)(int)(pt_u32)raw, 0); break;
  case PT_I8: pt_acc_add_i(s, KIND, (pt_i64)pt_sext8((pt_u32)raw), 0); break;
  case PT_I16: pt_acc_add_i(s, KIND, (pt_i64)pt_sext16((pt_u32)raw), 0); break;
  default: pt_acc_add_i(s, KIND, (pt_i64)raw, 0); break; /* i64, u8, bool */
  }
}

/* A contiguous row of DT in memory, for pt_fast_row: its address decides the head, raw(i)
 * is element i's bits, vectors(head)[k] the k-th 16-byte vector after the head and
 * elem(v, e) its element e's bits; U vectors a step have their loads issued first. */
template <int D> struct pt_mem_row {
  enum { DT = D, U = 4 };
  typedef pt_v16 vec;
  const char *row;
  __device__ __forceinline__ pt_u64 addr() const { return (pt_u64)row; }
  __device__ __forceinline__ pt_u64 raw(pt_i64 i) const { return pt_raw_at<D>(row, i); }
  __device__ __forceinline__ const pt_v16 *vectors(pt_i64 head) const { return (const pt_v16 *)(row + head * pt_dtype_size(D)); }
  static __device__ __forceinline__ pt_u64 elem(const pt_v16 &v, int e) { return pt_v16_elem<D>(v, e); }
};

template <int KIND, class S> static __device__ pt_acc pt_fast_row(const S &src, pt_i64 n, pt_acc *sh) {
  const int DT = S::DT;
  const int E = DT == PT_F64 || DT == PT_I64 ? 2 : DT == PT_F32 || DT == PT_I32 ? 4 : DT == PT_F16 || DT == PT_BF16 || DT == PT_I16 ? 8 : 16;
  const int tid = threadIdx.x;
  pt_acc s = pt_acc_init(KIND);
  pt_i64 head = (pt_i64)((16 - (src.addr() & 15)) & 15) / (16 / E);
  if (head > n) head = n;
  const pt_i64 nv = (n - head) / E, rest = head + nv * E;
  const auto v = src.vectors(head);
  if (tid < head) pt_fast_add<DT, KIND>(s, src.raw(tid));
  if (rest + tid < n) pt_fast_add<DT, KIND>(s, src.raw(rest + tid)); /* fewer than E < 256 */
  pt_i64 k = tid;
  for (; k + (S::U - 1) * PT_BLOCK < nv; k += S::U * PT_BLOCK) {
    typename S::vec x[S::U];
#pragma unroll
    for (int u = 0; u < S::U; u++) x[u] = v[k + u * PT_BLOCK];
#pragma unroll
    for (int u = 0; u < S::U; u++)
#pragma unroll
      for (int e = 0; e < E; e++) pt_fast_add<DT, KIND>(s, src.elem(x[u], e));
  }
  for (; k < nv; k += PT_BLOCK) {
    const typename S::vec x = v[k];
#pragma unroll
    for (int e = 0; e < E; e++) pt_fast_add<DT, KIND>(s, src.elem(x, e));
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    s.f = pt_add(s.f, __shfl_down_sync(0xffffffffu, s.f, o));
    s.i = (pt_i64)((pt_u64)s.i + (pt_u64)__shfl_down_sync(0xffffffffu, s.i, o));
  }
  if ((tid & 31) == 0) sh[tid >> 5] = s;
  __syncthreads();
  pt_acc r = sh[0];
  for (int w = 1; w < PT_BLOCK / 32; w++) r = pt_acc_merge(r, sh[w], KIND, false);
  __syncthreads(); /* sh is reused by the next row */
  return r;
}

/* The fast row of a VIEW's dtype, for K_SUM and K_COUNT only. */
template <int KIND> static __device__ pt_acc pt_fast_dt(int dt, const char *row, pt_i64 n, pt_acc *sh) {
  switch (dt) {
  case PT_F32: return pt_fast_row<KIND>(pt_mem_row<PT_F32>{row}, n, sh);
  case PT_F16: return pt_fast_row<KIND>(pt_mem_row<PT_F16>{row}, n, sh);
  case PT_BF16: return pt_fast_row<KIND>(pt_mem_row<PT_BF16>{row}, n, sh);
  case PT_F64: return pt_fast_row<KIND>(pt_mem_row<PT_F64>{row}, n, sh);
  case PT_I32: return pt_fast_row<KIND>(pt_mem_row<PT_I32>{row}, n, sh);
  case PT_I64: return pt_fast_row<KIND>(pt_mem_row<PT_I64>{row}, n, sh);
  case PT_U8: return pt_fast_row<KIND>(pt_mem_row<PT_U8>{row}, n, sh);
  case PT_I8: return pt_fast_row<KIND>(pt_mem_row<PT_I8>{row}, n, sh);
  case PT_I16: return pt_fast_row<KIND>(pt_mem_row<PT_I16>{row}, n, sh);
  default: return pt_fast_row<KIND>(pt_mem_row<PT_BOOL>{row}, n, sh);
  }
}
static __device__ __forceinline__ bool pt_row_fast_has(int kind, int) { return kind == K_SUM || kind == K_COUNT; }
static __device__ __forceinline__ pt_acc pt_row_fast(pt_acc *sh, const pt_view_row &src, int kind, bool, pt_i64 n, int) {
  const char *row = src.b + src.io * pt_dtype_size(src.dt);
  return kind == K_SUM ? pt_fast_dt<K_SUM>(src.dt, row, n, sh) : pt_fast_dt<K_COUNT>(src.dt, row, n, sh);
}

/* Element i of E as the reduce template loads it (pt_ld_f64, pt_ld_i64; raw: its bits). */
static __device__ __forceinline__ pt_u64 pt_bits_of(float v) { return __float_as_uint(v); }
static __device__ __forceinline__ pt_u64 pt_bits_of(double v) { return (pt_u64)__double_as_longlong(v); }
static __device__ __forceinline__ pt_u64 pt_bits_of(int v) { return (pt_u32)v; }
static __device__ __forceinline__ pt_u64 pt_bits_of(pt_i64 v) { return (pt_u64)v; }
static __device__ __forceinline__ pt_i64 pt_as_i64(float v) { return pt_f2i64((double)v); }
static __device__ __forceinline__ pt_i64 pt_as_i64(double v) { return pt_f2i64(v); }
static __device__ __forceinline__ pt_i64 pt_as_i64(int v) { return v; }
static __device__ __forceinline__ pt_i64 pt_as_i64(pt_i64 v) { return v; }

/* ewreduce's row: E's elements base, base + 1, ... where E's element e, a T of dtype D, is
 * value(load(e)): load issues the reads of the expression's inputs (an In), value computes
 * the rest, so U vectors (P positions) a step read all their inputs before computing. For
 * pt_fast_row, E's buffer would start 256-byte aligned: element e's address is e * sizeof(T)
 * modulo 16, and a "vector" is the next 16 bytes' worth of elements, as loaded inputs. */
template <int D, class T, class In, class L, class V, int U_> struct pt_fn_row {
  enum { DT = D, E = 16 / sizeof(T), U = U_, P = U_ * E, flat = 1 };
  typedef In fitem;
  typedef In iitem;
  struct vec {
    In v[E];
  };
  struct vecs { /* the vectors from element first on */
    const L &load;
    pt_i64 first;
    __device__ __forceinline__ vec operator[](pt_i64 k) const {
      vec x;
#pragma unroll
      for (int e = 0; e < E; e++) x.v[e] = load(first + k * E + e);
      return x;
    }
  };
  const L &load;
  const V &value;
  pt_i64 base;
  __device__ __forceinline__ pt_i64 at(pt_i64 k) const { return base + k; }
  __device__ __forceinline__ In load_f(pt_i64 e) const { return load(e); }
  __device__ __forceinline__ In load_i(pt_i64 e) const { return load(e); }
  __device__ __forceinline__ double f(const In &x) const { return (double)value(x); }
  __device__ __forceinline__ pt_i64 i(const In &x) const { return pt_as_i64(value(x)); }
  __device__ __forceinline__ pt_u64 addr() const { return (pt_u64)base * sizeof(T); }
  __device__ __forceinline__ pt_u64 raw(pt_i64 i) const { return pt_bits_of(value(load(base + i))); }
  __device__ __forceinline__ vecs vectors(pt_i64 head) const { return vecs{load, base + head}; }
  __device__ __forceinline__ pt_u64 elem(const vec &x, int e) const { return pt_bits_of(value(x.v[e])); }
};
/* Float sums only: counts, and sums of integers (which wrap), are exact in any order, so
 * those rows take pt_reduce_pass, with one expression copy fewer to compile per loop. */
template <int D, class T, class In, class L, class V, int U>
static __device__ __forceinline__ pt_acc pt_row_fast(pt_acc *sh, const pt_fn_row<D, T, In, L, V, U> &src, int, bool, pt_i64 n, int) {
  return pt_fast_row<K_SUM>(src, n, sh);
}

${rowPasses(CUDA_REDUCE)}
/* ewreduce's call (cuda/elementwise.ts): the template's row, sh last. */
template <class S>
static __device__ __forceinline__ void pt_reduce_row(const pt_params &p, const S &src, int op, int kind, bool fl, bool fast,
                                                     pt_i64 n, const pt_view &out, pt_i64 oo, pt_acc *sh, bool one) {
  pt_reduce_row(p, sh, src, op, kind, fl, fast, n, out, oo, int(threadIdx.x), one);
}
`;

/** The reduce template's program under a plan: REDUCE_CORE over a VIEW (tests run other languages' layouts in it). */
export const reduceProgram = (plan: ReducePlan): string => REDUCE_CORE + ROW_OFFSET + reduceKernel(CUDA_DIALECT, plan);
export const REDUCE = reduceProgram(CUDA_REDUCE);
