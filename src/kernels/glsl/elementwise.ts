/**
 * Elementwise programs: blocks.h's bytecode rendered as one straight-line GLSL body per
 * element, the port of cuda/elementwise.ts. The source is made from the bytecode (the
 * words the CPU backend interprets), so both run the same instruction list with the same
 * types: a register becomes a fresh local per instruction, LOAD/STORE convert through the
 * view's dtype read from the block at run time (one program serves every dtype), and each
 * op has the CPU interpreter's semantics (ew_ops.h): integer wrap, floor division and
 * Python modulo with an error on zero, NaN-propagating max/min, round half to even.
 * Transcendentals come from math.ts (double precision, f32 rounded once from it), float
 * arithmetic from the preamble's precise helpers.
 *
 * For launches with the linear layout (launch.ts: every view contiguous over one dim, view
 * v in buffer v) renderElementwise(words, dtypes) gives a second program of the same
 * bytecode with the views' dtypes fixed: each load and store is the general helper's
 * conversion for that dtype, written out (fromRaw, toRaw), with no coordinates, buffer
 * lookup or dtype switch, and four elements of each view move as one vector when every
 * view's first element is aligned for it. It reads the general program's block.
 *
 * renderElementwiseValue(words, layout) gives the same instruction lines as a function of
 * the element index, for programs that consume the values instead of storing them
 * (ewreduce: reduce.ts), with the views read from that program's block.
 */
import { PREAMBLE } from "./preamble.ts";
import { MATH } from "./math.ts";
import { decodeElementwise, type EwEmitter, F32, F64, I32, I64 } from "../decode.ts";
import { renderLinear } from "./linear.ts";
import { fmodPy, intHelpers, opsEmitter, type OpUses } from "../templates/ops.ts";
import { ewIo } from "../templates/ew_io.ts";

const MAX_ARGS = 240; // PT_VK_MAX_ARGS: the whole block must fit in PtParams.a
export { F32, F64, I32, I64 };
const CTYPE = ["float", "double", "int", "int64_t"];
const SUFFIX = ["f32", "f64", "i32", "i64"];

/** Float modulo, which needs math.ts's exact fmod. */
const FMOD_PY = fmodPy("float", "pt_fmodf", (_, b) => `uintBitsToFloat(floatBitsToUint(${b}) & 0x80000000u)`) +
  fmodPy("double", "pt_fmod", (_, b) => `uint64BitsToDouble(doubleBitsToUint64(${b}) & 0x8000000000000000ul)`);

/** Integer floor division, Python modulo and power. */
const INT_OPS = intHelpers("uint");

/** GLSL's own names for the C library's functions; the rest are math.ts's: pt_exp for f64, pt_expf for f32. */
const BUILTIN: Record<string, string> = { fabs: "abs", floor: "floor", ceil: "ceil", rint: "roundEven", trunc: "trunc" };
const fn = (name: string, t: number) => BUILTIN[name] ?? (t === F32 ? `pt_${name}f` : `pt_${name}`);

export function fail(why: string): never {
  throw new Error(`glsl renderer: ${why}`);
}

/** Elements per invocation per step of the contiguous path: their loads are all issued first. */
export const UNROLL = 4;

/**
 * Where a block keeps what an elementwise program reads: the rank's slot, the shape's first
 * slot, and view 0's first slot (view v's at views + 11 v; the constants follow the last).
 */
export interface EwLayout {
  readonly rank: number;
  readonly shape: number;
  readonly views: number;
}
/** ew [rank, shape x8, nviews, VIEW x nviews (view 0 = output), nconst, const x nconst] */
const EW_BLOCK: EwLayout = { rank: 0, shape: 1, views: 10 };

/** A bytecode's instructions as GLSL lines (parseBytecode), before a program places them. */
interface Parsed {
  readonly ninputs: number;
  readonly nviews: number;
  /** CONST registers, read from the block once per invocation. */
  readonly hoisted: readonly { T: string; name: string; expr: string }[];
  readonly loads: readonly { T: string; name: string; expr: string; ct: number; view: number }[];
  /** The instructions between the loads and STORE. */
  readonly body: readonly string[];
  /** STORE's compute type and register. */
  readonly store: { ct: number; value: string };
  /** Whether an op calls math.ts (most programs need none of its text). */
  readonly math: boolean;
  /** Whether an op calls INT_OPS. */
  readonly ints: boolean;
}

/**
 * The instruction list of a bytecode whose block keeps view 0 at slot `views` (so its
 * constants after view nviews - 1), checked. Lines are written with placeholders that each
 * program replaces where it places them: `@u` (the unit's suffix), `@i` (the element's
 * row-major index) and `@q<v>` (view v's element offset). A failing integer op reports
 * through pt_fail and leaves the function with `return;`.
 */
function parseBytecode(words: Int32Array, views: number): Parsed {
  const uses = { math: false, ints: false };
  const d = decodeElementwise(words, views, emitter(uses));
  return { ...d, store: { ct: d.store.ct, value: d.store.reg }, ...uses };
}

/** GLSL's spelling of the ops (templates/ops.ts); `uses` records whether one calls math.ts or INT_OPS. */
function emitter(uses: OpUses): EwEmitter {
  return opsEmitter({
    renderer: "glsl renderer",
    params: "PtParams",
    maxArgs: MAX_ARGS,
    ctype: CTYPE,
    utype: ["", "", "uint", "uint64_t"],
    lit: (t, v) => `${CTYPE[t]}(${v}${v.includes(".") ? "lf" : ""})`, // an unsuffixed literal is a float
    math: fn,
    isnan: (x) => `isnan(${x})`,
    isinf: (x) => `isinf(${x})`,
    isfinite: (x) => `!(isnan(${x}) || isinf(${x}))`,
    nonzero: (x, t) => `${x} != ${CTYPE[t]}(0)`, // unordered: NaN is nonzero
    iszero: (x, t) => `${x} == ${CTYPE[t]}(0)`,
    load: (ct, v) => `pt_ew_ld_${SUFFIX[ct]}(b${v}, dt${v}, @q${v})`,
    constant(ct, k) {
      const slot = `PT_P.a[${k}]`;
      return ct === F32 ? `float(${slot})` : ct === F64 ? slot : ct === I32 ? `pt_f2i32(${slot})` : `pt_f2i64(${slot})`;
    },
    index: (ct) => ct === I64 ? "@i" : `${CTYPE[ct]}(@i)`,
    onError: "return;",
  }, uses);
}

/** Lines placed for one unit: `@u` -> u, `@i` -> i, `@q<v>` -> q(v). */
const place = (lines: readonly string[], indent: string, u: string, i: string, q: (v: string) => string) =>
  lines.map((l) => indent + l.replaceAll("@u", u).replaceAll("@i", i).replace(/@q(\d+)/g, (_, v) => q(v))).join("\n");

/** View v's buffer address b<v>, dtype dt<v> and offset o<v>, as constants (decl) or assigned to globals. */
const viewSetup = (v: number, at: EwLayout, decl: boolean) =>
  `  ${decl ? "const uint64_t " : ""}b${v} = PT_P.buf[int(PT_P.a[${at.views + 11 * v}])];
  ${decl ? "const int " : ""}dt${v} = int(PT_P.a[${at.views + 1 + 11 * v}]);
  ${decl ? "const int64_t " : ""}o${v} = PT_A(${at.views + 2 + 11 * v});`;

/** Whether every one of the views is row-major contiguous over the shape (rank: a local). */
const allLinear = (views: readonly number[], at: EwLayout) =>
  views.map((v) => `pt_ew_linear(${at.shape}, ${at.views + 3 + 11 * v}, rank)`).join(" && ") || "true";

/** Invocation 0 copies the shape and the views' strides to sh_shape and sh_st (rank: a local); then a barrier. */
const shareLayout = (views: readonly number[], at: EwLayout) =>
  `  if (gl_LocalInvocationID.x == 0u) {
    for (int d = 0; d < PT_MAX_RANK; d++) {
      sh_shape[d] = d < rank ? PT_A(${at.shape} + d) : 1l;
${views.map((v) => `      sh_st[${v * 8} + d] = PT_A(${at.views + 3 + 11 * v} + d);`).join("\n")}
    }
  }
  barrier();`;

/** Adds the coordinates of element i (over sh_shape) times each view's strides to q<v>. */
const coordinates = (views: readonly number[], small: string, rank: string) => {
  const each = (f: (v: number) => string) => views.map(f).join("\n");
  return `    if (${small}) {
      uint r = uint(i);
      for (int d = ${rank} - 1; d >= 0; d--) {
        const uint e = uint(sh_shape[d]), c = r % e;
        r /= e;
${each((v) => `        q${v} += int64_t(c) * sh_st[${v * 8} + d];`)}
      }
    } else {
      int64_t r = i;
      for (int d = ${rank} - 1; d >= 0; d--) {
        const int64_t qd = r / sh_shape[d], c = r - qd * sh_shape[d];
        r = qd;
${each((v) => `        q${v} += c * sh_st[${v * 8} + d];`)}
      }
    }`;
};

/**
 * The main() of an elementwise program, from its bytecode (parseBytecode's lines placed
 * per path).
 */
export function renderElementwise(words: Int32Array, linear?: readonly number[]): string {
  const { nviews, hoisted, loads, body: ops, store, math, ints } = parseBytecode(words, EW_BLOCK.views);
  const body = [...ops, `pt_ew_st_${SUFFIX[store.ct]}(b0, dt0, @q0, ${store.value});`];
  const constants = hoisted.map((h) => `  const ${h.T} ${h.name} = ${h.expr};`);
  const views = Array.from({ length: nviews }, (_, v) => v);
  const each = (f: (v: number) => string, sep = "\n") => views.map(f).join(sep);
  // The contiguous path: UNROLL elements a step, every unit's loads before any unit's stores.
  const units = Array.from({ length: UNROLL }, (_, u) => u);
  const linearLoads = units.map((u) =>
    [
      `      const int64_t i${u} = i + ${u}l * PT_STEP;`,
      ...loads.map((l) => `      ${l.T} ${l.name} = ${l.T}(0);\n      if (i${u} < n) ${l.name} = ${l.expr};`),
    ].join("\n").replaceAll("@u", `_${u}`).replace(/@q(\d+)/g, (_, v) => `o${v} + i${u}`)
  );
  const linearBody = units.map((u) =>
    `      if (i${u} < n) {\n${place(body, "        ", `_${u}`, `i${u}`, (v) => `o${v} + i${u}`)}\n      }`
  );
  const generalLoads = loads.map((l) => `${l.T} ${l.name} = ${l.expr};`);
  if (linear) {
    const head = `${PREAMBLE}${math ? MATH + FMOD_PY : ""}${ints ? INT_OPS : ""}`;
    return head + renderLinear(linear, nviews, constants, loads, ops, store);
  }
  return `${PREAMBLE}${math ? MATH + FMOD_PY : ""}${ewIo(true)}${INT_OPS}
/* ew [rank, shape x8, nviews, VIEW x nviews (view 0 = output), nconst, const x nconst];
 * ELEMENT launch over the output's elements. */
shared int64_t sh_shape[PT_MAX_RANK];
shared int64_t sh_st[${nviews * 8}];
void main() {
  const int rank = int(PT_P.a[${EW_BLOCK.rank}]);
  int64_t n = 1;
  for (int d = 0; d < PT_MAX_RANK; d++) n *= d < rank ? PT_A(${EW_BLOCK.shape} + d) : 1l;
${each((v) => viewSetup(v, EW_BLOCK, true))}
  /* Views that are all row-major contiguous need no coordinates: element i is at o + i. */
  const bool linear = ${allLinear(views, EW_BLOCK)};
${constants.join("\n")}
  if (linear) {
    for (int64_t i = PT_FIRST; i < n; i += ${UNROLL}l * PT_STEP) {
${linearLoads.join("\n")}
${linearBody.join("\n")}
    }
    return;
  }
  /* Strided views: shape and strides are kept in shared memory; under 2^31 elements the
   * coordinates are found in 32 bits. */
${shareLayout(views, EW_BLOCK)}
  const bool small = n <= 2147483647l;
  for (int64_t i = PT_FIRST; i < n; i += PT_STEP) {
    int64_t ${each((v) => `q${v} = o${v}`, ", ")};
${coordinates(views, "small", "rank")}
${place(generalLoads, "    ", "", "i", (v) => `q${v}`)}
${place(body, "    ", "", "i", (v) => `q${v}`)}
  }
}
`;
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
  const { ninputs, nviews, hoisted, loads, body, store, math, ints } = parseBytecode(words, at.views);
  const inputs = Array.from({ length: ninputs }, (_, k) => k + 1);
  const T = CTYPE[store.ct];
  const offsets = ninputs === 0 ? "" : `  int64_t ${inputs.map((v) => `q${v} = o${v}`).join(", ")};
  if (pt_ew_lin) {
${inputs.map((v) => `    q${v} += i;`).join("\n")}
  } else {
${coordinates(inputs, "pt_ew_small", "pt_ew_rank")}
  }
`;
  const text = `${math ? MATH + FMOD_PY : ""}${ewIo(true)}${ints ? INT_OPS : ""}
/* The expression's layout, inputs and constants, which pt_ew_init reads from the block. */
shared int64_t sh_shape[PT_MAX_RANK];
shared int64_t sh_st[${nviews * 8}];
int pt_ew_rank;
bool pt_ew_lin, pt_ew_small;
${inputs.map((v) => `uint64_t b${v};\nint dt${v};\nint64_t o${v};`).join("\n")}
${hoisted.map((h) => `${h.T} ${h.name};`).join("\n")}
void pt_ew_init() {
  const int rank = int(PT_P.a[${at.rank}]);
  int64_t n = 1;
  for (int d = 0; d < PT_MAX_RANK; d++) n *= d < rank ? PT_A(${at.shape} + d) : 1l;
  pt_ew_rank = rank;
  pt_ew_small = n <= 2147483647l;
${inputs.map((v) => viewSetup(v, at, false)).join("\n")}
  /* Inputs that are all row-major contiguous need no coordinates: element i is at o + i. */
  pt_ew_lin = ${allLinear(inputs, at)};
${hoisted.map((h) => `  ${h.name} = ${h.expr};`).join("\n")}
${shareLayout(inputs, at)}
}
/* The value of element i (row-major over the shape), in STORE's compute type. */
void pt_ew_value(int64_t i, out ${T} value) {
  value = ${T}(0);
${offsets}${place(loads.map((l) => `${l.T} ${l.name} = ${l.expr};`), "  ", "", "i", (v) => `q${v}`)}
${place(body, "  ", "", "i", (v) => `q${v}`)}
  value = ${store.value.replaceAll("@u", "")};
}
`;
  return { text, ct: store.ct };
}
