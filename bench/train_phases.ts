/**
 * Where a training step's host time goes (issue #25): the step of bench/train.ts (an MLP, a
 * log-softmax cross-entropy from the library's ops, backward, the optimizer, zeroGrad, in
 * pt.tidy) timed phase by phase over many steps, each step ended by a device sync:
 * forward (to the loss's value), backward, optimizer step, zeroGrad, the tidy's end, the sync.
 * With PT_PHASE_LAUNCHES=1 it also counts the kernel launches of a step and the time spent
 * inside the launch call (the shim's pt_launch wrapped): what is left is the front end's.
 *
 *     PT_DEVICE=cpu deno run -A bench/train_phases.ts [small|big]     (also runs under bun)
 *
 * small: 784-64-10, batch 64, SGD lr 0.1; big: 784-1024-1024-10, batch 256, Adam lr 1e-3.
 * Prints one line of microseconds per phase, then the launch line if asked for.
 */
import * as pt from "../mod.ts";
import { native } from "../src/runtime/native.ts";

type Env = {
  Deno?: { env: { get(n: string): string | undefined }; args: string[] };
  process?: { env: Record<string, string | undefined>; argv: string[] };
};
const g = globalThis as unknown as Env;
const env = (n: string) => g.Deno ? g.Deno.env.get(n) : g.process?.env[n];
const which = (g.Deno?.args ?? g.process?.argv.slice(2) ?? [])[0] ?? "small";
if (which !== "small" && which !== "big") throw new Error(`unknown case ${which} (small or big)`);
const big = which === "big";
const sizes = big ? [784, 1024, 1024, 10] : [784, 64, 10], batch = big ? 256 : 64;

/** Deterministic values in [-k, k). */
const values = (n: number, seed: number, k: number) =>
  Float32Array.from({ length: n }, (_, i) => (((Math.sin(i * 12.9898 + seed) * 43758.5453) % 1) * k));
const params: pt.Tensor[] = [];
for (let l = 0; l + 1 < sizes.length; l++) {
  const k = 1 / Math.sqrt(sizes[l]);
  params.push(pt.fromBuffer(values(sizes[l] * sizes[l + 1], 2 * l, k), { shape: [sizes[l], sizes[l + 1]], requiresGrad: true }));
  params.push(pt.fromBuffer(values(sizes[l + 1], 2 * l + 1, k), { shape: [sizes[l + 1]], requiresGrad: true }));
}
const x = pt.fromBuffer(values(batch * 784, 99, 1), { shape: [batch, 784] });
const y = pt.fromBuffer(Int32Array.from({ length: batch }, (_, i) => i % 10), { shape: [batch] });
const classes = pt.arange(10, undefined, 1, { dtype: "int32" });
const opt = big ? new pt.optim.Adam(params, { lr: 1e-3 }) : new pt.optim.SGD(params, { lr: 0.1, momentum: 0 });
const phases = { forward: 0, backward: 0, step: 0, zeroGrad: 0, tidyEnd: 0, sync: 0 };

function trainStep(timed: boolean): void {
  const t0 = performance.now();
  let t1 = 0, t2 = 0, t3 = 0, t4 = 0;
  const loss = pt.tidy(() => {
    let h = x;
    for (let i = 0; i < params.length / 2; i++) {
      h = h.matmul(params[2 * i]).add(params[2 * i + 1]);
      if (2 * i + 2 < params.length) h = h.relu();
    }
    const m = h.detach().max(1, true);
    const lse = h.sub(m).exp().sum(1, true).log().add(m);
    const l = lse.sub(h.mul(y.unsqueeze(1).eq(classes)).sum(1, true)).mean();
    l.materialize();
    t1 = performance.now();
    l.backward();
    t2 = performance.now();
    opt.step();
    t3 = performance.now();
    opt.zeroGrad();
    t4 = performance.now();
    return l;
  });
  const t5 = performance.now();
  pt.defaultDevice().sync();
  const t6 = performance.now();
  if (timed) {
    phases.forward += t1 - t0, phases.backward += t2 - t1, phases.step += t3 - t2;
    phases.zeroGrad += t4 - t3, phases.tidyEnd += t5 - t4, phases.sync += t6 - t5;
  }
  loss.dispose();
}

for (let i = 0; i < 500; i++) trainStep(false);
const n = big ? 1000 : 3000, a = performance.now();
for (let i = 0; i < n; i++) trainStep(true);
const perStep = (performance.now() - a) / n;
const us = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, +(v / n * 1000).toFixed(1)]));
console.log(`${pt.defaultDevice().id} ${which}: ${perStep.toFixed(4)} ms a step; us per phase ${JSON.stringify(us)}`);

if (env("PT_PHASE_LAUNCHES") === "1") {
  const lib = native as { pt_launch: typeof native.pt_launch };
  const orig = lib.pt_launch, steps = 200;
  let count = 0, ms = 0;
  lib.pt_launch = (q, program, args, len) => {
    const t = performance.now(), st = orig(q, program, args, len);
    count++, ms += performance.now() - t;
    return st;
  };
  try {
    for (let i = 0; i < steps; i++) trainStep(false);
  } finally {
    lib.pt_launch = orig;
  }
  console.log(`launches: ${count / steps} a step, ${(ms / steps * 1000).toFixed(1)} us a step inside pt_launch`);
}
