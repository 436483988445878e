/**
 * Gradients of the movement ops against central finite differences (test/gradcheck.ts):
 * every view and copy (reshape, view, permute, transpose, T, expand, squeeze, unsqueeze,
 * flatten, slice, narrow, contiguous, clone, flip, cat, stack, to), on odd sizes with
 * negative axes, views of views, chains with elementwise ops, inputs of which only some
 * require gradients, 0-d and empty tensors, and `to` another dtype or device.
 */
import * as pt from "../mod.ts";
import { assert, test, testUnless } from "./harness.ts";
import { gradcheck, type GradInput, randomInput } from "./gradcheck.ts";

const A = randomInput([3, 5, 7], 21); // odd sizes throughout
const ROW = randomInput([5], 22);
const ONES = randomInput([5, 1, 7], 23); // for expand
const SQ = randomInput([3, 1, 5, 1], 24); // for squeeze
const S = randomInput([], 25); // 0-d
const values = (t: pt.Tensor) => [...t.toArray()].map(Number);

const OPS: [string, (x: pt.Tensor) => pt.Tensor, GradInput][] = [
  ["reshape(7, -1)", (x) => x.reshape(7, -1), A],
  ["reshape of a transposed tensor (a copy)", (x) => x.transpose(0, 2).reshape(-1), A],
  ["view(15, 7)", (x) => x.view(15, 7), A],
  ["view of a slice along the first axis", (x) => x.slice(0, 1).view([-1]), A],
  ["permute(-1, 0, -2)", (x) => x.permute(-1, 0, -2), A],
  ["permute([1, 2, 0])", (x) => x.permute([1, 2, 0]), A],
  ["transpose(0, -1)", (x) => x.transpose(0, -1), A],
  ["transpose() of the last two axes", (x) => x.transpose(), A],
  ["transpose() of a 1-d tensor (itself)", (x) => x.transpose(), ROW],
  ["T", (x) => x.T, A],
  ["expand [5, 1, 7] to [2, 5, 3, 7]", (x) => x.expand(2, 5, 3, 7), ONES],
  ["expand with -1 keeping sizes", (x) => x.expand([4, -1, 3, -1]), ONES],
  ["squeeze()", (x) => x.squeeze(), SQ],
  ["squeeze(-1)", (x) => x.squeeze(-1), SQ],
  ["squeeze([1, -1])", (x) => x.squeeze([1, -1]), SQ],
  ["unsqueeze(-2)", (x) => x.unsqueeze(-2), A],
  ["unsqueeze(0)", (x) => x.unsqueeze(0), A],
  ["flatten()", (x) => x.flatten(), A],
  ["flatten(1, -1) of a permuted tensor", (x) => x.permute(2, 0, 1).flatten(1, -1), A],
  ["slice(-1, -6, end, 3): step 3 from a negative start", (x) => x.slice(-1, -6, undefined, 3), A],
  ["slice(1, 1, 100, 2): an end past the axis", (x) => x.slice(1, 1, 100, 2), A],
  ["slice(0, -2, -1)", (x) => x.slice(0, -2, -1), A],
  ["narrow(-2, -3, 2)", (x) => x.narrow(-2, -3, 2), A],
  ["narrow(0, 1, 2)", (x) => x.narrow(0, 1, 2), A],
  ["contiguous() of a transposed tensor", (x) => x.T.contiguous(), A],
  ["contiguous() of a contiguous tensor", (x) => x.contiguous(), A],
  ["clone()", (x) => x.clone(), A],
  ["pt.flip over axes 0 and -1", (x) => pt.flip(x, [0, -1]), A],
  ["flip(1) of a sliced view", (x) => x.slice(2, 0, undefined, 2).flip(1), A],
];
for (const [name, f, input] of OPS) {
  test(`d ${name}/dx matches central differences (float64 CPU, float32 on the device)`, () => gradcheck(name, f, [input]));
}

test("slice with step 2 from a negative start: the gradient is zero off the sliced positions", () => {
  pt.tidy(() => {
    const x = pt.arange(7, undefined, 1, { dtype: "float32" }).requiresGrad_();
    x.slice(0, -5, undefined, 2).mul(pt.tensor([1, 2, 3])).sum().backward();
    assert.deepEqual(values(x.grad!), [0, 0, 1, 0, 2, 0, 3]);
  });
});

test("cat of three inputs along a negative axis, only the first and last requiring gradients", () => {
  const parts = [randomInput([3, 2], 30), randomInput([3, 5], 31), randomInput([3, 1], 32)];
  gradcheck("cat", (a, b, c) => pt.cat([a, b, c], -1), parts, { wrt: [0, 2] });
  gradcheck("cat along 0, all requiring", (a, b) => pt.cat([a.T, b.T]).square(), [parts[0], parts[2]]);
  pt.tidy(() => {
    const a = pt.ones([2, 2], { requiresGrad: true }), b = pt.ones([2, 3]), c = pt.ones([2, 1], { requiresGrad: true });
    const w = pt.arange(12, undefined, 1, { dtype: "float32" }).reshape(2, 6);
    pt.cat([a, b, c], 1).mul(w).sum().backward();
    assert.equal(b.grad, null);
    assert.deepEqual(a.grad!.toList(), [[0, 1], [6, 7]]);
    assert.deepEqual(c.grad!.toList(), [[5], [11]]);
  });
});

test("cat of a float32 and a float64 input: each gradient comes back in its input's dtype", () => {
  pt.tidy(() => {
    const a = pt.tensor([1, 2], { requiresGrad: true }), b = pt.tensor([3], { dtype: "float64", requiresGrad: true });
    const y = pt.cat([a, b]);
    assert.equal(y.dtype, "float64");
    y.square().sum().backward();
    assert.equal(a.grad!.dtype, "float32");
    assert.equal(b.grad!.dtype, "float64");
    assert.deepEqual([...values(a.grad!), ...values(b.grad!)], [2, 4, 6]);
  });
});

test("stack of three inputs along a negative axis, only some requiring gradients", () => {
  const parts = [randomInput([3, 5], 33), randomInput([3, 5], 34), randomInput([3, 5], 35)];
  gradcheck("stack(-2)", (a, b, c) => pt.stack([a, b, c], -2), parts);
  gradcheck("stack(0), middle without gradient", (a, b, c) => pt.stack([a, b.mul(a), c]).square(), parts, { wrt: [0, 2] });
  pt.tidy(() => {
    const a = pt.zeros([2], { requiresGrad: true }), b = pt.zeros([2]);
    pt.stack([a, b], 1).mul(pt.tensor([[1, 2], [3, 4]])).sum().backward();
    assert.equal(b.grad, null);
    assert.deepEqual(values(a.grad!), [1, 3]);
  });
});

test("views of views: transpose, step slice, unsqueeze, expand, reshape and narrow in one chain, and overlapping slices", () => {
  gradcheck(
    "views of views",
    (x) => x.T.slice(0, 1, undefined, 2).unsqueeze(0).expand(4, -1, -1, -1).reshape(-1).narrow(0, 3, 100),
    [A],
  );
  gradcheck("overlapping slices add up", (x) => x.slice(0, 0, 2).add(x.slice(0, 1, 3)).mul(x.narrow(0, 1, 2)), [A]);
  gradcheck("a view of a permuted view, squeezed back", (x) => x.permute(1, 2, 0).unsqueeze(1).squeeze(1).view([35, 3]), [A]);
});

test("a chain mixing views and elementwise ops with broadcast gives the chain rule's gradient", () => {
  gradcheck(
    "chain",
    (x, w, b) => x.permute(2, 0, 1).mul(w.unsqueeze(-1)).add(b).tanh().flatten(1).slice(1, 0, undefined, 2).square().flip(0),
    [A, randomInput([3], 36), ROW],
  );
  gradcheck("chain with a pending input", (x, w) => pt.cat([x.mul(2).T, w.expand(7, 5, 3)], -1).exp(), [
    A,
    randomInput([3], 37),
  ]);
});

test("0-d inputs: reshape, unsqueeze, expand, flatten, permute([]), squeeze to 0-d, clone, flip, stack, to", () => {
  gradcheck("reshape 0-d to [1, 1]", (x) => x.reshape(1, 1), [S]);
  gradcheck("unsqueeze 0-d", (x) => x.unsqueeze(-1), [S]);
  gradcheck("expand 0-d to [2, 3]", (x) => x.expand(2, 3), [S]);
  gradcheck("flatten 0-d", (x) => x.flatten(), [S]);
  gradcheck("permute 0-d", (x) => x.permute([]), [S]);
  gradcheck("squeeze [1, 1] to 0-d", (x) => x.squeeze().mul(x.squeeze()), [randomInput([1, 1], 38)]);
  gradcheck("clone, flip, contiguous, to of 0-d", (x) => x.clone().flip([]).contiguous().to(x.dtype).mul(x), [S]);
  gradcheck("stack of 0-d", (a, b) => pt.stack([a, b]).mul(a), [S, randomInput([], 39)]);
});

test("empty tensors: an empty input's gradient is an empty tensor of its shape", () => {
  pt.tidy(() => {
    const x = pt.zeros([0, 3], { requiresGrad: true });
    const ys: [string, pt.Tensor][] = [
      ["reshape", x.reshape(3, 0)],
      ["view", x.view(-1)],
      ["T", x.T],
      ["permute", x.permute(-1, 0)],
      ["expand", x.unsqueeze(1).expand(0, 2, 3)],
      ["slice", x.slice(1, 0, 3, 2)],
      ["narrow", x.narrow(1, 1, 2)],
      ["flip", x.flip(0)],
      ["clone", x.clone()],
      ["contiguous", x.contiguous()],
      ["flatten", x.flatten()],
      ["cat", pt.cat([x, x])],
      ["stack", pt.stack([x, x], -1)],
      ["to", x.to("float64")],
    ];
    for (const [name, y] of ys) assert.equal(y.requiresGrad, true, `${name} of an empty input records`);
    ys.map(([, y]) => y.sum().to("float32")).reduce((s, y) => s.add(y)).backward();
    assert.deepEqual(x.grad!.shape, [0, 3]);
  });
  pt.tidy(() => {
    const a = pt.ones([2, 3], { requiresGrad: true }), e = pt.zeros([0, 3], { requiresGrad: true });
    pt.cat([a, e, a], 0).mul(2).sum().backward();
    assert.deepEqual(e.grad!.shape, [0, 3]);
    assert.deepEqual(values(a.grad!), [4, 4, 4, 4, 4, 4]);
  });
  pt.tidy(() => {
    const x = pt.tensor([1, 2, 3], { requiresGrad: true });
    const none = x.slice(0, 2, 1); // selects nothing: its gradient is zeros of x's shape
    assert.deepEqual(none.shape, [0]);
    none.sum().add(x.narrow(0, 1, 0).sum()).backward();
    assert.deepEqual(values(x.grad!), [0, 0, 0]);
  });
});

test("to(float32) of a float64 input keeps the gradient float64; to its own dtype or device passes it through", () => {
  pt.tidy(() => {
    const x = pt.tensor([1, -2, 3], { dtype: "float64", requiresGrad: true });
    const y = x.to("float32");
    assert.equal(y.dtype, "float32");
    y.square().sum().backward();
    assert.equal(x.grad!.dtype, "float64");
    assert.deepEqual(values(x.grad!), [2, -4, 6]);
  });
  pt.tidy(() => {
    const x = pt.tensor([1, -2, 3], { requiresGrad: true });
    const same = x.to("float32"), here = x.to(x.device);
    assert.equal(same.isLeaf || here.isLeaf, false);
    same.mul(2).add(here.mul(3)).sum().backward();
    assert.deepEqual(values(x.grad!), [5, 5, 5]);
  });
});

const otherId = pt.devices().find((d) => d.id !== pt.defaultDevice().id)?.id;
const OTHER = otherId === undefined ? null : pt.device(otherId);
testUnless(
  OTHER === null ? "no second device" : null,
  "to(another device) copies the gradient back to the input's device",
  () => {
    gradcheck("to device and back", (x) => x.to(OTHER!).square().to(x.device).mul(x), [randomInput([3, 5], 40)]);
    pt.tidy(() => {
      const x = pt.tensor([1, -2, 3], { requiresGrad: true });
      const y = x.to(OTHER!);
      assert.equal(y.device, OTHER);
      y.mul(y).sum().backward();
      assert.equal(x.grad!.device, x.device);
      assert.deepEqual(values(x.grad!), [2, -4, 6]);
    });
  },
);

test("views of a tensor that requires gradients record a grad_fn (as ViewBackward); noGrad and plain tensors record none", () => {
  pt.tidy(() => {
    const x = pt.ones([2, 3], { requiresGrad: true }), plain = pt.ones([2, 3]);
    const views = [x.view(6), x.T, x.slice(1, 1), x.expand(4, 2, 3), x.unsqueeze(0), x.flatten(), x.narrow(0, 0, 1)];
    for (const v of views) assert.equal(v.requiresGrad && !v.isLeaf, true);
    assert.equal(x.isLeaf, true);
    assert.equal(plain.T.requiresGrad, false);
    assert.equal(pt.cat([plain, plain]).requiresGrad, false);
    pt.noGrad(() => {
      assert.equal(x.reshape(3, 2).requiresGrad, false);
      assert.equal(pt.stack([x, plain]).requiresGrad, false);
    });
  });
});
