/**
 * Structure and comparison functions that are compositions of the library's ops: split,
 * chunk and unbind (views, through narrow), tril and triu (a where over an index mask),
 * roll (cat of two narrows), repeat and tile (a reshape of an expanded view, one copy),
 * isclose, allclose and equal, and diag, diagonal, outer, movedim and meshgrid. Being
 * compositions they run on every backend and take their gradients from the ops' rules;
 * diagonal, a strided view of its own, records its rule (autograd/movement.ts). Errors name
 * the function the user called.
 */
import { TensorError } from "../base/errors.ts";
import { describeValue, fmtShape, normalizeAxis } from "../base/shape.ts";
import { isFloat } from "../base/dtype.ts";
import { Tensor, viewOf } from "./tensor.ts";
import { arange, zeros } from "./creation.ts";
import { cat } from "./movement.ts";
import { tidy } from "./tidy.ts";
import { gradEnabled, wantsGrad } from "../autograd/graph.ts";
import { viewed } from "../autograd/movement.ts";

function tensorArg(op: string, t: unknown): Tensor {
  if (!(t instanceof Tensor)) throw new TensorError(op, `expects a Tensor, got ${describeValue(t)}`);
  return t;
}

function dimOf(op: string, t: Tensor, axis: number): number {
  if (t.ndim === 0) throw new TensorError(op, "needs a tensor with at least one dim, got a 0-d tensor");
  return normalizeAxis(axis, t.ndim, op);
}

const count = (op: string, what: string, v: unknown, min: number): number => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    throw new TensorError(op, `${what} must be an integer >= ${min}, got ${describeValue(v)}`);
  }
  return v;
};

/**
 * Views of t along axis: pieces of `size` elements (the last may be shorter), or of the listed sizes, which must add up
 * to the axis's length. As `torch.split`.
 * @throws {TensorError} when size is not a positive integer, the sizes do not add up, or the axis is out of range.
 */
export function split(t: Tensor, size: number | readonly number[], axis = 0): Tensor[] {
  const op = "split", d = dimOf(op, tensorArg(op, t), axis), n = t.shape[d];
  let sizes: number[];
  if (typeof size === "number") {
    const s = count(op, "split size", size, n === 0 ? 0 : 1);
    sizes = s === 0 ? [0] : Array.from({ length: Math.max(1, Math.ceil(n / s)) }, (_, i) => Math.min(s, n - i * s));
  } else {
    sizes = [...size].map((s) => count(op, "each size", s, 0));
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total !== n) throw new TensorError(op, `sizes [${sizes.join(", ")}] add up to ${total}, not to axis ${d}'s length ${n}`);
  }
  let at = 0;
  return sizes.map((s) => {
    const piece = t.narrow(d, at, s);
    at += s;
    return piece;
  });
}

/**
 * `chunks` views of t along axis, each of ceil(length / chunks) elements but the last, as `torch.chunk`: fewer pieces
 * come back when the length does not fill them (7 in 4 chunks gives 2, 2, 2, 1; 5 in 4 gives 2, 2, 1).
 * @throws {TensorError} when chunks is not a positive integer or the axis is out of range.
 */
export function chunk(t: Tensor, chunks: number, axis = 0): Tensor[] {
  const op = "chunk", d = dimOf(op, tensorArg(op, t), axis);
  count(op, "chunks", chunks, 1);
  const n = t.shape[d];
  return n === 0 ? split(t, [...Array(chunks)].map(() => 0), d) : split(t, Math.ceil(n / chunks), d);
}

/**
 * The slices of t along axis, each without that dim (views), as `torch.unbind`.
 * @throws {TensorError} for a 0-d tensor or an axis out of range.
 */
export function unbind(t: Tensor, axis = 0): Tensor[] {
  const op = "unbind", d = dimOf(op, tensorArg(op, t), axis);
  return Array.from({ length: t.shape[d] }, (_, i) => tidy(() => t.narrow(d, i, 1).squeeze(d)));
}

/** Whether element [.., i, j] of a matrix of rows x cols keeps its value: j - i compared with `diagonal`. */
function triangle(op: "tril" | "triu", t: Tensor, diagonal: number): Tensor {
  tensorArg(op, t);
  if (t.ndim < 2) throw new TensorError(op, `needs a matrix or a batch of them (2 or more dims), got shape ${fmtShape(t.shape)}`);
  if (!Number.isInteger(diagonal)) throw new TensorError(op, `diagonal must be an integer, got ${describeValue(diagonal)}`);
  const rows = t.shape[t.ndim - 2], cols = t.shape[t.ndim - 1];
  return tidy(() => {
    const opts = { dtype: "int64" as const, device: t.device };
    const offset = arange(cols, undefined, 1, opts).unsqueeze(0).sub(arange(rows, undefined, 1, opts).unsqueeze(1));
    const keep = op === "tril" ? offset.le(diagonal) : offset.ge(diagonal);
    return t.where(keep, t.dtype === "bool" ? false : 0).cast(t.dtype);
  });
}

/**
 * The lower triangle of the last two dims (elements with column - row <= diagonal), the rest zero, as `torch.tril`.
 * @throws {TensorError} when t has fewer than 2 dims or diagonal is not an integer.
 */
export function tril(t: Tensor, diagonal = 0): Tensor {
  return triangle("tril", t, diagonal);
}

/**
 * The upper triangle of the last two dims (elements with column - row >= diagonal), the rest zero, as `torch.triu`.
 * @throws {TensorError} when t has fewer than 2 dims or diagonal is not an integer.
 */
export function triu(t: Tensor, diagonal = 0): Tensor {
  return triangle("triu", t, diagonal);
}

/**
 * t with its elements shifted along each of `axes` by the matching shift, wrapping around, as `torch.roll`; without axes
 * the flattened tensor is rolled and the shape kept.
 * @throws {TensorError} when shifts and axes differ in number, a shift is not an integer, or an axis is out of range.
 */
export function roll(t: Tensor, shifts: number | readonly number[], axes?: number | readonly number[]): Tensor {
  const op = "roll";
  tensorArg(op, t);
  const s = typeof shifts === "number" ? [shifts] : [...shifts];
  for (const v of s) if (!Number.isInteger(v)) throw new TensorError(op, `shifts must be integers, got ${describeValue(v)}`);
  if (axes === undefined) {
    if (s.length !== 1) throw new TensorError(op, `without axes takes one shift, got ${s.length}`);
    return tidy(() => roll(t.flatten(), s[0], 0).reshape([...t.shape]));
  }
  const a = typeof axes === "number" ? [axes] : [...axes];
  if (a.length !== s.length) throw new TensorError(op, `got ${s.length} shifts for ${a.length} axes; give one shift per axis`);
  const dims = a.map((x) => dimOf(op, t, x));
  return tidy(() => {
    let r = t;
    dims.forEach((d, i) => {
      const n = r.shape[d], k = n === 0 ? 0 : ((s[i] % n) + n) % n;
      if (k !== 0) r = cat([r.narrow(d, n - k, k), r.narrow(d, 0, n - k)], d);
    });
    return r === t ? t.clone() : r;
  });
}

/** t (as shape [1, ..., 1, ...t.shape] to reps' length) repeated reps[i] times along each dim. */
function repeated(op: string, t: Tensor, reps: readonly number[]): Tensor {
  for (const r of reps) count(op, "each repeat count", r, 0);
  const shape = [...Array(reps.length - t.ndim).fill(1), ...t.shape];
  return tidy(() => {
    const inter = shape.flatMap((s) => [1, s]), wide = shape.flatMap((s, i) => [reps[i], s]);
    return t.reshape(inter).expand(wide).reshape(shape.map((s, i) => s * reps[i]));
  });
}

/**
 * t repeated reps[i] times along each dim, as `torch.Tensor.repeat`: reps has at least t's number of dims, and extra
 * leading counts add dims. The result is a new tensor.
 * @throws {TensorError} when reps has fewer entries than t has dims or a count is not an integer >= 0.
 */
export function repeat(t: Tensor, reps: readonly number[]): Tensor {
  tensorArg("repeat", t);
  if (reps.length < t.ndim) {
    throw new TensorError("repeat", `needs a count for each of the tensor's ${t.ndim} dims, got [${reps.join(", ")}]`);
  }
  return repeated("repeat", t, reps);
}

/**
 * t repeated reps[i] times along each dim, as `torch.tile`: where reps is shorter than t's dims, leading 1s are added.
 * @throws {TensorError} when a count is not an integer >= 0.
 */
export function tile(t: Tensor, reps: readonly number[]): Tensor {
  tensorArg("tile", t);
  return repeated("tile", t, [...Array(Math.max(0, t.ndim - reps.length)).fill(1), ...reps]);
}

/**
 * Elementwise |a - b| <= atol + rtol * |b| (or a == b, which covers equal infinities), broadcasting, as `torch.isclose`;
 * NaNs are close to each other only with equalNan. A bool tensor.
 * @throws {TensorError} when a tolerance is negative or the shapes do not broadcast.
 */
export function isclose(a: Tensor, b: Tensor, rtol = 1e-5, atol = 1e-8, equalNan = false): Tensor {
  const op = "isclose";
  tensorArg(op, a);
  tensorArg(op, b);
  if (!(rtol >= 0) || !(atol >= 0)) throw new TensorError(op, `rtol and atol must be >= 0, got ${rtol} and ${atol}`);
  return tidy(() => {
    const same = a.eq(b);
    if (!isFloat(a.dtype) && !isFloat(b.dtype)) return same;
    const x = isFloat(a.dtype) ? a : a.cast(b.dtype), y = isFloat(b.dtype) ? b : b.cast(a.dtype);
    const err = x.sub(y).abs(); // an infinite error is never close (-inf against +inf), as in PyTorch
    const close = same.logicalOr(err.le(y.abs().mul(rtol).add(atol)).logicalAnd(err.isfinite()));
    return equalNan ? close.logicalOr(x.isnan().logicalAnd(y.isnan())) : close;
  });
}

/**
 * Whether every element of a is close to b's (isclose, broadcasting), as `torch.allclose`. Reads one value back.
 * @throws {TensorError} as isclose does.
 */
export function allclose(a: Tensor, b: Tensor, rtol = 1e-5, atol = 1e-8, equalNan = false): boolean {
  return tidy(() => Boolean(isclose(a, b, rtol, atol, equalNan).all().item()));
}

/**
 * Whether a and b have the same shape and equal elements, as `torch.equal` (NaN is not equal to itself). Reads one value back.
 * @throws {TensorError} when either is not a tensor or they are on different devices.
 */
export function equal(a: Tensor, b: Tensor): boolean {
  tensorArg("equal", a);
  tensorArg("equal", b);
  if (a.ndim !== b.ndim || a.shape.some((d, i) => d !== b.shape[i])) return false;
  return tidy(() => Boolean(a.eq(b).all().item()));
}

/** The length of the diagonal `offset` of a rows x cols matrix (0 when it lies outside). */
function diagonalLength(rows: number, cols: number, offset: number): number {
  return Math.max(0, offset >= 0 ? Math.min(rows, cols - offset) : Math.min(rows + offset, cols));
}

function offsetArg(op: string, what: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v)) throw new TensorError(op, `${what} must be an integer, got ${describeValue(v)}`);
  return v;
}

function diagonalView(t: Tensor, offset: number, d1: number, d2: number): Tensor {
  const n = diagonalLength(t.shape[d1], t.shape[d2], offset);
  const keep = [...t.shape.keys()].filter((i) => i !== d1 && i !== d2);
  const start = n === 0 ? 0 : offset >= 0 ? offset * t.strides[d2] : -offset * t.strides[d1];
  const shape = [...keep.map((i) => t.shape[i]), n], strides = [...keep.map((i) => t.strides[i]), t.strides[d1] + t.strides[d2]];
  return viewOf(t, shape, strides, t.offset + start, "diagonal");
}

/**
 * The diagonal `offset` (0 the main one, > 0 above it, < 0 below) of the matrices that dims dim1 and dim2 span, as a view that
 * shares t's memory, as `torch.diagonal`: both dims are removed and the diagonal is appended as the last dim.
 *
 * @example
 * using m = pt.arange(9).reshape([3, 3]);
 * using d = pt.diagonal(m, 1); // [1, 5]
 * @throws {TensorError} when t has fewer than 2 dims, offset is not an integer, or dim1 and dim2 are out of range or the same dim.
 */
export function diagonal(t: Tensor, offset = 0, dim1 = 0, dim2 = 1): Tensor {
  const op = "diagonal";
  tensorArg(op, t);
  if (t.ndim < 2) throw new TensorError(op, `needs 2 or more dims, got shape ${fmtShape(t.shape)}`);
  offsetArg(op, "offset", offset);
  const d1 = normalizeAxis(dim1, t.ndim, op), d2 = normalizeAxis(dim2, t.ndim, op);
  if (d1 === d2) throw new TensorError(op, `dim1 and dim2 must differ, got ${dim1} and ${dim2}`);
  const out = diagonalView(t, offset, d1, d2);
  return gradEnabled && wantsGrad(t) ? viewed(op, t, out, (z) => diagonalView(z, offset, d1, d2)) : out;
}

/** diagonal under another name, for diag, whose argument of that name (torch's) hides it. */
const diagonalOf = diagonal;

/**
 * As `torch.diag`: of a 1-D tensor of n elements, the square matrix of n + |diagonal| rows with the tensor on diagonal
 * `diagonal` and zeros elsewhere; of a matrix, a copy of its diagonal `diagonal` (see `diagonal` for a view).
 *
 * @example
 * using m = pt.diag(pt.tensor([1, 2]), 1); // [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
 * @throws {TensorError} when t is neither 1-D nor 2-D or diagonal is not an integer.
 */
export function diag(t: Tensor, diagonal = 0): Tensor {
  const op = "diag";
  tensorArg(op, t);
  offsetArg(op, "diagonal", diagonal);
  if (t.ndim === 2) return tidy(() => diagonalOf(t, diagonal, 0, 1).clone()); // clone: a copy, as torch.diag's
  if (t.ndim !== 1) throw new TensorError(op, `needs a 1-D or 2-D tensor, got shape ${fmtShape(t.shape)}`);
  const n = t.shape[0], m = n + Math.abs(diagonal);
  if (n === 0) return zeros([m, m], { dtype: t.dtype, device: t.device });
  return tidy(() => {
    const opts = { dtype: "int64" as const, device: t.device };
    const rows = arange(m, undefined, 1, opts).unsqueeze(1), cols = arange(m, undefined, 1, opts).unsqueeze(0);
    const on = cols.sub(rows).eq(diagonal);
    // Element [i, i + k] is t[i] above the main diagonal, [j - k, j] is t[j] below it: t picked by row or by column index.
    const at = (diagonal >= 0 ? rows.expand([m, m]) : cols.expand([m, m])).reshape([m * m]);
    const picked = t.indexSelect(0, at, "clamp").reshape([m, m]);
    return picked.where(on, t.dtype === "bool" ? false : 0).cast(t.dtype);
  });
}

/**
 * The outer product of two 1-D tensors: element [i, j] is a[i] * b[j]; the dtypes promote as `mul`. As `torch.outer`.
 * @throws {TensorError} when a or b is not 1-D or they are on different devices.
 */
export function outer(a: Tensor, b: Tensor): Tensor {
  const op = "outer";
  tensorArg(op, a);
  tensorArg(op, b);
  if (a.ndim !== 1 || b.ndim !== 1) {
    throw new TensorError(op, `needs two 1-D tensors, got shapes ${fmtShape(a.shape)} and ${fmtShape(b.shape)}`);
  }
  return tidy(() => a.reshape([a.shape[0], 1]).mul(b.reshape([1, b.shape[0]])));
}

/**
 * A view of t with the dims at `source` moved to the positions `destination` and the other dims in their order, as
 * `torch.movedim` (a permute).
 *
 * @example
 * using x = pt.zeros([2, 3, 4]);
 * pt.movedim(x, 0, -1).shape; // [3, 4, 2]
 * @throws {TensorError} when source and destination differ in length, a dim is out of range, or either repeats a dim.
 */
export function movedim(t: Tensor, source: number | readonly number[], destination: number | readonly number[]): Tensor {
  const op = "movedim";
  tensorArg(op, t);
  const src = typeof source === "number" ? [source] : [...source], dst = typeof destination === "number" ? [destination] : [...destination];
  if (src.length !== dst.length) {
    throw new TensorError(op, `source [${src.join(", ")}] and destination [${dst.join(", ")}] must name as many dims`);
  }
  const s = src.map((d) => normalizeAxis(d, t.ndim, op)), e = dst.map((d) => normalizeAxis(d, t.ndim, op));
  if (new Set(s).size !== s.length) throw new TensorError(op, `source [${src.join(", ")}] repeats a dim`);
  if (new Set(e).size !== e.length) throw new TensorError(op, `destination [${dst.join(", ")}] repeats a dim`);
  if (t.ndim === 0) return t.reshape([]);
  const order = new Array<number>(t.ndim).fill(-1);
  e.forEach((d, i) => order[d] = s[i]);
  const rest = [...t.shape.keys()].filter((d) => !s.includes(d));
  for (let i = 0, r = 0; i < t.ndim; i++) if (order[i] < 0) order[i] = rest[r++];
  return t.permute(order);
}

/**
 * Coordinate grids of 1-D (or 0-d, one-element) tensors, as `torch.meshgrid`: result i has every input's length as a dim
 * and repeats input i along its own dim. `indexing` "ij" (the default) gives dims in the inputs' order; "xy" swaps the first
 * two (Cartesian, as NumPy's default). The results are expanded views that share the inputs' memory.
 *
 * @example
 * const [gx, gy] = pt.meshgrid([pt.tensor([1, 2, 3]), pt.tensor([4, 5])], { indexing: "xy" }); // each of shape [2, 3]
 * @throws {TensorError} when the list is empty, an input has more than one dim, the dtypes or devices differ, or indexing is
 * neither "ij" nor "xy".
 */
export function meshgrid(tensors: readonly Tensor[], opts: { indexing?: "ij" | "xy" } = {}): Tensor[] {
  const op = "meshgrid", indexing = opts.indexing ?? "ij";
  if (!Array.isArray(tensors) || tensors.length === 0) throw new TensorError(op, "needs a non-empty list of tensors");
  for (const t of tensors) {
    tensorArg(op, t);
    if (t.ndim > 1) throw new TensorError(op, `needs 0-d or 1-D tensors, got shape ${fmtShape(t.shape)}`);
    if (t.dtype !== tensors[0].dtype) throw new TensorError(op, `needs one dtype, got ${tensors[0].dtype} and ${t.dtype}`);
    if (t.device !== tensors[0].device) throw new TensorError(op, `needs one device, got ${tensors[0].device.id} and ${t.device.id}`);
  }
  if (indexing !== "ij" && indexing !== "xy") throw new TensorError(op, `indexing must be "ij" or "xy", got ${describeValue(indexing)}`);
  const swap = indexing === "xy" && tensors.length >= 2;
  const dimOfInput = (i: number) => (swap && i < 2 ? 1 - i : i);
  const shape = new Array<number>(tensors.length);
  tensors.forEach((t, i) => shape[dimOfInput(i)] = t.numel);
  return tensors.map((t, i) => tidy(() => t.reshape(shape.map((n, d) => (d === dimOfInput(i) ? n : 1))).expand(shape)));
}
