/**
 * randperm, multinomial, bernoulli and normal: reproducible by seed, permutations that are permutations, and statistical
 * properties under fixed seeds, each within 5 standard errors of its expectation, derived from the sample size (a
 * correct sampler fails such a check with probability under 1e-6); bad input as TensorErrors naming the function.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const Z = 5;

/** Asserts |got - want| <= Z standard errors. */
function near(got: number, want: number, se: number, what: string): void {
  assert.ok(Math.abs(got - want) <= Z * se, `${what}: ${got} is more than ${Z} standard errors (${se}) from ${want}`);
}

test("randperm gives a permutation of 0..n-1, the same one for the same seed", () => {
  for (const n of [0, 1, 2, 7, 100, 1001]) {
    pt.manualSeed(n);
    const p = nums(pt.randperm(n));
    assert.deepEqual([...p].sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i), `n=${n}`);
  }
  pt.manualSeed(5);
  const a = nums(pt.randperm(50));
  pt.manualSeed(5);
  assert.deepEqual(nums(pt.randperm(50)), a);
  assert.notDeepEqual(nums(pt.randperm(50)), a, "the next call draws another");
  assert.equal(pt.randperm(3, { dtype: "int32" }).dtype, "int32");
});

test("randperm's inversions and halves are distributed as a uniform permutation's", () => {
  pt.manualSeed(11);
  const n = 2000, p = nums(pt.randperm(n));
  let inv = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (p[i] > p[j]) inv++;
  near(inv, (n * (n - 1)) / 4, Math.sqrt((n * (n - 1) * (2 * n + 5)) / 72), "inversions");
  // values below n/2 among the first n/2 positions: hypergeometric, mean n/4, variance n^2/(16 (n - 1))
  const low = p.slice(0, n / 2).filter((v) => v < n / 2).length;
  near(low, n / 4, Math.sqrt((n * n) / (16 * (n - 1))), "low values in the first half");
});

test("multinomial with replacement draws each category in proportion to its weight, never a zero weight", () => {
  pt.manualSeed(21);
  const w = [1, 0, 3, 2, 0, 4], total = 10, s = 20000;
  const draws = nums(pt.multinomial(pt.tensor(w), s, true));
  assert.equal(draws.length, s);
  w.forEach((wi, i) => {
    const f = draws.filter((d) => d === i).length, p = wi / total;
    if (wi === 0) assert.equal(f, 0, `category ${i} has no weight`);
    else near(f, s * p, Math.sqrt(s * p * (1 - p)), `category ${i}`);
  });
  const rows = pt.multinomial(pt.tensor([[0, 0, 1], [1, 0, 0]]), 4, true);
  assert.deepEqual(rows.toList(), [[2n, 2n, 2n, 2n], [0n, 0n, 0n, 0n]]);
});

test("multinomial without replacement draws distinct categories, first by weight, second given the first", () => {
  pt.manualSeed(22);
  const w = [1, 3, 0, 2, 4], total = 10, rows = 20000;
  const out = pt.multinomial(pt.tensor(w).unsqueeze(0).expand([rows, 5]), 2);
  assert.deepEqual([...out.shape], [rows, 2]);
  const d = nums(out);
  for (let r = 0; r < rows; r++) assert.ok(d[2 * r] !== d[2 * r + 1] && d[2 * r] !== 2 && d[2 * r + 1] !== 2, `row ${r}`);
  w.forEach((wi, j) => {
    const p1 = wi / total;
    // P(second = j) = sum over i != j of P(first = i) * w_j / (total - w_i)
    const p2 = w.reduce((acc, wk, i) => (i === j ? acc : acc + (wk / total) * (wi / (total - wk))), 0);
    const f1 = d.filter((v, k) => k % 2 === 0 && v === j).length, f2 = d.filter((v, k) => k % 2 === 1 && v === j).length;
    near(f1, rows * p1, Math.sqrt(rows * p1 * (1 - p1)), `first draw ${j}`);
    near(f2, rows * p2, Math.sqrt(rows * p2 * (1 - p2)), `second draw ${j}`);
  });
  pt.manualSeed(3);
  const all = nums(pt.multinomial(pt.tensor([5, 1, 1, 1, 1, 1, 1]), 7));
  assert.deepEqual([...all].sort(), [0, 1, 2, 3, 4, 5, 6], "all categories: a permutation");
  pt.manualSeed(3);
  assert.deepEqual(nums(pt.multinomial(pt.tensor([5, 1, 1, 1, 1, 1, 1]), 7)), all, "reproducible by seed");
});

test("bernoulli gives 1 with each element's probability, or with p", () => {
  pt.manualSeed(31);
  const n = 20000;
  for (const p of [0.1, 0.5, 0.93]) {
    const ones = nums(pt.bernoulli(pt.full([n], p))).reduce((a, b) => a + b, 0);
    near(ones, n * p, Math.sqrt(n * p * (1 - p)), `p=${p}`);
  }
  const x = pt.bernoulli(pt.zeros([n], { dtype: "int32" }), 0.3);
  assert.equal(x.dtype, "int32");
  near(nums(x).reduce((a, b) => a + b, 0), n * 0.3, Math.sqrt(n * 0.21), "scalar p");
  const fixed = nums(pt.bernoulli(pt.tensor([0, 1, 0, 1]).reshape([2, 2]).T));
  assert.deepEqual(fixed, [0, 0, 1, 1], "probabilities 0 and 1 are certain, read through a transpose");
  const rows = pt.bernoulli(pt.zeros([2, n]), pt.tensor([[0.2], [0.7]]));
  const [r0, r1] = [0, 1].map((i) => nums(rows.narrow(0, i, 1)).reduce((a, b) => a + b, 0));
  near(r0, n * 0.2, Math.sqrt(n * 0.16), "tensor p, row 0");
  near(r1, n * 0.7, Math.sqrt(n * 0.21), "tensor p, row 1");
  pt.manualSeed(4);
  const a = nums(pt.bernoulli(pt.full([64], 0.5)));
  pt.manualSeed(4);
  assert.deepEqual(nums(pt.bernoulli(pt.full([64], 0.5))), a);
  assert.deepEqual([...pt.bernoulli(pt.zeros([0, 3])).shape], [0, 3]);
  assert.equal(pt.bernoulli(pt.tensor(1)).item(), 1);
});

test("normal's samples have the given means and standard deviations", () => {
  pt.manualSeed(41);
  const n = 20000;
  const check = (xs: number[], mu: number, sigma: number, what: string) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
    near(m, mu, sigma / Math.sqrt(xs.length), `${what} mean`);
    near(v, sigma * sigma, sigma * sigma * Math.sqrt(2 / (xs.length - 1)), `${what} variance`);
  };
  check(nums(pt.normal(3, 2, [n])), 3, 2, "numbers");
  const both = pt.normal(pt.tensor([[-5], [10]]).expand([2, n]), pt.tensor([0.5, 3]).reshape([2, 1]));
  assert.deepEqual([...both.shape], [2, n]);
  check(nums(both.narrow(0, 0, 1)), -5, 0.5, "tensor mean and std, row 0");
  check(nums(both.narrow(0, 1, 1)), 10, 3, "tensor mean and std, row 1");
  check(nums(pt.normal(pt.zeros([n], { dtype: "float64" }), 4)), 0, 4, "tensor mean, number std");
  assert.equal(pt.normal(pt.zeros([2], { dtype: "float64" })).dtype, "float64");
  assert.equal(pt.normal(0, 1, [2], { dtype: "float16" }).dtype, "float16");
  assert.deepEqual(nums(pt.normal(pt.tensor([1, 2]), 0)), [1, 2], "std 0 gives the mean");
  const m = pt.tensor([1, 2]).requiresGrad_();
  assert.equal(pt.normal(m, 1).requiresGrad, false, "no gradient (torch records a zero one)");
  pt.manualSeed(6);
  const a = nums(pt.normal(0, 1, [8]));
  pt.manualSeed(6);
  assert.deepEqual(nums(pt.normal(0, 1, [8])), a);
});

test("randperm, multinomial, bernoulli and normal reject bad input with TensorErrors naming them", () => {
  assertTensorError(() => pt.randperm(-1), /^randperm: n must be an integer >= 0, got -1/);
  assertTensorError(() => pt.randperm(2.5), /^randperm: n must be an integer >= 0/);
  assertTensorError(() => pt.multinomial(pt.tensor([1, -1]), 1), /^multinomial: the weights must be finite and non-negative/);
  assertTensorError(() => pt.multinomial(pt.tensor([1, NaN]), 1), /^multinomial: the weights must be finite and non-negative/);
  assertTensorError(() => pt.multinomial(pt.tensor([[1, 1], [0, 0]]), 1), /^multinomial: a row of weights sums to 0/);
  assertTensorError(() => pt.multinomial(pt.tensor([1, 0, 1]), 3), /^multinomial: a row has 2 nonzero weights, too few for 3/);
  assertTensorError(() => pt.multinomial(pt.tensor([1, 1]), 3), /^multinomial: cannot draw 3 samples from 2 categories/);
  assertTensorError(() => pt.multinomial(pt.tensor([1, 1]), 0), /^multinomial: numSamples must be an integer >= 1/);
  assertTensorError(
    () => pt.multinomial(pt.tensor([1, 1], { dtype: "int32" }), 1),
    /^multinomial: input must be a 1-D or 2-D floating-point/,
  );
  assertTensorError(() => pt.multinomial(pt.zeros([0]), 1), /^multinomial: input has no categories/);
  assertTensorError(() => pt.bernoulli(pt.tensor([0.5, 1.5])), /^bernoulli: the probabilities must lie in \[0, 1\]/);
  assertTensorError(() => pt.bernoulli(pt.zeros([2]), 2), /^bernoulli: p must lie in \[0, 1\], got 2/);
  assertTensorError(() => pt.bernoulli(pt.zeros([2], { dtype: "int32" })), /^bernoulli: the probabilities must be a floating-point tensor/);
  assertTensorError(() => pt.bernoulli(pt.zeros([2]), pt.zeros([3])), /^bernoulli: /);
  assertTensorError(() => pt.normal(0, -1, [2]), /^normal: std must be >= 0, got -1/);
  assertTensorError(() => pt.normal(pt.zeros([2]), pt.tensor([1, -1])), /^normal: std must be >= 0 everywhere/);
  assertTensorError(() => pt.normal(0, 1), /^normal: needs a size when mean and std are both numbers/);
  assertTensorError(() => pt.normal(pt.zeros([2]), 1, [2]), /^normal: takes a size only when/);
  assertTensorError(() => pt.normal(pt.zeros([2], { dtype: "int64" })), /^normal: mean must be a floating-point tensor/);
});
