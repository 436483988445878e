/**
 * Lazy fused expressions (DESIGN.md section 6): deferred results equal eager ones bit for
 * bit, aliases share one materialization, inputs may go before the fused kernel runs, and
 * deferral can be turned off. Runs on the default device (PT_DEVICE), and compares with the
 * CPU where the default device is another.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, env, rng, test } from "./harness.ts";

const dev = pt.defaultDevice();
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

/** One random program over inputs of shape [4, 5]: a chain of steps, with a fork. */
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
  return [x, made[Math.floor(r() * made.length)]];
}

function makeInputs(seed: number, device: pt.Device): pt.Tensor[] {
  const r = rng(seed ^ 0x5a5a);
  const data = (n: number) => Float32Array.from({ length: n }, () => Math.round((r() * 6 - 3) * 8) / 8);
  return [
    pt.tensor(data(20), { device }).reshape(4, 5),
    pt.tensor(data(5), { device }).reshape(1, 5),
    pt.tensor(data(4), { device }).reshape(4, 1),
  ];
}

test("random expression programs give the same bits lazily and eagerly, and match the CPU", () => {
  const cpu = pt.device("cpu");
  const was = pt.setLazy(true);
  try {
    for (let seed = 1; seed <= PROGRAMS; seed++) {
      const ins = makeInputs(seed, dev);
      const lazy = program(seed, ins).map(values);
      const eager = pt.eager(() => program(seed, ins).map(values));
      lazy.forEach((v, k) => sameBits(v, eager[k], `program ${seed} output ${k}`));
      if (dev !== cpu) {
        const ref = pt.eager(() => program(seed, makeInputs(seed, cpu)).map(values));
        lazy.forEach((v, k) => assertClose(v, ref[k], 1e-5, 1e-5, `program ${seed} output ${k} vs cpu`));
      }
      for (const t of ins) t.dispose();
    }
  } finally {
    pt.setLazy(was);
  }
});

test("a chain of elementwise ops stays deferred until read, then runs once", () => {
  using x = pt.tensor([1, 2, 3, 4]);
  const before = pt.liveBytes();
  using y = x.add(1).mul(2).sub(3);
  if (!pt.lazyEnabled()) return;
  assert.ok(y.isDeferred, "the result is deferred");
  assert.equal(pt.liveBytes(), before, "a deferred result holds no memory of its own");
  assert.deepEqual(values(y), [1, 3, 5, 7]);
  assert.ok(!y.isDeferred);
  assert.equal(pt.liveBytes(), before + 16, "one output buffer, no intermediates");
});

test("aliases of one deferred result share one materialization", () => {
  if (!pt.lazyEnabled()) return;
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

test("disposing the first materialized alias leaves a deferred sibling valid", () => {
  if (!pt.lazyEnabled()) return;
  using src = pt.tensor([1, 2, 3]);
  const d = src.mul(10);
  const sibling = d.clone();
  const viewOfSibling = sibling.view([3]);
  assert.deepEqual(values(d), [10, 20, 30]);
  d.dispose();
  assert.ok(sibling.isDeferred === false || sibling.deferred !== null, "the sibling still reaches the result");
  assert.deepEqual(values(sibling), [10, 20, 30]);
  sibling.dispose();
  assert.deepEqual(values(viewOfSibling), [10, 20, 30], "a view of a released sibling stays usable");
  viewOfSibling.dispose();
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

test("views of a deferred result fuse: permute then contiguous runs one kernel", () => {
  if (!pt.lazyEnabled()) return;
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

test("a deferred result from before its device closed names the fused ops when used", () => {
  if (!pt.lazyEnabled() || dev.backend !== pt.device("cpu").backend) return;
  const x = pt.tensor([1, 2]);
  const y = x.add(1).mul(3);
  dev.close();
  assertTensorError(() => y.toArray(), /add, mul/, /closed/);
  y.dispose();
  x.dispose();
});

test("an integer modulo by zero still fails at the op in lazy mode", () => {
  using a = pt.tensor([1, 2], { dtype: "int32" });
  using z = pt.tensor([1, 0], { dtype: "int32" });
  assertTensorError(() => a.mod(z), /mod/);
});
