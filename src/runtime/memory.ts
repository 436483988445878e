/** Memory statistics of a device's caching allocator, and trimming its cache. */
import { check, native } from "./native.ts";
import { type Device, device as resolveDevice } from "./device.ts";

/** A device's caching allocator, as pt.memoryStats() reads it (bytes and counts since the device was opened). */
export interface MemoryStats {
  /** Bytes of the allocator blocks live buffers hold (sizes rounded up to its buckets; pt.liveBytes() gives exact sizes). */
  inUse: number;
  /** Bytes held in the cache for reuse. */
  cached: number;
  /** Highest inUse seen. */
  peak: number;
  /** Buffers allocated. */
  allocations: number;
  /** Buffers freed. */
  frees: number;
  /** Allocations served from the cache. */
  cacheHits: number;
  /** Allocations that went to the driver: allocations = cacheHits + driverAllocations. */
  driverAllocations: number;
  /** Device-side waits inserted because a buffer moved from one queue to another (none while one queue does all the work). */
  queueWaits: number;
}

const fields = new Float64Array(8);

/**
 * The memory statistics of a device (the default device if none is named), like `torch.cuda.memory_stats`:
 * inUse as `memory_allocated`, inUse plus cached as `memory_reserved`, peak as `max_memory_allocated`. Opens the device.
 *
 * @example
 * const { inUse, cached, peak } = pt.memoryStats("cuda");
 * console.log(`${inUse} bytes in use, ${cached} cached, peak ${peak}`);
 * @throws {TensorError} when `d` names no usable device, or it cannot be opened or was lost
 */
export function memoryStats(d?: string | Device): MemoryStats {
  const dev = resolveDevice(d);
  check(native.pt_memory_stats(dev.handle, fields), `memoryStats ${dev.id}`);
  return {
    inUse: fields[0],
    cached: fields[1],
    peak: fields[2],
    allocations: fields[3],
    frees: fields[4],
    cacheHits: fields[5],
    driverAllocations: fields[6],
    queueWaits: fields[7],
  };
}

/**
 * Returns the cached blocks of a device (the default device if none is named) to its driver, like
 * `torch.cuda.empty_cache`; memory live tensors hold stays. Opens the device.
 * @throws {TensorError} when `d` names no usable device, or it cannot be opened or was lost
 */
export function emptyCache(d?: string | Device): void {
  const dev = resolveDevice(d);
  check(native.pt_memory_trim(dev.handle), `emptyCache ${dev.id}`);
}
