/**
 * Devices: the inventory (which never creates a context), selection by name, index and
 * PT_DEVICE, and the per-device state above the shim: the open handle, default queue and
 * compiled-program cache. Closing a device frees everything made on it; tensors from
 * before then fail with a TensorError that says so.
 */
import { check, native, readString, runtime, utf8 } from "./native.ts";
import { onContextLost, TensorError } from "../base/errors.ts";

/** Preference when no device is named: vendor compute APIs first, the CPU last. */
const PREFERENCE = ["cuda", "hip", "metal", "vulkan", "cpu"];

/**
 * What the inventory says about one device, without opening it: its id, name and the
 * capabilities that decide what runs on it. Like `torch.cuda.get_device_properties`.
 */
export interface DeviceInfo {
  /** "cuda:0" style id, usable with pt.device(). */
  readonly id: string;
  /** The backend: "cpu", "cuda", "vulkan", "metal" or "hip". */
  readonly backend: string;
  /** The device's index within its backend, from 0. */
  readonly index: number;
  /** The driver's name for the device, e.g. "NVIDIA H200". */
  readonly name: string;
  /** Bytes of memory the device has (the host's memory for the CPU; Metal's recommended working set). */
  readonly memoryTotal: number;
  /** Whether float16 tensors are supported. */
  readonly float16: boolean;
  /** Whether bfloat16 tensors are supported. */
  readonly bfloat16: boolean;
  /** Whether float64 tensors are supported (never on Metal). */
  readonly float64: boolean;
  /** Whether int64 tensors are supported. */
  readonly int64: boolean;
  /** Threads that run in lockstep (a CUDA warp, a Vulkan subgroup); 1 on the CPU, 0 where the API does not say. */
  readonly subgroupSize: number;
  /** The most threads one workgroup (CUDA block) may have. */
  readonly maxWorkgroup: number;
  /** Whether device buffers live in host memory (the CPU; integrated GPUs). */
  readonly unifiedMemory: boolean;
  /** Multiprocessors (CUDA SMs, HIP CUs) or CPU threads; 0 where the API does not say (Vulkan, Metal). */
  readonly computeUnits: number;
  /** A CPU implementation of a GPU API (e.g. lavapipe): usable, but never the default device. */
  readonly software: boolean;
  /** The kernel language its renderer produces. */
  readonly language: string;
}

/** Whether a context exists for the device now (listing devices must not create one). */
export function hasContext(info: DeviceInfo): boolean {
  const b = backendIndex(info.backend);
  if (b < 0 || native.pt_device_info(b, info.index, infoFields) < 0) return false;
  return infoFields[9] !== 0;
}

/** One backend of this build, as pt.backends() lists it: its devices, or the reason it has none. */
export interface BackendInfo {
  /** "cpu", "cuda", "vulkan", "metal" or "hip". */
  readonly name: string;
  /** Whether it has at least one device. */
  readonly available: boolean;
  /** Why there is no device, when there is none (e.g. the driver library was not found); else "". */
  readonly reason: string;
  /** Its devices, software ones included. */
  readonly devices: readonly DeviceInfo[];
}

const infoFields = new Float64Array(11);

function backendIndex(name: string): number {
  const n = native.pt_backend_count();
  for (let b = 0; b < n; b++) if (readString((buf, cap) => native.pt_backend_name(b, buf, cap)) === name) return b;
  return -1;
}

/**
 * Lists every backend of this build, with its devices or the reason it has none. Listing
 * opens no device and creates no context.
 *
 * @example
 * for (const b of pt.backends()) console.log(b.name, b.available ? b.devices.map((d) => d.name) : b.reason);
 */
export function backends(): BackendInfo[] {
  const out: BackendInfo[] = [];
  const n = native.pt_backend_count();
  for (let b = 0; b < n; b++) {
    const name = readString((buf, cap) => native.pt_backend_name(b, buf, cap));
    const count = native.pt_device_count(b);
    const reason = count > 0 ? "" : readString((buf, cap) => native.pt_last_error(buf, cap));
    const devices: DeviceInfo[] = [];
    for (let i = 0; i < count; i++) {
      native.pt_device_info(b, i, infoFields);
      const f = infoFields;
      devices.push({
        id: `${name}:${i}`,
        backend: name,
        index: i,
        name: readString((buf, cap) => native.pt_device_name(b, i, buf, cap)),
        memoryTotal: f[0],
        float16: f[1] !== 0,
        bfloat16: f[2] !== 0,
        float64: f[3] !== 0,
        int64: f[4] !== 0,
        subgroupSize: f[5],
        maxWorkgroup: f[6],
        unifiedMemory: f[7] !== 0,
        computeUnits: f[8],
        software: f[10] !== 0,
        language: readString((buf, cap) => native.pt_device_language(b, i, buf, cap)),
      });
    }
    out.push({ name, available: count > 0, reason, devices });
  }
  return out;
}

/** Every device of every backend (software ones included), as pt.backends() lists them. */
export function devices(): DeviceInfo[] {
  return backends().flatMap((b) => b.devices);
}

/**
 * A device that tensors live on and work runs on, like `torch.device`; it also holds the
 * device's context, opened on first use (pt.device() opens nothing) and shut by close().
 * Get one with pt.device(); the same name always gives the same object.
 */
export class Device {
  /** The backend: "cpu", "cuda", "vulkan", "metal" or "hip". */
  readonly backend: string;
  /** The device's index within its backend. */
  readonly index: number;
  /** What the inventory says about the device. */
  readonly info: DeviceInfo;
  /** @internal Bumped by close(); tensors remember the epoch they were made in. */
  epoch = 0;
  /** @internal The native queue capturing a step on this device (pt.capture), else 0. */
  capturing = 0;
  #handle = 0;
  #queue = 0;
  #programs = new Map<string, number>();
  /** Why each ended epoch ended, where it was not a close() by the program. */
  #ended = new Map<number, string>();
  #backendIndex: number;
  #batched = false;
  #flushPending = false;

  /** @internal Use pt.device(). */
  constructor(info: DeviceInfo, backendIdx: number) {
    this.info = info;
    this.backend = info.backend;
    this.index = info.index;
    this.#backendIndex = backendIdx;
  }

  /** "cuda:0" style id, as pt.device() takes it. */
  get id(): string {
    return this.info.id;
  }

  /**
   * @internal The native device handle; opens (activates) the device on first use.
   * @throws {TensorError} when the device cannot be opened (e.g. CUDA refusing a new context after a fault: restart the process)
   */
  get handle(): number {
    if (lostSeen) rebuildLost();
    if (this.#handle === 0) {
      this.#handle = check(native.pt_device_open(this.#backendIndex, this.index), `open ${this.id}`);
      this.#queue = check(native.pt_device_queue(this.#handle), `open ${this.id}`);
      openDevices.add(this);
      this.#batched = this.has("batched_submit");
    }
    return this.#handle;
  }

  /** @internal The native handle of the default queue (pt.defaultQueue(d) gives it as a Queue); opens the device. */
  get queue(): number {
    if (lostSeen) rebuildLost();
    if (this.#queue === 0) void this.handle;
    return this.#queue;
  }

  /** Whether the device's context is open now (it opens on first use, and close() shuts it). */
  get isOpen(): boolean {
    return this.#handle !== 0;
  }

  /**
   * @internal A compiled program for (kind, source), compiled once per device and cached under `key`
   * and its layout: `views` is the number of VIEWs its argument blocks carry (an ew program:
   * 1 + its inputs), 0 for the kind's own. The shim keeps that layout with the program,
   * refuses launches whose block is another, and stores it with compiled images on disk.
   */
  program(kind: string, source: Uint8Array, key: string, views = 0): number {
    return this.programFor(key, views, () => ({ kind, source }));
  }

  /**
   * @internal The program cached under `key` and `views` (see program()), rendered by `render` and compiled only when
   * this device has none yet: the one program cache of the TypeScript layer (renderers keep none), emptied by close().
   */
  programFor(key: string, views: number, render: () => { kind: string; source: Uint8Array }): number {
    const slot = views === 0 ? key : `${key}|${views}`; // templates (views 0) pay no concatenation per launch
    let p = this.#programs.get(slot);
    if (p === undefined) {
      const { kind, source } = render();
      const k = utf8(kind);
      p = check(
        native.pt_program_create_layout(this.handle, k, k.length, source, source.length, views),
        `compile ${kind} on ${this.id}`,
      );
      this.#programs.set(slot, p);
    }
    return p;
  }

  /**
   * @internal Called after work is queued. A device that records launches into batches submits them
   * at the end of the current task, so the GPU never waits on a script busy elsewhere; a
   * failed submit stays with the queue and is reported by its next sync or read.
   */
  queued(): void {
    if (!this.#batched || this.#flushPending) return;
    this.#flushPending = true;
    queueMicrotask(this.#flush);
  }

  #flush = (): void => {
    this.#flushPending = false;
    if (this.#queue !== 0) native.pt_queue_flush(this.#queue);
  };

  /**
   * Whether the device has a named capability ("f64", "blas", "graphs", "host_wrap", ...); false for a name it does not know.
   * Opens the device.
   * @throws {TensorError} when the device cannot be opened
   */
  has(capability: string): boolean {
    const c = utf8(capability);
    return native.pt_device_has(this.handle, c, c.length) === 1;
  }

  /**
   * Waits, blocking the thread, until the work queued so far on every queue of this device has finished, like
   * `torch.cuda.synchronize`. Opens the device. (`await q.done()` waits for one queue without blocking.)
   * @throws {TensorError} when queued work failed (a kernel fault) or the device was lost, or inside a pt.capture() step
   */
  sync(): void {
    const st = native.pt_device_sync(this.handle);
    if (st < 0) check(st, `sync ${this.id}`); // the name only for an error: a sync is a hot call
  }

  /** @internal Why this device's context of `epoch` ended, for errors about handles from then. */
  endedBy(epoch: number): string {
    return this.#ended.get(epoch) ?? "it was closed";
  }

  /** @internal Closes the device when a fault killed its context, so that the next use opens a new one. */
  closeIfLost(): void {
    if (this.#handle === 0 || native.pt_device_lost(this.#handle) !== 1) return;
    this.#ended.set(this.epoch, "its context was lost to a fault");
    this.close();
  }

  /**
   * Shuts the device's context down, freeing everything made on it: tensors and queues from before then fail with a
   * TensorError that says so, a pending Completion fails, and a captured step records again on its next call. The next
   * use opens a new context. Does nothing if the device is not open.
   */
  close(): void {
    if (this.#handle === 0) return;
    native.pt_device_close(this.#handle);
    this.#handle = 0;
    this.#queue = 0;
    this.#programs.clear();
    this.capturing = 0;
    this.epoch++;
    openDevices.delete(this);
  }

  /** The id, e.g. "cuda:0". */
  toString(): string {
    return this.id;
  }
}

const openDevices = new Set<Device>();

/**
 * A sticky fault (an illegal address in a kernel, a lost Vulkan device) kills a device's
 * context: every later call on it fails with PT_ELOST. The first TensorError that says so
 * sets lostSeen, and the next use of any device closes the lost ones, so that use opens a
 * fresh context (where the driver allows it: after an illegal address CUDA refuses, and the
 * open says to restart the process). Handles from the lost context are rejected, naming why.
 */
let lostSeen = false;
onContextLost(() => {
  lostSeen = true;
});
function rebuildLost(): void {
  lostSeen = false;
  for (const d of [...openDevices]) d.closeIfLost();
}
const deviceCache = new Map<string, Device>();
runtime.onExit(() => {
  for (const d of [...openDevices]) d.close();
});

/**
 * Resolves "cuda", "cuda:1", "cpu" (backend[:index], index 0 when left out) or a Device to a Device,
 * like `torch.device`; no argument gives the default device. Opens nothing.
 *
 * @example
 * const gpu = pt.device("cuda:0");
 * using x = pt.ones([2, 2], { device: gpu });
 * @throws {TensorError} when the name is not backend[:index], the backend is unknown to this build, it has no device
 * (the error says why), or the index is past its last device
 */
export function device(spec?: string | Device): Device {
  if (spec instanceof Device) return spec;
  if (spec === undefined) return defaultDevice();
  const m = /^([a-z]+)(?::(\d+))?$/.exec(spec.trim().toLowerCase());
  if (!m) throw new TensorError("device", `"${spec}" is not a device name; use backend[:index], e.g. "cpu" or "cuda:0"`);
  const [, name, idx] = m;
  const index = idx === undefined ? 0 : Number(idx);
  const key = `${name}:${index}`;
  const cached = deviceCache.get(key);
  if (cached) return cached;
  const b = backendIndex(name);
  if (b < 0) {
    const names = backends().map((x) => x.name).join(", ");
    throw new TensorError("device", `unknown backend "${name}" (this build has ${names})`);
  }
  const count = native.pt_device_count(b);
  if (count <= 0) {
    const why = readString((buf, cap) => native.pt_last_error(buf, cap));
    throw new TensorError("device", `${name} has no device: ${why || "none found"}`);
  }
  if (index >= count) throw new TensorError("device", `${name}:${index} does not exist (${name} has ${count} device(s))`);
  const info = backends()[b].devices[index];
  const d = new Device(info, b);
  deviceCache.set(key, d);
  return d;
}

let currentDefault: Device | undefined;

/**
 * The device work goes to when none is named, like `torch.get_default_device`: the one set by setDefaultDevice()
 * or withDevice(), else PT_DEVICE, else device 0 of the first backend, in the order cuda, hip, metal, vulkan, cpu,
 * that has a device other than a software one (such as lavapipe).
 * @throws {TensorError} when PT_DEVICE names no usable device (as pt.device() would)
 */
export function defaultDevice(): Device {
  if (currentDefault) return currentDefault;
  const env = runtime.env("PT_DEVICE");
  if (env) {
    currentDefault = device(env);
    return currentDefault;
  }
  // The first hardware device of the most preferred backend that has one: a software device
  // listed first (lavapipe as vulkan:0 beside a GPU) is passed over.
  const all = backends();
  const hardware = (name: string) => all.find((b) => b.name === name)?.devices.find((d) => !d.software);
  const best = PREFERENCE.map(hardware).find((d) => d !== undefined) ??
    all.map((b) => b.devices.find((d) => !d.software)).find((d) => d !== undefined);
  if (!best) throw new TensorError("device", "no backend has a device (not even the CPU)");
  currentDefault = device(best.id);
  return currentDefault;
}

/**
 * Makes `d` the default device for the rest of the program (until set again), like `torch.set_default_device`.
 * Returns it.
 * @throws {TensorError} when `d` names no usable device (as pt.device() would)
 */
export function setDefaultDevice(d: string | Device): Device {
  currentDefault = device(d);
  return currentDefault;
}

/**
 * Runs fn with `d` as the default device, restoring the previous one when fn returns or throws, like
 * `with torch.device(d):`. fn should be synchronous: code after an await inside it runs with the default restored.
 *
 * @example
 * const y = pt.withDevice("cpu", () => pt.randn([3]).mul(2)); // made on the CPU
 * @throws {TensorError} when `d` names no usable device (as pt.device() would); else what fn throws
 */
export function withDevice<T>(d: string | Device, fn: () => T): T {
  const prev = currentDefault;
  currentDefault = device(d);
  try {
    return fn();
  } finally {
    currentDefault = prev;
  }
}
