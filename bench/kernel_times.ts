/**
 * Device time of single operations (a diagnostic beside bench/run.ts's wall-clock cases): each
 * op runs REPS times between two queue fences (Queue.time, as CUDA events bracket work), so
 * the host's launch cost is hidden behind the device's queue, and the median over SAMPLES
 * such runs divided by REPS is printed in ms. The ops are those of the bandwidth, sort and
 * matmul cases of bench/cases.ts with the same shapes.
 *
 *     PT_DEVICE=cuda deno run -A bench/kernel_times.ts [op ...]      (also runs under bun)
 */
import * as pt from "../mod.ts";

const REPS = 10, SAMPLES = 7;
type Op = { setup: () => pt.Tensor[]; run: (xs: pt.Tensor[]) => pt.Tensor | pt.Tensor[] };
const M16 = 16 * 1024 * 1024;
const half = (shape: number[]) => {
  using x = pt.rand(shape);
  return x.to("float16");
};
const OPS: Record<string, Op> = {
  copy_16m: { setup: () => [pt.rand([M16])], run: ([x]) => x.clone() },
  add_16m: { setup: () => [pt.rand([M16]), pt.rand([M16])], run: ([a, b]) => a.add(b) },
  sum_16m: { setup: () => [pt.rand([M16])], run: ([x]) => x.sum() },
  broadcast_add: { setup: () => [pt.rand([64, 128, 64]), pt.rand([64, 1, 64])], run: ([a, b]) => a.add(b) },
  broadcast_add_big: { setup: () => [pt.rand([64, 1024, 256]), pt.rand([64, 1, 256])], run: ([a, b]) => a.add(b) },
  chw_to_hwc_1080p: { setup: () => [pt.rand([3, 1080, 1920])], run: ([x]) => x.permute(1, 2, 0).contiguous() },
  hwc_to_chw_1080p: { setup: () => [pt.rand([1080, 1920, 3])], run: ([x]) => x.permute(2, 0, 1).contiguous() },
  transpose_4096: { setup: () => [pt.rand([4096, 4096])], run: ([x]) => x.transpose(0, 1).contiguous() },
  sort_middle_64x1024x64: { setup: () => [pt.rand([64, 1024, 64])], run: ([x]) => Object.values(x.sort(1)) },
  sort_last_4096x1024: { setup: () => [pt.rand([4096, 1024])], run: ([x]) => Object.values(x.sort(-1)) },
  sum_rows_8192x4096: { setup: () => [pt.rand([8192, 4096])], run: ([x]) => x.sum(-1) },
  softmax_8192x4096: { setup: () => [pt.rand([8192, 4096])], run: ([x]) => pt.nn.softmax(x, -1) },
  matmul_4096: { setup: () => [pt.rand([4096, 4096]), pt.rand([4096, 4096])], run: ([a, b]) => a.matmul(b) },
  matmul_4096_f16: {
    setup: () => [half([4096, 4096]), half([4096, 4096])],
    run: ([a, b]) => a.matmul(b),
  },
};

const args = globalThis as unknown as { Deno?: { args: string[] }; process?: { argv: string[] } };
const only = args.Deno?.args ?? args.process?.argv.slice(2) ?? [];
const q = pt.defaultQueue();
const out: Record<string, number> = {}, errors: Record<string, string> = {};
for (const [name, op] of Object.entries(OPS)) {
  if (only.length && !only.includes(name)) continue;
  const xs = op.setup();
  try {
    const once = () => {
      for (let r = 0; r < REPS; r++) {
        const y = op.run(xs);
        for (const t of Array.isArray(y) ? y : [y]) {
          t.materialize();
          t.dispose();
        }
      }
    };
    await q.time(once); // compiles and warms the caches
    const ms: number[] = [];
    for (let s = 0; s < SAMPLES; s++) ms.push((await q.time(once)) / REPS);
    ms.sort((a, b) => a - b);
    out[name] = ms[SAMPLES >> 1];
    console.error(`${name}: ${out[name].toFixed(4)} ms`);
  } catch (e) {
    errors[name] = (e as Error).message;
    console.error(`${name}: ERROR ${errors[name]}`);
  } finally {
    for (const x of xs) x.dispose();
  }
}
console.log(JSON.stringify({ device: pt.defaultDevice().id, reps: REPS, samples: SAMPLES, device_ms: out, errors }, null, 1));
