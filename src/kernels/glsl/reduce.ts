/**
 * reduce (templates/reduce_rows.ts) in GLSL: the CPU versions are reduce.c / reduce_ops.h.
 * Floats accumulate in double, ints in int64 with wrap.
 */
import { GLSL_DIALECT, PREAMBLE } from "./preamble.ts";
import { REDUCE_ACC } from "../templates/reduce.ts";
import { GROUP_FOLD, reduceKernel, type ReducePlan, reduceRows, rowPasses } from "../templates/reduce_rows.ts";
import { type EwLayout, renderElementwiseValue } from "./elementwise.ts";
import { EWREDUCE } from "../templates/elementwise.ts";

/** GLSL's passes: one source a program (no templates), 8 loads in flight a step, inner dims and outer offsets in variables (ewreduce sets them up its own way). */
export const GLSL_REDUCE: ReducePlan = {
  generic: "",
  source: "pt_view_row",
  unroll: "8",
  fast: true,
  sharedInner: false,
  blockOffsets: false,
};

/**
 * The text comes in parts so that ewreduce (renderEwReduce below) runs the same body over
 * another element source. The source is what the body reads its input through:
 * pt_src_bits (one element's bits), pt_src_bits8 (eight elements a step) and the fast
 * path's vector loop PT_FAST_VECTORS; reduce's reads a view in memory (VIEW_SOURCE),
 * ewreduce's computes the values (ewSource).
 */
const REDUCE_BITS = REDUCE_ACC + String.raw`
/* Element bits (zero-extended) -> pt_ld_f64's / pt_ld_i64's values. */
double pt_bits_f64(int dt, uint64_t raw) {
  switch (dt) {
  case PT_F32: return double(uintBitsToFloat(uint(raw)));
  case PT_F16: return double(pt_f16_to_f32(uint(raw)));
  case PT_BF16: return double(pt_bf16_to_f32(uint(raw)));
  case PT_F64: return uint64BitsToDouble(raw);
  case PT_I32: return double(int(uint(raw)));
  case PT_I64: return double(int64_t(raw));
  case PT_I8: return double(pt_sext8(uint(raw)));
  case PT_I16: return double(pt_sext16(uint(raw)));
  default: return double(raw);
  }
}
int64_t pt_bits_i64(int dt, uint64_t raw) {
  switch (dt) {
  case PT_I32: return int64_t(int(uint(raw)));
  case PT_I64: case PT_U8: case PT_BOOL: return int64_t(raw);
  case PT_I8: return int64_t(pt_sext8(uint(raw)));
  case PT_I16: return int64_t(pt_sext16(uint(raw)));
  default: return pt_f2i64(pt_bits_f64(dt, raw));
  }
}

/* Folds one element given as its bits. Counts (any, all, count) test the bits, as
 * pt_is_nonzero does: -0 is zero, NaN and subnormals are nonzero, whatever the driver's
 * conversions do with subnormals (the CPU keeps them). */
void pt_add_raw(inout pt_acc s, int kind, bool fl, int dt, uint64_t raw, int64_t pos, double mean) {
  if (kind == K_COUNT) {
    const uint64_t m = dt == PT_F64 ? 0x7ffffffffffffffful : dt == PT_F32 ? 0x7ffffffful : dt == PT_F16 || dt == PT_BF16 ? 0x7ffful : ~0ul;
    if ((raw & m) != 0ul) s.i += 1l;
  } else if (fl) pt_acc_add_f(s, kind, pt_bits_f64(dt, raw), pos, mean);
  else pt_acc_add_i(s, kind, pt_bits_i64(dt, raw), pos);
}

`;

/** reduce's element source: the input view, in memory (bits at byte addresses). */
const VIEW_SOURCE = String.raw`
/* ---- the element source: a view in memory ---- */
/* The bits of element i of an sz-byte dtype at address b. */
uint64_t pt_src_bits(uint64_t b, int sz, int64_t i) {
  switch (sz) {
  case 8: return PtU64(b + uint64_t(i) * 8ul).v;
  case 4: return uint64_t(PtU32(b + uint64_t(i) * 4ul).v);
  case 2: return uint64_t(pt_raw_u16(b, i));
  default: return uint64_t(pt_raw_u8(b, i));
  }
}

/* Elements i0, i0 + step, ... (8 of them): the loads sit together in one branch, so all
 * eight are in flight before the first is used (loads behind a per-element dtype switch
 * each waited for the last). */
void pt_src_bits8(uint64_t b, int sz, int64_t i0, int64_t step, out uint64_t x[8]) {
  switch (sz) {
  case 8: [[unroll]] for (int u = 0; u < 8; u++) x[u] = PtU64(b + uint64_t(i0 + int64_t(u) * step) * 8ul).v; break;
  case 4: [[unroll]] for (int u = 0; u < 8; u++) x[u] = uint64_t(PtU32(b + uint64_t(i0 + int64_t(u) * step) * 4ul).v); break;
  case 2: [[unroll]] for (int u = 0; u < 8; u++) x[u] = uint64_t(PtU16(b + uint64_t(i0 + int64_t(u) * step) * 2ul).v); break;
  default: [[unroll]] for (int u = 0; u < 8; u++) x[u] = uint64_t(PtU8(b + uint64_t(i0 + int64_t(u) * step)).v); break;
  }
}

/* The vector loop over vectors tid, tid + 256, ... < nv from address vb, through BODY: eight
 * vectors an invocation at a time, the next eight loaded before the current ones are folded
 * (16 loads of 16 bytes in flight), then the last ones singly. */
#define PT_FAST_LOOP(BODY) { \
  int64_t k = int64_t(tid); \
  if (k + 7l * PT_BLOCK < nv) { \
    [[unroll]] for (int u = 0; u < 8; u++) x[u] = PtV16(vb + uint64_t(k) * 16ul).v[u * PT_BLOCK]; \
    for (; k + 15l * PT_BLOCK < nv; k += 8l * PT_BLOCK) { \
      [[unroll]] for (int u = 0; u < 8; u++) y[u] = PtV16(vb + uint64_t(k) * 16ul).v[(u + 8) * PT_BLOCK]; \
      [[unroll]] for (int u = 0; u < 8; u++) BODY; \
      x = y; \
    } \
    [[unroll]] for (int u = 0; u < 8; u++) BODY; \
    k += 8l * PT_BLOCK; \
  } \
  for (; k < nv; k += PT_BLOCK) { x[0] = PtV16(vb + uint64_t(k) * 16ul).v[0]; const int u = 0; BODY; } \
}
/* The same for the switch body: without the prefetch, and the body written once (not
 * unrolled), since a CPU driver such as lavapipe runs every branch of a row under a mask,
 * so every copy of the switch costs it on every row. */
#define PT_FAST_LOOP_1(BODY) { \
  int64_t k = int64_t(tid); \
  for (; k + 7l * PT_BLOCK < nv; k += 8l * PT_BLOCK) { \
    [[unroll]] for (int u = 0; u < 8; u++) x[u] = PtV16(vb + uint64_t(k) * 16ul).v[u * PT_BLOCK]; \
    for (int u = 0; u < 8; u++) BODY; \
  } \
  for (; k < nv; k += PT_BLOCK) { x[0] = PtV16(vb + uint64_t(k) * 16ul).v[0]; const int u = 0; BODY; } \
}
/* The vectors of pt_fast_part: f32 sums and byte counts (any, all, count of a mask) get
 * loops of their own, with nothing but their arithmetic between the loads. */
#define PT_FAST_VECTORS \
  if (body == FB_SUM_F32) PT_FAST_LOOP(pt_fv_sum_f32(s, x[u])) \
  else if (body == FB_COUNT_8) PT_FAST_LOOP(pt_fv_count_8(s, x[u])) \
  else PT_FAST_LOOP_1(pt_fv(s, x[u], body, dt))
`;

/** The passes over a row (strided and vectorised), through the element source. */
const REDUCE_PARTS = GROUP_FOLD + String.raw`
/* A VIEW's row: inner position k at element io + offset(k) of buffer b (isflat: the inner dims were coalesced into the last one). */
struct pt_view_row {
  uint64_t b;
  int dt;
  int64_t io;
  int64_t ishape[PT_MAX_RANK];
  int64_t istr[PT_MAX_RANK];
  bool isflat; /* GLSL's flat is a keyword */
};
bool pt_row_flat(in pt_view_row src) { return src.isflat; }
/* The step's eight loads sit in one branch of pt_src_bits8's switch, all in flight before the first is folded. */
void pt_row_step(in pt_view_row src, inout pt_acc s, int kind, bool fl, int64_t k, double mean) {
  const int64_t st = src.istr[PT_MAX_RANK - 1];
  uint64_t x[8];
  pt_src_bits8(src.b, pt_dtype_size(src.dt), src.io + k * st, int64_t(PT_BLOCK) * st, x);
  for (int u = 0; u < 8; u++) pt_add_raw(s, kind, fl, src.dt, x[u], k + int64_t(u * PT_BLOCK), mean);
}
void pt_row_add(in pt_view_row src, inout pt_acc s, int kind, bool fl, int64_t k, double mean) {
  const int64_t off = src.io + (src.isflat ? k * src.istr[PT_MAX_RANK - 1] : pt_offset_of(k, PT_MAX_RANK, src.ishape, src.istr));
  pt_add_raw(s, kind, fl, src.dt, pt_src_bits(src.b, pt_dtype_size(src.dt), off), k, mean);
}

/* Unit-stride rows of sum, mean, any, all, count_nonzero, max and min (CUDA's pt_fast_row):
 * 16-byte loads from the row's first 16-byte aligned address, consecutive invocations on
 * consecutive vectors, the next eight vectors of an invocation loaded before its current
 * eight are folded; the elements before the first vector and after the last whole one make
 * two padded vectors, folded first by invocations 0 and 1. Each invocation folds its
 * elements in a fixed order, then the fixed tree: the result never depends on timing.
 * Floats still accumulate in double and ints in int64 with wrap; max, min and counts are
 * exact in any order, and sums differ from the strided path's only by float rounding.
 * Each dtype and op pair of the path has a straight-line body per vector (pt_fast_body);
 * pairs without one (f16/bf16 sums, max/min of other than f32 and i32) take the strided
 * path, as do argmax/argmin, prod, var and std. */
#define FB_SUM_F32 0
#define FB_SUM_F64 1
#define FB_SUM_I32 2
#define FB_SUM_I64 3
#define FB_SUM_U8 4
#define FB_COUNT_8 5
#define FB_COUNT_16 6
#define FB_COUNT_32 7
#define FB_COUNT_64 8
#define FB_MAX_F32 9
#define FB_MIN_F32 10
#define FB_MAX_I32 11
#define FB_MIN_I32 12

int pt_fast_body(int kind, int dt) {
  const int sz = pt_dtype_size(dt);
  if (kind == K_COUNT) return sz == 1 ? FB_COUNT_8 : sz == 2 ? FB_COUNT_16 : sz == 4 ? FB_COUNT_32 : FB_COUNT_64;
  if (kind == K_SUM) {
    switch (dt) {
    case PT_F32: return FB_SUM_F32;
    case PT_F64: return FB_SUM_F64;
    case PT_I32: return FB_SUM_I32;
    case PT_I64: return FB_SUM_I64;
    case PT_U8: case PT_BOOL: return FB_SUM_U8;
    default: return -1;
    }
  }
  if (kind == K_MAX || kind == K_MIN) {
    if (dt == PT_F32) return kind == K_MAX ? FB_MAX_F32 : FB_MIN_F32;
    if (dt == PT_I32) return kind == K_MAX ? FB_MAX_I32 : FB_MIN_I32;
  }
  return -1;
}

/* Sums of the f32 lanes, in order, in double. */
void pt_fv_sum_f32(inout pt_acc s, uvec4 w) {
  const vec4 x = uintBitsToFloat(w);
  s.f = pt_add(s.f, double(x.x));
  s.f = pt_add(s.f, double(x.y));
  s.f = pt_add(s.f, double(x.z));
  s.f = pt_add(s.f, double(x.w));
}
/* Nonzero bytes: each byte's bits or-ed into its bit 0, then counted. */
void pt_fv_count_8(inout pt_acc s, uvec4 w) {
  uvec4 z = w | (w >> 4u);
  z |= z >> 2u;
  z |= z >> 1u;
  const ivec4 c = bitCount(z & 0x01010101u);
  s.i += int64_t((c.x + c.y) + (c.z + c.w));
}
/* One vector through the row's body (a uniform branch per 16 bytes). Counts test the bits
 * (pt_add_raw's masks: floats ignore the sign bit). */
void pt_fv(inout pt_acc s, uvec4 w, int body, int dt) {
  switch (body) {
  case FB_SUM_F32: pt_fv_sum_f32(s, w); break;
  case FB_SUM_F64:
    s.f = pt_add(s.f, uint64BitsToDouble(packUint2x32(w.xy)));
    s.f = pt_add(s.f, uint64BitsToDouble(packUint2x32(w.zw)));
    break;
  case FB_SUM_I32: s.i += (int64_t(int(w.x)) + int64_t(int(w.y))) + (int64_t(int(w.z)) + int64_t(int(w.w))); break;
  case FB_SUM_I64: s.i += int64_t(packUint2x32(w.xy)) + int64_t(packUint2x32(w.zw)); break;
  case FB_SUM_U8: { /* 16 bytes: pairs, then halves */
    uvec4 t = (w & 0x00ff00ffu) + ((w >> 8u) & 0x00ff00ffu);
    t = (t & 0xffffu) + (t >> 16u);
    s.i += int64_t((t.x + t.y) + (t.z + t.w));
    break;
  }
  case FB_COUNT_8: pt_fv_count_8(s, w); break;
  case FB_COUNT_16: {
    const uvec4 z = w & (dt == PT_I16 ? 0xffffffffu : 0x7fff7fffu), lo = min(z & 0xffffu, 1u), hi = min(z >> 16u, 1u);
    s.i += int64_t((lo.x + hi.x + lo.y + hi.y) + (lo.z + hi.z + lo.w + hi.w));
    break;
  }
  case FB_COUNT_32: {
    const uvec4 z = min(w & (dt == PT_F32 ? 0x7fffffffu : 0xffffffffu), 1u);
    s.i += int64_t((z.x + z.y) + (z.z + z.w));
    break;
  }
  case FB_COUNT_64: {
    const uint m = dt == PT_F64 ? 0x7fffffffu : 0xffffffffu;
    s.i += int64_t(uint((w.x | (w.y & m)) != 0u) + uint((w.z | (w.w & m)) != 0u));
    break;
  }
  case FB_MAX_F32: case FB_MIN_F32: {
    const vec4 x = uintBitsToFloat(w);
    if (any(isnan(x))) s.nan = 1;
    /* NaN lanes are never picked; the flag makes the result NaN */
    float m = float(s.f);
    if (body == FB_MAX_F32) {
      m = x.x > m ? x.x : m; m = x.y > m ? x.y : m; m = x.z > m ? x.z : m; m = x.w > m ? x.w : m;
    } else {
      m = x.x < m ? x.x : m; m = x.y < m ? x.y : m; m = x.z < m ? x.z : m; m = x.w < m ? x.w : m;
    }
    s.f = double(m);
    break;
  }
  default: { /* FB_MAX_I32, FB_MIN_I32 */
    const ivec4 x = ivec4(w);
    int m = body == FB_MAX_I32 ? max(max(x.x, x.y), max(x.z, x.w)) : min(min(x.x, x.y), min(x.z, x.w));
    const int64_t m64 = int64_t(m);
    s.i = body == FB_MAX_I32 ? (m64 > s.i ? m64 : s.i) : (m64 < s.i ? m64 : s.i);
  }
  }
}

/* The bits of an element that leaves the body's result as it is (sums and counts: 0). */
uint pt_fast_fill(int body) {
  switch (body) {
  case FB_MAX_F32: return 0xff800000u; /* -inf */
  case FB_MIN_F32: return 0x7f800000u; /* inf */
  case FB_MAX_I32: return 0x80000000u;
  case FB_MIN_I32: return 0x7fffffffu;
  default: return 0u;
  }
}

/* m < 16 / sz elements from element i0 of the row, as a vector padded with fill (fill is 0
 * unless sz is 4). */
uvec4 pt_fast_partial(uint64_t row, int sz, int64_t i0, int64_t m, uint fill) {
  uvec4 v = uvec4(fill);
  for (int e = 0; e < int(m); e++) {
    const uint64_t b = pt_src_bits(row, sz, i0 + int64_t(e));
    if (sz == 8) {
      v[2 * e] = uint(b);
      v[2 * e + 1] = uint(b >> 32);
    } else if (sz == 4) v[e] = uint(b);
    else if (sz == 2) v[e >> 1] |= uint(b) << (16 * (e & 1));
    else v[e >> 2] |= uint(b) << (8 * (e & 3));
  }
  return v;
}

/* This invocation's part of a fast row (body from pt_fast_body); row, the address of the
 * row's first element, is aligned to the dtype's size. */
pt_acc pt_fast_part(uint64_t row, int dt, int kind, int body, int64_t n) {
  const int tid = int(gl_LocalInvocationID.x);
  const int sz = pt_dtype_size(dt);
  const bool fl = pt_is_float(dt);
  pt_acc s = pt_acc_init(kind);
  int64_t head = int64_t(((16ul - (row & 15ul)) & 15ul) / uint64_t(sz));
  if (head > n) head = n;
  const int64_t nv = (n - head) / int64_t(16 / sz), rest = head + nv * int64_t(16 / sz);
  const uint64_t vb = row + uint64_t(head * int64_t(sz));
  uvec4 x[8], y[8];
  if (tid < 2) { /* invocation 0 the elements before the first vector, 1 those after the last */
    x[0] = pt_fast_partial(row, sz, tid == 0 ? 0l : rest, tid == 0 ? head : n - rest, pt_fast_fill(body));
    pt_fv(s, x[0], body, dt);
  }
  PT_FAST_VECTORS
  return s;
}
bool pt_row_fast_has(int kind, int dt) { return pt_fast_body(kind, dt) >= 0; }
pt_acc pt_row_fast(in pt_view_row src, int kind, bool fl, int64_t n, int tid) {
  const uint64_t row = src.b + uint64_t(src.io * int64_t(pt_dtype_size(src.dt)));
  return pt_fold(pt_fast_part(row, src.dt, kind, pt_fast_body(kind, src.dt), n), kind, fl, tid);
}
${rowPasses(GLSL_REDUCE)}`;

/** The rows of a reduce-like main() (templates/reduce_rows.ts reduceRows), after its inner dims and views. */
const REDUCE_ROWS = reduceRows(GLSL_REDUCE);

export const REDUCE = REDUCE_BITS + VIEW_SOURCE + REDUCE_PARTS + reduceKernel(GLSL_DIALECT, GLSL_REDUCE);

/** ewreduce's block: [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x (nviews - 1), nconst, const x nconst]. */
const EWREDUCE_BLOCK: EwLayout = { rank: EWREDUCE.rank, shape: EWREDUCE.shape, views: EWREDUCE.views };

/** Per compute type of E (F32, F64, I32, I64): its dtype code, element size, and its bits from a value v. */
const E_TYPES = [
  { dt: "PT_F32", size: 4, bits: "uint64_t(floatBitsToUint(v))" },
  { dt: "PT_F64", size: 8, bits: "doubleBitsToUint64(v)" },
  { dt: "PT_I32", size: 4, bits: "uint64_t(uint(v))" },
  { dt: "PT_I64", size: 8, bits: "uint64_t(v)" },
];

/**
 * ewreduce's element source: E, the expression's values as the ew program would store them
 * in a buffer of their own, here a buffer at byte address 0 (aligned as the allocator
 * aligns E's) whose element f is pt_ew_value(f). The body's addresses are E's, so its
 * fast-path choices (head, vectors, tail) are those of the materialized E; every value goes
 * through the same folds in the same order, so the result is reduce's bit for bit.
 */
function ewSource(ct: number): string {
  const { size, bits } = E_TYPES[ct];
  const T = ["float", "double", "int", "int64_t"][ct];
  const lanes = size === 8
    ? `    const uint64_t b = pt_ew_bits(f + int64_t(e));
    v[2 * e] = uint(b);
    v[2 * e + 1] = uint(b >> 32);`
    : `    v[e] = uint(pt_ew_bits(f + int64_t(e)));`;
  return String.raw`
/* ---- the element source: E, computed; element f at byte address f * ${size} ---- */
uint64_t pt_ew_bits(int64_t f) {
  ${T} v;
  pt_ew_value(f, v);
  return ${bits};
}
uint64_t pt_src_bits(uint64_t b, int sz, int64_t i) { return pt_ew_bits(int64_t(b / ${size}ul) + i); }
void pt_src_bits8(uint64_t b, int sz, int64_t i0, int64_t step, out uint64_t x[8]) {
  const int64_t f0 = int64_t(b / ${size}ul) + i0;
  for (int u = 0; u < 8; u++) x[u] = pt_ew_bits(f0 + int64_t(u) * step);
}
/* The 16 bytes of E at the 16-byte aligned address a, as memory would hold them. */
uvec4 pt_src_v16(uint64_t a) {
  uvec4 v;
  const int64_t f = int64_t(a / ${size}ul);
  for (int e = 0; e < ${16 / size}; e++) {
${lanes}
  }
  return v;
}
/* Vectors tid, tid + 256, ... < nv, folded in that order as the view's loops fold them
 * (there is no load to hide here), and once for every body: pt_fv's cases are the bodies
 * the view's own loops call. */
#define PT_FAST_VECTORS \
  for (int64_t k = int64_t(tid); k < nv; k += PT_BLOCK) { x[0] = pt_src_v16(vb + uint64_t(k) * 16ul); pt_fv(s, x[0], body, dt); }
`;
}

/**
 * The "ewreduce" program of an elementwise bytecode (blocks.h): reduce's body over the
 * element source ewSource, with a main() that reads the ewreduce block. Row r is E's
 * elements [start + r * rowlen, + rowlen): one inner dim of stride 1, rows at stride
 * rowlen from element start, as reduce sees the materialized E.
 */
export function renderEwReduce(words: Int32Array): string {
  const { text, ct } = renderElementwiseValue(words, EWREDUCE_BLOCK);
  return PREAMBLE + text + REDUCE_BITS + ewSource(ct) + REDUCE_PARTS + String.raw`
/* ewreduce [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x
 *           (nviews - 1), nconst, const x nconst]; ROW launch over the rows. */
void main() {
  pt_ew_init();
  const int op = int(PT_A(PT_EWREDUCE_OP));
  const int orank = 1;
  const int64_t onum = PT_A(PT_EWREDUCE_ROWS), n = PT_A(PT_EWREDUCE_ROWLEN);
  int64_t oshape[PT_MAX_RANK], ishape[PT_MAX_RANK], istr[PT_MAX_RANK];
  for (int d = 0; d < PT_MAX_RANK; d++) {
    oshape[d] = d == 0 ? onum : 1l;
    ishape[d] = d == PT_MAX_RANK - 1 ? n : 1l;
    istr[d] = d == PT_MAX_RANK - 1 ? 1l : 0l;
  }
  const bool isflat = true;
  pt_view vin; /* E: rows of n from element start, rowlen apart */
  vin.b = 0ul;
  vin.dt = ${E_TYPES[ct].dt};
  vin.off = PT_A(PT_EWREDUCE_START);
  for (int d = 0; d < PT_MAX_RANK; d++) vin.st[d] = d == 0 ? n : 0l;
  const pt_view vout = pt_view_at(PT_EWREDUCE_VIEWS);
` + REDUCE_ROWS + "}\n";
}
