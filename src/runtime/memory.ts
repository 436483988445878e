/** Memory statistics of a device's caching allocator, and trimming its cache. */
import { check, native } from "./native.ts";
import { type Device, device as resolveDevice } from "./device.ts";

export interface MemoryStats {
  /** Bytes of the allocator blocks live buffers hold (sizes rounded up to its buckets; pt.liveBytes() gives exact sizes). */
  inUse: number;
  /** Bytes held in the cache for reuse. */
  cached: number;
  /** Highest inUse seen. */
  peak: number;
  allocations: number;
  frees: number;
  cacheHits: number;
  driverAllocations: number;
}

const fields = new Float64Array(7);

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
  };
}

/** Returns the cached blocks of a device to its driver. */
export function emptyCache(d?: string | Device): void {
  const dev = resolveDevice(d);
  check(native.pt_memory_trim(dev.handle), `emptyCache ${dev.id}`);
}
