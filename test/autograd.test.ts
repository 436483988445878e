/**
 * The autograd contract (src/autograd/graph.ts): gradients accumulate into leaves across
 * backward calls; retainGraph; noGrad and enableGrad; detach shares storage; pt.grad and
 * pt.valueAndGrad; saved tensors outlive the tensors they alias and are freed by backward,
 * by disposing the result, and inside pt.tidy; bad uses are TensorErrors that name the op
 * and say what to do. In-place writes (copy_, add_, ...) are seen through views, come after
 * pending reads of the same storage, and are refused on tensors that require gradients.
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, test, testUnless } from "./harness.ts";

const arr = (t: pt.Tensor | null) => [...(t!.toArray() as Float32Array)];
const inUse = () => pt.memoryStats(pt.defaultDevice()).inUse;

test("gradients accumulate into a leaf across backward calls until it is set to null", () => {
  pt.tidy(() => {
    const w = pt.tensor([1, 2, 3], { requiresGrad: true });
    w.mul(w).sum().backward(); // 2w
    w.mul(3).sum().backward(); // + 3
    assert.deepEqual(arr(w.grad), [5, 7, 9]);
    w.grad = null;
    w.sum().backward();
    assert.deepEqual(arr(w.grad), [1, 1, 1]);
  });
});

test("a graph used twice needs retainGraph; the second run without it is a TensorError that says so", () => {
  pt.tidy(() => {
    const x = pt.tensor([2, -1], { requiresGrad: true });
    const y = x.exp().mul(x).sum(); // saves tensors
    y.backward(undefined, { retainGraph: true });
    y.backward();
    assertClose(arr(x.grad), [2, -1].map((v) => 2 * Math.exp(v) * (1 + v)), 1e-6);
    assertTensorError(() => y.backward(), /^backward: /, /second time/, /retainGraph/);
  });
});

test("shared subexpressions (a diamond) add their gradients: d/dx of x*x + x*x*x", () => {
  pt.tidy(() => {
    const x = pt.tensor([0.5, 2], { requiresGrad: true });
    const sq = x.mul(x);
    sq.add(sq.mul(x)).sum().backward();
    assertClose(arr(x.grad), [0.5, 2].map((v) => 2 * v + 3 * v * v), 1e-6);
  });
});

test("backward of a non-scalar needs a gradient of its shape; with one it is the vector-Jacobian product", () => {
  pt.tidy(() => {
    const x = pt.tensor([1, 2, 3], { requiresGrad: true });
    const y = x.mul(x);
    assertTensorError(() => y.backward(), /^backward: /, /one element/, /\[3\]/, /\.sum\(\)/);
    assertTensorError(() => y.backward(pt.ones([2])), /^backward: /, /shape \[2\]/);
    y.backward(pt.tensor([1, 0, 10]));
    assert.deepEqual(arr(x.grad), [2, 0, 60]);
  });
});

test("backward of a tensor that does not require gradients, or of a bool or integer result, is a TensorError", () => {
  pt.tidy(() => {
    const plain = pt.tensor([1, 2]).sum();
    assertTensorError(() => plain.backward(), /^backward: /, /does not require gradients/, /requiresGrad/);
    const x = pt.tensor([1, -2], { requiresGrad: true });
    assertTensorError(() => x.gt(0).backward(), /^backward: /, /bool tensor has no gradient/);
    assertTensorError(() => x.argmax().backward(), /^backward: /, /int64 tensor has no gradient/);
  });
});

test("requiresGrad needs a floating-point tensor, by option or requiresGrad_(), and only a leaf may change it", () => {
  assertTensorError(() => pt.tensor([1, 2], { dtype: "int32", requiresGrad: true }), /^tensor: /, /floating-point/, /int32/);
  assertTensorError(() => pt.zeros([2], { dtype: "bool", requiresGrad: true }), /^zeros: /, /floating-point/);
  pt.tidy(() => {
    assertTensorError(() => pt.arange(3, undefined, 1, { dtype: "int64" }).requiresGrad_(), /^requiresGrad_: /, /int64/);
    const x = pt.ones([2], { requiresGrad: true });
    assert.equal(x.isLeaf, true);
    const y = x.mul(2);
    assert.equal(y.isLeaf, false);
    assert.equal(y.requiresGrad, true);
    assertTensorError(() => y.requiresGrad_(false), /^requiresGrad_: /, /detach/);
    for (const f of [pt.rand, pt.randn]) assert.equal(f([2], { requiresGrad: true }).requiresGrad, true);
  });
});

test("noGrad records nothing, enableGrad records inside it, and detach gives a leaf on the same storage", () => {
  pt.tidy(() => {
    const x = pt.tensor([1, 2], { requiresGrad: true });
    const a = pt.noGrad(() => x.mul(2));
    assert.equal(a.requiresGrad, false);
    const b = pt.noGrad(() => pt.enableGrad(() => x.mul(2)));
    assert.equal(b.requiresGrad, true);
    const d = x.detach();
    assert.equal(d.requiresGrad, false);
    d.add_(10); // d does not require gradients: allowed, and x sees it
    assert.deepEqual(arr(x), [11, 12]);
    x.mul(d).sum().backward(); // d is a constant here
    assert.deepEqual(arr(x.grad), [11, 12]);
  });
});

test("pt.grad and pt.valueAndGrad differentiate a function of tensors without touching their arguments", () => {
  pt.tidy(() => {
    const f = (w: pt.Tensor, x: pt.Tensor) => x.mul(w).sum().mul(w.sum());
    const w = pt.tensor([1, 2]), x = pt.tensor([3, 4]);
    const gw = pt.grad(f)(w, x) as pt.Tensor; // d/dw (x·w)(Σw) = x Σw + (x·w)
    assert.deepEqual(arr(gw), [3 * 3 + 11, 4 * 3 + 11]);
    const both = pt.grad(f, { argnums: [0, 1] })(w, x) as pt.Tensor[];
    assert.deepEqual(arr(both[1]), [3, 6]); // w Σw
    const { value, grad } = pt.valueAndGrad(f)(w, x);
    assert.equal(Number(value.item()), 33);
    assert.deepEqual(arr(grad as pt.Tensor), arr(gw));
    assert.equal(w.grad, null);
    assert.equal(w.requiresGrad, false);
    assertTensorError(() => pt.grad((a: pt.Tensor) => a.mul(2))(w), /^grad: /, /one element/);
    assertTensorError(() => pt.grad(f, { argnums: 2 })(w, x), /^grad: /, /argnums 2/);
  });
});

test("saved tensors outlive the tensors they alias: disposing the op's inputs and result before backward is safe", () => {
  const x = pt.tensor([1, 2, 3], { requiresGrad: true });
  const y = x.exp(); // saves its result
  const z = y.mul(y);
  y.dispose();
  const loss = z.sum();
  z.dispose();
  loss.backward();
  assertClose(arr(x.grad), [1, 2, 3].map((v) => 2 * Math.exp(2 * v)), 1e-5);
  loss.dispose();
  x.dispose();
});

test("a graph's saved memory is freed by backward, or by disposing its result without backward", () => {
  const x = pt.keep(pt.randn([256, 256], { requiresGrad: true }));
  pt.collectGarbage(); // what earlier files dropped goes now, not between the samples below
  const before = inUse();
  // tidy disposes the unnamed intermediates; what the graph saved (exp's result, sin's input) stays with it.
  const loss = pt.tidy(() => x.exp().mul(x.sin()).sum());
  pt.collectGarbage();
  assert.ok(inUse() > before, "the graph holds saved tensors");
  loss.dispose(); // no backward: the nodes go with the result
  assert.ok(inUse() <= before, `disposing the result freed the graph (${inUse()} > ${before})`);
  const loss2 = pt.tidy(() => x.exp().mul(x.sin()).sum());
  loss2.backward();
  loss2.dispose();
  const withGrad = inUse();
  x.grad = null;
  assert.ok(inUse() < withGrad, "setting grad to null frees it");
  assert.ok(inUse() <= before, `backward freed the saved tensors (${inUse()} > ${before})`);
  x.dispose();
});

test("a result returned from pt.tidy keeps its graph: backward outside the tidy works and frees it", () => {
  const w = pt.keep(pt.tensor([1, 2], { requiresGrad: true }));
  const loss = pt.tidy(() => w.mul(w).exp().sum()); // the intermediates are disposed, the nodes are not
  loss.backward();
  assertClose(arr(w.grad), [1, 2].map((v) => 2 * v * Math.exp(v * v)), 1e-5);
  loss.dispose();
  w.dispose();
});

test("using a saved tensor after an in-place change is a TensorError; the change after backward is fine", () => {
  pt.tidy(() => {
    const w = pt.tensor([1, 2], { requiresGrad: true });
    const c = pt.tensor([3, 4]); // does not require gradients: in-place writes are allowed
    const loss = w.mul(c).sum(); // saves c
    c.add_(1);
    assertTensorError(() => loss.backward(), /^backward: /, /modified in place/, /mul/);
    const loss2 = w.mul(c).sum();
    loss2.backward();
    c.add_(1);
    assert.deepEqual(arr(w.grad), [4, 5]);
  });
});

test("in-place writes are refused on tensors that require gradients while recording, and allowed under noGrad", () => {
  pt.tidy(() => {
    const w = pt.tensor([1, 2], { requiresGrad: true });
    assertTensorError(() => w.add_(1), /^add_: /, /requires gradients/, /noGrad/);
    assertTensorError(() => pt.tensor([0, 0]).copy_(w), /^copy_: /, /requires gradients/);
    pt.noGrad(() => w.sub_(w.mul(0.5)));
    assert.deepEqual(arr(w), [0.5, 1]);
    assertTensorError(() => pt.tensor([1, 2], { dtype: "int32" }).add_(0.5), /^add_: /, /float32/, /int32/);
  });
});

test("an in-place write is seen through every view, and pending (lazy) reads of the old values keep them", () => {
  pt.tidy(() => {
    const p = pt.tensor([[1, 2, 3], [4, 5, 6]]);
    const row = p.slice(0, 1, 2), col = p.T;
    const before = p.mul(10); // pending in lazy mode: recorded to read the old values
    p.mul_(2);
    assert.deepEqual(arr(row), [8, 10, 12]);
    assert.deepEqual(arr(col.contiguous()), [2, 8, 4, 10, 6, 12]);
    assert.deepEqual(arr(before), [10, 20, 30, 40, 50, 60]);
    row.fill_(0); // a write into a view changes the base
    assert.deepEqual(arr(p), [2, 4, 6, 0, 0, 0]);
    p.copy_(p.flip(1)); // the value reads the target in another order: computed first, then copied
    assert.deepEqual(arr(p), [6, 4, 2, 0, 0, 0]);
    p.copy_(pt.tensor([7, 8, 9])); // broadcast
    assert.deepEqual(arr(p), [7, 8, 9, 7, 8, 9]);
    p.zero_();
    assert.deepEqual(arr(p), [0, 0, 0, 0, 0, 0]);
    assertTensorError(() => p.copy_(pt.ones([4])), /^copy_: /);
  });
});

testUnless(
  pt.lazyEnabled() ? null : "lazy mode is off (PT_LAZY=0): views are real views",
  "lazily, writing through a view of a pending result (or into one with pending views) is a TensorError, not a lost write",
  () => {
    pt.tidy(() => {
      const x = pt.tensor([[1, 2], [3, 4]]);
      const y = x.mul(2); // pending
      const v = y.T; // a pending view: its own node, not y's memory
      assertTensorError(() => v.zero_(), /^zero_: /, /pending/, /materialize\(\)/);
      assertTensorError(() => y.fill_(1), /^fill_: /, /pending views/);
      const z = x.mul(3).materialize(), w = z.T; // materialized first: a real view
      w.zero_();
      assert.deepEqual(arr(z), [0, 0, 0, 0]);
    });
  },
);

test("a 2000-step training loop (backward, in-place SGD under noGrad, inside tidy) holds device memory flat", () => {
  pt.manualSeed(1);
  const w = pt.keep(pt.randn([16, 4], { requiresGrad: true }));
  const b = pt.keep(pt.zeros([4], { requiresGrad: true }));
  const x = pt.keep(pt.randn([32, 16])), y = pt.keep(pt.randn([32, 4]));
  let at100 = 0, max = 0, first = 0, last = 0;
  for (let i = 1; i <= 2000; i++) {
    const loss = pt.tidy(() => {
      const l = x.matmul(w).add(b).sub(y).square().mean();
      l.backward();
      pt.noGrad(() => {
        w.sub_(w.grad!.mul(0.05));
        b.sub_(b.grad!.mul(0.05));
      });
      w.grad = null;
      b.grad = null;
      return Number(l.item());
    });
    if (i === 1) first = loss;
    last = loss;
    if (i === 100) at100 = inUse();
    if (i > 100) max = Math.max(max, inUse());
  }
  assert.ok(last < first * 0.9, `the loss fell (${first} -> ${last})`);
  assert.ok(max <= at100, `memory in use grew after warm-up: ${at100} at step 100, ${max} at most after`);
  for (const t of [w, b, x, y]) t.dispose();
});
