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
 */
import { native } from "./native.ts";
import type { Device } from "./device.ts";

/** What one registered tensor owns; `node` set: an attachment to a deferred node, else a buffer reference. */
export interface Held {
  buf: number;
  device: Device;
  epoch: number;
  /** Host memory a wrapped buffer points into: alive until the release. */
  keep: object | undefined;
  node: { detach(): void } | null;
}

/** The method registerPending() calls on an owner: its Held record, made now, or null when it owns nothing any more. */
export const heldNow: unique symbol = Symbol("polytensor.heldNow");
export interface Owner {
  [heldNow](): Held | null;
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
    if (h !== null) registry.register(owner, h, owner); // null: released in its task, nothing to collect
  }
}

/** Registers `owner` at the end of this task, unless it owns nothing by then. */
export function track(owner: Owner): void {
  if (npending === PENDING_MAX) registerPending(); // a long synchronous loop: keep the list short
  pending[npending] = owner;
  if (npending++ === 0) queueMicrotask(registerPending);
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
