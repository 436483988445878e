/**
 * The reduce, scan and philox templates' CUDA text (src/kernels/templates/ and
 * cuda/reduce.ts) run on the CPU in tools/cuda_emu (test/cuda_emu.ts), each result checked
 * against a plain JS loop: strided, unmergeable and contiguous rows (aligned or not), short
 * rows a thread each past the grid and long rows a block each, the
 * accumulator's ops and an empty row's error, cumsum and wrapping cumprod along a strided
 * axis, philox's words as the reference Philox4x32-10 gives them. reduce runs three ways:
 * CUDA's program, GLSL's plan (its kernel layout) in CUDA's text, and Metal's program itself
 * over the stand-in <metal_stdlib>. GLSL's own text runs in every Vulkan pass (lavapipe in
 * CI); this checks the CUDA, HIP and Metal text without a GPU.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { assert, rng, testUnless } from "./harness.ts";
import { block, emulate, F32, hasGxx, I64, KERR_COUNT, type Launch, mslOnEmulator, type Result, view } from "./cuda_emu.ts";
import { PREAMBLE } from "../src/kernels/cuda/preamble.ts";
import { CUDA_REDUCE, reduceProgram } from "../src/kernels/cuda/reduce.ts";
import { GLSL_REDUCE } from "../src/kernels/glsl/reduce.ts";
import { mslTemplateSource } from "../src/kernels/msl.ts";

/** reduce's programs run: CUDA's (by its name), GLSL's kernel layout in CUDA's text, Metal's. */
const { fast, sharedInner, blockOffsets } = GLSL_REDUCE;
const REDUCE_PROGRAMS: Record<string, string | undefined> = {
  reduce: undefined,
  reduce_glsl: PREAMBLE + reduceProgram({ ...CUDA_REDUCE, fast, sharedInner, blockOffsets }),
  reduce_msl: mslOnEmulator(mslTemplateSource("reduce")),
};

const R_SUM = 0, R_MAX = 2, R_ARGMAX = 4, R_MEAN = 8, R_VAR = 9, R_COUNT = 11;

/** reduce's block: op, ddof, the outer shape, the inner shape, IN (outer strides, offset), inner strides, OUT (outer strides). */
function reduceSlots(
  op: number,
  ddof: number,
  oshape: number[],
  ishape: number[],
  inOuter: number[],
  inInner: number[],
  outDt: number,
  inOff = 0,
) {
  const ostr = oshape.map((_, d) => oshape.slice(d + 1).reduce((a, b) => a * b, 1));
  return block("reduce", { op, ddof, oshape, ishape, in: view(0, F32, inOff, inOuter), in_inner: inInner, out: view(1, outDt, 0, ostr) });
}

/** Philox4x32-10 of counter (c0, c1, 0, 0) and key (k0, k1): the four words, as blocks.h defines them. */
function philox(c0: number, c1: number, k0: number, k1: number): number[] {
  const M0 = 0xD2511F53, M1 = 0xCD9E8D57, W0 = 0x9E3779B9, W1 = 0xBB67AE85;
  const mulhi = (a: number, b: number) => Number((BigInt(a) * BigInt(b)) >> 32n);
  let [w0, w1, w2, w3] = [c0, c1, 0, 0];
  for (let r = 0; r < 10; r++) {
    if (r > 0) [k0, k1] = [(k0 + W0) >>> 0, (k1 + W1) >>> 0];
    const hi0 = mulhi(M0, w0), lo0 = Math.imul(M0, w0) >>> 0, hi1 = mulhi(M1, w2), lo1 = Math.imul(M1, w2) >>> 0;
    [w0, w1, w2, w3] = [(hi1 ^ w1 ^ k0) >>> 0, lo1, (hi0 ^ w3 ^ k1) >>> 0, lo0];
  }
  return [w0, w1, w2, w3];
}

testUnless(
  hasGxx() ? null : "g++ not found, so no CPU run of the CUDA reduce, scan and philox templates",
  "the reduce, scan and philox templates' CUDA text computes what plain JS loops compute",
  () => {
    const r = rng(14);
    const launches: Launch[] = [], checks: ((res: Result) => void)[] = [];
    const add = (l: Launch, check: (res: Result) => void) => (launches.push(l), checks.push(check));

    // reduce over dim 1 of a [3, 4, 7] input: rows strided by 7, integers, so every sum and deviation is exact
    const x = Array.from({ length: 84 }, () => Math.floor(r() * 17) - 8);
    const row = (o: number) => Array.from({ length: 4 }, (_, k) => x[Math.floor(o / 7) * 28 + k * 7 + (o % 7)]);
    const rows = Array.from({ length: 21 }, (_, o) => row(o));
    const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
    const expect: Record<number, (v: number[]) => number> = {
      [R_SUM]: sum,
      [R_MAX]: (v) => Math.max(...v),
      [R_ARGMAX]: (v) => v.indexOf(Math.max(...v)), // ties: the first position
      [R_MEAN]: (v) => Math.fround(sum(v) / 4),
      [R_VAR]: (v) => Math.fround(v.reduce((a, e) => a + (e - sum(v) / 4) ** 2, 0) / 3),
      [R_COUNT]: (v) => v.filter((e) => e !== 0).length,
    };
    // reduce over dims 0 and 2 of the same input: inner strides [28, 1] do not merge, so the row is not flat
    const wide = (o: number) => Array.from({ length: 21 }, (_, q) => x[Math.floor(q / 7) * 28 + o * 7 + (q % 7)]);
    // a contiguous row of 1000 (the vectorised pass), from element 0 and from element 3 (a head before the first vector)
    const flat = Array.from({ length: 1003 }, () => Math.floor(r() * 4) - 1);
    for (const [program, source] of Object.entries(REDUCE_PROGRAMS)) {
      const run = (name: string, l: Omit<Launch, "name" | "template" | "source">, check: (res: Result) => void) =>
        add({ name: `${program} ${name}`, template: program, source, ...l }, check);
      for (const op of [R_SUM, R_MAX, R_ARGMAX, R_MEAN, R_VAR, R_COUNT]) {
        const outDt = op === R_ARGMAX || op === R_COUNT ? I64 : F32;
        run(`${op}`, {
          slots: reduceSlots(op, 1, [3, 7], [4], [28, 1], [7], outDt),
          buffers: [{ dt: F32, values: x }, { dt: outDt, values: Array(21).fill(0) }],
          grid: 5, // fewer blocks than rows: each takes every fifth row
        }, (res) => {
          assert.deepEqual(res.err, [0, 0, 0, 0], `${program} ${op}: no error`);
          assert.deepEqual(res.out, rows.map(expect[op]), `${program} ${op}: values`);
        });
      }
      for (const op of [R_SUM, R_ARGMAX]) {
        run(`${op} over dims 0 and 2`, {
          slots: reduceSlots(op, 0, [4], [3, 7], [7], [28, 1], op === R_SUM ? F32 : I64),
          buffers: [{ dt: F32, values: x }, { dt: op === R_SUM ? F32 : I64, values: Array(4).fill(0) }],
          grid: 2,
        }, (res) => assert.deepEqual(res.out, [0, 1, 2, 3].map((o) => expect[op](wide(o))), `${program} ${op} over dims 0 and 2`));
      }
      for (const [op, off] of [[R_SUM, 0], [R_SUM, 3], [R_COUNT, 3]]) {
        const v = flat.slice(off, off + 1000), outDt = op === R_SUM ? F32 : I64;
        run(`contiguous ${op} from ${off}`, {
          slots: reduceSlots(op, 0, [], [1000], [], [1], outDt, off),
          buffers: [{ dt: F32, values: flat }, { dt: outDt, values: [0] }],
          grid: 1,
        }, (res) => assert.deepEqual(res.out, [expect[op](v)], `${program}: a contiguous row's ${op} from element ${off}`));
      }
      // rows of at most PT_SHORT_ROW (32) take a thread each: 600 rows of 3 over 2 blocks of 256 stride past the grid;
      // rows of 40 take a block each, 5 rows over 2 blocks
      const many = Array.from({ length: 1800 }, () => Math.floor(r() * 9) - 4), long = flat.slice(0, 200);
      for (const [rows, n, grid, values] of [[600, 3, 2, many], [5, 40, 2, long]] as const) {
        run(`sum of ${rows} rows of ${n}`, {
          slots: reduceSlots(R_SUM, 0, [rows], [n], [n], [1], F32),
          buffers: [{ dt: F32, values: [...values] }, { dt: F32, values: Array(rows).fill(0) }],
          grid,
        }, (res) => {
          const want = Array.from({ length: rows }, (_, o) => sum(values.slice(o * n, o * n + n)));
          assert.deepEqual(res.out, want, `${program}: ${rows} rows of ${n} over ${grid} blocks`);
        });
      }
      run("empty argmax", {
        slots: reduceSlots(R_ARGMAX, 0, [2], [0], [0], [1], I64),
        buffers: [{ dt: F32, values: [] }, { dt: I64, values: [0, 0] }],
        grid: 1,
      }, (res) => assert.equal(res.err[0], KERR_COUNT, `${program}: argmax of an empty row reports`));
    }

    // scan along axis 0 of a [300, 3] input (axis stride 3): cumsum of f32 integers, cumprod of i64 over 40 with wrap-free values
    for (const [op, n, dt] of [[0, 300, F32], [1, 40, I64]]) {
      const v = Array.from({ length: n * 3 }, () => op === 0 ? Math.floor(r() * 9) - 4 : [-2, -1, 1, 2][Math.floor(r() * 4)]);
      const want = [...v];
      for (let c = 0; c < 3; c++) {
        for (let k = 1; k < n; k++) {
          want[k * 3 + c] = op === 0 ? want[(k - 1) * 3 + c] + v[k * 3 + c] : want[(k - 1) * 3 + c] * v[k * 3 + c];
        }
      }
      add({
        name: `scan ${op}`,
        template: "scan",
        slots: block("scan", { op, oshape: [3], n, in: view(0, dt, 0, [1]), in_stride: 3, out: view(1, dt, 0, [1]), out_stride: 3 }),
        buffers: [{ dt, values: v }, { dt, values: Array(n * 3).fill(0) }],
        grid: 2,
      }, (res) => assert.deepEqual(res.out, want, `scan ${op}: values`));
    }

    // philox: uniform [a, b) in f32 and randint [lo, hi) in i64, from counter offset + i, 1000 elements over 2 blocks
    const seed = 0x1234abcd5, offset = 4294967290; // the counter crosses 2^32 within the launch
    const [klo, khi] = [seed % 2 ** 32, Math.floor(seed / 2 ** 32)];
    const words = Array.from({ length: 1000 }, (_, i) => philox((offset + i) % 2 ** 32, Math.floor((offset + i) / 2 ** 32), klo, khi));
    const [a, b] = [-1.5, 2.25];
    add({
      name: "philox uniform",
      template: "philox",
      slots: block("philox", { dist: 0, seed_lo: klo, seed_hi: khi, offset, a, b, out: view(0, F32, 0, [1]), n: 1000 }),
      buffers: [{ dt: F32, values: Array(1000).fill(0) }],
      grid: 2,
    }, (res) => assert.deepEqual(res.out, words.map(([w0]) => Math.fround(a + (w0 >>> 8) * 2 ** -24 * (b - a))), "uniform values"));
    add(
      {
        name: "philox randint",
        template: "philox",
        slots: block("philox", { dist: 2, seed_lo: klo, seed_hi: khi, offset, a: -7, b: 1000, out: view(0, I64, 0, [1]), n: 1000 }),
        buffers: [{ dt: I64, values: Array(1000).fill(0) }],
        grid: 2,
      },
      (res) =>
        assert.deepEqual(res.out, words.map(([w0, w1]) => -7 + Number(((BigInt(w1) << 32n) | BigInt(w0)) % 1007n)), "randint values"),
    );

    const results = emulate(launches);
    checks.forEach((check, k) => check(results[k]));
  },
);
