/**
 * Where the lazy cases' time goes, on the default device (PT_DEVICE picks it): for
 * fused_pointwise_1080p, its eager twin and deferred_alias_copy_materialize of
 * bench/cases.ts, the wall time of one run plus a sync, of one run with a sync per 200 (the
 * pace the device keeps when the host never waits), and the device time between fences
 * before and after one run. Prints one JSON line (ms). Wall figures are the best of 5 means
 * of 200 loops.
 *
 *     PT_DEVICE=cuda deno run -A bench/lazy_split.ts      (also runs under bun)
 */
import * as pt from "../mod.ts";
import { cases } from "./cases.ts";

const NAMES = ["fused_pointwise_1080p", "fused_pointwise_1080p_eager", "deferred_alias_copy_materialize"];
const dev = pt.defaultDevice();
const q = pt.defaultQueue(dev);

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
for (const name of NAMES) {
  const c = cases.find((c) => c.name === name)!;
  const s = c.setup();
  const fn = () => c.once!(s);
  for (let i = 0; i < 2000; i++) { // warm-up: the JIT's top tier, and the device's caches
    fn();
    if (i % 100 === 0) dev.sync();
  }
  c.check(s);
  const t: number[] = [];
  for (let i = 0; i < 50; i++) t.push(await q.time(fn));
  t.sort((a, b) => a - b);
  out[`${name}_device_ms`] = t[25];
  out[`${name}_wall_sync_ms`] = bestMean(fn, true);
  out[`${name}_wall_pace_ms`] = bestMean(fn, false);
  c.teardown(s);
}
console.log(JSON.stringify(out));
