/**
 * The one decoder of elementwise bytecode (blocks.h; ir.ts encodes it) for the renderers that
 * write source. It checks the words as the CPU's ew_compile.c does (header, lengths, ops,
 * types, every register written before it is read, one final STORE, every slot inside the
 * parameter record) and turns each instruction into a line through the language's emitter,
 * which knows only how each op is spelled. Register names: `t<i>` for instruction i's value,
 * `t<i>@u` where the value is per element (the caller places `@u`, `@i` and `@q<v>`).
 */

/** Compute types (ctype): registers hold f32, f64, i32 or i64 values. */
export const F32 = 0, F64 = 1, I32 = 2, I64 = 3;

/** How one language spells the ops. Expressions may use `@i` (the element's index) and `@q<v>` (view v's offset). */
export interface EwEmitter {
  /** Error messages start with it ("cuda renderer"). */
  readonly renderer: string;
  /** The parameter record whose argument slots bound the block ("pt_params"), and their count. */
  readonly params: string;
  readonly maxArgs: number;
  /** Each compute type's register type. */
  readonly ctype: readonly string[];
  /** LOAD of view v as compute type ct. */
  load(ct: number, view: number): string;
  /** CONST read from argument slot `slot` as ct (hoisted: read once per thread). */
  constant(ct: number, slot: number): string;
  /** INDEX: the element's row-major index as ct. */
  index(ct: number): string;
  cast(x: string, to: number, from: number): string;
  /** A unary op on ct (op 10..49), or undefined when it has no meaning for ct. */
  unary(op: number, x: string, ct: number): string | undefined;
  /** A binary op on ct (op 50..75), or undefined when it has no meaning for ct; may first push checks onto `body` (an integer division by zero). */
  binary(op: number, x: string, y: string, ct: number, body: string[]): string | undefined;
}

/** A checked bytecode's lines, before a program places them. */
export interface DecodedEw {
  readonly ninputs: number;
  readonly nviews: number;
  /** CONST registers, read from the block once. */
  readonly hoisted: readonly { T: string; name: string; expr: string }[];
  /** LOADs: each unit's are issued before its ops. */
  readonly loads: readonly { T: string; name: string; expr: string; view: number; ct: number }[];
  /** The instructions between the loads and STORE, as `const T name = expr;` lines (and checks). */
  readonly body: readonly string[];
  /** The block's length in slots: the views, then the constants read. */
  readonly slots: number;
  /** STORE's compute type and the register it stores. */
  readonly store: { ct: number; reg: string };
}

const MAGIC = 0x50540001;
/** What an op that has no meaning for compute type ct needs instead. */
const needs = (ct: number) => ct === F32 || ct === F64 ? "an integer" : "a float";

/** The bytecode `words` of a block whose view 0 starts at slot `firstView` (the constants follow the views and their count). */
export function decodeElementwise(words: Int32Array, firstView: number, e: EwEmitter): DecodedEw {
  const fail = (why: string): never => {
    throw new Error(`${e.renderer}: ${why}`);
  };
  if (words.length < 4 || words[0] !== MAGIC) fail("not elementwise bytecode");
  const ninputs = words[1], ninstr = words[3];
  if (words.length !== 4 + 6 * ninstr || ninstr < 1) fail("bytecode length does not match its instruction count");
  const nviews = ninputs + 1;
  const constBase = firstView + nviews * 11 + 1; // slot of const[0]
  if (constBase > e.maxArgs) fail(`${ninputs} inputs need more than ${e.params}' ${e.maxArgs} argument slots`);
  const hoisted: { T: string; name: string; expr: string }[] = [];
  const loads: { T: string; name: string; expr: string; view: number; ct: number }[] = [];
  const body: string[] = [];
  const regs = new Map<number, { name: string; type: number }>();
  const read = (i: number, r: number, type: number): string => {
    const reg = regs.get(r);
    if (!reg) fail(`instruction ${i} reads register ${r} before it is written`);
    if (reg!.type !== type) fail(`instruction ${i} reads register ${r} as ctype ${type} but it holds ${reg!.type}`);
    return reg!.name;
  };
  let store: { ct: number; reg: string } | undefined;
  let slots = constBase;
  for (let i = 0; i < ninstr; i++) {
    const [op, ct, dst, a, b, c] = words.subarray(4 + 6 * i, 10 + 6 * i);
    if (store) fail("STORE must be the last instruction");
    if (ct < 0 || ct > 3) fail(`instruction ${i} has ctype ${ct}`);
    const name = `t${i}@u`, T = e.ctype[ct];
    let expr: string, type = ct;
    if (op === 0) {
      if (a < 0 || a >= ninputs) fail(`instruction ${i} loads input ${a} of ${ninputs}`);
      loads.push({ T, name, expr: e.load(ct, a + 1), view: a + 1, ct });
      regs.set(dst, { name, type });
      continue;
    } else if (op === 1) {
      if (a < 0 || constBase + a >= e.maxArgs) fail(`constant ${a} lies past ${e.params}' ${e.maxArgs} argument slots`);
      slots = Math.max(slots, constBase + a + 1);
      hoisted.push({ T, name: `t${i}`, expr: e.constant(ct, constBase + a) });
      regs.set(dst, { name: `t${i}`, type });
      continue;
    } else if (op === 2) {
      expr = e.index(ct);
    } else if (op === 3) {
      if (b < 0 || b > 3) fail(`instruction ${i} casts from ctype ${b}`);
      expr = e.cast(read(i, a, b), ct, b);
    } else if (op >= 10 && op <= 49) {
      const f = e.unary(op, read(i, a, ct), ct);
      if (f === undefined) fail(`instruction ${i}: op ${op} needs ${needs(ct)} ctype, not ${["f32", "f64", "i32", "i64"][ct]}`);
      expr = f!;
      if (op >= 33 && op <= 37) type = I32;
    } else if (op >= 50 && op <= 75) {
      const f = e.binary(op, read(i, a, ct), read(i, b, ct), ct, body);
      if (f === undefined) fail(`instruction ${i}: op ${op} needs ${needs(ct)} ctype, not ${["f32", "f64", "i32", "i64"][ct]}`);
      expr = f!;
      if (op >= 58 && op <= 66) type = I32;
    } else if (op === 80) {
      expr = `(${read(i, a, I32)} != 0 ? ${read(i, b, ct)} : ${read(i, c, ct)})`;
    } else if (op === 90) {
      if (i !== ninstr - 1) fail("STORE must be the last instruction");
      store = { ct, reg: read(i, a, ct) };
      continue;
    } else {
      fail(`instruction ${i} has unknown op ${op}`);
    }
    body.push(`const ${e.ctype[type]} ${name} = ${expr!};`);
    regs.set(dst, { name, type });
  }
  if (!store) fail("the last instruction must be STORE");
  return { ninputs, nviews, hoisted, loads, body, slots, store: store! };
}
