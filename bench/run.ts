/**
 * A small JSON-emitting runner for bench/cpu_compare.sh: each case is set up, warmed up,
 * checked once, then timed with performance.now() around run() until a time budget or a
 * sample cap is reached. Prints {device (with whether a BLAS was found), results: {case: {median_ms, p10_ms, p90_ms, samples}},
 * errors: {case: message}, skipped: [case]} on stdout; progress goes to stderr.
 *
 *     deno run --allow-all bench/run.ts [case ...]      (also runs under bun)
 */
import * as pt from "../mod.ts";
import { type Case, cases, quantile, QUICK, skipNote, skipped } from "./cases.ts";

const BUDGET_MS = QUICK ? 0 : 2000, MIN = QUICK ? 2 : 7, MAX = QUICK ? 2 : 200;
const args = globalThis as unknown as { Deno?: { args: string[] }; process?: { argv: string[] } };
const only = args.Deno?.args ?? args.process?.argv.slice(2) ?? [];

function time(c: Case): { median_ms: number; p10_ms: number; p90_ms: number; samples: number } {
  const s = c.setup();
  try {
    const w0 = performance.now();
    for (let i = 0; i < 3 && (i === 0 || performance.now() - w0 < 300); i++) c.run(s); // warm-up
    c.check(s);
    const t: number[] = [];
    const t0 = performance.now();
    while (t.length < MIN || (t.length < MAX && performance.now() - t0 < BUDGET_MS)) {
      const a = performance.now();
      c.run(s);
      t.push(performance.now() - a);
    }
    t.sort((x, y) => x - y);
    return { median_ms: quantile(t, 0.5), p10_ms: quantile(t, 0.1), p90_ms: quantile(t, 0.9), samples: t.length };
  } finally {
    c.teardown(s);
  }
}

const results: Record<string, ReturnType<typeof time>> = {}, errors: Record<string, string> = {};
if (skipNote) console.error(skipNote);
for (const c of cases.filter((c) => only.length === 0 || only.includes(c.name))) {
  try {
    results[c.name] = time(c);
    console.error(`${c.name}: ${results[c.name].median_ms.toFixed(3)} ms`);
  } catch (e) {
    errors[c.name] = (e as Error).message;
    console.error(`${c.name}: ERROR ${errors[c.name]}`);
  }
}
const dev = pt.defaultDevice();
console.log(JSON.stringify({ device: `${dev.id} ${dev.info.name}, blas: ${dev.has("blas")}`, results, errors, skipped }, null, 1));
