/**
 * Scopes: pt.tidy disposes every tensor made inside it except what it returns, nests, and
 * cleans up after a throw; pt.keep exempts a tensor; async functions are refused; ops free
 * the intermediates they make themselves (casts, contiguous copies, partial results).
 */
import * as pt from "../mod.ts";
import { assert, assertClose, assertTensorError, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);

test("tidy disposes the unnamed intermediates of a chain and returns its result", () => {
  using x = pt.tensor([[1, -2], [3, 4]]), w = pt.tensor([[1, 0], [0, -1]]);
  const base = pt.liveBytes();
  const made: pt.Tensor[] = [];
  const y = pt.tidy(() => {
    const m = x.matmul(w), a = m.add(1), r = a.relu();
    made.push(m, a);
    return r;
  });
  assert.ok(made.every((t) => t.disposed), "the matmul and add results were disposed");
  assert.ok(!y.disposed && !x.disposed && !w.disposed, "the result and the tensors made before tidy stay");
  assert.deepEqual(nums(y), [2, 3, 4, 0]);
  y.dispose();
  assert.equal(pt.liveBytes(), base, "nothing tidy made is left");
});

test("tidy keeps tensors returned in arrays, Maps and plain objects", () => {
  const base = pt.liveBytes();
  const out = pt.tidy(() => {
    const a = pt.ones([3]), b = a.mul(2), c = b.add(1);
    pt.zeros([100]); // made and dropped: disposed
    return { pair: [b, c], m: new Map([["a", a]]), n: 3 };
  });
  const [b, c] = out.pair, a = out.m.get("a")!;
  assert.deepEqual([nums(a), nums(b), nums(c)], [[1, 1, 1], [2, 2, 2], [3, 3, 3]]);
  for (const t of [a, b, c]) t.dispose();
  assert.equal(pt.liveBytes(), base);
});

test("a nested tidy's result belongs to the enclosing tidy, which disposes it unless returned", () => {
  let inner: pt.Tensor | null = null;
  const base = pt.liveBytes();
  const outer = pt.tidy(() => {
    inner = pt.tidy(() => pt.arange(4).add(1));
    assert.ok(!inner.disposed, "alive after its own tidy");
    return inner.sum();
  });
  assert.ok(inner!.disposed, "the enclosing tidy disposed the inner result it did not return");
  assert.equal(outer.item(), 10);
  outer.dispose();
  assert.equal(pt.liveBytes(), base);
});

test("tidy disposes what the function made when it throws, and the error propagates", () => {
  const base = pt.liveBytes();
  let made: pt.Tensor | null = null;
  assert.throws(() =>
    pt.tidy(() => {
      made = pt.ones([10]).add(1).materialize();
      throw new Error("boom");
    }), /boom/);
  assert.ok(made!.disposed);
  assert.equal(pt.liveBytes(), base);
});

test("pt.keep exempts a tensor from every scope: a parameter updated inside tidy steps survives", () => {
  let wt = pt.keep(pt.zeros([4]));
  const base = pt.liveBytes();
  for (let step = 0; step < 5; step++) {
    pt.tidy(() => {
      const grad = pt.ones([4]).mul(0.5);
      const next = pt.keep(wt.sub(grad).materialize());
      wt.dispose();
      wt = next;
    });
  }
  assertClose(wt.toArray() as Float32Array, [-2.5, -2.5, -2.5, -2.5]);
  assert.equal(pt.liveBytes(), base, "one parameter's bytes, as before the steps");
  wt.dispose();
});

test("tidy refuses an async function with a TensorError and disposes what it made before its first await", async () => {
  let made: pt.Tensor | null = null;
  const base = pt.liveBytes();
  let pending: Promise<unknown> | null = null;
  assertTensorError(
    () =>
      pt.tidy(() => {
        made = pt.ones([8]).materialize();
        pending = (async () => {
          await null;
        })();
        return pending;
      }),
    /^tidy: /,
    /Promise/,
    /synchronous/,
  );
  await pending;
  assert.ok(made!.disposed);
  assert.equal(pt.liveBytes(), base);
  assertTensorError(() => pt.tidy(42 as unknown as () => void), /^tidy: expects a function, got number/);
  assertTensorError(() => pt.keep({} as pt.Tensor), /^keep: expects a Tensor/);
});

test("tidy around deferred (lazy) chains: disposing pending intermediates leaves the result's value intact", () => {
  using x = pt.arange(6).reshape([2, 3]);
  const r = pt.tidy(() => {
    const a = x.mul(2), b = a.add(1), c = b.T; // a view of a pending result
    return c.sub(a.T);
  });
  assert.deepEqual(r.shape, [3, 2]);
  assert.deepEqual(nums(r), [1, 1, 1, 1, 1, 1]);
  r.dispose();
});

test("ops free the intermediates they make (casts, contiguous copies, partial results): only the result's bytes remain", () => {
  using f = pt.randn([6, 5]), h = f.to("float16").materialize(), i = pt.tensor([[1, 2, 3, 4, 5]], { dtype: "int32" });
  using fT = f.T, mask = f.gt(0).materialize(), idx = pt.tensor([0n, 2n, 1n]), b3 = pt.randn([2, 6, 5]);
  using col = pt.tensor([[0n], [1n], [2n], [3n], [4n], [0n]]), row = pt.tensor([[0n, 1n, 2n, 3n, 4n]]);
  const cases: Record<string, () => pt.Tensor | { values: pt.Tensor; indices: pt.Tensor }> = {
    "int32 + float32": () => i.add(f),
    "float16 * float32": () => h.mul(f),
    "sum of float16": () => h.sum(0),
    "var of a transposed view": () => fT.var(0),
    "argmax of a transposed view": () => fT.argmax(1),
    "cumsum of a transposed view": () => fT.cumsum(1),
    "matmul of a transposed view": () => fT.matmul(f),
    "matmul of float16": () => h.matmul(h.T),
    "matmul of int32": () => i.matmul(i.T),
    "batched matmul with broadcast": () => b3.matmul(fT),
    "gather": () => f.gather(1, col),
    "indexSelect of a view": () => fT.indexSelect(0, idx),
    "scatterAdd into a view": () => fT.scatterAdd(1, col.narrow(0, 0, 5), 1.5),
    "scatter": () => f.scatter(0, row, 1),
    "indexPut": () => f.indexPut([idx], 2),
    "maskedSelect of views": () => fT.maskedSelect(mask.T),
    "nonzero of a view": () => mask.T.nonzero(),
    "sort of a view": () => fT.sort(1),
    "topk of a view": () => fT.topk(2, 1),
    "cat of mixed dtypes": () => pt.cat([f, i.expand(6, 5)]),
    "clamp of a view": () => fT.clamp(0, 1),
    "a fused reduction": () => { // in lazy mode the sum fuses the chain; eagerly a and b are real tensors
      using a = f.sub(1), b = a.square();
      return b.sum(1);
    },
    "float16 read": () => (h.toArray(), pt.zeros([1])),
    "read of a view": () => (fT.toList(), pt.zeros([1])),
  };
  for (const [name, fn] of Object.entries(cases)) {
    const base = pt.liveBytes();
    const r = fn();
    for (const o of r instanceof pt.Tensor ? [r] : [r.values, r.indices]) {
      o.toArray();
      o.dispose();
    }
    assert.equal(pt.liveBytes(), base, `${name}: bytes left after its result was disposed`);
  }
});
