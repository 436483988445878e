/**
 * What the Fashion-MNIST examples (fashion_mnist.ts, cnn_fashion_mnist.ts) share: their command-line flags, the four
 * idx files of Debian's dataset-fashion-mnist package (/usr/share/datasets/fashion-mnist, installed by
 * `sudo apt-get install dataset-fashion-mnist`, or by `bash scripts/fashion_mnist.sh`, which without root unpacks the
 * package into ~/.cache/polytensor/fashion-mnist, looked in too; `--data DIR` or PT_FASHION_MNIST names another
 * folder; the files may be gzipped, as the package has them, or not), mini-batches gathered on the host and uploaded,
 * a seeded shuffle, and the training loop.
 */
import * as pt from "../mod.ts";
import process from "node:process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

export const CLASSES = 10, PIXELS = 28 * 28;
export const NAMES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"];

/** The flags of argv as `--name value` pairs; a bad value prints "<example>: ..." and exits with status 1. */
export function cli(example: string, argv: readonly string[]) {
  const fail = (message: string): never => {
    console.error(`${example}: ${message}`);
    process.exit(1);
  };
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    if (i + 1 >= argv.length) fail(`${name} needs a value`);
    return argv[i + 1];
  };
  const number = (name: string, fallback: number, integer: boolean): number => {
    const s = flag(name);
    if (s === undefined) return fallback;
    const v = Number(s);
    if (!(integer ? Number.isInteger(v) : Number.isFinite(v)) || v < 0) {
      fail(`${name} needs ${integer ? "an integer" : "a number"} >= 0, got ${s}`);
    }
    return v;
  };
  return {
    fail,
    flag,
    int: (name: string, fallback: number) => number(name, fallback, true),
    real: (name: string, fallback: number) => number(name, fallback, false),
  };
}

// ----- the data: idx files (big-endian header: 0, 0, dtype 0x08 = uint8, the number of dims, then each dim as int32)
const PACKAGE_DIR = "/usr/share/datasets/fashion-mnist";
const CACHE_DIR = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "polytensor", "fashion-mnist");
const FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"];
const ADVICE = "install Debian's dataset-fashion-mnist package (sudo apt-get install dataset-fashion-mnist), " +
  "or run bash scripts/fashion_mnist.sh (it unpacks the package without root), or pass the folder of the four idx " +
  "files with --data DIR (or PT_FASHION_MNIST=DIR)";

/** The file's path in dir, gzipped or not, or null. */
function find(dir: string, name: string): string | null {
  for (const p of [join(dir, name + ".gz"), join(dir, name)]) if (existsSync(p)) return p;
  return null;
}

/** An idx file's dims and uint8 values. */
function readIdx(path: string, ndim: number, fail: (m: string) => never): { dims: number[]; values: Uint8Array } {
  let bytes: Uint8Array = readFileSync(path);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes); // gzip's magic number
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint16(0) !== 0 || bytes[2] !== 0x08 || bytes[3] !== ndim) {
    fail(`${path} is not an idx file of ${ndim}-d uint8 data (header ${[...bytes.subarray(0, 4)]})`);
  }
  const dims = Array.from({ length: ndim }, (_, i) => view.getInt32(4 + 4 * i));
  const start = 4 + 4 * ndim, count = dims.reduce((a, b) => a * b, 1);
  if (bytes.length !== start + count) fail(`${path}: ${bytes.length} bytes, expected ${start + count} for [${dims}]`);
  return { dims, values: bytes.subarray(start) };
}

export interface Split {
  images: Uint8Array; // n * 784, row-major
  labels: Uint8Array;
  n: number;
}
function readSplit(dir: string, prefix: string, expect: number, fail: (m: string) => never): Split {
  const img = readIdx(find(dir, `${prefix}-images-idx3-ubyte`)!, 3, fail);
  const lab = readIdx(find(dir, `${prefix}-labels-idx1-ubyte`)!, 1, fail);
  const [n, h, w] = img.dims;
  if (n !== expect || h * w !== PIXELS || lab.dims[0] !== n) {
    fail(`${prefix}: images [${img.dims}] and labels [${lab.dims}], expected [${expect}, 28, 28] and [${expect}]`);
  }
  return { images: img.values, labels: lab.values, n };
}

/** The training and test splits from the folder `given` names, else the package's or the cache's. */
export function loadFashionMnist(given: string | undefined, fail: (m: string) => never): { dir: string; train: Split; test: Split } {
  const dirs = given !== undefined ? [given] : [PACKAGE_DIR, CACHE_DIR];
  const dir = dirs.find((d) => FILES.every((f) => find(d, f) !== null));
  if (dir === undefined) {
    const missing = FILES.filter((f) => find(dirs[0], f) === null).join(", ");
    return fail(`Fashion-MNIST not found in ${dirs.join(" or ")} (${missing} missing there): ${ADVICE}`);
  }
  return { dir, train: readSplit(dir, "train", 60000, fail), test: readSplit(dir, "t10k", 10000, fail) };
}

// Pixels scaled to [0, 1] and standardised with the training set's mean and deviation (0.2860, 0.3530), by table.
const SCALE = Float32Array.from({ length: 256 }, (_, v) => (v / 255 - 0.2860) / 0.3530);

/** Rows `order[from..to)` of a split, gathered on the host (as a data loader does) and uploaded: x [n, 784], y [n]. */
export function batch(s: Split, order: Uint32Array | null, from: number, to: number): { x: pt.Tensor; y: pt.Tensor } {
  const n = to - from, xs = new Float32Array(n * PIXELS), ys = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const i = order === null ? from + r : order[from + r];
    const src = s.images.subarray(i * PIXELS, (i + 1) * PIXELS);
    for (let j = 0; j < PIXELS; j++) xs[r * PIXELS + j] = SCALE[src[j]];
    ys[r] = s.labels[i];
  }
  return { x: pt.tensor(xs).reshape(n, PIXELS), y: pt.tensor(ys) };
}

/** mulberry32: a small seeded PRNG for the shuffles (floats in [0, 1)). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export function shuffle(order: Uint32Array, random: () => number): void {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
}

/** The share of a split's images whose largest logit is their label, in batches of 1000 under pt.noGrad. */
export function accuracy(s: Split, logits: (x: pt.Tensor) => pt.Tensor): number {
  let correct = 0;
  for (let from = 0; from < s.n; from += 1000) {
    correct += pt.noGrad(() =>
      pt.tidy(() => {
        const { x, y } = batch(s, null, from, Math.min(s.n, from + 1000));
        return Number(logits(x).argmax(1).eq(y).sum().item());
      })
    );
  }
  return correct / s.n;
}

/** What `trainEpochs` needs: the data, the schedule's bounds, the loss of a batch, and what each step updates. */
export interface TrainRun {
  train: Split;
  epochs: number;
  steps: number;
  batch: number;
  seed: number;
  device: pt.Device;
  loss(x: pt.Tensor, y: pt.Tensor): pt.Tensor;
  opt: pt.optim.Optimizer;
  schedule: { step(): void };
  /** The epoch's line, from its mean loss, steps, seconds and the device bytes in use after it. */
  report(epoch: number, loss: number, steps: number, secs: number, inUse: number): string;
}

/**
 * Trains for `epochs` shuffled passes (the last partial batch dropped) or `steps` steps, whichever ends first, each step
 * in a pt.tidy: backward, the optimizer's step, its zeroGrad, the schedule's step. Returns the steps taken, the seconds
 * spent, and the device bytes in use after the first step and after each epoch (what must not grow).
 */
export function trainEpochs(r: TrainRun): { steps: number; secs: number; inUse: number[] } {
  const random = prng(r.seed + 1), order = Uint32Array.from({ length: r.train.n }, (_, i) => i), inUse: number[] = [];
  let steps = 0;
  const start = performance.now();
  for (let epoch = 1; epoch <= r.epochs && steps < r.steps; epoch++) {
    const e0 = performance.now();
    shuffle(order, random);
    let lossSum = 0, batches = 0;
    for (let from = 0; from + r.batch <= r.train.n && steps < r.steps; from += r.batch) {
      lossSum += pt.tidy(() => {
        const { x, y } = batch(r.train, order, from, from + r.batch);
        const loss = r.loss(x, y);
        loss.backward();
        r.opt.step();
        r.opt.zeroGrad(); // frees the gradients
        return Number(loss.item());
      });
      r.schedule.step();
      batches++;
      if (++steps === 1) inUse.push(pt.memoryStats(r.device).inUse); // the baseline: parameters and optimizer state
    }
    inUse.push(pt.memoryStats(r.device).inUse);
    console.log(r.report(epoch, lossSum / batches, batches, (performance.now() - e0) / 1000, inUse[inUse.length - 1]));
  }
  return { steps, secs: (performance.now() - start) / 1000, inUse };
}
