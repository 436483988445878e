/**
 * Ownership of native buffers held by tensors. dispose() releases at once; a
 * FinalizationRegistry releases what the program dropped (in a later macrotask, never at
 * exit); at exit, closing the open devices frees the rest (device.ts). A release after
 * the device was closed is skipped: the close already freed the buffer.
 *
 * Registration waits for the end of the current task (a microtask): a tensor disposed
 * before then, as loop temporaries and `using` results are, never registers, and never
 * makes the Held record the registry keeps. Nothing is lost by waiting, since the
 * registry's callbacks only run in a later task anyway; until then the pending list keeps
 * the tensor reachable. Registering and unregistering were a fifth of a small op's host
 * time under Deno (V8), and the record a seventh of a lazy chain step's under Bun.
 *
 * A registered tensor's Held says what it owns: while it stands for a deferred node, its
 * attachment to the node (released by detaching); once it has memory, one reference to
 * its buffer. Materializing changes the record in place (holdBuffer).
 *
 * Native memory is invisible to the JavaScript collector, so a loop that drops unnamed
 * intermediates (`x.matmul(w).relu()`) would grow until a collection it never triggers.
 * allocBuffer() therefore watches each device's memory in use: when it has grown by the
 * collect threshold since the last collection, or an allocation fails, collect() asks the
 * runtime for a full collection (Bun.gc; `gc` where Deno runs with --expose-gc) and then
 * sweeps the registered tensors' WeakRefs, releasing at once what was found unreachable
 * (the registry's callbacks would run only in a later task, which a synchronous loop never
 * reaches). V8 keeps a WeakRef's target alive until the job that made the WeakRef ends, so
 * under Deno the sweep frees what was dropped in earlier tasks only (README, Ownership).
 *
 * Scopes (pt.tidy) list every owner made while they are open; closing one disposes all of
 * them but what the caller keeps.
 */
import { check, native, runtime } from "./native.ts";
import type { Device } from "./device.ts";
import { type OpName, TensorError } from "../base/errors.ts";

/** What one registered tensor owns; `node` set: an attachment to a deferred node, else a buffer reference. */
export interface Held {
  buf: number;
  device: Device;
  epoch: number;
  /** Host memory a wrapped buffer points into: alive until the release. */
  keep: object | undefined;
  node: { detach(): void } | null;
  /** The owner, weakly, for collect()'s sweep; set when it registers. */
  ref?: WeakRef<Owner>;
}

/** The method registerPending() calls on an owner: its Held record, made now, or null when it owns nothing any more. */
export const heldNow: unique symbol = Symbol("polytensor.heldNow");
export interface Owner {
  [heldNow](): Held | null;
  dispose(): void;
  readonly disposed: boolean;
}

/** Releases one buffer reference (skipped once the device's context of `epoch` ended: its close freed it) or one attachment. */
export function release(device: Device, epoch: number, buf: number, node: { detach(): void } | null): void {
  if (node !== null) node.detach();
  else if (buf !== 0 && device.epoch === epoch && device.isOpen) native.pt_buffer_release(buf);
}

function releaseHeld(h: Held): void {
  const node = h.node, buf = h.buf;
  h.node = null;
  h.buf = 0;
  h.keep = undefined;
  release(h.device, h.epoch, buf, node);
}

const registry = new FinalizationRegistry<Held>(releaseHeld);
/** Every registered record, for the sweep; released ones are dropped when it compacts. */
let registered: Held[] = [];
/** registered.length after the last compaction: the list is compacted when it doubles. */
let compactedAt = 1024;
/** Owners created in this task, pending[0 .. npending), registered by registerPending(); a fixed array, so tracking never grows one. */
const PENDING_MAX = 512;
const pending: (Owner | null)[] = new Array<Owner | null>(PENDING_MAX).fill(null);
let npending = 0;

function registerPending(): void {
  const n = npending; // 0: emptied early by a long loop; its microtask comes after
  npending = 0;
  for (let i = 0; i < n; i++) {
    const owner = pending[i]!;
    pending[i] = null;
    const h = owner[heldNow]();
    if (h === null) continue; // released in its task, nothing to collect
    registry.register(owner, h, owner);
    h.ref = new WeakRef(owner);
    registered.push(h);
  }
  if (registered.length >= 2 * compactedAt) compact();
}

const isReleased = (h: Held): boolean => h.buf === 0 && h.node === null;

/** Drops released records from the sweep list; reads no WeakRef (V8 would keep its target for the job). */
function compact(): void {
  registered = registered.filter((h) => !isReleased(h));
  compactedAt = Math.max(1024, registered.length);
}

/** Releases what every registered tensor the collector found unreachable owned. */
function sweep(): number {
  let freed = 0, n = 0;
  for (let i = 0; i < registered.length; i++) {
    const h = registered[i];
    if (isReleased(h)) continue;
    if (h.ref!.deref() === undefined) {
      releaseHeld(h); // the registry's later callback then finds nothing to release
      freed++;
      continue;
    }
    registered[n++] = h;
  }
  registered.length = n;
  compactedAt = Math.max(1024, n);
  return freed;
}

/**
 * Frees now the tensors the program dropped: a full collection where the runtime allows one
 * (Bun always; Deno with --v8-flags=--expose-gc), then a sweep. Returns how many were freed.
 */
export function collect(): number {
  registerPending(); // owners still pending are strongly held: let the collector judge them too
  runtime.gc();
  return sweep();
}

/** Bytes a device's memory in use may grow by between collections; 0: never collect on growth. */
let collectThreshold = envBytes("PT_COLLECT_BYTES", 64 * 2 ** 20);
/** Bytes allocated since memory in use was last read: it is read every quarter threshold. */
let sinceCheck = 0;
/** Each device's memory in use after its last collection (or its lowest since). */
const baseline = new Map<Device, number>();
const statFields = new Float64Array(8);

function envBytes(name: string, fallback: number): number {
  const v = runtime.env(name);
  const n = v === undefined || v === "" ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

/**
 * Sets the growth in bytes of a device's memory in use since the last collection that makes the library run a full
 * garbage collection and free the tensors the program dropped (0 turns it off; default 64 MiB, or PT_COLLECT_BYTES).
 * PyTorch needs none: CPython frees a tensor when its last reference goes.
 * @throws {TensorError} when `bytes` is not a finite number >= 0
 */
export function setCollectThreshold(bytes: number): void {
  if (typeof bytes !== "number" || !(bytes >= 0) || !Number.isFinite(bytes)) {
    throw new TensorError("setCollectThreshold", `expects a number of bytes >= 0 (0 turns collection off), got ${String(bytes)}`);
  }
  collectThreshold = bytes;
  sinceCheck = 0;
  baseline.clear();
}

/** The growth in bytes of a device's memory in use that makes the library collect garbage (setCollectThreshold; 0: off). */
export function getCollectThreshold(): number {
  return collectThreshold;
}

function inUse(device: Device): number {
  native.pt_memory_stats(device.handle, statFields);
  return statFields[0];
}

function checkGrowth(device: Device): void {
  sinceCheck = 0;
  const now = inUse(device), base = baseline.get(device);
  if (base === undefined || now < base) baseline.set(device, now);
  else if (now - base >= collectThreshold) {
    collect();
    baseline.set(device, inUse(device));
  }
}

const PT_EOOM = -4;

/**
 * A new native buffer of `bytes` on device (one reference), for op's errors. An allocation
 * that fails for want of memory collects garbage and tries once more.
 */
export function allocBuffer(device: Device, bytes: number, op: OpName): number {
  let buf = native.pt_buffer_alloc(device.handle, bytes);
  if (buf === PT_EOOM) {
    collect();
    buf = native.pt_buffer_alloc(device.handle, bytes);
  }
  check(buf, op);
  if (collectThreshold > 0 && (sinceCheck += bytes) * 4 >= collectThreshold) checkGrowth(device);
  return buf;
}

/** The owners made while each open scope (pt.tidy) was innermost; the last is innermost. */
const scopes: Owner[][] = [];
let scope: Owner[] | null = null;
/** Owners pt.keep() exempted from every scope. */
const kept = new WeakSet<Owner>();
/** A scope's list is compacted (disposed owners dropped) when it passes this length. */
let scopeCompactAt = 4096;

export function openScope(): void {
  scopes.push(scope = []);
}

/** Closes the innermost scope: disposes its owners but those in `keep` or kept, which move to the enclosing scope. */
export function closeScope(keep: ReadonlySet<Owner> | null): void {
  const mine = scopes.pop()!;
  scope = scopes.length > 0 ? scopes[scopes.length - 1] : null;
  for (let i = 0; i < mine.length; i++) {
    const o = mine[i];
    if ((keep !== null && keep.has(o)) || kept.has(o)) {
      if (scope !== null) scope.push(o);
    } else o.dispose();
  }
}

/** Exempts `owner` from disposal by every scope, open or later. */
export function keepOwner(owner: Owner): void {
  kept.add(owner);
}

/** Registers `owner` at the end of this task, unless it owns nothing by then. */
export function track(owner: Owner): void {
  if (scope !== null) {
    if (scope.length >= scopeCompactAt) compactScope(scope);
    scope.push(owner);
  }
  if (npending === PENDING_MAX) registerPending(); // a long synchronous loop: keep the list short
  pending[npending] = owner;
  if (npending++ === 0) queueMicrotask(registerPending);
}

function compactScope(list: Owner[]): void {
  let n = 0;
  for (let i = 0; i < list.length; i++) if (!list[i].disposed) list[n++] = list[i];
  list.length = n;
  scopeCompactAt = Math.max(4096, 2 * n);
}

/** A registered deferred handle got its memory: `buf` (one reference, already taken) replaces the attachment. */
export function holdBuffer(held: Held, buf: number): void {
  held.node = null;
  held.buf = buf;
  held.epoch = held.device.epoch;
}

/** Releases what a registered `owner` holds now and stops tracking it. */
export function drop(owner: Owner, held: Held): void {
  registry.unregister(owner);
  releaseHeld(held);
}
