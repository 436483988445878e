/**
 * Where conv2d's time goes on a device (issue #27's case: [32, 64, 56, 56] * [64, 64, 3, 3], padding 1): the pad, the
 * columns (nine strided copies stacked), the batched matmul, and the whole conv, each the median of 20 synced runs.
 *     PT_DEVICE=cuda deno run -A bench/conv_parts.ts
 */
import * as pt from "../mod.ts";

const d = pt.defaultDevice();
function time(name: string, f: () => pt.Tensor): void {
  const t: number[] = [];
  for (let i = 0; i < 25; i++) {
    const a = performance.now();
    const y = f();
    y.materialize();
    d.sync();
    if (i >= 5) t.push(performance.now() - a);
    y.dispose();
  }
  t.sort((a, b) => a - b);
  console.log(`${name}: ${t[10].toFixed(3)} ms`);
}
const x = pt.randn([32, 64, 56, 56]), w = pt.randn([64, 64, 3, 3]);
const padded = pt.nn.pad(x, [1, 1, 1, 1]);
const cols = pt.randn([32, 1, 576, 3136]);
const slices: pt.Tensor[] = [];
for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) slices.push(padded.slice(2, i, i + 56).slice(3, j, j + 56));
time("pad", () => pt.nn.pad(x, [1, 1, 1, 1]));
time("one tap copy", () => slices[4].contiguous());
time("stack of 9 taps", () => pt.stack(slices, 2));
time("matmul [1,64,576] x [32,1,576,3136]", () => w.reshape([1, 64, 576]).matmul(cols));
time("conv2d", () => pt.nn.conv2d(x, w, undefined, { padding: 1 }));
time("softmax 8192x4096", () => pt.nn.softmax(cols.reshape([-1, 4096]).slice(0, 0, 8192), -1));
