/**
 * The float16 matmul tile on cooperative matrices (VK_KHR_cooperative_matrix), for devices
 * whose driver defines PT_VK_COOPMAT: 16x16x16 float16 products accumulated in float32 at
 * subgroup scope, with subgroups of 32 (the driver's condition). A group of 256 (8
 * subgroups) computes a 128x128 tile of C: subgroup s owns rows 64 * (s / 4) and columns
 * 32 * (s % 4), four 16-row by two 16-column accumulators. K advances 32 at a time: the next
 * slab's A (128 x 32) and B (32 x 128) go from global memory to registers (8 halves a
 * 16-byte load where the strides and addresses allow, else one by one, 0 outside) while
 * the current slab's products run, then to shared memory. Results round once to float16,
 * as cuBLAS's do, and go to C through shared memory, one 16x16 block a subgroup at a time.
 */

/** Rows of the A slab and of the B slab in shared memory, in halves: 8 more than the data keeps 16-byte rows off one bank. */
const SA = 40, SB = 136;

const each = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** The GLSL text (inside the matmul program, after pt_mm_ld4). */
export function coopMatmul(): string {
  const acc = (i: number, j: number) => `acc${i}${j}`;
  const accs = each(4, (i) => each(2, (j) => acc(i, j))).flat();
  const step = (kk: number) =>
    [
      ...each(4, (i) => `coopMatLoad(fa${i}, pt_cma, (rs + ${16 * i}) * ${SA} + ${kk}, ${SA}, gl_CooperativeMatrixLayoutRowMajor);`),
      ...each(2, (j) => `coopMatLoad(fb${j}, pt_cmb, ${kk * SB} + cs + ${16 * j}, ${SB}, gl_CooperativeMatrixLayoutRowMajor);`),
      ...each(4, (i) => each(2, (j) => `${acc(i, j)} = coopMatMulAdd(fa${i}, fb${j}, ${acc(i, j)});`)).flat(),
    ].join("\n      ");
  const store = (i: number, j: number) =>
    String.raw`{
    const int64_t r0 = row0 + rs + ${16 * i}, c0 = col0 + cs + ${16 * j};
    pt_cm_out h = pt_cm_out(${acc(i, j)});
    if (cfast && r0 + 16l <= M && c0 + 16l <= N) {
      coopMatStore(h, PtH16(cb + uint64_t(co + r0 * crs + c0) * 2ul).v, 0u, uint(crs), gl_CooperativeMatrixLayoutRowMajor);
    } else {
      coopMatStore(h, pt_cmc, uint(sg * 256), 16u, gl_CooperativeMatrixLayoutRowMajor);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      [[unroll]] for (int e = 0; e < 8; e++) {
        const int q = lane * 8 + e, r = q / 16, c = q % 16;
        if (r0 + r < M && c0 + c < N) pt_put_u16(cb, co + (r0 + r) * crs + (c0 + c) * ccs, packFloat2x16(f16vec2(pt_cmc[sg * 256 + q], float16_t(0))) & 0xffffu);
      }
      subgroupBarrier();
    }
  }`;
  return String.raw`
#ifdef PT_VK_COOPMAT
layout(buffer_reference, std430, buffer_reference_align = 2) buffer PtH16 { float16_t v[]; };
shared float16_t pt_cma[128 * ${SA}];
shared float16_t pt_cmb[32 * ${SB}];
shared float16_t pt_cmc[8 * 256];
#define pt_cm_a coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define pt_cm_b coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define pt_cm_acc coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define pt_cm_out coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

/* Eight halves of a slab row from global memory as bits: A's along k from (r, c), B's
 * along n; v: one 16-byte load is allowed (unit stride that way, the other stride a
 * multiple of 8, base 16-byte aligned), used when all eight are inside. */
uvec4 pt_cm_ld8(uint64_t base, int64_t rs, int64_t cs, int64_t r, int64_t c, int64_t R, int64_t C, bool v) {
  if (v && r < R && c + 7l < C) return PtV16(base + uint64_t(r * rs + c) * 2ul).v[0];
#define PT_CM_EL(J) (r < R && c + J < C ? pt_raw_u16(base, r * rs + (c + J) * cs) : 0u)
  return uvec4(PT_CM_EL(0l) | PT_CM_EL(1l) << 16, PT_CM_EL(2l) | PT_CM_EL(3l) << 16, PT_CM_EL(4l) | PT_CM_EL(5l) << 16,
               PT_CM_EL(6l) | PT_CM_EL(7l) << 16);
#undef PT_CM_EL
}
/* Eight halves (as bits in u) to a slab row at o of A's (isA) or B's shared array. */
void pt_cm_spread(bool isA, int o, uvec4 u) {
  [[unroll]] for (int w = 0; w < 4; w++) {
    const f16vec2 h = unpackFloat2x16(u[w]);
    if (isA) { pt_cma[o + 2 * w] = h.x; pt_cma[o + 2 * w + 1] = h.y; }
    else { pt_cmb[o + 2 * w] = h.x; pt_cmb[o + 2 * w + 1] = h.y; }
  }
}

/* The 128x128 float16 tile at (row0, col0); ab, bb: byte addresses of A's and B's element
 * (0, 0) in this batch; C's elements at co (f16, strides crs, ccs). */
void pt_mm_coop(uint64_t ab, uint64_t bb, uint64_t cb, int64_t co, int64_t M, int64_t N, int64_t K, int64_t ars,
                int64_t acs, int64_t brs, int64_t bcs, int64_t crs, int64_t ccs, int64_t row0, int64_t col0) {
  const int tid = int(gl_LocalInvocationID.x), sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  const int rs = 64 * (sg / 4), cs = 32 * (sg % 4);
  const bool av = acs == 1l && (ars & 7l) == 0l && (ab & 15ul) == 0ul, bv = bcs == 1l && (brs & 7l) == 0l && (bb & 15ul) == 0ul;
  /* whole 16x16 blocks straight from the accumulators where C's rows are 16-byte aligned */
  const bool cfast = ccs == 1l && (crs & 7l) == 0l && crs <= 4294967295l && ((cb + uint64_t(co) * 2ul) & 15ul) == 0ul;
  /* slab vectors: A's (tid, tid + 256) are rows v / 4, halves 8 * (v % 4); B's rows v / 16, halves 8 * (v % 16) */
  const int ar = tid / 4, ak = 8 * (tid % 4), bk = tid / 16, bn = 8 * (tid % 16);
  pt_cm_acc ${accs.map((a) => `${a} = pt_cm_acc(0.0)`).join(", ")};
  pt_cm_a ${each(4, (i) => `fa${i}`).join(", ")};
  pt_cm_b ${each(2, (j) => `fb${j}`).join(", ")};
  uvec4 a0 = uvec4(0u), a1 = uvec4(0u), b0 = uvec4(0u), b1 = uvec4(0u);
#define PT_CM_LOAD(KB) \
    a0 = pt_cm_ld8(ab, ars, acs, row0 + ar, (KB) + ak, M, K, av); \
    a1 = pt_cm_ld8(ab, ars, acs, row0 + ar + 64l, (KB) + ak, M, K, av); \
    b0 = pt_cm_ld8(bb, brs, bcs, (KB) + bk, col0 + bn, K, N, bv); \
    b1 = pt_cm_ld8(bb, brs, bcs, (KB) + bk + 16l, col0 + bn, K, N, bv);
  if (K > 0l) { PT_CM_LOAD(0l) }
  for (int64_t k0 = 0; k0 < K; k0 += 32l) {
    barrier();
    pt_cm_spread(true, ar * ${SA} + ak, a0);
    pt_cm_spread(true, (ar + 64) * ${SA} + ak, a1);
    pt_cm_spread(false, bk * ${SB} + bn, b0);
    pt_cm_spread(false, (bk + 16) * ${SB} + bn, b1);
    barrier();
    if (k0 + 32l < K) { PT_CM_LOAD(k0 + 32l) }
    {
      ${step(0)}
    }
    {
      ${step(16)}
    }
  }
#undef PT_CM_LOAD
  ${each(4, (i) => each(2, (j) => store(i, j))).flat().join("\n  ")}
}
#endif
`;
}
