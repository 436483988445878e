/**
 * The Tensor methods that forward to the math, structure, statistics, counting and sampling functions: each gives what
 * its function gives on a strided (transposed) input, with the same dtype and shape, and keeps the function's errors.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

function same(got: pt.Tensor, want: pt.Tensor, what: string): void {
  try {
    assert.deepEqual(got.shape, want.shape, what);
    assert.equal(got.dtype, want.dtype, what);
    assert.deepEqual(nums(got), nums(want), what);
  } finally {
    got.dispose();
    want.dispose();
  }
}

test("unary math methods give what pt's functions give on a strided input", () => {
  using base = pt.tensor([[0.1, -0.5, 0.9], [0.3, 0.7, -0.2]]);
  using x = base.transpose(0, 1);
  const ops = ["erf", "erfc", "expm1", "log10", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh"] as const;
  for (const op of ops) same(x[op](), pt[op](x), op);
  using big = x.abs().add(1);
  same(big.acosh(), pt.acosh(big), "acosh");
  using ints = pt.tensor([[5, -3], [12, 7]], { dtype: "int32" }).transpose(0, 1);
  same(ints.bitwiseNot(), pt.bitwiseNot(ints), "bitwiseNot");
});

test("binary math methods broadcast as pt's functions do, with scalar and tensor operands", () => {
  using y = pt.tensor([[1.5, -2, 3], [-4.25, 5, 0.5]]);
  using x = pt.tensor([2, -1.5, 0.75]);
  for (const op of ["atan2", "hypot", "fmod", "floorDivide"] as const) {
    same(y[op](x), pt[op](y, x), `${op} tensor`);
    same(y[op](1.25), pt[op](y, 1.25), `${op} scalar`);
  }
  using a = pt.tensor([[12, -7], [5, 255]], { dtype: "int32" }).transpose(0, 1);
  using b = pt.tensor([3, 2], { dtype: "int32" });
  const ops = ["bitwiseAnd", "bitwiseOr", "bitwiseXor", "bitwiseLeftShift", "bitwiseRightShift"] as const;
  for (const op of ops) same(a[op](b), pt[op](a, b), op);
  assertTensorError(() => y.bitwiseAnd(x), /bitwiseAnd/);
});

test("structure and statistics methods give what pt's functions give", () => {
  using m = pt.arange(12).cast("float32").reshape([3, 4]).transpose(0, 1);
  same(m.diag(), pt.diag(m), "diag");
  same(m.diag(1), pt.diag(m, 1), "diag 1");
  same(m.diagonal(0, 1, 0), pt.diagonal(m, 0, 1, 0), "diagonal");
  using v = pt.tensor([1, 2, 3]);
  same(v.outer(v), pt.outer(v, v), "outer");
  same(m.movedim(0, 1), pt.movedim(m, 0, 1), "movedim");
  same(m.amax(1), pt.amax(m, 1), "amax");
  same(m.amin(0, true), pt.amin(m, 0, true), "amin");
  using n = pt.tensor([NaN, 1, Infinity, -Infinity, 2]);
  same(n.nansum(), pt.nansum(n), "nansum");
  same(n.nanToNum(0, 9, -9), pt.nanToNum(n, 0, 9, -9), "nanToNum");
  same(m.median(), pt.median(m), "median");
  const mr = m.median(1), mf = pt.median(m, 1);
  same(mr.values, mf.values, "median values");
  same(mr.indices, mf.indices, "median indices");
  const kr = m.kthvalue(2, 0), kf = pt.kthvalue(m, 2, 0);
  same(kr.values, kf.values, "kthvalue values");
  same(kr.indices, kf.indices, "kthvalue indices");
  same(m.quantile([0.25, 0.5], 1), pt.quantile(m, [0.25, 0.5], 1), "quantile");
  assertTensorError(() => m.kthvalue(9, 0), /kthvalue/);
});

test("counting and sampling methods give what pt's functions give", () => {
  using c = pt.tensor([3, 1, 3, 0, 1, 3], { dtype: "int64" });
  same(c.unique(), pt.unique(c), "unique");
  const ur = c.unique({ returnCounts: true }), uf = pt.unique(c, { returnCounts: true });
  same(ur.values, uf.values, "unique values");
  same(ur.counts!, uf.counts!, "unique counts");
  same(c.bincount(undefined, 6), pt.bincount(c, undefined, 6), "bincount");
  using f = pt.tensor([0.5, 1.5, 2.5, 2.9, -1]);
  same(f.histc(3, 0, 3), pt.histc(f, 3, 0, 3), "histc");
  using p = pt.tensor([0, 1, 1, 0]);
  same(p.bernoulli(), pt.tensor([0, 1, 1, 0]), "bernoulli of 0s and 1s");
  using w = pt.tensor([[0, 0, 1], [1, 0, 0]]);
  same(w.multinomial(1), pt.tensor([[2], [0]], { dtype: "int64" }), "multinomial of one-hot rows");
});
