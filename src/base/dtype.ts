/**
 * Dtypes and PyTorch's type promotion. Codes match enum pt_dtype in polytensor.h.
 * Operands promote as torch.result_type ranks them: dimensioned tensors first, then 0-d
 * tensors, then JS scalars; a later group changes the result only when its kind is higher
 * (bool < integer < float), so JS numbers and 0-d tensors never widen a tensor's dtype
 * within its kind, as Python scalars and 0-d tensors do not in PyTorch.
 */
import { TensorError } from "./errors.ts";

/** The element types, named as PyTorch's dtypes (`torch.float32` is "float32"). */
export type DType = "float32" | "float16" | "bfloat16" | "float64" | "int32" | "int64" | "uint8" | "bool" | "int8" | "int16";

/**
 * The typed arrays that hold tensor values on the host, one per dtype: Float32Array for float32, float16 and bfloat16 (widened),
 * Float64Array for float64, Int32Array for int32, BigInt64Array for int64, Int16Array for int16, Int8Array for int8, and
 * Uint8Array for uint8 and bool (0 or 1). What `toArray()` returns; `tensor()` and `fromBuffer()` take them (there a Uint8Array
 * means uint8).
 */
export type HostArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Int16Array | Int8Array | Uint8Array;

interface DTypeInfo {
  readonly code: number;
  readonly size: number;
  /** 0 bool, 1 integer, 2 float */
  readonly category: 0 | 1 | 2;
  /** Promotion rank within the category (uint8 and int8 share one: together they promote to int16). */
  readonly rank: number;
  /** Compute type of the elementwise bytecode: 0 f32, 1 f64, 2 i32, 3 i64. */
  readonly ctype: 0 | 1 | 2 | 3;
  /**
   * A JS number as a value of this dtype, as PyTorch casts a scalar to an op's computation
   * dtype before using it. Kernels compute float16 and bfloat16 in float32 registers and
   * bool in integer ones, so the host rounds (or takes the truthiness) first; a float32
   * constant is rounded by the kernel itself.
   */
  readonly scalar: (v: number) => number;
}

const same = (v: number) => v;
const truth = (v: number) => (v !== 0 ? 1 : 0); // NaN is true
const toInt = (v: number) => (Number.isFinite(v) ? Math.trunc(v) : v);
// A scalar out of an int32, int16, int8 or uint8 op's range wraps, as PyTorch's conversion of a Python int does (uint8 + 300
// adds 44, int8 + 200 adds -56).
const toInt32 = (v: number) => (Number.isFinite(v) ? Math.trunc(v) | 0 : v);
const toUint8 = (v: number) => (Number.isFinite(v) ? Math.trunc(v) & 255 : v);
const toInt8 = (v: number) => (Number.isFinite(v) ? (Math.trunc(v) << 24) >> 24 : v);
const toInt16 = (v: number) => (Number.isFinite(v) ? (Math.trunc(v) << 16) >> 16 : v);

export const DTYPES: Record<DType, DTypeInfo> = {
  float32: { code: 0, size: 4, category: 2, rank: 2, ctype: 0, scalar: same },
  float16: { code: 1, size: 2, category: 2, rank: 1, ctype: 0, scalar: (v) => roundFloat(Math.fround(v), 10, -14, 15) },
  bfloat16: { code: 2, size: 2, category: 2, rank: 1, ctype: 0, scalar: (v) => roundFloat(Math.fround(v), 7, -126, 127) },
  float64: { code: 3, size: 8, category: 2, rank: 3, ctype: 1, scalar: same },
  int32: { code: 4, size: 4, category: 1, rank: 3, ctype: 2, scalar: toInt32 },
  int64: { code: 5, size: 8, category: 1, rank: 4, ctype: 3, scalar: toInt },
  uint8: { code: 6, size: 1, category: 1, rank: 1, ctype: 2, scalar: toUint8 },
  bool: { code: 7, size: 1, category: 0, rank: 0, ctype: 2, scalar: truth },
  int8: { code: 8, size: 1, category: 1, rank: 1, ctype: 2, scalar: toInt8 },
  int16: { code: 9, size: 2, category: 1, rank: 2, ctype: 2, scalar: toInt16 },
};

/**
 * v rounded to nearest-even in a binary float format with `mant` stored fraction bits and
 * normal exponents emin..emax (float16: 10, -14, 15; bfloat16: 7, -126, 127), subnormals
 * included; past the largest finite value it rounds to infinity, as a cast does. v comes
 * through float32 first (the caller's Math.fround), as tensor data does on its way to
 * these dtypes, so a scalar and a tensor element made from one JS number agree.
 */
export function roundFloat(v: number, mant: number, emin: number, emax: number): number {
  const a = Math.abs(v);
  if (a === 0 || !Number.isFinite(a)) return v;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--; // log2 can be off by one next to a power of two
  else if (2 ** (e + 1) <= a) e++;
  const ulp = 2 ** (Math.max(e, emin) - mant);
  const q = a / ulp, f = Math.floor(q), d = q - f; // exact: ulp is a power of two
  const r = (d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f) * ulp;
  const out = r >= 2 ** (emax + 1) ? Infinity : r;
  return v < 0 ? -out : out;
}

export const DEFAULT_FLOAT: DType = "float32";

export function checkDType(d: unknown, op: string): DType {
  if (typeof d === "string" && d in DTYPES) return d as DType;
  throw new TensorError(op, `unknown dtype ${JSON.stringify(d)} (expected one of ${Object.keys(DTYPES).join(", ")})`);
}

const INT_RANGES: Partial<Record<DType, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 255n],
  int8: [-128n, 127n],
  int16: [-32768n, 32767n],
};

/** Throws unless JS scalar v can be stored in integer dtype d (as PyTorch refuses an overflowing scalar); other dtypes take any value. */
export function checkFits(v: number | boolean | bigint, d: DType, op: string): void {
  const range = INT_RANGES[d];
  if (range === undefined || typeof v === "boolean") return;
  if (typeof v === "number" && !Number.isFinite(v)) throw new TensorError(op, `${v} cannot be stored in ${d}`);
  const i = typeof v === "bigint" ? v : BigInt(Math.trunc(v));
  if (i < range[0] || i > range[1]) throw new TensorError(op, `${v} is outside the range of ${d} [${range[0]}, ${range[1]}]`);
}

export const isFloat = (d: DType): boolean => DTYPES[d].category === 2;
export const isInt = (d: DType): boolean => DTYPES[d].category === 1;

/**
 * The smallest dtype that holds both a and b. Kinds rank bool < integer < float, and the higher kind wins whatever the sizes
 * (int64 with float16 is float16); float16 with bfloat16 is float32. As `torch.promote_types`.
 *
 * @example
 * pt.promoteTypes("int32", "int64"); // "int64"
 * pt.promoteTypes("int64", "float16"); // "float16"
 * pt.promoteTypes("float16", "bfloat16"); // "float32"
 */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  const A = DTYPES[a], B = DTYPES[b];
  if (A.category !== B.category) return A.category > B.category ? a : b;
  if (A.category === 2 && A.rank === 1 && B.rank === 1) return "float32"; // float16 with bfloat16
  if (A.rank === 1 && B.rank === 1) return "int16"; // uint8 with int8: neither holds the other
  return A.rank >= B.rank ? a : b;
}

/**
 * torch.result_type's rule between two groups of operands (combine_categories): the
 * result of the higher-priority group (dimensioned tensors over 0-d tensors over JS
 * scalars) unless the lower group is of a higher kind; then the two promote. undefined
 * stands for an empty group.
 */
export function combineCategories(higher: DType | undefined, lower: DType | undefined): DType | undefined {
  if (higher === undefined) return lower;
  if (lower === undefined) return higher;
  const h = DTYPES[higher].category;
  if (h === 2) return higher;
  if (h === 0 || DTYPES[lower].category === 2) return promoteTypes(higher, lower);
  return higher;
}

/**
 * The dtype a JS scalar stands for when it promotes, as PyTorch's wrapped numbers: bool,
 * int64 for an integer-valued number or a bigint, the default float for any other number
 * (a JS number carries no integer type, so 2.0 counts as an integer).
 */
export function scalarDType(v: number | boolean | bigint): DType {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint" || Number.isInteger(v)) return "int64";
  return DEFAULT_FLOAT;
}

/** Result dtype of a tensor dtype (the only tensor, or of the higher group) combined with a JS scalar. */
export function promoteWithScalar(t: DType, v: number | boolean | bigint): DType {
  const c = typeof v === "boolean" ? 0 : typeof v === "bigint" || Number.isInteger(v) ? 1 : 2;
  if (c <= DTYPES[t].category) return t;
  return c === 2 ? DEFAULT_FLOAT : c === 1 ? "int64" : "bool";
}

export function hostArrayFor(d: DType, n: number): HostArray {
  switch (d) {
    case "float64":
      return new Float64Array(n);
    case "int32":
      return new Int32Array(n);
    case "int64":
      return new BigInt64Array(n);
    case "int16":
      return new Int16Array(n);
    case "int8":
      return new Int8Array(n);
    case "uint8":
    case "bool":
      return new Uint8Array(n);
    default:
      return new Float32Array(n);
  }
}

/** The dtype that toArray() reads a dtype back as (float16/bfloat16 widen to float32). */
export function hostDType(d: DType): DType {
  return d === "float16" || d === "bfloat16" ? "float32" : d;
}

export function dtypeOfArray(a: ArrayBufferView): DType | undefined {
  if (a instanceof Float32Array) return "float32";
  if (a instanceof Float64Array) return "float64";
  if (a instanceof Int32Array) return "int32";
  if (a instanceof BigInt64Array) return "int64";
  if (a instanceof Int16Array) return "int16";
  if (a instanceof Int8Array) return "int8";
  if (a instanceof Uint8Array || a instanceof Uint8ClampedArray) return "uint8";
  return undefined;
}
