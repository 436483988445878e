/**
 * A deferred elementwise result (docs/architecture.md, Lazy fusion): an expression over strided leaves
 * and constants, launched as one fused kernel when a value is needed.
 *
 * Ownership and ordering. A node holds one native reference to each leaf buffer from the
 * moment it is recorded (through a LeafRefs that the later steps of a chain share), so
 * inputs may be disposed before the node runs. Tensor handles
 * that stand for the node (the result and its aliases: clones and same-shape views) attach
 * to it; the first handle that needs memory materializes the node once, and every handle
 * then takes its own reference to that one buffer. The leaves are released at
 * materialization; the node's own reference goes with its last attached handle, so a
 * sibling that is still deferred stays valid when the first materialized handle is
 * disposed. Materialization launches on the device's queue in program order, like any
 * eager op, so fused outputs keep their queue's ordering.
 */
import { check, native } from "../runtime/native.ts";
import type { Device } from "../runtime/device.ts";
import { allocBuffer } from "../runtime/ownership.ts";
import { type OpName, TensorError } from "../base/errors.ts";
import { runElementwise } from "../kernels/launch.ts";
import type { ViewRef } from "../kernels/block.ts";
import type { Expr } from "../kernels/ir.ts";
import { type DType, DTYPES } from "../base/dtype.ts";
import { checkBytes, denseStrides, MAX_BYTES, numel, sealed } from "../base/shape.ts";

/** A strided view on a buffer the node holds one reference to. */
export interface Leaf extends ViewRef {
  readonly buf: number;
  readonly dtype: DType;
  readonly offset: number;
  readonly strides: readonly number[];
}

/**
 * Leaves with one native reference on each leaf's buffer, shared by the nodes that read
 * exactly these leaves (a chain of ops on one input inlines the same leaves at every step):
 * the last node done with them releases the buffers, so a chain pays one retain per leaf.
 */
export class LeafRefs {
  #users = 1;
  constructor(readonly list: readonly Leaf[]) {}

  share(): this {
    this.#users++;
    return this;
  }

  /** One node is done with the leaves; the last releases them (skipped once the device's context ended: its close freed them). */
  release(alive: boolean): void {
    if (--this.#users > 0 || !alive) return;
    for (let i = 0; i < this.list.length; i++) native.pt_buffer_release(this.list[i].buf);
  }
}

const NO_LEAVES: readonly Leaf[] = [];

/**
 * The ops a node fused, for its error messages: its own op after the trails of the nodes it
 * inlined. A chain step links to its operand's trail instead of copying a growing list.
 */
export interface OpTrail {
  readonly op: string;
  readonly from: readonly OpTrail[];
}

function listOps(t: OpTrail, out: string[]): string[] {
  for (let i = 0; i < t.from.length; i++) listOps(t.from[i], out);
  out.push(t.op);
  return out;
}

/**
 * The unlaunched nodes, newest first, linked through the nodes themselves: an in-place write
 * (tensor/inplace.ts) launches the ones that read the buffer it overwrites, so that they see
 * the values they were recorded with.
 */
let newest: Deferred | null = null;

/** Launches every unlaunched node (but `except`) with a leaf on buffer `buf`, keeping its result for its handles. */
export function runReadersOf(buf: number, except: Deferred | null): void {
  const readers: Deferred[] = [];
  for (let n = newest; n !== null; n = n.older) {
    if (n !== except && n.leaves.some((l) => l.buf === buf)) readers.push(n);
  }
  for (let i = readers.length - 1; i >= 0; i--) readers[i].launch(); // oldest first, in program order
}

/** @internal One deferred node: an elementwise expression not launched yet, shared by the tensor handles that stand for it. */
export class Deferred {
  readonly epoch: number;
  /** Neighbours in the list of unlaunched nodes (null at either end, or once launched). */
  older: Deferred | null;
  newer: Deferred | null;
  /**
   * A view of a pending result is a node of its own (re-strided leaves), not an alias of the result's memory, so an
   * in-place write to either would not reach the other: inplace.ts refuses those writes while both are pending.
   */
  viewOf: Deferred | null = null;
  views: WeakRef<Deferred>[] | null = null;
  #refs: LeafRefs | null;
  #buf: number;
  #pending: number;
  #name: string | undefined;
  #strides: readonly number[] | undefined;
  /** Nodes and depth of expr (record.ts keeps programs within every renderer's limits). */
  nodes: number;
  depth: number;

  constructor(
    readonly device: Device,
    readonly dtype: DType,
    readonly shape: readonly number[],
    readonly expr: Expr,
    refs: LeafRefs,
    readonly consts: readonly number[],
    /** The recorded ops, for error messages. */
    readonly trail: OpTrail,
  ) {
    this.epoch = device.epoch;
    this.#refs = refs;
    this.#buf = 0;
    this.#pending = 0;
    this.nodes = 0;
    this.depth = 0;
    this.newer = null;
    this.older = newest;
    if (newest !== null) newest.newer = this;
    newest = this;
  }

  /** "add, mul, sub (fused)": what an error at materialization names. */
  get ops(): string {
    if (this.#name !== undefined) return this.#name;
    const l = listOps(this.trail, []);
    return this.#name = l.length === 1 ? l[0] : `${l.length > 6 ? `${l.slice(0, 3).join(", ")}, ..., ${l.at(-1)}` : l.join(", ")} (fused)`;
  }

  /** The row-major strides of shape, shared by the node's handles (tensor.ts deferredTensor). */
  get strides(): readonly number[] {
    return this.#strides ??= denseStrides(this.shape);
  }

  /** The leaves while the node is still unlaunched; empty once it ran. */
  get leaves(): readonly Leaf[] {
    return this.#refs === null ? NO_LEAVES : this.#refs.list;
  }

  /** The leaves and their references while unlaunched (record.ts shares them with a node that reads the same leaves). */
  get refs(): LeafRefs | null {
    return this.#refs;
  }

  /** The node's buffer once it ran, else 0. */
  get buffer(): number {
    return this.#buf;
  }

  attach(): void {
    this.#pending++;
  }

  /** Whether a view made of this node is still pending with a handle (see viewOf). */
  get hasPendingViews(): boolean {
    return this.views !== null && this.views.some((w) => {
      const v = w.deref();
      return v !== undefined && v.handles > 0 && v.leaves.length > 0 && v.buffer === 0;
    });
  }

  /** How many tensor handles stand for the node now. */
  get handles(): number {
    return this.#pending;
  }

  /** One reference to the result, for a handle that stops being deferred (and detaches). */
  take(): number {
    const b = this.#run();
    if (this.#pending === 1) { // the last handle: hand over the node's own reference
      this.#pending = 0;
      this.#buf = 0;
      return b;
    }
    check(native.pt_buffer_retain(b), this);
    this.#pending--;
    return b;
  }

  /** A handle was disposed or collected while deferred. */
  detach(): void {
    if (--this.#pending > 0) return;
    this.#pending = 0;
    if (this.#buf !== 0 && this.#alive()) native.pt_buffer_release(this.#buf);
    this.#buf = 0;
    this.#releaseLeaves();
  }

  /** Launches the fused kernel now unless it already ran (its handles take the result later). */
  launch(): void {
    this.#run();
  }

  /**
   * Runs the expression into `out` (a view the caller owns) instead of a buffer of its own,
   * leaving the node unlaunched for its handles: an in-place write of a pending value.
   */
  runInto(out: Leaf, op: OpName): void {
    if (!this.#alive() || this.#refs === null) throw new TensorError(op, "the value to write was released");
    if (numel(this.shape) > 0) runElementwise(this.device, op, this.expr, this.shape, out, this.#refs.list, this.consts);
  }

  /** Launches the fused kernel unless it already ran; returns the node's buffer. */
  #run(): number {
    if (this.#buf !== 0) return this.#buf;
    if (!this.#alive()) {
      throw new TensorError(
        this.ops,
        `this deferred result belongs to ${this.device.id} from before ${this.device.endedBy(this.epoch)}; its inputs are gone`,
      );
    }
    const refs = this.#refs;
    if (refs === null) throw new TensorError(this.ops, "this deferred result was released and cannot be used");
    const bytes = numel(this.shape) * DTYPES[this.dtype].size;
    if (bytes > MAX_BYTES) checkBytes(this.shape, DTYPES[this.dtype].size, this.dtype, this.ops); // throws in the user's terms
    const buf = allocBuffer(this.device, bytes, this); // the node: its name is built only for an error
    try {
      const out = { buf, dtype: this.dtype, offset: 0, strides: this.strides };
      if (bytes > 0) runElementwise(this.device, this, this.expr, this.shape, out, refs.list, this.consts);
    } catch (e) {
      native.pt_buffer_release(buf);
      throw e;
    }
    this.#buf = buf;
    this.#releaseLeaves();
    return buf;
  }

  #alive(): boolean {
    return this.epoch === this.device.epoch && this.device.isOpen;
  }

  #releaseLeaves(): void {
    const refs = this.#refs;
    this.#refs = null;
    if (refs === null) return;
    // Off the list of unlaunched nodes: nothing here reads its leaves any more.
    if (this.newer !== null) this.newer.older = this.older;
    else newest = this.older;
    if (this.older !== null) this.older.newer = this.newer;
    this.older = this.newer = null;
    refs.release(this.#alive());
  }
}

/** One reference to each leaf's buffer, or none (and the error for `op`, or node n's ops) when one fails. */
export function retainLeaves(leaves: readonly Leaf[], op: OpName): LeafRefs {
  for (let i = 0; i < leaves.length; i++) {
    const st = native.pt_buffer_retain(leaves[i].buf);
    if (st >= 0) continue;
    let error: unknown;
    try {
      check(st, op); // throws; read before a release replaces the shim's message
    } catch (e) {
      error = e;
    }
    for (let j = 0; j < i; j++) native.pt_buffer_release(leaves[j].buf);
    throw error;
  }
  return new LeafRefs(leaves);
}

/** PT_LAZY=0 turns deferral off for the process; setLazy() and eager() change it in code. */
let enabled = readEnv() !== "0";

function readEnv(): string | undefined {
  const g = globalThis as { Deno?: { env: { get(k: string): string | undefined } }; process?: { env: Record<string, string | undefined> } };
  try {
    return g.Deno ? g.Deno.env.get("PT_LAZY") : g.process?.env.PT_LAZY;
  } catch {
    return undefined; // no --allow-env: the default
  }
}

/**
 * Whether elementwise ops are deferred now, to run as one fused kernel when a value is needed (lazy fusion); true
 * unless PT_LAZY=0, setLazy(false) or inside eager(). PyTorch has no counterpart: it is always eager.
 */
export function lazyEnabled(): boolean {
  return enabled;
}

/**
 * Turns deferral of elementwise ops on or off for the process; returns the previous setting. Results are the same
 * bits either way. Turning it off launches later ops at once; results already pending stay pending until needed.
 */
export function setLazy(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/**
 * Runs fn with deferral off (every elementwise op launches at once), restoring the previous setting when fn returns
 * or throws. fn should be synchronous.
 *
 * @example
 * const y = pt.eager(() => x.mul(2).add(1)); // two kernels, launched now
 */
export function eager<T>(fn: () => T): T {
  const was = setLazy(false);
  try {
    return fn();
  } finally {
    enabled = was;
  }
}

/**
 * How a view's dims come from its base's: new dim k reads base dim from[k] (or is a
 * broadcast dim when -1) with step[k], starting at start[j] of each base dim j.
 */
export interface DimMap {
  readonly from: readonly number[];
  readonly step: readonly number[];
  readonly start: readonly number[];
}

/**
 * The same computation seen through a view (permute, expand, slice, flip, squeeze,
 * unsqueeze): elementwise work commutes with these, so the view is a new node whose leaves
 * are re-strided the same way, still unlaunched. The new node holds its own references.
 */
export function viewOfDeferred(n: Deferred, shape: readonly number[], map: DimMap): Deferred {
  const leaves = n.leaves.map((l): Leaf => {
    let offset = l.offset;
    map.start.forEach((s, j) => offset += s * (l.strides[j] ?? 0));
    const strides = map.from.map((f, k) => (f < 0 ? 0 : l.strides[f] * map.step[k]));
    return { buf: l.buf, dtype: l.dtype, offset, strides };
  });
  const d = new Deferred(n.device, n.dtype, sealed(shape), n.expr, retainLeaves(leaves, n), n.consts, n.trail);
  d.nodes = n.nodes;
  d.depth = n.depth;
  d.viewOf = n;
  (n.views ??= []).push(new WeakRef(d));
  return d;
}
