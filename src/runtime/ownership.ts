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

/** Registers `owner` as holding one reference on buf (or, with node, an attachment to it). */
export function hold(owner: object, device: Device, buf: number, keep: object | undefined, node: { detach(): void } | null): Held {
  const held: Held = { buf, device, epoch: device.epoch, keep, node };
  registry.register(owner, held, owner);
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
  registry.unregister(owner);
  releaseHeld(held);
}
