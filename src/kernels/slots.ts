/**
 * The argument block of every kernel kind, declared once (issue #26): each kind's named
 * fields in block order, their slot offsets computed from that order. This table generates
 * native/src/core/slots.h (the C checks and the CPU kernels; tools/gen_slots.ts writes it)
 * and the same #defines in every kernel language's preamble (slotDefines), and it is what
 * ArgBlock.fill writes from, so a layout change is an edit of one row here (then bump
 * PT_BLOCK_ABI in blocks.h). blocks.h says what each field means.
 *
 * A VIEW is 11 slots ([buf index, dtype, offset, stride x 8]); shapes and stride lists are
 * PT_MAX_RANK slots (shapes padded with 1, strides with 0). A kind may hold one run of
 * VIEWs whose number another field gives (ew's views, index_put's IDX views); every field
 * after it sits at a base plus 11 slots per view, which the generated names spell as
 * function-like macros of that count (PT_INDEX_VALS(k)). A run of plain values may only end
 * a block (ew's constants).
 */

export const MAX_RANK = 8;

/** What a field holds and so how many slots it takes. */
export type FieldType =
  | "int" //     one integer slot
  | "real" //    one slot read as a double (philox's a and b)
  | "count" //   one integer slot: the rank of a shape or the number of a run (fill counts it)
  | "shape" //   PT_MAX_RANK slots padded with 1
  | "strides" // PT_MAX_RANK slots padded with 0
  | "view" //    one VIEW
  | "buffer" //  one slot: a buffer index without a view
  | "views" //   a run of VIEWs, as many as the field `of` says
  | "values"; // a run of plain values, as many as the field `of` says (last)

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  /** count: the shape or run it counts; views, values: the count field. */
  readonly of?: string;
  /** How the C checks name the field in an error (tests match it), where they check it alone. */
  readonly label?: string;
}

const f = (type: FieldType) => (name: string, label?: string, of?: string): Field => ({ name, type, label, of });
const int = f("int"), real = f("real"), view = f("view"), strides = f("strides"), shape = f("shape"), buffer = f("buffer");
/** A rank and its shape. */
const ranked = (rank: string, dims: string): Field[] => [{ name: rank, type: "count", of: dims, label: "rank" }, shape(dims)];
const count = (name: string, run: string, label?: string): Field => ({ name, type: "count", of: run, label });
const views = (name: string, countField: string): Field => ({ name, type: "views", of: countField });
const values = (name: string, countField: string): Field => ({ name, type: "values", of: countField });

/** Every kind's fields in block order (index_get shares index_put's block). */
export const LAYOUTS = {
  view: [int("buf"), int("dtype"), int("offset"), strides("strides")],
  ew: [
    ...ranked("rank", "shape"),
    count("nviews", "views", "view"),
    views("views", "nviews"),
    count("nconst", "consts"),
    values("consts", "nconst"),
  ],
  reduce: [
    int("op", "op"),
    int("ddof", "ddof"),
    ...ranked("orank", "oshape"),
    ...ranked("irank", "ishape"),
    view("in"),
    strides("in_inner", "stride"),
    view("out"),
  ],
  scan: [
    int("op", "op"),
    ...ranked("orank", "oshape"),
    int("n", "axis length"),
    view("in"),
    int("in_stride", "axis stride"),
    view("out"),
    int("out_stride", "axis stride"),
  ],
  matmul: [
    ...ranked("brank", "bshape"),
    int("m", "M, N, K"),
    int("n", "M, N, K"),
    int("k", "M, N, K"),
    view("a"),
    int("a_rows", "stride"),
    int("a_cols", "stride"),
    view("b"),
    int("b_rows", "stride"),
    int("b_cols", "stride"),
    view("c"),
    int("c_rows", "stride"),
    int("c_cols", "stride"),
  ],
  sort: [
    int("descending", "descending flag"),
    ...ranked("orank", "oshape"),
    int("n", "axis length"),
    view("in"),
    int("in_stride", "axis stride"),
    view("vals"),
    int("vals_stride", "axis stride"),
    view("idx"),
    int("idx_stride", "axis stride"),
  ],
  gather: [
    ...ranked("rank", "shape"),
    int("axis", "axis"),
    int("size", "axis size"),
    int("mode", "mode"),
    view("in"),
    view("idx"),
    view("out"),
  ],
  scatter: [
    ...ranked("rank", "shape"),
    int("axis", "axis"),
    int("size", "axis size"),
    int("mode", "mode"),
    int("reduce", "reduce"),
    view("out"),
    view("idx"),
    view("src"),
  ],
  index: [
    count("k", "idx", "k"),
    ...ranked("brank", "bshape"),
    ...ranked("rrank", "rshape"),
    int("mode", "mode"),
    int("accumulate", "accumulate"),
    shape("dims"),
    view("out"),
    strides("out_rest"),
    views("idx", "k"),
    view("vals"),
    strides("vals_rest"),
  ],
  nonzero: [...ranked("rank", "shape"), view("in"), buffer("out", "OUT buffer"), int("count", "count")],
  masked_select: [...ranked("rank", "shape"), view("in"), view("mask"), view("out"), int("count", "count")],
  philox: [
    int("dist", "dist"),
    int("seed_lo", "seed lo"),
    int("seed_hi", "seed hi"),
    int("offset", "offset"),
    real("a"),
    real("b"),
    view("out"),
    int("n", "n"),
  ],
  ewreduce: [
    int("op", "op"),
    int("ddof", "ddof"),
    ...ranked("rank", "shape"),
    int("start", "start"),
    int("rows", "rows"),
    int("rowlen", "row length"),
    count("nviews", "views", "view"),
    views("views", "nviews"),
    count("nconst", "consts"),
    values("consts", "nconst"),
  ],
} as const satisfies Record<string, readonly Field[]>;

export type Kind = keyof typeof LAYOUTS;

/** A field's place: `at` plus `per` slots for each item of the run counted by `count` (0: fixed). */
export interface Place {
  readonly at: number;
  readonly per: number;
  readonly count?: string;
  readonly width: number;
}

const WIDTH: Record<FieldType, number> = {
  int: 1,
  real: 1,
  count: 1,
  buffer: 1,
  shape: MAX_RANK,
  strides: MAX_RANK,
  view: 0, // VIEW_SLOTS, set below from the view row
  views: 0,
  values: 0,
};
/** Slots of one VIEW: the view row's widths. */
export const VIEW_SLOTS = WIDTH.view = LAYOUTS.view.reduce((n, x) => n + WIDTH[x.type], 0);

const placed = new Map<Kind, Map<string, Place>>();

/** Every field's place in a kind's block, from the order alone (computed once a kind). */
export function places(kind: Kind): Map<string, Place> {
  const known = placed.get(kind);
  if (known !== undefined) return known;
  const out = new Map<string, Place>();
  placed.set(kind, out);
  let at = 0, per = 0, runCount: string | undefined;
  for (const field of LAYOUTS[kind] as readonly Field[]) {
    if (field.type === "views" || field.type === "values") {
      if (runCount !== undefined && field.type === "views") throw new Error(`${kind}: two runs of views`);
      out.set(field.name, { at, per, count: runCount, width: 0 });
      if (field.type === "views") [per, runCount] = [VIEW_SLOTS, field.of];
      continue;
    }
    out.set(field.name, { at, per, count: runCount, width: WIDTH[field.type] });
    at += WIDTH[field.type];
  }
  return out;
}

/** Slot of `field` in a `kind` block whose run holds `n` items (n only matters after the run). */
export function slotOf(kind: Kind, field: string, n = 0): number {
  const p = places(kind).get(field);
  if (p === undefined) throw new Error(`the ${kind} block has no field ${field}`);
  return p.at + p.per * n;
}

/** The C name of a field: PT_GATHER_AXIS, PT_VIEW_STRIDES. */
export function slotName(kind: Kind, field: string): string {
  return `PT_${kind}_${field}`.toUpperCase();
}

/** The #defines of every slot, the same text for C and for every kernel language's preamble. */
export function slotDefines(): string {
  const lines = [`#define PT_MAX_RANK ${MAX_RANK}`, `#define PT_VIEW_SLOTS ${VIEW_SLOTS}`];
  for (const kind of Object.keys(LAYOUTS) as Kind[]) {
    const fields = LAYOUTS[kind] as readonly Field[];
    lines.push(`/* ${kind}: ${fields.map((x) => x.name + (x.type === "views" || x.type === "values" ? ` x ${x.of}` : "")).join(", ")} */`);
    const ps = places(kind);
    let end: Place = { at: 0, per: 0, width: 0 };
    for (const [name, p] of ps) {
      lines.push(`#define ${slotName(kind, name)}${spell(p, p.at)}`);
      end = p;
    }
    if (kind !== "view") lines.push(`#define ${slotName(kind, "slots")}${spell(end, end.at + end.width)}`);
  }
  return lines.join("\n");
}

function spell(p: Place, at: number): string {
  return p.per === 0 ? ` ${at}` : `(${p.count}) (${at} + ${p.per} * (${p.count}))`;
}

/** native/src/core/slots.h as tools/gen_slots.ts writes it. */
export function slotsHeader(): string {
  return `/* slots.h: the slot of every field of every argument block (blocks.h says what they mean).
 * Generated from src/kernels/slots.ts by \`deno run --allow-write tools/gen_slots.ts\`; do not edit.
 * Fields after a run of VIEWs are macros of the run's count. PT_<KIND>_SLOTS is a block's length
 * without a trailing run of constants (ew, ewreduce). */
#ifndef PT_SLOTS_H
#define PT_SLOTS_H
${slotDefines()}
#endif
`;
}
