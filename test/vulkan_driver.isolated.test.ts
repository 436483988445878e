/**
 * The Vulkan driver through the raw C ABI, with hand-written GLSL (native/src/backends/vulkan/
 * params.h): inventory without a logical device, transfers of odd and empty sizes, batched
 * launches with barriers, fences and timing, a device-side wait between two queues, the
 * kernel error block, a compile error, and close/reopen. Each is a skip with its reason when
 * there is no usable Vulkan device; PT_REQUIRE=vulkan turns that into a failure.
 */
import { native } from "../src/ffi/load.ts";
import { assert, env, testUnless } from "./harness.ts";

const PT_EINVAL = -1, PT_EHANDLE = -2, PT_EKERNEL = -6;
const enc = new TextEncoder(), dec = new TextDecoder();
const msgBuf = new Uint8Array(4096);
const lastError = () => dec.decode(msgBuf.subarray(0, Math.min(native.pt_last_error(msgBuf, msgBuf.length), msgBuf.length)));
const nameBuf = new Uint8Array(256);
const str = (n: number) => dec.decode(nameBuf.subarray(0, Math.max(0, Math.min(n, nameBuf.length))));
const backend = [...Array(native.pt_backend_count()).keys()].find((b) =>
  str(native.pt_backend_name(b, nameBuf, nameBuf.length)) === "vulkan"
);
const count = backend === undefined ? 0 : native.pt_device_count(backend);
const why = backend === undefined ? "no vulkan row in the backends table" : count > 0 ? "" : lastError();
const required = (env("PT_REQUIRE") ?? "").split(",").includes("vulkan");

const HEAD = `#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;
layout(push_constant) uniform PtPush { uint64_t params; } pt_push;
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer PtParams {
  uint64_t buf[16]; uint64_t err; int nbuf; int nargs; double a[240];
};
layout(buffer_reference, std430, buffer_reference_align = 8) buffer PtErr { uint code; uint pad; int64_t d0, d1, d2; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32 { float v[]; };
`;
/** "ew" out = in0 + const0 over rank-1 float32 views (blocks.h's ew block, read by hand). */
const ADD = HEAD + `
void main() {
  PtParams p = PtParams(pt_push.params);
  int64_t n = int64_t(p.a[1]);
  F32 o = F32(p.buf[int(p.a[10])]); int64_t oo = int64_t(p.a[12]), os = int64_t(p.a[13]);
  F32 x = F32(p.buf[int(p.a[21])]); int64_t xo = int64_t(p.a[23]), xs = int64_t(p.a[24]);
  float k = float(p.a[33]);
  for (int64_t i = int64_t(gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x; i < n; i += int64_t(gl_NumWorkGroups.x) * 256)
    o.v[int(oo + i * os)] = x.v[int(xo + i * xs)] + k;
}`;
/** Writes PT_KERR_INT_DIV (2) with element 7 into the error block, as a kernel meeting bad data would. */
const FAIL = HEAD + `
void main() {
  PtParams p = PtParams(pt_push.params);
  PtErr e = PtErr(p.err);
  if (gl_GlobalInvocationID.x == 0u && atomicCompSwap(e.code, 0u, 2u) == 0u) { e.d0 = 7; e.d1 = 0; e.d2 = 0; }
}`;

function ewBlock(out: number, inp: number, n: number, k: number): Float64Array {
  const view = (b: number) => [b, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
  const bufs = out === inp ? [out] : [out, inp];
  return Float64Array.from([bufs.length, ...bufs, 1, n, 1, 1, 1, 1, 1, 1, 1, 2, ...view(0), ...view(out === inp ? 0 : 1), 1, k]);
}

// Every test registers whether or not there is a device (the count CI checks stays the same);
// without one they are skips with the reason, and PT_REQUIRE=vulkan makes the absence a failure.
testUnless(
  required ? null : "PT_REQUIRE does not name vulkan",
  "vulkan driver: PT_REQUIRE=vulkan finds a Vulkan device",
  () => assert.ok(count > 0, `PT_REQUIRE=vulkan but there is no Vulkan device: ${why}`),
);
const vtest = (name: string, fn: () => void) => testUnless(count > 0 ? null : `no usable Vulkan device: ${why}`, name, fn);
{
  const vk = backend!;
  let dev = 0, queue = 0;
  const open = () => {
    dev = native.pt_device_open(vk, 0);
    assert.ok(dev > 0, `pt_device_open: ${lastError()}`);
    queue = native.pt_device_queue(dev);
  };
  const alloc = (n: number) => {
    const b = native.pt_buffer_alloc(dev, n);
    assert.ok(b > 0, `alloc(${n}): ${lastError()}`);
    return b;
  };
  const ok = (st: number, what: string) => assert.equal(st, 0, `${what}: ${lastError()}`);
  const program = (kind: string, src: string) => {
    const k = enc.encode(kind), s = enc.encode(src);
    return native.pt_program_create(dev, k, k.length, s, s.length);
  };
  const fields = new Float64Array(16);

  vtest("vulkan inventory lists the device without a logical device", () => {
    assert.ok(str(native.pt_device_name(vk, 0, nameBuf, nameBuf.length)).length > 0);
    assert.equal(str(native.pt_device_language(vk, 0, nameBuf, nameBuf.length)), "glsl");
    ok(native.pt_device_info(vk, 0, fields), "pt_device_info");
    assert.equal(fields[9], 0, "listing made a context");
    assert.ok(fields[0] > 0 && fields[5] > 0 && fields[6] >= 256, `info ${fields.slice(0, 10)}`);
    open();
    ok(native.pt_device_info(vk, 0, fields), "pt_device_info");
    assert.equal(fields[9], 1, "an open device has a context");
    const has = (c: string) => native.pt_device_has(dev, enc.encode(c), c.length);
    assert.equal(has("batched_submit"), 1);
    assert.equal(has("timeline"), 1);
    assert.equal(has("bda"), 1);
  });

  vtest("vulkan transfers: empty, odd, unaligned, large and overlapping", () => {
    for (const n of [0, 1, 3, 4, 1000, 65536, 65537, 100003, (3 << 20) + 5]) {
      const b = alloc(n);
      assert.equal(native.pt_buffer_size(b), n);
      const src = new Uint8Array(n + 8).map((_, i) => (i * 7 + n) & 255), dst = new Uint8Array(n + 8);
      const src2 = new Uint8Array(n + 8).map((_, i) => (i * 13 + 5) & 255);
      ok(native.pt_buffer_write(queue, b, 0, src, n), `write ${n}`);
      if (n > 4) ok(native.pt_buffer_write(queue, b, 1, src2, n - 3), `write ${n} at 1`);
      ok(native.pt_buffer_read(queue, b, 0, dst, n), `read ${n}`);
      const want = src.slice(0, n);
      if (n > 4) want.set(src2.subarray(0, n - 3), 1);
      assert.deepEqual(dst.subarray(0, n), want, `round trip of ${n} bytes`);
      if (n >= 1000) {
        const c = alloc(n);
        ok(native.pt_buffer_copy(queue, b, 3, c, 1, n - 5), "copy");
        ok(native.pt_buffer_copy(queue, b, 0, b, 2, n - 2), "overlapping copy");
        const got = new Uint8Array(n);
        ok(native.pt_buffer_read(queue, c, 1, got, n - 5), "read copy");
        assert.deepEqual(got.subarray(0, n - 5), want.subarray(3, n - 2));
        ok(native.pt_buffer_read(queue, b, 2, got, n - 2), "read overlap");
        assert.deepEqual(got.subarray(0, n - 2), want.subarray(0, n - 2));
        ok(native.pt_buffer_release(c), "release");
      }
      ok(native.pt_buffer_release(b), "release");
    }
    assert.equal(native.pt_buffer_read(queue, alloc(8), 4, new Uint8Array(8), 8), PT_EINVAL, "read past the end");
  });

  vtest("vulkan: 256 batched ew launches in place and ping-pong, then the right answer", () => {
    const n = 1000, prog = program("ew", ADD);
    assert.ok(prog > 0, lastError());
    const a = alloc(n * 4), b = alloc(n * 4);
    const x = Float32Array.from({ length: n }, (_, i) => i);
    ok(native.pt_buffer_write(queue, a, 0, new Uint8Array(x.buffer), n * 4), "write");
    const inPlace = ewBlock(a, a, n, 1);
    for (let i = 0; i < 256; i++) ok(native.pt_launch(queue, prog, inPlace, inPlace.length), `launch ${i}`);
    ok(native.pt_queue_flush(queue), "flush");
    const ab = ewBlock(b, a, n, 0.5), ba = ewBlock(a, b, n, 0.5);
    for (let i = 0; i < 128; i++) {
      ok(native.pt_launch(queue, prog, ab, ab.length), "a->b");
      ok(native.pt_launch(queue, prog, ba, ba.length), "b->a");
    }
    const out = new Float32Array(n);
    ok(native.pt_buffer_read(queue, a, 0, new Uint8Array(out.buffer), n * 4), "read");
    for (let i = 0; i < n; i++) assert.equal(out[i], i + 256 + 128, `element ${i}`);
    const empty = ewBlock(a, a, 0, 1);
    ok(native.pt_launch(queue, prog, empty, empty.length), "a launch with no work");
    const bad = ewBlock(a, a, n + 1, 1);
    assert.equal(native.pt_launch(queue, prog, bad, bad.length), PT_EINVAL, "a view past the buffer");
    ok(native.pt_program_free(prog), "free");
    ok(native.pt_buffer_release(a), "release");
    ok(native.pt_buffer_release(b), "release");
  });

  vtest("vulkan fences: record, query, wait, elapsed; and a device-side wait between queues", () => {
    const n = 1 << 16, prog = program("ew", ADD);
    const a = alloc(n * 4), b = alloc(n * 4);
    ok(native.pt_buffer_write(queue, a, 0, new Uint8Array(n * 4), n * 4), "zero");
    const f0 = native.pt_fence_record(queue);
    const blk = ewBlock(a, a, n, 1);
    for (let i = 0; i < 64; i++) ok(native.pt_launch(queue, prog, blk, blk.length), "launch");
    const f1 = native.pt_fence_record(queue);
    assert.ok(f0 > 0 && f1 > 0, lastError());
    const q = native.pt_fence_query(f1);
    assert.ok(q === 0 || q === 1, `query ${q}: ${lastError()}`);
    // queue 2 waits for f1 on the device, then adds to what queue 1 made.
    const q2 = native.pt_queue_create(dev);
    assert.ok(q2 > 0, lastError());
    ok(native.pt_queue_wait_fence(q2, f1), "queue_wait_fence");
    const blk2 = ewBlock(b, a, n, 0.5);
    ok(native.pt_launch(q2, prog, blk2, blk2.length), "launch on q2");
    const out = new Float32Array(n);
    ok(native.pt_buffer_read(q2, b, 0, new Uint8Array(out.buffer), n * 4), "read on q2");
    assert.equal(out[0], 64.5);
    assert.equal(out[n - 1], 64.5);
    ok(native.pt_fence_wait(f1), "fence_wait");
    assert.equal(native.pt_fence_query(f1), 1);
    assert.equal(native.pt_fence_query(f0), 1);
    const ms = native.pt_fence_elapsed_ms(f0, f1);
    assert.ok(ms >= 0 && ms < 60_000, `elapsed ${ms}: ${lastError()}`);
    // An idle queue's fence passes too.
    const f2 = native.pt_fence_record(q2);
    ok(native.pt_fence_wait(f2), "fence on an idle queue");
    for (const f of [f0, f1, f2]) ok(native.pt_fence_free(f), "fence_free");
    ok(native.pt_queue_free(q2), "queue_free");
    ok(native.pt_program_free(prog), "free");
    ok(native.pt_buffer_release(a), "release");
    ok(native.pt_buffer_release(b), "release");
  });

  vtest("vulkan error block: reported once at the next sync, with the kind and details", () => {
    const fail = program("ew", FAIL), a = alloc(64);
    assert.ok(fail > 0, lastError());
    const blk = ewBlock(a, a, 16, 0);
    ok(native.pt_launch(queue, fail, blk, blk.length), "launch");
    const f = native.pt_fence_record(queue);
    assert.equal(native.pt_device_sync(dev), PT_EKERNEL);
    assert.match(lastError(), /ew.*integer division by zero at element 7/);
    ok(native.pt_device_sync(dev), "the next sync is clean");
    const add = program("ew", ADD);
    ok(native.pt_launch(queue, add, blk, blk.length), "later work runs");
    ok(native.pt_device_sync(dev), "sync");
    ok(native.pt_fence_wait(f), "the block was already reported");
    for (const h of [f]) ok(native.pt_fence_free(h), "fence_free");
    ok(native.pt_program_free(fail), "free");
    ok(native.pt_program_free(add), "free");
    ok(native.pt_buffer_release(a), "release");
  });

  vtest("vulkan: bad GLSL gives a compile error with shaderc's words; an unknown kind, empty source and a NUL byte are refused", () => {
    const st = program("ew", HEAD + "void main() { undefined_thing(); }");
    assert.equal(st, PT_EINVAL);
    assert.match(lastError(), /does not compile[\s\S]*undefined_thing/);
    assert.equal(program("nope", ADD), PT_EINVAL);
    assert.match(lastError(), /unknown program kind/);
    assert.equal(program("ew", ""), PT_EINVAL);
    assert.match(lastError(), /vulkan: a ew program needs GLSL compute source \(params\.h\); got none/);
    assert.equal(program("ew", "\0"), PT_EINVAL, "a lone NUL terminator is empty source too");
    assert.equal(program("ew", HEAD + "\0void main() {}"), PT_EINVAL);
    assert.match(lastError(), /vulkan: the ew program's source contains a NUL byte/);
  });

  vtest("vulkan: close and reopen in one process", () => {
    const b = alloc(16);
    ok(native.pt_device_close(dev), "close");
    assert.equal(native.pt_buffer_size(b) < 0, true);
    assert.equal(native.pt_buffer_write(queue, b, 0, new Uint8Array(16), 16), PT_EHANDLE);
    ok(native.pt_device_info(vk, 0, fields), "info");
    assert.equal(fields[9], 0, "no context after close");
    open();
    const c = alloc(12), got = new Uint8Array(12);
    ok(native.pt_buffer_write(queue, c, 0, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 12), "write");
    ok(native.pt_buffer_read(queue, c, 0, got, 12), "read");
    assert.deepEqual([...got], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const prog = program("ew", ADD);
    assert.ok(prog > 0, lastError());
    ok(native.pt_buffer_release(c), "release");
    ok(native.pt_device_close(dev), "close");
  });
}
