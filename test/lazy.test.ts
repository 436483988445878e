/**
 * Lazy fused expressions (docs/architecture.md, Lazy fusion): deferred results equal eager ones bit for
 * bit, aliases share one materialization, inputs may go before the fused kernel runs, and
 * deferral can be turned off. Runs on the default device (PT_DEVICE); random programs are
 * also checked against a JS evaluation of the same ops.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pt from "../mod.ts";
import { check, native } from "../src/runtime/native.ts";
import { ArgBlock } from "../src/kernels/block.ts";
import { encodeBytecode, type Expr } from "../src/kernels/ir.ts";
import { type Renderer, rendererFor } from "../src/kernels/launch.ts";
import { assert, assertClose, assertTensorError, env, rng, test, testUnless } from "./harness.ts";

const dev = pt.defaultDevice();
/** Why the tests of lazy mode's own behaviour cannot run in this process, or null. */
const LAZY_OFF = pt.lazyEnabled() ? null : "lazy mode is off (PT_LAZY=0)";
const hasF64 = dev.info.float64;
/** Each random program compiles a few kernels: cheap for the CPU's bytecode, ~0.1 s each through a GPU compiler. */
const PROGRAMS = Number(env("PT_LAZY_PROGRAMS") ?? (dev.info.language === "bytecode" ? 150 : 24));

/** Values of t as numbers, NaN kept (bigint int64 values converted exactly enough here). */
function values(t: pt.Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
}

function sameBits(a: number[], b: number[], what: string): void {
  assert.equal(a.length, b.length, `${what}: lengths differ`);
  for (let i = 0; i < a.length; i++) {
    if (Object.is(a[i], b[i]) || (a[i] === 0 && b[i] === 0 && Object.is(1 / a[i], 1 / b[i]))) continue;
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    assert.fail(`${what}: element ${i} is ${a[i]} lazily and ${b[i]} eagerly`);
  }
}

type Step = (x: pt.Tensor, others: pt.Tensor[], r: () => number) => pt.Tensor;
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const scalar = (r: () => number) => pick(r, [0.5, -1.25, 3, 2, 0, 1e-3, 7]);

const STEPS: Step[] = [
  (x, _, r) => x.add(scalar(r)),
  (x, _, r) => x.mul(scalar(r)),
  (x, o, r) => x.sub(pick(r, o)),
  (x, o, r) => x.mul(pick(r, o)),
  (x, o, r) => x.maximum(pick(r, o)),
  (x, o, r) => x.div(pick(r, o).abs().add(0.5)),
  (x) => x.neg(),
  (x) => x.abs(),
  (x) => x.square(),
  (x) => x.relu(),
  (x) => x.sigmoid(),
  (x) => x.exp().clamp(null, 1e6),
  (x) => x.tanh(),
  (x) => x.floor(),
  (x) => x.round(),
  (x) => x.sign(),
  (x, _, r) => x.clamp(-scalar(r), 4),
  (x, o, r) => pt.where(x.gt(pick(r, o)), x, pick(r, o)),
  (x, o, r) => pt.where(pt.logicalAnd(x.gt(0), pick(r, o).lt(1)), x.mul(2), 0.25),
  (x) => x.cast("int32").cast("float32"),
  (x) => x.cast("float16").cast("float32"),
  (x) => x.cast("uint8").add(1),
  (x) => x.cast("int32").mul(3).add(-7),
  (x) => x.ge(0.5).cast("float32").add(x),
  (x) => x.isnan().logicalOr(x.gt(1)).cast("float32"),
  (x, _, r) => x.lerp(x.mul(0.5), scalar(r)),
  (x) => x.permute(1, 0).contiguous().permute(1, 0),
  (x) => x.slice(0, 0, undefined, 1).flip(1),
  (x) => x.unsqueeze(0).squeeze(0),
  (x, o) => x.add(o[0].slice(1, 0, 1).expand(x.shape)),
];
if (hasF64) STEPS.push((x) => x.cast("float64").mul(1.1).cast("float32"));

// ---- a JS evaluator of the same steps: the reference every device's results are checked against ----

/** A [rows, cols] array of exact values (float32 values rounded with Math.fround), and its dtype. */
interface J {
  r: number;
  c: number;
  v: number[];
  dtype: string;
}
const f32 = Math.fround;
const f16 = (Math as unknown as { f16round: (x: number) => number }).f16round;
const jmap = (x: J, f: (v: number) => number, dtype = "float32"): J => ({ ...x, v: x.v.map(f), dtype });
const jzip = (a: J, b: J, f: (x: number, y: number) => number, dtype = "float32"): J => {
  const r = Math.max(a.r, b.r), c = Math.max(a.c, b.c), v: number[] = [];
  const at = (t: J, i: number, j: number) => t.v[(t.r === 1 ? 0 : i) * t.c + (t.c === 1 ? 0 : j)];
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) v.push(f(at(a, i, j), at(b, i, j)));
  return { r, c, v, dtype };
};
/** Round half to even, as torch.round. */
const roundEven = (v: number) => {
  const f = Math.floor(v), d = v - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
};
const toU8 = (v: number) => ((Math.trunc(v) % 256) + 256) % 256; // truncate, then wrap: what the library's cast does
const toI32 = (v: number) => Math.trunc(v) | 0;
const nanMax = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b));
const clampJ = (v: number, lo: number | null, hi: number | null) =>
  Number.isNaN(v) ? v : Math.min(hi ?? Infinity, Math.max(lo ?? -Infinity, v));

type JStep = (x: J, others: J[], r: () => number) => J;
/** STEPS[i] in JS, drawing the same random numbers in the same order. */
const JS_STEPS: JStep[] = [
  (x, _, r) => ((s) => jmap(x, (v) => f32(v + s)))(scalar(r)),
  (x, _, r) => ((s) => jmap(x, (v) => f32(v * s)))(scalar(r)),
  (x, o, r) => jzip(x, pick(r, o), (a, b) => f32(a - b)),
  (x, o, r) => jzip(x, pick(r, o), (a, b) => f32(a * b)),
  (x, o, r) => jzip(x, pick(r, o), nanMax),
  (x, o, r) => jzip(x, pick(r, o), (a, b) => f32(a / f32(Math.abs(b) + 0.5))),
  (x) => jmap(x, (v) => -v),
  (x) => jmap(x, Math.abs),
  (x) => jmap(x, (v) => f32(v * v)),
  (x) => jmap(x, (v) => (Number.isNaN(v) ? v : v > 0 ? v : 0)),
  (x) => jmap(x, (v) => f32(1 / (1 + Math.exp(-v)))),
  (x) => jmap(x, (v) => clampJ(f32(Math.exp(v)), null, 1e6)),
  (x) => jmap(x, (v) => f32(Math.tanh(v))),
  (x) => jmap(x, Math.floor),
  (x) => jmap(x, roundEven),
  (x) => jmap(x, (v) => (Number.isNaN(v) ? v : Math.sign(v))),
  (x, _, r) => ((s) => jmap(x, (v) => clampJ(v, -s, 4)))(scalar(r)),
  (x, o, r) => {
    const gt = jzip(x, pick(r, o), (a, b) => (a > b ? 1 : 0)), other = pick(r, o);
    return jzip(jzip(gt, x, (g, a) => (g ? a : NaN)), jzip(gt, other, (g, b) => (g ? NaN : b)), (a, b) => (Number.isNaN(b) ? a : b));
  },
  (x, o, r) => jzip(x, pick(r, o), (a, b) => (a > 0 && b < 1 ? f32(a * 2) : 0.25)),
  (x) => jmap(x, toI32),
  (x) => jmap(x, f16),
  (x) => jmap(x, (v) => (toU8(v) + 1) % 256, "uint8"),
  (x) => jmap(x, (v) => (Math.imul(toI32(v), 3) - 7) | 0, "int32"),
  (x) => jmap(x, (v) => f32((v >= 0.5 ? 1 : 0) + v)),
  (x) => jmap(x, (v) => (Number.isNaN(v) || v > 1 ? 1 : 0)),
  (x, _, r) => ((w) => jmap(x, (v) => f32(v + w * (f32(v * 0.5) - v))))(scalar(r)),
  (x) => x,
  (x) => ({ ...x, v: x.v.map((_, k) => x.v[Math.floor(k / x.c) * x.c + (x.c - 1 - (k % x.c))]) }),
  (x) => x,
  (x, o) => jzip(x, { r: o[0].r, c: 1, v: o[0].v.filter((_, k) => k % o[0].c === 0), dtype: "float32" }, (a, b) => f32(a + b)),
];
if (hasF64) JS_STEPS.push((x) => jmap(x, (v) => f32(v * 1.1)));

/** REDUCTIONS[i] in JS: the values, and a tolerance for them (float32 sums of n terms of size m are off by about n m 2^-24). */
const rows = (x: J) => Array.from({ length: x.r }, (_, i) => x.v.slice(i * x.c, (i + 1) * x.c));
const jsum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const jvar = (xs: number[]) => jsum(xs.map((v) => (v - jsum(xs) / xs.length) ** 2)) / (xs.length - 1);
const firstArg = (xs: number[], better: (a: number, b: number) => boolean) =>
  xs.reduce((bi, v, i) => (Number.isNaN(xs[bi]) ? bi : Number.isNaN(v) || better(v, xs[bi]) ? i : bi), 0);
const JS_REDUCTIONS: ((x: J) => number[])[] = [
  (x) => rows(x).map(jsum),
  (x) => [jsum(x.v)],
  (x) => rows(x).map((xs) => jsum(xs) / xs.length),
  (x) => rows(x).map((xs) => xs.reduce(nanMax)),
  (x) => [x.v.reduce((a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b)))],
  (x) => rows(x).map((xs) => firstArg(xs, (a, b) => a > b)),
  (x) => [firstArg(x.v, (a, b) => a < b)],
  (x) => rows(x).map(jvar),
  (x) => [Math.sqrt(jvar(x.v))],
  (x) => rows(x).map((xs) => xs.reduce((a, b) => f32(a * b), 1)),
  (x) => rows(x).map((xs) => xs.filter((v) => v > 0).length),
  (x) => rows(x).map((xs) => (xs.some((v) => v > 0.5) ? 1 : 0)),
  (x) => [x.v.every((v) => v < 1) ? 1 : 0],
  (x) => rows(x).map((xs) => jsum(xs.map(toI32))),
  (x) => Array.from({ length: x.c }, (_, j) => jsum(rows(x).map((xs) => xs[j]))),
];

/** The JS evaluation of program(seed, inputs): the same three outputs, and a tolerance for the reduction. */
function jsProgram(seed: number, inputs: J[]): { outs: number[][]; atol: number } {
  const r = rng(seed);
  const steps = 2 + Math.floor(r() * 8);
  let x = inputs[0];
  const made: J[] = [];
  for (let s = 0; s < steps; s++) {
    const y = pick(r, JS_STEPS)(x, inputs, r);
    if (y.dtype !== "float32") {
      made.push(y);
      x = { ...y, dtype: "float32" };
    } else x = y;
    made.push(x);
  }
  const fork = made[Math.floor(r() * made.length)];
  const red = pick(r, JS_REDUCTIONS);
  const m = x.v.reduce((a, v) => (Number.isNaN(v) ? a : Math.max(a, Math.abs(v))), 0);
  // var squares the values: its rounding scales with m^2 (std, its square root, with m).
  const atol = 1e-5 + 20 * 4e-7 * (red === JS_REDUCTIONS[7] ? m * m : m);
  return { outs: [red(x), x.v, fork.v], atol };
}

/** Reductions of a program's result: over trailing axes of a deferred result they fuse (transform-reduce). */
const REDUCTIONS: ((x: pt.Tensor) => pt.Tensor)[] = [
  (x) => x.sum(1),
  (x) => x.sum(),
  (x) => x.mean(1, true),
  (x) => x.max(1),
  (x) => x.min(),
  (x) => x.argmax(1),
  (x) => x.argmin(),
  (x) => x.var(1),
  (x) => x.std(),
  (x) => x.prod(1),
  (x) => x.gt(0).countNonzero(1),
  (x) => x.gt(0.5).any(1),
  (x) => x.lt(1).all(),
  (x) => x.cast("int32").sum(1),
  (x) => x.sum(0), // a leading axis: materializes first
];

/** One random program over inputs of shape [4, 5]: a chain of steps, with a fork and a reduction. */
function program(seed: number, inputs: pt.Tensor[]): pt.Tensor[] {
  const r = rng(seed);
  const steps = 2 + Math.floor(r() * 8);
  let x = inputs[0];
  const made: pt.Tensor[] = [];
  for (let s = 0; s < steps; s++) {
    const y = pick(r, STEPS)(x, inputs, r);
    if (y.dtype !== "float32") {
      made.push(y);
      x = y.cast("float32");
    } else x = y;
    made.push(x);
  }
  const fork = made[Math.floor(r() * made.length)];
  return [pick(r, REDUCTIONS)(x), x, fork];
}

/** The input values of a program: [4, 5], [1, 5] and [4, 1], multiples of 1/8 in [-3, 3]. */
function inputData(seed: number): J[] {
  const r = rng(seed ^ 0x5a5a);
  const data = (n: number) => Array.from({ length: n }, () => Math.round((r() * 6 - 3) * 8) / 8);
  return [{ r: 4, c: 5, v: data(20), dtype: "float32" }, { r: 1, c: 5, v: data(5), dtype: "float32" }, {
    r: 4,
    c: 1,
    v: data(4),
    dtype: "float32",
  }];
}

function makeInputs(seed: number, device: pt.Device): pt.Tensor[] {
  return inputData(seed).map((j) => pt.tensor(Float32Array.from(j.v), { device }).reshape(j.r, j.c));
}

test("random expression programs and reductions of them give the same bits lazily and eagerly, and match a JS evaluation", () => {
  const was = pt.setLazy(true);
  try {
    for (let seed = 1; seed <= PROGRAMS; seed++) {
      const ins = makeInputs(seed, dev);
      const lazy = program(seed, ins).map(values);
      const eager = pt.eager(() => program(seed, ins).map(values));
      lazy.forEach((v, k) => sameBits(v, eager[k], `program ${seed} output ${k}`));
      const ref = jsProgram(seed, inputData(seed));
      lazy.forEach((v, k) => assertClose(v, ref.outs[k], 1e-5, k === 0 ? ref.atol : 1e-5, `program ${seed} output ${k} vs JS`));
      for (const t of ins) t.dispose();
    }
  } finally {
    pt.setLazy(was);
  }
});

testUnless(LAZY_OFF, "a chain of elementwise ops stays deferred until read, then runs once", () => {
  using x = pt.tensor([1, 2, 3, 4]);
  const before = pt.liveBytes();
  using y = x.add(1).mul(2).sub(3);
  assert.ok(y.isDeferred, "the result is deferred");
  assert.equal(pt.liveBytes(), before, "a deferred result holds no memory of its own");
  assert.deepEqual(values(y), [1, 3, 5, 7]);
  assert.ok(!y.isDeferred);
  assert.equal(pt.liveBytes(), before + 16, "one output buffer, no intermediates");
});

testUnless(LAZY_OFF, "a chain too long for one kernel is split where it reaches the node and depth limits, with eager's values", () => {
  using x = pt.tensor([0.5, 1.5, -2, 3]);
  const chain = () => {
    let y = x.add(0);
    for (let i = 0; i < 59; i++) {
      const next = i % 2 ? y.mul(1.01) : y.add(0.25);
      y.dispose();
      y = next;
    }
    const v = values(y);
    y.dispose();
    return v;
  };
  const lib = native as unknown as { pt_launch: typeof native.pt_launch };
  const real = lib.pt_launch;
  let launches = 0;
  lib.pt_launch = (q, p, a, n) => (launches++, real(q, p, a, n));
  let lazy;
  try {
    lazy = chain();
  } finally {
    lib.pt_launch = real;
  }
  assert.deepEqual(lazy, pt.eager(chain));
  // Each step adds 2 nodes and 1 level, and a split node is loaded by the next kernel: with depth 24 and 64 nodes
  // 60 steps took 5 kernels; ignoring the depth limit took 3 (scripts/mutate.sh fuse-depth).
  assert.ok(launches >= 4 && launches <= 8, `60 chained ops made ${launches} launches`);
});

/** Nodes and depth of an expression tree, counted the way record.ts limits programs. */
function treeSize(e: Expr): { nodes: number; depth: number } {
  switch (e.k) {
    case "load":
    case "const":
    case "index":
      return { nodes: 1, depth: 1 };
    case "cast":
    case "unary": {
      const a = treeSize(e.a);
      return { nodes: a.nodes + 1, depth: a.depth + 1 };
    }
    case "binary": {
      const a = treeSize(e.a), b = treeSize(e.b);
      return { nodes: a.nodes + b.nodes + 1, depth: Math.max(a.depth, b.depth) + 1 };
    }
    case "where": {
      const c = treeSize(e.c), a = treeSize(e.a), b = treeSize(e.b);
      return { nodes: a.nodes + b.nodes + c.nodes + 1, depth: Math.max(a.depth, b.depth, c.depth) + 1 };
    }
  }
}

testUnless(LAZY_OFF, "a chain's recorded size is its expression's, with and without casts of the input", () => {
  using f = pt.tensor([0.5, 1.5, -2, 3]);
  using i = pt.tensor([1, 2, 3, 4], { dtype: "int32" });
  const chains: [string, () => pt.Tensor][] = [
    ["float steps", () => f.add(1).mul(2).clamp(0, 3).sub(0.5)],
    ["an int tensor cast by its first step", () => i.mul(1.5).add(1)],
    ["an int tensor cast by clamp", () => i.add(1).clamp(0.5, 2.5).mul(2)],
    ["a comparison, then a step that casts the bool", () => f.mul(2).gt(1).add(1)],
    ["a unary op inside a chain", () => f.add(1).abs().mul(3)],
  ];
  for (const [what, make] of chains) {
    using y = make();
    const n = y.deferred;
    assert.ok(n !== null && y.isDeferred, `${what}: deferred`);
    assert.deepEqual({ nodes: n.nodes, depth: n.depth }, treeSize(n.expr), what);
  }
});

testUnless(LAZY_OFF, "aliases of one deferred result share one materialization", () => {
  using src = pt.rand([1000]);
  const before = pt.liveBytes();
  const d = src.add(1).mul(2).sub(3);
  const aliases = [0, 1, 2, 3].map(() => {
    using v = d.view(d.shape);
    return v.clone();
  });
  pt.materialize(d, ...aliases);
  assert.equal(pt.liveBytes(), before + 4000, "d and its four aliases hold one buffer");
  const want = values(d);
  for (const a of aliases) assert.deepEqual(values(a), want);
  d.dispose();
  for (const a of aliases) a.dispose();
  assert.equal(pt.liveBytes(), before);
});

testUnless(LAZY_OFF, "disposing the first materialized alias leaves a deferred sibling valid", () => {
  using src = pt.tensor([1, 2, 3]);
  const before = pt.liveBytes();
  const d = src.mul(10);
  const sibling = d.clone();
  const viewOfSibling = sibling.view([3]);
  assert.ok(sibling.isDeferred, "the sibling is deferred before anything is read");
  assert.deepEqual(values(d), [10, 20, 30]);
  assert.ok(!sibling.isDeferred && sibling.deferred !== null, "materializing d materialized the sibling's shared result");
  assert.equal(pt.liveBytes(), before + 12, "d and its sibling share one 12-byte buffer");
  d.dispose();
  assert.equal(pt.liveBytes(), before + 12, "the sibling keeps the shared buffer alive");
  assert.deepEqual(values(sibling), [10, 20, 30]);
  sibling.dispose();
  assert.deepEqual(values(viewOfSibling), [10, 20, 30], "a view of a released sibling stays usable");
  viewOfSibling.dispose();
  assert.equal(pt.liveBytes(), before, "the last holder's dispose frees the shared buffer");
});

test("inputs of a deferred result may be disposed before it runs", () => {
  const a = pt.tensor([1, 2, 3]);
  const b = pt.tensor([10, 20, 30]);
  const c = a.add(b);
  a.dispose();
  b.dispose();
  assert.deepEqual(values(c), [11, 22, 33]);
  c.dispose();
});

testUnless(LAZY_OFF, "views of a deferred result fuse: permute then contiguous runs one kernel", () => {
  using x = pt.arange(6).reshape(2, 3);
  const before = pt.liveBytes();
  using y = x.mul(2).add(1).cast("uint8");
  using p = y.permute(1, 0);
  assert.ok(p.isDeferred, "a permuted deferred result is still deferred");
  using c = p.contiguous();
  assert.deepEqual(values(c), [1, 7, 3, 9, 5, 11]);
  assert.equal(pt.liveBytes(), before + 6, "only the permuted uint8 output was allocated");
});

test("setLazy(false) and eager() launch at once and give identical results", () => {
  using x = pt.tensor([0.1, -2, 3.5, 1e-7]);
  const lazy = values(x.mul(1.15).add(-0.02).mul(0.98).clamp(0, 1));
  const eager = pt.eager(() => {
    using y = x.mul(1.15).add(-0.02).mul(0.98).clamp(0, 1);
    assert.ok(!y.isDeferred);
    return values(y);
  });
  sameBits(lazy, eager, "pointwise chain");
  const was = pt.setLazy(false);
  try {
    using z = x.add(1);
    assert.ok(!z.isDeferred);
  } finally {
    pt.setLazy(was);
  }
});

test("float16 and uint8 intermediates round and wrap as they do eagerly", () => {
  using x = pt.tensor([250, 300.7, -3.2, 1000.1]);
  const lazy = values(x.cast("uint8").add(10).cast("float16").mul(1.001).cast("float32"));
  const eager = pt.eager(() => values(x.cast("uint8").add(10).cast("float16").mul(1.001).cast("float32")));
  sameBits(lazy, eager, "u8 wrap and f16 rounding");
});

testUnless(
  LAZY_OFF ?? (dev.backend !== pt.device("cpu").backend ? `it closes the CPU device; the default device is ${dev.id}` : null),
  "a deferred result from before its device closed names the fused ops when used",
  () => {
    const x = pt.tensor([1, 2]);
    const y = x.add(1).mul(3);
    // Two chains joined, then a chain step: each operand's ops in order, then the join's, then the step's.
    const z = x.add(1).mul(3).add(x.sub(2)).clamp(0, 5);
    dev.close();
    assertTensorError(() => y.toArray(), /add, mul \(fused\)/, /closed/);
    assertTensorError(() => z.toArray(), /add, mul, sub, add, clamp \(fused\)/, /closed/);
    y.dispose();
    z.dispose();
    x.dispose();
  },
);

test("an integer modulo by zero still fails at the op in lazy mode", () => {
  using a = pt.tensor([1, 2], { dtype: "int32" });
  using z = pt.tensor([1, 0], { dtype: "int32" });
  const was = pt.setLazy(true);
  try {
    // The check needs the divisor's values, so the op reads them and throws before returning a deferred result.
    assertTensorError(() => a.mod(z), /^mod: integer modulo by zero at element 1 /);
    using d = a.mul(1); // a deferred divisor with a zero too
    using zd = z.mul(1);
    assertTensorError(() => d.mod(zd), /^mod: integer modulo by zero at element 1 /);
    using ok = a.mod(pt.tensor([2, 2], { dtype: "int32" }));
    assert.deepEqual(values(ok), [1, 0], "a nonzero divisor still works");
  } finally {
    pt.setLazy(was);
  }
});

// ---- layouts: a program's argument layout is checked on disk and at launch ----------------

const g = globalThis as Record<string, unknown>;
const isBun = g.Bun !== undefined;

/** Runs a snippet in a fresh process of this runtime on this device; stdout and stderr apart. */
function child(code: string, extraEnv: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "pt-lazy-child-"));
  try {
    const file = join(dir, "child.ts");
    writeFileSync(file, `import * as pt from "${new URL("../mod.ts", import.meta.url).href}";\n${code}\n`);
    const argv = isBun ? ["run", file] : ["run", "--allow-all", "--no-check", file]; // types are the parent run's to check
    const exe = isBun ? process.execPath : (g.Deno as { execPath(): string }).execPath();
    const env = { ...process.env, PT_DEVICE: dev.id, ...extraEnv };
    const r = spawnSync(exe, argv, { encoding: "utf8", env, timeout: 300_000 });
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A disk cache entry's header (program_cache.c: "PTCACHE2", key, n, sum, then the layout). */
function entryHeader(bytes: Uint8Array) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (bytes.length < 48 || magic !== "PTCACHE2") return null;
  const n = Number(v.getBigUint64(16, true));
  return { n, abi: v.getInt32(32, true), kind: v.getInt32(36, true), views: v.getInt32(40, true), bufs: v.getInt32(44, true) };
}

testUnless(
  dev.info.language === "bytecode" ? "the CPU interprets its bytecode: no compiled images on disk" : null,
  "a disk cache entry built for another layout, or truncated, is named on stderr, recompiled and rewritten",
  () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "pt-layout-cache-"));
    try {
      // A fused 2-input elementwise program (3 views) and a reduction.
      const code = "using a = pt.tensor([1, 2, 3, 4]), b = pt.tensor([0.5, 0.25, 2, -1]);\n" +
        "using c = a.add(b).mul(3);\nconsole.log(`result=${JSON.stringify(Array.from(c.toArray() as Float32Array))} sum=${a.sum().item()}`);";
      const want = "result=[4.5,6.75,15,9] sum=10";
      const run = (what: string) => {
        const r = child(code, { PT_CACHE_DIR: cacheDir });
        assert.equal(r.status, 0, `${what}: the child failed:\n${r.stdout}${r.stderr}`);
        assert.ok(r.stdout.includes(want), `${what}: wrong result:\n${r.stdout}${r.stderr}`);
        return r.stderr;
      };
      assert.equal(run("first run").match(/polytensor: cached program/g), null, "an empty cache has nothing to reject");
      const entries = readdirSync(cacheDir).map((name) => ({ name, bytes: readFileSync(join(cacheDir, name)) }))
        .map((e) => ({ ...e, head: entryHeader(e.bytes) }))
        .filter((e) => e.head !== null && e.head.kind >= 0);
      if (entries.length === 0 && dev.info.language === "msl") return; // Metal keeps no compiled images on disk
      const ew = entries.find((e) => e.head!.kind === 0 && e.head!.views === 3);
      const reduce = entries.find((e) => e.head!.kind === 1);
      assert.ok(ew && reduce, `cache entries of ${dev.id}: ${JSON.stringify(entries.map((e) => [e.name, e.head]))}`);
      assert.equal(ew.head!.bufs, 3);
      assert.equal(ew.head!.n, ew.bytes.length - 48);

      // The ew entry now claims 3 inputs (4 views); the reduce entry loses its tail.
      const altered = Uint8Array.from(ew.bytes);
      new DataView(altered.buffer).setInt32(40, 4, true);
      new DataView(altered.buffer).setInt32(44, 4, true);
      writeFileSync(join(cacheDir, ew.name), altered);
      writeFileSync(join(cacheDir, reduce.name), reduce.bytes.subarray(0, 100));

      const stderr = run("run on the damaged cache");
      const layoutLine = new RegExp(
        `polytensor: cached program \\S*${ew.name} was built for layout ew \\(3 inputs \\+ output = 4 views, up to 4 buffers; ` +
          `block ABI ${ew.head!.abi}\\), the request needs ew \\(2 inputs \\+ output = 3 views, up to 3 buffers; block ABI ` +
          `${ew.head!.abi}\\); recompiling`,
        "g",
      );
      assert.equal(stderr.match(layoutLine)?.length, 1, `one layout diagnostic for ${ew.name}:\n${stderr}`);
      const truncLine = new RegExp(`polytensor: cached program \\S*${reduce.name} is truncated; recompiling`, "g");
      assert.equal(stderr.match(truncLine)?.length, 1, `one diagnostic for the truncated ${reduce.name}:\n${stderr}`);

      // Both entries were rewritten whole, with the layout the request needed.
      for (const e of [ew, reduce]) {
        const bytes = readFileSync(join(cacheDir, e.name));
        assert.deepEqual(entryHeader(bytes), { ...e.head!, n: bytes.length - 48 }, `${e.name} was rewritten`);
      }
      assert.equal(run("run on the rewritten cache").match(/polytensor: /g), null, "the rewritten entries are accepted");
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  },
);

test("a launch whose block is not its program's layout is refused with a TensorError naming both layouts", () => {
  const neg: Expr = { k: "unary", op: "neg", a: { k: "load", input: 0, dtype: "float32" }, dtype: "float32" };
  const prog = rendererFor(dev).elementwise(neg, 1);
  const program = dev.program(prog.kind, prog.source, prog.key, 2);
  using x = pt.tensor([1, 2, 3, 4]), y = pt.tensor([5, 6, 7, 8]), out = pt.full([4], 7);
  const launch = (inputs: pt.Tensor[]) => {
    const args = new ArgBlock().fill("ew", { shape: [4], views: [out, ...inputs], consts: [] }).finish();
    return check(native.pt_launch(dev.queue, program, args, args.length), "launch");
  };
  assertTensorError(
    () => launch([x, y]),
    /program \d+ was built for the layout ew \(1 input \+ output = 2 views, up to 2 buffers; block ABI \d+\)/,
    /the block has 3 views \(2 inputs \+ output\) and 3 buffers; nothing was launched/,
  );
  assert.deepEqual(values(out), [7, 7, 7, 7], "the refused launch wrote nothing");
  launch([x]); // its own layout runs
  assert.deepEqual(values(out), [-1, -2, -3, -4]);

  // A template names more buffers than its kind's block holds.
  const t = rendererFor(dev).template("reduce");
  const reduce = dev.program(t.kind, t.source, t.key);
  const blk = new ArgBlock();
  const args = blk.view(out).view(x).view(y).finish();
  assertTensorError(
    () => check(native.pt_launch(dev.queue, reduce, args, args.length), "launch"),
    /built for the layout reduce \(2 views, up to 2 buffers; block ABI \d+\), but the block has 3 buffers/,
  );
  // A layout that contradicts the kind, or the bytecode, is refused when the program is made.
  assertTensorError(() => dev.program(t.kind, t.source, `${t.key}:bad`, 5), /reduce program declared 5 views; its block has 2/);
  const words = encodeBytecode(neg, 1);
  assertTensorError(
    () => pt.device("cpu").program("ew", new Uint8Array(words.buffer), "layout-test:neg", 3),
    /declared 3 views \(2 inputs \+ output\) but its bytecode has 1 input$/,
  );
});

test("a device renders and compiles each program once: a structure launched again, eagerly or lazily, renders nothing", () => {
  const r = rendererFor(dev) as { -readonly [K in keyof Renderer]: Renderer[K] };
  const calls: string[] = [];
  const saved = { elementwise: r.elementwise, elementwiseLinear: r.elementwiseLinear, template: r.template };
  r.elementwise = (e, n) => (calls.push("ew"), saved.elementwise.call(r, e, n));
  if (saved.elementwiseLinear) r.elementwiseLinear = (e, n, d) => (calls.push("linear"), saved.elementwiseLinear!.call(r, e, n, d));
  r.template = (name) => (calls.push(name), saved.template.call(r, name));
  try {
    // A structure no other test uses (three distinct constants keep its tree apart).
    const step = (x: pt.Tensor) => pt.tidy(() => x.mul(1.25).add(-0.375).maximum(0.0625).toArray());
    using a = pt.tensor([1, 2, 3]), b = pt.tensor([[4, 5], [6, 7]]).transpose(0, 1);
    const first = [...step(a)];
    const renders = calls.length;
    assert.ok(renders >= 1, "the first launch rendered its program");
    assertClose(step(a), first);
    for (let i = 0; i < 10; i++) step(a);
    assert.equal(calls.length, renders, "the same structure and layout again: no render");
    assertClose(step(b), [4.625, 7.125, 5.875, 8.375].map((v) => Math.max(v, 0.0625)));
    const strided = calls.length;
    step(b);
    assert.equal(calls.length, strided, "the strided layout's program, once made, is found too");
    using s = pt.tensor([5, 1, 4]);
    s.sum().item();
    const reduced = calls.length;
    s.sum().item();
    assert.equal(calls.length, reduced, "a template too");
  } finally {
    Object.assign(r, saved);
  }
});
