/**
 * `pt.nn`'s spatial functions as compositions: pad (index selection or concatenation),
 * conv1d and conv2d as im2col feeding the matmul path (float32: im2col.ts's one kernel; other dtypes: strided slices
 * of the padded input stacked into columns; then one batched matmul per group: cuBLAS on CUDA), the transposed convolutions as the
 * transposed product scattered back into place (col2im through one scatter-add), the pools as an
 * elementwise chain over the same slices (maximum or add: one fused kernel), and adaptiveAvgPool2d and interpolate as products with small pooling or
 * interpolation matrices built on the host. Layouts are PyTorch's (NCHW; weight [Cout,
 * Cin / groups, kH, kW]). The columns hold C * kH * kW * OH * OW elements: a fused
 * implicit-GEMM kernel is later work, checked against these.
 */
import { Tensor } from "../tensor/tensor.ts";
import { TensorError } from "../base/errors.ts";
import { floatTensor } from "./check.ts";
import { describeValue, fmtShape } from "../base/shape.ts";
import { tidy } from "../tensor/tidy.ts";
import { full, tensor } from "../tensor/creation.ts";
import { cat, stack } from "../tensor/movement.ts";
import { im2col, im2colFits, taps } from "./im2col.ts";

/** An int or a pair of them as [h, w], each checked to be an integer >= min. */
function pair(op: string, what: string, v: number | readonly number[], min: number): [number, number] {
  const p = typeof v === "number" ? [v, v] : [...v];
  if (p.length !== 2 || p.some((x) => !Number.isInteger(x) || x < min)) {
    throw new TensorError(op, `${what} must be an integer >= ${min} or two of them, got ${describeValue(v)}`);
  }
  return [p[0], p[1]];
}

/** How `pad` fills: a constant, the input mirrored without its edge (reflect), its edge repeated, or wrapped around. */
export type PadMode = "constant" | "reflect" | "replicate" | "circular";

function sourceIndex(mode: PadMode, j: number, n: number): number {
  if (mode === "replicate") return Math.min(n - 1, Math.max(0, j));
  if (mode === "circular") return ((j % n) + n) % n;
  const period = 2 * (n - 1); // reflect
  const m = ((j % period) + period) % period;
  return m < n ? m : period - m;
}

/**
 * x padded on its last dims, as `torch.nn.functional.pad`: pads lists (before, after) pairs from the last dim backwards
 * ([left, right, top, bottom, ...]). "constant" fills with value (negative amounts crop); "reflect" mirrors without
 * the edge (each amount below the dim's size), "replicate" repeats the edge and "circular" wraps (each at most the size).
 * @throws {TensorError} when pads has an odd length or covers more dims than x has, or an amount is out of range for the mode.
 */
export function pad(x: Tensor, pads: readonly number[], mode: PadMode = "constant", value = 0): Tensor {
  const op = "nn.pad";
  if (!(x instanceof Tensor)) throw new TensorError(op, `input must be a Tensor, got ${describeValue(x)}`);
  if (pads.length % 2 !== 0 || pads.length / 2 > x.ndim || pads.some((p) => !Number.isInteger(p))) {
    throw new TensorError(op, `pads must be integer (before, after) pairs for at most ${x.ndim} dims, got [${pads.join(", ")}]`);
  }
  if (!["constant", "reflect", "replicate", "circular"].includes(mode)) throw new TensorError(op, `unknown mode ${describeValue(mode)}`);
  for (let k = 0; k < pads.length / 2; k++) {
    const d = x.ndim - 1 - k, n = x.shape[d], before = pads[2 * k], after = pads[2 * k + 1];
    if (mode === "constant" ? n + before + after < 0 : before < 0 || after < 0) {
      throw new TensorError(op, `pads [${before}, ${after}] do not fit dim ${d} of size ${n} in ${mode} mode`);
    }
    const limit = mode === "reflect" ? n - 1 : n;
    if (mode !== "constant" && (before > limit || after > limit || n === 0)) {
      throw new TensorError(op, `${mode} pads [${before}, ${after}] must be at most ${limit} for dim ${d} of size ${n}`);
    }
  }
  return tidy(() => {
    let r = x;
    for (let k = 0; k < pads.length / 2; k++) {
      const d = x.ndim - 1 - k, n = r.shape[d], before = pads[2 * k], after = pads[2 * k + 1];
      if (before === 0 && after === 0) continue;
      if (mode === "constant") {
        if (before < 0) r = r.narrow(d, -before, r.shape[d] + before);
        if (after < 0) r = r.narrow(d, 0, r.shape[d] + after);
        const side = (m: number) => full(r.shape.map((s, i) => (i === d ? m : s)), value, { dtype: r.dtype, device: r.device });
        const parts = [...(before > 0 ? [side(before)] : []), r, ...(after > 0 ? [side(after)] : [])];
        r = parts.length === 1 ? r : cat(parts, d);
      } else {
        const idx = Array.from({ length: n + before + after }, (_, j) => BigInt(sourceIndex(mode, j - before, n)));
        r = r.indexSelect(d, tensor(BigInt64Array.from(idx), { device: r.device }));
      }
    }
    return r === x ? x.clone() : r;
  });
}

/** pad, or t itself when every amount is 0 (a window op need not copy an unpadded input). */
const padOrSame = (t: Tensor, pads: number[], value = 0) => (pads.every((v) => v === 0) ? t : pad(t, pads, "constant", value));

/** The output length of a window sliding over n (after padding): floor((n + 2p - d (k - 1) - 1) / s) + 1. */
const outLength = (n: number, k: number, s: number, p: number, d: number) => Math.floor((n + 2 * p - d * (k - 1) - 1) / s) + 1;

/** [N, C, K, OH, OW]: the taps stacked, conv's columns. */
const columns = (x: Tensor, k: [number, number], s: [number, number], d: [number, number], out: [number, number]) =>
  stack(taps(x, k, s, d, out), 2);

/** Options of `conv2d` (and, with single numbers, `conv1d`). */
export interface ConvOptions {
  /** The window's step (default 1). */
  stride?: number | readonly number[];
  /** Zeros added on each side (default 0), or "valid" (none) or "same" (the output keeps the input's size; stride 1 only). */
  padding?: number | readonly number[] | "valid" | "same";
  /** The spacing of the kernel's taps (default 1). */
  dilation?: number | readonly number[];
  /** Channel groups (default 1): input and output channels split into this many independent convolutions. */
  groups?: number;
}

/**
 * The 2-d cross-correlation of x [N, Cin, H, W] (or unbatched [Cin, H, W]) with weight [Cout, Cin / groups, kH, kW],
 * plus bias [Cout], as `torch.nn.functional.conv2d`: stride, padding (numbers, "valid" or "same"), dilation and groups.
 * @throws {TensorError} when the channels disagree with the weight, groups do not divide them, the kernel is larger than
 * the padded input, or a stride, padding or dilation is out of range.
 */
export function conv2d(x: Tensor, weight: Tensor, bias?: Tensor, options: ConvOptions = {}): Tensor {
  const op = "nn.conv2d";
  floatTensor(op, "input", x);
  floatTensor(op, "weight", weight);
  if (x.ndim === 3) return tidy(() => conv2d(x.unsqueeze(0), weight, bias, options).squeeze(0));
  if (x.ndim !== 4) throw new TensorError(op, `input must be [N, C, H, W] or [C, H, W], got shape ${fmtShape(x.shape)}`);
  if (weight.ndim !== 4) throw new TensorError(op, `weight must be [Cout, Cin / groups, kH, kW], got shape ${fmtShape(weight.shape)}`);
  const groups = options.groups ?? 1, [n, c, h, w] = x.shape, [cout, cg, kh, kw] = weight.shape;
  if (!Number.isInteger(groups) || groups < 1 || c % groups !== 0 || cout % groups !== 0) {
    throw new TensorError(
      op,
      `groups ${describeValue(groups)} must be a positive integer dividing input channels ${c} and output channels ${cout}`,
    );
  }
  if (cg * groups !== c) {
    throw new TensorError(
      op,
      `input has ${c} channels but weight ${fmtShape(weight.shape)} expects ${cg * groups} (${cg} per group x ${groups} groups)`,
    );
  }
  if (bias !== undefined && (floatTensor(op, "bias", bias).ndim !== 1 || bias.numel !== cout)) {
    throw new TensorError(op, `bias must be [Cout] = [${cout}], got shape ${fmtShape(bias.shape)}`);
  }
  const stride = pair(op, "stride", options.stride ?? 1, 1), dilation = pair(op, "dilation", options.dilation ?? 1, 1);
  const k: [number, number] = [kh, kw];
  let padBefore: [number, number], padAfter: [number, number];
  const p = options.padding ?? 0;
  if (p === "same") {
    if (stride[0] !== 1 || stride[1] !== 1) throw new TensorError(op, `padding "same" needs stride 1, got [${stride.join(", ")}]`);
    const total = k.map((kk, i) => dilation[i] * (kk - 1)); // PyTorch puts the odd one on the far side
    padBefore = [Math.floor(total[0] / 2), Math.floor(total[1] / 2)];
    padAfter = [total[0] - padBefore[0], total[1] - padBefore[1]];
  } else {
    padBefore = padAfter = p === "valid" ? [0, 0] : pair(op, "padding", p, 0);
  }
  const out: [number, number] = [0, 1].map((i) =>
    Math.floor(([h, w][i] + padBefore[i] + padAfter[i] - dilation[i] * (k[i] - 1) - 1) / stride[i]) + 1
  ) as [number, number];
  if (out[0] < 1 || out[1] < 1) {
    throw new TensorError(
      op,
      `kernel ${kh}x${kw} (dilation ${dilation.join("x")}) is larger than the padded input ${h + padBefore[0] + padAfter[0]}x${
        w + padBefore[1] + padAfter[1]
      }`,
    );
  }
  return tidy(() => {
    const cols = (im2colFits(x, weight, out)
      ? im2col(op, x, k, stride, dilation, padBefore, out)
      : columns(padOrSame(x, [padBefore[1], padAfter[1], padBefore[0], padAfter[0]]), k, stride, dilation, out))
      .reshape([n, groups, cg * kh * kw, out[0] * out[1]]);
    const y = weight.reshape([groups, cout / groups, cg * kh * kw]).matmul(cols).reshape([n, cout, out[0], out[1]]);
    return bias === undefined ? y : y.add(bias.reshape([1, cout, 1, 1]));
  });
}

/**
 * The 1-d cross-correlation of x [N, Cin, L] (or [Cin, L]) with weight [Cout, Cin / groups, k], as
 * `torch.nn.functional.conv1d` (conv2d over a height of 1).
 * @throws {TensorError} as conv2d does.
 */
export function conv1d(x: Tensor, weight: Tensor, bias?: Tensor, options: ConvOptions = {}): Tensor {
  const op = "nn.conv1d";
  floatTensor(op, "input", x);
  floatTensor(op, "weight", weight);
  if (x.ndim !== 2 && x.ndim !== 3) throw new TensorError(op, `input must be [N, C, L] or [C, L], got shape ${fmtShape(x.shape)}`);
  if (weight.ndim !== 3) throw new TensorError(op, `weight must be [Cout, Cin / groups, k], got shape ${fmtShape(weight.shape)}`);
  const one = (v: unknown, fill: number) => (typeof v === "number" ? [fill, v] : Array.isArray(v) && v.length === 1 ? [fill, v[0]] : v);
  const p = options.padding;
  const opts: ConvOptions = {
    groups: options.groups,
    stride: one(options.stride ?? 1, 1) as number[],
    dilation: one(options.dilation ?? 1, 1) as number[],
    padding: p === "same" || p === "valid" ? p : one(p ?? 0, 0) as number[],
  };
  return tidy(() => conv2d(x.unsqueeze(-2), weight.unsqueeze(-2), bias, opts).squeeze(-2));
}

/** Options of `convTranspose2d` (and, with single numbers, `convTranspose1d`). */
export interface ConvTransposeOptions {
  /** The step between the input pixels' windows in the output (default 1). */
  stride?: number | readonly number[];
  /** Removed from each side of the output (default 0): dilation (k - 1) - padding zeros of the equivalent conv's input. */
  padding?: number | readonly number[];
  /** Added to the far side of the output (default 0), below stride or dilation: picks one of the input sizes a strided conv maps alike. */
  outputPadding?: number | readonly number[];
  /** Channel groups (default 1). */
  groups?: number;
  /** The spacing of the kernel's taps (default 1). */
  dilation?: number | readonly number[];
}

/**
 * For each (tap i j, input pixel y x) in weight^T x's row order, the flat output position it adds into
 * (y s + i d - p), (x s + j d - p), or `dump` (one past the output) where that falls into the cropped padding.
 */
function col2imIndex(
  k: [number, number],
  hw: [number, number],
  out: [number, number],
  s: [number, number],
  p: [number, number],
  d: [number, number],
): Int32Array {
  const [kh, kw] = k, [h, w] = hw, dump = out[0] * out[1], idx = new Int32Array(kh * kw * h * w);
  let at = 0;
  for (let i = 0; i < kh; i++) {
    for (let j = 0; j < kw; j++) {
      for (let y = 0; y < h; y++) {
        const oy = y * s[0] + i * d[0] - p[0];
        for (let x = 0; x < w; x++, at++) {
          const ox = x * s[1] + j * d[1] - p[1];
          idx[at] = oy >= 0 && oy < out[0] && ox >= 0 && ox < out[1] ? oy * out[1] + ox : dump;
        }
      }
    }
  }
  return idx;
}

/**
 * The transposed 2-d convolution of x [N, Cin, H, W] (or unbatched [Cin, H, W]) with weight [Cin, Cout / groups, kH, kW],
 * plus bias [Cout], as `torch.nn.functional.conv_transpose2d` (the gradient of conv2d with respect to its input): the
 * output is (H - 1) stride - 2 padding + dilation (kH - 1) + outputPadding + 1 high, and as wide.
 * @throws {TensorError} when the channels disagree with the weight, groups do not divide them, a stride, padding or
 * dilation is out of range, outputPadding is not below stride or dilation, or the output would be empty.
 */
export function convTranspose2d(x: Tensor, weight: Tensor, bias?: Tensor, options: ConvTransposeOptions = {}): Tensor {
  const op = "nn.convTranspose2d";
  floatTensor(op, "input", x);
  floatTensor(op, "weight", weight);
  if (x.ndim === 3) return tidy(() => convTranspose2d(x.unsqueeze(0), weight, bias, options).squeeze(0));
  if (x.ndim !== 4) throw new TensorError(op, `input must be [N, C, H, W] or [C, H, W], got shape ${fmtShape(x.shape)}`);
  if (weight.ndim !== 4) throw new TensorError(op, `weight must be [Cin, Cout / groups, kH, kW], got shape ${fmtShape(weight.shape)}`);
  const groups = options.groups ?? 1, [n, c, h, w] = x.shape, [cin, og, kh, kw] = weight.shape;
  if (!Number.isInteger(groups) || groups < 1 || c % groups !== 0) {
    throw new TensorError(op, `groups ${describeValue(groups)} must be a positive integer dividing input channels ${c}`);
  }
  if (cin !== c) throw new TensorError(op, `input has ${c} channels but weight ${fmtShape(weight.shape)} expects ${cin}`);
  const cout = og * groups;
  if (bias !== undefined && (floatTensor(op, "bias", bias).ndim !== 1 || bias.numel !== cout)) {
    throw new TensorError(op, `bias must be [Cout] = [${cout}], got shape ${fmtShape(bias.shape)}`);
  }
  const s = pair(op, "stride", options.stride ?? 1, 1), d = pair(op, "dilation", options.dilation ?? 1, 1);
  const p = pair(op, "padding", options.padding ?? 0, 0), extra = pair(op, "outputPadding", options.outputPadding ?? 0, 0);
  if (extra.some((e, i) => e >= Math.max(s[i], d[i]))) {
    throw new TensorError(
      op,
      `outputPadding [${extra.join(", ")}] must be smaller than stride [${s.join(", ")}] or dilation [${d.join(", ")}]`,
    );
  }
  const k: [number, number] = [kh, kw];
  const out = [0, 1].map((i) => ([h, w][i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + extra[i] + 1) as [number, number];
  if (out[0] < 1 || out[1] < 1) {
    throw new TensorError(op, `output size ${out.join("x")} is empty (input ${h}x${w}, padding [${p.join(", ")}])`);
  }
  // weight^T x gives every (tap, pixel) contribution in one batched matmul (the FLOPs of the product itself, none on
  // zeros), and one scatter-add sums them into place (col2im): columns of Cout K H W elements. conv2d over a
  // zero-stuffed input would be shorter but does stride^2 the work and memory; clamp mode: the indices are in range by
  // construction, so no wait for the kernel's check.
  return tidy(() => {
    const K = kh * kw, cg = c / groups;
    const wt = weight.reshape([groups, cg, og * K]).transpose(1, 2); // [groups, Cout/groups K, Cin/groups]
    const cols = wt.matmul(x.reshape([n, groups, cg, h * w])).reshape([n, cout, K * h * w]);
    const idx = tensor(col2imIndex(k, [h, w], out, s, p, d), { device: x.device }).reshape([1, 1, K * h * w]);
    const sums = full([n, cout, out[0] * out[1] + 1], 0, { dtype: cols.dtype, device: x.device })
      .scatter(2, idx.expand([n, cout, K * h * w]), cols, { reduce: "add", mode: "clamp" });
    const y = sums.narrow(2, 0, out[0] * out[1]).reshape([n, cout, out[0], out[1]]);
    return bias === undefined ? y : y.add(bias.reshape([1, cout, 1, 1]));
  });
}

/**
 * The transposed 1-d convolution of x [N, Cin, L] (or [Cin, L]) with weight [Cin, Cout / groups, k], as
 * `torch.nn.functional.conv_transpose1d` (convTranspose2d over a height of 1).
 * @throws {TensorError} as convTranspose2d does.
 */
export function convTranspose1d(x: Tensor, weight: Tensor, bias?: Tensor, options: ConvTransposeOptions = {}): Tensor {
  const op = "nn.convTranspose1d";
  floatTensor(op, "input", x);
  floatTensor(op, "weight", weight);
  if (x.ndim !== 2 && x.ndim !== 3) throw new TensorError(op, `input must be [N, C, L] or [C, L], got shape ${fmtShape(x.shape)}`);
  if (weight.ndim !== 3) throw new TensorError(op, `weight must be [Cin, Cout / groups, k], got shape ${fmtShape(weight.shape)}`);
  const one = (v: unknown, fill: number) => (typeof v === "number" ? [fill, v] : Array.isArray(v) && v.length === 1 ? [fill, v[0]] : v);
  const opts: ConvTransposeOptions = {
    groups: options.groups,
    stride: one(options.stride ?? 1, 1) as number[],
    dilation: one(options.dilation ?? 1, 1) as number[],
    padding: one(options.padding ?? 0, 0) as number[],
    outputPadding: one(options.outputPadding ?? 0, 0) as number[],
  };
  return tidy(() => convTranspose2d(x.unsqueeze(-2), weight.unsqueeze(-2), bias, opts).squeeze(-2));
}

/** Options of the 2-d pools. */
export interface PoolOptions {
  /** The window's step (default: the kernel size). */
  stride?: number | readonly number[];
  /** Added on each side (default 0), at most half the kernel: -inf for max, zeros for average. */
  padding?: number | readonly number[];
  /** The spacing of the window's taps (default 1; maxPool2d only). */
  dilation?: number | readonly number[];
  /** avgPool2d: count the padding in each window's divisor (default true, as PyTorch). */
  countIncludePad?: boolean;
}

function pooled(op: string, x: Tensor, kernel: number | readonly number[], o: PoolOptions, fill: number) {
  floatTensor(op, "input", x);
  if (x.ndim !== 3 && x.ndim !== 4) throw new TensorError(op, `input must be [N, C, H, W] or [C, H, W], got shape ${fmtShape(x.shape)}`);
  const k = pair(op, "kernel size", kernel, 1), s = pair(op, "stride", o.stride ?? k, 1);
  const p = pair(op, "padding", o.padding ?? 0, 0), d = pair(op, "dilation", o.dilation ?? 1, 1);
  if (p[0] > k[0] / 2 || p[1] > k[1] / 2) {
    throw new TensorError(op, `padding [${p.join(", ")}] must be at most half the kernel [${k.join(", ")}]`);
  }
  const h = x.shape[x.ndim - 2], w = x.shape[x.ndim - 1];
  const out: [number, number] = [outLength(h, k[0], s[0], p[0], d[0]), outLength(w, k[1], s[1], p[1], d[1])];
  if (out[0] < 1 || out[1] < 1) {
    throw new TensorError(op, `kernel ${k.join("x")} is larger than the padded input ${h + 2 * p[0]}x${w + 2 * p[1]}`);
  }
  const batched = x.ndim === 4 ? x : x.unsqueeze(0);
  const window = (t: Tensor) => taps(padOrSame(t, [p[1], p[1], p[0], p[0]], fill), k, s, d, out);
  return { batched, window, unbatch: (y: Tensor) => (x.ndim === 4 ? y : y.squeeze(0)) };
}

/**
 * The maximum over each kernel window of x [N, C, H, W] (or [C, H, W]), as `torch.nn.functional.max_pool2d`: stride
 * (default the kernel), padding with -inf, dilation. The gradient goes to the window's maximum (shared among ties).
 * @throws {TensorError} when a size is out of range or the kernel is larger than the padded input.
 */
export function maxPool2d(x: Tensor, kernelSize: number | readonly number[], options: PoolOptions = {}): Tensor {
  return tidy(() => {
    const { batched, window, unbatch } = pooled("nn.maxPool2d", x, kernelSize, options, -Infinity);
    // An elementwise chain over the taps (one fused kernel when lazy), not a reduce of K-element rows: one group a row is slow.
    return unbatch(window(batched).reduce((a, b) => a.maximum(b)));
  });
}

/**
 * The mean over each kernel window of x [N, C, H, W] (or [C, H, W]), as `torch.nn.functional.avg_pool2d`: stride
 * (default the kernel), zero padding, counted in the divisor unless countIncludePad is false.
 * @throws {TensorError} when a size is out of range or the kernel is larger than the padded input.
 */
export function avgPool2d(x: Tensor, kernelSize: number | readonly number[], options: PoolOptions = {}): Tensor {
  const op = "nn.avgPool2d";
  if (options.dilation !== undefined) throw new TensorError(op, "takes no dilation (as PyTorch's avg_pool2d)");
  return tidy(() => {
    const { batched, window, unbatch } = pooled(op, x, kernelSize, options, 0);
    const sum = (t: Tensor) => window(t).reduce((a, b) => a.add(b)); // the taps in order: one fused kernel when lazy
    if (options.countIncludePad ?? true) return unbatch(sum(batched).div(window(batched).length));
    const ones = full([1, 1, batched.shape[2], batched.shape[3]], 1, { dtype: batched.dtype, device: batched.device });
    return unbatch(sum(batched).div(sum(ones)));
  });
}

/** [out, n]: row i averages PyTorch's adaptive bin floor(i n / out) .. ceil((i + 1) n / out). */
function poolingMatrix(n: number, out: number): number[] {
  const m = new Array(out * n).fill(0);
  for (let i = 0; i < out; i++) {
    const a = Math.floor((i * n) / out), b = Math.ceil(((i + 1) * n) / out);
    for (let j = a; j < b; j++) m[i * n + j] = 1 / (b - a);
  }
  return m;
}

function spatialSize(op: string, x: Tensor, size: number | readonly number[]): [number, number] {
  floatTensor(op, "input", x);
  if (x.ndim !== 3 && x.ndim !== 4) throw new TensorError(op, `input must be [N, C, H, W] or [C, H, W], got shape ${fmtShape(x.shape)}`);
  return pair(op, "output size", size, 1);
}

/** x [..., H, W] times A_h from the left and A_w^T from the right: each an [out, in] matrix from the host. */
function separable(x: Tensor, ah: number[], aw: number[], out: [number, number]): Tensor {
  const h = x.shape[x.ndim - 2], w = x.shape[x.ndim - 1], o = { dtype: x.dtype, device: x.device };
  const mh = tensor(ah, o).reshape([out[0], h]), mw = tensor(aw, o).reshape([out[1], w]);
  return mh.matmul(x).matmul(mw.T);
}

/**
 * Averages over PyTorch's adaptive bins to an output of outputSize ([H, W] or one number for both), as
 * `torch.nn.functional.adaptive_avg_pool2d`, as two products with pooling matrices.
 * @throws {TensorError} when the input is not 3- or 4-d or a size is not a positive integer.
 */
export function adaptiveAvgPool2d(x: Tensor, outputSize: number | readonly number[]): Tensor {
  const out = spatialSize("nn.adaptiveAvgPool2d", x, outputSize);
  const h = x.shape[x.ndim - 2], w = x.shape[x.ndim - 1];
  return tidy(() => separable(x, poolingMatrix(h, out[0]), poolingMatrix(w, out[1]), out));
}

/** Options of `interpolate`. */
export interface InterpolateOptions {
  /** The output's [H, W] (or one number for both); give this or scaleFactor. */
  size?: number | readonly number[];
  /** The output is floor(input size x scaleFactor) ([h, w] or one number). */
  scaleFactor?: number | readonly number[];
  /** "nearest" (default) or "bilinear". */
  mode?: "nearest" | "bilinear";
  /** bilinear: map the corner pixels' centres onto each other (default false, as PyTorch). */
  alignCorners?: boolean;
}

/** [out, n]: nearest's or bilinear's weights of the source pixels of each output pixel. */
function interpolationMatrix(n: number, out: number, scale: number, bilinear: boolean, alignCorners: boolean): number[] {
  const m = new Array(out * n).fill(0);
  for (let i = 0; i < out; i++) {
    if (!bilinear) {
      m[i * n + Math.min(Math.floor(i * scale), n - 1)] = 1;
      continue;
    }
    const src = alignCorners ? (out > 1 ? (i * (n - 1)) / (out - 1) : 0) : Math.max(0, (i + 0.5) * scale - 0.5);
    const i0 = Math.min(Math.floor(src), n - 1), i1 = Math.min(i0 + 1, n - 1), t = src - i0;
    m[i * n + i0] += 1 - t;
    m[i * n + i1] += t;
  }
  return m;
}

/**
 * Resizes the spatial dims of x [N, C, H, W] (or [C, H, W]) to `size` or by `scaleFactor`, as
 * `torch.nn.functional.interpolate` with mode "nearest" (PyTorch's floor rule) or "bilinear" (alignCorners either way),
 * as two products with interpolation matrices.
 * @throws {TensorError} when neither or both of size and scaleFactor are given, or alignCorners is given for nearest.
 */
export function interpolate(x: Tensor, options: InterpolateOptions): Tensor {
  const op = "nn.interpolate", mode = options.mode ?? "nearest";
  if (mode !== "nearest" && mode !== "bilinear") {
    throw new TensorError(op, `mode must be "nearest" or "bilinear", got ${describeValue(mode)}`);
  }
  if ((options.size === undefined) === (options.scaleFactor === undefined)) {
    throw new TensorError(op, "takes size or scaleFactor, one of them");
  }
  if (mode === "nearest" && options.alignCorners !== undefined) throw new TensorError(op, "alignCorners applies to bilinear only");
  floatTensor(op, "input", x);
  const h = x.shape[x.ndim - 2], w = x.shape[x.ndim - 1];
  let out: [number, number], scale: [number, number];
  if (options.size !== undefined) {
    out = spatialSize(op, x, options.size);
    scale = [h / out[0], w / out[1]];
  } else {
    const f = typeof options.scaleFactor === "number" ? [options.scaleFactor, options.scaleFactor] : [...options.scaleFactor!];
    if (f.length !== 2 || f.some((v) => !(v > 0))) {
      throw new TensorError(op, `scaleFactor must be positive, got ${describeValue(options.scaleFactor)}`);
    }
    out = spatialSize(op, x, [Math.floor(h * f[0]), Math.floor(w * f[1])]);
    scale = [1 / f[0], 1 / f[1]];
  }
  const bilinear = mode === "bilinear", corners = options.alignCorners ?? false;
  return tidy(() =>
    separable(
      x,
      interpolationMatrix(h, out[0], scale[0], bilinear, corners),
      interpolationMatrix(w, out[1], scale[1], bilinear, corners),
      out,
    )
  );
}
