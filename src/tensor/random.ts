/**
 * Random tensors from the native "philox" template (native/src/core/blocks.h): element i of a call is
 * Philox4x32-10 of counter (offset + i) under key (seed lo, seed hi), so a given seed and
 * sequence of calls gives the same numbers on every backend and thread count.
 * One generator per process: { seed, offset }. Each call draws counters offset ..
 * offset + n - 1 and then advances offset by n. manualSeed() sets the seed and resets the
 * offset to 0; setOffset() moves the offset (e.g. to replay a call). rand in float16 /
 * bfloat16 keeps 11 / 8 random bits (as PyTorch does), since rounding a float32 sample to
 * a half type could give 1.
 */
import { TensorError } from "../base/errors.ts";
import { type Device, device as resolveDevice } from "../runtime/device.ts";
import { asLeaf, type CreateOptions, type ShapeArg } from "./creation.ts";
import { runTemplate } from "../kernels/launch.ts";
import { checkDType, type DType, isFloat } from "../base/dtype.ts";
import { checkShape, fmtShape, numel } from "../base/shape.ts";
import { allocTensor, type Tensor } from "./tensor.ts";
import { binary, cast, unary } from "./elementwise.ts";

/** PyTorch's default seed. */
const DEFAULT_SEED = 67280421310721n;
const MAX_OFFSET = 2 ** 53;

const state = { seed: DEFAULT_SEED, offset: 0 };

/**
 * Seeds the process's generator and resets its offset to 0: a seed and a sequence of calls give the same numbers on every backend
 * and thread count (not the numbers PyTorch draws). Any safe integer or bigint, taken modulo 2^64. As `torch.manual_seed`.
 *
 * @example
 * pt.manualSeed(42);
 * using a = pt.rand([2, 3]);
 * pt.manualSeed(42);
 * using b = pt.rand([2, 3]); // the same values as a
 * @throws {TensorError} when the seed is a number that is not a safe integer, or neither a number nor a bigint.
 */
export function manualSeed(seed: number | bigint): void {
  if (typeof seed === "number" && !Number.isSafeInteger(seed)) {
    throw new TensorError("manualSeed", `seed must be a safe integer or a bigint, got ${seed}`);
  }
  if (typeof seed !== "number" && typeof seed !== "bigint") {
    throw new TensorError("manualSeed", `seed must be a number or a bigint, got ${typeof seed}`);
  }
  state.seed = BigInt.asUintN(64, BigInt(seed));
  state.offset = 0;
}

/** The current seed as an unsigned 64-bit bigint: PyTorch's default, 67280421310721n, until `manualSeed`. As `torch.initial_seed`. */
export function getSeed(): bigint {
  return state.seed;
}

/** The generator's next Philox counter: each call draws one per element and advances it (0 after `manualSeed`). */
export function getOffset(): number {
  return state.offset;
}

/**
 * Moves the generator to counter `offset`; back to an earlier `getOffset()` replays the calls made since.
 * @example
 * const at = pt.getOffset();
 * using a = pt.randn([4]);
 * pt.setOffset(at);
 * using b = pt.randn([4]); // the same values as a
 * @throws {TensorError} when offset is not an integer in [0, 2^53).
 */
export function setOffset(offset: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new TensorError("setOffset", `offset must be an integer in [0, 2^53), got ${offset}`);
  }
  state.offset = offset;
}

/** Reserves n counters: returns the first and advances the offset. */
function take(n: number, op: string): number {
  const at = state.offset;
  if (at + n > MAX_OFFSET) {
    throw new TensorError(op, `the generator's offset ${at} + ${n} passes 2^53; call manualSeed() or setOffset() to restart it`);
  }
  state.offset = at + n;
  return at;
}

function toShape(shape: number | readonly number[], op: string): number[] {
  return checkShape(typeof shape === "number" ? [shape] : shape, op);
}

function fill(op: string, dist: 0 | 1 | 2, shape: number[], dtype: DType, dev: Device, a: number, b: number): Tensor {
  const out = allocTensor(dev, dtype, shape, op);
  try {
    const n = numel(shape);
    if (n > 0) {
      const offset = take(n, op);
      const lo = Number(state.seed & 0xffffffffn), hi = Number(state.seed >> 32n);
      runTemplate(dev, "philox", op, (blk) => blk.fill("philox", { dist, seed_lo: lo, seed_hi: hi, offset, a, b, out: [out, [1]], n }));
    }
  } catch (e) {
    out.dispose();
    throw e;
  }
  return out;
}

function floatDType(opts: CreateOptions, op: string): DType {
  const dt = opts.dtype === undefined ? "float32" : checkDType(opts.dtype, op);
  if (!isFloat(dt)) throw new TensorError(op, `needs a floating-point dtype, got ${dt}`);
  return dt;
}

/** Significand bits of the half types: rand keeps that many bits so rounding never gives 1. */
const HALF_BITS: Partial<Record<DType, number>> = { float16: 11, bfloat16: 8 };

/**
 * Uniform samples in [0, 1), float32 unless `opts.dtype` (a float dtype; float16 and bfloat16 keep 11 and 8 random bits, as in
 * PyTorch, so that rounding never gives 1). As `torch.rand`; see `manualSeed` for reproducible draws.
 * @throws {TensorError} when the shape is invalid (see `ShapeArg`), the dtype is not a float dtype, or the generator's offset
 * would pass 2^53 (`manualSeed` or `setOffset` restarts it).
 */
export function rand(shape: ShapeArg, opts: CreateOptions = {}): Tensor {
  return asLeaf(randImpl(shape, opts), opts, "rand");
}

function randImpl(shape: ShapeArg, opts: CreateOptions = {}): Tensor {
  const s = toShape(shape, "rand");
  const dt = floatDType(opts, "rand");
  const bits = HALF_BITS[dt];
  if (bits === undefined) return fill("rand", 0, s, dt, resolveDevice(opts.device), 0, 1);
  // float32 samples cut to the half type's grid, k * 2^-bits with k < 2^bits, which it holds exactly.
  using u = fill("rand", 0, s, "float32", resolveDevice(opts.device), 0, 1);
  using scaled = binary("mul", u, 2 ** bits);
  using k = unary("floor", scaled);
  using grid = binary("div", k, 2 ** bits);
  return cast(grid, dt);
}

/**
 * Samples of the standard normal distribution (mean 0, variance 1; Box-Muller), float32 unless `opts.dtype` (a float dtype).
 * As `torch.randn`.
 * @throws {TensorError} when the shape is invalid (see `ShapeArg`), the dtype is not a float dtype, or the generator's offset
 * would pass 2^53 (`manualSeed` or `setOffset` restarts it).
 */
export function randn(shape: ShapeArg, opts: CreateOptions = {}): Tensor {
  return asLeaf(randnImpl(shape, opts), opts, "randn");
}

function randnImpl(shape: ShapeArg, opts: CreateOptions = {}): Tensor {
  const s = toShape(shape, "randn");
  return fill("randn", 1, s, floatDType(opts, "randn"), resolveDevice(opts.device), 0, 1);
}

const INT_RANGE: Partial<Record<DType, [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31],
  int16: [-32768, 32768],
  int8: [-128, 128],
  uint8: [0, 256],
  bool: [0, 2],
};

/**
 * Integers uniform in [low, high), int64 unless `opts.dtype` (a float dtype gives integer values in it). As `torch.randint`, whose
 * low may be left out; here it may not.
 *
 * @example
 * using dice = pt.randint(1, 7, [10]); // ten int64 values in 1..6
 * using bits = pt.randint(0, 2, [4, 4], { dtype: "bool" });
 * @throws {TensorError} when the shape is invalid, low or high is not an integer, low >= high, a bound lies beyond +-2^53, the
 * range does not fit the dtype (int32, int16, int8, uint8, bool), or the generator's offset would pass 2^53.
 */
export function randint(low: number | bigint, high: number | bigint, shape: ShapeArg, opts: CreateOptions = {}): Tensor {
  return asLeaf(randintImpl(low, high, shape, opts), opts, "randint");
}

function randintImpl(low: number | bigint, high: number | bigint, shape: ShapeArg, opts: CreateOptions = {}): Tensor {
  const op = "randint";
  const s = toShape(shape, op);
  const dt = opts.dtype === undefined ? "int64" : checkDType(opts.dtype, op);
  const lo = Number(low), hi = Number(high);
  if (!Number.isInteger(lo) || !Number.isInteger(hi)) throw new TensorError(op, `bounds must be integers, got [${low}, ${high})`);
  if (!(lo < hi)) throw new TensorError(op, `range [${low}, ${high}) is empty (need low < high) for shape ${fmtShape(s)}`);
  if (Math.abs(lo) > 2 ** 53 || Math.abs(hi) > 2 ** 53) throw new TensorError(op, `bounds [${low}, ${high}) must lie within +-2^53`);
  const range = INT_RANGE[dt];
  if (range && (lo < range[0] || hi > range[1])) {
    throw new TensorError(op, `range [${low}, ${high}) does not fit ${dt} (whose values lie in [${range[0]}, ${range[1]}))`);
  }
  return fill(op, 2, s, dt, resolveDevice(opts.device), lo, hi);
}
