/**
 * Queues, completions and device timing (docs/architecture.md, Queues and completions).
 *
 * Each device has a default queue; `pt.queue(device)` makes more, and `pt.withQueue(q, fn)`
 * runs fn with every launch, upload and readback on q's device going to q. A Completion is
 * a fence: a queue position that passes when the work before it is done. It is polled with
 * the non-blocking pt_fence_query plus a setTimeout backoff, so awaiting one never blocks
 * the thread, and its outcome is sticky: once passed it stays passed, and once failed it
 * reports the same error however often it is asked, even after later errors or a close.
 *
 * Ownership and ordering. Work on one queue runs in launch order. Across queues the native
 * core orders every buffer (core.h, block reuse across queues): each buffer's memory carries
 * the queue that last used it, and work on another queue that uses it first waits for that
 * queue on the device, never on the host. Nothing here keeps ordering state; a host wait on a
 * buffer's writes (whenWritten) asks the core to order its queue after the buffer first
 * (pt_queue_wait_buffer).
 *
 * Failures. A kernel failure is reported at its queue position: by the launch itself where
 * launches run at once, else by the next host wait on the device. A Completion covers the
 * work its queue ran since the previous Completion of that queue; it fails if any of that
 * work failed, whichever of the two ways the failure surfaced. Launch-time failures are
 * noted here (noteFailure) for the queue's next Completion.
 */
import { check, lastError, native, statusName } from "./native.ts";
import { type Device, device as resolveDevice } from "./device.ts";
import { type OpName, TensorError } from "../base/errors.ts";

const PT_EHANDLE = -2, PT_EDRIVER = -5, PT_EKERNEL = -6;

// ---------------------------------------------------------------------------------------
// Module state read by the launch path (live bindings: reading them costs a load).

/** A withQueue scope: its queue and the scope around it. */
interface Frame {
  readonly queue: Queue;
  readonly outer: Frame | null;
}
/** The innermost withQueue scope, or null (every launch goes to its device's default queue). */
export let scoped: Frame | null = null;
/** User queues alive, by native handle. */
const liveQueues = new Map<number, Queue>();
/** Failures reported at launch on each native queue, for its next Completion (the first one wins). */
const pendingFailure = new Map<number, TensorError>();

/** The native queue launches on `d` go to now: the scope's queue on its device, else d's default. */
export function queueFor(d: Device): number {
  for (let s = scoped; s !== null; s = s.outer) if (s.queue.device === d) return s.queue.handle;
  return d.queue;
}

function scopeQueue(d: Device): Queue | null {
  for (let s = scoped; s !== null; s = s.outer) if (s.queue.device === d) return s.queue;
  return null;
}

/**
 * Turns a failed status of work on native queue q into a TensorError for `op`, noting a
 * kernel or driver failure for q's next Completion, and throws it.
 */
export function queueFailure(q: number, status: number, op: OpName): never {
  const e = new TensorError(op, lastError() || statusName[status] || `status ${status}`, status);
  if ((status === PT_EKERNEL || status === PT_EDRIVER) && !pendingFailure.has(q)) pendingFailure.set(q, e);
  throw e;
}

/** Called after a launch inside a scope: a batching device submits it at the end of the task. */
export function queuedOn(d: Device, q: number): void {
  if (q === d.queue) d.queued();
  else liveQueues.get(q)?.queued();
}

// ---------------------------------------------------------------------------------------

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves once the work that writes `buf` (on the queue a host read of it would use) has
 * finished, polling a fence without blocking; rejects with a failure it reports. What
 * `await t.data()` waits on before its (then immediate) read. It takes no earlier
 * launch-time failure from the queue: those were reported by their ops.
 */
export async function whenWritten(d: Device, buf: number, op: string): Promise<void> {
  const q = queueFor(d);
  check(native.pt_queue_wait_buffer(q, buf), op);
  native.pt_queue_flush(q);
  const f = check(native.pt_fence_record(q), op);
  const epoch = d.epoch;
  try {
    let delay = 0;
    for (;;) {
      if (d.epoch !== epoch) throw new TensorError(op, `${d.id} was closed while waiting for the values`, PT_EHANDLE);
      const r = native.pt_fence_query(f);
      if (r === 1) return;
      if (r < 0) queueFailure(q, r, op);
      await sleep(delay);
      delay = delay === 0 ? 1 : Math.min(delay * 2, 16);
    }
  } finally {
    if (d.epoch === epoch && d.isOpen) native.pt_fence_free(f);
  }
}

const PENDING = 0, PASSED = 1, FAILED = -1;

/** Frees the fence of a Completion the program dropped (if its device was not closed since). */
const dropped = new FinalizationRegistry<{ fence: number; device: Device; epoch: number }>((h) => {
  if (h.device.epoch === h.epoch && h.device.isOpen) native.pt_fence_free(h.fence);
});

/**
 * A queue position, like `torch.cuda.Event`: made by `q.record()`, it passes when the work queued before it on its
 * queue has finished, and fails if any of that work (since the queue's previous Completion) failed. Its outcome is
 * sticky: the same error every time it is asked. Dispose it (or `using`) to free the fence; a dropped one is freed
 * after garbage collection, or when its device closes.
 *
 * @example
 * using c = q.record();
 * // ... more host work ...
 * await c.wait(); // or: if (c.query()) ...
 */
export class Completion implements Disposable {
  /** The queue it was recorded on. */
  readonly queue: Queue;
  #fence: number;
  readonly #epoch: number;
  #state = PENDING;
  #error: TensorError | undefined;

  /** @internal Made by Queue.record(). */
  constructor(queue: Queue, fence: number, failure: TensorError | undefined) {
    this.queue = queue;
    this.#fence = fence;
    this.#epoch = queue.device.epoch;
    if (failure) this.#fail(failure);
    dropped.register(this, { fence, device: queue.device, epoch: this.#epoch }, this);
  }

  #fail(e: TensorError): void {
    this.#state = FAILED;
    this.#error = new TensorError("completion", `work before this completion on ${this.queue} failed: ${e.message}`, e.status);
  }

  /** The failure, once seen; undefined while pending or after success. */
  get error(): TensorError | undefined {
    if (this.#state === PENDING) this.#poll();
    return this.#error;
  }

  /** "pending", "passed" or "failed"; asks the device (without waiting) while pending. Never throws. */
  get status(): "pending" | "passed" | "failed" {
    if (this.#state === PENDING) this.#poll();
    return this.#state === PASSED ? "passed" : this.#state === FAILED ? "failed" : "pending";
  }

  /**
   * True once passed, false while pending, like `torch.cuda.Event.query`; never waits.
   * @throws {TensorError} when the work before it failed, its device was closed or it was disposed before it passed
   * (the same error every time)
   */
  query(): boolean {
    if (this.#state === PENDING) this.#poll();
    if (this.#state === FAILED) throw this.#error;
    return this.#state === PASSED;
  }

  #poll(): void {
    const d = this.queue.device;
    if (this.#fence === 0) {
      this.#fail(new TensorError("completion", "it was disposed before it passed"));
      return;
    }
    if (d.epoch !== this.#epoch || !d.isOpen) {
      this.#fail(new TensorError("completion", `${d.id} was closed before it passed`, PT_EHANDLE));
      return;
    }
    const r = native.pt_fence_query(this.#fence);
    if (r === 1) this.#state = PASSED;
    else if (r < 0) this.#fail(new TensorError("completion", lastError() || statusName[r] || `status ${r}`, r));
  }

  /**
   * Resolves when passed, like `torch.cuda.Event.synchronize` but polling without blocking the thread.
   * @throws {TensorError} (rejects) with the failure, as query() throws it
   */
  async wait(): Promise<void> {
    if (this.#state === PENDING) {
      this.queue.flush();
      let delay = 0;
      while (!this.query()) {
        await sleep(delay);
        delay = delay === 0 ? 1 : Math.min(delay * 2, 16);
      }
    }
    if (this.#state === FAILED) throw this.#error;
  }

  /**
   * Device milliseconds from `start` (an earlier completion on this device) to this one, as `start.elapsed_time(end)`
   * of `torch.cuda.Event`; both must have passed (await their wait() first). q.time(fn) does all of it.
   * @throws {TensorError} when either has not passed or failed, either was disposed, or they are on different devices
   */
  elapsedSince(start: Completion): number {
    if (!start.query()) throw new TensorError("elapsed", "the start completion has not passed yet; wait for it first");
    if (!this.query()) throw new TensorError("elapsed", "this completion has not passed yet; wait for it first");
    if (start.#fence === 0 || this.#fence === 0) throw new TensorError("elapsed", "a completion was disposed");
    const ms = native.pt_fence_elapsed_ms(start.#fence, this.#fence);
    return check(ms, "elapsed");
  }

  /** Frees the fence; afterwards a pending completion fails, a passed one stays passed. Idempotent. */
  dispose(): void {
    if (this.#fence === 0) return;
    dropped.unregister(this);
    const d = this.queue.device;
    if (d.epoch === this.#epoch && d.isOpen) native.pt_fence_free(this.#fence);
    this.#fence = 0;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/**
 * A device queue, like `torch.cuda.Stream`: work on it runs in launch order and may overlap work on other queues of
 * its device; a tensor passed between queues is ordered on the device, never on the host. Each device has a default
 * queue (pt.defaultQueue); pt.queue() makes more, and pt.withQueue(q, fn) (or q.run(fn)) sends fn's work to q.
 *
 * @example
 * using q = pt.queue("cuda");
 * const y = q.run(() => x.matmul(w)); // queued on q
 * await q.done();
 * const ms = await q.time(() => x.matmul(w).dispose()); // device milliseconds
 */
export class Queue implements Disposable {
  /** The device it belongs to. */
  readonly device: Device;
  /** Whether this is the device's default queue. */
  readonly isDefault: boolean;
  #handle: number;
  readonly #epoch: number;
  #batched = false;
  #flushPending = false;

  /** @internal Use pt.queue() or pt.defaultQueue(). */
  constructor(device: Device, handle: number, isDefault: boolean) {
    this.device = device;
    this.#handle = handle;
    this.#epoch = device.epoch;
    this.isDefault = isDefault;
    this.#batched = device.has("batched_submit");
  }

  /**
   * @internal The native queue handle.
   * @throws {TensorError} when the queue was disposed or its device closed since it was made
   */
  get handle(): number {
    if (this.#handle === 0) throw new TensorError("queue", `${this} was disposed`);
    if (this.#epoch !== this.device.epoch) {
      throw new TensorError("queue", `${this} belongs to ${this.device.id} from before ${this.device.endedBy(this.#epoch)}`, PT_EHANDLE);
    }
    return this.#handle;
  }

  /** Whether dispose() freed it (a default queue never is). */
  get disposed(): boolean {
    return this.#handle === 0;
  }

  /** @internal Whether the handle is still usable (not disposed, device not closed since). */
  get usable(): boolean {
    return this.#handle !== 0 && this.#epoch === this.device.epoch && this.device.isOpen;
  }

  /**
   * A completion at this queue's current position (after everything queued so far), like
   * `torch.cuda.Stream.record_event`.
   * @throws {TensorError} when the queue was disposed or its device closed, or inside a pt.capture() step on it
   */
  record(): Completion {
    const h = this.handle;
    const f = check(native.pt_fence_record(h), `record on ${this}`);
    const failure = pendingFailure.get(h);
    if (failure) pendingFailure.delete(h);
    return new Completion(this, f, failure);
  }

  /**
   * Resolves when the work queued so far has finished, like `torch.cuda.Stream.synchronize` but without blocking.
   * @throws {TensorError} (rejects) when any of that work failed, or as record() throws
   */
  async done(): Promise<void> {
    using c = this.record();
    await c.wait();
  }

  /** Runs fn with its work on this queue, returning its result: pt.withQueue(this, fn). */
  run<T>(fn: () => T): T {
    return withQueue(this, fn);
  }

  /**
   * Runs fn on this queue and resolves with the device milliseconds its work took, from a
   * fence before it to one after it. fn must be synchronous (its launches are what is timed).
   * Work still pending in lazy mode is timed only if fn materializes it.
   * @throws {TensorError} (rejects) when fn returns a promise, or when the work failed; else what fn throws
   */
  async time(fn: () => void): Promise<number> {
    using start = this.record();
    const r = withQueue(this, fn) as unknown;
    if (r !== null && typeof r === "object" && typeof (r as { then?: unknown }).then === "function") {
      throw new TensorError("time", "fn returned a promise; time() measures a synchronous function's device work");
    }
    using end = this.record();
    await end.wait();
    return end.elapsedSince(start);
  }

  /** Submits recorded work on batching devices; elsewhere nothing. Never waits. */
  flush(): void {
    if (this.usable) native.pt_queue_flush(this.#handle);
  }

  /** @internal After a launch on this queue: a batching device submits at the end of the task. */
  queued(): void {
    if (!this.#batched || this.#flushPending) return;
    this.#flushPending = true;
    queueMicrotask(() => {
      this.#flushPending = false;
      this.flush();
    });
  }

  /**
   * Frees the queue. Its queued work still runs, and anything that used its buffers later
   * on another queue stays ordered after it: the default queue first waits for it, and
   * inherits its buffers. Disposing a default queue does nothing.
   */
  dispose(): void {
    if (this.isDefault || this.#handle === 0) return;
    const h = this.#handle;
    this.#handle = 0;
    liveQueues.delete(h);
    pendingFailure.delete(h);
    // The core makes the default queue wait for its work and inherit its buffers (pt_queue_free).
    if (this.#epoch === this.device.epoch && this.device.isOpen) native.pt_queue_free(h);
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** "queue N of cuda:0" or "the default queue of cuda:0". */
  toString(): string {
    return `${this.isDefault ? "the default queue" : `queue ${this.#handle}`} of ${this.device.id}`;
  }
}

const defaults = new WeakMap<Device, Queue>();

/**
 * A device's default queue (the default device's if none is named), where its work goes outside withQueue, like
 * `torch.cuda.default_stream`. Opens the device.
 * @throws {TensorError} when `d` names no usable device, or it cannot be opened
 */
export function defaultQueue(d?: string | Device): Queue {
  const dev = resolveDevice(d);
  let q = defaults.get(dev);
  if (!q || !q.usable || q.handle !== dev.queue) {
    q = new Queue(dev, dev.queue, true);
    defaults.set(dev, q);
  }
  return q;
}

/**
 * The queue work on `d` (the default device if none is named) goes to now: the innermost withQueue's for that
 * device, else its default queue, like `torch.cuda.current_stream`.
 * @throws {TensorError} when `d` names no usable device, or it cannot be opened
 */
export function currentQueue(d?: string | Device): Queue {
  const dev = resolveDevice(d);
  return scopeQueue(dev) ?? defaultQueue(dev);
}

/**
 * A new queue on a device (the default device if none is named), like `torch.cuda.Stream(device)`. Work on it runs
 * in order and may overlap work on other queues; tensors passed between queues are ordered on the device. Dispose it (or `using`) when done.
 * @throws {TensorError} when `d` names no usable device, or it cannot be opened or make a queue
 */
export function queue(d?: string | Device): Queue {
  const dev = resolveDevice(d);
  const h = check(native.pt_queue_create(dev.handle), `queue on ${dev.id}`);
  const q = new Queue(dev, h, false);
  liveQueues.set(h, q);
  return q;
}

/**
 * Runs fn with q as the queue of q's device, like `with torch.cuda.stream(q):`: its launches, uploads and readbacks
 * go to q. Scopes nest, and scopes of different devices combine. The previous queue is restored when fn returns or
 * throws. fn should be synchronous: work started after an await inside it is not in the scope. In lazy mode an
 * elementwise result still pending runs on the queue current when it is materialized (pt.materialize() it inside fn
 * to run it on q).
 *
 * @example
 * using q = pt.queue("cuda");
 * const y = pt.withQueue(q, () => x.mul(2).sum()); // y is written on q
 * console.log(y.item()); // waits for q, on the host only here
 * @throws {TensorError} when q was disposed or its device closed (before fn runs); else what fn throws
 */
export function withQueue<T>(q: Queue, fn: () => T): T {
  void q.handle; // a disposed or closed queue fails here, before fn runs
  const prev = scoped;
  scoped = { queue: q, outer: prev };
  try {
    return fn();
  } finally {
    scoped = prev;
  }
}
