/**
 * The binary math and bitwise ops' front ends (issue #27): their dtype rules, then the
 * kernel elementwise.ts builds for every binary op (binaryKernel). Each op is one opcode
 * of the bytecode (kernels/ir.ts), so its rounding is the backend's math library's, not a
 * composition's; bitwiseNot is XOR with -1, which is exact.
 */
import { TensorError } from "../base/errors.ts";
import type { BinaryOp } from "../kernels/ir.ts";
import { DEFAULT_FLOAT, type DType, isFloat } from "../base/dtype.ts";
import { Tensor, type TensorLike } from "./tensor.ts";
import { binaryKernel, pairType, unary } from "./elementwise.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import * as grad from "../autograd/elementwise.ts";

/** The float ops: integer and bool operands compute in the default float dtype. */
const FLOAT_RESULT = new Set<BinaryOp>(["atan2", "hypot"]);
const SHIFTS = new Set<BinaryOp>(["bitwiseLeftShift", "bitwiseRightShift"]);

/** A binary math or bitwise op with its gradient rule (bitwise results have none). */
export function binaryMath(op: BinaryOp, a: TensorLike, b: TensorLike): Tensor {
  const out = binaryMathOp(op, a, b);
  return gradEnabled && (wantsGrad(a) || wantsGrad(b)) ? grad.binary(op, a, b, out) : out;
}

function binaryMathOp(op: BinaryOp, a: TensorLike, b: TensorLike): Tensor {
  if (!(a instanceof Tensor) && !(b instanceof Tensor)) throw new TensorError(op, "needs at least one tensor operand");
  let ct: DType = pairType(op, a, b);
  if (FLOAT_RESULT.has(op)) {
    if (!isFloat(ct)) ct = DEFAULT_FLOAT;
  } else if (op === "fmod" || op === "floorDivide") {
    if (ct === "bool") throw new TensorError(op, "is not supported for two bool operands; cast one to an integer dtype first");
  } else { // the bitwise ops
    if (isFloat(ct)) throw new TensorError(op, `needs integer or bool operands, got ${ct}; cast to an integer dtype first`);
    if (ct === "bool" && SHIFTS.has(op)) throw new TensorError(op, "is not supported for bool operands; cast to an integer dtype first");
  }
  return binaryKernel(op, a, b, ct, ct);
}

/**
 * `~x` elementwise: each bit flipped for an integer x (uint8 `~200` is 55), logical not for a bool one. As `torch.bitwise_not`.
 * @throws {TensorError} for a float tensor.
 */
export function bitwiseNot(x: Tensor): Tensor {
  const op = "bitwiseNot";
  if (!(x instanceof Tensor)) throw new TensorError(op, "expects a tensor");
  if (x.dtype === "bool") return unary("logicalNot", x);
  if (isFloat(x.dtype)) throw new TensorError(op, `needs an integer or bool tensor, got ${x.dtype}; cast to an integer dtype first`);
  return binaryKernel("bitwiseXor", x, -1, x.dtype, x.dtype, op); // uint8's -1 is 255
}

// The functional forms, re-exported by mod.ts as pt.<name>. The unary float ops compute in float32 for an integer or bool x, as
// PyTorch's do, and go through elementwise.ts's unary (their gradient rules are autograd/elementwise.ts's).

/** The error function elementwise (float32 for an integer or bool x). As `torch.erf`. */
export function erf(x: Tensor): Tensor {
  return unary("erf", x);
}
/** `1 - erf(x)` elementwise, accurate where erf(x) nears 1 (float32 for an integer or bool x). As `torch.erfc`. */
export function erfc(x: Tensor): Tensor {
  return unary("erfc", x);
}
/** `exp(x) - 1` elementwise, accurate for small x (float32 for an integer or bool x). As `torch.expm1`. */
export function expm1(x: Tensor): Tensor {
  return unary("expm1", x);
}
/** The base-10 logarithm elementwise (float32 for an integer or bool x). As `torch.log10`. */
export function log10(x: Tensor): Tensor {
  return unary("log10", x);
}
/** The arcsine elementwise, in [-pi/2, pi/2]; NaN outside [-1, 1] (float32 for an integer or bool x). As `torch.asin`. */
export function asin(x: Tensor): Tensor {
  return unary("asin", x);
}
/** The arccosine elementwise, in [0, pi]; NaN outside [-1, 1] (float32 for an integer or bool x). As `torch.acos`. */
export function acos(x: Tensor): Tensor {
  return unary("acos", x);
}
/** The arctangent elementwise, in [-pi/2, pi/2] (float32 for an integer or bool x). As `torch.atan`. */
export function atan(x: Tensor): Tensor {
  return unary("atan", x);
}
/** The hyperbolic sine elementwise (float32 for an integer or bool x). As `torch.sinh`. */
export function sinh(x: Tensor): Tensor {
  return unary("sinh", x);
}
/** The hyperbolic cosine elementwise (float32 for an integer or bool x). As `torch.cosh`. */
export function cosh(x: Tensor): Tensor {
  return unary("cosh", x);
}
/** The inverse hyperbolic sine elementwise (float32 for an integer or bool x). As `torch.asinh`. */
export function asinh(x: Tensor): Tensor {
  return unary("asinh", x);
}
/** The inverse hyperbolic cosine elementwise; NaN below 1 (float32 for an integer or bool x). As `torch.acosh`. */
export function acosh(x: Tensor): Tensor {
  return unary("acosh", x);
}
/** The inverse hyperbolic tangent elementwise; +-inf at +-1, NaN beyond (float32 for an integer or bool x). As `torch.atanh`. */
export function atanh(x: Tensor): Tensor {
  return unary("atanh", x);
}

/**
 * The angle of the point (x, y) elementwise, in [-pi, pi], broadcasting; C's atan2 with its signed zeros and infinities
 * (`atan2(0, -1)` is pi, `atan2(-0, -1)` is -pi). Integer and bool operands compute in float32. As `torch.atan2`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function atan2(y: TensorLike, x: TensorLike): Tensor {
  return binaryMath("atan2", y, x);
}
/**
 * `sqrt(a^2 + b^2)` elementwise without overflow or underflow in the squares, broadcasting; inf where either is infinite, even
 * against NaN. Integer and bool operands compute in float32 (PyTorch refuses them; here they promote as atan2's do). As
 * `torch.hypot`.
 * @throws {TensorError} when neither operand is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function hypot(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("hypot", a, b);
}
/**
 * C's remainder elementwise, broadcasting: `a - trunc(a / b) * b`, with the sign of the dividend (`fmod(-3, 2)` is -1, where
 * `pt.mod`, Python's %, gives 1). A float divisor of 0 gives NaN. As `torch.fmod`.
 * @throws {TensorError} when an integer divisor is 0 (raised by this call: an integer fmod runs at once, even in lazy mode, as
 * `pt.mod` does), both operands are bool, neither is a tensor, the shapes do not broadcast, or the devices differ.
 */
export function fmod(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("fmod", a, b);
}
/**
 * `a / b` rounded toward negative infinity elementwise, broadcasting, in the promoted dtype: Python's `//` (`-7 // 2` is -4). Floats
 * follow PyTorch's `div_floor_floating`, which works from fmod, so `1 // 0.1` is 9 (as in Python) where `floor(1 / 0.1)` is 10, and
 * a float divisor of 0 gives `a / b` (+-inf or NaN). Its gradient is zero. As `torch.floor_divide`.
 * @throws {TensorError} when an integer divisor is 0 (raised by this call, as `pt.mod`'s), both operands are bool, neither is a
 * tensor, the shapes do not broadcast, or the devices differ.
 */
export function floorDivide(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("floorDivide", a, b);
}

/**
 * Bitwise AND elementwise, broadcasting, of integer or bool operands (bool with bool is bool: logical and). As `torch.bitwise_and`.
 * @throws {TensorError} when the promoted dtype is a float dtype (a float tensor or a non-integer JS number), neither operand is a
 * tensor, the shapes do not broadcast, or the devices differ.
 */
export function bitwiseAnd(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("bitwiseAnd", a, b);
}
/**
 * Bitwise OR elementwise, broadcasting, of integer or bool operands. As `torch.bitwise_or`.
 * @throws {TensorError} as `bitwiseAnd`.
 */
export function bitwiseOr(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("bitwiseOr", a, b);
}
/**
 * Bitwise exclusive OR elementwise, broadcasting, of integer or bool operands. As `torch.bitwise_xor`.
 * @throws {TensorError} as `bitwiseAnd`.
 */
export function bitwiseXor(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("bitwiseXor", a, b);
}
/**
 * `a << b` elementwise, broadcasting, of integer operands, wrapping in the promoted dtype (uint8 `200 << 1` is 144). A count below
 * 0 or at least the dtype's bit width (8 for uint8 and int8, 16 for int16, 32, 64) gives 0, as PyTorch (C leaves it undefined). As
 * `torch.bitwise_left_shift`.
 * @throws {TensorError} for float or bool operands, when neither operand is a tensor, the shapes do not broadcast, or the devices
 * differ.
 */
export function bitwiseLeftShift(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("bitwiseLeftShift", a, b);
}
/**
 * `a >> b` elementwise, broadcasting, of integer operands: arithmetic for signed dtypes (`-8 >> 1` is -4). A count below 0 or at
 * least the bit width shifts every bit out: -1 for a negative a, else 0, as PyTorch. As `torch.bitwise_right_shift`.
 * @throws {TensorError} as `bitwiseLeftShift`.
 */
export function bitwiseRightShift(a: TensorLike, b: TensorLike): Tensor {
  return binaryMath("bitwiseRightShift", a, b);
}
