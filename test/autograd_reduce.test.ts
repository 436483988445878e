/**
 * Gradients of the reductions, scans and matmul against central finite differences
 * (test/gradcheck.ts): prod (with zeros), max and min (with ties split evenly, as
 * torch.amax), var and std with a correction, cumsum and cumprod (with zeros), over one,
 * several, negative and all axes with keepdim both ways, on 0-d, odd-sized and strided
 * inputs; matmul of every rank pairing with broadcast batch dims, and dot.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, rng, test } from "./harness.ts";
import { gradcheck, type GradInput, randomInput } from "./gradcheck.ts";

type F = (x: pt.Tensor) => pt.Tensor;

const X = randomInput([3, 5, 7], 21);
/** Away from zero, some negative: prod's and cumprod's g * out / x stays well conditioned. */
const NONZERO: GradInput = { values: randomInput([3, 5, 7], 22, 0.6, 1.4).values.map((v, i) => (i % 3 === 0 ? -v : v)), shape: [3, 5, 7] };
/** Distinct values at least 2/n apart in a shuffled order: max and min have no near-ties. */
function distinct(shape: readonly number[], seed: number): GradInput {
  const n = shape.reduce((a, b) => a * b, 1), r = rng(seed);
  const values = Array.from({ length: n }, (_, i) => -1 + (2 * i) / n);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [values[i], values[j]] = [values[j], values[i]];
  }
  return { values, shape };
}
const DISTINCT = distinct([3, 5, 7], 23);

/** The axes each reduction is checked over (undefined: all). */
const AXES: (number | number[] | undefined)[] = [undefined, 0, 1, -1, [0, 2], [-1, -3], [0, 1, 2]];
const axesName = (a: number | number[] | undefined) => (a === undefined ? "all" : JSON.stringify(a));

/** Gradient of f(x) with respect to a leaf of these values (float32 on the default device), as a plain array. */
function gradOf(f: F, values: number[], shape: number[]): number[] {
  return pt.tidy(() => {
    const x = pt.tensor(values).reshape(shape).requiresGrad_();
    f(x).sum().backward();
    return [...(x.grad!.toArray() as Float32Array)];
  });
}

const REDUCTIONS: [string, (x: pt.Tensor, axis: number | number[] | undefined, keepdim: boolean) => pt.Tensor, GradInput][] = [
  ["prod", (x, a, k) => x.prod(a, k), NONZERO],
  ["max", (x, a, k) => x.max(a, k), DISTINCT],
  ["min", (x, a, k) => x.min(a, k), DISTINCT],
  ["var", (x, a, k) => x.var(a, k), X],
  ["std", (x, a, k) => x.std(a, k), X],
  ["var correction 0", (x, a, k) => x.var(a, k, 0), X],
  ["std correction 2", (x, a, k) => x.std(a, k, 2), X],
];
for (const [name, f, input] of REDUCTIONS) {
  test(`d ${name}(x[3,5,7])/dx over all, one, negative and several axes, keepdim both ways, matches central differences`, () => {
    for (const axis of AXES) {
      for (const keepdim of [false, true]) {
        gradcheck(`${name} axes ${axesName(axis)} keepdim ${keepdim}`, (x) => f(x, axis, keepdim), [input]);
      }
    }
  });
}

test("the reductions' gradients have the input's shape and route through the kept dims (keepdim true and false agree)", () => {
  pt.tidy(() => {
    for (const [name, f] of REDUCTIONS) {
      const x = pt.tensor(NONZERO.values).reshape([3, 5, 7]).requiresGrad_();
      const w = pt.arange(15).reshape([3, 5]);
      f(x, -1, false).mul(w).sum().backward();
      const flat = [...(x.grad!.toArray() as Float32Array)];
      x.grad = null;
      f(x, -1, true).mul(w.unsqueeze(-1)).sum().backward();
      assert.deepEqual(x.grad!.shape, [3, 5, 7], name);
      assertClose([...(x.grad!.toArray() as Float32Array)], flat, 1e-6, 1e-7, `${name} keepdim`);
    }
  });
});

test("prod with zeros: one zero gets the product of the others, the rest 0; two zeros give 0 throughout", () => {
  const f: F = (x) => x.prod(1);
  assert.deepEqual(gradOf(f, [2, 0, 3, 1, 4, 5, 0, 0, 7], [3, 3]), [0, 6, 0, 20, 5, 4, 0, 0, 0]);
  assert.deepEqual(gradOf((x) => x.prod(), [2, -3, 0, 4], [4]), [0, 0, -24, 0]);
  assert.deepEqual(gradOf((x) => x.prod(0, true), [0, 1, 2, 0, 3, 0], [2, 3]), [0, 3, 0, 0, 1, 2]);
  // prod is linear in each element, so central differences are exact at a zero too.
  const zeros = { values: NONZERO.values.map((v, i) => (i % 7 === 3 || i === 10 ? 0 : v)), shape: [3, 5, 7] };
  for (const axis of [undefined, 0, -1, [1, 2]]) gradcheck(`prod with zeros over ${axesName(axis)}`, (x) => x.prod(axis), [zeros]);
});

test("max and min split the gradient evenly among ties, as torch.amax and torch.amin", () => {
  assert.deepEqual(gradOf((x) => x.max(), [1, 3, 3], [3]), [0, 0.5, 0.5]);
  assertClose(gradOf((x) => x.min(1), [2, 2, 2, 1, 5, 1], [2, 3]), [1 / 3, 1 / 3, 1 / 3, 0.5, 0, 0.5]);
  assertClose(gradOf((x) => x.max(), [3, 1, 3, 3], [2, 2]), [1 / 3, 0, 1 / 3, 1 / 3]);
  assertClose(gradOf((x) => x.max([0, 1], true), [4, 4, -1, 0, 4, 2], [2, 3]), [1 / 3, 1 / 3, 0, 0, 1 / 3, 0]);
  assert.deepEqual(gradOf((x) => x.min(0), [1, 7, 1, 3], [2, 2]), [0.5, 0, 0.5, 1]);
  // The weighted gradient: each output's own weight, shared among its ties.
  pt.tidy(() => {
    const x = pt.tensor([[5, 5, 1], [0, 2, 2]], { requiresGrad: true });
    x.max(-1).mul(pt.tensor([2, 6])).sum().backward();
    assert.deepEqual([...x.grad!.toArray()], [1, 1, 0, 0, 3, 3]);
  });
});

test("std where it is 0 has gradient 0 (PyTorch masks it); var over fewer elements than the correction gives NaN and inf", () => {
  assert.deepEqual(gradOf((x) => x.std(1), [2, 2, 2, 1, 2, 3], [2, 3]).slice(0, 3), [0, 0, 0]);
  assert.deepEqual(gradOf((x) => x.std(), [4, 4], [2]), [0, 0]);
  // var_backward over the whole tensor with n - correction <= 0: g * (x == mean ? NaN : inf).
  assert.deepEqual(gradOf((x) => x.var(undefined, false, 2), [1, 2], [2]), [Infinity, Infinity]);
  assert.deepEqual(gradOf((x) => x.var(undefined, false, 3), [1, 1.5, 2], [3]), [Infinity, NaN, Infinity]);
  assert.ok(gradOf((x) => x.var(), [5], [1]).every(Number.isNaN));
});

test("reductions over an empty extent give empty gradients of the input's shape", () => {
  pt.tidy(() => {
    for (
      const f of [(x: pt.Tensor) => x.prod(0), (x: pt.Tensor) => x.var(0), (x: pt.Tensor) => x.std(0, true), (x: pt.Tensor) => x.cumprod(0)]
    ) {
      const x = pt.zeros([0, 3], { requiresGrad: true });
      f(x).sum().backward();
      assert.deepEqual(x.grad!.shape, [0, 3]);
    }
  });
});

for (const op of ["cumsum", "cumprod"] as const) {
  test(`d ${op}(x[3,5,7], axis)/dx along each axis, negative ones too, matches central differences`, () => {
    for (const axis of [0, 1, 2, -1, -3]) gradcheck(`${op} axis ${axis}`, (x) => x[op](axis), [op === "cumsum" ? X : NONZERO]);
  });
}

test("cumsum's gradient is the reversed running sum; cumprod's with zeros is exact before, at and after the first zero", () => {
  assert.deepEqual(gradOf((x) => x.cumsum(0), [2, 0, 3, 0, 5], [5]), [5, 4, 3, 2, 1]);
  // y = [2, 0, 0, 0]: d(sum y)/dx1 = x0 + x0 x2 + x0 x2 x3 = 38; after the zero, 0.
  assert.deepEqual(gradOf((x) => x.cumprod(0), [2, 0, 3, 5], [4]), [1, 38, 0, 0]);
  assert.deepEqual(gradOf((x) => x.cumprod(0), [2, 0, 3, 0, 5], [5]), [1, 8, 0, 0, 0]);
  assert.deepEqual(gradOf((x) => x.cumprod(1), [0, 2, 3, 1, 2, 3], [2, 3]), [9, 0, 0, 9, 4, 2]);
  // cumprod is linear in each element: central differences are exact at zeros.
  const zeros = { values: NONZERO.values.map((v, i) => (i % 5 === 2 || i % 11 === 4 ? 0 : v)), shape: [3, 5, 7] };
  for (const axis of [0, -1, 1]) gradcheck(`cumprod with zeros axis ${axis}`, (x) => x.cumprod(axis), [zeros]);
});

test("0-d inputs: every reduction and scan over dim 0 or -1 (or all) has the gradient of its one element", () => {
  const S = randomInput([], 24, 0.5, 1.5);
  const fs: [string, F][] = [
    ["prod", (x) => x.prod()],
    ["prod 0", (x) => x.prod(0, true)],
    ["max -1", (x) => x.max(-1)],
    ["min 0", (x) => x.min(0)],
    ["var correction 0", (x) => x.var(0, false, 0).add(x)],
    ["std correction 0", (x) => x.std(undefined, true, 0).add(x)],
    ["cumsum", (x) => x.cumsum(0)],
    ["cumprod", (x) => x.cumprod(-1).mul(x)],
  ];
  for (const [name, f] of fs) gradcheck(`0-d ${name}`, f, [S]);
  assert.deepEqual(gradOf((x) => x.prod().mul(3), [0], []), [3]);
  // A 0-d input is a whole-tensor reduction for var_backward: n - correction <= 0 gives NaN (x is its mean), as PyTorch.
  assert.ok(gradOf((x) => x.var(0), [2], []).every(Number.isNaN));
  assert.ok(gradOf((x) => x.var(-1, false, 2), [2], []).every(Number.isNaN));
});

/**
 * A leaf that is a strided view (a transpose, a step slice) gets the same gradient, in its
 * own shape, as a contiguous leaf of the same values: the forward ops and rules read strides.
 */
function stridedMatches(name: string, f: F, input: GradInput, view: F): void {
  pt.tidy(() => {
    const base = pt.tensor(input.values).reshape(input.shape as number[]);
    const dense = view(base).contiguous().requiresGrad_(), strided = view(base).requiresGrad_();
    assert.ok(!strided.isContiguous && dense.isContiguous, `${name}: the views`);
    const w = (y: pt.Tensor) => pt.arange(y.numel).reshape(y.shape as number[]).mul(0.1).add(1);
    for (const x of [strided, dense]) {
      const y = f(x);
      y.mul(w(y)).sum().backward();
    }
    assert.deepEqual(strided.grad!.shape, strided.shape, name);
    assertClose([...(strided.grad!.toArray() as Float32Array)], [...(dense.grad!.toArray() as Float32Array)], 1e-5, 1e-6, name);
  });
}

test("strided leaves (a transposed view, a step slice) get gradients in their own layout", () => {
  const T: F = (x) => x.transpose(0, 2), S: F = (x) => x.slice(2, 0, 7, 2);
  const cases: [string, F, GradInput][] = [
    ["prod 1", (x) => x.prod(1), NONZERO],
    ["prod with a zero", (x) => x.prod(-1), { values: NONZERO.values.map((v, i) => (i % 4 === 1 ? 0 : v)), shape: [3, 5, 7] }],
    ["max [0, 2]", (x) => x.max([0, 2]), DISTINCT],
    ["min -1 keepdim", (x) => x.min(-1, true), DISTINCT],
    ["var 0", (x) => x.var(0), X],
    ["std all", (x) => x.std(), X],
    ["cumsum 1", (x) => x.cumsum(1), X],
    ["cumprod 0", (x) => x.cumprod(0), NONZERO],
  ];
  for (const [name, f, input] of cases) {
    stridedMatches(`${name} transposed`, f, input, T);
    stridedMatches(`${name} sliced`, f, input, S);
  }
  const W = pt.tensor(randomInput([3, 2], 25).values).reshape([3, 2]), V = pt.tensor(randomInput([5, 5], 26).values).reshape([5, 5]);
  stridedMatches("matmul, strided first operand", (x) => x.matmul(W), X, T);
  stridedMatches("matmul, strided second operand", (x) => V.matmul(x), X, T);
  W.dispose(), V.dispose();
});

test("strided inputs made inside f (.T, transpose, a step slice: the movement rules) match central differences", () => {
  const views: [string, F][] = [["transpose(0, 2)", (x) => x.transpose(0, 2)], ["slice(2, 1, 7, 2)", (x) => x.slice(2, 1, 7, 2)]];
  const ops: [string, F, GradInput][] = [
    ["prod 1", (x) => x.prod(1), NONZERO],
    ["max [0, 2] keepdim", (x) => x.max([0, 2], true), DISTINCT],
    ["min -1", (x) => x.min(-1), DISTINCT],
    ["var 0", (x) => x.var(0), X],
    ["std all", (x) => x.std(undefined, false, 0), X],
    ["cumsum -1", (x) => x.cumsum(-1), X],
    ["cumprod 0", (x) => x.cumprod(0), NONZERO],
  ];
  for (const [vn, view] of views) for (const [on, op, input] of ops) gradcheck(`${on} of ${vn}`, (x) => op(view(x)), [input]);
  gradcheck("a.T @ b.slice", (a, b) => a.T.matmul(b.slice(0, 0, 7, 2)), [randomInput([4, 3], 27), randomInput([7, 4], 28)]);
  gradcheck("batched a @ b.transpose", (a, b) => a.matmul(b.transpose(1, 2)), [randomInput([2, 3, 4], 29), randomInput([2, 5, 4], 30)]);
  gradcheck("dot of a step slice", (a, b) => a.slice(0, 0, 9, 3).dot(b.T.slice(0, 1, 2).reshape([3])), [
    randomInput([9], 37),
    randomInput([3, 2], 38),
  ]);
});

const MATMUL: [string, number[], number[]][] = [
  ["1-D · 1-D", [4], [4]],
  ["1-D · 2-D", [4], [4, 3]],
  ["2-D · 1-D", [3, 4], [4]],
  ["2-D · 2-D", [3, 4], [4, 5]],
  ["batched", [2, 3, 4], [2, 4, 5]],
  ["batch broadcast [2,1,3,4] @ [5,4,2]", [2, 1, 3, 4], [5, 4, 2]],
  ["2-D · batched", [3, 4], [2, 4, 5]],
  ["1-D · batched", [4], [2, 4, 3]],
  ["batched · 1-D", [2, 3, 4], [4]],
  ["size-1 dims [1,3,1] @ [2,1,5]", [1, 3, 1], [2, 1, 5]],
];
for (const [name, sa, sb] of MATMUL) {
  test(`d matmul ${name} / da and /db match central differences, summed over broadcast batch dims`, () => {
    gradcheck(`matmul ${name}`, (a, b) => a.matmul(b), [randomInput(sa, 31), randomInput(sb, 32)]);
  });
}

test("dot: d(a·b)/da = g b and d/db = g a; with one operand constant only the other gets a gradient", () => {
  gradcheck("dot", (a, b) => a.dot(b).mul(a.sum()), [randomInput([6], 33), randomInput([6], 34)]);
  gradcheck("matmul wrt a only", (a, b) => a.matmul(b), [randomInput([2, 3], 35), randomInput([3, 2], 36)], { wrt: [0] });
  pt.tidy(() => {
    const a = pt.tensor([1, 2, 3], { requiresGrad: true }), b = pt.tensor([4, 5, 6]);
    a.dot(b).mul(2).backward();
    assert.deepEqual([...a.grad!.toArray()], [8, 10, 12]);
    assert.equal(b.grad, null);
    const m = pt.tensor([[1, 2], [3, 4]]), v = pt.tensor([1, -1], { requiresGrad: true });
    m.matmul(v).sum().backward(); // d/dv sum(m v) = column sums of m
    assert.deepEqual([...v.grad!.toArray()], [4, 6]);
  });
});
