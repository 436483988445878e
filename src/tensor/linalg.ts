/**
 * matmul and dot with torch.matmul's shape rules over the native "matmul" template
 * (native/src/core/blocks.h). 1-D operands are promoted by a virtual unsqueeze (a stride, not a view) and
 * the added dim is dropped from the result; batch dims broadcast by giving the template
 * zero strides. The kernel computes in f32, f64, i32 or i64: float16/bfloat16 operands
 * run in float32 (unless the device's matmul takes them itself, "matmul_f16"/"matmul_bf16": a
 * vendor BLAS on tensor cores, accumulating in f32) and uint8, int8 and int16 in int32, and the result is
 * cast back to the promoted dtype.
 */
import { TensorError } from "../base/errors.ts";
import { runTemplate } from "../kernels/launch.ts";
import { type DType, promoteTypes } from "../base/dtype.ts";
import { broadcastShapes, broadcastStrides, contiguousStrides, fmtShape, MAX_RANK } from "../base/shape.ts";
import type { Device } from "../runtime/device.ts";
import { allocTensor, Tensor } from "./tensor.ts";
import { cast, commonDevice, generate } from "./elementwise.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/linalg.ts";

const KERNEL_DTYPE: Record<DType, DType | undefined> = {
  float32: "float32",
  float64: "float64",
  int32: "int32",
  int64: "int64",
  float16: "float32",
  bfloat16: "float32",
  uint8: "int32",
  int8: "int32",
  int16: "int32",
  bool: undefined,
};

/** torch.set_float32_matmul_precision's names. */
export type MatmulPrecision = "highest" | "high" | "medium";
let precision: MatmulPrecision = "highest";

/**
 * How float32 matmuls may trade precision for speed, as `torch.set_float32_matmul_precision`:
 * "highest" (the default) computes in float32 throughout; "high" and "medium" let a device's
 * vendor BLAS round the operands to TF32 on tensor cores (CUDA's cuBLAS, HIP's hipBLAS), as
 * PyTorch's CUDA matmul does for both. Devices without such a path stay exact. The setting is
 * read when a matmul is called, so a captured step keeps the one it was recorded with.
 * @throws {TensorError} for a name other than the three
 */
export function setMatmulPrecision(p: MatmulPrecision): void {
  if (p !== "highest" && p !== "high" && p !== "medium") {
    throw new TensorError("setMatmulPrecision", `precision must be "highest", "high" or "medium", got ${JSON.stringify(p)}`);
  }
  precision = p;
}

/** The float32 matmul precision in force ("highest" unless setMatmulPrecision changed it). */
export function getMatmulPrecision(): MatmulPrecision {
  return precision;
}

/** Per device: whether its matmul takes float16 and bfloat16 operands as they are. */
const halfMatmul = new WeakMap<Device, { float16: boolean; bfloat16: boolean }>();

/** The dtype the matmul kernel runs `dt` in on `device`. */
function kernelDType(device: Device, dt: DType): DType {
  if (dt !== "float16" && dt !== "bfloat16") return KERNEL_DTYPE[dt]!;
  let has = halfMatmul.get(device);
  if (has === undefined) halfMatmul.set(device, has = { float16: device.has("matmul_f16"), bfloat16: device.has("matmul_bf16") });
  return has[dt] ? dt : "float32";
}

function operandDType(a: Tensor, b: Tensor, op: string): DType {
  for (const [x, name] of [[a, "first"], [b, "second"]] as const) {
    if (!(x instanceof Tensor)) throw new TensorError(op, `the ${name} operand must be a tensor, got ${x === null ? "null" : typeof x}`);
  }
  commonDevice(op, [a, b]);
  const dt = promoteTypes(a.dtype, b.dtype);
  if (dt === "bool") {
    throw new TensorError(op, `is not supported for bool operands (${a.dtype} and ${b.dtype}); cast to a numeric dtype first`);
  }
  return dt;
}

export function matmul(a: Tensor, b: Tensor): Tensor {
  const out = matmulOp(a, b);
  return gradEnabled && (wantsGrad(a) || wantsGrad(b)) ? grad.matmul(a, b, out) : out;
}

function matmulOp(a: Tensor, b: Tensor): Tensor {
  const op = "matmul";
  const dt = operandDType(a, b, op);
  const shapes = `${fmtShape(a.shape)} @ ${fmtShape(b.shape)}`;
  if (a.ndim === 0 || b.ndim === 0) throw new TensorError(op, `both operands need at least 1 dim, got ${shapes}`);
  const M = a.ndim === 1 ? 1 : a.shape[a.ndim - 2];
  const K = a.shape[a.ndim - 1];
  const Kb = b.ndim === 1 ? b.shape[0] : b.shape[b.ndim - 2];
  const N = b.ndim === 1 ? 1 : b.shape[b.ndim - 1];
  if (K !== Kb) throw new TensorError(op, `inner dimensions differ: ${shapes} (${K} vs ${Kb})`);
  const aBatch = a.shape.slice(0, Math.max(0, a.ndim - 2));
  const bBatch = b.shape.slice(0, Math.max(0, b.ndim - 2));
  let batch: number[];
  try {
    batch = broadcastShapes(op, aBatch, bBatch);
  } catch {
    throw new TensorError(op, `batch dims ${fmtShape(aBatch)} and ${fmtShape(bBatch)} of ${shapes} cannot be broadcast together`);
  }
  if (batch.length + 2 > MAX_RANK) throw new TensorError(op, `result rank ${batch.length + 2} exceeds ${MAX_RANK} for ${shapes}`);
  const shape = [...batch, ...(a.ndim > 1 ? [M] : []), ...(b.ndim > 1 ? [N] : [])];
  const device = a.device;
  if (K === 0) return generate(device, op, dt, shape, (k) => k.constant(0, dt));

  const kdt = kernelDType(device, dt);
  using ac = a.dtype === kdt ? undefined : cast(a, kdt);
  using bc = b.dtype === kdt ? undefined : cast(b, kdt);
  const A = ac ?? a, B = bc ?? b;
  const out = allocTensor(device, kdt, shape, op);
  try {
    if (out.numel > 0) {
      const aRow = A.ndim === 1 ? 0 : A.strides[A.ndim - 2], aCol = A.strides[A.ndim - 1];
      const bRow = B.ndim === 1 ? B.strides[0] : B.strides[B.ndim - 2], bCol = B.ndim === 1 ? 0 : B.strides[B.ndim - 1];
      const aBatchStrides = broadcastStrides(aBatch, A.strides.slice(0, aBatch.length), batch);
      const bBatchStrides = broadcastStrides(bBatch, B.strides.slice(0, bBatch.length), batch);
      const cStrides = contiguousStrides([...batch, M, N]);
      const cBatch = cStrides.slice(0, batch.length);
      runTemplate(device, "matmul", op, (blk) =>
        blk.fill("matmul", {
          bshape: batch,
          m: M,
          n: N,
          k: K,
          a: [A, aBatchStrides],
          a_rows: aRow,
          a_cols: aCol,
          b: [B, bBatchStrides],
          b_rows: bRow,
          b_cols: bCol,
          c: [out, cBatch],
          c_rows: N,
          c_cols: 1,
          tf32: kdt === "float32" && precision !== "highest" ? 1 : 0,
        }));
    }
    if (kdt === dt) return out;
    const back = cast(out, dt);
    out.dispose();
    return back;
  } catch (e) {
    out.dispose();
    throw e;
  }
}

/** The inner product of two 1-D tensors of one length, as a 0-d tensor. */
export function dot(a: Tensor, b: Tensor): Tensor {
  const out = dotOp(a, b);
  return gradEnabled && (wantsGrad(a) || wantsGrad(b)) ? grad.dot(a, b, out) : out;
}

function dotOp(a: Tensor, b: Tensor): Tensor {
  const op = "dot";
  operandDType(a, b, op);
  if (a.ndim !== 1 || b.ndim !== 1) throw new TensorError(op, `needs two 1-D tensors, got ${fmtShape(a.shape)} and ${fmtShape(b.shape)}`);
  if (a.shape[0] !== b.shape[0]) throw new TensorError(op, `lengths differ: ${fmtShape(a.shape)} and ${fmtShape(b.shape)}`);
  return matmulOp(a, b);
}
