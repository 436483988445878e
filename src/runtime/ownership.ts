/**
 * Ownership of native buffers held by tensors. dispose() releases at once; a
 * FinalizationRegistry releases what the program dropped (in a later macrotask, never at
 * exit); at exit, closing the open devices frees the rest (device.ts). A release after
 * the device was closed is skipped: the close already freed the buffer.
 */
import { native } from "./native.ts";
import type { Device } from "./device.ts";

interface Held {
  buf: number;
  device: Device;
  epoch: number;
  /** Host memory a wrapped buffer points into: alive until the release. */
  keep?: object;
}

function releaseHeld(h: Held): void {
  if (h.device.epoch === h.epoch && h.device.isOpen) native.pt_buffer_release(h.buf);
}

const registry = new FinalizationRegistry<Held>(releaseHeld);

/** Registers `owner` as holding one reference on buf; returns the release function. */
export function track(owner: object, buf: number, device: Device, keep?: object): () => void {
  const held: Held = { buf, device, epoch: device.epoch, keep };
  registry.register(owner, held, owner);
  return () => {
    registry.unregister(owner);
    releaseHeld(held);
  };
}

const deferredRegistry = new FinalizationRegistry<{ detach(): void }>((node) => node.detach());

/**
 * Registers `owner` as a deferred handle of node; returns what stops the tracking and
 * detaches it. For a handle that materializes, node.take() has detached it already, so the
 * caller only unregisters (see Tensor).
 */
export function trackDeferred(owner: object, node: { detach(): void }): (detach?: boolean) => void {
  deferredRegistry.register(owner, node, owner);
  return (detach = false) => {
    deferredRegistry.unregister(owner);
    if (detach) node.detach();
  };
}
