/**
 * A small JSON-emitting runner for bench/cpu_compare.sh and bench/gpu_compare.sh: each case is set up, warmed up,
 * checked once, then timed with performance.now() around run() until a time budget or a
 * sample cap is reached. Prints {device (with whether a BLAS was found), results: {case: {median_ms, p10_ms, p90_ms, samples}
 * (+ ns_per_call for the host microcases)},
 * errors: {case: message}, skipped: [case]} on stdout; progress goes to stderr.
 *
 *     deno run --allow-all bench/run.ts [case ...]      (also runs under bun)
 */
import * as pt from "../mod.ts";
import { type Case, cases, env, perCall, quantile, QUICK, skipNote, skipped } from "./cases.ts";

/** Sampling time per case; PT_BENCH_BUDGET_MS sets it (bench/gpu_compare.sh shortens the CPU's). */
const BUDGET_MS = QUICK ? 0 : Number(env("PT_BENCH_BUDGET_MS") || 2000), MIN = QUICK ? 2 : 7, MAX = QUICK ? 2 : 1000;
/**
 * Warm-up runs: at least WARM_MIN, then more until WARM_MS or WARM_MAX runs. A fast case needs
 * thousands of runs before the JIT has optimized the front end (JavaScriptCore's top tier
 * waits longest); with a few hundred, the medians of the fast GPU cases still carried
 * unoptimized front-end time (bench/history/sessions-1-10.md, session 9). Slow cases stop at
 * WARM_MS.
 */
const WARM_MIN = QUICK ? 1 : 3, WARM_MS = QUICK ? 0 : 250, WARM_MAX = QUICK ? 1 : 20000;
const args = globalThis as unknown as { Deno?: { args: string[] }; process?: { argv: string[] } };
const only = args.Deno?.args ?? args.process?.argv.slice(2) ?? [];

type Result = { median_ms: number; p10_ms: number; p90_ms: number; samples: number; ns_per_call?: number };
function time(c: Case): Result {
  const s = c.setup();
  try {
    const w0 = performance.now();
    for (let i = 0; i < WARM_MAX && (i < WARM_MIN || performance.now() - w0 < WARM_MS); i++) c.run(s);
    c.check(s);
    const t: number[] = [];
    const t0 = performance.now();
    while (t.length < MIN || (t.length < MAX && performance.now() - t0 < BUDGET_MS)) {
      const a = performance.now();
      c.run(s);
      t.push(performance.now() - a);
    }
    t.sort((x, y) => x - y);
    const r: Result = { median_ms: quantile(t, 0.5), p10_ms: quantile(t, 0.1), p90_ms: quantile(t, 0.9), samples: t.length };
    if (c.calls) r.ns_per_call = r.median_ms * 1e6 / c.calls;
    return r;
  } finally {
    c.teardown(s);
  }
}

const results: Record<string, Result> = {}, errors: Record<string, string> = {};
if (skipNote) console.error(skipNote);
for (const c of cases.filter((c) => only.length === 0 || only.includes(c.name))) {
  try {
    results[c.name] = time(c);
    console.error(`${c.name}: ${results[c.name].median_ms.toFixed(3)} ms ${perCall(c, results[c.name].median_ms)}`);
  } catch (e) {
    errors[c.name] = (e as Error).message;
    console.error(`${c.name}: ERROR ${errors[c.name]}`);
  }
}
const dev = pt.defaultDevice();
console.log(JSON.stringify({ device: `${dev.id} ${dev.info.name}, blas: ${dev.has("blas")}`, results, errors, skipped }, null, 1));
