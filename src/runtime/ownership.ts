/**
 * Ownership of native buffers held by tensors. dispose() releases at once; a
 * FinalizationRegistry releases what the program dropped (in a later macrotask, never at
 * exit); at exit, closing the open devices frees the rest (device.ts). A release after
 * the device was closed is skipped: the close already freed the buffer.
 *
 * A tensor registers once, with a Held record that says what it owns: while it stands for
 * a deferred node, its attachment to the node (released by detaching); once it has memory,
 * one reference to its buffer. Materializing changes the record in place, so a lazy result
 * pays for one registration, not two.
 *
 * Registration waits for the end of the current task (a microtask): a tensor disposed
 * before then, as loop temporaries and `using` results are, never registers. Nothing is
 * lost by waiting, since the registry's callbacks only run in a later task anyway; until
 * then the pending list keeps the tensor reachable. Registering and unregistering were a
 * fifth of a small op's host time under Deno (V8).
 */
import { native } from "./native.ts";
import type { Device } from "./device.ts";

/** What one tensor owns; `node` set: an attachment to a deferred node, else a buffer reference. */
export interface Held {
  buf: number;
  device: Device;
  epoch: number;
  /** Host memory a wrapped buffer points into: alive until the release. */
  keep: object | undefined;
  node: { detach(): void } | null;
  /** Whether the registry knows it yet (registration waits for the end of the task). */
  registered: boolean;
}

function releaseHeld(h: Held): void {
  const node = h.node;
  if (node !== null) {
    h.node = null;
    node.detach();
  } else if (h.buf !== 0) {
    if (h.device.epoch === h.epoch && h.device.isOpen) native.pt_buffer_release(h.buf);
    h.buf = 0;
  }
  h.keep = undefined;
}

const registry = new FinalizationRegistry<Held>(releaseHeld);
/** Owners created in this task and their records, registered by registerPending(). */
let pendingOwners: object[] = [];
let pendingHeld: Held[] = [];
const PENDING_MAX = 512;

function registerPending(): void {
  const owners = pendingOwners, helds = pendingHeld;
  if (owners.length === 0) return; // emptied early by a long loop; its microtask comes after
  pendingOwners = [];
  pendingHeld = [];
  for (let i = 0; i < owners.length; i++) {
    const h = helds[i];
    if (h.buf === 0 && h.node === null) continue; // released in its task: nothing to collect
    h.registered = true;
    registry.register(owners[i], h, owners[i]);
  }
}

/** Registers `owner` (at the end of this task) as holding one reference on buf (or, with node, an attachment to it). */
export function hold(owner: object, device: Device, buf: number, keep: object | undefined, node: { detach(): void } | null): Held {
  const held: Held = { buf, device, epoch: device.epoch, keep, node, registered: false };
  if (pendingOwners.length >= PENDING_MAX) registerPending(); // a long synchronous loop: keep the list short
  if (pendingOwners.push(owner) === 1) queueMicrotask(registerPending);
  pendingHeld.push(held);
  return held;
}

/** A deferred handle got its memory: `buf` (one reference, already taken) replaces the attachment. */
export function holdBuffer(held: Held, buf: number): void {
  held.node = null;
  held.buf = buf;
  held.epoch = held.device.epoch;
}

/** Releases what `owner` holds now and stops tracking it. */
export function drop(owner: object, held: Held): void {
  if (held.registered) registry.unregister(owner);
  releaseHeld(held);
}
