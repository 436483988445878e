/**
 * Dtypes and PyTorch's type promotion. Codes match enum pt_dtype in polytensor.h.
 * JS numbers that take part in an op are "weak": they never widen a tensor's dtype within
 * its category (bool < integer < float), as Python scalars do in PyTorch.
 */
import { TensorError } from "../runtime/errors.ts";

export type DType = "float32" | "float16" | "bfloat16" | "float64" | "int32" | "int64" | "uint8" | "bool";

export type HostArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;

interface DTypeInfo {
  readonly code: number;
  readonly size: number;
  /** 0 bool, 1 integer, 2 float */
  readonly category: 0 | 1 | 2;
  /** Promotion rank within the category. */
  readonly rank: number;
  /** Compute type of the elementwise bytecode: 0 f32, 1 f64, 2 i32, 3 i64. */
  readonly ctype: 0 | 1 | 2 | 3;
}

export const DTYPES: Record<DType, DTypeInfo> = {
  float32: { code: 0, size: 4, category: 2, rank: 2, ctype: 0 },
  float16: { code: 1, size: 2, category: 2, rank: 1, ctype: 0 },
  bfloat16: { code: 2, size: 2, category: 2, rank: 1, ctype: 0 },
  float64: { code: 3, size: 8, category: 2, rank: 3, ctype: 1 },
  int32: { code: 4, size: 4, category: 1, rank: 2, ctype: 2 },
  int64: { code: 5, size: 8, category: 1, rank: 3, ctype: 3 },
  uint8: { code: 6, size: 1, category: 1, rank: 1, ctype: 2 },
  bool: { code: 7, size: 1, category: 0, rank: 0, ctype: 2 },
};

export const DEFAULT_FLOAT: DType = "float32";

export function checkDType(d: unknown, op: string): DType {
  if (typeof d === "string" && d in DTYPES) return d as DType;
  throw new TensorError(op, `unknown dtype ${JSON.stringify(d)} (expected one of ${Object.keys(DTYPES).join(", ")})`);
}

export const isFloat = (d: DType): boolean => DTYPES[d].category === 2;
export const isInt = (d: DType): boolean => DTYPES[d].category === 1;

/** The dtype that holds both a and b (torch.promote_types). */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  const A = DTYPES[a], B = DTYPES[b];
  if (A.category !== B.category) return A.category > B.category ? a : b;
  if (A.category === 2 && A.rank === 1 && B.rank === 1) return "float32"; // float16 with bfloat16
  return A.rank >= B.rank ? a : b;
}

/** A JS scalar's weak category. */
export function scalarCategory(v: number | boolean | bigint): 0 | 1 | 2 {
  if (typeof v === "boolean") return 0;
  if (typeof v === "bigint") return 1;
  return Number.isInteger(v) ? 1 : 2;
}

/** Result dtype of a tensor dtype combined with a weak scalar. */
export function promoteWithScalar(t: DType, v: number | boolean | bigint): DType {
  const c = scalarCategory(v);
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
  if (a instanceof Uint8Array || a instanceof Uint8ClampedArray) return "uint8";
  return undefined;
}
