/**
 * The cases of bench/cases.ts under Bun with tinybench; prints one table:
 * case, median, p10, p90, samples, per call (the host microcases), device.
 *
 *     bun bench/bun.ts [case ...]      (npm run bench; PT_BENCH_QUICK=1 for CI, PT_BENCH_FULL=1 for the big ones)
 */
import { Bench } from "tinybench";
import * as pt from "../mod.ts";
import { cases, perCall, quantile, QUICK, skipNote } from "./cases.ts";

const only = process.argv.slice(2);
const device = pt.defaultDevice().id;
const ms = (x: number) => `${x.toFixed(3)} ms`;
const rows: Record<string, string | number>[] = [], errors: string[] = [];
for (const c of cases.filter((c) => only.length === 0 || only.includes(c.name))) {
  let s;
  try {
    s = c.setup();
    c.run(s);
    c.check(s);
    const bench = new Bench({
      retainSamples: true,
      throws: true,
      ...(QUICK ? { time: 0, iterations: 2, warmupTime: 0, warmupIterations: 1 } : {}),
    });
    const state = s;
    bench.add(c.name, () => c.run(state));
    await bench.run();
    const r = bench.tasks[0].result;
    const lat = "latency" in r ? r.latency : null;
    if (!lat?.samples) throw new Error(`tinybench: task ended ${r.state}`);
    rows.push({
      case: c.name,
      median: ms(lat.p50),
      p10: ms(quantile(lat.samples, 0.1)),
      p90: ms(quantile(lat.samples, 0.9)),
      samples: lat.samplesCount,
      per_call: perCall(c, lat.p50),
      device,
    });
  } catch (e) {
    rows.push({ case: c.name, median: "error", p10: "", p90: "", samples: 0, per_call: "", device });
    errors.push(`${c.name}: ${(e as Error).message}`);
  } finally {
    if (s) c.teardown(s);
  }
}
console.table(rows);
for (const e of errors) console.log(e);
if (skipNote) console.log(skipNote);
