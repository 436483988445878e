/**
 * attention written once (ROW launch; the CPU's is attention.c): softmax(scale q k^T + mask) v with no [L, S] matrix in
 * memory. One invocation owns one query and a group PT_BLOCK consecutive queries of one batch entry (a row of the
 * launch); key and value rows pass through shared memory PT_ATT_BC at a time, and each query keeps a running maximum,
 * normaliser and output in registers (online softmax), rescaled once a tile. A causal group stops at its last query's
 * key. The features are a compile-time size (q and the output live in registers): one program per size, the block's E
 * and Ev at most that. Sums are float32 in key order, as attention.c's.
 */
import type { Dialect } from "../dialect.ts";

/** The feature sizes a program is built for; a launch takes the smallest that holds its E and Ev. */
export const ATTENTION_SIZES = [16, 32, 64, 128] as const;

/** The attention kernel for rows of at most `size` features. */
export const attention = (d: Dialect, size: number): string =>
  String.raw`
#undef PT_ATT_E
#undef PT_ATT_BC
#define PT_ATT_E ${size}
#define PT_ATT_BC ${size > 64 ? 16 : 32}
PT_SHARED_GLOBAL_N(float, ks, PT_ATT_BC * PT_ATT_E)
PT_SHARED_GLOBAL_N(float, vs, PT_ATT_BC * PT_ATT_E)
${d.bounds(1)}${d.kernel}
  PT_SHARED_LOCAL_N(float, ks, PT_ATT_BC * PT_ATT_E)
  PT_SHARED_LOCAL_N(float, vs, PT_ATT_BC * PT_ATT_E)
  const int brank = int(PT_A(PT_ATTENTION_BRANK));
  pt_i64 bshape[PT_MAX_RANK];
  const pt_i64 batch = PT_SHAPE(PT_ATTENTION_BSHAPE, brank, bshape);
  const pt_i64 L = PT_A(PT_ATTENTION_L), S = PT_A(PT_ATTENTION_S);
  const int E = int(PT_A(PT_ATTENTION_E)), EV = int(PT_A(PT_ATTENTION_EV));
  const float scale = pt_as_f32(pt_u32(PT_A(PT_ATTENTION_SCALE_BITS))), ninf = pt_as_f32(0xff800000u);
  const bool causal = PT_A(PT_ATTENTION_CAUSAL) != pt_i64(0), masked = PT_A(PT_ATTENTION_MASKED) != pt_i64(0);
  const pt_view vq = PT_VIEW(PT_ATTENTION_Q), vk = PT_VIEW(PT_ATTENTION_K), vv = PT_VIEW(PT_ATTENTION_V);
  const pt_view vm = PT_VIEW(PT_ATTENTION_MASK), vo = PT_VIEW(PT_ATTENTION_OUT);
  const pt_i64 qr = PT_A(PT_ATTENTION_Q_ROWS), qc = PT_A(PT_ATTENTION_Q_COLS), kr = PT_A(PT_ATTENTION_K_ROWS);
  const pt_i64 kc = PT_A(PT_ATTENTION_K_COLS), vr = PT_A(PT_ATTENTION_V_ROWS), vc = PT_A(PT_ATTENTION_V_COLS);
  const pt_i64 mr = PT_A(PT_ATTENTION_MASK_ROWS), mc = PT_A(PT_ATTENTION_MASK_COLS);
  const pt_i64 orow = PT_A(PT_ATTENTION_OUT_ROWS), ocol = PT_A(PT_ATTENTION_OUT_COLS);
  const pt_i64 tiles = (L + pt_i64(PT_BLOCK - 1)) / pt_i64(PT_BLOCK);
  for (pt_i64 row = pt_i64(PT_GROUP_ID); row < batch * tiles; row += pt_i64(PT_GROUPS)) {
    const pt_i64 b = row / tiles, i0 = row % tiles * pt_i64(PT_BLOCK), i = i0 + pt_i64(PT_TID);
    const bool live = i < L;
    const pt_i64 qo = vq.off + pt_offset_of(b, brank, bshape, vq.st) + i * qr;
    const pt_i64 ko = vk.off + pt_offset_of(b, brank, bshape, vk.st), vbase = vv.off + pt_offset_of(b, brank, bshape, vv.st);
    const pt_i64 mo = masked ? vm.off + pt_offset_of(b, brank, bshape, vm.st) + i * mr : pt_i64(0);
    const pt_i64 oo = vo.off + pt_offset_of(b, brank, bshape, vo.st) + i * orow;
    float q[PT_ATT_E];
    float o[PT_ATT_E];
    PT_UNROLL_REGS
    for (int e = 0; e < PT_ATT_E; e++) {
      q[e] = 0.0f;
      o[e] = 0.0f;
      if (live && e < E) q[e] = pt_raw_f32(vq.b, qo + pt_i64(e) * qc);
    }
    float m = ninf, l = 0.0f;
    const pt_i64 last = (i0 + pt_i64(PT_BLOCK) < L ? i0 + pt_i64(PT_BLOCK) : L) - pt_i64(1); /* the group's last query */
    const pt_i64 jend = causal && last + pt_i64(1) < S ? last + pt_i64(1) : S;
    for (pt_i64 j0 = pt_i64(0); j0 < jend; j0 += pt_i64(PT_ATT_BC)) {
      PT_SYNC();
      for (int t = PT_TID; t < PT_ATT_BC * PT_ATT_E; t += PT_BLOCK) {
        const int e = t % PT_ATT_E;
        const pt_i64 j = j0 + pt_i64(t / PT_ATT_E);
        float kx = 0.0f, vx = 0.0f;
        if (j < S && e < E) kx = pt_raw_f32(vk.b, ko + j * kr + pt_i64(e) * kc);
        if (j < S && e < EV) vx = pt_raw_f32(vv.b, vbase + j * vr + pt_i64(e) * vc);
        ks[t] = kx;
        vs[t] = vx;
      }
      PT_SYNC();
      if (live) {
        float s[PT_ATT_BC];
        float mt = ninf;
        PT_UNROLL_REGS
        for (int jj = 0; jj < PT_ATT_BC; jj++) {
          const pt_i64 j = j0 + pt_i64(jj);
          float x = ninf;
          if (j < S && (!causal || j <= i)) {
            float dot = 0.0f;
            PT_UNROLL_REGS
            for (int e = 0; e < PT_ATT_E; e++) dot += q[e] * ks[jj * PT_ATT_E + e];
            x = dot * scale;
            if (masked) x += pt_raw_f32(vm.b, mo + j * mc);
          }
          s[jj] = x;
          if (x > mt) mt = x;
        }
        if (mt > m) {
          const float c = pt_exp_f32(m - mt);
          l *= c;
          PT_UNROLL_REGS
          for (int e = 0; e < PT_ATT_E; e++) o[e] *= c;
          m = mt;
        }
        if (m > ninf) {
          PT_UNROLL_REGS
          for (int jj = 0; jj < PT_ATT_BC; jj++) {
            const float p = pt_exp_f32(s[jj] - m); /* a NaN score stays NaN and makes the row NaN, as PyTorch's */
            l += p;
            PT_UNROLL_REGS
            for (int e = 0; e < PT_ATT_E; e++) o[e] += p * vs[jj * PT_ATT_E + e];
          }
        }
      }
    }
    if (live) {
      PT_UNROLL_REGS
      for (int e = 0; e < PT_ATT_E; e++) {
        if (e < EV) pt_put_f32(vo.b, oo + pt_i64(e) * ocol, o[e] / l);
      }
    }
  }
}
`;
