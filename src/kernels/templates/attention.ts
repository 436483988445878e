/**
 * attention written once (ROW launch; the CPU's is attention.c): softmax(scale q k^T + mask) v with no [L, S] matrix in
 * memory. A group owns ATTENTION_QUERIES consecutive queries of one batch entry (a row of the launch), each served by
 * PT_BLOCK / ATTENTION_QUERIES consecutive invocations, its lanes, that split the features: a lane holds its slice of q
 * and of the output in registers, a quarter of a row, so that several groups fit on a multiprocessor. Key and value
 * rows (and the mask's columns) pass through shared memory PT_ATT_BC keys at a time; each lane writes its partial dot
 * products with the tile's keys to shared memory, and the lanes split the tile's keys for the softmax: lane r sums the
 * four partials (in lane order) of keys r, r + 4, ..., scales and masks them and shares their maximum; every lane of
 * the query takes the same tile maximum (rescaling its slice once a tile), lane r exponentiates its keys' scores into
 * shared memory, and every lane reads all the tile's p, so that all of them hold the same m, l and p and add the
 * same weighted values over their slice. A causal group stops at its last query's key. The features are a compile-time
 * size: one program per size, the block's E and Ev at most that. Sums are float32 in key order, as attention.c's, but
 * each product is added by one fma (attention.c rounds twice) and a dot product is the sum of its lanes' slices.
 */
import type { Dialect } from "../dialect.ts";

/** The feature sizes a program is built for; a launch takes the smallest that holds its E and Ev. */
export const ATTENTION_SIZES = [16, 32, 64, 128] as const;

/** The queries a group owns (blocks.c's attention_block counts its rows by it): PT_BLOCK / this lanes a query. */
export const ATTENTION_QUERIES = 64;

/** Keys a shared tile may hold, longest first (the first that fits the dialect's shared memory is taken), and groups
 * a multiprocessor should keep (CUDA's register cap), by feature size. Longer tiles spread each tile's five barriers
 * and its softmax step over more keys. */
const PLAN: Readonly<Record<number, { keys: readonly number[]; groups: number }>> = {
  16: { keys: [16], groups: 4 },
  32: { keys: [24, 16], groups: 4 },
  64: { keys: [24, 16], groups: 3 },
  128: { keys: [16, 8], groups: 2 },
};

/** The shared bytes of a program: ks and vs (rows of size + 16 floats), sp (PT_BLOCK a key), ms (rows of keys + 4). */
const sharedBytes = (size: number, keys: number): number => 4 * (2 * keys * (size + 16) + keys * 256 + ATTENTION_QUERIES * (keys + 4));

/** The keys of a tile for `size` features in dialect `d`. */
const tileKeys = (d: Dialect, size: number): number => {
  const keys = PLAN[size].keys.find((k) => sharedBytes(size, k) <= d.sharedBytes);
  if (keys === undefined) throw new Error(`attention: no key tile of ${size} features fits ${d.sharedBytes} shared bytes`);
  return keys;
};

/** The attention kernel for rows of at most `size` features. */
export const attention = (d: Dialect, size: number): string =>
  String.raw`
#undef PT_ATT_E
#undef PT_ATT_BC
#undef PT_ATT_KL
#undef PT_ATT_QB
#undef PT_ATT_LANES
#undef PT_ATT_EL
#undef PT_ATT_LS
#undef PT_ATT_KR
#undef PT_ATT_MR
#undef PT_ATT_KU
#undef PT_ATT_MU
#define PT_ATT_E ${size}
#define PT_ATT_BC ${tileKeys(d, size)}
#define PT_ATT_QB ${ATTENTION_QUERIES} /* queries a group owns */
#define PT_ATT_LANES (PT_BLOCK / PT_ATT_QB) /* invocations a query */
#define PT_ATT_EL (PT_ATT_E / PT_ATT_LANES) /* features a lane */
#define PT_ATT_KL (PT_ATT_BC / PT_ATT_LANES) /* keys of a tile a lane scores and exponentiates */
#define PT_ATT_LS (PT_ATT_EL + 4) /* a lane's slice of a shared key or value row, padded against bank conflicts */
#define PT_ATT_KR (PT_ATT_LANES * PT_ATT_LS) /* a shared key or value row */
#define PT_ATT_MR (PT_ATT_BC + 4) /* a query's row of the shared mask tile, then of its p; the 4 after: its lanes' maxima */
#define PT_ATT_KU (PT_BLOCK / PT_ATT_E) /* keys the group loads at once */
#define PT_ATT_MU (PT_BLOCK / PT_ATT_BC) /* queries' masks the group loads at once (its first PT_ATT_MU * PT_ATT_BC) */
#if PT_BLOCK % PT_ATT_QB != 0 || PT_BLOCK % PT_ATT_E != 0 || PT_ATT_BC % 4 != 0 || PT_ATT_BC % PT_ATT_LANES != 0
#error attention: the lanes or features do not divide the group or the tile
#endif
#if PT_ATT_BC * PT_ATT_E % PT_BLOCK != 0
#error attention: the group does not load a tile in whole steps
#endif
PT_SHARED_GLOBAL_N(float, ks, PT_ATT_BC * PT_ATT_KR)
PT_SHARED_GLOBAL_N(float, vs, PT_ATT_BC * PT_ATT_KR)
PT_SHARED_GLOBAL_N(float, sp, PT_ATT_BC * PT_BLOCK)
PT_SHARED_GLOBAL_N(float, ms, PT_ATT_QB * PT_ATT_MR)
${d.bounds(PLAN[size].groups)}${d.kernel}
  PT_SHARED_LOCAL_N(float, ks, PT_ATT_BC * PT_ATT_KR)
  PT_SHARED_LOCAL_N(float, vs, PT_ATT_BC * PT_ATT_KR)
  PT_SHARED_LOCAL_N(float, sp, PT_ATT_BC * PT_BLOCK) /* sp[jj * PT_BLOCK + tid]: lane tid's partial score with key jj */
  PT_SHARED_LOCAL_N(float, ms, PT_ATT_QB * PT_ATT_MR) /* ms[qi * PT_ATT_MR + jj]: query qi's mask at key jj, then its p */
  const int brank = int(PT_A(PT_ATTENTION_BRANK));
  pt_i64 bshape[PT_MAX_RANK];
  const pt_i64 batch = PT_SHAPE(PT_ATTENTION_BSHAPE, brank, bshape);
  const pt_i64 L = PT_A(PT_ATTENTION_L), S = PT_A(PT_ATTENTION_S);
  const int E = int(PT_A(PT_ATTENTION_E)), EV = int(PT_A(PT_ATTENTION_EV));
  const float scale = pt_as_f32(pt_u32(PT_A(PT_ATTENTION_SCALE_BITS))), ninf = pt_as_f32(0xff800000u);
  const bool causal = PT_A(PT_ATTENTION_CAUSAL) != pt_i64(0), masked = PT_A(PT_ATTENTION_MASKED) != pt_i64(0);
  const int qi = PT_TID / PT_ATT_LANES, lane = PT_TID % PT_ATT_LANES, e0 = lane * PT_ATT_EL; /* the lane's first feature */
  const int at = qi * PT_ATT_LANES, ls = lane * PT_ATT_LS; /* its query's first partial in sp; its slice of a shared row */
  const int le = PT_TID % PT_ATT_E, lj = PT_TID / PT_ATT_E; /* the feature and first key it loads into ks and vs */
  const int lw = le / PT_ATT_EL * PT_ATT_LS + le % PT_ATT_EL; /* where that feature lies in a shared row */
  const int mj = PT_TID % PT_ATT_BC, mq = PT_TID / PT_ATT_BC; /* the key and first query it loads into ms */
  const pt_i64 tiles = (L + pt_i64(PT_ATT_QB - 1)) / pt_i64(PT_ATT_QB);
  for (pt_i64 row = pt_i64(PT_GROUP_ID); row < batch * tiles; row += pt_i64(PT_GROUPS)) {
    /* the views are read inside the loop, where they die once their offsets are taken (registers) */
    const pt_view vq = PT_VIEW(PT_ATTENTION_Q), vk = PT_VIEW(PT_ATTENTION_K), vv = PT_VIEW(PT_ATTENTION_V);
    const pt_view vm = PT_VIEW(PT_ATTENTION_MASK);
    const pt_i64 kr = PT_A(PT_ATTENTION_K_ROWS), kc = PT_A(PT_ATTENTION_K_COLS);
    const pt_i64 vr = PT_A(PT_ATTENTION_V_ROWS), vc = PT_A(PT_ATTENTION_V_COLS);
    const pt_i64 mr = PT_A(PT_ATTENTION_MASK_ROWS), mc = PT_A(PT_ATTENTION_MASK_COLS);
    const pt_i64 b = row / tiles, i0 = row % tiles * pt_i64(PT_ATT_QB), i = i0 + pt_i64(qi);
    const bool live = i < L;
    const pt_i64 qo = vq.off + pt_offset_of(b, brank, bshape, vq.st) + i * PT_A(PT_ATTENTION_Q_ROWS);
    const pt_i64 ko = vk.off + pt_offset_of(b, brank, bshape, vk.st), vbase = vv.off + pt_offset_of(b, brank, bshape, vv.st);
    const pt_i64 kp = ko + pt_i64(lj) * kr + pt_i64(le) * kc, vp = vbase + pt_i64(lj) * vr + pt_i64(le) * vc;
    const pt_i64 kstep = pt_i64(PT_ATT_KU) * kr, vstep = pt_i64(PT_ATT_KU) * vr, mstep = pt_i64(PT_ATT_MU) * mr;
    const pt_i64 mo = masked ? vm.off + pt_offset_of(b, brank, bshape, vm.st) : pt_i64(0);
    const pt_i64 mp = mo + (i0 + pt_i64(mq)) * mr + pt_i64(mj) * mc;
    float q[PT_ATT_EL];
    float o[PT_ATT_EL];
    PT_UNROLL_REGS
    for (int f = 0; f < PT_ATT_EL; f++) {
      q[f] = 0.0f;
      o[f] = 0.0f;
      if (live && e0 + f < E) q[f] = pt_raw_f32(vq.b, qo + pt_i64(e0 + f) * PT_A(PT_ATTENTION_Q_COLS));
    }
    float m = ninf, l = 0.0f;
    const pt_i64 last = (i0 + pt_i64(PT_ATT_QB) < L ? i0 + pt_i64(PT_ATT_QB) : L) - pt_i64(1); /* the group's last query */
    const pt_i64 jend = causal && last + pt_i64(1) < S ? last + pt_i64(1) : S;
    for (pt_i64 j0 = pt_i64(0); j0 < jend; j0 += pt_i64(PT_ATT_BC)) {
      PT_SYNC();
      /* step u: feature le of key j0 + lj + u PT_ATT_KU into ks and vs; the mask of query i0 + mq + u PT_ATT_MU at key j0 + mj */
      const pt_i64 kleft = S - j0 - pt_i64(lj); /* keys from the thread's first */
      pt_i64 ka = kp + j0 * kr, va = vp + j0 * vr;
      PT_UNROLL
      for (int u = 0; u < PT_ATT_BC * PT_ATT_E / PT_BLOCK; u++) {
        float kx = 0.0f, vx = 0.0f;
        if (pt_i64(u * PT_ATT_KU) < kleft) {
          if (le < E) kx = pt_raw_f32(vk.b, ka);
          if (le < EV) vx = pt_raw_f32(vv.b, va);
        }
        ks[(lj + u * PT_ATT_KU) * PT_ATT_KR + lw] = kx;
        vs[(lj + u * PT_ATT_KU) * PT_ATT_KR + lw] = vx;
        ka += kstep;
        va += vstep;
      }
      if (masked) {
        const bool kin = j0 + pt_i64(mj) < S;
        const pt_i64 qleft = L - i0 - pt_i64(mq); /* queries from the thread's first */
        pt_i64 ma = mp + j0 * mc;
        PT_UNROLL
        for (int u = 0; u < (PT_ATT_QB + PT_ATT_MU - 1) / PT_ATT_MU; u++) {
#if PT_BLOCK % PT_ATT_BC != 0 || PT_ATT_QB % PT_ATT_MU != 0
          if (mq < PT_ATT_MU && mq + u * PT_ATT_MU < PT_ATT_QB)
#endif
          {
            float mx = 0.0f;
            if (kin && pt_i64(u * PT_ATT_MU) < qleft) mx = pt_raw_f32(vm.b, ma);
            ms[(mq + u * PT_ATT_MU) * PT_ATT_MR + mj] = mx;
          }
          ma += mstep;
        }
      }
      PT_SYNC();
      PT_UNROLL
      for (int jj = 0; jj < PT_ATT_BC; jj++) {
        float dot = 0.0f;
        PT_UNROLL_REGS
        for (int f = 0; f < PT_ATT_EL; f++) dot = pt_fma_f32(q[f], ks[jj * PT_ATT_KR + ls + f], dot);
        sp[jj * PT_BLOCK + PT_TID] = dot;
      }
      PT_SYNC();
      /* lane r scores the tile's keys r, r + PT_ATT_LANES, ...: the four partials summed in lane order, scaled, masked */
      const pt_i64 seen = (causal && i + pt_i64(1) < S ? i + pt_i64(1) : S) - j0; /* keys from j0 the query sees */
      const int keys = seen < pt_i64(PT_ATT_BC) ? int(seen) : PT_ATT_BC;
      float s[PT_ATT_KL];
      float mt = ninf;
      PT_UNROLL_REGS
      for (int t = 0; t < PT_ATT_KL; t++) {
        const int jj = lane + t * PT_ATT_LANES;
        float dot = sp[jj * PT_BLOCK + at];
        PT_UNROLL
        for (int c = 1; c < PT_ATT_LANES; c++) dot += sp[jj * PT_BLOCK + at + c];
        float x = jj < keys ? dot * scale : ninf;
        if (masked && jj < keys) x += ms[qi * PT_ATT_MR + jj];
        s[t] = x;
        if (x > mt) mt = x;
      }
      ms[qi * PT_ATT_MR + PT_ATT_BC + lane] = mt;
      PT_SYNC();
      /* every lane of the query takes the same tile maximum from the lanes' in lane order, and rescales alike */
      float mn = m;
      PT_UNROLL
      for (int c = 0; c < PT_ATT_LANES; c++) {
        const float x = ms[qi * PT_ATT_MR + PT_ATT_BC + c];
        if (x > mn) mn = x;
      }
      if (mn > m) {
        const float c = pt_exp_f32(m - mn);
        l *= c;
        PT_UNROLL_REGS
        for (int f = 0; f < PT_ATT_EL; f++) o[f] *= c;
        m = mn;
      }
      /* lane r exponentiates its keys' scores into the mask's row (read above, by itself alone): a masked-out key
       * weighs 0, a NaN score stays NaN and makes the row NaN, as PyTorch's */
      PT_UNROLL_REGS
      for (int t = 0; t < PT_ATT_KL; t++) {
        const float p = pt_exp_f32(s[t] - m); /* NaN where m is -infinity too, hence the select */
        ms[qi * PT_ATT_MR + lane + t * PT_ATT_LANES] = s[t] == ninf ? 0.0f : p;
      }
      PT_SYNC();
      PT_UNROLL
      for (int jj = 0; jj < PT_ATT_BC; jj++) {
        const float p = ms[qi * PT_ATT_MR + jj];
        l += p;
        PT_UNROLL_REGS
        for (int f = 0; f < PT_ATT_EL; f++) o[f] = pt_fma_f32(p, vs[jj * PT_ATT_KR + ls + f], o[f]);
      }
    }
    if (live) {
      const pt_view vo = PT_VIEW(PT_ATTENTION_OUT);
      const pt_i64 oo = vo.off + pt_offset_of(b, brank, bshape, vo.st) + i * PT_A(PT_ATTENTION_OUT_ROWS);
      const pt_i64 ocol = PT_A(PT_ATTENTION_OUT_COLS);
      PT_UNROLL_REGS
      for (int f = 0; f < PT_ATT_EL; f++) {
        if (e0 + f < EV) pt_put_f32(vo.b, oo + pt_i64(e0 + f) * ocol, o[f] / l);
      }
    }
  }
}
`;
