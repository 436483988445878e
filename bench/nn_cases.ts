/**
 * The neural-network cases of issue #27 (bench/cases.ts includes them): softmax and layerNorm of [8192, 4096], conv2d
 * [32, 64, 56, 56] * [64, 64, 3, 3] with padding 1, and causal scaledDotProductAttention [8, 16, 1024, 64]. Each check
 * recomputes a few sampled rows or outputs in float64 in JS. conv2d and attention are PT_BENCH_FULL cases (too big for
 * the CPU in CI); bench/torch_peer.py and numpy_peer.py time the same expressions.
 */
import * as pt from "../mod.ts";

/** What a case needs of cases.ts's builder, passed in to keep the one-way import. */
export type Make = <S extends Record<string, pt.Tensor>>(
  name: string,
  setup: () => S,
  op: (s: S) => pt.Tensor,
  verify: (s: S, out: pt.Tensor) => void,
) => unknown;

const vals = (t: pt.Tensor) => t.toArray() as ArrayLike<number>;
function near(got: number, want: number, tol: number, what: string): void {
  if (!(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)))) throw new Error(`check failed: ${what}: got ${got}, want ${want}`);
}
const ROWS = 8192, COLS = 4096, SAMPLED = [0, 1, 4095, 8191];

/** Row r of a [ROWS, COLS] array. */
const row = (a: ArrayLike<number>, r: number) => Array.from({ length: COLS }, (_, c) => a[r * COLS + c]);

function checkSoftmax(x: pt.Tensor, out: pt.Tensor): void {
  const [xv, ov] = [vals(x), vals(out)];
  for (const r of SAMPLED) {
    const v = row(xv, r), m = Math.max(...v), s = v.reduce((a, b) => a + Math.exp(b - m), 0);
    for (let c = 0; c < COLS; c += 511) near(ov[r * COLS + c], Math.exp(v[c] - m) / s, 1e-5, `softmax[${r},${c}]`);
  }
}

function checkLayerNorm(x: pt.Tensor, w: pt.Tensor, b: pt.Tensor, out: pt.Tensor): void {
  const [xv, wv, bv, ov] = [vals(x), vals(w), vals(b), vals(out)];
  for (const r of SAMPLED) {
    const v = row(xv, r), mean = v.reduce((a, c) => a + c, 0) / COLS;
    const rstd = 1 / Math.sqrt(v.reduce((a, c) => a + (c - mean) ** 2, 0) / COLS + 1e-5);
    for (let c = 0; c < COLS; c += 511) near(ov[r * COLS + c], (v[c] - mean) * rstd * wv[c] + bv[c], 1e-4, `layerNorm[${r},${c}]`);
  }
}

function checkConv(x: pt.Tensor, w: pt.Tensor, out: pt.Tensor): void {
  const [xv, wv, ov] = [vals(x), vals(w), vals(out)], C = 64, H = 56;
  for (let k = 0; k < 32; k++) { // sampled outputs (n, o, i, j), borders included, against the direct sum
    const n = (k * 7) % 32, o = (k * 13) % 64, i = (k * 17) % H, j = k % 2 ? 0 : (k * 19) % H;
    let want = 0;
    for (let c = 0; c < C; c++) {
      for (let di = 0; di < 3; di++) {
        for (let dj = 0; dj < 3; dj++) {
          const y = i + di - 1, z = j + dj - 1;
          if (y >= 0 && y < H && z >= 0 && z < H) want += xv[((n * C + c) * H + y) * H + z] * wv[((o * C + c) * 3 + di) * 3 + dj];
        }
      }
    }
    near(ov[((n * 64 + o) * H + i) * H + j], want, 1e-4, `conv2d[${n},${o},${i},${j}]`);
  }
}

function checkAttention(q: pt.Tensor, k: pt.Tensor, v: pt.Tensor, out: pt.Tensor): void {
  const [qv, kv, vv, ov] = [vals(q), vals(k), vals(v), vals(out)], T = 1024, E = 64;
  for (const [bh, i] of [[0, 0], [5, 1], [77, 511], [127, 1023]]) { // (batch*head, query) samples, causal
    const base = bh * T * E, s: number[] = [];
    for (let j = 0; j <= i; j++) {
      let d = 0;
      for (let e = 0; e < E; e++) d += qv[base + i * E + e] * kv[base + j * E + e];
      s.push(d / 8);
    }
    const m = Math.max(...s), p = s.map((x) => Math.exp(x - m)), z = p.reduce((a, b) => a + b, 0);
    for (let e = 0; e < E; e += 9) {
      let want = 0;
      for (let j = 0; j <= i; j++) want += p[j] / z * vv[base + j * E + e];
      near(ov[base + i * E + e], want, 1e-4, `attention[${bh},${i},${e}]`);
    }
  }
}

/** The four cases, built by cases.ts's `mk`. */
export const nnCases = (mk: Make): unknown[] => [
  mk("softmax_8192x4096", () => ({ x: pt.randn([ROWS, COLS]) }), (s) => pt.nn.softmax(s.x, -1), (s, out) => checkSoftmax(s.x, out)),
  mk(
    "layer_norm_8192x4096",
    () => ({ x: pt.randn([ROWS, COLS]), w: pt.randn([COLS]), b: pt.randn([COLS]) }),
    (s) => pt.nn.layerNorm(s.x, [COLS], s.w, s.b),
    (s, out) => checkLayerNorm(s.x, s.w, s.b, out),
  ),
  mk(
    "conv2d_32x64x56x56_3x3",
    () => ({ x: pt.randn([32, 64, 56, 56]), w: pt.randn([64, 64, 3, 3]).mul(0.05) }),
    (s) => pt.nn.conv2d(s.x, s.w, undefined, { padding: 1 }),
    (s, out) => checkConv(s.x, s.w, out),
  ),
  mk(
    "sdpa_causal_8x16x1024x64",
    () => ({ q: pt.randn([8, 16, 1024, 64]), k: pt.randn([8, 16, 1024, 64]), v: pt.randn([8, 16, 1024, 64]) }),
    (s) => pt.nn.scaledDotProductAttention(s.q, s.k, s.v, { isCausal: true }),
    (s, out) => checkAttention(s.q, s.k, s.v, out),
  ),
];
/** The cases too big for the CPU in CI. */
export const NN_BIG = ["conv2d_32x64x56x56_3x3", "sdpa_causal_8x16x1024x64"];
