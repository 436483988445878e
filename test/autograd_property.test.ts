/**
 * Seeded random differentiable programs (broadcasts, views, reductions, matmul over two or
 * three leaves) checked against central finite differences (test/gradcheck.ts): each
 * program's gradients in float64 on the CPU and in float32 on the test device.
 * PT_PROPERTY_SEED runs one program; PT_AUTOGRAD_PROGRAMS sets how many (default 60 on the CPU, 20 elsewhere).
 */
import * as pt from "../mod.ts";
import { env, rng, test } from "./harness.ts";
import { gradcheck, type GradInput, randomInput } from "./gradcheck.ts";

type Value = { f: (xs: pt.Tensor[]) => pt.Tensor; shape: number[]; text: string };
interface Program {
  inputs: GradInput[];
  f: (...xs: pt.Tensor[]) => pt.Tensor;
  text: string;
}

function program(seed: number): Program {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const m = 2 + Math.floor(r() * 3), n = 2 + Math.floor(r() * 3), k = 1 + Math.floor(r() * 3);
  const shapes = [[m, n], pick([[n], [m, 1], [1, n]]), [n, k]];
  const inputs = shapes.map((s, i) => randomInput(s, seed * 7 + i));
  const leaves: Value[] = shapes.map((s, i) => ({ f: (xs) => xs[i], shape: s, text: `x${i}` }));
  let v: Value = leaves[0];
  const steps = 3 + Math.floor(r() * 4);
  for (let i = 0; i < steps; i++) v = step(v, leaves, r, pick);
  return { inputs, f: (...xs) => v.f(xs), text: v.text };
}

const broadcast = (a: number[], b: number[]): number[] | null => {
  const out: number[] = [], n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1, y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(Math.max(x, y));
  }
  return out;
};

function step(v: Value, leaves: Value[], r: () => number, pick: <T>(xs: readonly T[]) => T): Value {
  const s = v.shape;
  const options: (() => Value | null)[] = [
    () => {
      const [name, u] = pick(
        [
          ["tanh", (x: pt.Tensor) => x.tanh()],
          ["sigmoid", (x: pt.Tensor) => x.sigmoid()],
          [
            "sin",
            (x: pt.Tensor) => x.sin(),
          ],
          ["square", (x: pt.Tensor) => x.square()],
          ["exp", (x: pt.Tensor) => x.mul(0.5).exp()],
        ] as const,
      );
      return { f: (xs) => u(v.f(xs)), shape: s, text: `${name}(${v.text})` };
    },
    () => {
      const w = pick(leaves);
      const shape = broadcast(s, w.shape);
      if (shape === null) return null;
      const [name, b] = pick(
        [
          ["add", (x: pt.Tensor, y: pt.Tensor) => x.add(y)],
          ["mul", (x: pt.Tensor, y: pt.Tensor) => x.mul(y)],
          ["sub", (x: pt.Tensor, y: pt.Tensor) => x.sub(y)],
          ["div", (x: pt.Tensor, y: pt.Tensor) => x.div(y.square().add(1))],
        ] as const,
      );
      return { f: (xs) => b(v.f(xs), w.f(xs)), shape, text: `${name}(${v.text}, ${w.text})` };
    },
    () => (s.length === 2 ? { f: (xs) => v.f(xs).T, shape: [s[1], s[0]], text: `${v.text}.T` } : null),
    () => (s[0] >= 2 ? { f: (xs) => v.f(xs).slice(0, 1), shape: [s[0] - 1, ...s.slice(1)], text: `${v.text}.slice(0, 1)` } : null),
    () => (s.length < 3 ? { f: (xs) => v.f(xs).unsqueeze(0).expand([2, ...s]), shape: [2, ...s], text: `expand(${v.text})` } : null),
    () => ({ f: (xs) => v.f(xs).reshape([-1]), shape: [s.reduce((a, b) => a * b, 1)], text: `${v.text}.flatten()` }),
    () => {
      if (s.length === 0) return null;
      const axis = Math.floor(r() * s.length), keep = r() < 0.5, mean = r() < 0.5;
      const shape = keep ? s.map((d, i) => (i === axis ? 1 : d)) : s.filter((_, i) => i !== axis);
      return {
        f: (xs) => (mean ? v.f(xs).mean(axis, keep) : v.f(xs).sum(axis, keep)),
        shape,
        text: `${mean ? "mean" : "sum"}(${v.text}, ${axis}, ${keep})`,
      };
    },
    () => {
      const w = leaves[2];
      if (s.length !== 2 || s[1] !== w.shape[0]) return null;
      return { f: (xs) => v.f(xs).matmul(w.f(xs)), shape: [s[0], w.shape[1]], text: `matmul(${v.text}, ${w.text})` };
    },
  ];
  for (let tries = 0; tries < 20; tries++) {
    const next = pick(options)();
    if (next !== null && next.shape.reduce((a, b) => a * b, 1) <= 64) return next;
  }
  return v;
}

const one = env("PT_PROPERTY_SEED");
// Fewer on a GPU, where each program's float32 kernels are compiled once (NVRTC, shaderc) before they run.
const count = Number(env("PT_AUTOGRAD_PROGRAMS") ?? (pt.defaultDevice().info.backend === "cpu" ? 60 : 20));
const seeds = one !== undefined ? [Number(one)] : Array.from({ length: count }, (_, i) => i + 1);

test(`${seeds.length} seeded random differentiable programs (broadcast, views, reductions, matmul) match central differences`, () => {
  const failures: string[] = [];
  for (const seed of seeds) {
    const p = program(seed);
    try {
      pt.tidy(() => gradcheck(`program ${seed}`, p.f, p.inputs));
    } catch (e) {
      failures.push(`program ${seed} (PT_PROPERTY_SEED=${seed}): ${p.text}\n  ${String(e).split("\n")[0]}`);
    }
  }
  if (failures.length > 0) throw new Error(`${failures.length} of ${seeds.length} programs failed:\n${failures.slice(0, 8).join("\n")}`);
});
