/**
 * einsum against a plain JS reference that loops over every assignment of the equation's labels: named equations
 * (products, traces, diagonals, transposes, batched and broadcast "..." forms, implicit outputs, upper-case letters,
 * 0-d and empty operands) and many random ones over contiguous and strided operands; gradients against finite
 * differences; malformed equations and mismatched sizes as TensorErrors naming einsum.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";
import { gradcheck, randomInput } from "./gradcheck.ts";

// Zeros compare without their sign: where the reference's sum starts at +0, a product alone (cuBLAS with one term) is -0.
const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number | bigint>, (v) => Number(v) + 0);

interface Arr {
  data: number[];
  shape: number[];
}

/** torch.einsum by its definition: the sum over every label assignment of the operands' product, into the output. */
function refEinsum(equation: string, ops: Arr[]): Arr {
  const eq = equation.replace(/\s/g, "");
  const [lhs, rhs] = eq.includes("->") ? eq.split("->") : [eq, undefined];
  const terms = lhs.split(",");
  const ellOf = (term: string, ndim: number) => ndim - term.replace("...", "").length;
  const e = Math.max(0, ...terms.map((t, i) => (t.includes("...") ? ellOf(t, ops[i].shape.length) : 0)));
  const expand = (term: string, own: number) =>
    term.includes("...")
      ? term.replace("...", "\u0000").split("").flatMap((
        c,
      ) => (c === "\u0000" ? Array.from({ length: own }, (_, j) => `#${e - own + j}`) : [c]))
      : term.split("");
  const labels = terms.map((t, i) => expand(t, t.includes("...") ? ellOf(t, ops[i].shape.length) : 0));
  const size = new Map<string, number>();
  labels.forEach((ls, i) => ls.forEach((l, d) => (size.get(l) ?? 1) === 1 && size.set(l, ops[i].shape[d])));
  let out: string[];
  if (rhs !== undefined) out = expand(rhs, rhs.includes("...") ? e : 0);
  else {
    const letters = labels.flat().filter((l) => !l.startsWith("#"));
    const once = [...new Set(letters)].filter((l) => letters.filter((m) => m === l).length === 1).sort();
    out = [...Array.from({ length: e }, (_, j) => `#${j}`), ...once];
  }
  const all = [...size.keys()], outShape = out.map((l) => size.get(l)!);
  const result = new Array<number>(outShape.reduce((a, b) => a * b, 1)).fill(0);
  const total = all.reduce((n, l) => n * size.get(l)!, 1);
  for (let k = 0; k < total; k++) {
    const v = new Map<string, number>();
    let r = k;
    for (const l of all) v.set(l, r % size.get(l)!), r = Math.floor(r / size.get(l)!);
    let p = 1;
    ops.forEach((op, i) => {
      let off = 0;
      labels[i].forEach((l, d) => off = off * op.shape[d] + (op.shape[d] === 1 ? 0 : v.get(l)!));
      p *= op.data[off];
    });
    let o = 0;
    out.forEach((l, d) => o = o * outShape[d] + v.get(l)!);
    result[o] += p;
  }
  return { data: result, shape: outShape };
}

/** A tensor of arr's values; strided makes it the transpose of a contiguous tensor (same values, column-major). */
function make(a: Arr, strided: boolean): pt.Tensor {
  const t = pt.tensor(a.data.length === 0 ? new Float32Array(0) : a.data).reshape(a.shape);
  if (!strided || a.shape.length < 2) return t;
  const p = [...a.shape.keys()].reverse();
  return t.permute(p).contiguous().permute(p);
}

function randomArr(shape: number[], r: () => number): Arr {
  const n = shape.reduce((a, b) => a * b, 1);
  return { shape, data: Array.from({ length: n }, () => Math.floor(r() * 7) - 3) }; // small integers: every sum is exact
}

function check(eq: string, shapes: number[][], seed: number, strided = false): void {
  const r = rng(seed), arrs = shapes.map((s) => randomArr(s, r));
  const want = refEinsum(eq, arrs);
  const got = pt.einsum(eq, ...arrs.map((a) => make(a, strided)));
  assert.deepEqual([...got.shape], want.shape, `${eq} on ${JSON.stringify(shapes)}: shape`);
  assert.deepEqual(nums(got), want.data, `${eq} on ${JSON.stringify(shapes)}${strided ? " (strided)" : ""}`);
}

const NAMED: [string, number[][]][] = [
  ["ij,jk->ik", [[3, 4], [4, 5]]],
  ["ij,jk", [[2, 3], [3, 1]]],
  ["ij->ji", [[3, 5]]],
  ["ij", [[3, 5]]],
  ["ji", [[3, 5]]],
  ["ij->", [[3, 5]]],
  ["ij->j", [[3, 5]]],
  ["ii->i", [[4, 4]]],
  ["ii", [[4, 4]]],
  ["iij->j", [[3, 3, 2]]],
  ["iji->ij", [[3, 2, 3]]],
  ["ijk->kji", [[2, 3, 4]]],
  ["i,i->", [[5], [5]]],
  ["i,i", [[5], [5]]],
  ["i,j->ij", [[3], [4]]],
  ["i,i,i->i", [[4], [4], [4]]],
  ["ab,bc,cd->ad", [[2, 3], [3, 4], [4, 2]]],
  ["bij,bjk->bik", [[3, 2, 4], [3, 4, 5]]],
  ["bn,anm,bm->ba", [[2, 3], [4, 3, 5], [2, 5]]],
  ["ijk,ikl->", [[2, 3, 4], [2, 4, 3]]],
  ["...ij,...jk->...ik", [[2, 3, 3, 4], [3, 4, 2]]],
  ["...ij,...jk", [[1, 3, 4], [5, 4, 2]]],
  ["...,...->...", [[2, 3], [3]]],
  ["...i->...", [[2, 3, 4]]],
  ["i...->...", [[2, 3, 4]]],
  ["...ii->...i", [[2, 3, 3]]],
  ["i...i", [[3, 2, 3]]],
  ["aB,Bc->ca", [[2, 3], [3, 4]]],
  ["Ba,ab", [[2, 3], [3, 2]]],
  ["ij,ij->ij", [[3, 4], [3, 4]]],
  ["ij,ij->", [[3, 4], [1, 4]]],
  ["ij,jk->ik", [[3, 1], [4, 2]]],
  [",->", [[], []]],
  ["i,->i", [[3], []]],
  ["->", [[]]],
  ["ij,jk->ik", [[0, 3], [3, 2]]],
  ["ij,jk->ik", [[2, 0], [0, 3]]],
  ["ij->", [[0, 3]]],
  [" i j , j k -> i k ", [[2, 3], [3, 2]]],
];

test("einsum gives the reference's values for products, traces, diagonals, transposes and broadcast ellipses", () => {
  NAMED.forEach(([eq, shapes], i) => check(eq, shapes, 100 + i));
});

test("einsum gives the same values on strided (column-major) operands", () => {
  NAMED.forEach(([eq, shapes], i) => check(eq, shapes, 200 + i, true));
  const a = randomArr([4, 6], rng(5)), b = randomArr([3, 4], rng(6));
  const sliced = make(a, false).slice(1, 0, undefined, 2); // [4, 3], every other column
  const want = refEinsum("ij,ki->jk", [{ shape: [4, 3], data: a.data.filter((_, k) => k % 2 === 0) }, b]);
  assert.deepEqual(nums(pt.einsum("ij,ki->jk", sliced, make(b, false))), want.data);
});

test("einsum agrees with the reference over many random equations", () => {
  const r = rng(77), pool = "abcdeA";
  for (let n = 0; n < 150; n++) {
    const size = new Map([...pool].map((c) => [c, 1 + Math.floor(r() * 3)]));
    const ell = Array.from({ length: Math.floor(r() * 3) }, () => 1 + Math.floor(r() * 3));
    const useEll = r() < 0.3, count = 1 + Math.floor(r() * 3);
    const terms: string[] = [], shapes: number[][] = [];
    for (let i = 0; i < count; i++) {
      const letters = Array.from({ length: Math.floor(r() * 4) }, () => pool[Math.floor(r() * pool.length)]);
      let shape = letters.map((c) => size.get(c)!);
      let term = letters.join("");
      if (useEll) {
        const own = Math.floor(r() * (ell.length + 1)), at = Math.floor(r() * (letters.length + 1));
        const dims = ell.slice(ell.length - own).map((s) => (r() < 0.25 ? 1 : s));
        term = term.slice(0, at) + "..." + term.slice(at);
        shape = [...shape.slice(0, at), ...dims, ...shape.slice(at)];
      }
      terms.push(term);
      shapes.push(shape);
    }
    let eq = terms.join(",");
    if (r() < 0.6) {
      const used = [...new Set(terms.join("").replace(/\./g, ""))].filter(() => r() < 0.6);
      for (let i = used.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [used[i], used[j]] = [used[j], used[i]];
      }
      const out = used.join("");
      eq += "->" + (useEll && r() < 0.7 ? "..." + out : out);
    }
    check(eq, shapes, 1000 + n, r() < 0.5);
  }
});

test("einsum keeps the operands' promoted dtype, integers included", () => {
  const i = pt.tensor([[1, 2], [3, 4]], { dtype: "int32" });
  const tr = pt.einsum("ii", i);
  assert.equal(tr.dtype, "int32");
  assert.equal(tr.item(), 5);
  assert.equal(pt.einsum("ij,jk", i, pt.ones([2, 2], { dtype: "float64" })).dtype, "float64");
  assert.equal(pt.einsum("i->", pt.ones([3], { dtype: "float16" })).dtype, "float16");
  assert.deepEqual(pt.einsum("i,i->i", [pt.tensor([1, 2]), pt.tensor([3, 4])]).toList(), [3, 8], "operands as one array");
});

test("einsum carries gradients to every operand", () => {
  gradcheck("ij,jk->ik", (a, b) => pt.einsum("ij,jk->ik", a, b), [randomInput([2, 3], 1), randomInput([3, 4], 2)]);
  gradcheck("ii->i", (a) => pt.einsum("ii->i", a), [randomInput([3, 3], 3)]);
  gradcheck("ii (trace)", (a) => pt.einsum("ii", a), [randomInput([3, 3], 4)]);
  gradcheck("bij,bjk->bik", (a, b) => pt.einsum("bij,bjk->bik", a, b), [randomInput([2, 2, 3], 5), randomInput([2, 3, 2], 6)]);
  gradcheck("...i,i->...", (a, b) => pt.einsum("...i,i->...", a, b), [randomInput([2, 3, 4], 7), randomInput([4], 8)]);
  gradcheck("i,i,i->", (a, b, c) => pt.einsum("i,i,i->", a, b, c), [randomInput([3], 9), randomInput([3], 10), randomInput([3], 11)]);
});

test("einsum rejects malformed equations and mismatched operands with TensorErrors naming it", () => {
  const m = pt.zeros([2, 3]);
  assertTensorError(() => pt.einsum("ij,jk", m), /^einsum: "ij,jk" has 2 operand terms for 1 operands/);
  assertTensorError(() => pt.einsum("ijk", m), /^einsum: operand 0 has 2 dims \(shape \[2, 3\]\) but its subscripts name 3/);
  assertTensorError(() => pt.einsum("i", m), /^einsum: operand 0 has 2 dims/);
  assertTensorError(() => pt.einsum("ijk...", m), /^einsum: operand 0 has 2 dims .* besides "..."/);
  assertTensorError(() => pt.einsum("i1", m), /^einsum: operand 0's subscripts "i1" has the character '1'/);
  assertTensorError(() => pt.einsum("i.j", m), /^einsum: .* has a '.' that is not part of "..."/);
  assertTensorError(() => pt.einsum("...i...", m), /^einsum: .* has more than one "..."/);
  assertTensorError(() => pt.einsum("ij->k", m), /^einsum: the output's subscript 'k' appears in no operand/);
  assertTensorError(() => pt.einsum("ij->ii", m), /^einsum: the output repeats a subscript/);
  assertTensorError(() => pt.einsum("ij->i->j", m), /^einsum: "ij->i->j" has more than one "->"/);
  assertTensorError(() => pt.einsum("ii", m), /^einsum: subscript 'i' is repeated for operand 0 but the sizes don't match, 2 != 3/);
  assertTensorError(() => pt.einsum("ij,jk", m, pt.zeros([2, 2])), /^einsum: subscript 'j' has size 2 in operand 1 but size 3 elsewhere/);
  assertTensorError(() => pt.einsum("ij"), /^einsum: needs at least one operand/);
  assertTensorError(() => pt.einsum("i", 3 as never), /^einsum: operand 0 must be a Tensor/);
});
