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
/** Reduce rows of at most this many positions are folded by one thread each (blocks.h's ROW work for them is rows / 256). */
export const SHORT_ROW = 32;

/** What a field holds and so how many slots it takes. */
export type FieldType =
  | "int" //     one integer slot
  | "real" //    one slot read as a double (philox's a and b)
  | "count" //   one integer slot: the rank of a shape or the number of a run (fill counts it)
  | "shape" //   PT_MAX_RANK slots padded with 1
  | "strides" // PT_MAX_RANK slots padded with 0
  | "view" //    one VIEW
  | "buffer" //  one slot: a buffer index without a view
  | "views" //   a run of VIEWs, as many as the count field `of` says
  | "values"; // a run of plain values, as many as the count field `of` says (last)

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  /** count: the shape or run it counts; views, values: their count field. */
  readonly of?: string;
}

/**
 * Every kind's fields in block order, one `name:type` a field (a bare name is an int;
 * `count(x)`, `views(n)`, `values(n)` name the field they count or are counted by).
 * index_get shares index_put's block ("index"); a VIEW itself is the "view" row.
 */
const TABLE = {
  view: "buf dtype offset strides:strides",
  ew: "rank:count(shape) shape:shape nviews:count(views) views:views(nviews) nconst:count(consts) consts:values(nconst)",
  reduce: "op ddof orank:count(oshape) oshape:shape irank:count(ishape) ishape:shape in:view in_inner:strides out:view",
  scan: "op orank:count(oshape) oshape:shape n in:view in_stride out:view out_stride",
  matmul: "brank:count(bshape) bshape:shape m n k a:view a_rows a_cols b:view b_rows b_cols c:view c_rows c_cols tf32",
  sort: "descending orank:count(oshape) oshape:shape n in:view in_stride vals:view vals_stride idx:view idx_stride",
  gather: "rank:count(shape) shape:shape axis size mode in:view idx:view out:view",
  scatter: "rank:count(shape) shape:shape axis size mode reduce out:view idx:view src:view",
  index: "k:count(idx) brank:count(bshape) bshape:shape rrank:count(rshape) rshape:shape mode accumulate dims:shape " +
    "out:view out_rest:strides idx:views(k) vals:view vals_rest:strides",
  nonzero: "rank:count(shape) shape:shape in:view out:buffer count",
  masked_select: "rank:count(shape) shape:shape in:view mask:view out:view count",
  philox: "dist seed_lo seed_hi offset a:real b:real out:view n",
  ewreduce: "op ddof rank:count(shape) shape:shape start rows rowlen nviews:count(views) views:views(nviews) nconst:count(consts) " +
    "consts:values(nconst)",
  attention: "brank:count(bshape) bshape:shape l s e ev scale_bits causal masked q:view q_rows q_cols k:view k_rows k_cols " +
    "v:view v_rows v_cols mask:view mask_rows mask_cols out:view out_rows out_cols",
  im2col: "n c h w kh kw sh sw ph pw dh dw oh ow in:view out:view",
  rownorm: "op orank:count(oshape) oshape:shape n eps_bits affine in:view in_stride w:view w_stride b:view b_stride out:view out_stride",
} as const;

function parse(row: string): Field[] {
  return row.split(" ").map((spec) => {
    const [name, type = "int"] = spec.split(":"), m = /^(\w+)\((\w+)\)$/.exec(type);
    return { name, type: (m ? m[1] : type) as FieldType, ...(m && { of: m[2] }) };
  });
}

export type Kind = keyof typeof TABLE;

/** The table parsed: each kind's fields in block order. */
export const LAYOUTS = {} as Record<Kind, readonly Field[]>;
for (const kind of Object.keys(TABLE) as Kind[]) LAYOUTS[kind] = parse(TABLE[kind]);

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
  for (const field of LAYOUTS[kind]) {
    if (WIDTH[field.type] === undefined) throw new Error(`slots.ts: ${kind}.${field.name} has no type ${field.type}`);
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

/** Every field's slot in a `kind` block by name (fields after a run: with an empty run; add VIEW_SLOTS a view). */
export function slotsOf(kind: Kind): Readonly<Record<string, number>> {
  return Object.fromEntries([...places(kind)].map(([name, p]) => [name, p.at]));
}

/** The C name of a field: PT_GATHER_AXIS, PT_VIEW_STRIDES. */
export function slotName(kind: Kind, field: string): string {
  return `PT_${kind}_${field}`.toUpperCase();
}

/** The #defines of every slot, the same text for C and for every kernel language's preamble. */
export function slotDefines(): string {
  const lines = [`#define PT_MAX_RANK ${MAX_RANK}`, `#define PT_VIEW_SLOTS ${VIEW_SLOTS}`, `#define PT_SHORT_ROW ${SHORT_ROW}`];
  for (const kind of Object.keys(LAYOUTS) as Kind[]) {
    const fields = LAYOUTS[kind];
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
