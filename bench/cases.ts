/**
 * The benchmark cases, as data shared by bench/deno.bench.ts, bench/bun.ts and bench/run.ts
 * (the headline cases plus add_16m, sum_16m and matmul_1024). A case's run() is the timed
 * region: it disposes everything it makes and ends with the device idle. check() recomputes
 * once, outside timing, and throws if the result is wrong. The state is the input tensors.
 *
 * PT_BENCH_FULL=1 adds matmul_4096, add_256m and the big cases of nn_cases.ts, too big for CI on the CPU. The host-side
 * microcases of bench/micro.ts come last.
 */
import * as pt from "../mod.ts";
import { micro } from "./micro.ts";
import { NN_BIG, nnCases } from "./nn_cases.ts";

export type State = Record<string, pt.Tensor>;
export interface Case {
  name: string;
  setup(): State;
  run(state: State): void;
  check(state: State): void;
  teardown(state: State): void;
  /** Calls of the measured path per run(), where runners should report time per call. */
  calls?: number;
  /** run() without its final sync: the work is queued, not waited for (bench/lazy_split.ts). */
  once?(state: State): void;
}
type Out = pt.Tensor | pt.Tensor[];

const g = globalThis as unknown as {
  Deno?: { env: { get(n: string): string | undefined } };
  process?: { env: Record<string, string | undefined> };
};
/** An environment variable under Deno or Bun (unset when Deno lacks --allow-env). */
export function env(name: string): string | undefined {
  try {
    return g.Deno ? g.Deno.env.get(name) : g.process?.env[name];
  } catch {
    return undefined;
  }
}
export const FULL = env("PT_BENCH_FULL") === "1";
export const QUICK = env("PT_BENCH_QUICK") === "1";

/** Runs a deferred (lazy) result's kernel; a no-op for eager tensors and builds without lazy mode. */
export const materialize = (t: pt.Tensor): void => void (t as unknown as { materialize?(): unknown }).materialize?.();
/**
 * Temporaries of a case's op, disposed in reverse order when the op returns: what `using`
 * does, at the same price in both runtimes. Under Deno (V8) a scope with a `using` costs more
 * than some cases' own host work, where under Bun it is nearly free, so `using` in a case
 * would time the runtime rather than polytensor (bench/history/sessions-1-10.md, session 8).
 */
const temps: Disposable[] = [];
function tmp<T extends Disposable>(x: T): T {
  temps.push(x);
  return x;
}
function disposeTemps(from: number): void {
  while (temps.length > from) temps.pop()![Symbol.dispose]();
}
/** op(s), its temporaries disposed once it returns (or throws). */
function outputs<S extends State, T extends Out>(op: (s: S) => T, s: S): T {
  const mark = temps.length;
  try {
    return op(s);
  } finally {
    disposeTemps(mark);
  }
}
function disposeOut(out: Out): void { // loops, not forEach: these run inside the timed region
  if (out instanceof pt.Tensor) out.dispose();
  else for (let i = 0; i < out.length; i++) out[i].dispose();
}
function materializeOut(out: Out): void {
  if (out instanceof pt.Tensor) materialize(out);
  else for (let i = 0; i < out.length; i++) materialize(out[i]);
}
/** Materializes the outputs, so that the timed region does the work even in lazy mode, then disposes them. */
function finish(out: Out): void {
  try {
    materializeOut(out);
  } finally {
    disposeOut(out);
  }
}

/** Builds a case from its inputs, one repetition of its work (repeated `reps` times) and a verifier. */
function mk<S extends State, T extends Out>(name: string, setup: () => S, op: (s: S) => T, verify: (s: S, out: T) => void, reps = 1): Case {
  const once = (s: S) => {
    for (let i = 0; i < reps; i++) finish(outputs(op, s));
  };
  return {
    name,
    setup,
    once,
    run(s: S) {
      once(s);
      pt.defaultDevice().sync();
    },
    check(s: S) {
      const out = outputs(op, s);
      try {
        materializeOut(out);
        verify(s, out);
      } finally {
        disposeOut(out);
      }
    },
    teardown: (s: State) => Object.values(s).forEach((t) => t.dispose()),
  };
}

// ----- verification helpers (outside timing)
const f = Math.fround;
function fail(what: string): never {
  throw new Error(`check failed: ${what}`);
}
function near(got: number | bigint, want: number, tol: number, what: string): void {
  // item() of an int64 result (a count) is a bigint
  if (!(Math.abs(Number(got) - want) <= tol * Math.max(1, Math.abs(want)))) fail(`${what}: got ${got}, want ${want}`);
}
function same(t: pt.Tensor, want: (i: number) => number, tol: number, what: string): void {
  const got = t.toArray() as ArrayLike<number>;
  for (let i = 0; i < got.length; i++) near(got[i], want(i), tol, `${what}[${i}]`);
}
const vals = (t: pt.Tensor) => t.toArray() as ArrayLike<number>;

/** Uniform in [lo, hi): values outside [0, 1] make the clamps do work. */
function uniform(shape: number[], lo = 0, hi = 1): pt.Tensor {
  using r = pt.rand(shape);
  using s = r.mul(hi - lo);
  return s.add(lo);
}

function add(name: string, n: number): Case {
  return mk(name, () => ({ a: pt.rand([n]), b: pt.rand([n]) }), (s) => s.a.add(s.b), (s, out) => {
    if (n <= 1 << 24) {
      const [a, b] = [vals(s.a), vals(s.b)];
      return same(out, (i) => f(a[i] + b[i]), 0, "a+b");
    }
    for (const at of [0, n / 2, n - 4096]) { // 256M elements: check windows, not a 1 GiB copy
      const w = [s.a, s.b, out].map((t) => t.narrow(0, at, 4096)); // outside timing: using is fine here
      using _ = { [Symbol.dispose]: () => disposeOut(w) };
      const [a, b] = [vals(w[0]), vals(w[1])];
      same(w[2], (i) => f(a[i] + b[i]), 0, `a+b @${at}`);
    }
  });
}

/**
 * An n x n product of uniform [0, 1) operands in `dtype`; "tf32" is float32 under setMatmulPrecision("high").
 * 64 sampled entries are checked against float64 dot products of the operands' own values.
 */
function matmul(name: string, n: number, dtype: pt.DType | "tf32" = "float32"): Case {
  const dt = dtype === "tf32" ? "float32" : dtype;
  const tol = dtype === "float32" ? 1e-4 : dtype === "bfloat16" ? 8e-3 : 2e-3; // the result's rounding (f16, bf16) or TF32's inputs
  const setup = () => {
    const a = pt.rand([n, n]), b = pt.rand([n, n]);
    if (dt === "float32") return { a, b };
    using _a = a, _b = b;
    return { a: a.to(dt), b: b.to(dt) };
  };
  const op = (s: { a: pt.Tensor; b: pt.Tensor }) => {
    if (dtype !== "tf32") return s.a.matmul(s.b);
    pt.setMatmulPrecision("high");
    try {
      return s.a.matmul(s.b);
    } finally {
      pt.setMatmulPrecision("highest");
    }
  };
  return mk(name, setup, op, (s, out) => {
    const [a, b, c] = [vals(s.a), vals(s.b), vals(out)];
    for (let k = 0; k < 64; k++) {
      const i = (k * 7919) % n, j = (k * 104729) % n;
      let want = 0;
      for (let p = 0; p < n; p++) want += a[i * n + p] * b[p * n + j];
      near(c[i * n + j], want, tol, `c[${i},${j}]`);
    }
  });
}

/** The case with lazy mode off: every op launches at once (dispatch cost, or the eager twin of a fused case). */
function eager(c: Case, name = c.name): Case {
  return {
    ...c,
    name,
    run: (s) => pt.eager(() => c.run(s)),
    check: (s) => pt.eager(() => c.check(s)),
    once: c.once && ((s) => pt.eager(() => c.once!(s))),
  };
}

function binaryLoop(name: string, n: number, reps: number): Case {
  return eager(mk(name, () => ({ a: pt.rand([n]), b: pt.rand([n]) }), (s) => s.a.add(s.b), (s, out) => {
    const [a, b] = [vals(s.a), vals(s.b)];
    same(out, (i) => f(a[i] + b[i]), 0, "a+b");
  }, reps));
}

/** dispatch_overhead_small as a captured step (pt.capture): 256 adds recorded once, replayed per run. */
function capturedLoop(name: string, n: number, reps: number): Case {
  const steps = new WeakMap<State, pt.CapturedStep<[pt.Tensor, pt.Tensor], pt.Tensor>>();
  const loop = (a: pt.Tensor, b: pt.Tensor) =>
    pt.eager(() => {
      let c = a.add(b);
      for (let i = 1; i < reps; i++) {
        c.dispose();
        c = a.add(b);
      }
      return c;
    });
  const c = mk(
    name,
    () => {
      const s = { a: pt.rand([n]), b: pt.rand([n]) };
      steps.set(s, pt.capture(loop));
      return s;
    },
    (s) => steps.get(s)!(s.a, s.b),
    (s, out) => {
      const [a, b] = [vals(s.a), vals(s.b)];
      same(out, (i) => f(a[i] + b[i]), 0, "a+b");
    },
  );
  return {
    ...c,
    teardown(s) {
      steps.get(s)?.dispose();
      c.teardown(s);
    },
  };
}

const HW = [3, 1080, 1920];
const M16 = 16 * 1024 * 1024;

const all: Case[] = [
  add("add_16m", M16),
  mk("sum_16m", () => ({ a: pt.rand([M16]) }), (s) => s.a.sum(), (s, out) => {
    const a = vals(s.a);
    let want = 0;
    for (let i = 0; i < a.length; i++) want += a[i];
    near(out.item(), want, 1e-5, "sum");
  }),
  matmul("matmul_1024", 1024),
  binaryLoop("dispatch_overhead_small", 64, 256),
  capturedLoop("dispatch_overhead_small_captured", 64, 256),
  binaryLoop("eager_binary_dispatch_tight_loop", 16, 4096),
  mk("masking_ops_tight_loop", () => ({ x: pt.randn([256]), y: pt.randn([256]) }), (s) => {
    const m = tmp(s.x.gt(0));
    return pt.where(m, s.x, s.y);
  }, (s, out) => {
    const [x, y] = [vals(s.x), vals(s.y)];
    same(out, (i) => x[i] > 0 ? x[i] : y[i], 0, "where");
  }, 256),
  mk("broadcast_binary_add", () => ({ a: pt.rand([64, 128, 64]), b: pt.rand([64, 1, 64]) }), (s) => s.a.add(s.b), (s, out) => {
    const [a, b] = [vals(s.a), vals(s.b)];
    same(out, (i) => f(a[i] + b[Math.floor(i / (128 * 64)) * 64 + (i % 64)]), 0, "a+b");
  }, 32),
  mk("sort_middle_axis_64x1024x64", () => ({ x: pt.rand([64, 1024, 64]) }), (s) => {
    const c = tmp(s.x.clone());
    const { values, indices } = c.sort(1);
    return [values, indices];
  }, (s, [values, indices]) => {
    const [x, v, ix] = [vals(s.x), vals(values), indices.toArray()];
    for (let i = 0; i < 64 * 64; i++) { // each (batch, column) line along axis 1
      const base = Math.floor(i / 64) * 1024 * 64 + (i % 64);
      for (let j = 0; j < 1024; j++) {
        const at = base + j * 64, from = Number(ix[at]);
        if (v[at] !== x[base + from * 64]) fail(`sort: values[${at}] is not x at its index ${from}`);
        if (j > 0 && v[at] < v[at - 64]) fail(`sort: line ${i} not ascending at ${j}`);
      }
    }
  }),
  // In lazy mode d and its aliases are deferred until finish() materializes them, which must
  // not recompute d; eagerly (PT_LAZY=0) d is computed op by op and each alias is a copy.
  mk("deferred_alias_copy_materialize", () => ({ src: pt.rand([262144]) }), (s) => {
    const a = tmp(s.src.add(1));
    const m = tmp(a.mul(2));
    const d = m.sub(3);
    const outs = [d];
    for (let k = 0; k < 4; k++) outs.push(tmp(d.view(d.shape)).clone()); // a loop: map() and a spread cost more than the aliases
    return outs;
  }, (s, outs) => {
    const src = vals(s.src);
    outs.forEach((o, k) => same(o, (i) => f(f(f(src[i] + 1) * 2) - 3), 0, `alias ${k}`));
  }),
  mk("chw_rgb_to_hwc_u8_1080p", () => ({ x: uniform(HW, -0.1, 1.1) }), (s) => {
    const c = tmp(s.x.clamp(0, 1));
    const m = tmp(c.mul(255));
    const a = tmp(m.add(0.5));
    const u = tmp(a.cast("uint8"));
    return tmp(u.permute(1, 2, 0)).contiguous();
  }, (s, out) => {
    const x = vals(s.x), px = 1080 * 1920;
    same(out, (i) => Math.trunc(f(f(Math.min(1, Math.max(0, x[(i % 3) * px + Math.floor(i / 3)])) * 255) + 0.5)), 1, "u8");
  }),
  mk("fused_pointwise_1080p", () => ({ x: uniform(HW, -0.1, 1.1) }), (s) => {
    const a = tmp(s.x.mul(1.15));
    const b = tmp(a.add(-0.02));
    const c = tmp(b.mul(0.98));
    return c.clamp(0, 1);
  }, (s, out) => {
    const x = vals(s.x);
    same(out, (i) => Math.min(1, Math.max(0, f(f(f(x[i] * f(1.15)) + f(-0.02)) * f(0.98)))), 1e-6, "pointwise");
  }),
  mk("mask_logical_reduce_16m", () => ({ x: pt.randn([M16]) }), (s) => {
    const gt = tmp(s.x.gt(0));
    const lt = tmp(s.x.lt(0.5));
    return tmp(pt.logicalAnd(gt, lt)).countNonzero();
  }, (s, out) => {
    const x = vals(s.x);
    let want = 0;
    for (let i = 0; i < x.length; i++) if (x[i] > 0 && x[i] < 0.5) want++;
    near(out.item(), want, 0, "count");
  }),
  // A transform-reduce: in lazy mode the squared difference is never written to memory.
  mk("sq_diff_mean_16m", () => ({ x: pt.rand([M16]), y: pt.rand([M16]) }), (s) => {
    const d = tmp(s.x.sub(s.y));
    return tmp(d.square()).mean();
  }, (s, out) => {
    const [x, y] = [vals(s.x), vals(s.y)];
    let want = 0;
    for (let i = 0; i < x.length; i++) want += f(f(x[i] - y[i]) ** 2);
    near(out.item(), want / x.length, 1e-5, "mean");
  }),
  mk("noncontig_chw_hwc_copy_1080p", () => ({ x: pt.rand(HW) }), (s) => {
    const hwc = tmp(s.x.permute(1, 2, 0)).contiguous();
    return [hwc, tmp(hwc.permute(2, 0, 1)).contiguous()];
  }, (s, [hwc, back]) => {
    const x = vals(s.x), px = 1080 * 1920;
    same(hwc, (i) => x[(i % 3) * px + Math.floor(i / 3)], 0, "hwc");
    same(back, (i) => x[i], 0, "back");
  }),
  matmul("matmul_4096", 4096),
  matmul("matmul_4096_f16", 4096, "float16"),
  matmul("matmul_4096_bf16", 4096, "bfloat16"),
  matmul("matmul_4096_tf32", 4096, "tf32"),
  add("add_256m", 256 * 1024 * 1024),
  ...nnCases(mk) as Case[],
  ...micro,
];
// The eager twins of the fused cases: the lazy issue's target is the ratio of the two.
for (const name of ["fused_pointwise_1080p", "sq_diff_mean_16m"]) {
  const at = all.findIndex((c) => c.name === name);
  all.splice(at + 1, 0, eager(all[at], `${name}_eager`));
}

const BIG = new Set(["matmul_4096", "matmul_4096_f16", "matmul_4096_bf16", "matmul_4096_tf32", "add_256m", ...NN_BIG]);
/** The cases to run: all of them with PT_BENCH_FULL=1, else all but the two big ones. */
export const cases: Case[] = all.filter((c) => FULL || !BIG.has(c.name));
export const skipped: string[] = all.filter((c) => !cases.includes(c)).map((c) => c.name);
/** A line for runners to print, or "" when nothing was skipped. */
export const skipNote = skipped.length ? `skipped ${skipped.join(", ")} (too big for the CPU in CI; set PT_BENCH_FULL=1)` : "";

/** "12.3 ns/call" for a case that makes many calls per run, else "". */
export function perCall(c: Case, ms: number): string {
  return c.calls ? `${(ms * 1e6 / c.calls).toFixed(1)} ns/call` : "";
}

/** The p-quantile (0..1) of ascending samples, interpolating linearly. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  const at = (sorted.length - 1) * p, lo = Math.floor(at), hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}
