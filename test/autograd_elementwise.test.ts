/**
 * Gradients of the elementwise ops against central finite differences (test/gradcheck.ts):
 * every differentiable unary and binary op, with broadcasting (the gradient summed back to
 * each operand's shape), JS scalars on either side, 0-d and strided operands, casts,
 * where, clamp, lerp and maskedFill.
 */
import * as pt from "../mod.ts";
import { assert, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

const X = randomInput([3, 5], 1);
const POS = randomInput([3, 5], 2, 0.3, 2); // log, sqrt, rsqrt, pow's base: positive
const ROW = randomInput([5], 3);
const AWAY = { values: X.values.map((v) => (Math.abs(v) < 0.05 ? v + 0.2 : v)), shape: X.shape }; // abs, relu: away from the kink

const UNARY: [string, (x: pt.Tensor) => pt.Tensor, typeof X][] = [
  ["neg", (x) => x.neg(), X],
  ["abs", (x) => x.abs(), AWAY],
  ["square", (x) => x.square(), X],
  ["reciprocal", (x) => x.reciprocal(), POS],
  ["exp", (x) => x.exp(), X],
  ["exp2", (x) => x.exp2(), X],
  ["log", (x) => x.log(), POS],
  ["log2", (x) => x.log2(), POS],
  ["log1p", (x) => x.log1p(), POS],
  ["sqrt", (x) => x.sqrt(), POS],
  ["rsqrt", (x) => x.rsqrt(), POS],
  ["sin", (x) => x.sin(), X],
  ["cos", (x) => x.cos(), X],
  ["tan", (x) => x.tan(), X],
  ["tanh", (x) => x.tanh(), X],
  ["sigmoid", (x) => x.sigmoid(), X],
  ["relu", (x) => x.relu(), AWAY],
  ["gelu", (x) => x.gelu(), X],
];
for (const [name, f, input] of UNARY) {
  test(`d ${name}(x)/dx matches central differences (float64 CPU, float32 on the device)`, () => gradcheck(name, f, [input]));
}

test("rounding ops and sign have zero gradient, as PyTorch", () => {
  for (const f of [(x: pt.Tensor) => x.floor(), (x: pt.Tensor) => x.ceil(), (x: pt.Tensor) => x.round(), (x: pt.Tensor) => x.trunc()]) {
    pt.tidy(() => {
      const x = pt.tensor([0.3, 1.7, -2.2], { requiresGrad: true });
      f(x).mul(x).sum().backward(); // d(f(x)·x)/dx = f(x) when f' = 0
      assert.deepEqual([...x.grad!.toArray()], [...f(x).toArray()]);
    });
  }
  pt.tidy(() => {
    const x = pt.tensor([0.5, -2, 0], { requiresGrad: true });
    x.sign().sum().backward();
    assert.deepEqual([...x.grad!.toArray()], [0, 0, 0]);
  });
});

const BINARY: [string, (a: pt.Tensor, b: pt.Tensor) => pt.Tensor, typeof X, typeof X][] = [
  ["add", (a, b) => a.add(b), X, ROW],
  ["sub", (a, b) => a.sub(b), X, ROW],
  ["mul", (a, b) => a.mul(b), X, ROW],
  ["div", (a, b) => a.div(b), X, randomInput([5], 4, 0.5, 2)],
  ["pow", (a, b) => a.pow(b), POS, randomInput([5], 5, -1.5, 2)],
  ["mod", (a, b) => a.mod(b), POS, randomInput([5], 6, 0.7, 0.9)],
  ["maximum", (a, b) => a.maximum(b), X, ROW],
  ["minimum", (a, b) => a.minimum(b), X, ROW],
];
for (const [name, f, a, b] of BINARY) {
  test(`d ${name}(a[3,5], b[5])/da and /db match central differences, b's summed over the broadcast dim`, () => gradcheck(name, f, [a, b]));
}

test("broadcasting both ways ([3,1] with [1,4]) and a 0-d operand sum the gradient back to each shape", () => {
  gradcheck("mul [3,1]x[1,4]", (a, b) => a.mul(b).add(a), [randomInput([3, 1], 7), randomInput([1, 4], 8)]);
  gradcheck("0-d", (a, s) => a.mul(s).sub(s.square()), [X, randomInput([], 9)]);
});

test("JS scalars on either side: a - 2, 2 - a, 2 / a, 2 ** a, a ** 3", () => {
  gradcheck("scalars", (a) => a.sub(2).mul(pt.sub(2, a)).add(pt.div(2, a)).add(pt.pow(2, a)).add(a.pow(3)), [POS]);
});

test("strided operands: a transposed view and a sliced one get gradients in their own layout", () => {
  gradcheck("strided", (a, b) => a.T.mul(b.slice(0, 0, 5, 2)), [randomInput([4, 3], 10), randomInput([9, 4], 11)]);
});

test("a chain of many ops with broadcast gives the chain rule's gradient", () => {
  gradcheck("chain", (x, w, b) => x.mul(w).add(b).tanh().mul(x.sigmoid()).sub(w.exp().mul(0.1)).square(), [
    X,
    ROW,
    randomInput([3, 1], 12),
  ]);
});

test("where, clamp, lerp and maskedFill route the gradient where each value came from", () => {
  gradcheck("where", (a, b) => pt.where(a.gt(0), a.mul(2), b), [AWAY, ROW]);
  gradcheck("clamp", (a) => a.clamp(-0.4, 0.45), [AWAY]);
  gradcheck("clamp tensor bounds", (a, lo, hi) => a.clamp(lo, hi), [
    AWAY,
    randomInput([5], 13, -0.9, -0.3),
    randomInput([5], 14, 0.3, 0.9),
  ]);
  gradcheck("lerp", (a, b, w) => a.lerp(b, w), [X, ROW, randomInput([3, 5], 15, 0, 1)]);
  gradcheck("maskedFill", (a, v) => a.maskedFill(a.gt(0.2), v).mul(a), [AWAY, randomInput([], 16)]);
});

test("a cast between float dtypes passes the gradient through, cast back to the input's dtype", () => {
  pt.tidy(() => {
    const x = pt.tensor([1, 2, 3], { requiresGrad: true, dtype: "float64" });
    x.cast("float32").mul(2).sum().backward();
    assert.equal(x.grad!.dtype, "float64");
    assert.deepEqual([...x.grad!.toArray()], [2, 2, 2]);
  });
});

test("comparisons, predicates and casts to integers record nothing: their results do not require gradients", () => {
  pt.tidy(() => {
    const x = pt.tensor([1, -2], { requiresGrad: true });
    for (const r of [x.gt(0), x.isnan(), x.cast("int32"), x.logicalNot()]) assert.equal(r.requiresGrad, false);
    assert.equal(x.add(1).requiresGrad, true);
  });
});
