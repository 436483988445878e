/**
 * softmax, logSoftmax, layerNorm and rmsNorm of float32 tensors as the fused "rownorm" template: one group a row, the
 * row read from memory about once, where the compositions of functional.ts and layers.ts take three or four passes.
 * The gradient rules are compositions of the library's ops that recompute what they need from the saved input (the
 * output, for the softmax forms), as PyTorch's kernels do. Other dtypes and empty tensors take the compositions.
 */
import { allocTensor, type Tensor } from "../tensor/tensor.ts";
import { commonDevice } from "../tensor/elementwise.ts";
import { gradEnabled, record, wantsGrad } from "../autograd/graph.ts";
import { runTemplate } from "../kernels/launch.ts";

/** The template's op codes (blocks.h). */
const CODE = { softmax: 0, logSoftmax: 1, layerNorm: 2, rmsNorm: 3 } as const;

/** Whether the fused kernel serves these tensors: float32 and not empty (weight and bias may be absent). */
export const fusable = (x: Tensor, ...rest: (Tensor | undefined)[]): boolean =>
  x.ndim > 0 && x.numel > 0 && [x, ...rest].every((t) => t === undefined || t.dtype === "float32");

const f32Bits = (v: number) => new Uint32Array(Float32Array.of(v).buffer)[0];

/** Whether dims [from, ndim) of t step through memory as one dim of stride strides[ndim - 1] (size-1 dims aside). */
function flatSuffix(t: Tensor, from: number): boolean {
  let step = -1;
  for (let i = t.ndim - 1; i >= from; i--) {
    if (t.shape[i] === 1) continue;
    if (step >= 0 && t.strides[i] !== step) return false;
    step = t.strides[i] * t.shape[i];
  }
  return true;
}

/** The row stride of dims [from, ndim) once flat: the innermost non-1 dim's. */
function rowStride(t: Tensor, from: number): number {
  for (let i = t.ndim - 1; i >= from; i--) if (t.shape[i] !== 1) return t.strides[i];
  return 1;
}

/**
 * Runs the template over rows of x along `axes` (one axis, or a suffix of x's dims): `kind`'s result as a new float32
 * tensor of x's shape. The rows may be strided; a suffix that is not one stride in memory is copied first.
 */
function rows(op: string, kind: keyof typeof CODE, x: Tensor, axes: readonly number[], eps = 0, w?: Tensor, b?: Tensor): Tensor {
  const device = commonDevice(op, [x, w, b].filter((t): t is Tensor => t !== undefined));
  const from = axes[0], suffix = axes.length > 1 || from === x.ndim - 1;
  const src = suffix && !flatSuffix(x, from) ? x.contiguous() : x;
  const out = allocTensor(device, "float32", x.shape, op);
  const outer = (t: Tensor) => (suffix ? t.strides.slice(0, from) : t.strides.filter((_, i) => i !== from));
  const oshape = suffix ? x.shape.slice(0, from) : x.shape.filter((_, i) => i !== from);
  const n = axes.reduce((p, a) => p * x.shape[a], 1);
  const step = (t: Tensor) => (suffix ? rowStride(t, from) : t.strides[from]);
  const flat = (t: Tensor | undefined) => t?.reshape([n]);
  const wf = flat(w), bf = flat(b), zeros = oshape.map(() => 0);
  runTemplate(device, "rownorm", op, (blk) =>
    blk.fill("rownorm", {
      op: CODE[kind],
      oshape,
      n,
      eps_bits: f32Bits(eps),
      affine: (wf ? 1 : 0) | (bf ? 2 : 0),
      in: [src, outer(src)],
      in_stride: step(src),
      w: wf ? [wf, zeros] : [out, outer(out)],
      w_stride: wf ? wf.strides[0] : step(out),
      b: bf ? [bf, zeros] : [out, outer(out)],
      b_stride: bf ? bf.strides[0] : step(out),
      out: [out, outer(out)],
      out_stride: step(out),
    }));
  return out;
}

/** softmax(x) along axis d, fused; its rule is y * (g - sum(g * y)). */
export function fusedSoftmax(x: Tensor, d: number, log: boolean): Tensor {
  const op = log ? "nn.logSoftmax" : "nn.softmax";
  const y = rows(op, log ? "logSoftmax" : "softmax", x, [d]);
  if (!gradEnabled || !wantsGrad(x)) return y;
  return record(y, op, [x], [y], (g, [y]) => [
    log ? g.sub(y.exp().mul(g.sum(d, true))) : y.mul(g.sub(g.mul(y).sum(d, true))),
  ]);
}

/**
 * layerNorm (rms false) or rmsNorm (rms true) of x over the suffix dims `axes`, times w and plus b (layerNorm), fused.
 * The rules recompute x's normalized form xh = (x - mean) * rstd: with gw = g * w, dx = rstd * (gw - mean(gw) - xh *
 * mean(gw * xh)) (rmsNorm drops the mean(gw) term), dw = sum(g * xh) and db = sum(g) over the leading dims.
 */
export function fusedNorm(op: string, rms: boolean, x: Tensor, axes: readonly number[], eps: number, w?: Tensor, b?: Tensor): Tensor {
  const y = rows(op, rms ? "rmsNorm" : "layerNorm", x, axes, eps, w, rms ? undefined : b);
  const inputs = [x, w, b].filter((t): t is Tensor => t !== undefined);
  if (!gradEnabled || !inputs.some(wantsGrad)) return y;
  const lead = Array.from({ length: x.ndim - axes.length }, (_, i) => i);
  return record(y, op, inputs, inputs, (g, saved) => {
    const sx = saved[0], sw = w ? saved[1] : undefined;
    const c = rms ? sx : sx.sub(sx.mean(axes, true));
    const rstd = c.square().mean(axes, true).add(eps).rsqrt(), xh = c.mul(rstd);
    const gw = sw ? g.mul(sw) : g;
    let inner = gw.mul(xh).mean(axes, true).mul(xh);
    if (!rms) inner = inner.add(gw.mean(axes, true));
    const sumLead = (t: Tensor) => (lead.length > 0 ? t.sum(lead) : t);
    return [
      wantsGrad(x) ? gw.sub(inner).mul(rstd) : null,
      ...(w ? [wantsGrad(w) ? sumLead(g.mul(xh)) : null] : []),
      ...(b ? [wantsGrad(b) ? sumLead(g) : null] : []),
    ];
  });
}
