/**
 * GLSL's elementwise programs: the template's (templates/elementwise.ts, ew_linear.ts) in
 * GLSL's spelling of the ops. Transcendentals come from math.ts (double precision, f32
 * rounded once from it), float arithmetic from the preamble's precise helpers. The linear
 * program reaches a view's elements by byte address through buffer references (GLSL has
 * no pointers). renderElementwiseValue gives the same instruction lines as a function of
 * the element index, for ewreduce (reduce.ts), which consumes the values instead of
 * storing them.
 */
import { GLSL_DIALECT, PREAMBLE } from "./preamble.ts";
import { MATH } from "./math.ts";
import { type EwEmitter, F32, F64, I32, I64 } from "../decode.ts";
import { floorDivPy, fmodPy, intHelpers, opsEmitter, type OpUses } from "../templates/ops.ts";
import { ewIo } from "../templates/ew_io.ts";
import * as ew from "../templates/elementwise.ts";
import type { LinearPlan } from "../templates/ew_linear.ts";

const CTYPE = ew.ctypes("double");

/** Float modulo and floor division, which need math.ts's exact fmod. */
const SIGN_F = (_: string, b: string) => `uintBitsToFloat(floatBitsToUint(${b}) & 0x80000000u)`;
const SIGN_D = (_: string, b: string) => `uint64BitsToDouble(doubleBitsToUint64(${b}) & 0x8000000000000000ul)`;
const FMOD_PY = fmodPy("float", "pt_fmodf", SIGN_F) + fmodPy("double", "pt_fmod", SIGN_D) +
  floorDivPy("float", "pt_fmodf", "floor", SIGN_F) + floorDivPy("double", "pt_fmod", "floor", SIGN_D);

/** Integer floor division, Python modulo and power. */
const INT_OPS = intHelpers("uint");

/** GLSL's own names for the C library's functions; the rest are math.ts's: pt_exp for f64, pt_expf for f32. */
const BUILTIN: Record<string, string> = { fabs: "abs", floor: "floor", ceil: "ceil", rint: "roundEven", trunc: "trunc" };
const fn = (name: string, t: number) => BUILTIN[name] ?? (t === F32 ? `pt_${name}f` : `pt_${name}`);

/** GLSL's spelling of the ops (templates/ops.ts); `uses` records whether one calls math.ts or INT_OPS. */
function emitter(onError: string, uses: OpUses): EwEmitter {
  return opsEmitter({
    ...ew.commonSpelling("glsl renderer", "PtParams", "double"),
    lit: (t, v) => `${CTYPE[t]}(${v}${v.includes(".") ? "lf" : ""})`, // an unsuffixed literal is a float
    math: fn,
    isnan: (x) => `isnan(${x})`,
    isinf: (x) => `isinf(${x})`,
    isfinite: (x) => `!(isnan(${x}) || isinf(${x}))`,
    nonzero: (x, t) => `${x} != ${CTYPE[t]}(0)`, // unordered: NaN is nonzero
    iszero: (x, t) => `${x} == ${CTYPE[t]}(0)`,
    constant(ct, k) {
      const slot = `PT_P.a[${k}]`;
      return ct === F32 ? `float(${slot})` : ct === F64 ? slot : ct === I32 ? `pt_f2i32(${slot})` : `pt_f2i64(${slot})`;
    },
    index: (ct) => ct === I64 ? "@i" : `${CTYPE[ct]}(@i)`,
    onError,
  }, uses);
}

/**
 * Per vector kind: the type four elements are read into (16- and 8-bit elements widen to
 * uvec4: their storage types have no arithmetic), the storage vector, and its block, aligned
 * to its size (the program checks each view's address).
 */
const VECTORS: Readonly<Record<string, { wide: string; narrow: string; block: string }>> = {
  f32: { wide: "vec4", narrow: "vec4", block: "PtV4F32" },
  u16: { wide: "uvec4", narrow: "u16vec4", block: "PtV4U16" },
  f64: { wide: "dvec4", narrow: "dvec4", block: "PtV4F64" },
  i32: { wide: "ivec4", narrow: "ivec4", block: "PtV4I32" },
  i64: { wide: "i64vec4", narrow: "i64vec4", block: "PtV4I64" },
  u8: { wide: "uvec4", narrow: "u8vec4", block: "PtV4U8" },
};
const ALIGN: Record<string, number> = { f32: 16, u16: 8, f64: 32, i32: 16, i64: 32, u8: 4 };

/** The linear program's views by byte address; no short path for small launches (CUDA's was measured on CUDA only). */
const GLSL_LINEAR: LinearPlan = {
  shortPath: false,
  first: (v, offset, size) => `const uint64_t a${v} = PT_P.buf[${v}] + uint64_t(PT_A(${offset})) * ${size}ul;`,
  address: (v) => `a${v}`,
  at: (v, j, bytes) => `a${v} + uint64_t(${j}) * ${bytes}ul`,
  vectorType: (k) =>
    `layout(buffer_reference, std430, buffer_reference_align = ${ALIGN[k]}) buffer ${VECTORS[k].block} { ${VECTORS[k].narrow} v; };`,
  local: (k) => VECTORS[k].wide,
  load(k, at) {
    const { wide, narrow, block } = VECTORS[k];
    return wide === narrow ? `${block}(${at}).v` : `${wide}(${block}(${at}).v)`;
  },
  store(k, at, V) {
    const { wide, narrow, block } = VECTORS[k];
    return `${block}(${at}).v = ${wide === narrow ? V : `${narrow}(${V})`};`;
  },
  lane: (V, u) => `${V}.${"xyzw"[u]}`,
};

/** The helpers a program's ops call (most need none of math.ts's text), and the loads and stores when `io`. */
const helpers = (uses: OpUses, io: boolean) => `${uses.math ? MATH + FMOD_PY : ""}${io ? ewIo(true) : ""}${uses.ints ? INT_OPS : ""}`;

/** GLSL's plan for the elementwise template. */
export const GLSL_EW: ew.EwPlan = {
  dialect: GLSL_DIALECT,
  emitter,
  head: (_, uses, io) => PREAMBLE + helpers(uses, io),
  zero: CTYPE.map((T) => `${T}(0)`),
  linear: GLSL_LINEAR,
};

/**
 * Where a block keeps what an elementwise program reads: the rank's slot, the shape's first
 * slot, and view 0's first slot (view v's at views + 11 v; the constants follow the last).
 */
export interface EwLayout {
  readonly rank: number;
  readonly shape: number;
  readonly views: number;
}

/**
 * An elementwise bytecode as a function of the row-major element index, for programs that
 * consume the values instead of storing them (ewreduce, reduce.ts), whose block keeps the
 * rank, shape and views where `at` says (view 0, the program's output, is not read here).
 * `text` goes after the preamble and defines
 *   void pt_ew_init(): reads the block into globals and shared memory; every invocation
 *     calls it once, first, in uniform control flow (it has a barrier);
 *   void pt_ew_value(int64_t i, out T value): the value the ew program computes for its
 *     element i, in STORE's compute type `ct` (T), before any store converts it; the same
 *     instruction lines as the ew program's, so the same value. A failing integer op
 *     reports element i through pt_fail, as ew does, and gives 0.
 */
export function renderElementwiseValue(words: Int32Array, at: EwLayout): { text: string; ct: number } {
  const { ninputs, nviews, hoisted, loads, body, store, uses } = ew.ewLines(GLSL_EW, words, at.views, "return;");
  const inputs = ew.range(ninputs, 1);
  const T = CTYPE[store.ct];
  const slot = (v: number, k: number) => at.views + k + 11 * v;
  const offsets = ninputs === 0 ? "" : `  pt_i64 ${inputs.map((v) => `q${v} = o${v}`).join(", ")};
  if (pt_ew_lin) {
${inputs.map((v) => `    q${v} += i;`).join("\n")}
  } else {
    const int rank = pt_ew_rank;
    const bool small = pt_ew_small;
${ew.coordinates(inputs, "i", "    ")}
  }
`;
  const text = `${helpers(uses, true)}
/* The expression's layout, inputs and constants, which pt_ew_init reads from the block. */
${ew.sharedArrays(nviews, "GLOBAL")}int pt_ew_rank;
bool pt_ew_lin, pt_ew_small;
${inputs.map((v) => `PT_PTR vb${v};\nint dt${v};\npt_i64 o${v};`).join("\n")}
${hoisted.map((h) => `${h.T} ${h.name};`).join("\n")}
void pt_ew_init() {
  const int rank = int(PT_A(${at.rank}));
${ew.elementCount(at.shape)}
  pt_ew_rank = rank;
  pt_ew_small = n <= pt_i64(2147483647);
${inputs.map((v) => `  vb${v} = PT_BUF(${slot(v, 0)});\n  dt${v} = int(PT_A(${slot(v, 1)}));\n  o${v} = PT_A(${slot(v, 2)});`).join("\n")}
  /* Inputs that are all row-major contiguous need no coordinates: element i is at o + i. */
  pt_ew_lin = ${inputs.map((v) => `pt_ew_linear(PT_PASS ${at.shape}, ${slot(v, 3)}, rank)`).join(" && ") || "true"};
${hoisted.map((h) => `  ${h.name} = ${h.expr};`).join("\n")}
${ew.shareLayout(inputs, at.shape, at.views)}
}
/* The value of element i (row-major over the shape), in STORE's compute type. */
void pt_ew_value(int64_t i, out ${T} value) {
  value = ${T}(0);
${offsets}${ew.place(loads.map((l) => `${l.T} ${l.name} = ${l.expr};`), "  ", "", "i", (v) => `q${v}`)}
${ew.place(body, "  ", "", "i", (v) => `q${v}`)}
  value = ${store.reg.replaceAll("@u", "")};
}
`;
  return { text, ct: store.ct };
}
