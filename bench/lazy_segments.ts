/**
 * Where one run of the lazy cases spends its wall time, on the default device (PT_DEVICE
 * picks it): the script's work before its first launch, the launch calls, the work after
 * the last launch, and the sync; then the alias case's fused launch replayed with no front
 * end (launch + sync: the counterpart of the C floor's cuLaunchKernel + cuStreamSynchronize).
 * pt_launch is wrapped in a timer for the segments only. Prints one JSON line (us, medians of
 * 2000 runs after 3000 warm-up runs).
 *
 *     PT_DEVICE=cuda bun bench/lazy_segments.ts      (also runs under deno run -A)
 */
import * as pt from "../mod.ts";
import { native } from "../src/runtime/native.ts";
import { cases } from "./cases.ts";

const NAMES = ["deferred_alias_copy_materialize", "fused_pointwise_1080p", "fused_pointwise_1080p_eager"];
type Launch = typeof native.pt_launch;
const lib = native as unknown as { pt_launch: Launch };
const real = lib.pt_launch;
const dev = pt.defaultDevice();
const now = () => performance.now();
const median = (a: number[]) => +([...a].sort((x, y) => x - y)[a.length >> 1] * 1000).toFixed(2);

let first = 0, lastEnd = 0, inLaunch = 0, launches = 0;
const timed: Launch = (q, program, args, n) => {
  const t = now();
  if (launches++ === 0) first = t;
  const st = real(q, program, args, n);
  lastEnd = now();
  inLaunch += lastEnd - t;
  return st;
};

const out: Record<string, unknown> = { device: dev.id };
for (const name of NAMES) {
  const c = cases.find((c) => c.name === name)!;
  const s = c.setup();
  const seg = { before: [] as number[], launch: [] as number[], after: [] as number[], sync: [] as number[], total: [] as number[] };
  lib.pt_launch = timed;
  try {
    for (let i = 0; i < 5000; i++) {
      launches = 0;
      inLaunch = 0;
      const t0 = now();
      c.once!(s);
      const t1 = now();
      dev.sync();
      const t2 = now();
      if (i < 3000) continue;
      seg.before.push(first - t0), seg.launch.push(inLaunch), seg.after.push(t1 - lastEnd), seg.sync.push(t2 - t1), seg.total.push(t2 - t0);
    }
  } finally {
    lib.pt_launch = real;
  }
  c.check(s);
  out[name] = Object.fromEntries(Object.entries(seg).map(([k, v]) => [k, median(v)]));
  c.teardown(s);
}

// The alias expression's launch, captured once and replayed: our launch path and sync alone.
const src = pt.rand([262144]);
let captured = null as { q: number; program: number; args: Float64Array } | null; // set in a callback: no narrowing to null
lib.pt_launch = (q, program, args, n) => (captured = { q, program, args: (args as Float64Array).slice(0, n) }, real(q, program, args, n));
const a = src.add(1), m = a.mul(2), d = m.sub(3); // lazy: one fused launch, whose output stays alive until the end
d.materialize();
lib.pt_launch = real;
a.dispose();
m.dispose();
if (captured === null) throw new Error("the alias expression made no launch");
const { q, program, args } = captured;
const launch: number[] = [], sync: number[] = [];
for (let i = 0; i < 3000; i++) {
  const t0 = now();
  real(q, program, args, args.length);
  const t1 = now();
  dev.sync();
  if (i >= 500) launch.push(t1 - t0), sync.push(now() - t1);
}
out.replay_alias = { launch: median(launch), sync: median(sync) };
d.dispose();
src.dispose();
console.log(JSON.stringify(out));
