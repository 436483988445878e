/**
 * The raw C ABI under abuse: seeded random and stale handles, garbage sizes, offsets,
 * argument blocks and bytecode. Every call must return a negative status (never crash),
 * messages must name the handle or size, and the live handle/byte counts must return to
 * their baselines. Host buffers handed to the shim are always at least as large as the
 * byte counts passed with them: the C side cannot know a JS array's length.
 */
import { native } from "../src/ffi/load.ts";
import { assert, rng, test } from "./harness.ts";

const PT_EINVAL = -1, PT_EHANDLE = -2, PT_EOOM = -4;
const SLOT_MASK = (1 << 20) - 1;
const enc = new TextEncoder(), dec = new TextDecoder();
const msgBuf = new Uint8Array(4096);
const lastError = () => dec.decode(msgBuf.subarray(0, Math.min(native.pt_last_error(msgBuf, msgBuf.length), msgBuf.length)));
const r = rng(0x5eed);
const randInt = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const nameBuf = new Uint8Array(64);
const cpu = [...Array(native.pt_backend_count()).keys()]
  .find((b) => dec.decode(nameBuf.subarray(0, native.pt_backend_name(b, nameBuf, nameBuf.length))) === "cpu")!;
const handles0 = native.pt_live_handles(), bytes0 = native.pt_live_bytes();
let dev = native.pt_device_open(cpu, 0);
let queue = native.pt_device_queue(dev);
assert.ok(dev > 0 && queue > 0, `pt_device_open: ${lastError()}`);
const baseHandles = native.pt_live_handles(), baseBytes = native.pt_live_bytes();

/** Every handle this file holds; random handles are never one of these. */
const live = new Set<number>([dev, queue]);
const SPECIAL = [0, -1, 1, -2147483648, 2147483647, 1 << 20, (1 << 20) | SLOT_MASK, 2047 << 20, 0x7ff00001];
function randomHandle(): number {
  for (;;) {
    const k = r();
    let h: number;
    if (k < 0.2) h = pick(SPECIAL);
    else if (k < 0.5) { // a live handle's slot with another generation, or a neighbouring slot
      const base = pick([...live]);
      h = r() < 0.5 ? (((base >>> 20) + randInt(1, 5)) % 2048 << 20) | (base & SLOT_MASK) : base + randInt(-3, 3);
    } else h = (r() * 4294967296) | 0;
    if (!live.has(h)) return h;
  }
}

/** Checks a new handle and records it as live. */
function made(h: number, what: string): number {
  assert.ok(h > 0, `${what}: ${lastError()}`);
  live.add(h);
  return h;
}
const alloc = (bytes: number) => made(native.pt_buffer_alloc(dev, bytes), `pt_buffer_alloc(${bytes})`);
const release = (h: number) => (assert.equal(native.pt_buffer_release(h), 0, lastError()), live.delete(h));
const program = (kind: string, src: Uint8Array = new Uint8Array(0)) =>
  made(native.pt_program_create(dev, enc.encode(kind), enc.encode(kind).length, src, src.length), `pt_program_create(${kind})`);
const freeProgram = (p: number) => (assert.equal(native.pt_program_free(p), 0, lastError()), live.delete(p));

/** Bytecode of out = in0 + const0 in f32 (native/src/core/blocks.h): LOAD, CONST, ADD, STORE. */
function addBytecode(): Uint8Array {
  const words = Int32Array.from([0x50540001, 1, 3, 4, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 50, 0, 2, 0, 1, 0, 90, 0, 0, 2, 0, 0]);
  return new Uint8Array(words.buffer);
}
/** A valid "ew" block: rank-1 shape [n] over float32 views of one buffer, then consts. */
function ewBlock(buf: number, n: number, nviews: number, consts: number[]): Float64Array {
  const view = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
  return Float64Array.from([1, buf, 1, n, 1, 1, 1, 1, 1, 1, 1, nviews, ...Array(nviews).fill(view).flat(), consts.length, ...consts]);
}

const host = new Uint8Array(1 << 16);
const fields = new Float64Array(16);
const cap = enc.encode("f64");

test("every handle-taking function rejects seeded random handles with PT_EHANDLE naming the handle", () => {
  const buf = alloc(64), prog = program("ew", addBytecode());
  const fence = made(native.pt_fence_record(queue), "pt_fence_record");
  const block = ewBlock(buf, 4, 2, [1]);
  const src = addBytecode(), ew = enc.encode("ew");
  const single = "device_close device_queue device_sync buffer_retain buffer_release buffer_size memory_trim program_free queue_create"
    .concat(" queue_free fence_record fence_query fence_wait fence_free").split(" ").map((n) => `pt_${n}` as keyof typeof native);
  const calls: [string, (h: number) => number][] = [
    ...single.map((n) => [n, (h: number) => (native[n] as (h: number) => number)(h)] as [string, (h: number) => number]),
    ["pt_device_has", (h) => native.pt_device_has(h, cap, cap.length)],
    ["pt_buffer_alloc", (h) => native.pt_buffer_alloc(h, 16)],
    ["pt_buffer_wrap", (h) => native.pt_buffer_wrap(h, host, 16)],
    ["pt_buffer_host", (h) => (native.pt_buffer_host(h) === null ? PT_EHANDLE : 1)],
    ["pt_buffer_read(queue)", (h) => native.pt_buffer_read(h, buf, 0, host, 8)],
    ["pt_buffer_read(buffer)", (h) => native.pt_buffer_read(queue, h, 0, host, 8)],
    ["pt_buffer_write(queue)", (h) => native.pt_buffer_write(h, buf, 0, host, 8)],
    ["pt_buffer_write(buffer)", (h) => native.pt_buffer_write(queue, h, 0, host, 8)],
    ["pt_buffer_copy(src)", (h) => native.pt_buffer_copy(queue, h, 0, buf, 0, 8)],
    ["pt_buffer_copy(dst)", (h) => native.pt_buffer_copy(queue, buf, 0, h, 0, 8)],
    ["pt_memory_stats", (h) => native.pt_memory_stats(h, fields)],
    ["pt_program_create", (h) => native.pt_program_create(h, ew, ew.length, src, src.length)],
    ["pt_launch(queue)", (h) => native.pt_launch(h, prog, block, block.length)],
    ["pt_launch(program)", (h) => native.pt_launch(queue, h, block, block.length)],
    ["pt_queue_wait_fence(queue)", (h) => native.pt_queue_wait_fence(h, fence)],
    ["pt_queue_wait_fence(fence)", (h) => native.pt_queue_wait_fence(queue, h)],
    ["pt_queue_wait_buffer(queue)", (h) => native.pt_queue_wait_buffer(h, buf)],
    ["pt_queue_wait_buffer(buffer)", (h) => native.pt_queue_wait_buffer(queue, h)],
    ["pt_fence_elapsed_ms(start)", (h) => native.pt_fence_elapsed_ms(h, fence)],
    ["pt_fence_elapsed_ms(end)", (h) => native.pt_fence_elapsed_ms(fence, h)],
  ];
  for (let i = 0; i < 150; i++) {
    for (const [name, call] of calls) {
      const h = randomHandle();
      const st = call(h);
      assert.equal(st, PT_EHANDLE, `${name}(${h}) gave ${st}: ${lastError()}`);
      if (name !== "pt_buffer_host") assert.match(lastError(), new RegExp(`handle ${h}\\b`), `${name}(${h})`);
    }
  }
  // The real objects were untouched by all that.
  assert.equal(native.pt_buffer_size(buf), 64);
  assert.equal(native.pt_fence_query(fence), 1);
  assert.equal(native.pt_launch(queue, prog, block, block.length), 0, lastError());
  assert.equal(native.pt_fence_free(fence), 0);
  live.delete(fence);
  freeProgram(prog);
  release(buf);
});

test("a handle of another kind is rejected and the message says what it is", () => {
  const buf = alloc(8);
  assert.equal(native.pt_device_close(buf), PT_EHANDLE);
  assert.match(lastError(), new RegExp(`handle ${buf} is a buffer, expected a device`));
  assert.equal(native.pt_buffer_release(queue), PT_EHANDLE);
  assert.match(lastError(), new RegExp(`handle ${queue} is a queue, expected a buffer`));
  assert.equal(native.pt_fence_free(dev), PT_EHANDLE);
  assert.match(lastError(), /is a device, expected a fence/);
  assert.equal(native.pt_queue_free(queue), PT_EINVAL);
  assert.match(lastError(), /default queue/);
  assert.equal(native.pt_buffer_size(buf), 8, "the buffer survived");
  release(buf);
});

test("a freed buffer handle is rejected as freed, then as stale once its slot is reused", () => {
  const h = alloc(16);
  release(h);
  for (const st of [native.pt_buffer_release(h), native.pt_buffer_retain(h), native.pt_buffer_read(queue, h, 0, host, 4)]) {
    assert.equal(st, PT_EHANDLE);
    assert.match(lastError(), new RegExp(`handle ${h} was freed`));
  }
  assert.ok(native.pt_buffer_size(h) < 0);
  const otherGen = ((((h >>> 20) % 2047) + 1) << 20) | (h & SLOT_MASK);
  assert.equal(native.pt_buffer_release(otherGen), PT_EHANDLE);
  assert.match(lastError(), new RegExp(`handle ${otherGen} is stale`));
  // Slots are reused oldest first once more than 4096 are free: churn until h's comes back.
  const held: number[] = [];
  for (let i = 0; i < 4200; i++) held.push(alloc(0));
  for (const x of held.splice(0)) release(x);
  let reused = 0;
  for (let i = 0, x = 0; i < 10000 && !reused; i++) held.push(x = alloc(0)), reused = (x & SLOT_MASK) === (h & SLOT_MASK) ? x : 0;
  assert.ok(reused > 0 && reused !== h, "the slot was reused under a new generation");
  assert.equal(native.pt_buffer_release(h), PT_EHANDLE);
  assert.match(lastError(), new RegExp(`handle ${h} is stale`));
  assert.equal(native.pt_buffer_size(h), PT_EHANDLE);
  assert.equal(native.pt_buffer_size(reused), 0, "the new owner of the slot is unaffected");
  for (const x of held) release(x);
});

test("a 2^50-byte allocation is PT_EOOM naming the byte count; zero bytes work; bad sizes are PT_EINVAL", () => {
  const before = native.pt_live_bytes();
  assert.equal(native.pt_buffer_alloc(dev, 2 ** 50), PT_EOOM);
  assert.match(lastError(), /1125899906842624 bytes/);
  assert.equal(native.pt_live_bytes(), before);
  for (const bad of [-1, -0.5, 0.5, NaN, Infinity, -Infinity, 2 ** 53 + 2, 2 ** 64, 1e300]) {
    assert.equal(native.pt_buffer_alloc(dev, bad), PT_EINVAL, `alloc(${bad})`);
    assert.match(lastError(), /pt_buffer_alloc/);
  }
  const z = alloc(0);
  assert.equal(native.pt_buffer_size(z), 0);
  assert.equal(native.pt_buffer_write(queue, z, 0, host, 0), 0, lastError());
  assert.equal(native.pt_buffer_read(queue, z, 0, host, 0), 0, lastError());
  assert.equal(native.pt_buffer_read(queue, z, 0, host, 1), PT_EINVAL);
  assert.equal(native.pt_buffer_read(queue, z, 1, host, 0), PT_EINVAL);
  release(z);
  assert.equal(native.pt_live_bytes(), before);
});

test("buffer read/write/copy with garbage offsets and sizes give PT_EINVAL; valid ranges round-trip", () => {
  const a = alloc(64), b = alloc(64);
  const pool = [-1, -0.5, -0, 0, 1, 7.5, 8, 32, 56, 63, 64, 65, 100, NaN, Infinity, -Infinity];
  pool.push(2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, -1e300, 1e-300);
  const whole = (v: number) => Number.isInteger(v) && v >= 0 && v <= 2 ** 53;
  const fits = (off: number, n: number) => whole(off) && whole(n) && off + n <= 64;
  for (const off of pool) {
    for (const n of pool) {
      for (const write of [false, true]) {
        const st = write ? native.pt_buffer_write(queue, a, off, host, n) : native.pt_buffer_read(queue, a, off, host, n);
        assert.equal(st, fits(off, n) ? 0 : PT_EINVAL, `${write ? "write" : "read"}(${off}, ${n}): ${lastError()}`);
        if (st) assert.match(lastError(), /pt_buffer_(read|write)/);
      }
    }
  }
  for (let i = 0; i < 600; i++) {
    const so = pick(pool), dof = pick(pool), n = pick(pool);
    const st = native.pt_buffer_copy(queue, a, so, b, dof, n);
    assert.equal(st, fits(so, n) && fits(dof, n) ? 0 : PT_EINVAL, `copy(${so}, ${dof}, ${n}): ${lastError()}`);
  }
  assert.equal(native.pt_buffer_read(queue, a, 0, null as unknown as Uint8Array, 8), PT_EINVAL);
  assert.match(lastError(), /NULL/);
  const pattern = Uint8Array.from({ length: 64 }, (_, i) => i * 3);
  assert.equal(native.pt_buffer_write(queue, a, 0, pattern, 64), 0);
  assert.equal(native.pt_buffer_copy(queue, a, 8, b, 0, 16), 0);
  const out = new Uint8Array(16);
  assert.deepEqual([native.pt_buffer_read(queue, b, 0, out, 16), ...out], [0, ...pattern.subarray(8, 24)]);
  [a, b].forEach(release);
});

const KINDS = "ew reduce scan matmul sort gather scatter index_put index_get nonzero masked_select philox".split(" ");
const GARBAGE = [NaN, Infinity, -Infinity, -1, -7, 0.5, 2.25, 1e300, -1e300, 2 ** 60, 2 ** 31, -(2 ** 31)];
const SMALL = [0, 1, 2, 3];

test("pt_launch with garbage argument blocks fails cleanly on every program kind", () => {
  const buf = alloc(256), other = alloc(64);
  const progs = KINDS.map((k) => program(k, k === "ew" ? addBytecode() : undefined));
  let ok = 0;
  for (const p of progs) {
    for (let i = 0; i < 60; i++) {
      // Pure garbage: random length and values, the nbuf slot included.
      const junk = Float64Array.from({ length: randInt(0, 80) }, () => (r() < 0.5 ? pick(GARBAGE) : (r() - 0.5) * 1e6 + 0.5));
      const n = randInt(-2, junk.length);
      let st = native.pt_launch(queue, p, junk, n);
      assert.ok(st < 0, `garbage block of ${n} slots gave ${st}`);
      // A valid [nbuf, handles] prefix then garbage with a few small integers.
      const tail = Array.from({ length: randInt(0, 90) }, () => (r() < 0.6 ? pick(GARBAGE) : pick(SMALL)));
      const blk = Float64Array.from([2, buf, other, ...tail]);
      st = native.pt_launch(queue, p, blk, blk.length);
      assert.ok(st < 0 || st === 0, `launch gave ${st}`);
      // Structured: small integers only, so that some blocks pass validation and run.
      const small = Float64Array.from([1, buf, ...Array.from({ length: randInt(10, 90) }, () => pick(SMALL))]);
      st = native.pt_launch(queue, p, small, small.length);
      assert.ok(st <= 0, `launch gave ${st}`);
      if (st === 0) ok++;
    }
    // nbuf slots naming non-buffers.
    const bad = Float64Array.from([2, buf, pick([0, -5, 1.5, NaN, dev, queue, p])]);
    assert.equal(native.pt_launch(queue, p, bad, bad.length), PT_EHANDLE);
    assert.match(lastError(), /slot 2/);
  }
  // The buffers are intact and the ew program still works.
  const ones = new Float32Array(4).fill(1);
  assert.equal(native.pt_buffer_write(queue, buf, 0, ones, 16), 0);
  const block = ewBlock(buf, 4, 2, [2]);
  assert.equal(native.pt_launch(queue, progs[0], block, block.length), 0, lastError());
  const out = new Float32Array(4);
  assert.deepEqual([native.pt_buffer_read(queue, buf, 0, out, 16), ...out], [0, 3, 3, 3, 3]);
  console.log(`${3 * 60 * progs.length} garbage launches, ${ok} small-integer blocks were valid and ran`);
  progs.forEach(freeProgram);
  [buf, other].forEach(release);
});

test("one-slot mutations of valid ew and reduce blocks fail cleanly or run in bounds", () => {
  const buf = alloc(64), other = alloc(64);
  const ew = program("ew", addBytecode()), red = program("reduce");
  const values = Float32Array.from({ length: 16 }, (_, i) => i + 1);
  const view = (b: number, strides: number[]) => [b, 0, 0, ...strides, ...Array(8 - strides.length).fill(0)];
  // sum over inner dims [4, 4] of buf (strides 4, 1) into other[0] (blocks.h "reduce").
  const pad8 = (xs: number[], fill: number) => [...xs, ...Array(8 - xs.length).fill(fill)];
  const reduceBlock = [2, buf, other, 0, 0, 0, ...pad8([], 1), 2, ...pad8([4, 4], 1), ...view(0, []), ...pad8([4, 1], 0), ...view(1, [])];
  const ewValid = [...ewBlock(buf, 16, 2, [1])].map((v, i) => (i === 1 ? buf : v));
  const MUTANTS = [-1, 0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 1e9, -1e9, 2 ** 53, NaN, 0.5, Infinity, dev, other];
  let ran = 0;
  for (const [prog, valid, expect] of [[ew, ewValid, 17], [red, reduceBlock, 136]] as const) {
    for (let i = 0; i < 1000; i++) {
      assert.equal(native.pt_buffer_write(queue, buf, 0, values, 64), 0);
      const blk = Float64Array.from(valid);
      blk[randInt(0, blk.length - 1)] = pick(MUTANTS);
      const st = native.pt_launch(queue, prog, blk, blk.length);
      assert.ok(st <= 0, `mutated block gave ${st}`);
      if (st === 0) ran++;
    }
    assert.equal(native.pt_buffer_write(queue, buf, 0, values, 64), 0);
    const blk = Float64Array.from(valid);
    assert.equal(native.pt_launch(queue, prog, blk, blk.length), 0, lastError());
    const out = new Float32Array(16);
    assert.equal(native.pt_buffer_read(queue, prog === ew ? buf : other, 0, out, 64), 0);
    assert.equal(out[prog === ew ? 15 : 0], expect, "the unmutated block still computes the right value");
  }
  console.log(`${ran} of 2000 mutated blocks were still valid and ran`);
  [ew, red].forEach(freeProgram);
  [buf, other].forEach(release);
});

test("fences, queues and inventory calls reject bad arguments and handle double frees", () => {
  const f1 = native.pt_fence_record(queue), f2 = native.pt_fence_record(queue);
  assert.equal(native.pt_fence_wait(f1), 0);
  assert.ok(native.pt_fence_elapsed_ms(f1, f2) >= 0);
  const q2 = native.pt_queue_create(dev);
  assert.equal(native.pt_queue_wait_fence(q2, f2), 0, lastError());
  assert.equal(native.pt_queue_wait_fence(q2, q2), PT_EHANDLE);
  assert.equal(native.pt_queue_free(q2), 0);
  assert.equal(native.pt_queue_free(q2), PT_EHANDLE);
  assert.match(lastError(), new RegExp(`handle ${q2} was freed`));
  for (const f of [f1, f2]) {
    assert.equal(native.pt_fence_free(f), 0);
    assert.equal(native.pt_fence_free(f), PT_EHANDLE);
    assert.equal(native.pt_fence_query(f), PT_EHANDLE);
  }
  const name = new Uint8Array(64);
  for (const b of [-1, native.pt_backend_count(), 99, -2147483648, 2147483647]) {
    assert.equal(native.pt_backend_name(b, name, name.length), PT_EINVAL);
    assert.equal(native.pt_device_count(b), PT_EINVAL);
    assert.equal(native.pt_device_info(b, 0, fields), PT_EINVAL);
    assert.equal(native.pt_device_open(b, 0), PT_EINVAL);
    assert.match(lastError(), new RegExp(`backend ${b}`));
  }
  assert.equal(native.pt_backend_name(cpu, name, -5), PT_EINVAL);
  for (const i of [-1, 1, 7, 2147483647]) {
    assert.equal(native.pt_device_name(cpu, i, name, name.length), PT_EINVAL);
    assert.equal(native.pt_device_open(cpu, i), PT_EINVAL);
    assert.match(lastError(), new RegExp(`device index ${i}`));
  }
  for (const len of [0, -3, 64]) assert.equal(native.pt_device_has(dev, new Uint8Array(64), len), PT_EINVAL);
  assert.equal(native.pt_device_open(cpu, 0), dev, "opening an open device returns its handle");
});

test("live handles and bytes are back at their baselines; close rejects old handles, reopen works", () => {
  assert.deepEqual([...live].sort(), [dev, queue].sort(), "the tests freed what they made");
  assert.equal(native.pt_live_handles(), baseHandles);
  assert.equal(native.pt_live_bytes(), baseBytes);
  const buf = alloc(32);
  assert.equal(native.pt_device_close(dev), 0);
  const after = [native.pt_buffer_release(buf), native.pt_device_sync(dev), native.pt_fence_record(queue)];
  assert.deepEqual(after, [PT_EHANDLE, PT_EHANDLE, PT_EHANDLE]);
  assert.match(lastError(), new RegExp(`handle ${queue} was freed`));
  assert.match((native.pt_buffer_size(buf), lastError()), /device was closed/);
  assert.equal(native.pt_live_handles(), handles0);
  assert.equal(native.pt_live_bytes(), bytes0);
  const dev2 = native.pt_device_open(cpu, 0);
  assert.ok(dev2 > 0 && dev2 !== dev);
  assert.equal(native.pt_device_close(dev2), 0);
  assert.equal(native.pt_device_close(dev2), PT_EHANDLE);
  assert.equal(native.pt_live_handles(), handles0);
  live.clear(); // reopened for the tests below
  queue = made(native.pt_device_queue(made(dev = native.pt_device_open(cpu, 0), "reopen")), "queue");
});

test("an ew CONST index of 2^31-1 is rejected, never read (the sum index + 1 must not overflow)", () => {
  const ew = enc.encode("ew"), buf = alloc(64);
  const constProgram = (index: number) =>
    new Uint8Array(Int32Array.from([0x50540001, 0, 1, 2, 1, 0, 0, index, 0, 0, 90, 0, 0, 0, 0, 0]).buffer);
  const block = ewBlock(buf, 16, 1, [1, 2]);
  for (const index of [5, 2147483647]) {
    const src = constProgram(index);
    const p = native.pt_program_create(dev, ew, ew.length, src, src.length);
    if (p < 0 && (assert.match(lastError(), new RegExp(`constant ${index}`)), true)) continue;
    live.add(p);
    assert.equal(native.pt_launch(queue, p, block, block.length), PT_EINVAL, `CONST ${index} with 2 constants ran`);
    assert.match(lastError(), /constants given/);
    freeProgram(p);
  }
  release(buf);
});

test("pt_program_create rejects unknown kinds and random bytecode; accepted bytecode runs safely; counts return to baseline", () => {
  const src = addBytecode();
  for (const kind of ["", "EW", "ew2", "tpu", "reduce ", "gather\u0000", "x".repeat(63), "y".repeat(64), "ünïcode"]) {
    const k = enc.encode(kind);
    const st = native.pt_program_create(dev, k, k.length, src, src.length);
    assert.ok(st < 0, `kind "${kind}" gave ${st}`);
    if (kind.length > 0 && kind.length < 63 && !kind.includes("\u0000")) assert.match(lastError(), new RegExp(`"${kind}"`));
  }
  const ew = enc.encode("ew");
  for (const len of [-1, -100]) assert.equal(native.pt_program_create(dev, ew, len, src, src.length), PT_EINVAL);
  assert.equal(native.pt_program_create(dev, ew, ew.length, src, -4), PT_EINVAL);
  // Random bytes: the header check alone rejects them.
  for (let i = 0; i < 300; i++) {
    const bytes = Uint8Array.from({ length: randInt(0, 200) }, () => randInt(0, 255));
    assert.ok(native.pt_program_create(dev, ew, ew.length, bytes, bytes.length) < 0);
  }
  // Plausible programs (LOAD or INDEX, CONST, an op, STORE), often with one word mutated:
  // the validator decides, and whatever it accepts must run safely.
  const buf = alloc(64);
  let accepted = 0;
  for (let i = 0; i < 400; i++) {
    const ninputs = randInt(0, 1), c = randInt(0, 3), op = randInt(0, 1) ? randInt(10, 37) : randInt(50, 66);
    const first = [0x50540001, ninputs, 3, 4, ninputs ? 0 : 2, c, 0, 0, 0, 0]; // header, then LOAD input 0 or INDEX
    const words = [...first, 1, c, 1, 0, 0, 0, op, c, 2, 0, 1, 0, 90, pick([c, 2]), 0, 2, 0, 0]; // CONST, op, STORE
    if (r() < 0.6) words[randInt(1, words.length - 1)] = pick([-1, 0, 1, 2, 3, 5, 31, 32, 80, 99, 2147483647]);
    if (r() < 0.05) words.push(randInt(0, 9)); // a length that is not header + 24 * ninstr
    const bytes = new Uint8Array(Int32Array.from(words).buffer);
    const p = native.pt_program_create(dev, ew, ew.length, bytes, bytes.length);
    if (p < 0 && (assert.match(lastError(), /ew/), true)) continue;
    accepted++;
    live.add(p);
    const block = ewBlock(buf, 16, ninputs + 1, [pick([0, -1, 2, 2.5, 1e10]), 1]);
    const st = native.pt_launch(queue, p, block, block.length);
    assert.ok(st <= 0, `launch of accepted bytecode gave ${st}`);
    freeProgram(p);
  }
  console.log(`${accepted} of 400 random instruction streams passed validation and ran`);
  release(buf);
  assert.deepEqual([...live].sort(), [dev, queue].sort(), "the tests freed what they made");
  assert.equal(native.pt_live_handles(), handles0 + 2);
  assert.equal(native.pt_live_bytes(), bytes0);
  assert.equal(native.pt_device_close(dev), 0);
  assert.equal(native.pt_live_handles(), handles0);
});
