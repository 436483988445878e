/**
 * The demo: lists the devices, then clusters 200,000 generated 2-D points with k-means on
 * the best device, printing the recovered centres and the time per iteration.
 *   deno run --allow-all examples/kmeans.ts      or      bun examples/kmeans.ts
 */
import * as pt from "../mod.ts";

console.log("polytensor devices:");
for (const b of pt.backends()) {
  if (b.available) {
    for (const d of b.devices) console.log(`  ${d.id.padEnd(9)} ${d.name} (${(d.memoryTotal / 2 ** 30).toFixed(1)} GiB)`);
  } else console.log(`  ${b.name.padEnd(9)} unavailable: ${b.reason}`);
}
const dev = pt.defaultDevice();
console.log(`running on ${dev.id}\n`);

const N = 200_000, K = 6, ITERS = 15;
pt.manualSeed(42);

// K true centres on a circle of radius 5; each point is a centre plus unit Gaussian noise.
const truth = Array.from({ length: K }, (_, k) => [5 * Math.cos((2 * Math.PI * k) / K), 5 * Math.sin((2 * Math.PI * k) / K)]);
using centres0 = pt.tensor(truth);
using which = pt.randint(0, K, [N], { dtype: "int32" });
using noise = pt.randn([N, 2]);
using picked = centres0.indexSelect(0, which);
using points = picked.add(noise);

// Start from K of the points themselves (k-means' classic initialisation).
using starts = pt.tensor(Array.from({ length: K }, (_, k) => Math.floor((k * N) / K)), { dtype: "int32" });
let centres = points.indexSelect(0, starts);
using ones = pt.ones([N]);
using sumsZero = pt.zeros([K, 2]);
using countsZero = pt.zeros([K]);

const t0 = performance.now();
let assign: pt.Tensor | undefined;
for (let it = 0; it < ITERS; it++) {
  using p3 = points.unsqueeze(1); // [N, 1, 2]
  using c3 = centres.unsqueeze(0); // [1, K, 2]
  using diff = p3.sub(c3);
  using sq = diff.square();
  using dist = sq.sum(2); // [N, K]
  assign?.dispose();
  assign = dist.argmin(1); // [N] int64
  using idx2 = assign.unsqueeze(1).expand(N, 2);
  using sums = sumsZero.scatterAdd(0, idx2, points);
  using counts = countsZero.scatterAdd(0, assign, ones);
  using denom = counts.clamp(1).unsqueeze(1);
  const next = sums.div(denom);
  centres.dispose();
  centres = next;
}
const values = centres.toArray();
const ms = performance.now() - t0;

const found = Array.from({ length: K }, (_, k) => [values[2 * k], values[2 * k + 1]] as [number, number]);
found.sort((a, b) => Math.atan2(a[1], a[0]) - Math.atan2(b[1], b[0]));
console.log(`k-means: ${N} points, ${K} clusters, ${ITERS} iterations in ${ms.toFixed(1)} ms (${(ms / ITERS).toFixed(2)} ms/iteration)`);
let worst = 0;
for (const [x, y] of found) {
  const nearest = Math.min(...truth.map(([tx, ty]) => Math.hypot(tx - x, ty - y)));
  worst = Math.max(worst, nearest);
  console.log(`  centre (${x.toFixed(3).padStart(7)}, ${y.toFixed(3).padStart(7)})   distance to the true centre ${nearest.toFixed(3)}`);
}
console.log(worst < 0.5 ? "all centres recovered" : `some centres were not recovered (worst distance ${worst.toFixed(2)})`);
centres.dispose();
assign?.dispose();
const live = pt.memoryStats(dev);
console.log(
  `memory on ${dev.id}: ${(live.inUse / 2 ** 20).toFixed(1)} MiB in use, peak ${
    (live.peak / 2 ** 20).toFixed(1)
  } MiB, ${live.allocations} allocations (${live.cacheHits} from the cache)`,
);
