/**
 * The sort template (src/kernels/templates/sort.ts) run on the CPU in tools/cuda_emu
 * (test/cuda_emu.ts) against a plain JS stable sort: CUDA's program, GLSL's plan (its sizes and
 * long-row steps) in CUDA's dialect (GLSL's own text runs in every Vulkan pass), and Metal's
 * program itself over the stand-in <metal_stdlib> with real barriers. Every dtype, NaN
 * (payloads kept) above +inf, -0.0 tied with 0.0, subnormals, ties, descending, odd and
 * one-element rows, rows side by side in a group, strided and offset views, rows longer than
 * shared memory.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { assert, rng, testUnless } from "./harness.ts";
import {
  BF16,
  block,
  BOOL,
  emulate,
  F16,
  F32,
  F64,
  hasGxx,
  I32,
  I64,
  type Launch,
  mslOnEmulator,
  type Result,
  SIZE,
  U8,
  view,
} from "./cuda_emu.ts";
import { CUDA_DIALECT, PREAMBLE } from "../src/kernels/cuda/preamble.ts";
import { sort } from "../src/kernels/templates/sort.ts";
import { GLSL_SORT } from "../src/kernels/glsl.ts";
import { mslTemplateSource } from "../src/kernels/msl.ts";

/** The programs run: CUDA's sort (by its name), GLSL's plan in CUDA's text, Metal's sort. */
const PROGRAMS: Record<string, string | undefined> = {
  sort: undefined,
  sort_glsl: PREAMBLE + sort(CUDA_DIALECT, GLSL_SORT),
  sort_msl: mslOnEmulator(mslTemplateSource("sort")),
};

/** Bit patterns a row draws from besides small numbers: NaNs (with payloads, negative), +-0, +-inf, subnormals, extremes. */
const SPECIAL: Record<number, bigint[]> = {
  [F32]: [0x7fc00000n, 0xffc00123n, 0x7f800001n, 0x80000000n, 0n, 0x7f800000n, 0xff800000n, 1n, 0x80000001n],
  [F64]: [0x7ff8000000000000n, 0xfff8000000000042n, 0x8000000000000000n, 0n, 0x7ff0000000000000n, 0xfff0000000000000n, 1n],
  [F16]: [0x7e01n, 0xfe00n, 0x8000n, 0n, 0x7c00n, 0xfc00n, 1n, 0x8001n],
  [BF16]: [0x7fc1n, 0xffc0n, 0x8000n, 0n, 0x7f80n, 0xff80n, 1n],
  [I32]: [0x80000000n, 0x7fffffffn],
  [I64]: [0x8000000000000000n, 0x7fffffffffffffffn],
  [U8]: [0n, 255n],
  [BOOL]: [],
};

/** The bits of a small number (ties on purpose) in dtype dt. */
function small(dt: number, v: number): bigint {
  const b = new DataView(new ArrayBuffer(8));
  if (dt === F32 || dt === F16 || dt === BF16) b.setFloat32(0, v * 0.5);
  if (dt === F32) return BigInt(b.getUint32(0));
  if (dt === BF16) return BigInt(b.getUint32(0) >>> 16); // exact: halves of small integers
  if (dt === F16) return BigInt(f32ToF16(v * 0.5));
  if (dt === F64) {
    b.setFloat64(0, v * 0.25);
    return b.getBigUint64(0);
  }
  if (dt === I32) return BigInt(v) & 0xffffffffn;
  if (dt === I64) return BigInt(v) & 0xffffffffffffffffn;
  return BigInt(dt === BOOL ? v & 1 : v + 4);
}
/** f16 bits of a small half-integer (exact). */
function f32ToF16(x: number): number {
  if (x === 0) return Object.is(x, -0) ? 0x8000 : 0;
  const s = x < 0 ? 0x8000 : 0, a = Math.abs(x), e = Math.floor(Math.log2(a));
  return s | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

/** The number (NaN for every NaN) an element's bits stand for, or its integer value. */
function decode(dt: number, bits: bigint): number | bigint {
  const b = new DataView(new ArrayBuffer(8));
  b.setBigUint64(0, dt === BF16 ? bits << 48n : dt === F32 ? bits << 32n : bits);
  switch (dt) {
    case F32:
    case BF16:
      return b.getFloat32(0);
    case F64:
      return b.getFloat64(0);
    case F16: {
      const e = Number(bits >> 10n) & 31, m = Number(bits & 1023n), s = bits & 0x8000n ? -1 : 1;
      return e === 31 ? (m ? NaN : s * Infinity) : s * (e ? 1 + m / 1024 : m / 1024) * 2 ** ((e || 1) - 15);
    }
    case I32:
      return BigInt.asIntN(32, bits);
    case I64:
      return BigInt.asIntN(64, bits);
    default:
      return bits;
  }
}

/** JS's stable order of a row's elements: NaN above every number, -0.0 equal to 0.0, descending inverting the keys only. */
function order(keys: (number | bigint)[], desc: boolean): number[] {
  const cmp = (a: number | bigint, b: number | bigint) => {
    const na = typeof a === "number" && Number.isNaN(a), nb = typeof b === "number" && Number.isNaN(b);
    if (na || nb) return Number(na) - Number(nb);
    return a < b ? -1 : a > b ? 1 : 0;
  };
  return keys.map((_, i) => i).sort((i, j) => (desc ? -cmp(keys[i], keys[j]) : cmp(keys[i], keys[j])) || i - j);
}

/** A sort launch: a [shape] input of dtype dt along axis, stored with its dims in `stored` order after `off` elements. */
interface Case {
  dt: number;
  shape: number[];
  axis: number;
  desc: boolean;
  stored?: number[];
  off?: number;
  grid?: number;
}

/** The launch of a case under a plan, and the check of what it left. */
function launch(c: Case, plan: string, r: () => number): [Launch, (res: Result) => void] {
  const { dt, shape, axis, desc } = c, off = c.off ?? 0, size = SIZE[dt];
  const stored = c.stored ?? shape.map((_, d) => d);
  const numel = shape.reduce((a, b) => a * b, 1), n = shape[axis], rows = n === 0 ? 0 : numel / n;
  const inSt = shape.map(() => 0); // the input's strides: row-major in the stored order of dims
  for (let k = stored.length - 1, acc = 1; k >= 0; k--) inSt[stored[k]] = acc, acc *= shape[stored[k]];
  const outSt = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const pool = SPECIAL[dt];
  const bits = Array.from(
    { length: off + numel },
    () => r() < 0.25 && pool.length ? pool[Math.floor(r() * pool.length)] : small(dt, Math.floor(r() * 9) - 4),
  );
  const raw = new Uint8Array((off + numel) * size), dv = new DataView(raw.buffer);
  bits.forEach((b, i) => {
    for (let k = 0; k < size; k++) dv.setUint8(i * size + k, Number((b >> BigInt(8 * k)) & 0xffn));
  });
  const outer = shape.filter((_, d) => d !== axis), oIn = inSt.filter((_, d) => d !== axis), oOut = outSt.filter((_, d) => d !== axis);
  const at = (row: number, st: number[]) => { // a row's first element, row-major over the outer dims
    let o = 0;
    for (let d = outer.length - 1; d >= 0; d--) o += (row % outer[d]) * st[d], row = Math.floor(row / outer[d]);
    return o;
  };
  const slots = block("sort", {
    descending: desc ? 1 : 0,
    oshape: outer,
    n,
    in: view(0, dt, off, oIn),
    in_stride: inSt[axis],
    vals: view(1, dt, 0, oOut),
    vals_stride: outSt[axis],
    idx: view(2, I64, 0, oOut),
    idx_stride: outSt[axis],
  });
  const name = `${plan} dt ${dt} [${shape}] axis ${axis} ${desc ? "desc" : "asc"}${c.stored ? ` stored [${stored}]` : ""}`;
  const l: Launch = {
    name,
    template: plan,
    source: PROGRAMS[plan],
    slots,
    buffers: [{ dt, raw }, { dt, values: Array(numel).fill(0xcd) }, { dt: I64, values: Array(numel).fill(-7) }],
    grid: c.grid ?? Math.max(1, Math.min(rows, 65535)),
  };
  return [l, (res) => {
    assert.deepEqual(res.err, [0, 0, 0, 0], `${name}: no error`);
    const [, vals, idx] = res.bufs, iv = new DataView(idx.buffer, idx.byteOffset);
    const wantVals = new Uint8Array(numel * size);
    for (let row = 0; row < rows; row++) {
      const io = off + at(row, oIn), oo = at(row, oOut);
      const want = order(Array.from({ length: n }, (_, q) => decode(dt, bits[io + q * inSt[axis]])), desc);
      const got = want.map((_, q) => Number(iv.getBigInt64(8 * (oo + q * outSt[axis]), true)));
      assert.deepEqual(got, want, `${name}: row ${row}'s indices`);
      want.forEach((p, q) =>
        wantVals.set(raw.subarray((io + p * inSt[axis]) * size, (io + p * inSt[axis] + 1) * size), (oo + q * outSt[axis]) * size)
      );
    }
    const bad = wantVals.findIndex((b, i) => vals[i] !== b);
    assert.equal(bad, -1, `${name}: the values' bytes differ first at byte ${bad}`);
  }];
}

testUnless(
  hasGxx() ? null : "g++ not found, so no CPU run of the sort template",
  "the sort template's CUDA and Metal programs and GLSL's plan give a JS stable sort's indices and bit-exact values",
  () => {
    const r = rng(26);
    const cases: Case[] = [];
    for (const desc of [false, true]) {
      for (const dt of [F32, F16, BF16, F64, I32, I64, U8, BOOL]) {
        cases.push({ dt, shape: [3, 37], axis: 1, desc, off: 5 }, { dt, shape: [37, 3], axis: 0, desc }); // odd rows, contiguous and strided
      }
      cases.push(
        { dt: F32, shape: [4, 1], axis: 1, desc }, // one-element rows
        { dt: F32, shape: [2048, 5], axis: 1, desc, grid: 4 }, // two rows a group
        { dt: I64, shape: [5, 2048], axis: 0, desc, grid: 4 }, // two strided rows a group, in pairs
        { dt: F32, shape: [6, 7, 9], axis: 1, desc, stored: [2, 0, 1] }, // a permuted view
        { dt: F32, shape: [4097], axis: 0, desc }, // past shared memory
        { dt: F32, shape: [2, 5000], axis: 1, desc, stored: [1, 0] }, // long strided rows
        { dt: I64, shape: [2049], axis: 0, desc, off: 3 }, // 64-bit keys past shared memory
        { dt: F64, shape: [1500], axis: 0, desc }, // pairs in CUDA's shared memory, long in GLSL's and Metal's
        { dt: F16, shape: [3000], axis: 0, desc },
      );
    }
    cases.push({ dt: U8, shape: [4500], axis: 0, desc: false }, { dt: F32, shape: [3, 0], axis: 1, desc: false });
    const runs = Object.keys(PROGRAMS).flatMap((plan) => cases.map((c) => launch(c, plan, r)));
    const results = emulate(runs.map(([l]) => l));
    runs.forEach(([, check], k) => check(results[k]));
  },
);
