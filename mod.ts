/**
 * polytensor: PyTorch-like tensors for Deno and Bun on CUDA, Vulkan, Metal, HIP or the CPU.
 *
 *     import * as pt from "./mod.ts";
 *     using a = pt.tensor([[1, 2], [3, 4]]);
 *     using b = a.matmul(a).relu();
 *     console.log(b.toArray());
 */
import "./src/kernels/renderers.ts";
import { Tensor, type TensorLike } from "./src/tensor/tensor.ts";
import type { DType } from "./src/tensor/dtype.ts";
import * as ew from "./src/tensor/elementwise.ts";
import * as mv from "./src/tensor/movement.ts";
import * as la from "./src/tensor/linalg.ts";

export { Tensor };
export type { IndexMode, NestedArray, Scalar, TensorLike } from "./src/tensor/tensor.ts";
export type { JsonValues } from "./src/tensor/transfer.ts";
export type { DType, HostArray } from "./src/tensor/dtype.ts";
export { promoteTypes } from "./src/tensor/dtype.ts";
export { TensorError } from "./src/runtime/errors.ts";
export { backends, defaultDevice, Device, device, devices, setDefaultDevice, withDevice } from "./src/runtime/device.ts";
export type { BackendInfo, DeviceInfo } from "./src/runtime/device.ts";
export { emptyCache, memoryStats } from "./src/runtime/memory.ts";
export type { MemoryStats } from "./src/runtime/memory.ts";
export { liveBytes } from "./src/runtime/native.ts";
export { collectGarbage, keep, tidy } from "./src/tensor/tidy.ts";
export { getCollectThreshold, setCollectThreshold } from "./src/runtime/ownership.ts";
export { Completion, currentQueue, defaultQueue, Queue, queue, withQueue } from "./src/runtime/queue.ts";
export { eager, lazyEnabled, setLazy } from "./src/lazy/deferred.ts";
export { capture } from "./src/tensor/capture.ts";
export { compareBackends } from "./src/tensor/compare.ts";
export type { BackendComparison, BackendDifference } from "./src/tensor/compare.ts";
export type { CapturedStep, CaptureOptions } from "./src/tensor/capture.ts";

/** Runs the pending fused kernels of the given tensors (lazy mode); returns them. */
export function materialize<T extends readonly Tensor[]>(...tensors: T): T {
  for (const t of tensors) t.materialize();
  return tensors;
}
export {
  arange,
  empty,
  emptyLike,
  eye,
  fromBuffer,
  full,
  fullLike,
  linspace,
  ones,
  onesLike,
  tensor,
  zeros,
  zerosLike,
} from "./src/tensor/creation.ts";
export type { CreateOptions, ShapeArg } from "./src/tensor/creation.ts";
export { getOffset, getSeed, manualSeed, rand, randint, randn, setOffset } from "./src/tensor/random.ts";
export { cat, stack } from "./src/tensor/movement.ts";

/** torch.tensor's alias for JS data. */
export { tensor as fromArray } from "./src/tensor/creation.ts";

type Binary = (a: TensorLike, b: TensorLike) => Tensor;
const bin = (op: Parameters<typeof ew.binary>[0]): Binary => (a, b) => ew.binary(op, a, b);
export const add: Binary = bin("add");
export const sub: Binary = bin("sub");
export const mul: Binary = bin("mul");
export const div: Binary = bin("div");
export const pow: Binary = bin("pow");
export const mod: Binary = bin("mod");
export const maximum: Binary = bin("maximum");
export const minimum: Binary = bin("minimum");
export const eq: Binary = bin("eq");
export const ne: Binary = bin("ne");
export const lt: Binary = bin("lt");
export const le: Binary = bin("le");
export const gt: Binary = bin("gt");
export const ge: Binary = bin("ge");
export const logicalAnd: Binary = bin("logicalAnd");
export const logicalOr: Binary = bin("logicalOr");
export const logicalXor: Binary = bin("logicalXor");

/** The dtype an op over these operands computes in, as torch.result_type (tensors, then 0-d tensors, then JS scalars). */
export function resultType(...operands: TensorLike[]): DType {
  return ew.resultType("resultType", operands);
}

/** where(cond, a, b): a where cond is nonzero, else b. */
export function where(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
  return ew.where(cond, a, b);
}
export function clamp(x: Tensor, min?: TensorLike, max?: TensorLike): Tensor {
  return ew.clamp(x, min, max);
}
export function lerp(start: Tensor, end: TensorLike, weight: TensorLike): Tensor {
  return ew.lerp(start, end, weight);
}
export function matmul(a: Tensor, b: Tensor): Tensor {
  return la.matmul(a, b);
}
export function dot(a: Tensor, b: Tensor): Tensor {
  return la.dot(a, b);
}
export function flip(x: Tensor, axes: number | readonly number[]): Tensor {
  return mv.flip(x, axes);
}

type Unary = (x: Tensor) => Tensor;
const un = (op: Parameters<typeof ew.unary>[0]): Unary => (x) => ew.unary(op, x);
export const neg: Unary = un("neg");
export const abs: Unary = un("abs");
export const sign: Unary = un("sign");
export const square: Unary = un("square");
export const reciprocal: Unary = un("reciprocal");
export const exp: Unary = un("exp");
export const exp2: Unary = un("exp2");
export const log: Unary = un("log");
export const log2: Unary = un("log2");
export const log1p: Unary = un("log1p");
export const sqrt: Unary = un("sqrt");
export const rsqrt: Unary = un("rsqrt");
export const sin: Unary = un("sin");
export const cos: Unary = un("cos");
export const tan: Unary = un("tan");
export const tanh: Unary = un("tanh");
export const sigmoid: Unary = un("sigmoid");
export const relu: Unary = un("relu");
export const gelu: Unary = un("gelu");
export const floor: Unary = un("floor");
export const ceil: Unary = un("ceil");
export const round: Unary = un("round");
export const trunc: Unary = un("trunc");
export const isnan: Unary = un("isnan");
export const isinf: Unary = un("isinf");
export const isfinite: Unary = un("isfinite");
export const logicalNot: Unary = un("logicalNot");
