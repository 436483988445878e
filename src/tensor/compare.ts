/**
 * pt.compareBackends(fn, a, b) (docs/architecture.md, Testing): runs fn once on each device, eagerly,
 * keeping every tensor an op allocated, then walks the two lists in order and reports the
 * first op whose outputs differ: floating-point outputs beyond rtol/atol, others at all. A
 * user who doubts a backend finds out which op is wrong, not only that the final result is.
 *
 * Ownership. The trace holds its own view of each op output (so tensors fn disposes stay
 * readable) and disposes every one before returning. fn must make the same ops on both
 * devices: it gets the device and runs with it as the default; random ops agree across
 * devices for one seed (Philox), so reseed inside fn when it uses them.
 */
import { type Device, device as resolveDevice, withDevice } from "../runtime/device.ts";
import { eager } from "../lazy/deferred.ts";
import { setAllocTracer, type Tensor, viewOf } from "./tensor.ts";
import { isFloat } from "../base/dtype.ts";
import { fmtShape } from "../base/shape.ts";

/**
 * The first op whose outputs differ between the two devices of pt.compareBackends(). Where the two runs made
 * different ops there (another op, dtype or shape, or one run made fewer ops), element is 0 and a and b are NaN.
 */
export interface BackendDifference {
  /** Position of the op among the ops that allocated an output, from 0. */
  readonly index: number;
  /** The op's name on the first device, e.g. "matmul" ("?" where one run made fewer ops). */
  readonly op: string;
  /** Its output's shape on the first device ([] where one run made fewer ops). */
  readonly shape: readonly number[];
  /** Its output's dtype on the first device ("?" where one run made fewer ops). */
  readonly dtype: string;
  /** First differing element (row-major), and the two values there (bigints as numbers). */
  readonly element: number;
  /** The value on the first device. */
  readonly a: number;
  /** The value on the second device. */
  readonly b: number;
  /** The difference in words, naming the op, the element, the values and the devices. */
  readonly message: string;
}

/** What pt.compareBackends() found. */
export interface BackendComparison {
  /** How many ops both runs made (the smaller count where they differ). */
  readonly ops: number;
  /** The first op whose outputs differ, or null when every op agreed. */
  readonly firstDifference: BackendDifference | null;
}

interface Traced {
  readonly op: string;
  readonly t: Tensor;
}

function trace(d: Device, fn: (d: Device) => unknown): Traced[] {
  const list: Traced[] = [];
  setAllocTracer((t, op) => list.push({ op, t: viewOf(t, t.shape, t.strides, t.offset, op) }));
  try {
    const out = eager(() => withDevice(d, () => fn(d)));
    disposeResult(out);
  } catch (e) {
    for (const x of list) x.t.dispose();
    throw e;
  } finally {
    setAllocTracer(null);
  }
  return list;
}

function disposeResult(out: unknown): void {
  if (Array.isArray(out)) out.forEach(disposeResult);
  else if (out !== null && typeof out === "object" && "dispose" in out && typeof out.dispose === "function") out.dispose();
}

function numbers(t: Tensor): number[] {
  return Array.from(t.toArray() as ArrayLike<number | bigint>, Number);
}

function firstMismatch(x: number[], y: number[], float: boolean, rtol: number, atol: number): number {
  for (let i = 0; i < x.length; i++) {
    const a = x[i], b = y[i];
    if (a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
    if (!float || !(Math.abs(a - b) <= atol + rtol * Math.abs(b))) return i;
  }
  return -1;
}

/**
 * Runs fn on devices a and b and reports the first op whose outputs differ: floating-point values beyond
 * |x - y| <= atol + rtol·|y| (the test of `torch.isclose`; NaN equals NaN), other dtypes when not equal. fn runs once
 * per device, eagerly, with that device as the default (it gets it too), and must make the same ops on both;
 * reseed (pt.manualSeed) inside fn when it draws random numbers. Every tensor the runs made is disposed before it
 * returns.
 *
 * @example
 * const r = pt.compareBackends(() => {
 *   pt.manualSeed(0);
 *   return pt.randn([64, 64]).matmul(pt.randn([64, 64])).relu();
 * }, "cpu", "cuda");
 * if (r.firstDifference) console.log(r.firstDifference.message);
 * @param opts rtol (default 1e-4) and atol (default 1e-5)
 * @throws {TensorError} when a or b names no usable device; else what fn throws
 */
export function compareBackends(
  fn: (device: Device) => unknown,
  a: string | Device,
  b: string | Device,
  opts: { rtol?: number; atol?: number } = {},
): BackendComparison {
  const rtol = opts.rtol ?? 1e-4, atol = opts.atol ?? 1e-5;
  const da = resolveDevice(a), db = resolveDevice(b);
  const ta = trace(da, fn);
  let tb: Traced[] = [];
  try {
    tb = trace(db, fn);
    const n = Math.min(ta.length, tb.length);
    for (let i = 0; i < n; i++) {
      const x = ta[i], y = tb[i];
      const shapeDiffers = x.op !== y.op || x.t.dtype !== y.t.dtype || fmtShape(x.t.shape) !== fmtShape(y.t.shape);
      const vx = shapeDiffers ? [] : numbers(x.t), vy = shapeDiffers ? [] : numbers(y.t);
      const at = shapeDiffers ? 0 : firstMismatch(vx, vy, isFloat(x.t.dtype), rtol, atol);
      if (at < 0) continue;
      const message = shapeDiffers
        ? `op ${i} is ${x.op} ${x.t.dtype}${fmtShape(x.t.shape)} on ${da.id} but ${y.op} ${y.t.dtype}${fmtShape(y.t.shape)} on ${db.id}`
        : `op ${i} (${x.op}, ${x.t.dtype}${fmtShape(x.t.shape)}) differs at element ${at}: ${vx[at]} on ${da.id}, ${vy[at]} on ${db.id}`;
      return {
        ops: n,
        firstDifference: {
          index: i,
          op: x.op,
          shape: x.t.shape,
          dtype: x.t.dtype,
          element: at,
          a: vx[at] ?? NaN,
          b: vy[at] ?? NaN,
          message,
        },
      };
    }
    if (ta.length !== tb.length) {
      const message = `${da.id} ran ${ta.length} ops and ${db.id} ran ${tb.length}: fn made different ops on the two devices`;
      return { ops: n, firstDifference: { index: n, op: "?", shape: [], dtype: "?", element: 0, a: NaN, b: NaN, message } };
    }
    return { ops: n, firstDifference: null };
  } finally {
    for (const x of [...ta, ...tb]) x.t.dispose();
  }
}
