/**
 * Host-side microcases: one run() makes CALLS calls of one host path, so runners can print
 * nanoseconds per call. Each has a C-floor counterpart in bench/floor/cuda_floor.c (see
 * bench/gpu_report.py for the pairing). On the default device, as every other case.
 *
 * host_ew_prepare has no clean seam to time: runElementwise (src/kernels/launch.ts) builds
 * the argument block and calls pt_launch in one private step. So it times `a.add(b)` on
 * 1-element tensors with native.pt_launch swapped for a no-op: everything but the FFI
 * launch, output allocation and release included. host_ew_launch replays one captured
 * block through the real pt_launch, and host_ew_add is the whole op. In lazy mode each
 * result is materialized at once (as cases.ts does), so all three take the launch path.
 */
import * as pt from "../mod.ts";
import { native } from "../src/runtime/native.ts";
import { type Case, materialize, type State } from "./cases.ts"; // used only inside functions: no cycle at load

export const CALLS = 1000;
const BYTES = 256; // a [64] float32 tensor, as in dispatch_overhead_small

const dev = () => pt.defaultDevice();
function ok(status: number, what: string): void {
  if (status < 0) throw new Error(`${what} failed with status ${status}`);
}
function mk(name: string, run: (s: State) => void, check: (s: State) => void, setup: () => State = () => ({})): Case {
  return {
    name,
    calls: CALLS,
    setup,
    run,
    check,
    teardown: (s) => Object.values(s).forEach((t) => t.dispose()),
  };
}

type Launch = typeof native.pt_launch;
const lib = native as unknown as { pt_launch: Launch };
/** Runs fn with pt_launch replaced by stub. */
function withLaunch<T>(stub: Launch, fn: () => T): T {
  const real = lib.pt_launch;
  lib.pt_launch = stub;
  try {
    return fn();
  } finally {
    lib.pt_launch = real;
  }
}
const ones = () => ({ a: pt.full([1], 1.5), b: pt.full([1], 2.25) });
const add = (s: State) => {
  const c = s.a.add(s.b);
  materialize(c);
  return c;
};
/** One add, materialized and disposed; try/finally, not `using`, whose scope V8 makes dear (see cases.ts tmp). */
const addOnce = (s: State) => {
  const c = s.a.add(s.b);
  try {
    materialize(c);
  } finally {
    c.dispose();
  }
};
let stubCalls = 0;
const noLaunch: Launch = () => (stubCalls++, 0);
/** The case with pt_launch a no-op between its setup and its teardown. */
function stubbed(c: Case): Case {
  let real: Launch | null = null;
  return {
    ...c,
    setup() {
      const s = c.setup();
      real = lib.pt_launch;
      lib.pt_launch = noLaunch;
      return s;
    },
    teardown(s) {
      if (real) lib.pt_launch = real;
      real = null;
      c.teardown(s);
    },
  };
}
let captured: { program: number; args: Float64Array } | null = null;

export const micro: Case[] = [
  mk("host_alloc_free", () => {
    const d = dev().handle;
    for (let i = 0; i < CALLS; i++) native.pt_buffer_release(native.pt_buffer_alloc(d, BYTES));
  }, () => {
    const b = native.pt_buffer_alloc(dev().handle, BYTES);
    ok(b, "pt_buffer_alloc");
    if (native.pt_buffer_size(b) !== BYTES) throw new Error(`pt_buffer_size: ${native.pt_buffer_size(b)}, want ${BYTES}`);
    ok(native.pt_buffer_release(b), "pt_buffer_release");
  }),
  // The trim returns the block to the driver, so every call is a driver allocation and free.
  mk("host_alloc_free_uncached", () => {
    const d = dev().handle;
    for (let i = 0; i < CALLS; i++) {
      native.pt_buffer_release(native.pt_buffer_alloc(d, BYTES));
      native.pt_memory_trim(d);
    }
  }, () => {
    const before = pt.memoryStats().driverAllocations;
    ok(native.pt_buffer_release(native.pt_buffer_alloc(dev().handle, BYTES)), "pt_buffer_release");
    ok(native.pt_memory_trim(dev().handle), "pt_memory_trim");
    if (pt.memoryStats().driverAllocations !== before + 1) throw new Error("the allocation did not reach the driver");
  }),
  mk("host_fence_record_free", () => {
    const q = dev().queue;
    for (let i = 0; i < CALLS; i++) native.pt_fence_free(native.pt_fence_record(q));
  }, () => {
    const f = native.pt_fence_record(dev().queue);
    ok(f, "pt_fence_record");
    ok(native.pt_fence_wait(f), "pt_fence_wait");
    if (native.pt_fence_query(f) !== 1) throw new Error("a fence on an idle queue is not passed");
    ok(native.pt_fence_free(f), "pt_fence_free");
  }),
  mk("host_sync_idle", () => {
    const d = dev().handle;
    for (let i = 0; i < CALLS; i++) native.pt_device_sync(d);
  }, () => ok(native.pt_device_sync(dev().handle), "pt_device_sync")),
  // The no-op stays in place from setup to teardown: swapping it per run would make the
  // JIT see two targets at the launch call site and time that instead.
  stubbed(mk("host_ew_prepare", (s) => {
    for (let i = 0; i < CALLS; i++) addOnce(s);
  }, (s) => {
    const before = stubCalls;
    using _ = add(s);
    if (stubCalls !== before + 1) throw new Error(`a.add(b) made ${stubCalls - before} launches, want 1`);
  }, ones)),
  mk("host_ew_add", (s) => {
    for (let i = 0; i < CALLS; i++) addOnce(s);
    dev().sync();
  }, (s) => {
    using c = add(s);
    if (c.item() !== 3.75) throw new Error(`a.add(b) = ${c.item()}, want 3.75`);
  }, ones),
  mk("host_ew_launch", () => {
    const q = dev().queue, { program, args } = captured!;
    for (let i = 0; i < CALLS; i++) native.pt_launch(q, program, args, args.length);
    dev().sync();
  }, (s) => {
    if (s.c.item() !== 3.75) throw new Error(`replayed launch wrote ${s.c.item()}, want 3.75`);
  }, () => {
    const s = ones();
    // The output stays alive until teardown, so the captured block names a live buffer.
    const c = withLaunch((_q, program, args, n) => (captured = { program, args: (args as Float64Array).slice(0, n) }, 0), () => add(s));
    return { ...s, c };
  }),
];
