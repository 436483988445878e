/**
 * Gradient rules of the movement ops, as PyTorch defines them (its derivatives.yaml): each
 * front end in tensor/movement.ts (and `to` in tensor/transfer.ts) calls the matching function
 * here on its result when an input requires gradients, so a view of such a tensor gets a
 * grad_fn as PyTorch's ViewBackward. None saves a tensor: the rules need only shapes and
 * arguments. Rules run with recording off, so writing into a fresh zero tensor is allowed.
 */
import type { Device } from "../runtime/device.ts";
import type { Tensor } from "../tensor/tensor.ts";
import { full } from "../tensor/creation.ts";
import { record, wantsGrad } from "./graph.ts";
import { unbroadcast } from "./elementwise.ts";

/** A view or copy with the input's elements in their order (reshape, view, flatten, squeeze, unsqueeze): g in t's shape. */
export function reshaped(op: string, t: Tensor, out: Tensor): Tensor {
  const shape = t.shape;
  return record(out, op, [t], [], (g) => [g.reshape(shape)]);
}

/** An op whose result is its input's values (contiguous, clone, transpose of < 2 dims, `to` its own dtype and device). */
export function identity(op: string, t: Tensor, out: Tensor): Tensor {
  return record(out, op, [t], [], (g) => [g]); // the engine gives g a handle of its own
}

/** permute by normalized axes p: the gradient permuted back by p's inverse. */
export function permute(t: Tensor, p: readonly number[], out: Tensor): Tensor {
  const inv = new Array<number>(p.length);
  p.forEach((a, i) => inv[a] = i);
  return record(out, "permute", [t], [], (g) => [g.permute(inv)]);
}

export function transpose(t: Tensor, a: number, b: number, out: Tensor): Tensor {
  return record(out, "transpose", [t], [], (g) => [g.transpose(a, b)]); // a swap is its own inverse
}

/** expand: g summed over the new leading dims and the size-1 dims it repeated. */
export function expand(t: Tensor, out: Tensor): Tensor {
  const shape = t.shape;
  return record(out, "expand", [t], [], (g) => [unbroadcast(g, shape)]);
}

/** Zeros of t's shape with g written where `view` (the same slice of them) lies. */
function scattered(g: Tensor, shape: readonly number[], view: (z: Tensor) => Tensor): Tensor {
  // materialize(): a view of a pending tensor is a pending tensor of its own, whose writes its base would not see.
  const z = full(shape, 0, { device: g.device, dtype: g.dtype }).materialize();
  view(z).copy_(g);
  return z;
}

export function slice(t: Tensor, axis: number, start: number, end: number | undefined, step: number, out: Tensor): Tensor {
  const shape = t.shape;
  return record(out, "slice", [t], [], (g) => [scattered(g, shape, (z) => z.slice(axis, start, end, step))]);
}

export function narrow(t: Tensor, axis: number, start: number, length: number, out: Tensor): Tensor {
  const shape = t.shape;
  return record(out, "narrow", [t], [], (g) => [scattered(g, shape, (z) => z.narrow(axis, start, length))]);
}

export function flip(t: Tensor, axes: number | readonly number[], out: Tensor): Tensor {
  return record(out, "flip", [t], [], (g) => [g.flip(axes)]);
}

/** cat along normalized axis a: each input's part of g, cut out with narrow. */
export function cat(ts: readonly Tensor[], a: number, out: Tensor): Tensor {
  const sizes = ts.map((t) => t.shape[a]), want = ts.map(wantsGrad);
  return record(out, "cat", ts, [], (g) => {
    let at = 0;
    return sizes.map((n, i) => {
      at += n;
      return want[i] ? g.narrow(a, at - n, n) : null;
    });
  });
}

/** stack along normalized axis a: slice i of g, without the stacked dim. */
export function stack(ts: readonly Tensor[], a: number, out: Tensor): Tensor {
  const want = ts.map(wantsGrad);
  return record(out, "stack", ts, [], (g) => want.map((w, i) => (w ? g.narrow(a, i, 1).squeeze(a) : null)));
}

/** `to` another device: g copied back to the input's device. */
export function toDevice(t: Tensor, out: Tensor): Tensor {
  const from: Device = t.device;
  return record(out, "to", [t], [], (g) => [g.to(from)]);
}

/** A view of t's elements chosen by `view` (diagonal): g written into zeros of t's shape through the same view. */
export function viewed(op: string, t: Tensor, out: Tensor, view: (z: Tensor) => Tensor): Tensor {
  const shape = t.shape;
  return record(out, op, [t], [], (g) => [scattered(g, shape, view)]);
}
