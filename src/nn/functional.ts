/**
 * `pt.nn`: PyTorch's torch.nn.functional in camelCase, first the functions that are
 * compositions of the library's ops (softmax and its log forms, linear, one-hot and the
 * losses; float32 softmax and logSoftmax take rownorm.ts's fused kernel). Being compositions, they run on every backend, fuse through the lazy path and
 * differentiate through the ops' own gradient rules; each runs inside a tidy scope, so its
 * intermediates are freed at once (what a gradient needs stays with the graph). The row max
 * that keeps exp in range is detached, as PyTorch's kernels treat it: it cancels out of the
 * value and of the gradient. Errors name the function as `nn.<name>`.
 */
import { Tensor } from "../tensor/tensor.ts";
import { TensorError } from "../base/errors.ts";
import { floatTensor } from "./check.ts";
import { isFloat, isInt } from "../base/dtype.ts";
import { describeValue, fmtShape, normalizeAxes, normalizeAxis } from "../base/shape.ts";
import { tidy } from "../tensor/tidy.ts";
import { arange } from "../tensor/creation.ts";
import { fusable, fusedSoftmax } from "./rownorm.ts";

/** How a loss reduces its per-element values: their mean (the default), their sum, or none (the per-element tensor). */
export type Reduction = "mean" | "sum" | "none";

/** Options of the losses. */
export interface LossOptions {
  /** "mean" (default), "sum" or "none", as PyTorch's `reduction`. */
  reduction?: Reduction;
}

/** Options of `nllLoss` and `crossEntropy`. */
export interface ClassLossOptions extends LossOptions {
  /** A rescaling weight per class, a float tensor of shape [C]. */
  weight?: Tensor;
  /** A class index whose targets contribute nothing, to the loss or to the mean's divisor (default -100). */
  ignoreIndex?: number;
}

/** Options of `crossEntropy`. */
export interface CrossEntropyOptions extends ClassLossOptions {
  /** In [0, 1]: the target mixes (1 - s) of itself with s of the uniform distribution over the C classes (default 0). */
  labelSmoothing?: number;
}

/** Options of `binaryCrossEntropyWithLogits`. */
export interface BceOptions extends LossOptions {
  /** A rescaling weight of each element's loss, broadcast against the input. */
  weight?: Tensor;
  /** A weight of the positive examples, broadcast against the input (one per class in the last dim, typically). */
  posWeight?: Tensor;
}

function reductionOf(op: string, r: unknown): Reduction {
  if (r === undefined) return "mean";
  if (r === "mean" || r === "sum" || r === "none") return r;
  throw new TensorError(op, `reduction must be "mean", "sum" or "none", got ${describeValue(r)}`);
}

function reduced(loss: Tensor, reduction: Reduction): Tensor {
  return reduction === "none" ? loss : reduction === "sum" ? loss.sum() : loss.mean();
}

/** The row max over axes (kept as size-1 dims), detached, with infinities replaced by 0 as PyTorch's logsumexp does. */
function detachedMax(x: Tensor, axes: readonly number[]): Tensor {
  const m = x.max(axes, true).detach();
  return m.maskedFill(m.isinf(), 0);
}

/** x - max along dim: what softmax and logSoftmax exponentiate. */
function shifted(op: string, x: Tensor, dim: number): { z: Tensor; d: number } {
  floatTensor(op, "input", x);
  const d = normalizeAxis(dim, x.ndim, op);
  if (x.numel === 0) return { z: x.mul(1), d }; // an empty result, still of x's graph
  // PyTorch's softmax subtracts the max as it is: a row holding +inf (or only -inf) is NaN throughout.
  return { z: x.sub(x.ndim === 0 ? x.detach() : x.max(d, true).detach()), d };
}

/**
 * exp(x) / sum(exp(x)) along `dim`, as `torch.nn.functional.softmax`. A row of -inf gives NaN, as in PyTorch; an empty
 * tensor gives an empty one.
 * @throws {TensorError} when x is not a floating-point tensor or dim is out of range.
 */
export function softmax(x: Tensor, dim: number): Tensor {
  if (fusable(floatTensor("nn.softmax", "input", x))) return fusedSoftmax(x, normalizeAxis(dim, x.ndim, "nn.softmax"), false);
  return tidy(() => {
    const { z, d } = shifted("nn.softmax", x, dim);
    if (x.numel === 0) return z;
    const e = z.exp();
    return e.div(e.sum(d, true));
  });
}

/**
 * log(softmax(x)) along `dim`, computed as (x - max) - log(sum(exp(x - max))), as `torch.nn.functional.log_softmax`.
 * @throws {TensorError} when x is not a floating-point tensor or dim is out of range.
 */
export function logSoftmax(x: Tensor, dim: number): Tensor {
  if (fusable(floatTensor("nn.logSoftmax", "input", x))) return fusedSoftmax(x, normalizeAxis(dim, x.ndim, "nn.logSoftmax"), true);
  return tidy(() => {
    const { z, d } = shifted("nn.logSoftmax", x, dim);
    if (x.numel === 0) return z;
    return z.sub(z.exp().sum(d, true).log());
  });
}

/**
 * log(sum(exp(x))) over `dim` (one axis or several), stable for large values, as `torch.logsumexp`. An empty extent gives
 * -inf, a row of -inf gives -inf and a row holding +inf gives +inf, as in PyTorch.
 * @throws {TensorError} when x is not a floating-point tensor or an axis is out of range or repeated.
 */
export function logsumexp(x: Tensor, dim: number | readonly number[], keepdim = false): Tensor {
  const op = "nn.logsumexp";
  floatTensor(op, "input", x);
  if (x.ndim === 0) normalizeAxes(dim, 1, op);
  const axes = x.ndim === 0 ? [] : normalizeAxes(dim, x.ndim, op);
  return tidy(() => {
    if (axes.some((a) => x.shape[a] === 0)) return x.sum(axes, keepdim).sub(Infinity);
    if (x.numel === 0 || axes.length === 0) return x.sum(axes, keepdim); // nothing to add up: each element is its own row
    const m = detachedMax(x, axes);
    const r = x.sub(m).exp().sum(axes, true).log().add(m);
    return keepdim ? r : r.reshape(x.shape.filter((_, i) => !axes.includes(i)));
  });
}

/**
 * x @ weight^T + bias, as `torch.nn.functional.linear`: weight is [out, in], bias [out], x [..., in].
 * @throws {TensorError} when the shapes disagree (the message names in and out features) or the dtypes cannot mix.
 */
export function linear(x: Tensor, weight: Tensor, bias?: Tensor): Tensor {
  const op = "nn.linear";
  floatTensor(op, "input", x);
  floatTensor(op, "weight", weight);
  if (weight.ndim !== 2) throw new TensorError(op, `weight must be [out_features, in_features], got shape ${fmtShape(weight.shape)}`);
  if (x.ndim === 0 || x.shape[x.ndim - 1] !== weight.shape[1]) {
    throw new TensorError(op, `input's last dim must be in_features = ${weight.shape[1]}, got shape ${fmtShape(x.shape)}`);
  }
  if (bias !== undefined) {
    floatTensor(op, "bias", bias);
    if (bias.ndim > 1 || bias.numel !== weight.shape[0]) {
      throw new TensorError(op, `bias must be [out_features] = [${weight.shape[0]}], got shape ${fmtShape(bias.shape)}`);
    }
  }
  return tidy(() => {
    const y = x.matmul(weight.T);
    return bias === undefined ? y : y.add(bias);
  });
}

/**
 * One-hot rows of integer class indices: shape [..., numClasses], int64, 1 where the last index equals the class, as
 * `torch.nn.functional.one_hot`. numClasses -1 (the default) takes the largest index + 1, which reads the tensor back.
 * @throws {TensorError} when indices are not an integer tensor, an index is negative or not below numClasses.
 */
export function oneHot(indices: Tensor, numClasses = -1): Tensor {
  const op = "nn.oneHot";
  if (!(indices instanceof Tensor) || !isInt(indices.dtype)) {
    throw new TensorError(
      op,
      `indices must be an integer tensor, got ${indices instanceof Tensor ? indices.dtype : describeValue(indices)}`,
    );
  }
  if (!Number.isInteger(numClasses) || numClasses < -1) {
    throw new TensorError(op, `numClasses must be -1 or an integer >= 0, got ${numClasses}`);
  }
  if (indices.numel > 0) {
    // PyTorch checks the values too; one read of two numbers, which numClasses -1 needs anyway.
    const lo = Number(indices.min().item()), hi = Number(indices.max().item());
    if (lo < 0) throw new TensorError(op, `class values must be non-negative, got ${lo}`);
    if (numClasses >= 0 && hi >= numClasses) throw new TensorError(op, `class value ${hi} is not below numClasses = ${numClasses}`);
    if (numClasses < 0) numClasses = hi + 1;
  } else if (numClasses < 0) {
    throw new TensorError(op, "cannot infer numClasses from an empty tensor; pass it");
  }
  const n = numClasses;
  return tidy(() => indices.unsqueeze(-1).eq(arange(n, undefined, 1, { dtype: "int64", device: indices.device })).cast("int64"));
}

/** input's class dim (1, or 0 unbatched) and the shape a class-index target must have. */
function classLayout(op: string, input: Tensor): { cdim: number; classes: number; targetShape: number[] } {
  if (input.ndim === 0) throw new TensorError(op, "input must have a class dim: [C], [N, C] or [N, C, d1, ...], got a 0-d tensor");
  const cdim = input.ndim === 1 ? 0 : 1;
  return { cdim, classes: input.shape[cdim], targetShape: input.shape.filter((_, i) => i !== cdim) };
}

function classWeight(op: string, weight: Tensor | undefined, classes: number): Tensor | undefined {
  if (weight === undefined) return undefined;
  floatTensor(op, "weight", weight);
  if (weight.ndim !== 1 || weight.numel !== classes) {
    throw new TensorError(op, `weight must be [C] = [${classes}], one per class, got shape ${fmtShape(weight.shape)}`);
  }
  return weight;
}

/** weight viewed to broadcast along the class dim of an input of rank `rank`. */
const alongClasses = (w: Tensor, cdim: number, rank: number) => w.reshape(Array.from({ length: rank }, (_, i) => (i === cdim ? -1 : 1)));

function checkIndexTarget(op: string, target: unknown, shape: readonly number[]): Tensor {
  if (!(target instanceof Tensor)) throw new TensorError(op, `target must be a Tensor, got ${describeValue(target)}`);
  if (!isInt(target.dtype)) {
    throw new TensorError(op, `target must hold class indices (an integer tensor), got ${target.dtype}`);
  }
  if (target.shape.length !== shape.length || target.shape.some((d, i) => d !== shape[i])) {
    throw new TensorError(op, `target must have shape ${fmtShape(shape)} (input's without the class dim), got ${fmtShape(target.shape)}`);
  }
  return target;
}

function checkIgnore(op: string, ignoreIndex: unknown): number {
  if (ignoreIndex === undefined) return -100;
  if (typeof ignoreIndex !== "number" || !Number.isInteger(ignoreIndex)) {
    throw new TensorError(op, `ignoreIndex must be an integer, got ${describeValue(ignoreIndex)}`);
  }
  return ignoreIndex;
}

/** Each target's picked value and weight (0 where ignored), shaped as the target; indices out of range fail in gather. */
function picked(input: Tensor, target: Tensor, cdim: number, weight: Tensor | undefined, ignoreIndex: number) {
  const ignored = target.eq(ignoreIndex), safe = target.maskedFill(ignored, 0).cast("int64");
  const value = input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim);
  const w = weight === undefined
    ? ignored.logicalNot().cast(input.dtype)
    : weight.indexSelect(0, safe.flatten()).reshape(target.shape as number[]).maskedFill(ignored, 0);
  return { value, w, ignored };
}

/**
 * The negative log likelihood of class-index targets, as `torch.nn.functional.nll_loss`: input holds log-probabilities
 * ([C], [N, C] or [N, C, d1, ...]), target the class of each (its shape without the class dim). With reduction "mean"
 * the sum is divided by the targets' total weight (their count without weights), so ignored targets count in neither.
 * @throws {TensorError} when the dtypes or shapes are wrong, the weight is not [C], or (at the next read, as gather
 * reports it) a target is out of [0, C) and not ignoreIndex.
 */
export function nllLoss(input: Tensor, target: Tensor, options: ClassLossOptions = {}): Tensor {
  const op = "nn.nllLoss";
  floatTensor(op, "input", input);
  const { cdim, classes, targetShape } = classLayout(op, input);
  checkIndexTarget(op, target, targetShape);
  const weight = classWeight(op, options.weight, classes), ignoreIndex = checkIgnore(op, options.ignoreIndex);
  const reduction = reductionOf(op, options.reduction);
  return tidy(() => {
    const { value, w } = picked(input, target, cdim, weight, ignoreIndex);
    const loss = value.mul(w).neg();
    return reduction === "mean" ? loss.sum().div(w.sum()) : reduced(loss, reduction);
  });
}

/**
 * The cross-entropy between logits and targets, as `torch.nn.functional.cross_entropy`: log-softmax over the class dim
 * (1, or 0 for an unbatched [C] input), then the negative log likelihood. target is class indices (an integer tensor of
 * input's shape without the class dim; weight and ignoreIndex apply) or class probabilities (a float tensor of input's
 * shape; "mean" divides by the number of rows). labelSmoothing mixes each target with the uniform distribution, as
 * PyTorch does for both kinds.
 * @throws {TensorError} when the dtypes or shapes are wrong, labelSmoothing is outside [0, 1], or a class index is
 * out of range (at the next read, as gather reports it).
 */
export function crossEntropy(input: Tensor, target: Tensor, options: CrossEntropyOptions = {}): Tensor {
  const op = "nn.crossEntropy";
  floatTensor(op, "input", input);
  const { cdim, classes, targetShape } = classLayout(op, input);
  const weight = classWeight(op, options.weight, classes), reduction = reductionOf(op, options.reduction);
  const s = options.labelSmoothing ?? 0;
  if (typeof s !== "number" || !(s >= 0 && s <= 1)) throw new TensorError(op, `labelSmoothing must be in [0, 1], got ${describeValue(s)}`);
  const probabilities = target instanceof Tensor && isFloat(target.dtype);
  if (probabilities && (target.ndim !== input.ndim || target.shape.some((d, i) => d !== input.shape[i]))) {
    throw new TensorError(op, `class probabilities must have input's shape ${fmtShape(input.shape)}, got ${fmtShape(target.shape)}`);
  }
  if (!probabilities) checkIndexTarget(op, target, targetShape);
  const ignoreIndex = checkIgnore(op, options.ignoreIndex);
  return tidy(() => {
    const logp = logSoftmax(input, cdim);
    const weighted = weight === undefined ? logp : logp.mul(alongClasses(weight, cdim, input.ndim));
    if (probabilities) {
      const t = s > 0 ? target.mul(1 - s).add(s / classes) : target;
      const loss = weighted.mul(t).sum(cdim).neg();
      return reduction === "mean" ? loss.sum().div(input.numel / Math.max(classes, 1)) : reduced(loss, reduction);
    }
    const { value, w, ignored } = picked(logp, target, cdim, weight, ignoreIndex);
    const nll = value.mul(w).neg();
    if (s === 0) return reduction === "mean" ? nll.sum().div(w.sum()) : reduced(nll, reduction);
    // PyTorch's label smoothing: (1 - s) nll + s/C of the (weighted) sum over classes, masked and normalized alike.
    const smooth = weighted.sum(cdim).neg().maskedFill(ignored, 0);
    if (reduction === "none") return nll.mul(1 - s).add(smooth.mul(s / classes));
    const norm = reduction === "mean" ? w.sum() : 1;
    return nll.sum().div(norm).mul(1 - s).add(smooth.sum().div(norm).mul(s / classes));
  });
}

function pairLoss(op: string, input: Tensor, target: Tensor, options: LossOptions, f: (d: Tensor) => Tensor): Tensor {
  floatTensor(op, "input", input);
  floatTensor(op, "target", target);
  const reduction = reductionOf(op, options.reduction);
  return tidy(() => reduced(f(input.sub(target)), reduction));
}

/**
 * The squared error (input - target)^2, broadcasting, reduced as `reduction` says, as `torch.nn.functional.mse_loss`.
 * @throws {TensorError} when either is not a floating-point tensor or the shapes do not broadcast.
 */
export function mseLoss(input: Tensor, target: Tensor, options: LossOptions = {}): Tensor {
  return pairLoss("nn.mseLoss", input, target, options, (d) => d.square());
}

/**
 * The absolute error |input - target|, broadcasting, reduced as `reduction` says, as `torch.nn.functional.l1_loss`.
 * @throws {TensorError} when either is not a floating-point tensor or the shapes do not broadcast.
 */
export function l1Loss(input: Tensor, target: Tensor, options: LossOptions = {}): Tensor {
  return pairLoss("nn.l1Loss", input, target, options, (d) => d.abs());
}

/**
 * The binary cross-entropy of logits against targets in [0, 1], as `torch.nn.functional.binary_cross_entropy_with_logits`:
 * (1 - y) x - (1 + (posWeight - 1) y) logsigmoid(x), with logsigmoid(x) = min(x, 0) - log1p(exp(-|x|)), stable for
 * any x; weight scales each element's loss.
 * @throws {TensorError} when a tensor is not floating-point or the shapes do not broadcast.
 */
export function binaryCrossEntropyWithLogits(input: Tensor, target: Tensor, options: BceOptions = {}): Tensor {
  const op = "nn.binaryCrossEntropyWithLogits";
  floatTensor(op, "input", input);
  floatTensor(op, "target", target);
  if (options.weight !== undefined) floatTensor(op, "weight", options.weight);
  if (options.posWeight !== undefined) floatTensor(op, "posWeight", options.posWeight);
  const reduction = reductionOf(op, options.reduction);
  return tidy(() => {
    const logSigmoid = input.minimum(0).sub(input.abs().neg().exp().log1p());
    const pos = options.posWeight === undefined ? logSigmoid : options.posWeight.sub(1).mul(target).add(1).mul(logSigmoid);
    let loss = target.neg().add(1).mul(input).sub(pos);
    if (options.weight !== undefined) loss = loss.mul(options.weight);
    return reduced(loss, reduction);
  });
}
