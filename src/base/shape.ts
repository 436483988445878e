/** Shapes, strides, broadcasting and axis arithmetic: pure functions, no device work. */
import { TensorError } from "./errors.ts";

export type Shape = readonly number[];
export const MAX_RANK = 8;

export function numel(shape: Shape): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i];
  return n;
}

/** Arrays that sealed() made: tensors share them as they are. */
const sealedArrays = new WeakSet<readonly number[]>();

/**
 * An array with a's values that no code here mutates: a itself when sealed() made it, else
 * a copy (so a caller's array can change afterwards without changing a tensor). Sealed
 * arrays are typed readonly but not frozen: under Bun (JavaScriptCore) freezing, checking
 * for frozenness and reading frozen arrays together were a third of a small op's host time
 * (docs/measurements.md).
 */
export function sealed(a: readonly number[]): readonly number[] {
  if (sealedArrays.has(a)) return a;
  const copy = a.slice();
  sealedArrays.add(copy);
  return copy;
}

/** Whether sealed() made a (so it can key caches by identity). */
export function isSealed(a: readonly number[]): boolean {
  return sealedArrays.has(a);
}

export function contiguousStrides(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/** Row-major strides of shape; one sealed array per sealed shape (tensors share both). */
const stridesOf = new WeakMap<readonly number[], readonly number[]>();
export function denseStrides(shape: Shape): readonly number[] {
  if (!isSealed(shape)) return contiguousStrides(shape);
  let s = stridesOf.get(shape);
  if (s === undefined) stridesOf.set(shape, s = sealed(contiguousStrides(shape)));
  return s;
}

/** A JS value as a message shows it: `the string "3"`, `-1`, `NaN`, `null`, `an object`. */
export function describeValue(v: unknown): string {
  if (typeof v === "string") return `the string ${JSON.stringify(v)}`;
  if (typeof v === "bigint") return `the bigint ${v}n`;
  if (typeof v === "number" || typeof v === "boolean" || v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

export function checkShape(shape: unknown, op: string): number[] {
  if (!Array.isArray(shape)) throw new TensorError(op, `shape must be an array of sizes, got ${describeValue(shape)}`);
  if (shape.length > MAX_RANK) throw new TensorError(op, `rank ${shape.length} exceeds the maximum of ${MAX_RANK}`);
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i];
    if (typeof d !== "number" || !Number.isInteger(d) || d < 0) {
      const shown = shape.map((x) => (typeof x === "string" ? JSON.stringify(x) : String(x))).join(", ");
      throw new TensorError(op, `shape [${shown}]: size ${i} is ${describeValue(d)}; sizes are integers >= 0`);
    }
  }
  return [...shape] as number[];
}

/** Bytes beyond which no buffer can be asked for: byte counts travel as exact doubles. */
export const MAX_BYTES = 2 ** 53;

/** Throws, in the caller's terms, when a tensor of shape and itemsize bytes per element is too big for any buffer. */
export function checkBytes(shape: Shape, itemsize: number, dtype: string, op: string): void {
  const bytes = numel(shape) * itemsize;
  if (bytes <= MAX_BYTES) return;
  throw new TensorError(op, `${fmtShape(shape)} ${dtype} is ${bytes} bytes, more than a buffer can hold (2^53 bytes, 9e15)`);
}

export function fmtShape(s: Shape): string {
  return `[${s.join(", ")}]`;
}

export function broadcastShapes(op: string, ...shapes: Shape[]): number[] {
  let rank = 0;
  for (const s of shapes) if (s.length > rank) rank = s.length;
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i, d = s[i];
      if (out[o] === 1) out[o] = d;
      else if (d !== 1 && d !== out[o]) {
        throw new TensorError(
          op,
          `shapes ${shapes.map(fmtShape).join(" and ")} cannot be broadcast together (dim ${o}: ${out[o]} vs ${d})`,
        );
      }
    }
  }
  return out;
}

/**
 * broadcastShapes of two shapes, as a sealed array; the last few pairs of sealed shapes are
 * remembered, so that a loop's broadcasting ops (x [B, N] + bias [N]) neither rebuild nor
 * re-seal their result shape each time.
 */
const pairs: { a: Shape; b: Shape; out: readonly number[] }[] = [];
let nextPair = 0;
export function broadcastPair(op: string, a: Shape, b: Shape): readonly number[] {
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i];
    if (p.a === a && p.b === b) return p.out;
  }
  const out = sealed(broadcastShapes(op, a, b));
  if (isSealed(a) && isSealed(b)) {
    pairs[nextPair] = { a, b, out };
    nextPair = (nextPair + 1) % 8;
  }
  return out;
}

/** Strides of a view broadcast to `to`: 0 along new or size-1 dims. */
export function broadcastStrides(shape: Shape, strides: readonly number[], to: Shape): readonly number[] {
  if (shape.length === to.length) { // the common case: no new dims, often nothing to zero
    let same = true;
    for (let i = 0; i < shape.length && same; i++) same = shape[i] === to[i] || shape[i] !== 1;
    if (same) return strides;
  }
  const out = new Array<number>(to.length).fill(0);
  for (let i = 0; i < shape.length; i++) {
    const o = to.length - shape.length + i;
    out[o] = shape[i] === 1 && to[o] !== 1 ? 0 : strides[i];
  }
  return out;
}

export function normalizeAxis(axis: number, rank: number, op: string): number {
  if (!Number.isInteger(axis)) throw new TensorError(op, `axis ${axis} is not an integer`);
  const r = Math.max(rank, 1);
  if (axis < -r || axis >= r) throw new TensorError(op, `axis ${axis} is out of range for a tensor of rank ${rank}`);
  return axis < 0 ? axis + r : axis;
}

/** Sorted unique axes; undefined means all. */
export function normalizeAxes(axes: number | readonly number[] | undefined, rank: number, op: string): number[] {
  if (axes === undefined) return [...Array(rank).keys()];
  const list = typeof axes === "number" ? [axes] : [...axes];
  const out = [...new Set(list.map((a) => normalizeAxis(a, rank, op)))].sort((x, y) => x - y);
  if (out.length !== list.length) throw new TensorError(op, `axes [${list.join(", ")}] repeat an axis`);
  return out;
}

/** Whether two shapes (or stride lists) are equal; a loop, as it runs on every op's path. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
