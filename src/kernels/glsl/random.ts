/**
 * matmul (params.h's 128x128 or 64x64 tile dispatch). The CPU version is matmul.c.
 */
import { coopMatmul } from "./coopmat.ts";

/**
 * The f32 tile of T x T outputs (T = 128: 8x8 outputs an invocation, 8-deep K slabs; T = 64:
 * 4x4 outputs, 16-deep slabs): invocation (tx, ty) = (tid % 16, tid / 16) owns rows
 * ty*4 + 64h + i and columns tx*4 + 64h + j, so its operands come out of shared memory as
 * 16-byte vectors (one address per half-warp for A, consecutive ones for B). The slabs are
 * double-buffered: the next slab's global loads are issued before the current one's FMAs
 * and stored after them, one barrier a slab. Each operand is loaded as 4 consecutive
 * elements an invocation along its unit-stride dim (one 16-byte load where the launch's
 * strides and addresses allow it, else one by one), consecutive invocations on consecutive
 * vectors; elements outside the matrix read as 0 and their outputs are never stored.
 * Every output is one fma chain over k in order from 0, as before.
 */
function mmF32(name: string, T: 64 | 128): string {
  const BK = T === 128 ? 8 : 16, RH = T / 64, SW = T / 4 + 1;
  const H = [...Array(RH).keys()], I = [0, 1, 2, 3], XYZW = ["x", "y", "z", "w"];
  // The accumulators are named values, not an array: a driver that does not unroll a loop
  // whose body indexes an array keeps that array in local memory.
  const acc = (hr: number, i: number, hc: number) => `acc${hr}${i}${hc}`;
  const all = H.flatMap((hr) => I.flatMap((i) => H.map((hc) => acc(hr, i, hc))));
  const step = String.raw`{
        ${H.map((h) => `const vec4 a${h} = uintBitsToFloat(sma[sb + kk * ${SW} + ${h * 16} + ty]);`).join(" ")}
        ${H.map((h) => `const vec4 b${h} = uintBitsToFloat(smb[sb + kk * ${SW} + ${h * 16} + tx]);`).join(" ")}
        ${
    H.flatMap((hr) => I.flatMap((i) => H.map((hc) => `${acc(hr, i, hc)} = fma(vec4(a${hr}.${XYZW[i]}), b${hc}, ${acc(hr, i, hc)});`))).join(
      "\n        ",
    )
  }
      }`;
  const spread = (sm: string, v: string, row: string, word: string) =>
    I.map((j) => `${sm}[o + (${row} + ${j}) * ${SW} + ${word} / 4][${word} & 3] = ${v}.${XYZW[j]};`).join(" ");
  const stores = H.flatMap((hr) =>
    I.flatMap((i) =>
      H.map((hc) =>
        String.raw`{
    const int64_t row = row0 + ${hr * 64 + i} + ty * 4, col = col0 + ${hc * 64} + tx * 4;
    pt_mm_put4(cb, cdt, co, row, col, M, N, crs, ccs, cvec, ${acc(hr, i, hc)});
  }`
      )
    )
  ).join("\n  ");
  return String.raw`
/* ${T}x${T} f32 tile at (row0, col0): A and B are byte addresses of element (0, 0) (batch
 * offset included), C the element offset co into C.b. amode 0: A's 4 elements go along k
 * (stored transposed), 1: along m; bmode 0: B's along n, 1: along k (stored transposed). */
void ${name}(uint64_t ab, uint64_t bb, uint64_t cb, int cdt, int64_t co, int64_t M, int64_t N, int64_t K,
             int64_t ars, int64_t acs, int64_t brs, int64_t bcs, int64_t crs, int64_t ccs,
             int amode, int bmode, bool avec, bool bvec, bool cvec, int64_t row0, int64_t col0) {
  const int tid = int(gl_LocalInvocationID.x), tx = tid % 16, ty = tid / 16;
  const int am = amode == 0 ? tid / ${BK / 4} : (tid % ${T / 4}) * 4, ak = amode == 0 ? (tid % ${BK / 4}) * 4 : tid / ${T / 4};
  const int bn = bmode == 0 ? (tid % ${T / 4}) * 4 : tid / ${BK / 4}, bk = bmode == 0 ? tid / ${T / 4} : (tid % ${BK / 4}) * 4;
  vec4 ${all.map((a) => `${a} = vec4(0.0)`).join(", ")};
  uvec4 ra = uvec4(0u), rb = uvec4(0u);
#define PT_MM_LOAD(KB) \
    ra = pt_mm_ld4(ab, ars, acs, row0 + am, (KB) + ak, M, K, amode == 0, avec); \
    rb = pt_mm_ld4(bb, brs, bcs, (KB) + bk, col0 + bn, K, N, bmode == 0, bvec);
#define PT_MM_STORE(BUF) { \
    const int o = (BUF) * ${BK * SW}; \
    if (amode == 1) sma[o + ak * ${SW} + am / 4] = ra; \
    else { ${spread("sma", "ra", "ak", "am")} } \
    if (bmode == 0) smb[o + bk * ${SW} + bn / 4] = rb; \
    else { ${spread("smb", "rb", "bk", "bn")} } \
  }
  if (K > 0l) {
    PT_MM_LOAD(0l)
    PT_MM_STORE(0)
  }
  barrier();
  for (int64_t k0 = 0; k0 < K; k0 += ${BK}l) {
    const int cur = int((k0 / ${BK}l) & 1l), sb = cur * ${BK * SW};
    const bool more = k0 + ${BK}l < K;
    if (more) { PT_MM_LOAD(k0 + ${BK}l) }
    if (k0 + ${BK}l <= K) {
      [[unroll]] for (int kk = 0; kk < ${BK}; kk++) ${step}
    } else {
      const int kn = int(K - k0);
      for (int kk = 0; kk < kn; kk++) ${step}
    }
    if (more) PT_MM_STORE(cur ^ 1)
    barrier();
  }
#undef PT_MM_LOAD
#undef PT_MM_STORE
  ${stores}
}
`;
}

/**
 * matmul: a group computes one TM x TM tile of C, TM = 128 when M and N are both above 64,
 * else 64 (the driver's grid follows the same rule). f32 takes mmF32's register-tiled
 * kernel. The other dtypes take the 64x64 kernel (once per 64x64 quarter of a 128 tile):
 * 4x4 outputs per invocation at rows ty + 16r and columns tx + 16c, through 16-deep K
 * slices of A and B staged in shared memory. f32 and f64 accumulate in their own type with
 * fma in K order; i32 in uint32 and i64 in uint64 with wrap (the low 32 bits of matmul.c's
 * uint64 sum are the uint32 sum). i32 stages 32-bit words and f64/i64 64-bit ones, in the
 * f32 kernel's shared arrays; another dtype, which the front end casts away first, takes
 * the f64 path through the generic loads.
 */
export const MATMUL = String.raw`
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer PtW16 { vec4 v; };
/* f32: 2 slabs x BK x (TM/4 + 1) 16-byte words per operand (128: 2 x 8 x 33; 64: 2 x 16 x
 * 17; the extra word a row keeps the transposed stores free of bank conflicts). The 64x64
 * kernel keeps its 16x64 slices here too: 1024 32-bit or 64-bit words per operand. */
#define PT_MM_SH 544
shared uvec4 sma[PT_MM_SH];
shared uvec4 smb[PT_MM_SH];

/* Four consecutive elements of an f32/i32 operand (R x C, strides rs, cs, from address base)
 * from (r, c), along its columns (alongc) or rows, as bits: one 16-byte load where the
 * launch allows it (vec: unit stride that way, the other a multiple of 4, base 16-byte
 * aligned) and all four are inside; else one by one, 0 outside. */
uvec4 pt_mm_ld4(uint64_t base, int64_t rs, int64_t cs, int64_t r, int64_t c, int64_t R, int64_t C, bool alongc, bool vec) {
  if (vec && (alongc ? r < R && c + 3l < C : r + 3l < R && c < C)) return PtV16(base + uint64_t(r * rs + c * cs) * 4ul).v[0];
  const int64_t dr = alongc ? 0l : 1l, dc = alongc ? 1l : 0l;
#define PT_MM_EL(J) (r + J * dr < R && c + J * dc < C ? PtU32(base + uint64_t((r + J * dr) * rs + (c + J * dc) * cs) * 4ul).v : 0u)
  return uvec4(PT_MM_EL(0l), PT_MM_EL(1l), PT_MM_EL(2l), PT_MM_EL(3l));
#undef PT_MM_EL
}
/* Outputs (row, col..col+3) of a tile: one 16-byte store where cvec allows and all four are inside. */
void pt_mm_put4(uint64_t cb, int cdt, int64_t co, int64_t row, int64_t col, int64_t M, int64_t N, int64_t crs, int64_t ccs,
                bool cvec, vec4 v) {
  if (row >= M) return;
  if (cvec && col + 3l < N) {
    PtW16(cb + uint64_t(co + row * crs + col) * 4ul).v = v;
    return;
  }
#define PT_MM_PUT(J, X) \
  if (col + J < N) { \
    const int64_t ci = co + row * crs + (col + J) * ccs; \
    if (cdt == PT_F32) pt_put_f32(cb, ci, X); \
    else pt_st_f64(cb, cdt, ci, double(X)); \
  }
  PT_MM_PUT(0l, v.x) PT_MM_PUT(1l, v.y) PT_MM_PUT(2l, v.z) PT_MM_PUT(3l, v.w)
#undef PT_MM_PUT
}
${coopMatmul()}
${mmF32("pt_mm_f32_128", 128)}
${mmF32("pt_mm_f32_64", 64)}
#define TK 16
#define TS 64
uint pt_sa32(int i) { return sma[i >> 2][i & 3]; }
uint pt_sb32(int i) { return smb[i >> 2][i & 3]; }
uint64_t pt_sa64(int i) { return packUint2x32(uvec2(sma[i >> 1][(i & 1) * 2], sma[i >> 1][(i & 1) * 2 + 1])); }
uint64_t pt_sb64(int i) { return packUint2x32(uvec2(smb[i >> 1][(i & 1) * 2], smb[i >> 1][(i & 1) * 2 + 1])); }
void pt_sa32_set(int i, uint v) { sma[i >> 2][i & 3] = v; }
void pt_sb32_set(int i, uint v) { smb[i >> 2][i & 3] = v; }
void pt_sa64_set(int i, uint64_t v) { const uvec2 u = unpackUint2x32(v); sma[i >> 1][(i & 1) * 2] = u.x; sma[i >> 1][(i & 1) * 2 + 1] = u.y; }
void pt_sb64_set(int i, uint64_t v) { const uvec2 u = unpackUint2x32(v); smb[i >> 1][(i & 1) * 2] = u.x; smb[i >> 1][(i & 1) * 2 + 1] = u.y; }

/* The 64x64 tile at (row0, col0) of the other dtypes: mode 1 f64 (and any dtype through the
 * generic loads), 2 i32, 3 i64; ao, bo, co are the batch's element offsets. */
void pt_mm_tile64(pt_view A, pt_view B, pt_view C, int mode, int64_t ao, int64_t bo, int64_t co, int64_t M, int64_t N,
                  int64_t K, int64_t ars, int64_t acs, int64_t brs, int64_t bcs, int64_t crs, int64_t ccs, int64_t row0,
                  int64_t col0) {
  const int tid = int(gl_LocalInvocationID.x), tx = tid % 16, ty = tid / 16;
  /* one accumulator array for every mode (bit casts cost nothing) */
  uint64_t acc[16];
  for (int q = 0; q < 16; q++) acc[q] = 0ul;
  for (int64_t k0 = 0; k0 < K; k0 += TK) {
    /* A slice: 64 rows x 16 k, stored k-major; B slice: 16 k x 64 columns. */
    for (int q = 0; q < 4; q++) {
      const int s = tid + 256 * q;
      const int ak = s % TK, am = s / TK, bn = s % TS, bk = s / TS;
      const int64_t ar = row0 + am, ac = k0 + ak, br = k0 + bk, bc = col0 + bn;
      const bool ain = ar < M && ac < K, bin = br < K && bc < N;
      const int64_t ai = ao + ar * ars + ac * acs, bi = bo + br * brs + bc * bcs;
      if (mode == 2) {
        pt_sa32_set(ak * TS + am, ain ? PtU32(A.b + uint64_t(ai) * 4ul).v : 0u);
        pt_sb32_set(bk * TS + bn, bin ? PtU32(B.b + uint64_t(bi) * 4ul).v : 0u);
      } else if (mode == 3) {
        pt_sa64_set(ak * TS + am, ain ? PtU64(A.b + uint64_t(ai) * 8ul).v : 0ul);
        pt_sb64_set(bk * TS + bn, bin ? PtU64(B.b + uint64_t(bi) * 8ul).v : 0ul);
      } else {
        pt_sa64_set(ak * TS + am, doubleBitsToUint64(ain ? pt_ld_f64(A.b, A.dt, ai) : 0.0lf));
        pt_sb64_set(bk * TS + bn, doubleBitsToUint64(bin ? pt_ld_f64(B.b, B.dt, bi) : 0.0lf));
      }
    }
    barrier();
    const int kn = int(min(int64_t(TK), K - k0));
#define PT_MM_LOOP(STEP) \
    for (int kk = 0; kk < kn; kk++) \
      for (int r = 0; r < 4; r++) \
        for (int c = 0; c < 4; c++) { \
          const int ia = kk * TS + ty + 16 * r, ib = kk * TS + tx + 16 * c, q = r * 4 + c; \
          STEP; \
        }
    if (mode == 2) {
      PT_MM_LOOP(acc[q] = uint64_t(uint(acc[q]) + pt_sa32(ia) * pt_sb32(ib)))
    } else if (mode == 3) {
      PT_MM_LOOP(acc[q] += pt_sa64(ia) * pt_sb64(ib))
    } else {
      PT_MM_LOOP(acc[q] = doubleBitsToUint64(fma(uint64BitsToDouble(pt_sa64(ia)), uint64BitsToDouble(pt_sb64(ib)), uint64BitsToDouble(acc[q]))))
    }
#undef PT_MM_LOOP
    barrier();
  }
  for (int r = 0; r < 4; r++) {
    for (int c = 0; c < 4; c++) {
      const int64_t row = row0 + ty + 16 * r, col = col0 + tx + 16 * c;
      if (row >= M || col >= N) continue;
      const int64_t ci = co + row * crs + col * ccs;
      const int q = r * 4 + c;
      if (mode == 2) pt_st_i64(C.b, C.dt, ci, int64_t(int(uint(acc[q]))));
      else if (mode == 3) pt_st_i64(C.b, C.dt, ci, int64_t(acc[q]));
      else pt_st_f64(C.b, C.dt, ci, uint64BitsToDouble(acc[q]));
    }
  }
}

/* One output of a small product (params.h: M*N <= 256), as one chain over k in order from 0 like
 * the tiles (so the same bits): batched tiny matrices (conv2d's columns of small planes, say)
 * would otherwise spend a 64x64 tile and its barriers on each; ai, bi, ci are element offsets
 * of A's row, B's column and the output. */
void pt_mm_one(pt_view A, pt_view B, pt_view C, int mode, int64_t ai, int64_t bi, int64_t ci, int64_t K, int64_t acs, int64_t brs) {
  if (mode == 0) {
    float s = 0.0;
    for (int64_t k = 0; k < K; k++) s = fma(pt_raw_f32(A.b, ai + k * acs), pt_raw_f32(B.b, bi + k * brs), s);
    if (C.dt == PT_F32) pt_put_f32(C.b, ci, s);
    else pt_st_f64(C.b, C.dt, ci, double(s));
  } else if (mode == 2) {
    uint s = 0u;
    for (int64_t k = 0; k < K; k++) s += PtU32(A.b + uint64_t(ai + k * acs) * 4ul).v * PtU32(B.b + uint64_t(bi + k * brs) * 4ul).v;
    pt_st_i64(C.b, C.dt, ci, int64_t(int(s)));
  } else if (mode == 3) {
    uint64_t s = 0ul;
    for (int64_t k = 0; k < K; k++) s += PtU64(A.b + uint64_t(ai + k * acs) * 8ul).v * PtU64(B.b + uint64_t(bi + k * brs) * 8ul).v;
    pt_st_i64(C.b, C.dt, ci, int64_t(s));
  } else {
    double s = 0.0lf;
    for (int64_t k = 0; k < K; k++) s = fma(pt_ld_f64(A.b, A.dt, ai + k * acs), pt_ld_f64(B.b, B.dt, bi + k * brs), s);
    pt_st_f64(C.b, C.dt, ci, s);
  }
}

/* matmul (slots.ts; A, B and C's VIEW strides are the batch dims', each followed by its row and col strides);
 * dispatch (min(ceil(N/TM), 65535), min(ceil(M/TM), 65535), min(batch, 65535)),
 * TM = M > 64 && N > 64 ? 128 : 64; a group takes every gl_NumWorkGroups-th tile and batch;
 * small products (M*N <= 256) take pt_mm_one on the driver's (1, 1, ceil(batch / (256 / (M*N)))). */
void main() {
  const int brank = int(PT_P.a[PT_MATMUL_BRANK]);
  int64_t bshape[PT_MAX_RANK];
  const int64_t batch = pt_shape_at(PT_MATMUL_BSHAPE, brank, bshape);
  const int64_t M = PT_A(PT_MATMUL_M), N = PT_A(PT_MATMUL_N), K = PT_A(PT_MATMUL_K);
  const pt_view A = pt_view_at(PT_MATMUL_A), B = pt_view_at(PT_MATMUL_B), C = pt_view_at(PT_MATMUL_C);
  const int64_t ars = PT_A(PT_MATMUL_A_ROWS), acs = PT_A(PT_MATMUL_A_COLS), brs = PT_A(PT_MATMUL_B_ROWS), bcs = PT_A(PT_MATMUL_B_COLS),
        crs = PT_A(PT_MATMUL_C_ROWS), ccs = PT_A(PT_MATMUL_C_COLS);
  const int dt = A.dt;
  const int mode = dt == PT_F32 && B.dt == PT_F32 ? 0 : dt == PT_I32 ? 2 : dt == PT_I64 ? 3 : 1;
  const int64_t TM = M > 64l && N > 64l ? 128l : 64l, tilesM = (M + TM - 1l) / TM, tilesN = (N + TM - 1l) / TM;
  /* f32 operand loads: along the unit-stride dim (A: k, else m; B: n, else k) */
  const int amode = acs == 1l || ars != 1l ? 0 : 1, bmode = bcs == 1l || brs != 1l ? 0 : 1;
  if (M * N <= 256l) { /* params.h's small products: invocation tid computes output tid % (M*N) of batch tid / (M*N) */
    const int64_t MN = M * N, per = 256l / MN, tid = int64_t(gl_LocalInvocationID.x), row = (tid % MN) / N, col = tid % N;
    if (tid >= per * MN) return;
    for (int64_t e = int64_t(gl_WorkGroupID.z) * per + tid / MN; e < batch; e += int64_t(gl_NumWorkGroups.z) * per) {
      const int64_t ai = A.off + pt_offset_of(e, brank, bshape, A.st) + row * ars;
      const int64_t bi = B.off + pt_offset_of(e, brank, bshape, B.st) + col * bcs;
      pt_mm_one(A, B, C, mode, ai, bi, C.off + pt_offset_of(e, brank, bshape, C.st) + row * crs + col * ccs, K, acs, brs);
    }
    return;
  }
  for (int64_t e = int64_t(gl_WorkGroupID.z); e < batch; e += int64_t(gl_NumWorkGroups.z))
  for (int64_t ty = int64_t(gl_WorkGroupID.y); ty < tilesM; ty += int64_t(gl_NumWorkGroups.y))
  for (int64_t tx = int64_t(gl_WorkGroupID.x); tx < tilesN; tx += int64_t(gl_NumWorkGroups.x)) {
    const int64_t row0 = ty * TM, col0 = tx * TM;
    const int64_t ao = A.off + pt_offset_of(e, brank, bshape, A.st);
    const int64_t bo = B.off + pt_offset_of(e, brank, bshape, B.st);
    const int64_t co = C.off + pt_offset_of(e, brank, bshape, C.st);
#ifdef PT_VK_COOPMAT
    if (dt == PT_F16 && B.dt == PT_F16 && C.dt == PT_F16 && TM == 128l) {
      pt_mm_coop(A.b + uint64_t(ao) * 2ul, B.b + uint64_t(bo) * 2ul, C.b, co, M, N, K, ars, acs, brs, bcs, crs, ccs, row0, col0);
      continue;
    }
#endif
    if (mode == 0) {
      const uint64_t ab = A.b + uint64_t(ao) * 4ul, bb = B.b + uint64_t(bo) * 4ul;
      /* 16-byte loads and stores: unit stride along the vector, the other stride a multiple
       * of 4 elements, the start 16-byte aligned */
      const bool avec = (amode == 0 ? acs == 1l && (ars & 3l) == 0l : (acs & 3l) == 0l) && (ab & 15ul) == 0ul;
      const bool bvec = (bmode == 0 ? bcs == 1l && (brs & 3l) == 0l : (bcs & 3l) == 0l) && (bb & 15ul) == 0ul;
      const bool cvec = C.dt == PT_F32 && ccs == 1l && (crs & 3l) == 0l && ((C.b + uint64_t(co) * 4ul) & 15ul) == 0ul;
      if (TM == 128l) pt_mm_f32_128(ab, bb, C.b, C.dt, co, M, N, K, ars, acs, brs, bcs, crs, ccs, amode, bmode, avec, bvec, cvec, row0, col0);
      else pt_mm_f32_64(ab, bb, C.b, C.dt, co, M, N, K, ars, acs, brs, bcs, crs, ccs, amode, bmode, avec, bvec, cvec, row0, col0);
    } else {
      for (int64_t r = 0; r < TM; r += 64l)
        for (int64_t c = 0; c < TM; c += 64l)
          pt_mm_tile64(A, B, C, mode, ao, bo, co, M, N, K, ars, acs, brs, bcs, crs, ccs, row0 + r, col0 + c);
    }
  }
}
`;
