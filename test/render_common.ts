/**
 * What the four render tests (cuda, glsl, hip, msl) share: IR builders and one expression touching every kind of node,
 * and the template names every renderer must render, listed by hand (not read from the renderers, so that a kind
 * missing from one language is caught): one per kind of blocks.h, attention one per feature size.
 */
import { ATTENTION_SIZES } from "../src/kernels/templates/attention.ts";
import type { BinaryOp, Expr, UnaryOp } from "../src/kernels/ir.ts";
import type { DType } from "../src/base/dtype.ts";

/** A program's bytes as text. */
export const decode = (b: Uint8Array): string => new TextDecoder().decode(b);
/** A load of input `input` as dtype. */
export const load = (input: number, dtype: DType): Expr => ({ k: "load", input, dtype });
/** A unary node. */
export const unary = (op: UnaryOp, a: Expr, dtype: DType): Expr => ({ k: "unary", op, a, dtype });
/** A binary node. */
export const binary = (op: BinaryOp, a: Expr, b: Expr, dtype: DType): Expr => ({ k: "binary", op, a, b, dtype });
/** A cast node. */
export const cast = (a: Expr, dtype: DType): Expr => ({ k: "cast", a, dtype });

/** Unary ops with a bool result. */
export const PREDICATES = new Set<UnaryOp>(["logicalNot", "isnan", "isinf", "isfinite", "nonzero"]);
/** Binary ops with a bool result. */
export const COMPARES = new Set<BinaryOp>(["eq", "ne", "lt", "le", "gt", "ge", "logicalAnd", "logicalOr", "logicalXor"]);
/** The compute types. */
export const COMPUTE: DType[] = ["float32", "float64", "int32", "int64"];

/** One expression touching every kind of node: where, casts, index, constants, f64 registers. */
export function mixed(): Expr {
  const x = load(0, "float16"), i = cast(load(1, "int64"), "int64");
  const c: Expr = { k: "const", index: 0, dtype: "float32" };
  const idx: Expr = { k: "index", dtype: "int32" };
  const cond = binary("lt", cast(idx, "int64"), i, "bool");
  const f = binary("add", unary("gelu", x, "float32"), c, "float32");
  const g = binary("mod", cast(i, "float64"), { k: "const", index: 1, dtype: "float64" }, "float64");
  const w: Expr = { k: "where", c: cond, a: f, b: cast(g, "float32"), dtype: "float32" };
  return cast(w, "uint8");
}

/** The template kinds of blocks.h that have one program each. */
export const KINDS: string[] = [
  "reduce",
  "scan",
  "matmul",
  "sort",
  "gather",
  "scatter",
  "index_put",
  "index_get",
  "nonzero",
  "masked_select",
  "philox",
  "rownorm",
  "im2col",
];
/** Every template name. */
export const NAMES = [...KINDS, ...ATTENTION_SIZES.map((e) => `attention.${e}`)];
