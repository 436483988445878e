/**
 * The elementwise ops written once: what each opcode of the bytecode computes, as the
 * expression every GPU language shares, and the integer helpers those expressions call.
 * The semantics are the CPU interpreter's (native ew_ops.h): integer arithmetic wraps,
 * floor division and Python modulo report a division by zero, max and min let a NaN win,
 * round is half to even, float -> int casts truncate with NaN -> 0 and saturate. A language
 * gives only its spelling (OpSpelling): type names, math function names, its NaN and
 * nonzero tests, and how a block slot and an element index read. Metal's f64 registers are
 * float-float values, whose ops msl/elementwise.ts gives in place of these.
 */
import { type EwEmitter, F32, F64, I32, I64 } from "../decode.ts";

/** What a language spells its own way in the ops. */
export interface OpSpelling {
  /** Error messages start with it ("cuda renderer"). */
  readonly renderer: string;
  /** The parameter record whose argument slots bound the block, and their count. */
  readonly params: string;
  readonly maxArgs: number;
  /** Each compute type's register type, and the unsigned type an integer one wraps through. */
  readonly ctype: readonly string[];
  readonly utype: readonly string[];
  /** A literal of float compute type t with decimal text v (GLSL marks a double "lf"). */
  lit(t: number, v: string): string;
  /** Math function `name` (the C library's f64 name: exp, fabs, rint, erf, pow) for float compute type t. */
  math(name: string, t: number): string;
  /** Float tests, each an int-valued or bool expression. */
  isnan(x: string, t: number): string;
  isinf(x: string, t: number): string;
  isfinite(x: string, t: number): string;
  /** Whether float x is nonzero, and zero, as the CPU tests it (NaN is nonzero; Metal tests bits, as it flushes subnormals). */
  nonzero(x: string, t: number): string;
  iszero(x: string, t: number): string;
  /** LOAD of view v as compute type ct; CONST from block slot k; INDEX as ct. */
  load(ct: number, view: number): string;
  constant(ct: number, slot: number): string;
  index(ct: number): string;
  /** The statement after a failing integer op has reported: it ends the element. */
  readonly onError: string;
}

/** Which helpers an op of the program called, so that a renderer includes only those. */
export interface OpUses {
  math: boolean;
  ints: boolean;
}

/**
 * Unary float ops whose math is a library call (GLSL's math.ts): exp exp2 log log2 log1p, sin cos tan tanh sigmoid, gelu,
 * erf erfc expm1, asin acos atan, sinh cosh, asinh acosh atanh, log10.
 */
const MATH_OPS = new Set([15, 16, 17, 18, 19, 22, 23, 24, 25, 26, 28, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
const LIBM: Record<number, string> = {
  15: "exp",
  16: "exp2",
  17: "log",
  18: "log2",
  19: "log1p",
  22: "sin",
  23: "cos",
  24: "tan",
  25: "tanh",
  29: "floor",
  30: "ceil",
  31: "rint", // half to even
  32: "trunc",
  38: "erf",
  39: "erfc",
  40: "expm1",
  41: "asin",
  42: "acos",
  43: "atan",
  44: "sinh",
  45: "cosh",
  46: "asinh",
  47: "acosh",
  48: "atanh",
  49: "log10",
};
/** Bitwise AND, OR, XOR (71..73). */
const BITWISE = ["&", "|", "^"];

/** The bytecode's ops in a language's spelling; `uses` records the helpers they call. */
export function opsEmitter(s: OpSpelling, uses: OpUses = { math: false, ints: false }): EwEmitter {
  const T = (t: number) => s.ctype[t], U = (t: number) => s.utype[t];
  const one = (t: number) => s.lit(t, "1");
  const zero = (t: number) => s.lit(t, "0");
  const b = (cond: string) => `(${cond} ? 1 : 0)`;
  const intOf = (t: number, v: string) => `${T(t)}(${v})`;
  const wrap = (t: number, e: string) => `${T(t)}(${e})`;
  function floatUnary(op: number, x: string, t: number): string | undefined {
    if (LIBM[op]) return `${s.math(LIBM[op], t)}(${x})`;
    switch (op) {
      case 10:
        return `-${x}`;
      case 11:
        return `${s.math("fabs", t)}(${x})`;
      case 12:
        return `(${x} > ${zero(t)} ? ${one(t)} : ${x} < ${zero(t)} ? ${s.lit(t, "-1")} : ${x})`; // keeps -0 and NaN
      case 13:
        return `pt_mul(${x}, ${x})`;
      case 14:
        return `pt_div(${one(t)}, ${x})`;
      case 20:
        return `pt_sqrt(${x})`;
      case 21:
        return `pt_div(${one(t)}, pt_sqrt(${x}))`;
      case 26:
        return `pt_div(${one(t)}, pt_add(${one(t)}, ${s.math("exp", t)}(-${x})))`;
      case 27:
        return `(${x} < ${zero(t)} ? ${zero(t)} : ${x})`; // x < 0 so that NaN passes through
      case 28: // the CPU rounds the double constant to the compute type, as the literal does
        return `pt_mul(pt_mul(${s.lit(t, "0.5")}, ${x}), pt_add(${one(t)}, ${s.math("erf", t)}(pt_mul(${x}, ${
          s.lit(t, "0.70710678118654752440")
        }))))`;
      case 33:
        return b(s.iszero(x, t));
      case 34:
        return b(s.isnan(x, t));
      case 35:
        return b(s.isinf(x, t));
      case 36:
        return b(s.isfinite(x, t));
      case 37:
        return b(s.nonzero(x, t));
    }
    return undefined;
  }
  function intUnary(op: number, x: string, t: number): string | undefined {
    const neg = wrap(t, `${U(t)}(0) - ${U(t)}(${x})`);
    switch (op) {
      case 10:
        return neg;
      case 11:
        return `(${x} < ${intOf(t, "0")} ? ${neg} : ${x})`;
      case 12:
        return `(${x} > ${intOf(t, "0")} ? ${intOf(t, "1")} : ${x} < ${intOf(t, "0")} ? ${intOf(t, "-1")} : ${intOf(t, "0")})`;
      case 13:
        return wrap(t, `${U(t)}(${x}) * ${U(t)}(${x})`);
      case 27:
        return `(${x} < ${intOf(t, "0")} ? ${intOf(t, "0")} : ${x})`;
      case 29:
      case 30:
      case 31:
      case 32:
        return x;
      case 33:
        return b(`${x} == ${intOf(t, "0")}`);
      case 34:
      case 35:
        return "0";
      case 36:
        return "1";
      case 37:
        return b(`${x} != ${intOf(t, "0")}`);
    }
    return undefined;
  }
  const isFloat = (t: number) => t === F32 || t === F64;
  const nz = (x: string, t: number) => isFloat(t) ? s.nonzero(x, t) : `${x} != ${intOf(t, "0")}`;
  const divCheck = (y: string, t: number, which: number) =>
    `if (${y} == ${intOf(t, "0")}) { PT_FAIL(PT_KERR_INT_DIV, @i, ${which}, 0); ${s.onError} }`;
  /** atan2 hypot fmod floorDivide (float), fmod floorDivide and the bitwise ops (integer): 67..75. */
  function newBinary(op: number, x: string, y: string, t: number, body: string[]): string | undefined {
    if (isFloat(t)) {
      if (op > 70) return undefined;
      uses.math = true;
      if (op === 70) return `pt_floordiv_py(${x}, ${y})`;
      return `${s.math(["atan2", "hypot", "fmod"][op - 67], t)}(${x}, ${y})`;
    }
    if (op <= 68) return undefined;
    if (op <= 70) { // C's remainder (sign of the dividend) and floor division: DIV's
      body.push(divCheck(y, t, op === 69 ? 1 : 0));
      uses.ints = true;
      return op === 69 ? `pt_ifmod(${x}, ${y})` : `pt_idiv(${x}, ${y})`;
    }
    if (op <= 73) return `(${x} ${BITWISE[op - 71]} ${y})`;
    // A count outside [0, W) shifts every bit out, as PyTorch (the languages leave it undefined).
    const out = `${y} < ${intOf(t, "0")} || ${y} >= ${intOf(t, t === I32 ? "32" : "64")}`;
    if (op === 74) return `(${out} ? ${intOf(t, "0")} : ${wrap(t, `${U(t)}(${x}) << ${U(t)}(${y})`)})`;
    return `(${out} ? (${x} < ${intOf(t, "0")} ? ${intOf(t, "-1")} : ${intOf(t, "0")}) : ${x} >> ${y})`; // arithmetic
  }
  return {
    renderer: s.renderer,
    params: s.params,
    maxArgs: s.maxArgs,
    ctype: s.ctype,
    load: s.load,
    constant: s.constant,
    index: s.index,
    cast(x, to, from) {
      if (to === from) return x;
      if (isFloat(to)) return `${T(to)}(${x})`;
      if (to === I32) return from === I64 ? `pt_wrap32(${x})` : `pt_f2i32(${x})`;
      return from === I32 ? `${T(I64)}(${x})` : `pt_f2i64(${x})`;
    },
    unary(op, x, t) {
      uses.math ||= isFloat(t) && MATH_OPS.has(op);
      return isFloat(t) ? floatUnary(op, x, t) : intUnary(op, x, t);
    },
    binary(op, x, y, t, body) {
      if (op >= 67) return newBinary(op, x, y, t, body);
      if (op >= 64) return b(`(${nz(x, t)}) ${["&&", "||", "!="][op - 64]} (${nz(y, t)})`); // AND, OR, XOR of nonzero
      if (op >= 58) return b(`${x} ${["==", "!=", "<", "<=", ">", ">="][op - 58]} ${y}`);
      if (op <= 53 && isFloat(t)) return `pt_${["add", "sub", "mul", "div"][op - 50]}(${x}, ${y})`;
      if (op <= 52) return wrap(t, `${U(t)}(${x}) ${["+", "-", "*"][op - 50]} ${U(t)}(${y})`);
      if (op === 53 || op === 55) {
        if (!isFloat(t)) body.push(divCheck(y, t, op === 53 ? 0 : 1));
        uses.ints ||= !isFloat(t);
        uses.math ||= isFloat(t);
        if (op === 53) return `pt_idiv(${x}, ${y})`;
        return isFloat(t) ? `pt_fmod_py(${x}, ${y})` : `pt_imod(${x}, ${y})`;
      }
      if (op === 54) {
        uses.ints ||= !isFloat(t);
        uses.math ||= isFloat(t);
        return isFloat(t) ? `${s.math("pow", t)}(${x}, ${y})` : `pt_ipow(${x}, ${y})`;
      }
      const cmp = op === 56 ? ">" : "<"; // MAX, MIN: a NaN in either operand wins
      return isFloat(t) ? `(${s.isnan(x, t)} || ${x} ${cmp} ${y} ? ${x} : ${y})` : `(${x} ${cmp} ${y} ? ${x} : ${y})`;
    },
  };
}

/**
 * Floor division, Python modulo and power for integer type T (wrapping through U), on
 * magnitudes: GLSL leaves signed / and % of negative operands to the implementation, and
 * C's overflow of MIN / -1 is undefined. d != 0 (the caller checked); d == -1 wraps.
 */
const intOps = (T: string, U: string) =>
  String.raw`
PT_FN ${T} pt_idiv(${T} a, ${T} d) {
  if (d == ${T}(-1)) return ${T}(${U}(0) - ${U}(a));
  const ${U} ua = a < ${T}(0) ? ${U}(0) - ${U}(a) : ${U}(a), ud = d < ${T}(0) ? ${U}(0) - ${U}(d) : ${U}(d);
  const ${U} q = ua / ud;
  if ((a < ${T}(0)) == (d < ${T}(0))) return ${T}(q);
  return ${T}(${U}(0) - q - (q * ud != ua ? ${U}(1) : ${U}(0)));
}
PT_FN ${T} pt_imod(${T} a, ${T} d) {
  if (d == ${T}(-1)) return ${T}(0);
  return ${T}(${U}(a) - ${U}(pt_idiv(a, d)) * ${U}(d));
}
/* C's %: the remainder of the magnitudes with the dividend's sign. */
PT_FN ${T} pt_ifmod(${T} a, ${T} d) {
  const ${U} ua = a < ${T}(0) ? ${U}(0) - ${U}(a) : ${U}(a), ud = d < ${T}(0) ? ${U}(0) - ${U}(d) : ${U}(d);
  const ${U} r = ua % ud;
  return a < ${T}(0) ? ${T}(${U}(0) - r) : ${T}(r);
}
/* A negative exponent truncates as PyTorch's powi does: 1 for base 1, +-1 by parity for -1, else 0. */
PT_FN ${T} pt_ipow(${T} base, ${T} e) {
  if (e < ${T}(0)) return base == ${T}(1) ? ${T}(1) : base == ${T}(-1) ? ((e & ${T}(1)) != ${T}(0) ? ${T}(-1) : ${T}(1)) : ${T}(0);
  ${U} result = ${U}(1), square = ${U}(base);
  for (${U} x = ${U}(e); x != ${U}(0); x >>= 1) {
    if ((x & ${U}(1)) != ${U}(0)) result *= square;
    square *= square;
  }
  return ${T}(result);
}
`;

/** The integer helpers of the ops for int and pt_i64 (the preambles' U32 and pt_u64 types named by the caller). */
export const intHelpers = (u32: string) => intOps("int", u32) + intOps("pt_i64", "pt_u64");

/**
 * Python's float % for float type T, over the language's C fmod (fmodName): the result
 * takes the divisor's sign, and a zero result is +-0 by it.
 */
export const fmodPy = (T: string, fmodName: string, copysign: (z: string, b: string) => string) =>
  String.raw`
PT_FN ${T} pt_fmod_py(${T} a, ${T} b) {
  ${T} r = ${fmodName}(a, b);
  if (r != ${T}(0)) { if ((r < ${T}(0)) != (b < ${T}(0))) r = pt_add(r, b); }
  else r = ${copysign(`${T}(0)`, "b")};
  return r;
}
`;

/**
 * Python's float // for float type T, as PyTorch's div_floor_floating: from C's fmod
 * (fmodName), so that 1 // 0.1 is 9 where floor(1 / 0.1) is 10, the quotient rounded to the
 * nearer integer; a zero divisor gives IEEE a / b, a zero quotient +-0 by a / b's sign.
 */
export const floorDivPy = (T: string, fmodName: string, floorName: string, copysign: (z: string, b: string) => string) =>
  String.raw`
PT_FN ${T} pt_floordiv_py(${T} a, ${T} b) {
  if (b == ${T}(0)) return pt_div(a, b);
  const ${T} m = ${fmodName}(a, b);
  ${T} d = pt_div(pt_sub(a, m), b);
  if (m != ${T}(0) && ((b < ${T}(0)) != (m < ${T}(0)))) d = pt_sub(d, ${T}(1));
  if (d == ${T}(0)) return ${copysign(`${T}(0)`, "pt_div(a, b)")};
  ${T} f = ${floorName}(d);
  const ${T} frac = pt_sub(d, f);
  if (pt_add(frac, frac) > ${T}(1)) f = pt_add(f, ${T}(1)); /* frac > 1/2, exactly, with no fractional literal */
  return f;
}
`;
