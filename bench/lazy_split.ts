/**
 * Where the lazy cases' time goes, on the default device (PT_DEVICE picks it): for the
 * fused 1080p chain, its eager twin and the alias case of bench/cases.ts, the wall time of
 * one run plus a sync, of one run with a sync per 200 (the pace the device keeps when the
 * host never waits), and the device time between fences before and after one run. Prints
 * one JSON line (ms). Wall figures are the best of 5 means of 200 loops.
 *
 *     PT_DEVICE=cuda deno run -A bench/lazy_split.ts      (also runs under bun)
 */
import * as pt from "../mod.ts";
import { materialize } from "./cases.ts";

const dev = pt.defaultDevice();
const q = pt.defaultQueue(dev);
const x = pt.rand([3, 1080, 1920]);
const src = pt.rand([262144]);
function fused(): void {
  using a = x.mul(1.15);
  using b = a.add(-0.02);
  using c = b.mul(0.98);
  using o = c.clamp(0, 1);
  materialize(o);
}
function alias(): void {
  using a = src.add(1);
  using m = a.mul(2);
  using d = m.sub(3);
  const outs = [0, 1, 2, 3].map(() => {
    using v = d.view(d.shape);
    return v.clone();
  });
  materialize(d);
  outs.forEach(materialize);
  outs.forEach((o) => o.dispose());
}
const cases: [string, () => void][] = [["fused", fused], ["eager", () => pt.eager(fused)], ["alias", alias]];

function bestMean(fn: () => void, syncEach: boolean): number {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) {
      fn();
      if (syncEach) dev.sync();
    }
    dev.sync();
    best = Math.min(best, (performance.now() - t0) / 200);
  }
  return best;
}

const out: Record<string, string | number> = { device: dev.id };
for (const [name, fn] of cases) {
  for (let i = 0; i < 2000; i++) { // warm-up: the JIT's top tier, and the device's caches
    fn();
    if (i % 100 === 0) dev.sync();
  }
  const t: number[] = [];
  for (let i = 0; i < 50; i++) t.push(await q.time(fn));
  t.sort((a, b) => a - b);
  out[`${name}_device_ms`] = t[25];
  out[`${name}_wall_sync_ms`] = bestMean(fn, true);
  out[`${name}_wall_pace_ms`] = bestMean(fn, false);
}
console.log(JSON.stringify(out));
x.dispose();
src.dispose();
