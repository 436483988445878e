/**
 * pt.nn.convTranspose2d and convTranspose1d against a plain JS scatter loop (each input pixel adds weight x value
 * into the output window it maps to): stride 1 to 3, padding, outputPadding, dilation, groups, bias, odd sizes,
 * batch 1 and more, unbatched and strided inputs; the identity that it is conv2d's gradient with respect to its
 * input; gradients against finite differences; bad input as TensorErrors naming the function and the values.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

function rand(shape: number[], seed: number): { t: pt.Tensor; v: number[] } {
  const r = rng(seed), n = shape.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, () => Math.fround(2 * r() - 1));
  return { t: pt.tensor(Float32Array.from(v)).reshape(shape), v };
}

interface Deconv {
  n: number;
  c: number;
  h: number;
  w: number;
  cout: number;
  kh: number;
  kw: number;
  stride: [number, number];
  pad: [number, number];
  outPad: [number, number];
  dil: [number, number];
  groups: number;
}

/** The scatter form: every input (n, ci, y, x) adds x * weight[ci, o, i, j] at (y s + i d - p, x s + j d - p) of channel o. */
function jsDeconv(x: number[], w: number[], b: number[] | null, p: Deconv): { out: number[]; oh: number; ow: number } {
  const oh = (p.h - 1) * p.stride[0] - 2 * p.pad[0] + p.dil[0] * (p.kh - 1) + p.outPad[0] + 1;
  const ow = (p.w - 1) * p.stride[1] - 2 * p.pad[1] + p.dil[1] * (p.kw - 1) + p.outPad[1] + 1;
  const cg = p.c / p.groups, og = p.cout / p.groups, out = new Array<number>(p.n * p.cout * oh * ow).fill(0);
  for (let n = 0; n < p.n; n++) {
    for (let o = 0; o < p.cout; o++) for (let k = 0; k < oh * ow; k++) out[(n * p.cout + o) * oh * ow + k] = b ? b[o] : 0;
    for (let ci = 0; ci < p.c; ci++) {
      const g = Math.floor(ci / cg);
      for (let y = 0; y < p.h; y++) {
        for (let xx = 0; xx < p.w; xx++) {
          const v = x[((n * p.c + ci) * p.h + y) * p.w + xx];
          for (let oo = 0; oo < og; oo++) {
            for (let i = 0; i < p.kh; i++) {
              for (let j = 0; j < p.kw; j++) {
                const oy = y * p.stride[0] + i * p.dil[0] - p.pad[0], ox = xx * p.stride[1] + j * p.dil[1] - p.pad[1];
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                out[((n * p.cout + g * og + oo) * oh + oy) * ow + ox] += v * w[((ci * og + oo) * p.kh + i) * p.kw + j];
              }
            }
          }
        }
      }
    }
  }
  return { out, oh, ow };
}

const BASE: Deconv = {
  n: 2,
  c: 4,
  h: 5,
  w: 7,
  cout: 3,
  kh: 3,
  kw: 3,
  stride: [1, 1],
  pad: [0, 0],
  outPad: [0, 0],
  dil: [1, 1],
  groups: 1,
};

test("convTranspose2d matches a direct scatter loop: stride 1-3, padding, outputPadding, dilation, groups, bias, batch 1 and 3", () => {
  const cases: [string, Partial<Deconv>, pt.nn.ConvTransposeOptions][] = [
    ["plain 3x3", {}, {}],
    ["batch 1, 1x1 kernel", { n: 1, kh: 1, kw: 1 }, {}],
    ["stride 2", { stride: [2, 2] }, { stride: 2 }],
    ["stride 2, padding 1, outputPadding 1", { stride: [2, 2], pad: [1, 1], outPad: [1, 1] }, {
      stride: 2,
      padding: 1,
      outputPadding: 1,
    }],
    ["stride 3, 4x2 kernel, outputPadding [2, 0]", { stride: [3, 3], kh: 4, kw: 2, outPad: [2, 0] }, {
      stride: 3,
      outputPadding: [2, 0],
    }],
    ["stride [1, 3], padding [2, 1], dilation [2, 1]", { stride: [1, 3], pad: [2, 1], dil: [2, 1] }, {
      stride: [1, 3],
      padding: [2, 1],
      dilation: [2, 1],
    }],
    ["dilation 2, outputPadding 1 below the dilation", { dil: [2, 2], outPad: [1, 1] }, { dilation: 2, outputPadding: 1 }],
    ["stride 2 kernel 2 (overlap-free upsampling)", { stride: [2, 2], kh: 2, kw: 2 }, { stride: 2 }],
    ["groups 2", { groups: 2, c: 4, cout: 6 }, { groups: 2 }],
    ["depthwise, stride 2, padding 1", { groups: 4, c: 4, cout: 4, stride: [2, 2], pad: [1, 1] }, {
      groups: 4,
      stride: 2,
      padding: 1,
    }],
    ["batch 3, odd 1x9 input, groups 2 of 3 outputs each", { n: 3, h: 1, w: 9, kh: 1, groups: 2, cout: 6 }, { groups: 2 }],
  ];
  for (const [name, over, opts] of cases) {
    const p: Deconv = { ...BASE, ...over };
    const { t: x, v: xv } = rand([p.n, p.c, p.h, p.w], 1), { t: w, v: wv } = rand([p.c, p.cout / p.groups, p.kh, p.kw], 2);
    const { t: b, v: bv } = rand([p.cout], 3);
    const want = jsDeconv(xv, wv, bv, p), got = pt.nn.convTranspose2d(x, w, b, opts);
    assert.deepEqual([...got.shape], [p.n, p.cout, want.oh, want.ow], name);
    assertClose(nums(got), want.out, 1e-5, 1e-5, name);
    const plain = pt.nn.convTranspose2d(x, w, undefined, opts);
    assertClose(nums(plain), jsDeconv(xv, wv, null, p).out, 1e-5, 1e-5, `${name}, no bias`);
  }
});

test("convTranspose2d of a strided (permuted) and an unbatched input; convTranspose1d as a height of 1", () => {
  const { t: base } = rand([2, 6, 5, 3], 4); // read as [N, H, W, C], permuted to [N, C, H, W]: strided
  const x = base.permute([0, 3, 1, 2]), { t: w, v: wv } = rand([3, 4, 3, 2], 5);
  const dense = nums(x.contiguous());
  const p: Deconv = { ...BASE, n: 2, c: 3, h: 6, w: 5, cout: 4, kh: 3, kw: 2, stride: [2, 2], pad: [1, 0], outPad: [1, 0] };
  const opts = { stride: 2, padding: [1, 0], outputPadding: [1, 0] };
  assertClose(nums(pt.nn.convTranspose2d(x, w, undefined, opts)), jsDeconv(dense, wv, null, p).out, 1e-5, 1e-5, "strided");
  const strided = pt.nn.convTranspose2d(x, w.transpose(2, 3).contiguous().transpose(2, 3), undefined, opts); // a strided weight
  assertClose(nums(strided), jsDeconv(dense, wv, null, p).out, 1e-5, 1e-5, "strided weight");
  const one = pt.nn.convTranspose2d(x.contiguous().narrow(0, 1, 1).squeeze(0), w, undefined, opts);
  assert.deepEqual([...one.shape], [4, 12, 10]);
  assertClose(nums(one), jsDeconv(dense.slice(90), wv, null, { ...p, n: 1 }).out, 1e-5, 1e-5, "unbatched");
  const { t: s, v: sv } = rand([2, 3, 11], 6), { t: k, v: kv } = rand([3, 4, 3], 7), { t: b, v: bv } = rand([4], 8);
  const q: Deconv = { ...BASE, n: 2, c: 3, h: 1, w: 11, cout: 4, kh: 1, kw: 3, stride: [1, 3], pad: [0, 1], outPad: [0, 2] };
  const r = pt.nn.convTranspose1d(s, k, b, { stride: 3, padding: 1, outputPadding: 2 });
  assert.deepEqual([...r.shape], [2, 4, 33]);
  assertClose(nums(r), jsDeconv(sv, kv, bv, q).out, 1e-5, 1e-5, "convTranspose1d");
  assert.deepEqual([...pt.nn.convTranspose1d(s.narrow(0, 0, 1).squeeze(0), k).shape], [4, 13], "unbatched 1-d");
});

test("convTranspose2d is conv2d's gradient with respect to its input (outputPadding recovers the input's size)", () => {
  const cases: [number[], number[], pt.nn.ConvOptions][] = [
    [[2, 3, 7, 8], [5, 3, 3, 3], { stride: 2, padding: 1 }],
    [[1, 4, 9, 6], [4, 2, 2, 3], { stride: [3, 2], padding: [0, 1], dilation: [1, 2], groups: 2 }],
    [[3, 2, 5, 5], [2, 2, 3, 1], {}],
  ];
  cases.forEach(([xs, ws, opts], c) => {
    const x = rand(xs, 10 + c).t.requiresGrad_(), w = rand(ws, 20 + c).t;
    const y = pt.nn.conv2d(x, w, undefined, opts);
    const g = rand([...y.shape], 30 + c).t;
    y.mul(g).sum().backward();
    const two = (v: unknown, fill: number) => [0, 1].map((i) => typeof v === "number" ? v : (v as number[] | undefined)?.[i] ?? fill);
    const s = two(opts.stride, 1), p = two(opts.padding, 0), d = two(opts.dilation, 1);
    const outputPadding = [0, 1].map((i) => (xs[2 + i] + 2 * p[i] - d[i] * (ws[2 + i] - 1) - 1) % s[i]);
    const t = pt.nn.convTranspose2d(g, w, undefined, { ...opts, padding: p, outputPadding } as pt.nn.ConvTransposeOptions);
    assert.deepEqual([...t.shape], xs, `case ${c}`);
    assertClose(nums(t), nums(x.grad!), 1e-5, 1e-5, `case ${c}`);
  });
});

test("gradients through convTranspose2d (input, weight, bias: stride, padding, outputPadding, dilation, groups) and convTranspose1d", () => {
  const X = randomInput([2, 4, 3, 4], 81), W = randomInput([4, 3, 3, 2], 82), B = randomInput([6], 83);
  gradcheck(
    "convTranspose2d",
    (x, w, b) => pt.nn.convTranspose2d(x, w, b, { groups: 2, stride: [2, 3], padding: [1, 0], outputPadding: [1, 2] }),
    [X, W, B],
  );
  gradcheck(
    "convTranspose2d dilated",
    (x, w) => pt.nn.convTranspose2d(x, w, undefined, { dilation: 2, padding: 1 }),
    [randomInput([1, 2, 4, 3], 84), randomInput([2, 3, 2, 3], 85)],
  );
  gradcheck("convTranspose1d", (x, w, b) => pt.nn.convTranspose1d(x, w, b, { stride: 2 }), [
    randomInput([2, 3, 5], 86),
    randomInput([3, 2, 3], 87),
    randomInput([2], 88),
  ]);
});

test("bad convTranspose2d arguments are TensorErrors naming nn.convTranspose2d and the values", () => {
  const x = pt.zeros([1, 4, 5, 5]);
  assertTensorError(
    () => pt.nn.convTranspose2d(x, pt.zeros([3, 2, 3, 3])),
    /nn\.convTranspose2d/,
    /input has 4 channels but weight \[3, 2, 3, 3\] expects 3/,
  );
  assertTensorError(
    () => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), undefined, { groups: 3 }),
    /nn\.convTranspose2d/,
    /groups 3 must be a positive integer dividing input channels 4/,
  );
  assertTensorError(() => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), undefined, { groups: 0 }), /groups 0/);
  for (const stride of [0, -1, [2, 0]]) {
    assertTensorError(
      () => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), undefined, { stride }),
      /nn\.convTranspose2d/,
      /stride must be an integer >= 1/,
    );
  }
  assertTensorError(
    () => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), undefined, { stride: 2, outputPadding: 2 }),
    /nn\.convTranspose2d/,
    /outputPadding \[2, 2\] must be smaller than stride \[2, 2\] or dilation \[1, 1\]/,
  );
  assertTensorError(
    () => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), undefined, { outputPadding: [0, 1] }),
    /outputPadding \[0, 1\] must be smaller than stride \[1, 1\]/,
  );
  assertTensorError(() => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), undefined, { padding: -1 }), /padding must be an integer >= 0/);
  assertTensorError(
    () => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 1, 1]), undefined, { padding: 3 }),
    /nn\.convTranspose2d/,
    /output size -1x-1 is empty/,
  );
  assertTensorError(
    () => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3, 3]), pt.zeros([3])),
    /nn\.convTranspose2d/,
    /bias must be \[Cout\] = \[2\]/,
  );
  assertTensorError(() => pt.nn.convTranspose2d(pt.zeros([5, 5]), pt.zeros([4, 2, 3, 3])), /nn\.convTranspose2d/, /\[N, C, H, W\]/);
  assertTensorError(() => pt.nn.convTranspose2d(x, pt.zeros([4, 2, 3])), /nn\.convTranspose2d/, /weight must be \[Cin, Cout/);
  assertTensorError(() => pt.nn.convTranspose2d(x.to("int32"), pt.zeros([4, 2, 3, 3])), /nn\.convTranspose2d/, /floating-point/);
  assertTensorError(() => pt.nn.convTranspose1d(x, pt.zeros([4, 2, 3])), /nn\.convTranspose1d/, /\[N, C, L\]/);
});
