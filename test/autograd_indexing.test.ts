/**
 * Gradients of the indexing and sorting ops against central finite differences
 * (test/gradcheck.ts): gather, indexSelect, scatter (no reduce, "add", "max", "min"),
 * scatterAdd, indexPut (with and without accumulate), index, maskedSelect, and the values of
 * sort and topk; with repeated indices (which accumulate), negative ones, int32 and int64
 * index tensors, the "clamp" and "wrap" modes, odd sizes, broadcast values and masks, and a
 * hand-checked case of each. Integer results (indices, argsort, nonzero) record nothing.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

type IDType = "int32" | "int64";
const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** An index tensor of this shape on x's device. */
function ix(x: pt.Tensor, values: readonly number[], shape: readonly number[], dtype: IDType = "int64"): pt.Tensor {
  return pt.tensor([...values], { dtype, device: x.device }).reshape(shape as number[]);
}

/** Index values in [lo, hi), reproducible (repeats certain when there are more than hi - lo). */
function randIdx(shape: readonly number[], lo: number, hi: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: numel(shape) }, () => lo + Math.floor(r() * (hi - lo)));
}

/** Index values of this shape that are distinct along axis (a random permutation of [0, size) per fiber), some written negative. */
function uniqueIdx(shape: readonly number[], axis: number, size: number, seed: number): number[] {
  const r = rng(seed), out = new Array<number>(numel(shape)).fill(0);
  const stride = numel(shape.slice(axis + 1)), len = shape[axis];
  for (let base = 0; base < out.length; base++) {
    if (Math.floor(base / stride) % len !== 0) continue; // the first element of a fiber
    const perm = [...Array(size).keys()];
    for (let i = size - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    for (let j = 0; j < len; j++) out[base + j * stride] = r() < 0.5 ? perm[j] - size : perm[j];
  }
  return out;
}

/** A bool mask of this shape on x's device. */
function maskOf(x: pt.Tensor, shape: readonly number[], seed: number): pt.Tensor {
  const r = rng(seed);
  return pt.tensor(Array.from({ length: numel(shape) }, () => r() < 0.55), { device: x.device }).reshape(shape as number[]);
}

const X = randomInput([3, 5, 7], 1);

/** The gradient of x after (f(x) * w).sum() with w = 1, 2, 3, ... (each output element's gradient is its position + 1). */
function gradOf(data: readonly number[], shape: readonly number[], f: (x: pt.Tensor) => pt.Tensor): number[] {
  return pt.tidy(() => {
    const x = pt.tensor([...data]).reshape(shape as number[]).requiresGrad_();
    const y = f(x);
    y.backward(pt.arange(1, y.numel + 1).reshape(y.shape as number[]));
    return nums(x.grad!);
  });
}

// ----- gather

test("gather: gradcheck along each axis of [3,5,7] with repeated and negative int64 and int32 indices", () => {
  const cases: [number, number[], IDType][] = [
    [0, [4, 5, 7], "int64"],
    [1, [3, 4, 7], "int32"],
    [2, [3, 5, 9], "int64"],
    [-2, [2, 6, 3], "int32"], // smaller than the input outside the axis, longer along it
  ];
  for (const [axis, shape, dtype] of cases) {
    const size = X.shape.at(axis)!;
    const idx = randIdx(shape, -size, size, 10 + shape[1]);
    gradcheck(`gather axis ${axis} ${dtype}`, (x) => x.gather(axis, ix(x, idx, shape, dtype)), [X]);
  }
});

test("gather: index [[0,0],[1,0]] gives each input element the count of its picks, [[2,0],[1,1]]", () => {
  pt.tidy(() => {
    const x = pt.tensor([[1, 2], [3, 4]], { requiresGrad: true });
    x.gather(1, pt.tensor([[0, 0], [1, 0]], { dtype: "int64" })).sum().backward();
    assert.deepEqual(nums(x.grad!), [2, 0, 1, 1]);
  });
  // Weighted, with a transposed (strided) index tensor: [[0,1],[0,0]]^T = [[0,0],[1,0]].
  assert.deepEqual(gradOf([1, 2, 3, 4], [2, 2], (x) => x.gather(1, pt.tensor([[0, 1], [0, 0]], { dtype: "int32" }).T)), [3, 0, 4, 3]);
});

test("gather, indexSelect and index in modes clamp and wrap send the gradient to the clamped or wrapped positions", () => {
  const idx = [-1, 5, -4, 3, 1, 8, -7]; // on a size of 5
  for (const mode of ["clamp", "wrap"] as const) {
    gradcheck(`gather ${mode}`, (x) => x.gather(1, ix(x, idx, [1, 7, 1]), mode), [randomInput([2, 5, 3], 20)]);
    gradcheck(`indexSelect ${mode}`, (x) => x.indexSelect(1, ix(x, idx, [7], "int32"), mode), [randomInput([2, 5, 3], 21)]);
    gradcheck(`index ${mode}`, (x) => x.index([ix(x, idx, [7])], mode), [randomInput([5, 3], 22)]);
  }
  // [-1, 5, -4, 1] on a size of 3, g = 1..4: clamp picks [0, 2, 0, 1], so [1+3, 4, 2]; wrap picks [2, 2, 2, 1], so [0, 4, 1+2+3].
  type Pick = (x: pt.Tensor, i: pt.Tensor, m: "clamp" | "wrap") => pt.Tensor;
  const ops: Pick[] = [(x, i, m) => x.gather(0, i, m), (x, i, m) => x.indexSelect(0, i, m), (x, i, m) => x.index([i], m)];
  for (const f of ops) {
    for (const [mode, want] of [["clamp", [4, 4, 2]], ["wrap", [0, 4, 6]]] as const) {
      assert.deepEqual(gradOf([1, 2, 3], [3], (x) => f(x, pt.tensor([-1, 5, -4, 1], { dtype: "int64" }), mode)), want);
    }
  }
});

// ----- indexSelect

test("indexSelect: gradcheck along each axis of [3,5,7], repeated and negative int64 and int32 indices, a 0-d index and a 0-d input", () => {
  for (const [axis, dtype] of [[0, "int64"], [1, "int32"], [-1, "int64"]] as const) {
    const size = X.shape.at(axis)!;
    const idx = randIdx([size + 3], -size, size, 30 + size);
    gradcheck(`indexSelect axis ${axis} ${dtype}`, (x) => x.indexSelect(axis, ix(x, idx, [size + 3], dtype)), [X]);
  }
  gradcheck("indexSelect 0-d index", (x) => x.indexSelect(1, ix(x, [-2], [])), [X]);
  gradcheck("indexSelect of a 0-d input", (x) => x.indexSelect(0, ix(x, [0, -1, 0], [3])), [randomInput([], 31)]);
});

test("indexSelect: repeated indices accumulate, [2,0,2,-1] on a [2,4] input along axis 1", () => {
  // g = [[1,2,3,4],[5,6,7,8]]: column 2 gets 1+3 and 5+7, column 0 gets 2 and 6, column 3 (-1) gets 4 and 8.
  assert.deepEqual(gradOf([0, 1, 2, 3, 4, 5, 6, 7], [2, 4], (x) => x.indexSelect(1, pt.tensor([2, 0, 2, -1], { dtype: "int64" }))), [
    2,
    0,
    4,
    4,
    6,
    0,
    12,
    8,
  ]);
});

// ----- scatter and scatterAdd

test("scatter: gradcheck for self (zeroed where written) and src (gathered), unique indices, src larger than index, a scalar src", () => {
  const shape = [3, 4, 7];
  for (const [axis, dtype] of [[1, "int64"], [2, "int32"]] as const) {
    const ishape = axis === 1 ? shape : [3, 5, 4];
    const idx = uniqueIdx(ishape, axis, X.shape[axis], 40 + axis);
    gradcheck(`scatter axis ${axis} ${dtype}`, (x, s) => x.scatter(axis, ix(x, idx, ishape, dtype), s), [X, randomInput(ishape, 41)]);
    gradcheck(
      `scatter axis ${axis}, src larger than index`,
      (x, s) => x.scatter(axis, ix(x, idx, ishape, dtype), s),
      [X, randomInput(ishape.map((d) => d + 1), 42)],
    );
    gradcheck(`scatter axis ${axis}, scalar src`, (x) => x.scatter(axis, ix(x, idx, ishape, dtype), 0.5), [X]);
  }
  const idx = [-1, 5, -7, 2]; // clamp on size 5: 0, 4, 0, 2 (two 0s: not unique), so wrap only: 4, 0, 3, 2
  gradcheck("scatter wrap", (x, s) => x.scatter(0, ix(x, idx, [4]), s, { mode: "wrap" }), [randomInput([5], 43), randomInput([4], 44)]);
  gradcheck("scatter clamp", (x, s) => x.scatter(0, ix(x, [-1, 9, 2], [3]), s, { mode: "clamp" }), [
    randomInput([5], 45),
    randomInput([3], 46),
  ]);
});

test("scatter: the written positions of self get no gradient, src gets the gradient where it was written", () => {
  // self [5], index [3, 0], g = 1..5: self's gradient is g zeroed at 3 and 0; src's is g at 3 and 0 = [4, 1].
  pt.tidy(() => {
    const x = pt.zeros([5], { requiresGrad: true }), s = pt.tensor([7, 8], { requiresGrad: true });
    x.scatter(0, pt.tensor([3, 0], { dtype: "int64" }), s).backward(pt.arange(1, 6));
    assert.deepEqual(nums(x.grad!), [0, 2, 3, 0, 5]);
    assert.deepEqual(nums(s.grad!), [4, 1]);
  });
});

test("scatterAdd and scatter with reduce add: gradcheck with repeated indices, int32 and int64, modes clamp and wrap", () => {
  const ishape = [3, 4, 7], idx = randIdx(ishape, -5, 5, 50);
  gradcheck("scatterAdd", (x, s) => x.scatterAdd(1, ix(x, idx, ishape), s), [X, randomInput(ishape, 51)]);
  gradcheck("scatterAdd int32, src larger", (x, s) => x.scatterAdd(1, ix(x, idx, ishape, "int32"), s), [X, randomInput([4, 6, 7], 52)]);
  const wide = randIdx(ishape, -9, 9, 53);
  for (const mode of ["clamp", "wrap"] as const) {
    gradcheck(`scatter add ${mode}`, (x, s) => x.scatter(1, ix(x, wide, ishape), s, { reduce: "add", mode }), [X, randomInput(ishape, 54)]);
  }
});

test("scatterAdd: self gets the gradient unchanged, src [a,b,c] at [1,1,-1] gets g[1], g[1], g[2]", () => {
  pt.tidy(() => {
    const x = pt.zeros([3], { requiresGrad: true }), s = pt.tensor([1, 2, 3], { requiresGrad: true });
    x.scatterAdd(0, pt.tensor([1, 1, -1], { dtype: "int32" }), s).backward(pt.tensor([10, 20, 30]));
    assert.deepEqual(nums(x.grad!), [10, 20, 30]);
    assert.deepEqual(nums(s.grad!), [20, 20, 30]);
  });
});

test("scatter with reduce max and min: gradcheck with distinct values, repeated indices, self winning at some positions", () => {
  const ishape = [3, 4, 7], idx = randIdx(ishape, -5, 5, 60);
  for (const reduce of ["max", "min"] as const) {
    gradcheck(`scatter ${reduce}`, (x, s) => x.scatter(1, ix(x, idx, ishape), s, { reduce }), [X, randomInput(ishape, 61)]);
    gradcheck(
      `scatter ${reduce} int32 wrap, src larger`,
      (x, s) => x.scatter(1, ix(x, idx, ishape, "int32"), s, { reduce, mode: "wrap" }),
      [
        X,
        randomInput([3, 5, 8], 62),
      ],
    );
    gradcheck(`scatter ${reduce} scalar src`, (x) => x.scatter(1, ix(x, idx, ishape), 0.1, { reduce }), [X]);
  }
});

test("scatter with reduce max and min: ties split the gradient evenly among the equal values, self's own included", () => {
  // self [1, 5, 0], index [0, 0, 1], src [3, 3, 5], g = [2, 4, 6].
  const run = (reduce: "max" | "min") =>
    pt.tidy(() => {
      const x = pt.tensor([1, 5, 0], { requiresGrad: true }), s = pt.tensor([3, 3, 5], { requiresGrad: true });
      x.scatter(0, pt.tensor([0, 0, 1], { dtype: "int64" }), s, { reduce }).backward(pt.tensor([2, 4, 6]));
      return [nums(x.grad!), nums(s.grad!)];
    });
  // max: position 0 is 3, from both src values (1 each); position 1 is 5, self and src[2] (2 each); position 2 untouched.
  assert.deepEqual(run("max"), [[0, 2, 6], [1, 1, 2]]);
  // min: position 0 is self's 1; position 1 ties self and src[2] again.
  assert.deepEqual(run("min"), [[2, 2, 6], [0, 0, 2]]);
});

// ----- indexPut and index

test("indexPut: gradcheck for self (zeroed where written) and values, broadcast values summed back, int32 and int64", () => {
  const i0 = [0, 2, -1, 2], i1 = [1, -1, 3, 0]; // distinct pairs: (0,1) (2,4) (2,3) (2,0)
  const put = (dtype: IDType) => (x: pt.Tensor, v: pt.Tensor) => x.indexPut([ix(x, i0, [4], dtype), ix(x, i1, [4], dtype)], v);
  gradcheck("indexPut values [4,7]", put("int64"), [X, randomInput([4, 7], 70)]);
  gradcheck("indexPut values [7] (broadcast)", put("int32"), [X, randomInput([7], 71)]);
  gradcheck("indexPut values [4,1] (broadcast)", put("int64"), [X, randomInput([4, 1], 72)]);
  gradcheck(
    "indexPut every dim indexed, 0-d values",
    (x, v) => x.indexPut([ix(x, i0, [4]), ix(x, i1, [4]), ix(x, [6, 0, -1, 3], [4])], v),
    [
      X,
      randomInput([], 73),
    ],
  );
  gradcheck("indexPut broadcasting indices [2,1] and [3]", (x, v) => x.indexPut([ix(x, [0, -1], [2, 1]), ix(x, [1, 3, 4], [3])], v), [
    X,
    randomInput([2, 3, 7], 74),
  ]);
  gradcheck("indexPut wrap", (x, v) => x.indexPut([ix(x, [5, -5], [2])], v, { mode: "wrap" }), [X, randomInput([7], 75)]);
  gradcheck("indexPut clamp", (x, v) => x.indexPut([ix(x, [9, -4], [2])], v, { mode: "clamp" }), [X, randomInput([7], 76)]);
});

test("indexPut with accumulate: gradcheck with repeated indices, self getting the gradient unchanged; modes clamp and wrap", () => {
  const i0 = [0, 2, 0, -3, 1], i1 = [1, 4, 1, 1, -5]; // (0,1) three times
  gradcheck("indexPut accumulate", (x, v) => x.indexPut([ix(x, i0, [5]), ix(x, i1, [5], "int32")], v, { accumulate: true }), [
    X,
    randomInput([5, 7], 77),
  ]);
  for (const mode of ["clamp", "wrap"] as const) {
    gradcheck(`indexPut accumulate ${mode}`, (x, v) => x.indexPut([ix(x, [4, -1, 3, -7], [4])], v, { accumulate: true, mode }), [
      X,
      randomInput([1, 5, 7], 78),
    ]);
  }
});

test("indexPut: values written twice with accumulate get the gradient of their position each; self's written rows get none without", () => {
  pt.tidy(() => {
    const x = pt.zeros([3, 2], { requiresGrad: true }), v = pt.tensor([1, 2], { requiresGrad: true });
    const i = pt.tensor([2, -1], { dtype: "int64" });
    x.indexPut([i], v, { accumulate: true }).backward(pt.tensor([[1, 2], [3, 4], [5, 6]]));
    assert.deepEqual(nums(x.grad!), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(nums(v.grad!), [10, 12]); // values [2] broadcast over both index positions: rows 2 and 2 summed
  });
  pt.tidy(() => {
    const x = pt.zeros([3, 2], { requiresGrad: true }), v = pt.tensor([[1, 2]], { requiresGrad: true });
    x.indexPut([pt.tensor([1], { dtype: "int32" })], v).backward(pt.tensor([[1, 2], [3, 4], [5, 6]]));
    assert.deepEqual(nums(x.grad!), [1, 2, 0, 0, 5, 6]);
    assert.deepEqual(nums(v.grad!), [3, 4]);
  });
});

test("index: gradcheck with one, two (broadcasting) and three index tensors, repeated and negative, int32 and int64", () => {
  gradcheck("index one", (x) => x.index([ix(x, [0, -1, 2, 0, 0], [5])]), [X]);
  gradcheck("index two broadcasting", (x) => x.index([ix(x, [1, -3, 1, 2], [4, 1], "int32"), ix(x, [0, -1, 0], [3])]), [X]);
  gradcheck("index three", (x) => x.index([ix(x, [1, 1, 2], [3]), ix(x, [4, 4, 0], [3]), ix(x, [-1, -1, 3], [3], "int32")]), [X]);
  gradcheck("index 2-D index", (x) => x.index([ix(x, randIdx([2, 5], -3, 3, 80), [2, 5])]), [X]);
});

test("index: rows [1, 0, 1] of a [2,3] input: row 1 gets the gradients of two output rows", () => {
  assert.deepEqual(gradOf([0, 1, 2, 3, 4, 5], [2, 3], (x) => x.index([pt.tensor([1, 0, 1], { dtype: "int64" })])), [4, 5, 6, 8, 10, 12]);
  // x[[0, 1, 0], [2, 2, 2]]: element (0,2) twice (g 1 and 3), (1,2) once (g 2).
  assert.deepEqual(
    gradOf(
      [0, 1, 2, 3, 4, 5],
      [2, 3],
      (x) => x.index([pt.tensor([0, 1, 0], { dtype: "int32" }), pt.tensor([2, 2, 2], { dtype: "int32" })]),
    ),
    [0, 0, 4, 0, 0, 2],
  );
});

// ----- maskedSelect

test("maskedSelect: gradcheck with a mask of the input's shape, a broadcast mask, and a broadcast input", () => {
  gradcheck("maskedSelect", (x) => x.maskedSelect(maskOf(x, [3, 5, 7], 90)), [X]);
  gradcheck("maskedSelect mask [5,1]", (x) => x.maskedSelect(maskOf(x, [5, 1], 91)), [X]);
  gradcheck("maskedSelect input [5,1] under a [3,5,7] mask", (x) => x.maskedSelect(maskOf(x, [3, 5, 7], 92)), [randomInput([5, 1], 93)]);
});

test("maskedSelect: the gradient goes back to the true positions in order, summed over a broadcast input; none for an all-false mask", () => {
  const m = [[true, false, true], [false, true, true]];
  assert.deepEqual(gradOf([1, 2, 3, 4, 5, 6], [2, 3], (x) => x.maskedSelect(pt.tensor(m))), [1, 0, 2, 0, 3, 4]);
  // x [3] broadcast over the mask's 2 rows: column 2 picked twice (g 2 and 4).
  assert.deepEqual(gradOf([1, 2, 3], [3], (x) => x.maskedSelect(pt.tensor(m))), [1, 3, 6]);
  assert.deepEqual(gradOf([1, 2, 3], [3], (x) => x.maskedSelect(pt.tensor([false, false, false])).sum().add(x.sum())), [1, 1, 1]);
});

// ----- sort and topk

const DISTINCT = randomInput([3, 5, 7], 100); // random: no two values within 1e-6 of each other

test("sort: gradcheck of the values along each axis, ascending and descending", () => {
  for (const axis of [0, 1, -1]) {
    for (const descending of [false, true]) {
      gradcheck(`sort axis ${axis} descending ${descending}`, (x) => x.sort(axis, descending).values, [DISTINCT]);
    }
  }
  gradcheck("sort 0-d", (x) => x.sort().values.mul(x), [randomInput([], 101)]);
});

test("topk: gradcheck of the values, largest and smallest, k < n and k = n", () => {
  gradcheck("topk 3 largest", (x) => x.topk(3, 1).values, [DISTINCT]);
  gradcheck("topk 2 smallest axis 0", (x) => x.topk(2, 0, false).values, [DISTINCT]);
  gradcheck("topk k = n", (x) => x.topk(7).values, [DISTINCT]);
});

test("sort and topk: the gradient of each value goes to the position it came from", () => {
  // sort [3, 1, 2] -> [1, 2, 3] from [1, 2, 0]; g = 1, 2, 3.
  assert.deepEqual(gradOf([3, 1, 2], [3], (x) => x.sort().values), [3, 1, 2]);
  assert.deepEqual(gradOf([3, 1, 2], [3], (x) => x.sort(0, true).values), [1, 3, 2]);
  // topk 2 of [3, 1, 2, 5] -> [5, 3] from [3, 0].
  assert.deepEqual(gradOf([3, 1, 2, 5], [4], (x) => x.topk(2).values), [2, 0, 0, 1]);
  assert.deepEqual(gradOf([3, 1, 2, 5], [4], (x) => x.topk(2, 0, false).values), [0, 1, 2, 0]);
});

// ----- strided inputs (the movement rules carry the gradient back through the views)

test("strided inputs: transposed, sliced and permuted views through each op get gradients in their own layout", () => {
  const T = (x: pt.Tensor) => x.transpose(0, 2); // [7, 5, 3]
  const S = (x: pt.Tensor) => x.slice(2, 1, 7, 2); // [3, 5, 3], every other column
  gradcheck("gather of a transposed view", (x) => T(x).gather(1, ix(x, randIdx([7, 4, 3], -5, 5, 110), [7, 4, 3])), [X]);
  gradcheck("indexSelect of a sliced view", (x) => S(x).indexSelect(2, ix(x, [2, -1, 0, 0], [4], "int32")), [X]);
  const u = uniqueIdx([3, 4, 3], 1, 5, 111);
  gradcheck("scatter into a sliced view from a transposed src", (x, s) => S(x).scatter(1, ix(x, u, [3, 4, 3]), s.transpose(0, 2)), [
    X,
    randomInput([3, 4, 3], 112),
  ]);
  gradcheck(
    "scatter max into a transposed view",
    (x, s) => T(x).scatter(1, ix(x, randIdx([7, 4, 3], 0, 5, 113), [7, 4, 3]), s, { reduce: "max" }),
    [
      X,
      randomInput([7, 4, 3], 114),
    ],
  );
  gradcheck("indexPut into a permuted view with strided values", (x, v) => x.permute([2, 0, 1]).indexPut([ix(x, [6, -2, 0], [3])], v.T), [
    X,
    randomInput([5, 3, 3], 115),
  ]);
  gradcheck("index of a transposed view", (x) => T(x).index([ix(x, [0, 6, 6, -2], [4])]), [X]);
  gradcheck("maskedSelect of a sliced view", (x) => S(x).maskedSelect(maskOf(x, [3, 5, 3], 116)), [X]);
  gradcheck("sort and topk of a transposed view", (x) => T(x).sort(1).values.add(T(x).topk(2, 0).values.sum(0)), [DISTINCT]);
});

// ----- what records nothing, and what the nodes keep

test("integer results record nothing: sort's and topk's indices, argsort, nonzero; noGrad records nothing", () => {
  pt.tidy(() => {
    const x = pt.tensor([0.5, -1, 2], { requiresGrad: true });
    const s = x.sort(), k = x.topk(2);
    assert.equal(s.values.requiresGrad, true);
    assert.equal(k.values.requiresGrad, true);
    assert.equal(s.indices.requiresGrad, false);
    assert.equal(k.indices.requiresGrad, false);
    assert.equal(x.argsort().requiresGrad, false);
    assert.equal(x.nonzero().requiresGrad, false);
    const i = pt.tensor([0, 2], { dtype: "int64" });
    assert.equal(x.gather(0, i).requiresGrad, true);
    assert.equal(pt.noGrad(() => x.gather(0, i)).requiresGrad, false);
    assert.equal(pt.noGrad(() => x.sort().values).requiresGrad, false);
    // An integer tensor scattered into records nothing, even from a src that requires gradients.
    assert.equal(pt.zeros([3], { dtype: "int64" }).scatter(0, i, x.narrow(0, 0, 2)).requiresGrad, false);
  });
});

test("the nodes keep their index tensors: disposing one before backward is fine, changing one in place is an error", () => {
  pt.tidy(() => {
    const x = pt.tensor([1, 2, 3], { requiresGrad: true });
    const i = pt.tensor([2, 2, 0], { dtype: "int64" });
    const y = x.gather(0, i);
    i.dispose();
    y.sum().backward();
    assert.deepEqual(nums(x.grad!), [1, 0, 2]);
  });
  pt.tidy(() => {
    const x = pt.tensor([1, 2, 3], { requiresGrad: true });
    const i = pt.tensor([2, 2, 0], { dtype: "int64" });
    const y = x.index([i]);
    i.fill_(1);
    assertTensorError(() => y.sum().backward(), /modified in place/);
  });
});

test("scatter and indexPut of a pending (lazy) tensor leave that tensor as it was (their backward writes into pending gradients)", () => {
  pt.tidy(() => {
    const i = pt.tensor([0, 2], { dtype: "int64" });
    const g = pt.ones([4]).mul(2); // pending in lazy mode
    const s = g.scatter(0, i, 0), p = g.indexPut([i], 5);
    assert.deepEqual(nums(s), [0, 2, 0, 2]);
    assert.deepEqual(nums(p), [5, 2, 5, 2]);
    assert.deepEqual(nums(g), [2, 2, 2, 2]);
    assert.deepEqual(nums(g.gather(0, i)), [2, 2]);
  });
});
