/**
 * Captured steps: `const step = pt.capture((x, y) => ...)` records the device work of one
 * call and replays it on later calls whose inputs have the same shapes, dtypes, strides
 * and device, at the price of one native call instead of the per-op front-end and launch
 * costs (docs/architecture.md, Captured steps). The device captures the work its own way (a driver graph,
 * or a list of launches that the core replays).
 *
 * Ownership and ordering. The recording owns every buffer its work touched (the native
 * graph pins them), so replays allocate nothing and nothing else is handed that memory;
 * step.dispose() frees it. Inputs of a replay are copied into the recorded input buffers
 * (on the device, in queue order) unless they are the very tensors recorded. Results of a
 * call are views of the recording's output buffers: the next call overwrites them, so keep
 * one with clone(). A step records and replays on the caller's queue (pt.withQueue), and
 * work sent to another queue while it records is an error. A call with inputs of another
 * layout records again (or throws, with { strict: true }). Inside the recorded function,
 * reading values on the host fails with a TensorError naming the op, and capture does not
 * nest.
 */
import { check, native } from "../runtime/native.ts";
import type { Device } from "../runtime/device.ts";
import { TensorError } from "../base/errors.ts";
import { closeScope, keepOwner, openScope } from "../runtime/ownership.ts";
import { Tensor, viewOf } from "./tensor.ts";
import { copyInto } from "./elementwise.ts";
import { fmtShape, sameShape } from "../base/shape.ts";
import { queuedOn, queueFor } from "../runtime/queue.ts";

/** Options of pt.capture(). */
export interface CaptureOptions {
  /** Throw instead of recording again when the inputs' layout changes. */
  readonly strict?: boolean;
}

type StepFn<A extends Tensor[], R extends Tensor | readonly Tensor[]> = (...inputs: A) => R;

/**
 * A step made by pt.capture(): call it as the function it wraps. Its results are views of the step's own buffers,
 * overwritten by the next call (clone() one to keep it). Dispose it (or `using`) to free the recording.
 */
export interface CapturedStep<A extends Tensor[], R extends Tensor | readonly Tensor[]> {
  /** Runs the step: records it on the first call (and on a layout change), else replays the recording. */
  (...inputs: A): R;
  /** Calls that replayed the recording (not counting the call that recorded it). */
  readonly replays: number;
  /** Times the step was recorded. */
  readonly recordings: number;
  /** Frees the recording and the buffers it holds; calling the step afterwards throws. Idempotent. */
  dispose(): void;
  /** dispose(), for `using`. */
  [Symbol.dispose](): void;
}

interface Recording {
  readonly key: string;
  readonly device: Device;
  readonly epoch: number;
  readonly graph: number;
  readonly inputs: Tensor[]; // views holding the recorded input buffers
  readonly outputs: Tensor[]; // views holding the recorded output buffers
  readonly single: boolean;
}

/** Whether inputs have the recorded inputs' layout (what layoutKey names), without building the key. */
function sameLayout(r: Recording, inputs: readonly Tensor[]): boolean {
  if (inputs.length !== r.inputs.length) return false;
  for (let i = 0; i < inputs.length; i++) {
    const t = inputs[i], u = r.inputs[i];
    if (!(t instanceof Tensor) || t.device !== u.device || t.dtype !== u.dtype || t.offset !== u.offset) return false;
    if (!sameShape(t.shape, u.shape) || !sameShape(t.strides, u.strides)) return false;
  }
  return true;
}

function layoutKey(inputs: readonly Tensor[]): string {
  return inputs.map((t) => `${t.device.id}/${t.dtype}${fmtShape(t.shape)}${fmtShape(t.strides)}+${t.offset}`).join(";");
}

function owned(t: Tensor): Tensor {
  keepOwner(t);
  return t;
}

function freeRecording(r: Recording): void {
  for (const t of [...r.inputs, ...r.outputs]) t.dispose();
  if (r.device.epoch === r.epoch && r.device.isOpen) native.pt_graph_free(r.graph);
}

function record<A extends Tensor[], R extends Tensor | readonly Tensor[]>(
  fn: StepFn<A, R>,
  inputs: A,
  key: string,
): { rec: Recording; result: R } {
  const device = inputs.length > 0 ? inputs[0].device : undefined;
  if (!device) throw new TensorError("capture", "a captured step needs at least one tensor input (it names the device)");
  for (const t of inputs) {
    if (!(t instanceof Tensor)) throw new TensorError("capture", "every input of a captured step must be a tensor");
    if (t.device !== device) throw new TensorError("capture", `inputs are on different devices (${device.id} and ${t.device.id})`);
    t.materialize();
  }
  const queue = queueFor(device); // the caller's queue (withQueue), where the step's launches go
  if (device.capturing !== 0) throw new TensorError("capture", `${device.id} is already capturing a step; captures do not nest`);
  check(native.pt_capture_begin(queue), "capture");
  device.capturing = queue;
  // The recording holds every buffer its work touched, so the step's own intermediates (the
  // tensors fn made but does not return) are disposed as soon as it is recorded, as pt.tidy would.
  openScope();
  let result: R;
  try {
    result = fn(...inputs);
    const outs = Array.isArray(result) ? (result as readonly Tensor[]) : [result as Tensor];
    for (const o of outs) {
      if (!(o instanceof Tensor)) throw new TensorError("capture", "a captured step must return a tensor or an array of tensors");
      o.materialize();
    }
  } catch (e) {
    device.capturing = 0;
    const g = native.pt_capture_end(queue);
    if (g > 0) native.pt_graph_free(g);
    closeScope(null);
    throw e;
  }
  device.capturing = 0;
  const outs = Array.isArray(result) ? (result as readonly Tensor[]) : [result as Tensor];
  let graph: number;
  try {
    graph = check(native.pt_capture_end(queue), "capture");
  } finally {
    closeScope(new Set(outs));
  }
  const rec = {
    key,
    device,
    epoch: device.epoch,
    graph,
    // Owned by the recording, not by a pt.tidy open around the first call.
    inputs: inputs.map((t) => owned(viewOf(t, t.shape, t.strides, t.offset, "capture"))),
    outputs: outs.map((t) => owned(viewOf(t, t.shape, t.strides, t.offset, "capture"))),
    single: !Array.isArray(result),
  };
  return { rec, result };
}

/**
 * Records fn's device work on its first call and replays it, in one native call, on later calls whose inputs have
 * the same shapes, dtypes, strides and device, like a CUDA graph captured with `torch.cuda.graph` whose static inputs
 * and outputs are handled for you (it is one on CUDA). New input data is copied into the recorded inputs; inputs of
 * another layout record the step again. fn must take tensors (at least one) and return a tensor or an array of
 * tensors; the tensors it makes but does not return are disposed once recorded. fn runs only when the step records:
 * a replay runs its recorded device work, not its JavaScript. It records and replays on the caller's queue (pt.withQueue).
 *
 * @example
 * using step = pt.capture((x: pt.Tensor, w: pt.Tensor) => x.matmul(w).relu());
 * for (const x of batches) {
 *   using y = step(x, w); // recorded by the first call, replayed by the others; overwritten by the next call
 *   console.log(y.toArray());
 * }
 * @throws {TensorError} when called after dispose(); when the inputs are not tensors, none is given, or they are on
 * different devices; when fn, while it records, reads values on the host, sends work to another queue, starts another
 * capture (captures do not nest) or returns something else than tensors; and, with `{ strict: true }`, when the
 * inputs' layout differs from the recorded one (unless the device was closed since: the step then records again)
 */
export function capture<A extends Tensor[], R extends Tensor | readonly Tensor[]>(
  fn: (...inputs: A) => R,
  opts: CaptureOptions = {},
): CapturedStep<A, R> {
  let rec: Recording | null = null;
  let replays = 0, recordings = 0, disposed = false;
  const step = (...inputs: A): R => {
    if (disposed) throw new TensorError("capture", "this captured step was disposed");
    if (rec && (rec.epoch !== rec.device.epoch || !sameLayout(rec, inputs))) {
      const key = layoutKey(inputs);
      if (opts.strict && rec.epoch === rec.device.epoch) {
        throw new TensorError("capture", `inputs ${key} differ from the recorded ${rec.key} (strict mode records once)`);
      }
      freeRecording(rec);
      rec = null;
    }
    if (!rec) {
      recordings++;
      const first = record(fn, inputs, layoutKey(inputs));
      rec = first.rec;
      return first.result;
    }
    const r = rec;
    inputs.forEach((t, i) => {
      if (t.buf !== r.inputs[i].buf || t.offset !== r.inputs[i].offset) copyInto(r.inputs[i], t, "capture");
    });
    const q = queueFor(r.device); // after the input copies, which went to this queue too
    check(native.pt_graph_launch(r.graph, q), "capture replay");
    queuedOn(r.device, q);
    replays++;
    const views = r.outputs.map((t) => viewOf(t, t.shape, t.strides, t.offset, "capture replay"));
    return (r.single ? views[0] : views) as unknown as R;
  };
  Object.defineProperties(step, {
    replays: { get: () => replays },
    recordings: { get: () => recordings },
  });
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    if (rec) freeRecording(rec);
    rec = null;
  };
  return Object.assign(step, { dispose, [Symbol.dispose]: dispose }) as unknown as CapturedStep<A, R>;
}
