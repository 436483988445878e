/**
 * The elementwise program written once: blocks.h's bytecode (decoded and checked by
 * decode.ts, each op spelled by templates/ops.ts) as one straight-line body per element,
 * over the dialect. It runs the instruction list the CPU interprets, with the same types: a
 * register becomes a fresh local per instruction, LOAD/STORE convert through the view's
 * dtype, read from the block at run time (templates/ew_io.ts), so one program serves every
 * dtype, and each op has the CPU interpreter's semantics (ew_ops.h).
 *
 * A language gives an EwPlan: its ops' spelling (an emitter), the text before the program
 * (preamble and helpers), a zero of each compute type (Metal's f64 register is a struct),
 * and, where it has one, the linear-layout program's vectors (templates/ew_linear.ts).
 * The pieces below (view setup, the shared layout, coordinates, placing lines) also serve
 * each language's ewreduce program, which computes the same values where a reduction
 * reads them.
 */
import type { Dialect } from "../dialect.ts";
import { type DecodedEw, decodeElementwise, type EwEmitter } from "../decode.ts";
import type { OpUses } from "./ops.ts";
import type { LinearPlan } from "./ew_linear.ts";
import { slotsOf, VIEW_SLOTS } from "../slots.ts";

/** The slots of ew's and ewreduce's blocks, and of a VIEW's fields (the table in slots.ts). */
export const EW = slotsOf("ew"), EWREDUCE = slotsOf("ewreduce"), VIEW = slotsOf("view");

/** Every params.h's PT_*_MAX_ARGS: the whole block must fit in the launch record's slots. */
export const MAX_ARGS = 240;
/** Elements per invocation per step of the contiguous paths: their loads are all issued first. */
export const UNROLL = 4;
/** Compute types' names in the load and store helpers: pt_ew_ld_<s>, pt_ew_st_<s>. */
export const SUFFIX = ["f32", "f64", "i32", "i64"];
/** Register types by compute type, given the language's f64 register type; the unsigned types integers wrap through. */
export const ctypes = (f64: string): readonly string[] => ["float", f64, "int", "pt_i64"];
export const UTYPE = ["", "", "pt_u32", "pt_u64"];

/** What every language's OpSpelling says alike: the block's limit, the register types, LOAD through the general helpers. */
export const commonSpelling = (renderer: string, params: string, f64: string) => ({
  renderer,
  params,
  maxArgs: MAX_ARGS,
  ctype: ctypes(f64),
  utype: UTYPE,
  load: (ct: number, v: number) => `pt_ew_ld_${SUFFIX[ct]}(vb${v}, dt${v}, @q${v})`,
});

/** What one language gives the elementwise programs. */
export interface EwPlan {
  readonly dialect: Dialect;
  /** The ops' spelling; a failing integer op reports, then runs `onError`; `uses` records the helpers called. */
  emitter(onError: string, uses: OpUses): EwEmitter;
  /** The text before a program that reads `slots` block slots: the preamble, and the helpers (`io`: the loads and stores). */
  head(slots: number, uses: OpUses, io: boolean): string;
  /** A zero of each compute type, for a unit past the end. */
  readonly zero: readonly string[];
  /** The linear-layout program's vectors; absent where the language runs the general program for every layout. */
  readonly linear?: LinearPlan;
}

/** A decoded bytecode and the helpers its ops call. */
export interface EwLines extends DecodedEw {
  readonly uses: OpUses;
  /** Error messages start with it. */
  readonly renderer: string;
}

/** The bytecode of a block whose view 0 starts at slot `firstView`, in the plan's spelling. */
export function ewLines(plan: EwPlan, words: Int32Array, firstView: number, onError: string): EwLines {
  const uses = { math: false, ints: false }, e = plan.emitter(onError, uses);
  return { ...decodeElementwise(words, firstView, e), uses, renderer: e.renderer };
}

/** Lines with the decoder's placeholders placed: `@u` -> u (the unit), `@i` -> i (the index), `@q<v>` -> q(v) (view v's offset). */
export function place(lines: readonly string[], indent: string, u: string, i: string, q: (v: string) => string): string {
  return lines.map((l) => indent + l.replaceAll("@u", u).replaceAll("@i", i).replace(/@q(\d+)/g, (_, v) => q(v))).join("\n");
}

/** 0, 1, ... n - 1. */
export const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, k) => k + from);

/**
 * View v's buffer vb<v>, dtype dt<v> and element offset o<v> as locals (view v's VIEW at slot
 * first + 11v), and `linear`: whether every one is row-major contiguous over the shape at
 * slot `shape` (element i of view v is then at o<v> + i).
 */
export function viewLocals(views: readonly number[], shape: number, first: number): string {
  const at = (v: number, k: number) => first + k + VIEW_SLOTS * v;
  return `${
    views.map((v) =>
      `  PT_PTR vb${v} = PT_BUF(${at(v, VIEW.buf)});
  const int dt${v} = int(PT_A(${at(v, VIEW.dtype)}));
  const pt_i64 o${v} = PT_A(${at(v, VIEW.offset)});`
    ).join("\n")
  }
  /* Views that are all row-major contiguous need no coordinates: element i is at o + i. */
  const bool linear = ${views.map((v) => `pt_ew_linear(PT_PASS ${shape}, ${at(v, VIEW.strides)}, rank)`).join(" && ") || "true"};`;
}

/** The group-shared shape and strides (sh_st[8v + d]: view v's) for `nviews` views, at `scope` ("GLOBAL" or "LOCAL"). */
export const sharedArrays = (nviews: number, scope: "GLOBAL" | "LOCAL") =>
  `PT_SHARED_${scope}_N(pt_i64, sh_shape, PT_MAX_RANK)\nPT_SHARED_${scope}_N(pt_i64, sh_st, ${nviews * 8})\n`;

/**
 * Invocation 0 copies the shape (at slot `shape`) and each view's strides (view v's VIEW at
 * slot first + 11v) into shared memory, which keeps registers free for the expression; then
 * the group's barrier.
 */
export function shareLayout(views: readonly number[], shape: number, first: number): string {
  return `  if (PT_TID == 0) {
    PT_UNROLL
    for (int d = 0; d < PT_MAX_RANK; d++) {
      sh_shape[d] = d < rank ? PT_A(${shape} + d) : pt_i64(1);
${views.map((v) => `      sh_st[${8 * v} + d] = PT_A(${first + VIEW.strides + VIEW_SLOTS * v} + d);`).join("\n")}
    }
  }
  PT_SYNC();`;
}

/** Adds element i's row-major coordinates (over sh_shape) times each view's strides to q<v>; in 32 bits when `small`. */
export function coordinates(views: readonly number[], i: string, indent: string): string {
  const each = (f: (v: number) => string) => views.map(f).join("\n");
  return `if (small) {
  pt_u32 r = pt_u32(${i});
  for (int d = rank - 1; d >= 0; d--) {
    const pt_u32 e = pt_u32(sh_shape[d]), c = r % e;
    r /= e;
${each((v) => `    q${v} += pt_i64(c) * sh_st[${8 * v} + d];`)}
  }
} else {
  pt_i64 r = ${i};
  for (int d = rank - 1; d >= 0; d--) {
    const pt_i64 qd = r / sh_shape[d], c = r - qd * sh_shape[d];
    r = qd;
${each((v) => `    q${v} += c * sh_st[${8 * v} + d];`)}
  }
}`.split("\n").map((l) => indent + l).join("\n");
}

/** The element count of the shape at slot `shape` (rank: a local), as n. */
export const elementCount = (shape: number, n = "n") =>
  `  pt_i64 ${n} = 1;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) ${n} *= d < rank ? PT_A(${shape} + d) : pt_i64(1);`;

/** The entry point of an elementwise program, from its bytecode. */
export function elementwise(plan: EwPlan, words: Int32Array): string {
  const { nviews, hoisted, loads, slots, store, body: ops, uses } = ewLines(plan, words, EW.views, "return;");
  const body = [...ops, `pt_ew_st_${SUFFIX[store.ct]}(vb0, dt0, @q0, ${store.reg});`];
  const views = range(nviews);
  const each = (f: (v: number) => string, sep = "\n") => views.map(f).join(sep);
  // The contiguous path: UNROLL elements a step, every unit's loads before any unit's stores
  // (the CPU also loads a whole block before storing it).
  const units = range(UNROLL);
  const linearLoads = units.map((u) =>
    [
      `      const pt_i64 i${u} = i + pt_i64(${u}) * PT_STEP;`,
      ...loads.map((l) => `      ${l.T} ${l.name} = ${plan.zero[l.ct]};\n      if (i${u} < n) ${l.name} = ${l.expr};`),
    ].join("\n").replaceAll("@u", `_${u}`).replace(/@q(\d+)/g, (_, v) => `o${v} + i${u}`)
  );
  const linearBody = units.map((u) =>
    `      if (i${u} < n) {\n${place(body, "        ", `_${u}`, `i${u}`, (v) => `o${v} + i${u}`)}\n      }`
  );
  const generalLoads = loads.map((l) => `${l.T} ${l.name} = ${l.expr};`);
  return `${plan.head(slots, uses, true)}
/* ew [rank, shape x8, nviews, VIEW x nviews (view 0 = output), nconst, const x nconst];
 * ELEMENT launch over the output's elements. */
${sharedArrays(nviews, "GLOBAL")}${plan.dialect.kernel}
${sharedArrays(nviews, "LOCAL")}  const int rank = int(PT_A(PT_EW_RANK));
${elementCount(EW.shape)}
${viewLocals(views, EW.shape, EW.views)}
${hoisted.map((h) => `  const ${h.T} ${h.name} = ${h.expr};`).join("\n")}
  if (linear) {
    for (pt_i64 i = PT_FIRST; i < n; i += pt_i64(${UNROLL}) * PT_STEP) {
${linearLoads.join("\n")}
${linearBody.join("\n")}
    }
    return;
  }
  /* Strided views: shape and strides are kept in shared memory (registers stay free for
   * the expression); under 2^31 elements the coordinates are found in 32 bits. */
${shareLayout(views, EW.shape, EW.views)}
  const bool small = n <= pt_i64(2147483647);
  for (pt_i64 i = PT_FIRST; i < n; i += PT_STEP) {
    pt_i64 ${each((v) => `q${v} = o${v}`, ", ")};
${coordinates(views, "i", "    ")}
${place(generalLoads, "    ", "", "i", (v) => `q${v}`)}
${place(body, "    ", "", "i", (v) => `q${v}`)}
  }
}
`;
}
