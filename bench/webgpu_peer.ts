/**
 * Deno's WebGPU as the Vulkan-class peer of dispatch_overhead_small (docs/architecture.md, Benchmarks):
 * 256 dispatches of a 64-element add, each in its own command buffer and submit (the
 * pattern of Deno's WebGPU examples), then one wait for the queue. Wall-clock median.
 * Prints {dispatch_overhead_small: ms, _meta: {...}} on stdout, or {_meta: {skipped}} and
 * exit 0 where there is no navigator.gpu or no adapter (Bun; Deno without a GPU driver).
 *
 *     deno run --allow-all bench/webgpu_peer.ts        (PT_BENCH_QUICK=1: two samples)
 */
// WebGPU's few types used here, declared locally: tsc with Bun's types has none.
type Buf = { mapAsync(mode: number): Promise<void>; getMappedRange(): ArrayBuffer; unmap(): void; destroy(): void };
type Pass = { setPipeline(p: unknown): void; setBindGroup(i: number, g: unknown): void; dispatchWorkgroups(x: number): void; end(): void };
type Encoder = {
  beginComputePass(): Pass;
  copyBufferToBuffer(s: Buf, so: number, d: Buf, dof: number, n: number): void;
  finish(): unknown;
};
type Dev = {
  createBuffer(d: { size: number; usage: number }): Buf;
  createShaderModule(d: { code: string }): unknown;
  createComputePipeline(
    d: { layout: "auto"; compute: { module: unknown; entryPoint: string } },
  ): { getBindGroupLayout(i: number): unknown };
  createBindGroup(d: { layout: unknown; entries: { binding: number; resource: { buffer: Buf } }[] }): unknown;
  createCommandEncoder(): Encoder;
  queue: { submit(c: unknown[]): void; writeBuffer(b: Buf, o: number, d: Float32Array): void; onSubmittedWorkDone(): Promise<void> };
  destroy(): void;
};
type AdapterInfo = { vendor?: string; description?: string; isFallbackAdapter?: boolean };
type Adapter = { info?: AdapterInfo; isFallbackAdapter?: boolean; requestDevice(): Promise<Dev> };
const g = globalThis as unknown as {
  navigator?: { gpu?: { requestAdapter(o?: { powerPreference?: string }): Promise<Adapter | null> } };
  Deno?: { version: { deno: string }; env: { get(n: string): string | undefined } };
};
const STORAGE = 0x80, COPY_SRC = 0x04, COPY_DST = 0x08, MAP_READ = 0x01; // GPUBufferUsage
const N = 64, LAUNCHES = 256;
let quick = false;
try {
  quick = g.Deno?.env.get("PT_BENCH_QUICK") === "1";
} catch { /* no --allow-env */ }
const [MIN, MAX, BUDGET_MS] = quick ? [2, 2, 0] : [10, 100, 3000];

const SHADER = `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&c)) { c[id.x] = a[id.x] + b[id.x]; }
}`;

function emit(o: unknown): void {
  console.log(JSON.stringify(o, null, 1));
}

async function main(): Promise<void> {
  const gpu = g.navigator?.gpu;
  if (!g.Deno || !gpu) {
    return emit({ _meta: { skipped: g.Deno ? "navigator.gpu is missing in this Deno" : "not Deno: navigator.gpu is Deno's" } });
  }
  const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
  if (!adapter) return emit({ _meta: { skipped: "navigator.gpu.requestAdapter() found no adapter" } });
  const info = adapter.info ?? {};
  const fallback = info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false;
  const dev = await adapter.requestDevice();
  const bytes = N * 4;
  const [a, b, c] = [0, 1, 2].map(() => dev.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC | COPY_DST }));
  const back = dev.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST });
  const x = Float32Array.from({ length: N }, (_, i) => i * 0.5), y = Float32Array.from({ length: N }, (_, i) => 1 - i);
  dev.queue.writeBuffer(a, 0, x);
  dev.queue.writeBuffer(b, 0, y);
  const pipeline = dev.createComputePipeline({
    layout: "auto",
    compute: { module: dev.createShaderModule({ code: SHADER }), entryPoint: "main" },
  });
  const group = dev.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [a, b, c].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  async function run(): Promise<void> {
    for (let i = 0; i < LAUNCHES; i++) {
      const enc = dev.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(1);
      pass.end();
      dev.queue.submit([enc.finish()]);
    }
    await dev.queue.onSubmittedWorkDone();
  }
  for (let i = 0; i < 3; i++) await run(); // warm-up: pipeline caches, allocator
  const enc = dev.createCommandEncoder(); // check once, outside timing
  enc.copyBufferToBuffer(c, 0, back, 0, bytes);
  dev.queue.submit([enc.finish()]);
  await back.mapAsync(1); // GPUMapMode.READ
  const got = new Float32Array(back.getMappedRange().slice(0));
  back.unmap();
  const bad = got.findIndex((v, i) => v !== Math.fround(x[i] + y[i]));
  const t: number[] = [], t0 = performance.now();
  while (t.length < MIN || (t.length < MAX && performance.now() - t0 < BUDGET_MS)) {
    const s = performance.now();
    await run();
    t.push(performance.now() - s);
  }
  t.sort((p, q) => p - q);
  const at = (p: number) => t[Math.min(t.length - 1, Math.round((t.length - 1) * p))];
  emit({
    dispatch_overhead_small: at(0.5),
    _meta: {
      adapter: info.description || info.vendor || "unknown",
      fallback_adapter: fallback,
      deno: g.Deno.version.deno,
      samples: t.length,
      p10_ms: at(0.1),
      p90_ms: at(0.9),
      how: `${LAUNCHES} x (encoder, pass, dispatch of ${N} elements, submit), then onSubmittedWorkDone; wall clock`,
      ...(bad >= 0 ? { wrong: { dispatch_overhead_small: `c[${bad}] = ${got[bad]}, want ${Math.fround(x[bad] + y[bad])}` } } : {}),
    },
  });
  for (const buf of [a, b, c, back]) buf.destroy();
  dev.destroy();
}

export {}; // a module, for top-level await

try {
  await main();
} catch (e) {
  emit({ _error: `${(e as Error).name}: ${(e as Error).message}` });
  throw e;
}
