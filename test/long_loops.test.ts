/**
 * Programs that run for hours: a training-shaped loop of 2000 steps (matmul, bias, relu, a
 * reduction and a readback per step) holds device memory and RSS flat after warm-up inside
 * pt.tidy, and with disposal of named tensors alone, where the library collects garbage when
 * a device's memory in use grows. A failing allocation collects before it retries.
 *
 * Under Deno (V8) a WeakRef keeps its target alive until the job that made it ends, so what a
 * synchronous loop drops can be freed only once the loop yields to the event loop; the
 * disposal-only loop there yields every 10 steps, as the README tells Deno scripts to.
 */
import * as pt from "../mod.ts";
import { assert, test } from "./harness.ts";

const g = globalThis as {
  Bun?: unknown;
  gc?: unknown;
  Deno?: { memoryUsage(): { rss: number } };
  process?: { memoryUsage(): { rss: number } };
};
const isDeno = g.Bun === undefined;
const rss = (): number => (isDeno ? g.Deno!.memoryUsage().rss : g.process!.memoryUsage().rss);
const MiB = 2 ** 20;
const STEPS = 2000, WARM = 100;

interface Samples {
  inUseAt100: number;
  inUseAt2000: number;
  inUseMax: number;
  rssAt100: number;
  rssAt2000: number;
}

/** Runs `step` 2000 times (yielding every `yieldEvery` steps, 0: never), sampling memory. */
async function run(step: (i: number) => number, yieldEvery: number): Promise<Samples> {
  const d = pt.defaultDevice();
  const s: Samples = { inUseAt100: 0, inUseAt2000: 0, inUseMax: 0, rssAt100: 0, rssAt2000: 0 };
  let check = 0;
  for (let i = 1; i <= STEPS; i++) {
    check += step(i);
    if (yieldEvery > 0 && i % yieldEvery === 0) await new Promise((r) => setTimeout(r, 0));
    const inUse = pt.memoryStats(d).inUse;
    if (i === WARM) [s.inUseAt100, s.rssAt100] = [inUse, rss()];
    if (i > WARM) s.inUseMax = Math.max(s.inUseMax, inUse);
    if (i === STEPS) [s.inUseAt2000, s.rssAt2000] = [inUse, rss()];
  }
  assert.ok(Number.isFinite(check), "every step read back a finite loss");
  const line = (b: number) => `${(b / MiB).toFixed(2)} MiB`;
  console.log(
    `  ${d.id}: in use ${line(s.inUseAt100)} after ${WARM} steps, ${line(s.inUseAt2000)} after ${STEPS} (max ${line(s.inUseMax)}); RSS ${
      line(s.rssAt100)
    } -> ${line(s.rssAt2000)}`,
  );
  return s;
}

/** A step leaks 64x96 float32 results (24 KiB) unless they are freed: 45 MiB over 1900 steps. */
function weights() {
  return { x: pt.randn([64, 96]), w: pt.randn([96, 96]), b: pt.randn([96]) };
}

test("a 2000-step training-shaped loop inside tidy holds device memory and RSS flat", async () => {
  const { x, w, b } = weights();
  try {
    const s = await run(() => pt.tidy(() => x.matmul(w).add(b).relu().mean().item() as number), 0);
    assert.equal(s.inUseAt2000, s.inUseAt100, "device memory in use after 2000 steps equals that after 100");
    assert.equal(s.inUseMax, s.inUseAt100, "and never rose between");
    assert.ok(s.rssAt2000 - s.rssAt100 < 32 * MiB, `RSS grew by ${((s.rssAt2000 - s.rssAt100) / MiB).toFixed(1)} MiB`);
  } finally {
    for (const t of [x, w, b]) t.dispose();
  }
});

test("a 2000-step loop that disposes only what it names holds memory flat: the library collects on growth", async (): Promise<void> => {
  if (isDeno && typeof g.gc !== "function") throw new Error("run Deno with --v8-flags=--expose-gc (scripts/test.sh does)");
  const { x, w, b } = weights();
  const threshold = pt.getCollectThreshold();
  pt.setCollectThreshold(2 * MiB);
  try {
    const s = await run(() => {
      const loss = x.matmul(w).add(b).relu().mean(); // the matmul, add and relu results are unnamed
      const v = Number(loss.item());
      loss.dispose();
      return v;
    }, isDeno ? 10 : 0);
    // Each growth of 2 MiB collects; what is in use stays within the threshold and a step's worth of slack.
    const bound = s.inUseAt100 + 4 * MiB;
    assert.ok(s.inUseMax <= bound, `in use rose to ${s.inUseMax} bytes, above ${bound} (${s.inUseAt100} after ${WARM} steps)`);
    assert.ok(s.rssAt2000 - s.rssAt100 < 32 * MiB, `RSS grew by ${((s.rssAt2000 - s.rssAt100) / MiB).toFixed(1)} MiB`);
  } finally {
    pt.setCollectThreshold(threshold);
    for (const t of [x, w, b]) t.dispose();
  }
});

test("collectGarbage frees dropped tensors at once, without waiting for a later task", async () => {
  const base = pt.liveBytes();
  await new Promise<void>((r) =>
    setTimeout(() => {
      for (let i = 0; i < 200; i++) pt.ones([256]).add(i).materialize(); // dropped
      r();
    }, 0)
  );
  await new Promise((r) => setTimeout(r, 0)); // under V8 the sweep sees only WeakRefs of earlier jobs
  const held = pt.liveBytes() - base; // the runtime may have collected some on its own meanwhile
  if (isDeno && typeof g.gc !== "function") return;
  const freed = pt.collectGarbage();
  if (held > 300 * 1024) assert.ok(freed >= 150, `collectGarbage freed ${freed} of the 400 tensors dropped`);
  assert.ok(pt.liveBytes() - base <= 50 * 1024, `${pt.liveBytes() - base} bytes still held`);
});

test("an allocation that fails for want of memory first frees dropped tensors, then retries", async () => {
  const base = pt.liveBytes();
  await new Promise<void>((r) =>
    setTimeout(() => {
      for (let i = 0; i < 200; i++) pt.ones([256]).add(i).materialize();
      r();
    }, 0)
  );
  await new Promise((r) => setTimeout(r, 0));
  const before = pt.liveBytes();
  assert.ok(before > base);
  const threshold = pt.getCollectThreshold();
  pt.setCollectThreshold(0); // only the failure may collect
  try {
    assert.throws(() => pt.empty([2 ** 48]), (e: unknown) => e instanceof pt.TensorError && e.status === -4);
  } finally {
    pt.setCollectThreshold(threshold);
  }
  if (isDeno && typeof g.gc !== "function") return;
  assert.ok(
    pt.liveBytes() - base <= 50 * 1024,
    `the failed allocation's collection left ${pt.liveBytes() - base} of ${before - base} bytes`,
  );
});

test("setCollectThreshold refuses a negative or non-finite size", () => {
  assert.throws(() => pt.setCollectThreshold(-1), /setCollectThreshold: /);
  assert.throws(() => pt.setCollectThreshold(Number.NaN), /setCollectThreshold: /);
});
