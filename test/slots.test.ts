/**
 * slots.ts, the one table of argument-block layouts: the C header it generates is the one
 * checked in, every kernel language's preamble carries its names, and a block that
 * ArgBlock.fill builds from the table for each kind passes pt's own checks (blocks.c on a
 * GPU, the CPU kernels' parse on the CPU), while one with a field out of range is refused,
 * the error naming that field. So a layout edited in the table alone stays consistent.
 */
import { readFileSync } from "node:fs";
import * as pt from "../mod.ts";
import { check, native } from "../src/runtime/native.ts";
import { ArgBlock, type FieldValue } from "../src/kernels/block.ts";
import { type Field, type Kind, LAYOUTS, slotDefines, slotOf, slotsHeader } from "../src/kernels/slots.ts";
import { elementwiseProgramFor, rendererFor } from "../src/kernels/launch.ts";
import type { Expr } from "../src/kernels/ir.ts";
import { cudaRenderer } from "../src/kernels/cuda.ts";
import { glslRenderer } from "../src/kernels/glsl.ts";
import { hipRenderer } from "../src/kernels/hip.ts";
import { mslRenderer } from "../src/kernels/msl.ts";
import { assert, test } from "./harness.ts";

const RENDERERS = { cuda: cudaRenderer, hip: hipRenderer, glsl: glslRenderer, msl: mslRenderer };

const header = new URL("../native/src/core/slots.h", import.meta.url).pathname;

test("native/src/core/slots.h is what slots.ts generates", () => {
  const want = slotsHeader(), got = readFileSync(header, "utf8");
  assert.ok(got === want, "native/src/core/slots.h differs from src/kernels/slots.ts: run `deno run --allow-write tools/gen_slots.ts`");
});

test("slot offsets follow the table's order: a VIEW is 11 slots, fields after a run of views move with its count", () => {
  assert.equal(slotOf("view", "strides"), 3);
  assert.equal(slotOf("gather", "axis"), 9);
  assert.equal(slotOf("gather", "out"), 34);
  assert.equal(slotOf("index", "idx"), 48);
  assert.equal(slotOf("index", "vals", 2), 48 + 2 * 11);
  assert.equal(slotOf("ew", "nconst", 3), 10 + 3 * 11);
  assert.match(slotDefines(), /^#define PT_GATHER_AXIS 9$/m);
  assert.match(slotDefines(), /^#define PT_INDEX_VALS\(k\) \(48 \+ 11 \* \(k\)\)$/m);
  assert.match(slotDefines(), /^#define PT_SORT_DESCENDING 0$/m);
});

test("every language's programs carry the table's defines", () => {
  for (const [language, r] of Object.entries(RENDERERS)) {
    const text = new TextDecoder().decode(r.template("gather").source);
    assert.ok(text.includes(slotDefines()), `${language}: the gather program lacks slotDefines()`);
  }
});

const dev = pt.defaultDevice();
const f32 = (shape: number[], fill = 1) => pt.full(shape, fill, { dtype: "float32" });
const i64 = (shape: number[]) => pt.zeros(shape, { dtype: "int64" });

/** A valid block for each kind, by field name, and the tensors it names (kept alive for the launches). */
function cases(): { kind: Kind; program: string; runs: number; values: Record<string, FieldValue>; keep: pt.Tensor[] }[] {
  const a = f32([2, 3]), b = f32([2, 3]), c = f32([3, 2]), m = f32([2, 2]), o = f32([2]), ix = i64([2, 3]);
  const v4 = pt.tensor([1, 0, 2, 0], { dtype: "float32" }), mask = pt.tensor([true, false, true, false]);
  const i2 = i64([2]), v2 = f32([2]), nz = i64([2, 1]), idx = i64([2, 3]), m2 = f32([2]), p4 = f32([4]);
  const keep = [a, b, c, m, o, ix, v4, mask, i2, v2, nz, idx, m2, p4];
  const index = (accumulate: number) => ({
    k: 1,
    bshape: [2],
    rshape: [],
    mode: 0,
    accumulate,
    dims: [4],
    out: [v4, [1]],
    out_rest: [],
    idx: [[i2, [1]]],
    vals: [v2, [1]],
    vals_rest: [],
  } as Record<string, FieldValue>);
  return [
    {
      kind: "reduce",
      program: "reduce",
      runs: 0,
      keep,
      values: { op: 0, ddof: 0, oshape: [2], ishape: [3], in: [a, [3]], in_inner: [1], out: [o, [1]] },
    },
    {
      kind: "scan",
      program: "scan",
      runs: 0,
      keep,
      values: { op: 0, oshape: [2], n: 3, in: [a, [3]], in_stride: 1, out: [b, [3]], out_stride: 1 },
    },
    {
      kind: "matmul",
      program: "matmul",
      runs: 0,
      keep,
      values: {
        bshape: [],
        m: 2,
        n: 2,
        k: 3,
        a: [a, []],
        a_rows: 3,
        a_cols: 1,
        b: [c, []],
        b_rows: 2,
        b_cols: 1,
        c: [m, []],
        c_rows: 2,
        c_cols: 1,
        tf32: 0,
      },
    },
    {
      kind: "sort",
      program: "sort",
      runs: 0,
      keep,
      values: {
        descending: 0,
        oshape: [2],
        n: 3,
        in: [a, [3]],
        in_stride: 1,
        vals: [b, [3]],
        vals_stride: 1,
        idx: [idx, [3]],
        idx_stride: 1,
      },
    },
    { kind: "gather", program: "gather", runs: 0, keep, values: { shape: [2, 3], axis: 1, size: 3, mode: 0, in: a, idx: ix, out: b } },
    {
      kind: "scatter",
      program: "scatter",
      runs: 0,
      keep,
      values: { shape: [2, 3], axis: 1, size: 3, mode: 0, reduce: 0, out: b, idx: ix, src: a },
    },
    { kind: "index", program: "index_put", runs: 1, keep, values: index(1) },
    { kind: "index", program: "index_get", runs: 1, keep, values: index(0) },
    { kind: "nonzero", program: "nonzero", runs: 0, keep, values: { shape: [4], in: v4, out: nz.buf, count: 2 } },
    {
      kind: "masked_select",
      program: "masked_select",
      runs: 0,
      keep,
      values: { shape: [4], in: [v4, [1]], mask: [mask, [1]], out: [m2, [1]], count: 2 },
    },
    {
      kind: "philox",
      program: "philox",
      runs: 0,
      keep,
      values: { dist: 0, seed_lo: 1, seed_hi: 0, offset: 0, a: 0, b: 1, out: [p4, [1]], n: 4 },
    },
  ];
}

/** ew and ewreduce programs of out = in + 1 (consts[0] = 1). */
const plus1: Expr = {
  k: "binary",
  op: "add",
  a: { k: "load", input: 0, dtype: "float32" },
  b: { k: "const", index: 0, dtype: "float32" },
  dtype: "float32",
};

function launch(program: number, kind: Kind, values: Record<string, FieldValue>, change?: { slot: number; value: number }): void {
  const blk = new ArgBlock().fill(kind, values);
  if (change) blk.at(change.slot).put(change.value);
  const args = blk.finish();
  check(native.pt_launch(dev.queue, program, args, args.length), "launch");
  check(native.pt_device_sync(dev.handle), "sync");
}

/** How pt's checks name the fields they check one by one (both blocks.c's and the CPU kernels' wording holds these). */
const LABELS: Partial<Record<Kind, Record<string, string>>> = {
  ew: { rank: "rank", nviews: "view" },
  reduce: { op: "op", ddof: "ddof", orank: "rank", irank: "rank", in_inner: "stride" },
  scan: { op: "op", orank: "rank", n: "axis length", in_stride: "axis stride", out_stride: "axis stride" },
  matmul: {
    brank: "rank",
    m: "M, N, K",
    n: "M, N, K",
    k: "M, N, K",
    a_rows: "stride",
    a_cols: "stride",
    b_rows: "stride",
    b_cols: "stride",
    c_rows: "stride",
    c_cols: "stride",
    tf32: "tf32 flag",
  },
  sort: {
    descending: "descending flag",
    orank: "rank",
    n: "axis length",
    in_stride: "axis stride",
    vals_stride: "axis stride",
    idx_stride: "axis stride",
  },
  gather: { rank: "rank", axis: "axis", size: "axis size", mode: "mode" },
  scatter: { rank: "rank", axis: "axis", size: "axis size", mode: "mode", reduce: "reduce" },
  index: { k: "k", brank: "rank", rrank: "rank", mode: "mode", accumulate: "accumulate" },
  nonzero: { rank: "rank", out: "OUT buffer", count: "count" },
  masked_select: { rank: "rank", count: "count" },
  philox: { dist: "dist", seed_lo: "seed lo", seed_hi: "seed hi", offset: "offset", n: "n" },
  ewreduce: { op: "op", ddof: "ddof", rank: "rank", start: "start", rows: "rows", rowlen: "row length", nviews: "view" },
};

/** Every labelled field set to 0.5 (no such field takes it), and every VIEW's buffer index set past the buffers. */
function changes(kind: Kind, runs: number): { field: Field; slot: number; value: number; want: string }[] {
  const out = [];
  for (const field of LAYOUTS[kind]) {
    const slot = slotOf(kind, field.name, runs), label = LABELS[kind]?.[field.name];
    if (label !== undefined) out.push({ field, slot, value: 0.5, want: label });
    if (field.type === "view" || field.type === "views") {
      out.push({ field, slot: slot + slotOf("view", "buf"), value: 99, want: "buffer index" });
    }
  }
  return out;
}

function programs() {
  const all = cases().map((c) => ({ ...c, id: dev.programFor(`t:${c.program}`, 0, () => rendererFor(dev).template(c.program)) }));
  const x = f32([4]), y = f32([4]), r = f32([1]);
  all.push({
    kind: "ew",
    program: "ew",
    runs: 2,
    keep: [x, y],
    values: { shape: [4], views: [y, x], consts: [1] },
    id: elementwiseProgramFor(dev, plus1, 1),
  });
  const renderer = rendererFor(dev);
  if (renderer.elementwiseReduce) {
    const id = dev.programFor("test:slots:ewreduce", 2, () => renderer.elementwiseReduce!(plus1, 1, 0));
    all.push({
      kind: "ewreduce",
      program: "ewreduce",
      runs: 2,
      keep: [x, r],
      values: { op: 0, ddof: 0, shape: [4], start: 0, rows: 1, rowlen: 4, views: [[r, [0]], x], consts: [1] },
      id,
    });
  }
  return all;
}

test("a block the table builds passes pt's checks for every kind; a field out of range is refused by its name", () => {
  const all = programs();
  try {
    let refused = 0;
    for (const c of all) {
      launch(c.id, c.kind, c.values);
      for (const ch of changes(c.kind, c.runs)) {
        let message = "";
        try {
          launch(c.id, c.kind, c.values, ch);
        } catch (e) {
          message = (e as Error).message;
        }
        assert.ok(
          message.includes(ch.want),
          `${c.program}: ${ch.field.name} = ${ch.value} at slot ${ch.slot} gave "${message}", not naming "${ch.want}"`,
        );
        refused++;
      }
    }
    assert.ok(refused > 60, `${refused} refusals`);
  } finally {
    for (const t of new Set(all.flatMap((c) => c.keep))) t.dispose();
  }
});

test("fill refuses a name the table lacks and a field left out", () => {
  const blk = new ArgBlock();
  try {
    assert.throws(() => blk.fill("philox", { dist: 0 }), /needs its field seed_lo/);
  } finally {
    blk.abandon();
  }
  const other = new ArgBlock();
  try {
    assert.throws(() => other.fill("philox", { distribution: 0 }), /no field distribution/);
  } finally {
    other.abandon();
  }
});
