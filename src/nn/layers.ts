/**
 * `pt.nn`'s layer functions that are compositions of the library's ops: activations,
 * dropout, embedding and the normalizations (layer, RMS, group and batch norm; float32 layer
 * and RMS norm take rownorm.ts's fused kernel); attention is in attention.ts. Each runs in a tidy scope and differentiates through the ops' rules;
 * the one write is batchNorm's update of its running statistics, in place and outside the
 * graph, as PyTorch does.
 */
import { Tensor } from "../tensor/tensor.ts";
import { TensorError } from "../base/errors.ts";
import { finite, floatTensor } from "./check.ts";
import { type DType, isInt } from "../base/dtype.ts";
import { describeValue, fmtShape } from "../base/shape.ts";
import { tidy } from "../tensor/tidy.ts";
import { rand } from "../tensor/random.ts";
import { noGrad } from "../autograd/graph.ts";
import { expm1 } from "../tensor/math.ts";
import { fusable, fusedNorm } from "./rownorm.ts";

/** x * sigmoid(x), as `torch.nn.functional.silu`. */
export function silu(x: Tensor): Tensor {
  floatTensor("nn.silu", "input", x);
  return tidy(() => x.mul(x.sigmoid()));
}

/**
 * log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (default 20), as `torch.nn.functional.softplus`.
 * @throws {TensorError} when x is not floating-point or beta is 0 or not finite.
 */
export function softplus(x: Tensor, beta = 1, threshold = 20): Tensor {
  const op = "nn.softplus";
  floatTensor(op, "input", x);
  if (finite(op, "beta", beta) === 0) throw new TensorError(op, "beta must be nonzero");
  finite(op, "threshold", threshold);
  return tidy(() => {
    const bx = x.mul(beta);
    return x.where(bx.gt(threshold), bx.exp().log1p().div(beta));
  });
}

/**
 * x where x > 0, else alpha * (exp(x) - 1) (by expm1, accurate near 0), as `torch.nn.functional.elu`.
 * @throws {TensorError} when x is not floating-point or alpha is not a finite number.
 */
export function elu(x: Tensor, alpha = 1): Tensor {
  floatTensor("nn.elu", "input", x);
  finite("nn.elu", "alpha", alpha);
  return tidy(() => x.where(x.gt(0), expm1(x).mul(alpha)));
}

/** x where x > 0, else x * negativeSlope (default 0.01), as `torch.nn.functional.leaky_relu`. */
export function leakyRelu(x: Tensor, negativeSlope = 0.01): Tensor {
  floatTensor("nn.leakyRelu", "input", x);
  finite("nn.leakyRelu", "negativeSlope", negativeSlope);
  return tidy(() => x.where(x.gt(0), x.mul(negativeSlope)));
}

/**
 * x clamped to [minVal, maxVal] (default [-1, 1]), as `torch.nn.functional.hardtanh`.
 * @throws {TensorError} when minVal > maxVal.
 */
export function hardtanh(x: Tensor, minVal = -1, maxVal = 1): Tensor {
  floatTensor("nn.hardtanh", "input", x);
  if (!(minVal <= maxVal)) throw new TensorError("nn.hardtanh", `minVal ${minVal} must not exceed maxVal ${maxVal}`);
  return x.clamp(minVal, maxVal);
}

/**
 * Zeroes each element with probability p and scales the rest by 1 / (1 - p), as `torch.nn.functional.dropout`; the
 * identity (a copy) when training is false or p is 0. The mask comes from `pt.rand`, so `pt.manualSeed` reproduces it.
 * @throws {TensorError} when p is outside [0, 1].
 */
export function dropout(x: Tensor, p = 0.5, training = true): Tensor {
  const op = "nn.dropout";
  floatTensor(op, "input", x);
  finite(op, "p", p, 0, 1);
  if (!training || p === 0) return x.clone();
  return tidy(() => {
    if (p === 1) return x.mul(0);
    const keep = rand([...x.shape], { device: x.device }).ge(p);
    return x.mul(keep).div(1 - p);
  });
}

/**
 * Rows of weight ([num, dim]) picked by integer indices: shape [...indices.shape, dim], as
 * `torch.nn.functional.embedding`. Rows picked at paddingIdx get no gradient, as in PyTorch.
 * @throws {TensorError} when indices are not integers, weight is not 2-d, or (at the next read) an index is out of range.
 */
export function embedding(indices: Tensor, weight: Tensor, paddingIdx?: number): Tensor {
  const op = "nn.embedding";
  if (!(indices instanceof Tensor) || !isInt(indices.dtype)) {
    throw new TensorError(
      op,
      `indices must be an integer tensor, got ${indices instanceof Tensor ? indices.dtype : describeValue(indices)}`,
    );
  }
  floatTensor(op, "weight", weight);
  if (weight.ndim !== 2) throw new TensorError(op, `weight must be [num_embeddings, embedding_dim], got shape ${fmtShape(weight.shape)}`);
  if (paddingIdx !== undefined && (!Number.isInteger(paddingIdx) || paddingIdx < -weight.shape[0] || paddingIdx >= weight.shape[0])) {
    throw new TensorError(
      op,
      `paddingIdx must be an integer in [-${weight.shape[0]}, ${weight.shape[0]}), got ${describeValue(paddingIdx)}`,
    );
  }
  return tidy(() => {
    const rows = weight.indexSelect(0, indices.flatten()).reshape([...indices.shape, weight.shape[1]]);
    if (paddingIdx === undefined) return rows;
    const pad = paddingIdx < 0 ? paddingIdx + weight.shape[0] : paddingIdx;
    return rows.where(indices.ne(pad).unsqueeze(-1), rows.detach());
  });
}

function checkAffine(op: string, weight: Tensor | undefined, bias: Tensor | undefined, shape: readonly number[]): void {
  for (const [what, t] of [["weight", weight], ["bias", bias]] as const) {
    if (t === undefined) continue;
    floatTensor(op, what, t);
    if (t.ndim !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new TensorError(op, `${what} must have shape ${fmtShape(shape)}, got ${fmtShape(t.shape)}`);
    }
  }
}

function affine(op: string, y: Tensor, weight: Tensor | undefined, bias: Tensor | undefined, shape: number[], view: number[]): Tensor {
  checkAffine(op, weight, bias, shape);
  const w = weight?.reshape(view), b = bias?.reshape(view);
  const scaled = w === undefined ? y : y.mul(w);
  return b === undefined ? scaled : scaled.add(b);
}

function suffixAxes(op: string, x: Tensor, normalizedShape: readonly number[]): number[] {
  const k = normalizedShape.length, tail = x.shape.slice(x.ndim - k);
  if (k === 0 || k > x.ndim || tail.some((d, i) => d !== normalizedShape[i])) {
    throw new TensorError(op, `normalizedShape ${fmtShape(normalizedShape)} is not a suffix of the input's shape ${fmtShape(x.shape)}`);
  }
  return Array.from({ length: k }, (_, i) => x.ndim - k + i);
}

/**
 * (x - mean) / sqrt(var + eps) over the last dims given by normalizedShape (biased variance), then weight and bias of
 * that shape, as `torch.nn.functional.layer_norm`.
 * @throws {TensorError} when normalizedShape is not a suffix of x's shape or weight/bias have another shape.
 */
export function layerNorm(x: Tensor, normalizedShape: readonly number[], weight?: Tensor, bias?: Tensor, eps = 1e-5): Tensor {
  const op = "nn.layerNorm";
  floatTensor(op, "input", x);
  const axes = suffixAxes(op, x, normalizedShape);
  finite(op, "eps", eps, 0);
  checkAffine(op, weight, bias, normalizedShape);
  if (fusable(x, weight, bias)) return fusedNorm(op, false, x, axes, eps, weight, bias);
  return tidy(() => {
    const mean = x.mean(axes, true), centered = x.sub(mean);
    const y = centered.mul(centered.square().mean(axes, true).add(eps).rsqrt());
    return affine(op, y, weight, bias, [...normalizedShape], [...normalizedShape]);
  });
}

/**
 * x / sqrt(mean(x^2) + eps) over the last dims given by normalizedShape, times weight, as
 * `torch.nn.functional.rms_norm`; eps defaults to the dtype's machine epsilon, as there.
 * @throws {TensorError} when normalizedShape is not a suffix of x's shape or weight has another shape.
 */
export function rmsNorm(x: Tensor, normalizedShape: readonly number[], weight?: Tensor, eps?: number): Tensor {
  const op = "nn.rmsNorm";
  floatTensor(op, "input", x);
  const axes = suffixAxes(op, x, normalizedShape);
  const e = eps ?? EPSILON[x.dtype] ?? 2 ** -23;
  finite(op, "eps", e, 0);
  checkAffine(op, weight, undefined, normalizedShape);
  if (fusable(x, weight)) return fusedNorm(op, true, x, axes, e, weight);
  return tidy(() =>
    affine(op, x.mul(x.square().mean(axes, true).add(e).rsqrt()), weight, undefined, [...normalizedShape], [...normalizedShape])
  );
}

/** torch.finfo(dtype).eps: 2^-(stored fraction bits). */
const EPSILON: Partial<Record<DType, number>> = { float32: 2 ** -23, float64: 2 ** -52, float16: 2 ** -10, bfloat16: 2 ** -7 };

/** The channel dim's view shape [1, C, 1, ...] of an [N, C, *] input. */
const perChannel = (x: Tensor) => x.shape.map((d, i) => (i === 1 ? d : 1));

function channels(op: string, x: Tensor): number {
  floatTensor(op, "input", x);
  if (x.ndim < 2) throw new TensorError(op, `input must be [N, C, ...], got shape ${fmtShape(x.shape)}`);
  return x.shape[1];
}

/**
 * Normalizes each of numGroups groups of channels of an [N, C, *] input over its channels and positions (biased
 * variance), then a per-channel weight and bias ([C]), as `torch.nn.functional.group_norm`.
 * @throws {TensorError} when numGroups does not divide C, or the input has fewer than 2 dims.
 */
export function groupNorm(x: Tensor, numGroups: number, weight?: Tensor, bias?: Tensor, eps = 1e-5): Tensor {
  const op = "nn.groupNorm", c = channels(op, x);
  if (!Number.isInteger(numGroups) || numGroups < 1 || c % numGroups !== 0) {
    throw new TensorError(op, `numGroups must be a positive integer dividing the ${c} channels, got ${describeValue(numGroups)}`);
  }
  finite(op, "eps", eps, 0);
  return tidy(() => {
    const g = x.reshape([x.shape[0], numGroups, -1]);
    const centered = g.sub(g.mean(2, true));
    const y = centered.mul(centered.square().mean(2, true).add(eps).rsqrt()).reshape([...x.shape]);
    return affine(op, y, weight, bias, [c], perChannel(x));
  });
}

/** Options of `batchNorm`. */
export interface BatchNormOptions {
  /** A per-channel scale, [C]. */
  weight?: Tensor;
  /** A per-channel shift, [C]. */
  bias?: Tensor;
  /** Normalize by this batch's statistics and update the running ones (default false: normalize by the running ones). */
  training?: boolean;
  /** The running statistics' update rate (default 0.1): running = (1 - momentum) running + momentum batch. */
  momentum?: number;
  /** Added to the variance (default 1e-5). */
  eps?: number;
}

/**
 * Batch normalization of an [N, C, *] input per channel, as `torch.nn.functional.batch_norm`. Training normalizes by the
 * batch's mean and biased variance and, where given, updates runningMean and runningVar ([C]) in place with the mean and
 * the unbiased variance; inference normalizes by the running statistics, which it then needs.
 * @throws {TensorError} when a statistic or parameter is not [C], inference lacks the running statistics, or a training
 * batch has one value per channel.
 */
export function batchNorm(
  x: Tensor,
  runningMean: Tensor | undefined,
  runningVar: Tensor | undefined,
  options: BatchNormOptions = {},
): Tensor {
  const op = "nn.batchNorm", c = channels(op, x), training = options.training ?? false;
  const momentum = finite(op, "momentum", options.momentum ?? 0.1, 0, 1), eps = finite(op, "eps", options.eps ?? 1e-5, 0);
  for (const [what, t] of [["runningMean", runningMean], ["runningVar", runningVar]] as const) {
    if (t !== undefined && (floatTensor(op, what, t).ndim !== 1 || t.numel !== c)) {
      throw new TensorError(op, `${what} must be [C] = [${c}], got shape ${fmtShape(t.shape)}`);
    }
  }
  if (!training && (runningMean === undefined || runningVar === undefined)) {
    throw new TensorError(op, "inference (training false) normalizes by runningMean and runningVar: pass both, or training: true");
  }
  const axes = [...x.shape.keys()].filter((i) => i !== 1), count = x.numel / Math.max(c, 1);
  if (training && count <= 1) {
    throw new TensorError(op, `a training batch needs more than 1 value per channel, got input shape ${fmtShape(x.shape)}`);
  }
  const view = perChannel(x);
  return tidy(() => {
    let mean: Tensor, variance: Tensor;
    if (training) {
      mean = x.mean(axes, true);
      variance = x.sub(mean).square().mean(axes, true);
      noGrad(() => {
        runningMean?.mul_(1 - momentum).add_(mean.detach().reshape([c]).mul(momentum));
        runningVar?.mul_(1 - momentum).add_(variance.detach().reshape([c]).mul((momentum * count) / (count - 1)));
      });
    } else {
      mean = runningMean!.reshape(view);
      variance = runningVar!.reshape(view);
    }
    return affine(op, x.sub(mean).mul(variance.add(eps).rsqrt()), options.weight, options.bias, [c], view);
  });
}
