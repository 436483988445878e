/**
 * einsum as torch.einsum: the equation is parsed into one label per dim ("..." stands for the dims that no letter names,
 * aligned from the right across operands and broadcast), then lowered to the library's ops, so it runs on every backend
 * and takes its gradient from their rules. Each operand first takes the diagonal of a label it repeats (a strided view)
 * and sums out the labels no one else needs; the operands are then contracted left to right, each pair as one matmul
 * of [batch, kept, contracted] by [batch, contracted, kept] (permute and reshape around it); last, the result is
 * summed and permuted to the output's labels.
 */
import { TensorError } from "../base/errors.ts";
import { describeValue, fmtShape } from "../base/shape.ts";
import { type DType, promoteTypes } from "../base/dtype.ts";
import { Tensor } from "./tensor.ts";
import { matmul } from "./linalg.ts";
import { diagonal } from "./structure.ts";
import { tidy } from "./tidy.ts";

const OP = "einsum";

/**
 * A label: a letter's char code, or for the dims of an ellipsis its position 0..E-1 among the E broadcast dims (right
 * aligned, so an operand with fewer ellipsis dims takes the last labels).
 */
type Label = number;
const isLetter = (c: string) => /^[a-zA-Z]$/.test(c);
const show = (l: Label) => (l >= 65 ? `'${String.fromCharCode(l)}'` : `... dim ${l}`);

/** One side's term: its letters' labels and where its ellipsis is (-1 if none). */
interface Term {
  letters: Label[];
  ellipsisAt: number;
}

function parseTerm(term: string, where: string): Term {
  const letters: Label[] = [];
  let ellipsisAt = -1;
  for (let i = 0; i < term.length; i++) {
    const c = term[i];
    if (c === ".") {
      if (term.slice(i, i + 3) !== "...") throw new TensorError(OP, `${where} has a '.' that is not part of "..."`);
      if (ellipsisAt >= 0) throw new TensorError(OP, `${where} has more than one "..."`);
      ellipsisAt = letters.length;
      i += 2;
    } else if (isLetter(c)) letters.push(c.charCodeAt(0));
    else throw new TensorError(OP, `${where} has the character '${c}'; subscripts are letters a-z, A-Z and "..."`);
  }
  return { letters, ellipsisAt };
}

/** The term's labels for a tensor of `ndim` dims, with E ellipsis dims in all. */
function labelsOf(t: Term, ndim: number, e: number): Label[] {
  if (t.ellipsisAt < 0) return t.letters;
  const own = ndim - t.letters.length;
  const ell = Array.from({ length: own }, (_, j) => e - own + j);
  return [...t.letters.slice(0, t.ellipsisAt), ...ell, ...t.letters.slice(t.ellipsisAt)];
}

/** An operand on its way through the lowering: a tensor and the label of each of its dims. */
interface Part {
  x: Tensor;
  labels: Label[];
}

const sizeOf = (p: Part, l: Label) => p.x.shape[p.labels.indexOf(l)];

/** p with the labels not in `keep` summed out. */
function sumOut(p: Part, keep: ReadonlySet<Label>): Part {
  const dims = p.labels.flatMap((l, i) => (keep.has(l) ? [] : [i]));
  if (dims.length === 0) return p;
  return { x: p.x.sum(dims), labels: p.labels.filter((l) => keep.has(l)) };
}

/** p's dims reordered to `order` (a permutation of its labels). */
function permuted(p: Part, order: readonly Label[]): Tensor {
  return p.x.permute(order.map((l) => p.labels.indexOf(l)));
}

/** The contraction of a and b keeping the labels in `keep` (every other label they share is summed), as one matmul. */
function contract(a: Part, b: Part, keep: ReadonlySet<Label>): Part {
  const inB = new Set(b.labels), inA = new Set(a.labels);
  a = sumOut(a, new Set([...keep, ...inB]));
  b = sumOut(b, new Set([...keep, ...inA]));
  const batch = a.labels.filter((l) => inB.has(l) && keep.has(l));
  // A summed label of size 1 on one side broadcasts: sum_j a[j] b[j] with a of one element is a[0] * sum_j b[j].
  for (const l of a.labels.filter((m) => inB.has(m) && !keep.has(m) && sizeOf(a, m) !== sizeOf(b, m))) {
    a = sumOut(a, new Set(a.labels.filter((m) => m !== l)));
    b = sumOut(b, new Set(b.labels.filter((m) => m !== l)));
  }
  const summed = a.labels.filter((l) => b.labels.includes(l) && !keep.has(l));
  const aOnly = a.labels.filter((l) => !b.labels.includes(l)), bOnly = b.labels.filter((l) => !a.labels.includes(l));
  const prod = (p: Part, ls: Label[]) => ls.reduce((n, l) => n * sizeOf(p, l), 1);
  const k = prod(a, summed);
  const am = permuted(a, [...batch, ...aOnly, ...summed]).reshape([...batch.map((l) => sizeOf(a, l)), prod(a, aOnly), k]);
  const bm = permuted(b, [...batch, ...summed, ...bOnly]).reshape([...batch.map((l) => sizeOf(b, l)), k, prod(b, bOnly)]);
  const c = matmul(am, bm);
  const batchSizes = batch.map((l) => Math.max(sizeOf(a, l), sizeOf(b, l)));
  return {
    x: c.reshape([...batchSizes, ...aOnly.map((l) => sizeOf(a, l)), ...bOnly.map((l) => sizeOf(b, l))]),
    labels: [...batch, ...aOnly, ...bOnly],
  };
}

/** p with each label it repeats reduced to one dim, the diagonal (torch takes the diagonal for a repeated subscript). */
function diagonals(p: Part): Part {
  let { x, labels } = p;
  for (;;) {
    const at = labels.findIndex((l, j) => labels.indexOf(l) !== j);
    if (at < 0) return { x, labels };
    const first = labels.indexOf(labels[at]);
    x = diagonal(x, 0, first, at);
    labels = [...labels.filter((_, j) => j !== first && j !== at), labels[at]];
  }
}

/**
 * The sum of products of the operands' elements over the labels the output does not name, as `torch.einsum`: `"ij,jk->ik"`
 * is a matrix product, `"ii->i"` a diagonal, `"ii"` a trace, `"...ij,...jk"` a batched matrix product broadcasting the
 * leading dims. Without "->" the output holds the ellipsis dims, then the letters that appear once, in alphabetical order
 * (upper case first). A letter repeated within one operand takes that operand's diagonal; a dim of size 1 broadcasts
 * against its label's size elsewhere. Operands may be passed as arguments or as one array; their dtypes promote, and the
 * result has the promoted dtype (integer operands too). Spaces are ignored.
 *
 * @example
 * using c = pt.einsum("ij,jk->ik", a, b); // a.matmul(b)
 * using tr = pt.einsum("ii", m); // the trace
 * @throws {TensorError} when the equation is malformed (a character other than letters, ",", "->" and "...", a term count
 * unlike the operand count, a term naming more dims than its operand has, an output letter absent from the inputs or
 * repeated), or sizes of one label disagree, or the operands are on different devices.
 */
export function einsum(equation: string, ...operands: (Tensor | readonly Tensor[])[]): Tensor {
  if (typeof equation !== "string") throw new TensorError(OP, `the equation must be a string, got ${describeValue(equation)}`);
  const ops = (operands.length === 1 && Array.isArray(operands[0]) ? operands[0] : operands) as Tensor[];
  if (ops.length === 0) throw new TensorError(OP, "needs at least one operand");
  ops.forEach((t, i) => {
    if (!(t instanceof Tensor)) throw new TensorError(OP, `operand ${i} must be a Tensor, got ${describeValue(t)}`);
  });
  const eq = equation.replace(/\s/g, "");
  const arrow = eq.indexOf("->");
  if (arrow >= 0 && eq.indexOf("->", arrow + 1) >= 0) throw new TensorError(OP, `"${equation}" has more than one "->"`);
  const lhs = arrow >= 0 ? eq.slice(0, arrow) : eq;
  const terms = lhs.split(",").map((s, i) => parseTerm(s, `operand ${i}'s subscripts "${s}"`));
  if (terms.length !== ops.length) {
    throw new TensorError(OP, `"${equation}" has ${terms.length} operand terms for ${ops.length} operands`);
  }
  terms.forEach((t, i) => {
    const n = ops[i].ndim, named = t.letters.length;
    if (t.ellipsisAt < 0 ? named !== n : named > n) {
      throw new TensorError(
        OP,
        `operand ${i} has ${n} dims (shape ${fmtShape(ops[i].shape)}) but its subscripts name ${named}${
          t.ellipsisAt < 0 ? "" : ' besides "..."'
        }`,
      );
    }
  });
  const e = Math.max(0, ...terms.map((t, i) => (t.ellipsisAt < 0 ? 0 : ops[i].ndim - t.letters.length)));
  const labels = terms.map((t, i) => labelsOf(t, ops[i].ndim, e));
  labels.forEach((ls, i) =>
    ls.forEach((l, d) => {
      const first = ls.indexOf(l), [a, b] = [ops[i].shape[first], ops[i].shape[d]];
      if (a !== b) throw new TensorError(OP, `subscript ${show(l)} is repeated for operand ${i} but the sizes don't match, ${a} != ${b}`);
    })
  );
  // Each label's size: equal wherever it appears, or 1 (which broadcasts).
  const size = new Map<Label, number>();
  labels.forEach((ls, i) =>
    ls.forEach((l, d) => {
      const s = ops[i].shape[d], had = size.get(l);
      if (had === undefined || had === 1) size.set(l, s);
      else if (s !== 1 && s !== had) {
        throw new TensorError(OP, `subscript ${show(l)} has size ${s} in operand ${i} but size ${had} elsewhere; they must match or be 1`);
      }
    })
  );
  let out: Label[];
  if (arrow >= 0) {
    const rhs = parseTerm(eq.slice(arrow + 2), `the output's subscripts "${eq.slice(arrow + 2)}"`);
    for (const l of rhs.letters) {
      if (!size.has(l)) throw new TensorError(OP, `the output's subscript ${show(l)} appears in no operand`);
    }
    if (new Set(rhs.letters).size !== rhs.letters.length) throw new TensorError(OP, "the output repeats a subscript");
    out = labelsOf(rhs, rhs.letters.length + (rhs.ellipsisAt < 0 ? 0 : e), e);
  } else {
    const count = new Map<Label, number>();
    for (const ls of labels) for (const l of ls) if (l >= 65) count.set(l, (count.get(l) ?? 0) + 1);
    const once = [...count].filter(([, n]) => n === 1).map(([l]) => l).sort((a, b) => a - b);
    out = [...Array.from({ length: e }, (_, j) => j), ...once];
  }
  const dtype: DType = ops.map((t) => t.dtype).reduce(promoteTypes);
  return tidy(() => {
    const parts = ops.map((x, i) => diagonals({ x, labels: labels[i] }));
    const needed = (from: number) => new Set([...out, ...parts.slice(from).flatMap((p) => p.labels)]);
    let cur = sumOut(parts[0], needed(1));
    for (let i = 1; i < parts.length; i++) cur = contract(cur, parts[i], needed(i + 1));
    cur = sumOut(cur, new Set(out));
    // A label's size 1 in every part that kept it while another operand, summed earlier, had it larger: broadcast.
    const r = permuted(cur, out);
    const want = out.map((l) => size.get(l)!);
    const shaped = r.shape.every((s, i) => s === want[i]) ? r : r.expand(want);
    return shaped.dtype === dtype ? shaped : shaped.cast(dtype);
  });
}
