/**
 * Sampling: randperm, multinomial, bernoulli and normal, as compositions of rand, randn and randint (random.ts) with
 * sorting and searching, so they draw from the one seeded generator (pt.manualSeed) and give the same numbers on every
 * backend. randperm argsorts random 53-bit keys; multinomial without replacement takes the top k of w / E with E
 * exponential (the exponential race, whose order is sampling by weight without replacement), with replacement inverts
 * the cumulative weights with searchsorted. The checks torch makes on the values (probabilities in [0, 1], std >= 0,
 * weights non-negative with enough nonzero) read one small result back, so these cannot run inside pt.capture.
 * None carries a gradient.
 */
import { TensorError } from "../base/errors.ts";
import { checkDType, type DType, isFloat, promoteTypes } from "../base/dtype.ts";
import { broadcastShapes, checkShape, describeValue, fmtShape } from "../base/shape.ts";
import { noGrad } from "../autograd/graph.ts";
import { device as resolveDevice } from "../runtime/device.ts";
import { Tensor } from "./tensor.ts";
import { arange, type CreateOptions, type ShapeArg } from "./creation.ts";
import { rand, randint, randn } from "./random.ts";
import { where } from "./elementwise.ts";
import { stack } from "./movement.ts";
import { sort, topk } from "./sort.ts";
import { toArray } from "./transfer.ts";
import { searchsorted } from "./counting.ts";
import { tidy } from "./tidy.ts";

/** Reads a few 0-d checks back in one transfer, as JS numbers. */
function readChecks(op: string, checks: Tensor[]): number[] {
  return tidy(() => Array.from(toArray(stack(checks.map((c) => c.cast("float32"))), op) as Float32Array));
}

/**
 * A random permutation of 0 .. n - 1, int64 unless `opts.dtype`, as `torch.randperm`.
 * @throws {TensorError} when n is not an integer >= 0 or the generator's offset would pass 2^53.
 */
export function randperm(n: number, opts: Omit<CreateOptions, "requiresGrad"> = {}): Tensor {
  const op = "randperm";
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
    throw new TensorError(op, `n must be an integer >= 0, got ${describeValue(n)}`);
  }
  const dtype = opts.dtype === undefined ? "int64" : checkDType(opts.dtype, op);
  const device = resolveDevice(opts.device);
  // Keys of 53 random bits: ties are rare, and a tie still gives a permutation (argsort is one).
  return tidy(() => sort(randint(0, 2 ** 53, [n], { device }), 0).indices.cast(dtype));
}

/**
 * `numSamples` category indices drawn from each row of non-negative weights (1-D: one distribution, 2-D: one per row;
 * they need not add up to 1), as `torch.multinomial`: without replacement (the default) each row's samples are distinct,
 * in the order drawn; with replacement they are independent. int64, of shape [numSamples] or [rows, numSamples].
 * @throws {TensorError} when input is not a 1-D or 2-D float tensor with categories, a weight is negative or not finite, a
 * row sums to 0, numSamples is not an integer >= 1, or (without replacement) exceeds a row's number of nonzero weights.
 */
export function multinomial(input: Tensor, numSamples: number, replacement = false): Tensor {
  const op = "multinomial";
  if (!(input instanceof Tensor)) throw new TensorError(op, `input must be a Tensor, got ${describeValue(input)}`);
  if ((input.ndim !== 1 && input.ndim !== 2) || !isFloat(input.dtype)) {
    throw new TensorError(op, `input must be a 1-D or 2-D floating-point tensor, got ${input.dtype}${fmtShape(input.shape)}`);
  }
  const n = input.shape[input.ndim - 1];
  if (n === 0) throw new TensorError(op, "input has no categories (its last dim is empty)");
  if (typeof numSamples !== "number" || !Number.isInteger(numSamples) || numSamples < 1) {
    throw new TensorError(op, `numSamples must be an integer >= 1, got ${describeValue(numSamples)}`);
  }
  if (!replacement && numSamples > n) {
    throw new TensorError(op, `cannot draw ${numSamples} samples from ${n} categories without replacement`);
  }
  const w = input.ndim === 1 ? input.reshape([1, n]) : input, rows = w.shape[0];
  if (rows === 0) return tidy(() => arange(0, undefined, 1, { dtype: "int64", device: input.device }).reshape([0, numSamples]));
  const [bad, minSum, minNonzero] = readChecks(op, [
    w.lt(0).logicalOr(w.isfinite().logicalNot()).any(),
    w.sum(1).min(),
    w.ne(0).sum(1).min(),
  ]);
  if (bad) throw new TensorError(op, "the weights must be finite and non-negative");
  if (!(minSum > 0)) throw new TensorError(op, "a row of weights sums to 0");
  if (!replacement && numSamples > minNonzero) {
    throw new TensorError(op, `a row has ${minNonzero} nonzero weights, too few for ${numSamples} samples without replacement`);
  }
  return tidy(() =>
    noGrad(() => {
      let picked: Tensor;
      if (!replacement) {
        // u in [0, 1) gives E = -log(u) in (0, inf]: keys w / E are finite and >= 0, and 0 for a zero weight.
        const keys = w.div(rand([rows, n], { device: input.device }).log().neg());
        picked = topk(keys, numSamples, 1).indices;
      } else {
        const cdf = w.cumsum(1), total = cdf.narrow(1, n - 1, 1);
        const u = rand([rows, numSamples], { device: input.device, dtype: w.dtype }).mul(total);
        const at = searchsorted(cdf, u, { right: true });
        // u * total may round up to total: such a draw goes to the row's last category of nonzero weight.
        const last = w.gt(0).cast("int64").mul(arange(n, undefined, 1, { dtype: "int64", device: input.device })).max(1, true);
        picked = where(at.ge(n), last, at);
      }
      return input.ndim === 1 ? picked.reshape([numSamples]) : picked;
    })
  );
}

/**
 * 0 or 1 for each element of input, 1 with probability given by input itself (without p) or by p (a number, or a tensor
 * that broadcasts to input's shape), as `torch.bernoulli`; the result has input's shape and dtype.
 * @throws {TensorError} when the probabilities lie outside [0, 1] (NaN included) or are not of a float dtype (a tensor).
 */
export function bernoulli(input: Tensor, p?: number | Tensor): Tensor {
  const op = "bernoulli";
  if (!(input instanceof Tensor)) throw new TensorError(op, `input must be a Tensor, got ${describeValue(input)}`);
  if (typeof p === "number") {
    if (!(p >= 0 && p <= 1)) throw new TensorError(op, `p must lie in [0, 1], got ${p}`);
  } else {
    const probs = p ?? input;
    if (!(probs instanceof Tensor)) throw new TensorError(op, `p must be a number or a Tensor, got ${describeValue(p)}`);
    if (!isFloat(probs.dtype)) throw new TensorError(op, `the probabilities must be a floating-point tensor, got ${probs.dtype}`);
    broadcastShapes(op, probs.shape, input.shape);
    const [out] = readChecks(op, [tidy(() => probs.ge(0).logicalAnd(probs.le(1)).all().logicalNot())]);
    if (out) throw new TensorError(op, "the probabilities must lie in [0, 1]");
  }
  const probs = p ?? input;
  const sampleType: DType = probs instanceof Tensor && probs.dtype === "float64" ? "float64" : "float32";
  return tidy(() => noGrad(() => rand([...input.shape], { device: input.device, dtype: sampleType }).lt(probs).cast(input.dtype)));
}

/**
 * Samples of normal distributions, as `torch.normal`: mean and std may each be a tensor (they broadcast; the result
 * takes their shape and float dtype) or a number; with two numbers, `size` gives the shape and `opts` the dtype
 * (float32) and device. A deliberate difference: the result carries no gradient (torch records a zero one).
 * @throws {TensorError} when a std is negative (a tensor's is read back to check), a tensor is not of a float dtype, size
 * is missing for two numbers or given with a tensor, or the shapes do not broadcast.
 */
export function normal(
  mean: Tensor | number,
  std: Tensor | number = 1,
  size?: ShapeArg,
  opts: Omit<CreateOptions, "requiresGrad"> = {},
): Tensor {
  const op = "normal";
  const tensors = [mean, std].filter((x): x is Tensor => x instanceof Tensor);
  for (const [what, v] of [["mean", mean], ["std", std]] as const) {
    if (!(v instanceof Tensor) && typeof v !== "number") {
      throw new TensorError(op, `${what} must be a Tensor or a number, got ${describeValue(v)}`);
    }
    if (v instanceof Tensor && !isFloat(v.dtype)) throw new TensorError(op, `${what} must be a floating-point tensor, got ${v.dtype}`);
  }
  if (typeof std === "number" && !(std >= 0)) throw new TensorError(op, `std must be >= 0, got ${std}`);
  let shape: number[], dtype: DType, device;
  if (tensors.length === 0) {
    if (size === undefined) throw new TensorError(op, "needs a size when mean and std are both numbers");
    shape = checkShape(typeof size === "number" ? [size] : size, op);
    dtype = opts.dtype === undefined ? "float32" : checkDType(opts.dtype, op);
    if (!isFloat(dtype)) throw new TensorError(op, `needs a floating-point dtype, got ${dtype}`);
    device = resolveDevice(opts.device);
  } else {
    if (size !== undefined) throw new TensorError(op, "takes a size only when mean and std are both numbers");
    shape = broadcastShapes(op, ...tensors.map((t) => t.shape));
    dtype = tensors.map((t) => t.dtype).reduce(promoteTypes);
    device = tensors[0].device;
    if (std instanceof Tensor) {
      const [neg] = readChecks(op, [tidy(() => std.ge(0).all().logicalNot())]);
      if (neg) throw new TensorError(op, "std must be >= 0 everywhere");
    }
  }
  return tidy(() => noGrad(() => randn(shape, { device, dtype }).mul(std).add(mean)));
}
