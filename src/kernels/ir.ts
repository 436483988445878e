/**
 * Kernel IR for elementwise work: an expression tree over strided inputs, constants and
 * the output index. Each backend's renderer turns a tree into its own program; the tree's
 * structure (not its sizes or constant values) is the program's cache key, so one compiled
 * program serves every shape and value. Op codes match blocks.h's bytecode.
 */
import { type DType, DTYPES, isFloat } from "../base/dtype.ts";

export const UNARY = {
  neg: 10,
  abs: 11,
  sign: 12,
  square: 13,
  reciprocal: 14,
  exp: 15,
  exp2: 16,
  log: 17,
  log2: 18,
  log1p: 19,
  sqrt: 20,
  rsqrt: 21,
  sin: 22,
  cos: 23,
  tan: 24,
  tanh: 25,
  sigmoid: 26,
  relu: 27,
  gelu: 28,
  floor: 29,
  ceil: 30,
  round: 31,
  trunc: 32,
  logicalNot: 33,
  isnan: 34,
  isinf: 35,
  isfinite: 36,
  nonzero: 37,
  erf: 38,
  erfc: 39,
  expm1: 40,
  asin: 41,
  acos: 42,
  atan: 43,
  sinh: 44,
  cosh: 45,
  asinh: 46,
  acosh: 47,
  atanh: 48,
  log10: 49,
} as const;

export const BINARY = {
  add: 50,
  sub: 51,
  mul: 52,
  div: 53,
  pow: 54,
  mod: 55,
  maximum: 56,
  minimum: 57,
  eq: 58,
  ne: 59,
  lt: 60,
  le: 61,
  gt: 62,
  ge: 63,
  logicalAnd: 64,
  logicalOr: 65,
  logicalXor: 66,
  atan2: 67,
  hypot: 68,
  fmod: 69,
  floorDivide: 70,
  bitwiseAnd: 71,
  bitwiseOr: 72,
  bitwiseXor: 73,
  bitwiseLeftShift: 74,
  bitwiseRightShift: 75,
} as const;

export type UnaryOp = keyof typeof UNARY;

/** Unary ops without an integer meaning: the front end computes them in a float dtype. */
export const FLOAT_ONLY_UNARY: ReadonlySet<UnaryOp> = new Set<UnaryOp>([
  "reciprocal",
  "exp",
  "exp2",
  "log",
  "log2",
  "log1p",
  "sqrt",
  "rsqrt",
  "sin",
  "cos",
  "tan",
  "tanh",
  "sigmoid",
  "gelu",
  "erf",
  "erfc",
  "expm1",
  "asin",
  "acos",
  "atan",
  "sinh",
  "cosh",
  "asinh",
  "acosh",
  "atanh",
  "log10",
]);
export type BinaryOp = keyof typeof BINARY;

/** Binary ops without an integer meaning: the front end computes them in a float dtype. */
export const FLOAT_ONLY_BINARY: ReadonlySet<BinaryOp> = new Set<BinaryOp>(["atan2", "hypot"]);

/** Binary ops with only an integer meaning (bool and uint8 compute as i32); bitwiseNot is XOR with -1. */
export const INT_ONLY_BINARY: ReadonlySet<BinaryOp> = new Set<BinaryOp>([
  "bitwiseAnd",
  "bitwiseOr",
  "bitwiseXor",
  "bitwiseLeftShift",
  "bitwiseRightShift",
]);

/** Whether binary op has a meaning for operands computing as dtype dt (a renderer refuses the others). */
export function binaryDefined(op: BinaryOp, dt: DType): boolean {
  return isFloat(dt) ? !INT_ONLY_BINARY.has(op) : !FLOAT_ONLY_BINARY.has(op);
}

/** An expression node; `dtype` is the dtype of the value it produces. */
export type Expr =
  | { readonly k: "load"; readonly input: number; readonly dtype: DType }
  | { readonly k: "const"; readonly index: number; readonly dtype: DType }
  | { readonly k: "index"; readonly dtype: DType }
  | { readonly k: "cast"; readonly a: Expr; readonly dtype: DType }
  | { readonly k: "unary"; readonly op: UnaryOp; readonly a: Expr; readonly dtype: DType }
  | { readonly k: "binary"; readonly op: BinaryOp; readonly a: Expr; readonly b: Expr; readonly dtype: DType }
  | { readonly k: "where"; readonly c: Expr; readonly a: Expr; readonly b: Expr; readonly dtype: DType };

const OP_LOAD = 0, OP_CONST = 1, OP_INDEX = 2, OP_CAST = 3, OP_WHERE = 80, OP_STORE = 90;
const MAX_REGS = 32;

/**
 * Encodes a tree as blocks.h bytecode. A register is reused once its reader ran, but never
 * as that reader's own destination, so kernels may treat operands as non-aliasing.
 */
export function encodeBytecode(root: Expr, ninputs: number): Int32Array {
  const code: number[] = [];
  const free: number[] = [];
  let nregs = 0;
  const alloc = () => {
    if (free.length) return free.pop()!;
    if (nregs >= MAX_REGS) throw new Error(`expression needs more than ${MAX_REGS} registers`);
    return nregs++;
  };
  const emit = (op: number, ctype: number, dst: number, a = 0, b = 0, c = 0) => code.push(op, ctype, dst, a, b, c);
  const ct = (d: DType) => DTYPES[d].ctype;

  function walk(e: Expr): number {
    switch (e.k) {
      case "load": {
        const r = alloc();
        emit(OP_LOAD, ct(e.dtype), r, e.input);
        return r;
      }
      case "const": {
        const r = alloc();
        emit(OP_CONST, ct(e.dtype), r, e.index);
        return r;
      }
      case "index": {
        const r = alloc();
        emit(OP_INDEX, ct(e.dtype), r);
        return r;
      }
      case "cast": {
        const a = walk(e.a);
        if (ct(e.a.dtype) === ct(e.dtype)) return a;
        const r = alloc();
        free.push(a);
        emit(OP_CAST, ct(e.dtype), r, a, ct(e.a.dtype));
        return r;
      }
      case "unary": {
        const a = walk(e.a);
        const r = alloc();
        free.push(a);
        emit(UNARY[e.op], ct(e.a.dtype), r, a);
        return r;
      }
      case "binary": {
        const a = walk(e.a), b = walk(e.b);
        const r = alloc();
        free.push(b, a);
        emit(BINARY[e.op], ct(e.a.dtype), r, a, b);
        return r;
      }
      case "where": {
        const c = walk(e.c), a = walk(e.a), b = walk(e.b);
        const r = alloc();
        free.push(b, a, c);
        emit(OP_WHERE, ct(e.dtype), r, c, a, b);
        return r;
      }
    }
  }
  const out = walk(root);
  emit(OP_STORE, ct(root.dtype), 0, out);
  return Int32Array.from([0x50540001, ninputs, Math.max(nregs, 1), code.length / 6, ...code]);
}

/** A short string naming the tree's structure and dtypes (not its sizes or constant values). */
export function exprKey(e: Expr): string {
  switch (e.k) {
    case "load":
      return `L${e.input}${e.dtype}`;
    case "const":
      return `C${e.index}${e.dtype}`;
    case "index":
      return `I${e.dtype}`;
    case "cast":
      return `(${exprKey(e.a)})>${e.dtype}`;
    case "unary":
      return `${e.op}(${exprKey(e.a)})${e.dtype}`;
    case "binary":
      return `${e.op}(${exprKey(e.a)},${exprKey(e.b)})${e.dtype}`;
    case "where":
      return `?(${exprKey(e.c)},${exprKey(e.a)},${exprKey(e.b)})${e.dtype}`;
  }
}

/** Whether two trees have one structure (what exprKey names), compared without building keys. */
export function sameExpr(x: Expr, y: Expr): boolean {
  if (x === y) return true;
  if (x.k !== y.k || x.dtype !== y.dtype) return false;
  switch (x.k) {
    case "load":
      return x.input === (y as typeof x).input;
    case "const":
      return x.index === (y as typeof x).index;
    case "index":
      return true;
    case "cast":
      return sameExpr(x.a, (y as typeof x).a);
    case "unary":
      return x.op === (y as typeof x).op && sameExpr(x.a, (y as typeof x).a);
    case "binary": {
      const o = y as typeof x;
      return x.op === o.op && sameExpr(x.a, o.a) && sameExpr(x.b, o.b);
    }
    case "where": {
      const o = y as typeof x;
      return sameExpr(x.c, o.c) && sameExpr(x.a, o.a) && sameExpr(x.b, o.b);
    }
  }
}
