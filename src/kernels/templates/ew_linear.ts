/**
 * The linear-layout elementwise program written once: launch.ts picks it when every view is
 * contiguous over one dim and view v is in buffer v. The views' dtypes are fixed when the
 * program is made, so each load and store is the general helper's conversion for that
 * dtype written out (ew_io.ts's fromRaw and toRaw, which the helpers switch over, so the
 * values are the same), with no coordinates, buffer lookup or dtype
 * switch; four elements of each view move as one vector when every view's first element is
 * aligned for it. It reads the general program's block. A language's LinearPlan says how it
 * names a view's first element and moves a vector of four.
 */
import { DTYPE_IO, fromRaw, toRaw } from "./ew_io.ts";
import { encodeBytecode, type Expr } from "../ir.ts";
import { elementwise, EW, ewLines, type EwPlan, range, UNROLL, VIEW } from "./elementwise.ts";
import { VIEW_SLOTS } from "../slots.ts";

/** How a language reaches a view's elements in the linear program. */
export interface LinearPlan {
  /** Whether a launch whose grid covers n takes one element per invocation first, with no vectors or unrolling. */
  readonly shortPath: boolean;
  /** The declaration of a<v>, view v's first element (buffer v, element offset at slot `offset`), of `size` bytes. */
  first(v: number, offset: number, size: number): string;
  /** a<v> as an unsigned 64-bit integer, for the alignment test. */
  address(v: number): string;
  /** The address `bytes` * j bytes past a<v>. */
  at(v: number, j: string, bytes: number): string;
  /** The definitions of vector kind k's type (file scope), and the local type a vector of kind k is read into. */
  vectorType(kind: string): string;
  local(kind: string): string;
  /** A vector of kind k read from address `at`, into its local type; `V` written there. */
  load(kind: string, at: string): string;
  store(kind: string, at: string, V: string): string;
  /** Lane u of vector V. */
  lane(V: string, u: number): string;
}

/**
 * The linear-layout program of a bytecode: every view is contiguous over one dim (rank <= 1
 * after collapsing, unit strides), view v is buffer v, and `dtypes` are the views' dtype
 * codes (output first). Only n (slot 1) and the views' offsets are read from the block.
 * When every view's first element is aligned for it, four consecutive elements of each view
 * move as one vector; the rest go one by one, UNROLL a step as in the general program's
 * contiguous path.
 */
export function elementwiseLinear(plan: EwPlan, words: Int32Array, dtypes: readonly number[]): string {
  const lin = plan.linear!;
  const { nviews, hoisted, loads, slots, store, body, uses, renderer } = ewLines(plan, words, EW.views, "return;");
  if (dtypes.length !== nviews || dtypes.some((c) => !(Number.isInteger(c) && c >= 0 && c < DTYPE_IO.length))) {
    throw new Error(`${renderer}: bad linear layout [${dtypes}] for ${nviews} views`);
  }
  const io = dtypes.map((c) => DTYPE_IO[c]);
  const used = [0, ...new Set(loads.map((l) => l.view))].sort((a, b) => a - b); // the views the program touches
  const put = (unit: string, i: string) => (l: string) => l.replaceAll("@u", unit).replaceAll("@i", i);
  const raw = (v: number, i: string) => `pt_raw_${io[v].t}(a${v}, ${i})`;
  const stored = toRaw(store.reg, store.ct, dtypes[0]);
  // Vector path: unit u is lane u of every view's vector.
  const vecUnits = range(UNROLL).map((u) =>
    [
      ...loads.map((l) => `${l.T} ${l.name} = ${fromRaw(lin.lane(`V${l.view}`, u), l.ct, dtypes[l.view])};`),
      ...body,
      `${lin.lane("V0", u)} = ${stored};`,
    ].map(put(`_${u}`, `(pt_i64(4) * j + pt_i64(${u}))`)).map((l) => `    ${l}`).join("\n")
  );
  const vecAt = (v: number) => lin.at(v, "j", 4 * io[v].size);
  const vecLoads = used.slice(1).map((v) => `    const ${lin.local(io[v].t)} V${v} = ${lin.load(io[v].t, vecAt(v))};`);
  // Scalar path: UNROLL elements a step, every unit's loads before any unit's stores.
  const scalarLoads = range(UNROLL).map((u) =>
    [
      `    const pt_i64 i${u} = i + pt_i64(${u}) * PT_STEP;`,
      ...loads.map((l) =>
        `    ${l.T} ${l.name} = ${plan.zero[l.ct]};\n    if (i${u} < n) ${l.name} = ${fromRaw(raw(l.view, `i${u}`), l.ct, dtypes[l.view])};`
      ),
    ].map(put(`_${u}`, `i${u}`)).join("\n")
  );
  const scalarBody = range(UNROLL).map((u) =>
    `    if (i${u} < n) {\n${
      [...body, `pt_put_${io[0].t}(a0, i${u}, ${stored});`].map(put(`_${u}`, `i${u}`)).map((l) => `      ${l}`).join("\n")
    }\n    }`
  );
  // A grid that covers n: one element per invocation, its loads and store as the scalar path's.
  const short = `
  if (n <= PT_STEP) {
    const pt_i64 i = PT_FIRST;
    if (i < n) {
${
    [
      ...loads.map((l) => `${l.T} ${l.name} = ${fromRaw(raw(l.view, "i"), l.ct, dtypes[l.view])};`),
      ...body,
      `pt_put_${io[0].t}(a0, i, ${stored});`,
    ]
      .map(put("", "i")).map((l) => `      ${l}`).join("\n")
  }
    }
    return;
  }`;
  const kinds = [...new Set(used.map((v) => io[v].t))];
  return `${plan.head(slots, uses, false)}${kinds.map((k) => lin.vectorType(k)).join("\n")}
/* ew, linear layout: every view is contiguous over one dim and view v is buffer v, with the
 * dtypes [${dtypes.join(", ")}] fixed when the program was made, so elements are reached with no
 * coordinates, buffer lookup or dtype switch. The block is ew's: [rank, shape x8, nviews,
 * VIEW x nviews (view 0 = output), nconst, const x nconst]; n is shape[0] (1 for a 0-d
 * tensor). ELEMENT launch over the output's elements. */
${plan.dialect.kernel}
  const pt_i64 n = PT_A(PT_EW_SHAPE);
${used.map((v) => `  ${lin.first(v, EW.views + VIEW.offset + VIEW_SLOTS * v, io[v].size)} /* view ${v}'s first element */`).join("\n")}
${hoisted.map((h) => `  const ${h.T} ${h.name} = ${h.expr};`).join("\n")}${lin.shortPath ? short : ""}
  /* Four elements a step as one vector of each view, when every view's first element is
   * aligned for its vector. */
  const bool aligned = ${used.map((v) => `(${lin.address(v)} & pt_u64(${4 * io[v].size - 1})) == pt_u64(0)`).join(" && ")};
  const pt_i64 nv = aligned ? n / pt_i64(4) : pt_i64(0);
  for (pt_i64 j = PT_FIRST; j < nv; j += PT_STEP) {
${vecLoads.join("\n")}
    ${lin.local(io[0].t)} V0;
${vecUnits.join("\n")}
    ${lin.store(io[0].t, vecAt(0), "V0")}
  }
  /* The elements after the last whole vector (all of them when a view is unaligned). */
  for (pt_i64 i = nv * pt_i64(4) + PT_FIRST; i < n; i += pt_i64(${UNROLL}) * PT_STEP) {
${scalarLoads.join("\n")}
${scalarBody.join("\n")}
  }
}
`;
}

/** A language's general ew program of an expression (for tests and tools). */
export const ewSourceOf = (plan: EwPlan) => (expr: Expr, ninputs: number): string => elementwise(plan, encodeBytecode(expr, ninputs));

/** A renderer's ew programs: the linear-layout one for the views' dtypes where given (and the plan has vectors), else the general one. */
export const ewPrograms = (plan: EwPlan) => (words: Int32Array, dtypes?: readonly number[]): string =>
  dtypes && plan.linear ? elementwiseLinear(plan, words, dtypes) : elementwise(plan, words);
