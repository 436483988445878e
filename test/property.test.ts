/**
 * Property test (issue #22): seeded random programs of elementwise ops over broadcast
 * operands of every size from 0 to about 1100 elements, then an optional reduction over
 * random axes, each run lazily and eagerly on the default device (PT_DEVICE) and checked
 * against a plain JS reference interpreter that never calls the library for its math.
 *
 * - Leaves: tensors of rank 0 to 3 (empty, one-element and 0-d shapes included) of float32,
 *   float16, int32, int64, uint8 and bool, contiguous or as permuted and expanded views,
 *   broadcast against each other (size-1 dims, missing leading dims, 0-d tensors), and JS
 *   numbers and booleans as weak scalars.
 * - Ops: unary (neg abs square relu sign floor ceil round trunc exp sqrt-of-abs sigmoid
 *   tanh logicalNot isnan), binary (add sub mul div maximum minimum, the six comparisons,
 *   logicalAnd/Or/Xor), where, clamp and cast; then sum mean prod max min argmax argmin
 *   any all var countNonzero over random axes with random keepdim.
 * - The reference follows PyTorch: torch.result_type's three categories (dimensioned
 *   tensors, then 0-d tensors, then JS scalars; a lower category only matters when it is of
 *   a higher kind, bool < int < float), operands converted to the compute dtype (float16
 *   and float32 rounding at every op, int32/uint8/int64 wrap-around), int / int -> float32,
 *   and the reductions' dtypes (sum/prod of bool or int -> int64, argmax -> int64, any/all
 *   -> bool but uint8 for uint8, mean/var of floats only). Where PyTorch leaves a result
 *   undefined it follows the library's contract (float -> int casts truncate, NaN -> 0,
 *   saturate: kernels.h) or does not compare (float -> uint8 beyond 2^31).
 * - Checks: every node eagerly (reading there changes nothing) against the reference; every
 *   node's dtype and shape lazily (known without running); the reduction and the expression
 *   lazily (the reduction first, so it fuses) against eager, bit for bit, and against the
 *   reference. Integers and bools must be exact; a float must lie within an error bound the
 *   reference carries with each value: 0 for exact ops on exact values (+ - * / and casts
 *   are correctly rounded), a few ulp for transcendental functions, 1e-5 of the sum of
 *   magnitudes for sums (summation order differs), propagated through later ops. An element
 *   those bounds cannot decide (a floor, comparison or cast of an inexact value next to its
 *   threshold) is not compared; the summary line counts them.
 * - A failure names each failing program's seed and text (leaves with their dtypes, shapes and
 *   values when short), its first differing node or output and element; failures are grouped
 *   by the op where they first differ, with the shortest program of each group in full.
 *
 * PT_PROPERTY_PROGRAMS sets how many programs run; PT_PROPERTY_SEED=N runs only program N.
 */
import * as pt from "../mod.ts";
import { assert, env, rng, test } from "./harness.ts";

const dev = pt.defaultDevice();
/**
 * Each program compiles a few kernels of its own: cheap for the CPU's bytecode (4000
 * programs take about 1.5 s), ~0.1 s each through a GPU's compiler, 0.3-0.5 s each on
 * lavapipe (glslang, then LLVM on the CPU) unless the disk caches have them.
 */
const PROGRAMS = Number(env("PT_PROPERTY_PROGRAMS") ?? (dev.info.language === "bytecode" ? 4000 : dev.info.software ? 8 : 40));
const ONLY = env("PT_PROPERTY_SEED");
const SEEDS = ONLY !== undefined ? [Number(ONLY)] : Array.from({ length: PROGRAMS }, (_, i) => i + 1);

// ---- dtypes and promotion (torch.result_type), independent of the library --------------------

type DT = "float32" | "float16" | "int32" | "int64" | "uint8" | "bool";
type Num = number | bigint;
const CATEGORY: Record<DT, number> = { bool: 0, uint8: 1, int32: 1, int64: 1, float16: 2, float32: 2 };
/** torch.promote_types over these dtypes is the later of the two in this order. */
const ORDER: Record<DT, number> = { bool: 0, uint8: 1, int32: 2, int64: 3, float16: 4, float32: 5 };
const isFloatDT = (d: DT): d is "float32" | "float16" => CATEGORY[d] === 2;

function promote(a: DT | undefined, b: DT | undefined): DT | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return ORDER[a] >= ORDER[b] ? a : b;
}

/** c10's combine_categories: the higher category wins unless the lower one is of a higher kind. */
function combine(higher: DT | undefined, lower: DT | undefined): DT | undefined {
  if (higher === undefined) return lower;
  if (CATEGORY[higher] === 2 || lower === undefined) return higher;
  if (higher === "bool" || CATEGORY[lower] === 2) return promote(higher, lower);
  return higher;
}

/** A JS scalar's dtype as a wrapped number: bool, int64 for integers, the default float32 otherwise. */
const scalarDType = (s: number | boolean): DT => typeof s === "boolean" ? "bool" : Number.isInteger(s) ? "int64" : "float32";

/** What type promotion sees of an operand: a tensor's dtype and rank, or a JS scalar. */
type TypeArg = { dtype: DT; rank: number } | { scalar: number | boolean };

/** torch.result_type: dimensioned tensors, then 0-d tensors, then wrapped scalars. */
function resultType(args: readonly TypeArg[]): DT {
  let dim: DT | undefined, zero: DT | undefined, wrapped: DT | undefined;
  for (const a of args) {
    if ("scalar" in a) wrapped = promote(wrapped, scalarDType(a.scalar));
    else if (a.rank > 0) dim = promote(dim, a.dtype);
    else zero = promote(zero, a.dtype);
  }
  return combine(dim, combine(zero, wrapped)) ?? "float32";
}

// ---- float rounding helpers -------------------------------------------------------------------

const F32_OVER = 3.4028235677973366e38; // 2^128 - 2^103: float32 rounds this and above to inf
const F16_OVER = 65520; // float16 rounds this and above to inf
/** An error bound of "0, sign unknown": -0 and +0 both acceptable, nothing else. */
const ZS = Number.MIN_VALUE;
/** Transcendental functions: relative error allowed (CPU libm is ~1 ulp; Vulkan allows 3 + 2|x| ulp for exp). */
const REL_T = 2 ** -17;
/** tanh and sigmoid: absolute error allowed as well (formulas through exp lose relative accuracy near 0). */
const ABS_T = 2 ** -22;
/** Sums: relative to the sum of magnitudes (the brief: ~1e-5 for float32 sums; summation order differs). */
const RTOL_SUM = 1e-5;

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
}

/** Exponent e with 2^e <= |a| < 2^(e+1), a finite and nonzero. */
function exponent(a: number): number {
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  return e;
}

/** x rounded to float16 (nearest, ties to even), from a float64 value. */
function round16(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= F16_OVER) return x > 0 ? Infinity : -Infinity;
  const q = 2 ** (Math.max(exponent(a), -14) - 10);
  return Math.sign(x) * roundHalfEven(a / q) * q;
}

/** The library computes float16 ops in float32 registers and stores float16: f16(f32(r)). */
const roundTo = (dt: "float32" | "float16", r: number): number => dt === "float32" ? Math.fround(r) : round16(Math.fround(r));

/** An upper bound on one ulp of dt at magnitude a. */
function ulp(dt: "float32" | "float16", a: number): number {
  if (!(a > 0) || !Number.isFinite(a)) return dt === "float32" ? 2 ** -149 : 2 ** -24;
  return dt === "float32" ? 2 ** (Math.max(exponent(a), -126) - 22) : 2 ** (Math.max(exponent(a), -14) - 9);
}

/** An int64 as float32, rounded once (Number() first would round twice above 2^53). */
function bigToF32(n: bigint): number {
  const neg = n < 0n, a = neg ? -n : n;
  if (a < 2n ** 53n) return Math.fround(Number(n));
  const bits = a.toString(2).length, shift = BigInt(bits - 25);
  let m = a >> shift; // 25 bits: 24 of the significand and the rounding bit
  const sticky = (a & ((1n << shift) - 1n)) !== 0n, half = (m & 1n) === 1n;
  m >>= 1n;
  if (half && (sticky || (m & 1n) === 1n)) m++;
  const v = Number(m) * 2 ** Number(shift + 1n);
  return neg ? -v : v;
}

// ---- reference values: a value, an absolute error bound, or unknown ------------------------------

/** One element: value v (bigint for int64), error bound e (0 exact; ZS: a zero of either sign), u: undecidable. */
interface Elem {
  v: Num;
  e: number;
  u: boolean;
}
const UNK: Elem = { v: 0, e: 0, u: true };
const ex = (v: Num): Elem => ({ v, e: 0, u: false });
/** The error bound without the signed-zero marker. */
const mag = (e: number) => (e > ZS ? e : 0);

/**
 * r (the exact result of a float op, or the reference's approximation of it) rounded to dt,
 * when the library's value is within ep of r before its own rounding. Undecidable when the
 * bound straddles the overflow threshold, or r is NaN from inexact operands.
 */
function fin(dt: "float32" | "float16", r: number, ep: number): Elem {
  if (Number.isNaN(r)) return ep > 0 ? UNK : ex(NaN);
  if (!Number.isFinite(r)) return ex(r); // only from an exact infinite operand
  const v = roundTo(dt, r);
  if (ep === 0) return ex(v);
  if (ep <= ZS) return { v, e: v === 0 ? ZS : 0, u: false };
  if (Number.isNaN(ep)) return UNK;
  const over = dt === "float32" ? F32_OVER : F16_OVER, a = Math.abs(r);
  if (a - ep >= over) return ex(r > 0 ? Infinity : -Infinity);
  if (a + ep >= over) return UNK;
  const e = ep + ulp(dt, a + ep);
  return { v, e: v === 0 ? Math.max(e, ZS) : e, u: false };
}

const INT32_MIN = -2147483648, INT32_MAX = 2147483647;
const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n;

function f2i32(a: number): number {
  if (Number.isNaN(a)) return 0;
  if (a >= INT32_MAX) return INT32_MAX;
  if (a <= INT32_MIN) return INT32_MIN;
  return Math.trunc(a) | 0;
}
function f2i64(a: number): bigint {
  if (Number.isNaN(a)) return 0n;
  if (a >= 9223372036854775807) return I64_MAX;
  if (a <= -9223372036854775808) return I64_MIN;
  return BigInt(Math.trunc(a));
}
/** float -> uint8 truncates and wraps; undefined at 2^31 and beyond (C and PyTorch leave it undefined, the library's paths differ). */
function f2u8(a: number): number | undefined {
  if (Number.isNaN(a)) return 0;
  if (Math.abs(a) >= 2 ** 31) return undefined;
  return ((Math.trunc(a) % 256) + 256) % 256;
}

/** A float value converted by a discontinuous map g: decided only when g agrees across the error bound. */
function decide<T extends Num | boolean | undefined>(x: Elem, g: (a: number) => T): T | typeof UNK {
  const a = x.v as number, ea = mag(x.e);
  const v = g(a);
  if (v === undefined) return UNK;
  if (ea > 0 && !Number.isNaN(a) && Number.isFinite(a)) {
    const lo = g(a - ea), hi = g(a + ea);
    if (lo !== v || hi !== v) return UNK;
  }
  return v;
}

/** x (of dtype from) converted to dtype to, as an operand or by a cast. */
function conv(x: Elem, from: DT, to: DT): Elem {
  if (x.u || from === to) return x;
  const v = x.v;
  if (from === "int64") {
    const b = v as bigint;
    switch (to) {
      case "float32":
        return ex(bigToF32(b));
      case "float16":
        return ex(round16(bigToF32(b)));
      case "int32":
        return ex(Number(BigInt.asIntN(32, b)));
      case "uint8":
        return ex(Number(BigInt.asUintN(8, b)));
      default:
        return ex(b !== 0n ? 1 : 0);
    }
  }
  const a = v as number;
  if (isFloatDT(from)) {
    switch (to) {
      case "float32":
        return x; // float16 -> float32 is exact
      case "float16":
        return fin("float16", a, x.e);
      case "int32": {
        const r = decide(x, f2i32);
        return r === UNK ? UNK : ex(r as number);
      }
      case "int64": {
        const r = decide(x, (q) => f2i64(q));
        return r === UNK ? UNK : ex(r as bigint);
      }
      case "uint8": {
        const r = decide(x, f2u8);
        return r === UNK ? UNK : ex(r as number);
      }
      default: {
        const r = decide(x, (q) => q !== 0);
        return r === UNK ? UNK : ex(r ? 1 : 0);
      }
    }
  }
  // int32, uint8, bool
  switch (to) {
    case "float32":
      return ex(Math.fround(a));
    case "float16":
      return ex(round16(Math.fround(a)));
    case "int64":
      return ex(BigInt(a));
    case "int32":
      return ex(a);
    case "uint8":
      return ex(a & 255);
    default:
      return ex(a !== 0 ? 1 : 0);
  }
}

/** A JS scalar as an operand of compute dtype ct (the library keeps an int constant unwrapped in uint8 registers). */
function convScalar(s: number | boolean, ct: DT): Elem {
  const a = typeof s === "boolean" ? (s ? 1 : 0) : s;
  switch (ct) {
    case "float32":
      return ex(Math.fround(a));
    case "float16":
      return ex(round16(Math.fround(a)));
    case "int64":
      return ex(BigInt(a));
    case "bool":
      return ex(a !== 0 ? 1 : 0);
    default:
      return ex(a);
  }
}

// ---- elementwise ops in the reference ----------------------------------------------------------

const UNARY_SAME = ["neg", "abs", "square", "relu", "sign", "floor", "ceil", "round", "trunc"] as const;
const UNARY_FLOAT = ["exp", "sqrt", "sigmoid", "tanh"] as const;
const UNARY_BOOL = ["logicalNot", "isnan"] as const;
type UnaryFn = typeof UNARY_SAME[number] | typeof UNARY_FLOAT[number] | typeof UNARY_BOOL[number];
const ARITH = ["add", "sub", "mul", "div", "maximum", "minimum"] as const;
const COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"] as const;
const LOGIC = ["logicalAnd", "logicalOr", "logicalXor"] as const;
type BinaryFn = typeof ARITH[number] | typeof COMPARE[number] | typeof LOGIC[number];
const isCompare = (f: BinaryFn) => (COMPARE as readonly string[]).includes(f);
const isLogic = (f: BinaryFn) => (LOGIC as readonly string[]).includes(f);

function rounding(fn: "floor" | "ceil" | "round" | "trunc"): (a: number) => number {
  return fn === "floor" ? Math.floor : fn === "ceil" ? Math.ceil : fn === "trunc" ? Math.trunc : roundHalfEven;
}

function unaryFloat(fn: UnaryFn, x: Elem, dt: "float32" | "float16"): Elem {
  const a = x.v as number, ea = mag(x.e), inexact = x.e > 0;
  switch (fn) {
    case "neg":
      return { v: -a, e: x.e, u: false };
    case "abs":
      return { v: Math.abs(a), e: ea, u: false };
    case "square":
      return fin(dt, a * a, inexact ? 2 * Math.abs(a) * ea + ea * ea : 0);
    case "relu": { // x < 0 ? 0 : x keeps -0 here; other implementations give +0: either sign of zero
      const v = a < 0 ? 0 : a;
      return { v, e: v === 0 ? Math.max(ea, ZS) : ea, u: false };
    }
    case "sign": {
      if (Number.isNaN(a)) return ex(NaN);
      if (ea > 0 && a - ea <= 0 && a + ea >= 0) return UNK;
      return a > 0 ? ex(1) : a < 0 ? ex(-1) : { v: 0, e: ZS, u: false };
    }
    case "floor":
    case "ceil":
    case "round":
    case "trunc": {
      const g = rounding(fn), v = g(a);
      if (ea > 0 && Number.isFinite(a)) {
        const lo = g(a - ea), hi = g(a + ea);
        if (lo !== v || hi !== v) return UNK;
        return { v, e: v === 0 ? ZS : 0, u: false };
      }
      return { v, e: v === 0 && inexact ? ZS : 0, u: false };
    }
    case "exp": {
      const r = Math.exp(a);
      return fin(dt, r, r * (REL_T + (2 * Math.abs(a) + 3) * 2 ** -23) + (ea > 0 ? r * Math.expm1(ea) : 0));
    }
    case "sqrt": { // only ever of abs(x) or of a bool: never of a negative
      const r = Math.sqrt(a);
      return fin(dt, r, r * REL_T + (ea > 0 ? Math.sqrt(a + ea) - Math.sqrt(Math.max(0, a - ea)) : 0));
    }
    case "sigmoid": {
      const r = 1 / (1 + Math.exp(-a));
      return fin(dt, r, r * REL_T + ABS_T + ea / 4);
    }
    case "tanh": {
      const r = Math.tanh(a);
      return fin(dt, r, Math.abs(r) * REL_T + ABS_T + Math.min(ea, 2));
    }
    default:
      throw new Error(`unaryFloat ${fn}`);
  }
}

function unaryInt(fn: UnaryFn, x: Elem, dt: DT): Elem {
  if (dt === "int64") {
    const a = x.v as bigint;
    switch (fn) {
      case "neg":
        return ex(BigInt.asIntN(64, -a));
      case "abs":
        return ex(a < 0n ? BigInt.asIntN(64, -a) : a);
      case "square":
        return ex(BigInt.asIntN(64, a * a));
      case "relu":
        return ex(a < 0n ? 0n : a);
      case "sign":
        return ex(a > 0n ? 1n : a < 0n ? -1n : 0n);
      default:
        return x; // floor, ceil, round, trunc of an integer
    }
  }
  const a = x.v as number;
  const wrap = dt === "uint8" ? (q: number) => q & 255 : (q: number) => q | 0;
  switch (fn) {
    case "neg":
      return ex(wrap(-a));
    case "abs":
      return ex(a < 0 ? wrap(-a) : a);
    case "square":
      return ex(wrap(Math.imul(a, a)));
    case "relu":
      return ex(a < 0 ? 0 : a);
    case "sign":
      return ex(a > 0 ? 1 : a < 0 ? -1 : 0);
    default:
      return x;
  }
}

/** A comparison of float values with error bounds: decided when the bounds separate the outcomes. */
function compareFloat(fn: BinaryFn, x: Elem, y: Elem): Elem {
  const a = x.v as number, b = y.v as number, ea = mag(x.e), eb = mag(y.e);
  if (Number.isNaN(a) || Number.isNaN(b)) return ex(fn === "ne" ? 1 : 0);
  const aL = a - ea, aH = a + ea, bL = b - eb, bH = b + eb;
  const exact = ea === 0 && eb === 0;
  let r: boolean | undefined;
  switch (fn) {
    case "eq":
      r = exact ? a === b : aH < bL || bH < aL ? false : undefined;
      break;
    case "ne":
      r = exact ? a !== b : aH < bL || bH < aL ? true : undefined;
      break;
    case "gt":
      r = aL > bH ? true : aH <= bL ? false : undefined;
      break;
    case "ge":
      r = aL >= bH ? true : aH < bL ? false : undefined;
      break;
    case "lt":
      r = aH < bL ? true : aL >= bH ? false : undefined;
      break;
    default: // le
      r = aH <= bL ? true : aL > bH ? false : undefined;
  }
  return r === undefined ? UNK : ex(r ? 1 : 0);
}

function compareExact(fn: BinaryFn, a: Num, b: Num): Elem {
  const r = fn === "eq" ? a === b : fn === "ne" ? a !== b : fn === "lt" ? a < b : fn === "le" ? a <= b : fn === "gt" ? a > b : a >= b;
  return ex(r ? 1 : 0);
}

function arithFloat(fn: BinaryFn, x: Elem, y: Elem, dt: "float32" | "float16"): Elem {
  const a = x.v as number, b = y.v as number, ea = mag(x.e), eb = mag(y.e);
  if (Number.isNaN(a) || Number.isNaN(b)) return ex(NaN);
  const inexact = x.e > 0 || y.e > 0;
  const zeroSign = (el: Elem) => (inexact && el.v === 0 && !el.u ? { v: el.v, e: Math.max(el.e, ZS), u: false } : el);
  const straddles0 = (v: number, e: number) => v === 0 || (e > 0 && Math.abs(v) <= e);
  switch (fn) {
    case "add":
      return zeroSign(fin(dt, a + b, ea + eb));
    case "sub":
      return zeroSign(fin(dt, a - b, ea + eb));
    case "mul": {
      if (!Number.isFinite(a) || !Number.isFinite(b)) {
        if (
          (!Number.isFinite(a) && straddles0(b, eb) && !(b === 0 && eb === 0)) ||
          (!Number.isFinite(b) && straddles0(a, ea) && !(a === 0 && ea === 0))
        ) {
          return UNK;
        }
        return ex(a * b);
      }
      return zeroSign(fin(dt, a * b, Math.abs(a) * eb + Math.abs(b) * ea + ea * eb));
    }
    case "div": {
      if (b === 0 || (eb > 0 && Math.abs(b) <= eb)) {
        if (a === 0 && ea === 0 && b === 0) return ex(NaN);
        if (y.e > 0 || (b === 0 && straddles0(a, ea)) || (b !== 0 && eb > 0)) return UNK;
        return ex(a / b);
      }
      if (!Number.isFinite(b)) return Number.isFinite(a) ? zeroSign({ v: a / b, e: 0, u: false }) : ex(NaN);
      if (!Number.isFinite(a)) return ex(a / b);
      const ep = inexact ? (Math.abs(a) * eb + Math.abs(b) * ea) / (Math.abs(b) * (Math.abs(b) - eb)) : 0;
      return zeroSign(fin(dt, a / b, ep));
    }
    case "maximum":
    case "minimum": {
      const v = fn === "maximum" ? (a > b ? a : b) : (a < b ? a : b);
      const e = Math.max(ea, eb);
      // max(-0, +0): PyTorch and the backends may pick either zero
      return { v, e: v === 0 && (inexact || !Object.is(a, b)) ? Math.max(e, ZS) : e, u: false };
    }
    default:
      throw new Error(`arithFloat ${fn}`);
  }
}

function arithInt(fn: BinaryFn, x: Elem, y: Elem, dt: DT): Elem {
  if (dt === "int64") {
    const a = x.v as bigint, b = y.v as bigint;
    switch (fn) {
      case "add":
        return ex(BigInt.asIntN(64, a + b));
      case "sub":
        return ex(BigInt.asIntN(64, a - b));
      case "mul":
        return ex(BigInt.asIntN(64, a * b));
      case "maximum":
        return ex(a > b ? a : b);
      default:
        return ex(a < b ? a : b);
    }
  }
  const a = x.v as number, b = y.v as number;
  if (dt === "bool") {
    return ex(fn === "add" || fn === "maximum" ? a | b : a & b); // add: or; mul, minimum: and
  }
  const wrap = dt === "uint8" ? (q: number) => q & 255 : (q: number) => q | 0;
  switch (fn) {
    case "add":
      return ex(wrap(a + b));
    case "sub":
      return ex(wrap(a - b));
    case "mul":
      return ex(wrap(Math.imul(a, b)));
    case "maximum":
      return ex(a > b ? a : b);
    default:
      return ex(a < b ? a : b);
  }
}

/** Binary op fn on operands already in compute dtype ct; the result is in the op's output dtype. */
function binaryRef(fn: BinaryFn, x: Elem, y: Elem, ct: DT): Elem {
  if (isLogic(fn)) { // operands are bools (conv to bool decided them, or they are unknown)
    const a = x.u ? undefined : x.v !== 0, b = y.u ? undefined : y.v !== 0;
    if (fn === "logicalAnd") {
      if (a === false || b === false) return ex(0);
      return a === undefined || b === undefined ? UNK : ex(1);
    }
    if (fn === "logicalOr") {
      if (a === true || b === true) return ex(1);
      return a === undefined || b === undefined ? UNK : ex(0);
    }
    return a === undefined || b === undefined ? UNK : ex(a !== b ? 1 : 0);
  }
  if (x.u || y.u) return UNK;
  if (isCompare(fn)) return isFloatDT(ct) ? compareFloat(fn, x, y) : compareExact(fn, x.v, y.v);
  return isFloatDT(ct) ? arithFloat(fn, x, y, ct) : arithInt(fn, x, y, ct);
}

// ---- programs ---------------------------------------------------------------------------------

type Layout = "contiguous" | "permuted" | "expanded";
interface Leaf {
  dtype: DT;
  shape: number[];
  layout: Layout;
  /** Values in row-major order of shape. */
  values: Num[];
  /** expanded: the shape of the stored tensor, which has a 1 where shape does not. */
  storeShape: number[];
  store: Num[];
}
type Operand = { node: number } | { scalar: number | boolean };
type Op =
  | { k: "leaf"; leaf: Leaf }
  | { k: "unary"; fn: UnaryFn; a: number }
  | { k: "binary"; fn: BinaryFn; a: Operand; b: Operand }
  | { k: "where"; c: number; a: Operand; b: Operand }
  | { k: "clamp"; x: number; lo?: Operand; hi?: Operand }
  | { k: "cast"; a: number; to: DT };
interface Node {
  op: Op;
  dtype: DT;
  shape: number[];
}
const REDUCE_FNS = ["sum", "mean", "prod", "max", "min", "argmax", "argmin", "any", "all", "var", "countNonzero"] as const;
type ReduceFn = typeof REDUCE_FNS[number];
interface Reduction {
  fn: ReduceFn;
  axis: number | number[] | undefined;
  keepdim: boolean;
  /** The reference's verdict: the result's dtype and shape, or that the call must throw. */
  dtype: DT;
  shape: number[];
  throws: boolean;
}
interface Program {
  seed: number;
  nodes: Node[];
  reduction: Reduction | undefined;
  /** Lazy run: dispose every intermediate before reading the outputs. */
  disposeEarly: boolean;
}

const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const fmtShape = (s: readonly number[]) => `[${s.join(", ")}]`;

function broadcast(shapes: readonly (readonly number[])[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i;
      if (out[o] === 1) out[o] = s[i];
      else if (s[i] !== 1 && s[i] !== out[o]) throw new Error(`generator: ${shapes.map(fmtShape).join(" and ")} do not broadcast`);
    }
  }
  return out;
}

function typeArg(nodes: readonly Node[], o: Operand): TypeArg {
  return "scalar" in o ? { scalar: o.scalar } : { dtype: nodes[o.node].dtype, rank: nodes[o.node].shape.length };
}

/** The dtype and shape an op gives, by the reference's rules (the generator uses them to pick valid ops). */
function inferNode(nodes: readonly Node[], op: Op): Node {
  const shapeOf = (...os: (Operand | undefined)[]) =>
    broadcast(os.filter((o): o is { node: number } => o !== undefined && "node" in o).map((o) => nodes[o.node].shape));
  switch (op.k) {
    case "leaf":
      return { op, dtype: op.leaf.dtype, shape: op.leaf.shape };
    case "unary": {
      const a = nodes[op.a];
      const fl = (UNARY_FLOAT as readonly string[]).includes(op.fn), bo = (UNARY_BOOL as readonly string[]).includes(op.fn);
      return { op, dtype: bo ? "bool" : fl ? (isFloatDT(a.dtype) ? a.dtype : "float32") : a.dtype, shape: a.shape };
    }
    case "binary": {
      const ct = computeType(nodes, op);
      return { op, dtype: isCompare(op.fn) || isLogic(op.fn) ? "bool" : ct, shape: shapeOf(op.a, op.b) };
    }
    case "where":
      return { op, dtype: resultType([typeArg(nodes, op.a), typeArg(nodes, op.b)]), shape: shapeOf({ node: op.c }, op.a, op.b) };
    case "clamp": {
      const args = [{ node: op.x }, op.lo, op.hi].filter((o): o is Operand => o !== undefined);
      return { op, dtype: resultType(args.map((o) => typeArg(nodes, o))), shape: shapeOf(...args) };
    }
    case "cast":
      return { op, dtype: op.to, shape: nodes[op.a].shape };
  }
}

/** The dtype a binary op's operands are converted to. */
function computeType(nodes: readonly Node[], op: { fn: BinaryFn; a: Operand; b: Operand }): DT {
  if (isLogic(op.fn)) return "bool";
  const ct = resultType([typeArg(nodes, op.a), typeArg(nodes, op.b)]);
  return op.fn === "div" && !isFloatDT(ct) ? "float32" : ct;
}

function normalizeAxes(axis: number | number[] | undefined, rank: number): number[] {
  if (rank === 0) return [];
  if (axis === undefined) return [...Array(rank).keys()];
  const list = typeof axis === "number" ? [axis] : axis;
  return [...new Set(list.map((a) => (a < 0 ? a + rank : a)))].sort((x, y) => x - y);
}

function reduceDType(fn: ReduceFn, dt: DT): DT {
  switch (fn) {
    case "sum":
    case "prod":
      return isFloatDT(dt) ? dt : "int64";
    case "argmax":
    case "argmin":
    case "countNonzero":
      return "int64";
    case "any":
    case "all":
      return dt === "uint8" ? "uint8" : "bool"; // PyTorch: any/all of uint8 stay uint8
    default: // mean, var (of floats only), max, min
      return dt;
  }
}

// ---- the generator ------------------------------------------------------------------------------

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
function weighted<T>(r: R, xs: readonly [T, number][]): T {
  let t = r() * xs.reduce((a, [, w]) => a + w, 0);
  for (const [x, w] of xs) if ((t -= w) < 0) return x;
  return xs[xs.length - 1][0];
}
const SCALARS: (number | boolean)[] = [0, 1, -1, 2, 3, -2, 7, 100, 0.5, -1.25, 0.1, 2.5, -0.75, 1e-3, 0.3, -3.5, true, false];
const U8_SCALARS = [0, 1, 2, 3, 7, 100, 200, 255];

/** A shape of rank 0 to 3 whose size falls in a bucket from 0 to 1100. */
function baseShape(r: R): number[] {
  const bucket = weighted<[number, number]>(r, [[[0, 0], 1], [[1, 1], 1.5], [[2, 16], 2.5], [[17, 255], 3], [[256, 1100], 3]]);
  for (let tries = 0; tries < 500; tries++) {
    const rank = bucket[1] === 1 ? weighted(r, [[0, 1], [1, 1], [2, 1], [3, 1]]) : weighted(r, [[1, 1], [2, 1.3], [3, 1.3]]);
    const dim = () =>
      weighted(r, [[0, 0.03], [1, 0.12], [2 + Math.floor(r() * 6), 0.4], [8 + Math.floor(r() * 33), 0.3], [
        41 + Math.floor(r() * 1060),
        0.15,
      ]]);
    const s = Array.from({ length: rank }, dim);
    const n = numel(s);
    if (n >= bucket[0] && n <= bucket[1] && (bucket[0] > 0 || rank > 0)) return s;
  }
  return [3, 5];
}

/** A shape that broadcasts to base: base itself, fewer leading dims, some dims 1, or 0-d. */
function leafShape(r: R, base: readonly number[]): number[] {
  const kind = weighted(r, [["same", 4], ["drop", 2], ["ones", 2.5], ["scalar", 2.5]] as [string, number][]);
  if (kind === "same" || base.length === 0) return [...base];
  if (kind === "scalar") return [];
  const drop = kind === "drop" || r() < 0.3 ? Math.floor(r() * (base.length + 1)) : 0;
  const s = base.slice(drop);
  if (kind === "ones") { for (let i = 0; i < s.length; i++) if (r() < 0.5) s[i] = 1; }
  return s;
}

function values(r: R, dt: DT, n: number): Num[] {
  const style = weighted(r, [["grid", 7], ["wide", 1.5], ["special", 1.5]] as [string, number][]);
  const out: Num[] = [];
  const pBool = pick(r, [0.1, 0.5, 0.9]);
  for (let i = 0; i < n; i++) {
    switch (dt) {
      case "float32":
      case "float16": {
        let v = Math.round((r() * 8 - 4) * 8) / 8; // exact in float16
        if (style === "wide") v = (r() * 2 - 1) * 10 ** (r() * 8 - 4);
        if (style === "special" && r() < 0.3) v = pick(r, [NaN, Infinity, -Infinity, -0, 0, 65504, -1e-3, 3e-5, 1e30, 0.5, -0.5, 2.5]);
        out.push(dt === "float32" ? Math.fround(v) : round16(v));
        break;
      }
      case "int32":
        out.push(style === "grid" ? Math.floor(r() * 17) - 8 : (r() * 2 ** 32) | 0);
        break;
      case "int64":
        out.push(
          style === "grid"
            ? BigInt(Math.floor(r() * 17) - 8)
            : BigInt.asIntN(64, (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32))),
        );
        break;
      case "uint8":
        out.push(style === "grid" ? Math.floor(r() * 9) : Math.floor(r() * 256));
        break;
      default:
        out.push(r() < pBool ? 1 : 0);
    }
  }
  return out;
}

function makeLeaf(r: R, base: readonly number[], full = false): Leaf {
  const dtype = weighted<DT>(r, [["float32", 3.5], ["float16", 1.6], ["int32", 1.8], ["int64", 0.8], ["uint8", 1.2], ["bool", 1.8]]);
  const shape = full ? [...base] : leafShape(r, base);
  const wide = shape.map((d, i) => [d, i]).filter(([d]) => d > 1).map(([, i]) => i);
  const layout = weighted<Layout>(r, [["contiguous", 8], ["permuted", shape.length >= 2 ? 1 : 0], ["expanded", wide.length > 0 ? 1 : 0]]);
  if (layout === "expanded") {
    const d = pick(r, wide);
    const storeShape = shape.map((s, i) => (i === d ? 1 : s));
    const store = values(r, dtype, numel(storeShape));
    const vals = gatherBroadcast(store, storeShape, shape);
    return { dtype, shape, layout, values: vals, storeShape, store };
  }
  const vals = values(r, dtype, numel(shape));
  if (layout === "permuted") {
    // stored with its dims reversed, then permuted back: t[i0, .., ik] = store[ik, .., i0]
    const storeShape = [...shape].reverse();
    const store = new Array<Num>(vals.length);
    const st = stridesOf(storeShape);
    for (let i = 0; i < vals.length; i++) {
      const idx = unravel(i, shape).reverse();
      store[idx.reduce((a, q, k) => a + q * st[k], 0)] = vals[i];
    }
    return { dtype, shape, layout, values: vals, storeShape, store };
  }
  return { dtype, shape, layout, values: vals, storeShape: shape, store: vals };
}

function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) (s[i] = acc), (acc *= shape[i]);
  return s;
}
function unravel(i: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) (idx[d] = i % shape[d]), (i = Math.floor(i / shape[d]));
  return idx;
}
/** For each element of `to`, the flat index of the element of `from` (broadcast to `to`) it reads. */
function broadcastMap(from: readonly number[], to: readonly number[]): Int32Array {
  const n = numel(to), out = new Int32Array(n), st = stridesOf(from), off = to.length - from.length;
  for (let i = 0; i < n; i++) {
    const idx = unravel(i, to);
    let j = 0;
    for (let d = 0; d < from.length; d++) if (from[d] !== 1) j += idx[d + off] * st[d];
    out[i] = j;
  }
  return out;
}
function gatherBroadcast<T>(xs: readonly T[], from: readonly number[], to: readonly number[]): T[] {
  return Array.from(broadcastMap(from, to), (j) => xs[j]);
}

function generate(seed: number): Program {
  const r = rng(seed * 7919 + 17);
  const base = baseShape(r);
  const nodes: Node[] = [];
  const add = (op: Op) => nodes.push(inferNode(nodes, op)) - 1;
  const leaf = (full = false) => add({ k: "leaf", leaf: makeLeaf(r, base, full) });
  let cur = leaf(true); // the chain starts from a leaf of the whole shape
  const steps = 1 + Math.floor(r() * 6);
  const inU8 = (v: number | boolean) => typeof v === "boolean" || (v >= 0 && v <= 255);
  const other = (): Operand => {
    const k = r();
    if (k < 0.45) return { node: leaf() };
    if (k < 0.6) return { node: Math.floor(r() * nodes.length) };
    return { scalar: pick(r, SCALARS) };
  };
  for (let s = 0; s < steps; s++) {
    const dt = nodes[cur].dtype;
    const kind = weighted(r, [["unary", 3], ["binary", 4], ["where", 0.8], ["clamp", 0.8], ["cast", 1]] as [string, number][]);
    if (kind === "unary") {
      const fns: UnaryFn[] = [...UNARY_FLOAT, ...UNARY_BOOL, ...(dt === "bool" ? [] : UNARY_SAME)];
      const fn = pick(r, fns);
      if (fn === "sqrt" && dt !== "bool") cur = add({ k: "unary", fn: "abs", a: cur });
      cur = add({ k: "unary", fn, a: cur });
    } else if (kind === "binary") {
      let fn = pick(r, [...ARITH, ...ARITH, ...COMPARE, ...LOGIC] as BinaryFn[]);
      let b = other();
      const swap = r() < 0.3;
      const make = () => ({ fn, a: swap ? b : { node: cur }, b: swap ? { node: cur } : b });
      // uint8: only modular ops see an int constant outside [0, 255] (PyTorch would cast it to uint8 first)
      const modular = fn === "add" || fn === "sub" || fn === "mul" || isLogic(fn);
      if (!modular && "scalar" in b && computeType(nodes, make()) === "uint8" && !inU8(b.scalar)) b = { scalar: pick(r, U8_SCALARS) };
      if (fn === "sub" && computeType(nodes, make()) === "bool") fn = "add"; // PyTorch refuses bool - bool
      cur = add({ k: "binary", ...make() });
    } else if (kind === "where") {
      let c = nodes.findLastIndex((n) => n.dtype === "bool");
      if (c < 0 || r() < 0.5) {
        c = r() < 0.5 ? leaf() : cur;
        if (nodes[c].dtype !== "bool") {
          c = add({ k: "binary", fn: pick(r, COMPARE), a: { node: c }, b: { scalar: pick(r, [0, 0.5, 1, -1]) } });
        }
      }
      let b = other();
      if ("scalar" in b && resultType([typeArg(nodes, { node: cur }), typeArg(nodes, b)]) === "uint8" && !inU8(b.scalar)) {
        b = { scalar: pick(r, U8_SCALARS) };
      }
      cur = add(r() < 0.5 ? { k: "where", c, a: { node: cur }, b } : { k: "where", c, a: b, b: { node: cur } });
    } else if (kind === "clamp") {
      const bound = (): Operand | undefined => {
        const k = r();
        return k < 0.3 ? undefined : k < 0.8 ? { scalar: pick(r, [-1, 0, 0.5, 1, 2, -2.5, 3, 100]) } : other();
      };
      let lo = bound(), hi = bound();
      if (lo === undefined && hi === undefined) lo = { scalar: 0 };
      const args = [{ node: cur }, lo, hi].filter((o): o is Operand => o !== undefined);
      const ct = resultType(args.map((o) => typeArg(nodes, o)));
      if (ct === "bool") continue; // PyTorch refuses to clamp bools
      if (ct === "uint8") {
        if (lo && "scalar" in lo) lo = { scalar: pick(r, U8_SCALARS) };
        if (hi && "scalar" in hi) hi = { scalar: pick(r, U8_SCALARS) };
      }
      cur = add({ k: "clamp", x: cur, lo, hi });
    } else {
      cur = add({ k: "cast", a: cur, to: pick(r, ["float32", "float16", "int32", "int64", "uint8", "bool"] as DT[]) });
    }
  }
  // move the final expression to the end (the output is the last node)
  if (cur !== nodes.length - 1) cur = add({ k: "cast", a: cur, to: nodes[cur].dtype });
  const out = nodes[cur];
  let reduction: Reduction | undefined;
  if (r() < 0.75) {
    const rank = out.shape.length;
    let fn = pick(r, REDUCE_FNS);
    if ((fn === "mean" || fn === "var") && !isFloatDT(out.dtype)) fn = "sum"; // PyTorch: floats only
    let axis: number | number[] | undefined;
    const k = r();
    const one = () => Math.floor(r() * 2 * Math.max(rank, 1)) - Math.max(rank, 1); // -rank .. rank-1 (0 or -1 for 0-d)
    if (k < 0.25 || (fn.startsWith("arg") && k >= 0.7)) axis = undefined;
    else if (k < 0.7 || rank < 2) axis = rank === 0 && r() < 0.3 && !fn.startsWith("arg") ? [one()] : one();
    else {
      const axes = [...Array(rank).keys()].filter(() => r() < 0.5);
      if (axes.length === 0) axes.push(Math.floor(r() * rank));
      axis = axes.map((a) => (r() < 0.4 ? a - rank : a));
      if (r() < 0.5) axis.reverse();
    }
    if (fn === "prod" && isFloatDT(out.dtype) && rank > 0) axis = out.shape.indexOf(Math.min(...out.shape)); // keep float products finite
    const keepdim = r() < 0.5;
    const axes = normalizeAxes(axis, rank);
    const inner = numel(axes.map((a) => out.shape[a]));
    const outer = numel(out.shape.filter((_, i) => !axes.includes(i)));
    const needsElements = (f: ReduceFn) => f === "max" || f === "min" || f === "argmax" || f === "argmin";
    if (needsElements(fn) && inner === 0 && outer === 0) fn = "sum"; // PyTorch refuses it; the library gives an empty result
    const shape = rank === 0
      ? []
      : keepdim
      ? out.shape.map((d, i) => (axes.includes(i) ? 1 : d))
      : out.shape.filter((_, i) => !axes.includes(i));
    reduction = { fn, axis, keepdim, dtype: reduceDType(fn, out.dtype), shape, throws: needsElements(fn) && inner === 0 };
  }
  return { seed, nodes, reduction, disposeEarly: r() < 0.3 };
}

// ---- program text ---------------------------------------------------------------------------------

const fmtNum = (v: Num | boolean) => (typeof v === "bigint" ? `${v}n` : Object.is(v, -0) ? "-0" : String(v));
const fmtOperand = (o: Operand) => ("scalar" in o ? fmtNum(o.scalar) : `n${o.node}`);
const fmtAxis = (a: number | number[] | undefined) => (a === undefined ? "undefined" : Array.isArray(a) ? `[${a.join(", ")}]` : String(a));

function opText(op: Op): string {
  switch (op.k) {
    case "leaf": {
      const l = op.leaf;
      const view = l.layout === "permuted"
        ? ", stored permuted"
        : l.layout === "expanded"
        ? `, expanded from ${fmtShape(l.storeShape)}`
        : "";
      const vals = l.store.length <= 24 ? ` [${l.store.map(fmtNum).join(", ")}]` : "";
      return `leaf ${l.dtype}${fmtShape(l.shape)}${view}${vals}`;
    }
    case "unary":
      return `n${op.a}.${op.fn}()`;
    case "binary":
      return "node" in op.a ? `n${op.a.node}.${op.fn}(${fmtOperand(op.b)})` : `pt.${op.fn}(${fmtOperand(op.a)}, ${fmtOperand(op.b)})`;
    case "where":
      return `pt.where(n${op.c}, ${fmtOperand(op.a)}, ${fmtOperand(op.b)})`;
    case "clamp":
      return `n${op.x}.clamp(${op.lo ? fmtOperand(op.lo) : "null"}, ${op.hi ? fmtOperand(op.hi) : "null"})`;
    case "cast":
      return `n${op.a}.cast("${op.to}")`;
  }
}

function programText(p: Program): string {
  const lines = p.nodes.map((n, i) => `  n${i} = ${opText(n.op)}   // ${n.dtype}${fmtShape(n.shape)}`);
  const red = p.reduction;
  if (red) {
    const args = red.fn === "var" || red.keepdim ? `${fmtAxis(red.axis)}, ${red.keepdim}` : red.axis === undefined ? "" : fmtAxis(red.axis);
    lines.push(`  r = n${p.nodes.length - 1}.${red.fn}(${args})   // ${red.throws ? "throws" : `${red.dtype}${fmtShape(red.shape)}`}`);
  }
  const mode = p.disposeEarly ? ", intermediates disposed before the read" : "";
  return `program ${p.seed} (PT_PROPERTY_SEED=${p.seed}${mode}):\n${lines.join("\n")}`;
}

/**
 * The patterns of known past bugs a program contains, so that the summary shows the
 * generator keeps covering them: a 0-d tensor of a higher dtype of the same kind as the
 * dimensioned operands (it must not promote: float16[n] + float32 0-d is float16), a
 * fractional JS number in a logical op (0.5 is true), a JS number that float16 cannot hold
 * meeting float16 (it is rounded first), a reduction of a 0-d tensor over dim 0 or -1, and a
 * reduction over trailing axes (fused when lazy) of an expression that reads a broadcast
 * operand of fewer than 256 elements; and (found by this test) a tensor operand converted to
 * a float16 or uint8 computation from a dtype that shares its registers.
 */
function patterns(p: Program): string[] {
  const found = new Set<string>();
  const nodes = p.nodes;
  for (const n of nodes) {
    const op = n.op;
    const ops: Operand[] = op.k === "binary"
      ? [op.a, op.b]
      : op.k === "where"
      ? [op.a, op.b]
      : op.k === "clamp"
      ? [{ node: op.x }, ...[op.lo, op.hi].filter((o): o is Operand => o !== undefined)]
      : [];
    if (ops.length === 0) continue;
    const tensors = ops.filter((o): o is { node: number } => "node" in o).map((o) => nodes[o.node]);
    const dim = tensors.filter((t) => t.shape.length > 0).reduce<DT | undefined>((a, t) => promote(a, t.dtype), undefined);
    if (dim && tensors.some((t) => t.shape.length === 0 && CATEGORY[t.dtype] === CATEGORY[dim] && ORDER[t.dtype] > ORDER[dim])) {
      found.add("0-d promotion");
    }
    const scalars = ops.filter((o): o is { scalar: number | boolean } => "scalar" in o).map((o) => o.scalar);
    if (op.k === "binary" && isLogic(op.fn) && scalars.some((v) => typeof v === "number" && !Number.isInteger(v))) {
      found.add("fractional logical scalar");
    }
    const ct = op.k === "binary" ? computeType(nodes, op) : n.dtype;
    if (ct === "float16" && scalars.some((v) => typeof v === "number" && round16(v) !== v)) found.add("float16 meets an inexact JS number");
    if ((ct === "float16" || ct === "uint8") && tensors.some((t) => t.dtype !== ct && t.dtype !== "bool")) {
      found.add(`a tensor converted to ${ct}`);
    }
  }
  const red = p.reduction, x = nodes[nodes.length - 1];
  if (red && x.shape.length === 0 && red.axis !== undefined) found.add("0-d reduced over dim 0/-1");
  if (red && x.op.k !== "leaf" && numel(x.shape) > 0) {
    const axes = normalizeAxes(red.axis, x.shape.length);
    const trailing = axes.every((a, i) => a === x.shape.length - axes.length + i);
    const small = nodes.some((l) => l.op.k === "leaf" && numel(l.shape) < 256 && fmtShape(l.shape) !== fmtShape(x.shape));
    if (trailing && small) found.add("trailing reduction, small broadcast operand");
  }
  return [...found];
}

// ---- the reference interpreter --------------------------------------------------------------------

interface RVal {
  dtype: DT;
  shape: number[];
  xs: Elem[];
}

function evalProgram(p: Program): { nodes: RVal[]; reduced: RVal | undefined } {
  const vals: RVal[] = [];
  for (const n of p.nodes) vals.push(evalNode(p.nodes, vals, n));
  const red = p.reduction;
  const reduced = red && !red.throws ? reduceRef(red, vals[vals.length - 1]) : undefined;
  return { nodes: vals, reduced };
}

/** Operand o's elements in dtype ct, broadcast to shape. */
function operandIn(nodes: readonly Node[], vals: readonly RVal[], o: Operand, ct: DT, shape: readonly number[]): (i: number) => Elem {
  if ("scalar" in o) {
    const e = convScalar(o.scalar, ct);
    return () => e;
  }
  const v = vals[o.node], from = nodes[o.node].dtype;
  const map = broadcastMap(v.shape, shape);
  const conv1 = v.xs.map((x) => conv(x, from, ct));
  return (i) => conv1[map[i]];
}

function evalNode(nodes: readonly Node[], vals: readonly RVal[], n: Node): RVal {
  const op = n.op, size = numel(n.shape);
  const xs = new Array<Elem>(size);
  const shape = n.shape;
  switch (op.k) {
    case "leaf":
      for (let i = 0; i < size; i++) xs[i] = ex(op.leaf.values[i]);
      break;
    case "unary": {
      const from = nodes[op.a].dtype;
      if (op.fn === "logicalNot" || op.fn === "isnan") {
        for (let i = 0; i < size; i++) {
          const x = vals[op.a].xs[i];
          if (op.fn === "isnan") xs[i] = x.u ? UNK : ex(typeof x.v === "number" && Number.isNaN(x.v) ? 1 : 0);
          else {
            const b = conv(x, from, "bool");
            xs[i] = b.u ? UNK : ex(b.v === 0 ? 1 : 0);
          }
        }
        break;
      }
      const ct = n.dtype;
      for (let i = 0; i < size; i++) {
        const x = conv(vals[op.a].xs[i], from, ct);
        xs[i] = x.u ? UNK : isFloatDT(ct) ? unaryFloat(op.fn, x, ct) : unaryInt(op.fn, x, ct);
      }
      break;
    }
    case "binary": {
      const ct = computeType(nodes, op);
      const a = operandIn(nodes, vals, op.a, ct, shape), b = operandIn(nodes, vals, op.b, ct, shape);
      for (let i = 0; i < size; i++) xs[i] = binaryRef(op.fn, a(i), b(i), ct);
      break;
    }
    case "where": {
      const c = operandIn(nodes, vals, { node: op.c }, "bool", shape);
      const a = operandIn(nodes, vals, op.a, n.dtype, shape), b = operandIn(nodes, vals, op.b, n.dtype, shape);
      for (let i = 0; i < size; i++) {
        const ci = c(i);
        xs[i] = ci.u ? UNK : ci.v !== 0 ? a(i) : b(i);
      }
      break;
    }
    case "clamp": {
      const ct = n.dtype;
      const x = operandIn(nodes, vals, { node: op.x }, ct, shape);
      const lo = op.lo && operandIn(nodes, vals, op.lo, ct, shape), hi = op.hi && operandIn(nodes, vals, op.hi, ct, shape);
      for (let i = 0; i < size; i++) {
        let v = x(i);
        if (lo) v = binaryRef("maximum", v, lo(i), ct);
        if (hi) v = binaryRef("minimum", v, hi(i), ct);
        xs[i] = v;
      }
      break;
    }
    case "cast": {
      const from = nodes[op.a].dtype;
      for (let i = 0; i < size; i++) xs[i] = conv(vals[op.a].xs[i], from, op.to);
      break;
    }
  }
  return { dtype: n.dtype, shape, xs };
}

function reduceRef(red: Reduction, x: RVal): RVal {
  const rank = x.shape.length;
  const axes = normalizeAxes(red.axis, rank);
  const outerDims = x.shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const outerShape = outerDims.map((i) => x.shape[i]);
  const groups: Elem[][] = Array.from({ length: numel(outerShape) }, () => []);
  const ost = stridesOf(outerShape);
  for (let i = 0; i < x.xs.length; i++) {
    const idx = unravel(i, x.shape);
    let g = 0;
    outerDims.forEach((d, k) => (g += idx[d] * ost[k]));
    groups[g].push(x.xs[i]);
  }
  return { dtype: red.dtype, shape: red.shape, xs: groups.map((g) => reduceGroup(red.fn, g, x.dtype, red.dtype)) };
}

function reduceGroup(fn: ReduceFn, xs: Elem[], dt: DT, out: DT): Elem {
  if (fn === "any" || fn === "all" || fn === "countNonzero") {
    const bs = xs.map((x) => conv(x, dt, "bool"));
    if (fn === "countNonzero") return bs.some((b) => b.u) ? UNK : ex(BigInt(bs.filter((b) => b.v !== 0).length));
    const want = fn === "any" ? 1 : 0;
    if (bs.some((b) => !b.u && b.v === want)) return ex(want);
    return bs.some((b) => b.u) ? UNK : ex(1 - want);
  }
  if (xs.some((x) => x.u)) return UNK;
  if (!isFloatDT(dt)) {
    const bs = xs.map((x) => (dt === "int64" ? x.v as bigint : BigInt(x.v as number)));
    switch (fn) {
      case "sum":
        return ex(BigInt.asIntN(64, bs.reduce((a, b) => a + b, 0n)));
      case "prod":
        return ex(BigInt.asIntN(64, bs.reduce((a, b) => BigInt.asIntN(64, a * b), 1n)));
      case "max":
      case "min": {
        const m = bs.reduce((a, b) => (fn === "max" ? (b > a ? b : a) : (b < a ? b : a)));
        return ex(dt === "int64" ? m : Number(m));
      }
      case "argmax":
      case "argmin": {
        let k = 0;
        for (let i = 1; i < bs.length; i++) if (fn === "argmax" ? bs[i] > bs[k] : bs[i] < bs[k]) k = i;
        return ex(BigInt(k));
      }
      default:
        throw new Error(`reduce ${fn} of ${dt}`);
    }
  }
  const fo = out as "float32" | "float16";
  const a = xs.map((x) => x.v as number), e = xs.map((x) => mag(x.e));
  const n = a.length;
  const hasNaN = a.some(Number.isNaN);
  switch (fn) {
    case "sum":
    case "mean": {
      if (n === 0) return fn === "sum" ? { v: 0, e: ZS, u: false } : ex(NaN);
      if (hasNaN || (a.includes(Infinity) && a.includes(-Infinity))) return ex(NaN);
      if (a.includes(Infinity) || a.includes(-Infinity)) return ex(a.includes(Infinity) ? Infinity : -Infinity);
      let s = 0, sa = 0, se = 0;
      for (let i = 0; i < n; i++) (s += a[i]), (sa += Math.abs(a[i])), (se += e[i]);
      if (sa > 2 ** 120) return UNK; // a float32 accumulator may overflow in one order and not another
      const ep = se + RTOL_SUM * sa;
      return fn === "sum" ? fin(fo, s, Math.max(ep, ZS)) : fin(fo, s / n, Math.max(ep / n, ZS));
    }
    case "prod": {
      if (hasNaN) return ex(NaN);
      let p = 1, big = 1, small = 1, rel = 0, zero = false, inf = false;
      for (let i = 0; i < n; i++) {
        const v = a[i], m = Math.abs(v);
        if (v === 0 || (e[i] > 0 && m <= e[i])) {
          if (e[i] > 0) return UNK;
          zero = true;
        }
        if (!Number.isFinite(v)) inf = true;
        else if (m > 1) big *= m;
        else if (m > 0) small *= m;
        if (m > 0) rel += e[i] / m;
        p *= v;
      }
      if (zero && inf) return ex(NaN);
      if (big > 2 ** 120 || small < 2 ** -120) return UNK; // a partial product may overflow or vanish, depending on order
      if (inf || zero) return { v: p, e: ZS, u: false };
      return fin(fo, p, Math.abs(p) * (rel + n * 2 ** -22));
    }
    case "max":
    case "min": {
      if (hasNaN) return ex(NaN);
      let m = a[0];
      for (const v of a) m = fn === "max" ? (v > m ? v : m) : (v < m ? v : m);
      const em = Math.max(0, ...e);
      return { v: m, e: m === 0 ? Math.max(em, ZS) : em, u: false };
    }
    case "argmax":
    case "argmin": {
      if (hasNaN) return ex(BigInt(a.findIndex(Number.isNaN)));
      const better = (p: number, q: number) => (fn === "argmax" ? p > q : p < q);
      let k = 0;
      for (let i = 1; i < n; i++) if (better(a[i], a[k])) k = i;
      for (let i = 0; i < n; i++) {
        if (i === k || (e[i] === 0 && e[k] === 0)) continue;
        const near = fn === "argmax" ? a[i] + e[i] >= a[k] - e[k] : a[i] - e[i] <= a[k] + e[k];
        if (near) return UNK;
      }
      return ex(BigInt(k));
    }
    case "var": {
      if (n <= 1 || hasNaN || a.some((v) => !Number.isFinite(v))) return ex(NaN);
      let s = 0, sa = 0;
      for (const v of a) (s += v), (sa += Math.abs(v));
      const m = s / n;
      let ss = 0, prop = 0;
      for (let i = 0; i < n; i++) (ss += (a[i] - m) ** 2), (prop += 2 * Math.abs(a[i] - m) * e[i] + e[i] * e[i]);
      if (ss > 2 ** 120 || sa > 2 ** 100) return UNK;
      const dm = RTOL_SUM * sa / n; // the mean's own error adds n dm^2 to the squared deviations
      return fin(fo, ss / (n - 1), Math.max((prop + RTOL_SUM * ss + n * dm * dm) / (n - 1), ZS));
    }
    default:
      throw new Error(`reduce ${fn}`);
  }
}

// ---- running a program on the library ---------------------------------------------------------------

/** A read-back result: dtype, shape and elements, or the error a call threw. */
type Got = { dtype: string; shape: number[]; data: Num[] } | { error: string };

function makeTensor(l: Leaf): pt.Tensor {
  const n = l.store.length;
  let data: Float32Array | Int32Array | BigInt64Array | Uint8Array;
  if (l.dtype === "int64") data = BigInt64Array.from(l.store as bigint[]);
  else if (l.dtype === "int32") data = Int32Array.from(l.store as number[]);
  else if (l.dtype === "uint8" || l.dtype === "bool") data = Uint8Array.from(l.store as number[]);
  else data = Float32Array.from(l.store as number[]);
  using flat = pt.tensor(data, { dtype: l.dtype, device: dev });
  if (flat.numel !== n) throw new Error("leaf size");
  if (l.layout === "permuted") {
    using stored = flat.reshape(l.storeShape);
    return stored.permute([...l.shape.keys()].reverse());
  }
  if (l.layout === "expanded") {
    using stored = flat.reshape(l.storeShape);
    return stored.expand(l.shape);
  }
  return flat.reshape(l.shape);
}

const LIB_UNARY: Record<UnaryFn, (t: pt.Tensor) => pt.Tensor> = {
  neg: (t) => t.neg(),
  abs: (t) => t.abs(),
  square: (t) => t.square(),
  relu: (t) => t.relu(),
  sign: (t) => t.sign(),
  floor: (t) => t.floor(),
  ceil: (t) => t.ceil(),
  round: (t) => t.round(),
  trunc: (t) => t.trunc(),
  exp: (t) => t.exp(),
  sqrt: (t) => t.sqrt(),
  sigmoid: (t) => t.sigmoid(),
  tanh: (t) => t.tanh(),
  logicalNot: (t) => t.logicalNot(),
  isnan: (t) => t.isnan(),
};
const LIB_BINARY: Record<BinaryFn, (a: pt.TensorLike, b: pt.TensorLike) => pt.Tensor> = {
  add: pt.add,
  sub: pt.sub,
  mul: pt.mul,
  div: pt.div,
  maximum: pt.maximum,
  minimum: pt.minimum,
  eq: pt.eq,
  ne: pt.ne,
  lt: pt.lt,
  le: pt.le,
  gt: pt.gt,
  ge: pt.ge,
  logicalAnd: pt.logicalAnd,
  logicalOr: pt.logicalOr,
  logicalXor: pt.logicalXor,
};

function libReduce(red: Reduction, t: pt.Tensor): pt.Tensor {
  const { axis, keepdim } = red;
  switch (red.fn) {
    case "argmax":
    case "argmin":
      return t[red.fn](axis as number | undefined, keepdim);
    default:
      return t[red.fn](axis, keepdim);
  }
}

function readBack(t: pt.Tensor): Got {
  const data = Array.from(t.toArray() as ArrayLike<Num>);
  return { dtype: t.dtype, shape: [...t.shape], data };
}
const errorText = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

interface Run {
  /** The reduction's result (when there is one), then the expression's. */
  outs: Got[];
  /** Every node's dtype and shape (known without running anything, lazily too). */
  metas: { dtype: string; shape: number[] }[];
  /** With readAll: every node's value, read as soon as it is made. */
  nodes: Got[];
}

/**
 * Builds the program's tensors from the leaves (lazily or eagerly, as the caller set), then
 * reads the reduction (first: it fuses with the pending expression) and the expression.
 * With readAll (eagerly), also reads every node as it is made.
 */
function runLib(p: Program, leaves: Map<number, pt.Tensor>, readAll: boolean): Run {
  const made: pt.Tensor[] = [];
  const ts: pt.Tensor[] = [];
  const run: Run = { outs: [], metas: [], nodes: [] };
  const operand = (o: Operand): pt.TensorLike => ("scalar" in o ? o.scalar : ts[o.node]);
  try {
    for (let i = 0; i < p.nodes.length; i++) {
      const op = p.nodes[i].op;
      let t: pt.Tensor;
      try {
        switch (op.k) {
          case "leaf":
            t = leaves.get(i)!;
            break;
          case "unary":
            t = LIB_UNARY[op.fn](ts[op.a]);
            break;
          case "binary":
            t = LIB_BINARY[op.fn](operand(op.a), operand(op.b));
            break;
          case "where":
            t = pt.where(ts[op.c], operand(op.a), operand(op.b));
            break;
          case "clamp":
            t = pt.clamp(ts[op.x], op.lo && operand(op.lo), op.hi && operand(op.hi));
            break;
          case "cast":
            t = ts[op.a].cast(op.to);
            break;
        }
      } catch (e) {
        const err = { error: `n${i}: ${errorText(e)}` };
        run.nodes.push(err);
        run.outs = [err, err];
        return run;
      }
      if (op.k !== "leaf") made.push(t);
      ts.push(t);
      run.metas.push({ dtype: t.dtype, shape: [...t.shape] });
      if (readAll) {
        try {
          run.nodes.push(readBack(t));
        } catch (e) {
          run.nodes.push({ error: `n${i} read: ${errorText(e)}` });
        }
      }
    }
    const expr = ts[ts.length - 1];
    let reduced: pt.Tensor | undefined;
    let redGot: Got | undefined;
    if (p.reduction) {
      try {
        reduced = libReduce(p.reduction, expr);
        made.push(reduced);
      } catch (e) {
        redGot = { error: `${p.reduction.fn}: ${errorText(e)}` };
      }
    }
    if (p.disposeEarly) {
      for (const t of made) if (t !== expr && t !== reduced) t.dispose();
    }
    if (reduced) {
      try {
        redGot = readBack(reduced);
      } catch (e) {
        redGot = { error: `read of ${p.reduction!.fn}: ${errorText(e)}` };
      }
    }
    let exprGot: Got;
    try {
      exprGot = readBack(expr);
    } catch (e) {
      exprGot = { error: `read: ${errorText(e)}` };
    }
    run.outs = redGot ? [redGot, exprGot] : [exprGot];
    return run;
  } finally {
    for (const t of made) t.dispose();
  }
}

// ---- comparison -------------------------------------------------------------------------------------

const fmtIndex = (i: number, shape: readonly number[]) => (shape.length === 0 ? "[]" : `[${unravel(i, shape).join(", ")}]`);
const fmtElem = (
  x: Elem,
) => (x.u ? "undecided" : x.e === 0 ? fmtNum(x.v) : x.e <= ZS ? `${fmtNum(x.v)} (either sign)` : `${fmtNum(x.v)} +- ${x.e.toPrecision(3)}`);

function sameBits(a: Num, b: Num): boolean {
  if (typeof a === "number" && typeof b === "number") return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
}

/** Whether the library's element matches the reference's (within its bound for floats, exactly otherwise). */
function matches(got: Num, want: Elem, dt: DT): boolean {
  if (want.u) return true;
  if (!isFloatDT(dt)) return typeof want.v === "bigint" ? BigInt(got) === want.v : Number(got) === want.v;
  const g = Number(got), w = want.v as number;
  if (Number.isNaN(w) || Number.isNaN(g)) return Number.isNaN(w) && Number.isNaN(g);
  if (!Number.isFinite(w) || !Number.isFinite(g)) return g === w;
  return Math.abs(g - w) <= want.e;
}

const stats = { programs: 0, compared: 0, undecided: 0, patterns: new Map<string, number>() };

/** The first difference between the library's result and the reference's, or undefined. */
function diffRef(what: string, got: Got, want: RVal | "throws"): string | undefined {
  if (want === "throws") {
    return "error" in got ? undefined : `${what}: expected a TensorError (an empty extent), got ${got.dtype}${fmtShape(got.shape)}`;
  }
  if ("error" in got) return `${what}: threw ${got.error}; the reference gives ${want.dtype}${fmtShape(want.shape)}`;
  if (got.dtype !== want.dtype || fmtShape(got.shape) !== fmtShape(want.shape)) {
    return `${what}: got ${got.dtype}${fmtShape(got.shape)}, the reference (PyTorch's rules) gives ${want.dtype}${fmtShape(want.shape)}`;
  }
  for (let i = 0; i < want.xs.length; i++) {
    if (!matches(got.data[i], want.xs[i], want.dtype)) {
      return `${what} ${want.dtype}${fmtShape(want.shape)}: element ${fmtIndex(i, want.shape)} (flat ${i}) is ${fmtNum(got.data[i])}, ` +
        `the reference gives ${fmtElem(want.xs[i])}`;
    }
  }
  return undefined;
}

function count(want: RVal): void {
  for (const x of want.xs) x.u ? stats.undecided++ : stats.compared++;
}

function diffBits(what: string, lazy: Got, eager: Got): string | undefined {
  if ("error" in lazy || "error" in eager) {
    if ("error" in lazy && "error" in eager) return undefined;
    return `${what}: lazily ${"error" in lazy ? `threw ${lazy.error}` : "ran"}, eagerly ${
      "error" in eager ? `threw ${eager.error}` : "ran"
    }`;
  }
  if (lazy.dtype !== eager.dtype || fmtShape(lazy.shape) !== fmtShape(eager.shape)) {
    return `${what}: ${lazy.dtype}${fmtShape(lazy.shape)} lazily, ${eager.dtype}${fmtShape(eager.shape)} eagerly`;
  }
  for (let i = 0; i < lazy.data.length; i++) {
    if (!sameBits(lazy.data[i], eager.data[i])) {
      return `${what} ${lazy.dtype}${fmtShape(lazy.shape)}: element ${fmtIndex(i, lazy.shape)} (flat ${i}) is ${
        fmtNum(lazy.data[i])
      } lazily ` +
        `and ${fmtNum(eager.data[i])} eagerly (the library promises the same bits)`;
    }
  }
  return undefined;
}

/** How an operand looks to type promotion and broadcasting, for failure signatures. */
function operandKind(p: Program, o: Operand): string {
  if ("scalar" in o) return typeof o.scalar === "boolean" ? "bool scalar" : Number.isInteger(o.scalar) ? "int scalar" : "float scalar";
  const n = p.nodes[o.node];
  return `${n.dtype}${n.shape.length === 0 ? " 0-d" : ""}`;
}

/** A node's op with its operands' kinds: failures with the same signature are most likely one bug. */
function opSignature(p: Program, i: number): string {
  const op = p.nodes[i].op;
  const t = (k: number) => operandKind(p, { node: k });
  switch (op.k) {
    case "leaf":
      return `leaf ${op.leaf.dtype} ${op.leaf.layout}`;
    case "unary":
      return `${op.fn}(${t(op.a)})`;
    case "binary":
      return `${op.fn}(${operandKind(p, op.a)}, ${operandKind(p, op.b)})`;
    case "where":
      return `where(${t(op.c)}, ${operandKind(p, op.a)}, ${operandKind(p, op.b)})`;
    case "clamp":
      return `clamp(${t(op.x)}, ${op.lo ? operandKind(p, op.lo) : "null"}, ${op.hi ? operandKind(p, op.hi) : "null"})`;
    case "cast":
      return `cast(${t(op.a)} -> ${op.to})`;
  }
}

const problemKind = (d: string) =>
  /lazily and .* eagerly|lazily, .* eagerly|lazily (threw|ran), eagerly/.test(d)
    ? "lazy != eager"
    : / threw /.test(d)
    ? "throws"
    : /expected a TensorError/.test(d)
    ? "does not throw"
    : /PyTorch's rules/.test(d)
    ? "dtype or shape"
    : "value";

interface Failure {
  seed: number;
  text: string;
  sig: string;
  size: number;
}

/** Runs one program lazily and eagerly and checks both; returns the failure or undefined. */
function check(seed: number): Failure | undefined {
  const p = generate(seed);
  const ref = evalProgram(p);
  const leaves = new Map<number, pt.Tensor>();
  p.nodes.forEach((n, i) => n.op.k === "leaf" && leaves.set(i, makeTensor(n.op.leaf)));
  try {
    const was = pt.setLazy(true);
    let lazy: Run;
    try {
      lazy = runLib(p, leaves, false);
    } finally {
      pt.setLazy(was);
    }
    const eager = pt.eager(() => runLib(p, leaves, true));
    stats.programs++;
    for (const k of patterns(p)) stats.patterns.set(k, (stats.patterns.get(k) ?? 0) + 1);
    const problems: string[] = [];
    let sig: string | undefined;
    // every node eagerly (reading them changes nothing there)
    for (let i = 0; i < eager.nodes.length; i++) {
      count(ref.nodes[i]);
      const d = diffRef(`n${i}, eagerly`, eager.nodes[i], ref.nodes[i]);
      if (d !== undefined) {
        problems.push(`first node that differs eagerly: n${i} = ${opText(p.nodes[i].op)}\n    ${d}`);
        sig = `${opSignature(p, i)}: ${problemKind(d)}`;
        break;
      }
    }
    // every node's dtype and shape lazily (known without running: reading values would change what fuses)
    for (let i = 0; i < lazy.metas.length; i++) {
      const m = lazy.metas[i], n = p.nodes[i];
      if (m.dtype !== n.dtype || fmtShape(m.shape) !== fmtShape(n.shape)) {
        problems.push(
          `first node whose dtype or shape differs lazily: n${i} = ${opText(n.op)}: ${m.dtype}${fmtShape(m.shape)}, ` +
            `the reference (PyTorch's rules) gives ${n.dtype}${fmtShape(n.shape)}`,
        );
        sig ??= `${opSignature(p, i)}: dtype or shape`;
        break;
      }
    }
    // the outputs: lazy and eager bits, each against the reference
    const wants: [string, RVal | "throws"][] = [];
    if (p.reduction) wants.push([`r (${p.reduction.fn})`, p.reduction.throws ? "throws" : ref.reduced!]);
    wants.push([`n${p.nodes.length - 1} (the expression)`, ref.nodes[ref.nodes.length - 1]]);
    for (let k = 0; k < wants.length; k++) {
      const [what, want] = wants[k];
      if (want !== "throws" && k === 0 && p.reduction) count(want);
      const d = diffBits(what, lazy.outs[k], eager.outs[k]) ?? diffRef(`${what}, lazily`, lazy.outs[k], want) ??
        diffRef(`${what}, eagerly`, eager.outs[k], want);
      if (d === undefined) continue;
      problems.push(d);
      if (sig === undefined) {
        const red = p.reduction, x = p.nodes[p.nodes.length - 1];
        const of = !red || k > 0
          ? "the expression"
          : x.shape.length === 0 && red.axis !== undefined
          ? "a reduction of a 0-d tensor over dim 0 or -1"
          : `${red.fn} of ${x.dtype}`;
        sig = `${of}: ${problemKind(d)}`;
      }
    }
    if (problems.length === 0) return undefined;
    return { seed, text: `${programText(p)}\n  ${problems.join("\n  ")}`, sig: sig!, size: p.nodes.length };
  } finally {
    for (const t of leaves.values()) t.dispose();
  }
}

test(`${SEEDS.length} seeded random programs (broadcast, 0-d and scalar operands, casts, reductions) lazily and eagerly match a JS reference`, () => {
  const failures: Failure[] = [];
  const t0 = performance.now();
  for (const seed of SEEDS) {
    let f: Failure | undefined;
    try {
      f = check(seed);
    } catch (e) {
      const text = `${programText(generate(seed))}\n  the test itself failed: ${errorText(e)}\n${(e as Error).stack ?? ""}`;
      f = { seed, text, sig: "the test itself failed", size: 0 };
    }
    if (f !== undefined) failures.push(f);
  }
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `property on ${dev.id}: ${stats.programs} programs in ${secs} s, ${stats.compared} elements compared, ` +
      `${stats.undecided} undecidable (${(100 * stats.undecided / Math.max(1, stats.compared + stats.undecided)).toFixed(2)}%); ` +
      `programs with past bugs' patterns: ${[...stats.patterns].map(([k, v]) => `${k} ${v}`).join(", ")}`,
  );
  if (failures.length > 0) {
    // one example per signature, the shortest program of each
    const bySig = new Map<string, Failure[]>();
    for (const f of failures) bySig.set(f.sig, [...(bySig.get(f.sig) ?? []), f]);
    const groups = [...bySig.entries()].sort((a, b) => b[1].length - a[1].length);
    const list = groups.map(([sig, fs]) =>
      `  ${sig}: ${fs.length} (seeds ${fs.slice(0, 16).map((f) => f.seed).join(", ")}${fs.length > 16 ? ", ..." : ""})`
    ).join("\n");
    const shown = groups.slice(0, 12).map(([sig, fs]) => {
      const f = fs.reduce((a, b) => (b.size < a.size ? b : a));
      return `[${sig}]\n${f.text}`;
    }).join("\n\n");
    assert.fail(
      `${failures.length} of ${SEEDS.length} programs failed on ${dev.id}; by the first op that differs:\n${list}\n\n` +
        `the shortest program of each (up to 12):\n\n${shown}`,
    );
  }
});
