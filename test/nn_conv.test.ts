/**
 * pt.nn's spatial functions against plain JS loops: conv2d and conv1d against a direct
 * six-loop convolution (stride, padding numbers, "same" and "valid", dilation, groups, bias,
 * unbatched and strided inputs), maxPool2d and avgPool2d (padding, countIncludePad), pad's four
 * modes, adaptiveAvgPool2d's bins and interpolate's nearest and bilinear rules; gradients
 * against finite differences; bad input as TensorErrors naming the function.
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

interface Conv {
  n: number;
  c: number;
  h: number;
  w: number;
  cout: number;
  kh: number;
  kw: number;
  stride: [number, number];
  pad: [number, number, number, number]; // top, bottom, left, right
  dil: [number, number];
  groups: number;
}

/** The direct convolution: for each output (n, o, y, x), the sum over the group's channels and the kernel's taps. */
function jsConv(x: number[], w: number[], b: number[] | null, p: Conv): { out: number[]; oh: number; ow: number } {
  const oh = Math.floor((p.h + p.pad[0] + p.pad[1] - p.dil[0] * (p.kh - 1) - 1) / p.stride[0]) + 1;
  const ow = Math.floor((p.w + p.pad[2] + p.pad[3] - p.dil[1] * (p.kw - 1) - 1) / p.stride[1]) + 1;
  const cg = p.c / p.groups, og = p.cout / p.groups, out: number[] = [];
  for (let n = 0; n < p.n; n++) {
    for (let o = 0; o < p.cout; o++) {
      const g = Math.floor(o / og);
      for (let y = 0; y < oh; y++) {
        for (let xx = 0; xx < ow; xx++) {
          let s = b ? b[o] : 0;
          for (let ci = 0; ci < cg; ci++) {
            for (let i = 0; i < p.kh; i++) {
              for (let j = 0; j < p.kw; j++) {
                const iy = y * p.stride[0] + i * p.dil[0] - p.pad[0], ix = xx * p.stride[1] + j * p.dil[1] - p.pad[2];
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                s += x[((n * p.c + g * cg + ci) * p.h + iy) * p.w + ix] * w[((o * cg + ci) * p.kh + i) * p.kw + j];
              }
            }
          }
          out.push(s);
        }
      }
    }
  }
  return { out, oh, ow };
}

test("conv2d matches a direct six-loop convolution: stride, padding, dilation, groups, bias, odd sizes", () => {
  const cases: [string, Partial<Conv>, pt.nn.ConvOptions][] = [
    ["plain 3x3", {}, {}],
    ["stride 2, padding 1", { stride: [2, 2], pad: [1, 1, 1, 1] }, { stride: 2, padding: 1 }],
    ["stride [1, 3], padding [2, 0], dilation [2, 1]", { stride: [1, 3], pad: [2, 2, 0, 0], dil: [2, 1] }, {
      stride: [1, 3],
      padding: [2, 0],
      dilation: [2, 1],
    }],
    ["groups 2", { groups: 2, c: 4, cout: 6 }, { groups: 2 }],
    ["depthwise", { groups: 4, c: 4, cout: 4 }, { groups: 4 }],
    ["same, even kernel", { kh: 2, kw: 4, pad: [0, 1, 1, 2] }, { padding: "same" }],
    ["same, dilated", { pad: [2, 2, 2, 2], dil: [2, 2] }, { padding: "same", dilation: 2 }],
  ];
  for (const [name, over, opts] of cases) {
    const p: Conv = { n: 2, c: 3, h: 7, w: 9, cout: 5, kh: 3, kw: 3, stride: [1, 1], pad: [0, 0, 0, 0], dil: [1, 1], groups: 1, ...over };
    const { t: x, v: xv } = rand([p.n, p.c, p.h, p.w], 1), { t: w, v: wv } = rand([p.cout, p.c / p.groups, p.kh, p.kw], 2);
    const { t: b, v: bv } = rand([p.cout], 3);
    const want = jsConv(xv, wv, bv, p), got = pt.nn.conv2d(x, w, b, opts);
    assert.deepEqual([...got.shape], [p.n, p.cout, want.oh, want.ow], name);
    assertClose(nums(got), want.out, 1e-5, 1e-5, name);
  }
});

test("conv2d of an unbatched and of a strided (permuted) input; conv1d as a height of 1", () => {
  const { t: base } = rand([2, 6, 5, 3], 4); // read as [N, H, W, C], permuted to [N, C, H, W]: strided
  const x = base.permute([0, 3, 1, 2]), { t: w, v: wv } = rand([4, 3, 2, 2], 5);
  const dense = nums(x.contiguous());
  const p: Conv = { n: 2, c: 3, h: 6, w: 5, cout: 4, kh: 2, kw: 2, stride: [1, 1], pad: [1, 1, 1, 1], dil: [1, 1], groups: 1 };
  assertClose(nums(pt.nn.conv2d(x, w, undefined, { padding: 1 })), jsConv(dense, wv, null, p).out, 1e-5, 1e-5, "strided");
  const one = pt.nn.conv2d(x.contiguous().narrow(0, 1, 1).squeeze(0), w);
  assert.deepEqual([...one.shape], [4, 5, 4]);
  assertClose(nums(one), jsConv(dense.slice(90), wv, null, { ...p, n: 1, pad: [0, 0, 0, 0] }).out, 1e-5, 1e-5, "unbatched");
  const { t: s, v: sv } = rand([2, 3, 11], 6), { t: k, v: kv } = rand([4, 3, 3], 7);
  const q: Conv = { n: 2, c: 3, h: 1, w: 11, cout: 4, kh: 1, kw: 3, stride: [1, 2], pad: [0, 0, 1, 1], dil: [1, 1], groups: 1 };
  const r = pt.nn.conv1d(s, k, undefined, { stride: 2, padding: 1 });
  assert.deepEqual([...r.shape], [2, 4, 6]);
  assertClose(nums(r), jsConv(sv, kv, null, q).out, 1e-5, 1e-5, "conv1d");
});

test("maxPool2d and avgPool2d match JS windows: stride, padding, dilation, countIncludePad", () => {
  const { t: x, v } = rand([2, 3, 7, 6], 8), H = 7, W = 6;
  const windows = (k: number, s: number, p: number, d: number, f: (vals: number[], count: number) => number) => {
    const oh = Math.floor((H + 2 * p - d * (k - 1) - 1) / s) + 1,
      ow = Math.floor((W + 2 * p - d * (k - 1) - 1) / s) + 1,
      out: number[] = [];
    for (let nc = 0; nc < 6; nc++) {
      for (let y = 0; y < oh; y++) {
        for (let xx = 0; xx < ow; xx++) {
          const vals: number[] = [];
          for (let i = 0; i < k; i++) {
            for (let j = 0; j < k; j++) {
              const iy = y * s + i * d - p, ix = xx * s + j * d - p;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W) vals.push(v[(nc * H + iy) * W + ix]);
            }
          }
          out.push(f(vals, k * k));
        }
      }
    }
    return out;
  };
  const max = (a: number[]) => Math.max(...a), mean = (a: number[], n: number) => a.reduce((u, w) => u + w, 0) / n;
  assertClose(nums(pt.nn.maxPool2d(x, 2)), windows(2, 2, 0, 1, max), 0, 0, "max 2");
  assertClose(nums(pt.nn.maxPool2d(x, 3, { stride: 2, padding: 1, dilation: 2 })), windows(3, 2, 1, 2, max), 0, 0, "max dilated");
  assertClose(nums(pt.nn.avgPool2d(x, 3, { stride: 2, padding: 1 })), windows(3, 2, 1, 1, mean), 1e-5, 1e-6, "avg, pad counted");
  assertClose(
    nums(pt.nn.avgPool2d(x, 3, { stride: 2, padding: 1, countIncludePad: false })),
    windows(3, 2, 1, 1, (a) => mean(a, a.length)),
    1e-5,
    1e-6,
    "avg, pad not counted",
  );
  assert.deepEqual([...pt.nn.maxPool2d(x.narrow(0, 0, 1).squeeze(0), 3).shape], [3, 2, 2], "unbatched");
});

test("pad in constant (and cropping), reflect, replicate and circular modes over one and two dims", () => {
  const t = pt.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(pt.nn.pad(t, [1, 2], "constant", 9).toList(), [[9, 1, 2, 3, 9, 9], [9, 4, 5, 6, 9, 9]]);
  assert.deepEqual(pt.nn.pad(t, [-1, 0, 1, 0]).toList(), [[0, 0], [2, 3], [5, 6]]);
  assert.deepEqual(pt.nn.pad(t, [2, 1], "reflect").toList(), [[3, 2, 1, 2, 3, 2], [6, 5, 4, 5, 6, 5]]);
  assert.deepEqual(pt.nn.pad(t, [1, 1, 1, 0], "replicate").toList(), [[1, 1, 2, 3, 3], [1, 1, 2, 3, 3], [4, 4, 5, 6, 6]]);
  assert.deepEqual(pt.nn.pad(t, [3, 1], "circular").toList(), [[1, 2, 3, 1, 2, 3, 1], [4, 5, 6, 4, 5, 6, 4]]);
  assert.deepEqual(pt.nn.pad(t.T, [0, 0, 1, 1], "reflect").toList(), [[2, 5], [1, 4], [2, 5], [3, 6], [2, 5]], "strided input");
  assert.equal(pt.nn.pad(pt.tensor([1n, 2n]), [1, 0], "constant", 7).dtype, "int64");
  assertTensorError(() => pt.nn.pad(t, [3, 0], "reflect"), /nn\.pad/, /at most 2/);
  assertTensorError(() => pt.nn.pad(t, [1, 1, 1]), /nn\.pad/, /pairs/);
});

test("adaptiveAvgPool2d averages PyTorch's bins; interpolate's nearest and bilinear follow PyTorch's source rules", () => {
  const { t: x, v } = rand([1, 2, 5, 7], 9);
  const bins = (n: number, o: number) => Array.from({ length: o }, (_, i) => [Math.floor((i * n) / o), Math.ceil(((i + 1) * n) / o)]);
  const want: number[] = [];
  for (let c = 0; c < 2; c++) {
    for (const [a, b] of bins(5, 3)) {
      for (const [e, f] of bins(7, 4)) {
        let s = 0;
        for (let i = a; i < b; i++) for (let j = e; j < f; j++) s += v[(c * 5 + i) * 7 + j];
        want.push(s / ((b - a) * (f - e)));
      }
    }
  }
  assertClose(nums(pt.nn.adaptiveAvgPool2d(x, [3, 4])), want, 1e-5, 1e-6, "adaptive");
  assertClose(
    nums(pt.nn.adaptiveAvgPool2d(x, 1)),
    [0, 1].map((c) => v.slice(c * 35, c * 35 + 35).reduce((a, b) => a + b, 0) / 35),
    1e-5,
    1e-6,
  );
  const src = (o: number, n: number, corners: boolean) =>
    corners
      ? (o > 1 ? Array.from({ length: o }, (_, i) => (i * (n - 1)) / (o - 1)) : [0])
      : Array.from({ length: o }, (_, i) => Math.max(0, ((i + 0.5) * n) / o - 0.5));
  for (const corners of [false, true]) {
    const ys = src(8, 5, corners), xs = src(3, 7, corners), out: number[] = [];
    for (let c = 0; c < 2; c++) {
      for (const sy of ys) {
        for (const sx of xs) {
          const y0 = Math.floor(sy), x0 = Math.floor(sx), y1 = Math.min(y0 + 1, 4), x1 = Math.min(x0 + 1, 6), ty = sy - y0, tx = sx - x0;
          const at = (i: number, j: number) => v[(c * 5 + i) * 7 + j];
          out.push((1 - ty) * ((1 - tx) * at(y0, x0) + tx * at(y0, x1)) + ty * ((1 - tx) * at(y1, x0) + tx * at(y1, x1)));
        }
      }
    }
    assertClose(
      nums(pt.nn.interpolate(x, { size: [8, 3], mode: "bilinear", alignCorners: corners })),
      out,
      1e-5,
      1e-6,
      `bilinear ${corners}`,
    );
  }
  const near = pt.nn.interpolate(x, { scaleFactor: [2, 0.5] }); // [10, 3]: source floor(i / 2), floor(j * 2)
  assert.deepEqual([...near.shape], [1, 2, 10, 3]);
  const nv = nums(near);
  for (let i = 0; i < 10; i++) for (let j = 0; j < 3; j++) assert.equal(nv[i * 3 + j], v[Math.floor(i / 2) * 7 + j * 2]);
  assertTensorError(() => pt.nn.interpolate(x, {}), /nn\.interpolate/, /size or scaleFactor/);
  assertTensorError(() => pt.nn.interpolate(x, { size: 4, alignCorners: true }), /bilinear only/);
});

test("bad convolution and pooling arguments are TensorErrors naming the op and the values", () => {
  const x = pt.zeros([1, 4, 5, 5]);
  assertTensorError(
    () => pt.nn.conv2d(x, pt.zeros([2, 3, 3, 3])),
    /nn\.conv2d/,
    /input has 4 channels but weight \[2, 3, 3, 3\] expects 3/,
  );
  assertTensorError(
    () => pt.nn.conv2d(x, pt.zeros([3, 2, 3, 3]), undefined, { groups: 2 }),
    /nn\.conv2d/,
    /dividing input channels 4 and output channels 3/,
  );
  assertTensorError(() => pt.nn.conv2d(x, pt.zeros([2, 4, 7, 3])), /nn\.conv2d/, /kernel 7x3 .* larger than the padded input 5x5/);
  assertTensorError(
    () => pt.nn.conv2d(x, pt.zeros([2, 4, 3, 3]), undefined, { stride: 0 }),
    /nn\.conv2d/,
    /stride must be an integer >= 1/,
  );
  assertTensorError(() => pt.nn.conv2d(x, pt.zeros([2, 4, 3, 3]), undefined, { stride: 2, padding: "same" }), /"same" needs stride 1/);
  assertTensorError(() => pt.nn.conv2d(x, pt.zeros([2, 4, 3, 3]), pt.zeros([3])), /nn\.conv2d/, /bias must be \[Cout\] = \[2\]/);
  assertTensorError(() => pt.nn.conv2d(pt.zeros([5, 5]), pt.zeros([2, 4, 3, 3])), /nn\.conv2d/, /\[N, C, H, W\]/);
  assertTensorError(() => pt.nn.maxPool2d(x, 2, { padding: 2 }), /nn\.maxPool2d/, /at most half the kernel/);
  assertTensorError(() => pt.nn.maxPool2d(x, 7), /nn\.maxPool2d/, /larger than the padded input/);
  assertTensorError(() => pt.nn.avgPool2d(x, 2, { dilation: 2 }), /nn\.avgPool2d/, /no dilation/);
});

test("gradients through conv2d (groups, stride, padding), conv1d, the pools, pad, adaptiveAvgPool2d and interpolate", () => {
  const X = randomInput([2, 4, 5, 6], 71), W = randomInput([6, 2, 3, 2], 72), B = randomInput([6], 73);
  gradcheck("conv2d", (x, w, b) => pt.nn.conv2d(x, w, b, { groups: 2, stride: [2, 1], padding: [1, 0] }), [X, W, B]);
  gradcheck("conv1d same", (x, w) => pt.nn.conv1d(x, w, undefined, { padding: "same" }), [
    randomInput([2, 3, 7], 74),
    randomInput([4, 3, 3], 75),
  ]);
  gradcheck("maxPool2d (distinct values)", (x) => pt.nn.maxPool2d(x, 2, { stride: 1 }), [X]);
  gradcheck("avgPool2d", (x) => pt.nn.avgPool2d(x, 3, { stride: 2, padding: 1, countIncludePad: false }), [X]);
  gradcheck("pad reflect", (x) => pt.nn.pad(x, [2, 1, 1, 1], "reflect"), [X]);
  gradcheck("adaptiveAvgPool2d", (x) => pt.nn.adaptiveAvgPool2d(x, [2, 4]), [X]);
  gradcheck("interpolate bilinear", (x) => pt.nn.interpolate(x, { size: [7, 4], mode: "bilinear" }), [X]);
});

test("float32 conv2d (the fused columns) has the float64 composition's gradients: stride, padding, dilation, groups", () => {
  const grads = (dtype: pt.DType, opts: pt.nn.ConvOptions, c: number) =>
    pt.tidy(() => {
      const x = rand([2, c, 9, 8], 1).t.cast(dtype).requiresGrad_(),
        w = rand([4, c / (opts.groups ?? 1), 3, 2], 2).t.cast(dtype).requiresGrad_();
      const y = pt.nn.conv2d(x, w, undefined, opts);
      y.mul(rand([...y.shape], 3).t.cast(dtype)).sum().backward();
      return [nums(x.grad!), nums(w.grad!)];
    });
  for (
    const [opts, c] of [
      [{}, 2],
      [{ stride: [2, 1], padding: [1, 2] }, 2],
      [{ dilation: [2, 3], padding: "same" }, 2],
      [{ groups: 2, stride: 3, padding: 1 }, 4],
    ] as [pt.nn.ConvOptions, number][]
  ) {
    const [got, want] = [grads("float32", opts, c), grads("float64", opts, c)];
    assertClose(got[0], want[0], 1e-4, 1e-5, `dx ${JSON.stringify(opts)}`);
    assertClose(got[1], want[1], 1e-4, 1e-5, `dw ${JSON.stringify(opts)}`);
  }
});

test("conv2d over more (batch, channel) planes than a launch has groups: 70000 planes of 3x4", () => {
  const n = 70000, x = rand([n, 1, 3, 4], 5), w = rand([1, 1, 2, 2], 6);
  const got = nums(pt.nn.conv2d(x.t, w.t, undefined, { padding: [0, 1] }));
  const want = jsConv(x.v, w.v, null, {
    n,
    c: 1,
    h: 3,
    w: 4,
    cout: 1,
    kh: 2,
    kw: 2,
    stride: [1, 1],
    pad: [0, 0, 1, 1],
    dil: [1, 1],
    groups: 1,
  });
  assert.equal(want.oh * want.ow, 10);
  for (const i of [0, 1, 65534, 65535, 65536, 69999]) {
    assertClose(got.slice(i * 10, i * 10 + 10), want.out.slice(i * 10, i * 10 + 10), 1e-5, 1e-6, `plane ${i}`);
  }
  x.t.dispose();
  w.t.dispose();
});
