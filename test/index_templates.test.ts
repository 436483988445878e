/**
 * The index kernels written once (src/kernels/templates/index.ts) as CUDA C, run on the CPU
 * in tools/cuda_emu (test/cuda_emu.ts), each result checked against a plain JS loop.
 * GLSL's text of the same templates runs in every Vulkan pass (lavapipe in CI); this is
 * what checks the CUDA and HIP text without a GPU.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { assert, rng, testUnless } from "./harness.ts";
import { block, emulate, F32, hasGxx, I32, I64, KERR_COUNT, KERR_INDEX, type Launch, type Result, U8, view } from "./cuda_emu.ts";

const norm = (v: number, size: number) => (v < 0 ? v + size : v);

testUnless(
  hasGxx() ? null : "g++ not found, so no CPU run of the CUDA index templates",
  "the index templates' CUDA text computes gather, scatter, index_put, index_get, nonzero and masked_select as plain JS loops do",
  () => {
    const r = rng(26);
    const launches: Launch[] = [], checks: ((res: Result) => void)[] = [];
    const add = (l: Launch, check: (res: Result) => void) => (launches.push(l), checks.push(check));

    // gather along axis 1 of a [3, 5] input by a [3, 300] index (negative ones count from the end), ELEMENT over 2 blocks
    {
      const input = Array.from({ length: 15 }, (_, i) => i * 1.5 - 4);
      const idx = Array.from({ length: 900 }, () => Math.floor(r() * 10) - 5);
      const slots = block("gather", {
        shape: [3, 300],
        axis: 1,
        size: 5,
        mode: 0,
        in: view(0, F32, 0, [5, 1]),
        idx: view(1, I64, 0, [300, 1]),
        out: view(2, F32, 0, [300, 1]),
      });
      const expect = idx.map((v, p) => input[Math.floor(p / 300) * 5 + norm(v, 5)]);
      add({
        name: "gather",
        template: "gather",
        slots,
        buffers: [{ dt: F32, values: input }, { dt: I64, values: idx }, { dt: F32, values: Array(900).fill(0) }],
        grid: 2,
      }, (res) => {
        assert.deepEqual(res.err, [0, 0, 0, 0], "gather: no error");
        assert.deepEqual(res.out, expect.map(Math.fround), "gather: values");
      });
      const bad = [...idx];
      bad[611] = 5; // row 2, the first out-of-range index in row-major order
      bad[700] = -9;
      add({
        name: "gather error",
        template: "gather",
        slots,
        buffers: [{ dt: F32, values: input }, { dt: I64, values: bad }, { dt: F32, values: Array(900).fill(0) }],
        grid: 1,
      }, (res) => {
        assert.equal(res.err[0], KERR_INDEX, "gather: the bad index is reported");
        assert.ok([5, -9].includes(res.err[1]) && res.err[2] === 1 && res.err[3] === 5, `gather: details ${res.err}`);
      });
    }

    // scatter of [2, 400] into [2, 7] along axis 1, with each reduce; the writes of one destination follow row-major order
    const scatterSlots = (reduce: number) =>
      block("scatter", {
        shape: [2, 400],
        axis: 1,
        size: 7,
        mode: 0,
        reduce,
        out: view(2, F32, 0, [7, 1]),
        idx: view(0, I64, 0, [400, 1]),
        src: view(1, F32, 0, [400, 1]),
      });
    for (const reduce of [0, 1, 2, 3]) {
      const idx = Array.from({ length: 800 }, () => Math.floor(r() * 7));
      const src = Array.from({ length: 800 }, () => Math.fround(r() * 8 - 4));
      const base = Array.from({ length: 14 }, (_, i) => i - 6);
      const expect = [...base];
      for (let p = 0; p < 800; p++) {
        const o = Math.floor(p / 400) * 7 + idx[p], x = expect[o], y = src[p];
        expect[o] = Math.fround(reduce === 0 ? y : reduce === 1 ? x + y : reduce === 2 ? Math.max(x, y) : Math.min(x, y));
      }
      const slots = scatterSlots(reduce);
      add({
        name: `scatter ${reduce}`,
        template: "scatter",
        slots,
        buffers: [{ dt: I64, values: idx }, { dt: F32, values: src }, { dt: F32, values: base }],
        grid: 1,
      }, (res) => {
        assert.deepEqual(res.err, [0, 0, 0, 0], `scatter reduce ${reduce}: no error`);
        assert.deepEqual(res.out, expect, `scatter reduce ${reduce}: values`);
      });
    }
    {
      const idx = Array.from({ length: 800 }, () => Math.floor(r() * 7));
      idx[555] = 7;
      const base = Array.from({ length: 14 }, (_, i) => i);
      const slots = scatterSlots(1);
      add({
        name: "scatter error",
        template: "scatter",
        slots,
        buffers: [{ dt: I64, values: idx }, { dt: F32, values: Array(800).fill(1) }, { dt: F32, values: base }],
        grid: 1,
      }, (res) => {
        assert.deepEqual(res.err, [KERR_INDEX, 7, 1, 7], "scatter: the bad index, its axis and size");
        assert.deepEqual(res.out, base, "scatter: a failed scatter writes nothing");
      });
    }

    // index_put with k = 1: out [6, 3] f32, idx0 [300] (so several writes a row), vals [300, 3]; accumulate and set; then index_get
    const ipSlots = (acc: number, idxBuf: number, valsBuf: number, outBuf: number, nb: number) =>
      block("index", {
        k: 1,
        bshape: [nb],
        rshape: [3],
        mode: 0,
        accumulate: acc,
        dims: [6],
        out: view(outBuf, F32, 0, [3]), // the indexed dim's stride, then the rest's
        out_rest: [1],
        idx: [view(idxBuf, I64, 0, [1])],
        vals: view(valsBuf, F32, 0, [3]), // b strides, then the rest's
        vals_rest: [1],
      });
    const ipIdx = Array.from({ length: 300 }, () => Math.floor(r() * 12) - 6);
    const ipVals = Array.from({ length: 900 }, () => Math.fround(r() * 2 - 1));
    const ipBase = Array.from({ length: 18 }, (_, i) => i * 0.5);
    for (const acc of [0, 1]) {
      const expect = [...ipBase];
      for (let b = 0; b < 300; b++) {
        for (let c = 0; c < 3; c++) {
          const o = norm(ipIdx[b], 6) * 3 + c;
          expect[o] = Math.fround(acc ? expect[o] + ipVals[b * 3 + c] : ipVals[b * 3 + c]);
        }
      }
      add(
        {
          name: `index_put ${acc}`,
          template: "index_put",
          slots: ipSlots(acc, 0, 1, 2, 300),
          buffers: [{ dt: I64, values: ipIdx }, { dt: F32, values: ipVals }, { dt: F32, values: ipBase }],
          grid: 1,
        },
        (res) => {
          assert.deepEqual(res.err, [0, 0, 0, 0], `index_put accumulate ${acc}: no error`);
          assert.deepEqual(res.out, expect, `index_put accumulate ${acc}: values`);
        },
      );
    }
    {
      const bad = [...ipIdx];
      bad[123] = 6;
      add(
        {
          name: "index_put error",
          template: "index_put",
          slots: ipSlots(1, 0, 1, 2, 300),
          buffers: [{ dt: I64, values: bad }, { dt: F32, values: ipVals }, { dt: F32, values: ipBase }],
          grid: 1,
        },
        (res) => {
          assert.deepEqual(res.err, [KERR_INDEX, 6, 0, 6], "index_put: the bad index, its position among the index arrays, the dim's size");
          assert.deepEqual(res.out, ipBase, "index_put: a failed write changes nothing");
        },
      );
      // index_get reads out[idx[b], c] into vals (the block's VALS is the last buffer here)
      const expect = Array.from({ length: 900 }, (_, e) => Math.fround(ipBase[norm(ipIdx[Math.floor(e / 3)], 6) * 3 + (e % 3)]));
      add(
        {
          name: "index_get",
          template: "index_get",
          slots: ipSlots(0, 0, 2, 1, 300),
          buffers: [{ dt: I64, values: ipIdx }, { dt: F32, values: ipBase }, { dt: F32, values: Array(900).fill(0) }],
          grid: 2,
        },
        (res) => {
          assert.deepEqual(res.err, [0, 0, 0, 0], "index_get: no error");
          assert.deepEqual(res.out, expect, "index_get: values");
        },
      );
    }

    // nonzero of an int32 [20, 35] (coordinates in row-major order, several scan chunks), and a wrong count
    {
      const input = Array.from({ length: 700 }, () => (r() < 0.4 ? Math.floor(r() * 9) + 1 : 0));
      input[255] = 3; // the last invocation of the first two chunks selects: each chunk's total counts it
      input[511] = 5;
      const coords: number[] = [];
      input.forEach((v, i) => v !== 0 && coords.push(Math.floor(i / 35), i % 35));
      const count = coords.length / 2;
      const slots = (want: number) => block("nonzero", { shape: [20, 35], in: view(0, I32, 0, [35, 1]), out: 1, count: want });
      add({
        name: "nonzero",
        template: "nonzero",
        slots: slots(count),
        buffers: [{ dt: I32, values: input }, { dt: I64, values: Array(2 * count).fill(-1) }],
        grid: 1,
      }, (res) => {
        assert.deepEqual(res.err, [0, 0, 0, 0], "nonzero: no error");
        assert.deepEqual(res.out, coords, "nonzero: coordinates");
      });
      add({
        name: "nonzero count",
        template: "nonzero",
        slots: slots(count + 1),
        buffers: [{ dt: I32, values: input }, { dt: I64, values: Array(2 * count).fill(-1) }],
        grid: 1,
      }, (res) => {
        assert.deepEqual(res.err, [KERR_COUNT, count + 1, count, 0], "nonzero: expected and found counts");
        assert.deepEqual(res.out, Array(2 * count).fill(-1), "nonzero: nothing written");
      });
      // masked_select of a strided f32 view (every other element) by a u8 mask
      const vals = Array.from({ length: 1400 }, (_, i) => i * 0.25);
      const mask = input.map((v) => (v !== 0 ? 1 : 0));
      const expect = mask.flatMap((m, i) => (m ? [vals[2 * i]] : []));
      const ms = block("masked_select", {
        shape: [20, 35],
        in: view(0, F32, 0, [70, 2]),
        mask: view(1, U8, 0, [35, 1]),
        out: view(2, F32, 0, [1]),
        count,
      });
      add({
        name: "masked_select",
        template: "masked_select",
        slots: ms,
        buffers: [{ dt: F32, values: vals }, { dt: U8, values: mask }, { dt: F32, values: Array(count).fill(0) }],
        grid: 1,
      }, (res) => {
        assert.deepEqual(res.err, [0, 0, 0, 0], "masked_select: no error");
        assert.deepEqual(res.out, expect, "masked_select: values");
      });
    }

    const results = emulate(launches);
    results.forEach((res, k) => checks[k](res));
  },
);
