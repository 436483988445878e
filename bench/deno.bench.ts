/**
 * Deno.bench for every case of bench/cases.ts, one group per case:
 *
 *     deno bench --allow-all bench/          (deno task bench; PT_BENCH_QUICK=1 for CI, PT_BENCH_FULL=1 for the big ones)
 *
 * A case is set up on its first call (outside b.start/b.end), checked once after its first
 * timed run, and torn down when the next case starts, so one case's inputs live at a time.
 */
import { type Case, cases, QUICK, skipNote, type State } from "./cases.ts";

// Deno's types through globalThis, so that tsc with Bun's types (scripts/check.sh) also accepts this file.
type BenchDef = { name: string; group: string; n?: number; warmup?: number; fn(b: { start(): void; end(): void }): void };
const { Deno } = globalThis as unknown as { Deno: { bench(def: BenchDef): void } };

let active: { c: Case; s: State } | null = null;
function activate(c: Case): State {
  if (active?.c === c) return active.s;
  if (active) active.c.teardown(active.s);
  active = null;
  const s = c.setup();
  c.run(s);
  c.check(s);
  active = { c, s };
  return s;
}
globalThis.addEventListener("unload", () => active?.c.teardown(active.s));

if (skipNote) console.log(skipNote);
for (const c of cases) {
  Deno.bench({
    name: c.calls ? `${c.name} (${c.calls} calls)` : c.name,
    group: c.name,
    ...(QUICK ? { n: 2, warmup: 1 } : {}),
    fn(b) {
      const s = activate(c);
      b.start();
      c.run(s);
      b.end();
    },
  });
}
