/**
 * The MSL renderer's output, checked without a Mac: every op and template renders, keys
 * follow structure, the text carries params.h's structs field for field and the pt_main
 * signature the Metal driver binds, and nothing in it needs what MSL lacks (double,
 * long long, unsuffixed float literals, pointer parameters without an address space).
 * Where g++ exists, every source is compiled as C++17 against a stand-in header for
 * <metal_stdlib> (src/kernels/msl/shim.ts), and the numeric helpers (f16 conversion,
 * float-float arithmetic, erf, log1p, pow, int64 -> f32 through f64, division) are run on
 * the host against the C library. That catches syntax, type and arithmetic errors, not
 * Metal semantics: no Metal compiler has seen these programs (UNVERIFIED on Metal).
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kindOf } from "../src/kernels/launch.ts";
import { binary, cast, COMPARES, COMPUTE, decode, KINDS, load, mixed, NAMES, PREDICATES, unary } from "./render_common.ts";
import { assert, test, testUnless } from "./harness.ts";
import { BINARY, binaryDefined, type BinaryOp, type Expr, FLOAT_ONLY_UNARY, UNARY, type UnaryOp } from "../src/kernels/ir.ts";
import { MSL_TEMPLATES, mslElementwiseReduceSource, mslElementwiseSource, mslRenderer, mslTemplateSource } from "../src/kernels/msl.ts";
import { MSL_HOST_SHIM } from "../src/kernels/msl/shim.ts";
import { PREAMBLE } from "../src/kernels/msl/preamble.ts";
import { DF_HELPERS } from "../src/kernels/msl/df.ts";
import { EW_HELPERS } from "../src/kernels/msl/ew_helpers.ts";
import type { DType } from "../src/base/dtype.ts";

function unarySource(op: UnaryOp, dt: DType): string {
  return mslElementwiseSource(unary(op, load(0, dt), PREDICATES.has(op) ? "bool" : dt), 1);
}
function binarySource(op: BinaryOp, dt: DType): string {
  return mslElementwiseSource(binary(op, load(0, dt), load(1, dt), COMPARES.has(op) ? "bool" : dt), 2);
}

/** A creation-style program: the index and constants in f64, as generate() builds them. */
function arange(): Expr {
  const index: Expr = { k: "index", dtype: "float64" };
  const step: Expr = { k: "const", index: 1, dtype: "float64" };
  return cast(binary("add", { k: "const", index: 0, dtype: "float64" }, binary("mul", index, step, "float64"), "float64"), "int64");
}

/** ewreduce programs: E of each compute type, integer ops that can fail, strided inputs' coordinates, f64 constants, no inputs. */
function ewReducePrograms(): [string, string][] {
  const programs: [string, string][] = COMPUTE.map((
    dt,
  ) => [`ewreduce_mul_${dt}`, mslElementwiseReduceSource(binary("mul", load(0, dt), load(1, dt), dt), 2)]);
  const c: Expr = { k: "const", index: 0, dtype: "int64" };
  programs.push(
    ["ewreduce_mod_int64", mslElementwiseReduceSource(binary("mod", load(0, "int64"), c, "int64"), 1)],
    ["ewreduce_mixed", mslElementwiseReduceSource(cast(mixed(), "int32"), 2)],
    ["ewreduce_arange", mslElementwiseReduceSource(arange(), 0)],
    ["ewreduce_isnan", mslElementwiseReduceSource(unary("isnan", load(0, "float32"), "bool"), 1)],
  );
  return programs;
}

/** Every program the tests compile: templates, mixed, arange, each op for each compute type, ewreduce. */
function allPrograms(): [string, string][] {
  const programs: [string, string][] = KINDS.map((k) => [k, mslTemplateSource(k)]);
  programs.push(["ew_mixed", mslElementwiseSource(mixed(), 2)], ["ew_arange", mslElementwiseSource(arange(), 0)]);
  for (const op of Object.keys(UNARY) as UnaryOp[]) {
    for (const dt of COMPUTE) {
      if (!(dt.startsWith("int") && FLOAT_ONLY_UNARY.has(op))) programs.push([`ew_${op}_${dt}`, unarySource(op, dt)]);
    }
  }
  for (const op of Object.keys(BINARY) as BinaryOp[]) {
    for (const dt of COMPUTE.filter((d) => binaryDefined(op, d))) programs.push([`ew_${op}_${dt}`, binarySource(op, dt)]);
  }
  return [...programs, ...ewReducePrograms()];
}

const stripComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ");

/** load(0) + load(1) + ... over n float32 inputs: a block with n + 1 views. */
function sumOf(n: number): Expr {
  let e: Expr = load(0, "float32");
  for (let i = 1; i < n; i++) e = binary("add", e, load(i, "float32"), "float32");
  return e;
}

test("msl: every unary op renders for each compute type it has", () => {
  for (const op of Object.keys(UNARY) as UnaryOp[]) {
    for (const dt of COMPUTE) {
      if (dt.startsWith("int") && FLOAT_ONLY_UNARY.has(op)) {
        assert.throws(() => unarySource(op, dt), /needs a float ctype/, `${op} on ${dt}`);
        continue;
      }
      const src = unarySource(op, dt);
      assert.match(src, /pt_ew_st_\w+\(vb0, dt0, q0, t1\);/, `${op} ${dt} stores`);
      if (dt === "float64") assert.match(src, /pt_df t0 = pt_ew_ld_f64\(vb1, dt1, q1\);/, `${op}: f64 registers are df`);
    }
  }
  assert.match(unarySource("log1p", "float32"), /pt_log1p\(t0\)/, "MSL has no log1p: the helper");
  assert.match(unarySource("gelu", "float32"), /pt_erf\(pt_mul\(t0, 0\.70710677f\)\)/, "MSL has no erf: the helper");
});

test("msl: every binary op renders for every compute type", () => {
  for (const op of Object.keys(BINARY) as BinaryOp[]) {
    for (const dt of COMPUTE) {
      if (!binaryDefined(op, dt)) {
        assert.throws(() => binarySource(op, dt), /needs an? (float|integer) ctype/, `${op} on ${dt}`);
        continue;
      }
      const src = binarySource(op, dt);
      assert.match(src, /pt_ew_ld_\w+\(vb2, dt2, q2\)/, `${op} ${dt} loads input 1`);
      if (dt.startsWith("int") && (op === "div" || op === "mod" || op === "fmod" || op === "floorDivide")) {
        assert.match(src, /PT_FAIL\(PT_KERR_INT_DIV/);
      }
      if (dt.startsWith("int") && op === "pow") assert.doesNotMatch(src, /pt_fail\(err, PT_KERR/, "integer pow never fails");
    }
  }
  assert.match(binarySource("add", "int32"), /int\(pt_u32\(t0\) \+ pt_u32\(t1\)\)/, "integer add wraps");
  assert.match(binarySource("add", "float32"), /pt_add\(t0, t1\)/, "float add rounds once");
  assert.match(binarySource("mul", "float64"), /pt_df_mul\(t0, t1\)/, "f64 multiply in float-float");
  assert.match(binarySource("pow", "float32"), /pt_pow\(t0, t1\)/, "pow with C's negative-base rules");
});

test("msl: one structure gives one source and key; other structures other keys", () => {
  const add = (dt: DType, n = 2) => mslRenderer.elementwise(binary("add", load(0, dt), load(1, dt), dt), n);
  const a = add("float32"), b = add("float32");
  assert.equal(a.key, b.key);
  assert.equal(decode(a.source), decode(b.source));
  assert.equal(a.kind, "ew");
  assert.ok(a.key.startsWith("msl:"));
  assert.equal(a.source[a.source.length - 1], 0, "sources end with a NUL byte");
  const keys = new Set([
    a.key,
    mslRenderer.elementwise(binary("sub", load(0, "float32"), load(1, "float32"), "float32"), 2).key,
    add("float64").key,
    mslRenderer.elementwise(binary("add", load(1, "float32"), load(0, "float32"), "float32"), 2).key,
    add("float32", 3).key,
  ]);
  assert.equal(keys.size, 5);
  assert.equal(
    mslElementwiseSource(unary("abs", load(0, "float16"), "float32"), 1),
    mslElementwiseSource(unary("abs", load(0, "float32"), "float32"), 1),
    "the storage dtype is read at run time",
  );
});

test("msl: sources carry params.h's structs field for field and its pt_main signature", () => {
  const header = readFileSync(new URL("../native/src/backends/metal/params.h", import.meta.url), "utf8");
  const fields = (text: string, name: string) => {
    const m = text.match(new RegExp(`typedef struct \\{([^}]*)\\} ${name};`));
    assert.ok(m, `${name} is defined`);
    return m[1].replace(/\/\*[\s\S]*?\*\//g, "").split(";").map((f) => f.trim().replace(/\s+/g, " ")).filter(Boolean);
  };
  // MSL spells C's `long long` as `long` (both 64-bit) and the error word as atomic_uint.
  const toMsl = (f: string) => f.replace(/^long long /, "long ").replace(/^unsigned int code$/, "atomic_uint code");
  const defines = header.match(/#define PT_(MTL_GROUP|MTL_MAX_BUFS|MTL_MAX_ARGS|KERR_\w+) \d+/g) ?? [];
  assert.ok(defines.length >= 6, "params.h defines the sizes and error codes");
  const head = new RegExp(
    String.raw`kernel void pt_main\(` +
      Array.from({ length: 16 }, (_, k) => String.raw`device uchar \*b${k} \[\[buffer\(${k}\)\]\],\s*`).join("") +
      String.raw`constant pt_mtl_params &p \[\[buffer\(16\)\]\],\s*device pt_mtl_error \*err \[\[buffer\(17\)\]\],\s*` +
      String.raw`uint3 group \[\[threadgroup_position_in_grid\]\],\s*uint3 groups \[\[threadgroups_per_grid\]\],\s*` +
      String.raw`uint lid \[\[thread_position_in_threadgroup\]\]\) \{`,
    "g",
  );
  for (const [name, src] of allPrograms()) {
    for (const s of ["pt_mtl_params", "pt_mtl_error"]) assert.deepEqual(fields(src, s), fields(header, s).map(toMsl), `${name}: ${s}`);
    for (const d of defines) assert.ok(src.includes(d), `${name}: ${d}`);
    assert.equal(src.match(head)?.length, 1, `${name}: one pt_main with params.h's bindings`);
  }
});

test("msl: nothing MSL lacks: double, long long, unsuffixed float literals, CUDA built-ins", () => {
  const literal = /(?<![\w.])(\d+\.\d*|\.\d+|\d+(?=[eE][+-]?\d))([eE][+-]?\d+)?([fF]?)/g;
  const params = /\b(?:inline [\w ]+|kernel void) \w+\(([^)]*)\)\s*\{/g;
  for (const [name, src] of allPrograms()) {
    assert.ok(!/\bdouble\b/.test(src), `${name}: no double anywhere`);
    const code = stripComments(src);
    assert.ok(!/\blong long\b|\d(ull|ll|LL)\b/.test(code), `${name}: no long long`);
    assert.ok(!/__\w+|atomicCAS|#pragma unroll|\bstatic\b|\bextern\b/.test(code), `${name}: no CUDA leftovers`);
    for (const m of code.matchAll(literal)) assert.equal(m[3], "f", `${name}: float literal ${m[0]} has an f suffix`);
    // Pointers and references need an address space in MSL.
    for (const m of code.matchAll(params)) {
      for (const p of m[1].split(",")) {
        if (/[*&]/.test(p)) assert.match(p, /\b(device|constant|thread|threadgroup)\b|pt_ptr/, `${name}: parameter "${p.trim()}"`);
      }
    }
  }
});

test("msl: every template kind of blocks.h renders a pt_main; renderer registered", () => {
  assert.deepEqual(Object.keys(MSL_TEMPLATES).sort(), [...NAMES].sort());
  for (const kind of NAMES) {
    const prog = mslRenderer.template(kind);
    assert.equal(prog.kind, kindOf(kind));
    assert.equal(prog.key, `msl:t:${kind}`);
    assert.equal(decode(prog.source).match(/kernel void pt_main\(/g)?.length, 1, kind);
    assert.deepEqual(mslRenderer.template(kind), prog, "the same program again (renderers cache nothing: the device does)");
  }
  assert.throws(() => mslRenderer.template("fft"), /no template "fft"/);
  const sort = mslTemplateSource("sort");
  assert.match(sort, /#define PT_SYNC_GLOBAL\(\) threadgroup_barrier\(mem_flags::mem_device \| mem_flags::mem_threadgroup\)/);
  assert.match(sort, /PT_SYNC_GLOBAL\(\); \/\* global steps and the previous chunk are done \*\//, "long rows sort in device memory");
  assert.match(mslTemplateSource("matmul"), /threadgroup long ta\[PT_MM_T \* PT_MM_K\]/, "matmul tiles in threadgroup memory");
  // past 65535 groups a dimension, which launch.c caps, a group takes every groups-th tile
  assert.match(mslTemplateSource("matmul"), /for \(long ty = group\.y; ty < tilesM; ty \+= groups\.y\)/, "matmul strides over tile rows");
  assert.match(mslTemplateSource("matmul"), /for \(long tx = group\.x; tx < tilesN; tx \+= groups\.x\)/, "and tile columns");
  const launch = readFileSync(new URL("../native/src/backends/metal/launch.c", import.meta.url), "utf8");
  assert.match(launch, /pt_grid_tiles\(mm\.M, mm\.N, mm\.batch, 64, g\);/, "launch.c plans 64x64 tiles, which core/gpu.c caps");
  const renderers = readFileSync(new URL("../src/kernels/renderers.ts", import.meta.url), "utf8");
  assert.match(renderers, /registerRenderer\("msl", mslRenderer\)/);
});

test("msl: ewreduce renders reduce's row over the expression, reading the ewreduce block", () => {
  const expr = binary("mod", load(0, "int32"), { k: "const", index: 0, dtype: "int32" }, "int32");
  const prog = mslRenderer.elementwiseReduce!(expr, 1, 0);
  assert.equal(prog.kind, "ewreduce");
  assert.ok(prog.key.startsWith("msl:R:"), "one program serves every op");
  assert.deepEqual(mslRenderer.elementwiseReduce!(expr, 1, 9), prog, "the same program again (renderers cache nothing: the device does)");
  assert.equal(prog.source[prog.source.length - 1], 0, "sources end with a NUL byte");
  const src = decode(prog.source);
  assert.equal(src.match(/kernel void pt_main\(/g)?.length, 1);
  // Block slots by name (slots.ts); input 1's VIEW at 15 + 11 = 26, const[0] at 15 + 2 * 11 + 1.
  const names = ["src.rank = (int)PT_A(PT_EWREDUCE_RANK)", "pt_shape_at(p, PT_EWREDUCE_SHAPE, src.rank, src.shape)"];
  for (const s of [...names, "PT_A(PT_EWREDUCE_START), rows = PT_A(PT_EWREDUCE_ROWS), n = PT_A(PT_EWREDUCE_ROWLEN)"]) {
    assert.ok(src.includes(s), s);
  }
  assert.match(src, /src\.v\[0\] = pt_view_at\(p, B, 26\);/);
  assert.match(src, /const pt_view vout = pt_view_at\(p, B, PT_EWREDUCE_VIEWS\);/);
  assert.match(src, /pt_ew_linear\(PT_PASS PT_EWREDUCE_SHAPE, 29, src\.rank\)/, "input 1's strides (slot 29) over the shape");
  assert.match(src, /src\.t1 = pt_const_i32\(p, 38\);/);
  assert.match(src, /PT_FAIL\(PT_KERR_INT_DIV, i, 1, 0\); return 0; \}/, "a failing element reports and gives 0");
  assert.match(
    src,
    /pt_reduce_row\(PT_PASS src, false, n, vout, vout\.off \+ row \* vout\.st\[0\], sh, lid, one\);/,
    "E of i32 is not float",
  );
  assert.match(src, /const bool one = n <= PT_SHORT_ROW;/, "short rows take a thread each, as blocks.h plans their groups");
  // The reduce template runs the same row function over its VIEW, so the folds are shared.
  assert.match(mslTemplateSource("reduce"), /pt_reduce_row\(PT_PASS PT_SH_PASS\(sh\) src, op, kind, fl, fast, n, vout, oo, tid, true\);/);
  const f32 = mslElementwiseReduceSource(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 2);
  assert.match(f32, /pt_reduce_row\(PT_PASS src, true, n,/);
  assert.match(
    f32,
    /inline pt_df pt_src_df\(const thread pt_ew_row &s, long k\) \{\n {2}const float x = pt_ew_value\(s, s\.base \+ k\);\n {2}return pt_df_of\(x\);/,
  );
  assert.ok(mslElementwiseReduceSource(sumOf(19), 19).includes("pt_main"), "19 inputs fit (15 + 20 views of 11 slots)");
  assert.throws(() => mslElementwiseReduceSource(sumOf(20), 20), /argument slots/);
});

test("msl: an elementwise block that cannot fit pt_mtl_params is refused when rendered", () => {
  assert.ok(mslElementwiseSource(sumOf(19), 19).includes("pt_main"), "19 inputs fit (20 views of 11 slots)");
  assert.throws(() => mslElementwiseSource(sumOf(20), 20), /argument slots/);
  const c: Expr = { k: "const", index: 300, dtype: "float32" };
  assert.throws(() => mslElementwiseSource(binary("add", load(0, "float32"), c, "float32"), 1), /argument slots/);
});

function gxx(): boolean {
  try {
    return spawnSync("g++", ["--version"], { encoding: "utf8" }).status === 0;
  } catch {
    return false;
  }
}
const FLAGS = ["-std=c++17", "-Wall", "-Wno-attributes", "-Wno-unused-function", "-Wno-unused-variable", "-Wno-unused-but-set-variable"];

testUnless(
  gxx() ? null : "g++ not found, so no C++ syntax check (no Metal compiler here either)",
  "msl: every program compiles as C++17 against a stand-in <metal_stdlib> (g++)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "pt-msl-"));
    try {
      writeFileSync(join(dir, "metal_stdlib"), MSL_HOST_SHIM);
      // One translation unit: each program in a namespace of its own, the include hoisted.
      const unit = allPrograms().map(([name, src], i) =>
        `namespace p${i} { /* ${name} */\n${src.replace(/\0$/, "").replace("#include <metal_stdlib>\nusing namespace metal;\n", "")}\n}\n`
      );
      const file = join(dir, "programs.cpp");
      writeFileSync(file, `#include <metal_stdlib>\nusing namespace metal;\n${unit.join("")}`);
      const r = spawnSync("g++", [...FLAGS, "-fsyntax-only", "-I", dir, "-x", "c++", file], { encoding: "utf8" });
      assert.equal(r.status, 0, `g++ rejected a program:\n${(r.stderr ?? "").slice(0, 4000)}`);
      assert.equal(r.stderr ?? "", "", `g++ warned:\n${(r.stderr ?? "").slice(0, 4000)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** Host checks of the helpers; each prints "name failures" and the test wants 0 failures. */
const HOST_MAIN = String.raw`
#include <cstdio>
#include <cstdlib>
static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static uint64_t next() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static float rf() { float f; uint32_t b = (uint32_t)next(); memcpy(&f, &b, 4); return f; }
static long ulps(float a, float b) {
  if (a != a || b != b) return (a != a) == (b != b) ? 0 : 1L << 40;
  int32_t x, y; memcpy(&x, &a, 4); memcpy(&y, &b, 4);
  if (x < 0) x = (int32_t)0x80000000 - x;
  if (y < 0) y = (int32_t)0x80000000 - y;
  return labs((long)x - (long)y);
}
#define REPORT(name, bad) printf("%s %ld\n", name, (long)(bad))
int main() {
  long bad = 0;
  for (uint32_t h = 0; h < 65536; h++) { /* every half, both ways */
    _Float16 x; uint16_t hb = (uint16_t)h; memcpy(&x, &hb, 2);
    float f = pt_f16_to_f32(hb);
    if (ulps(f, (float)x) != 0) bad++;
    if (x == x && pt_f32_to_f16(f) != hb) bad++;
  }
  for (int i = 0; i < 2000000; i++) { float f = rf(); _Float16 r = (_Float16)f; uint16_t rb; memcpy(&rb, &r, 2);
    if (f == f && pt_f32_to_f16(f) != rb) bad++; }
  REPORT("f16", bad);
  bad = 0;
  for (int i = 0; i < 200000; i++) {
    long v = (long)(next() >> (next() % 40)); if (next() & 1) v = -v;
    if (pt_l2f_dbl(v) != (float)(double)v) bad++;
    if ((v >> 48) == 0 || (v >> 48) == -1) { pt_df d = pt_df_of_long(v); if (pt_df_to_i64(d) != v) bad++; }
  }
  REPORT("int64", bad);
  bad = 0;
  for (int i = 0; i < 200000; i++) {
    float a = rf(), b = rf();
    if (!std::isfinite(a) || !std::isfinite(b) || fabsf(a) > 1e18f || fabsf(b) > 1e18f || fabsf(a) < 1e-18f || fabsf(b) < 1e-18f) continue;
    if (pt_div(a, b) != a / b) bad++;
    if (a > 0 && pt_sqrt(a) != sqrtf(a)) bad++;
    pt_df s = pt_df_add(pt_two_prod(a, b), pt_df_of(b)); /* (a*b + b) to 48 bits */
    double e = (double)a * (double)b + (double)b;
    if (std::isfinite(e) && fabs(e) < 1e37 && fabs(e) > 1e-30 && fabs(((double)s.hi + (double)s.lo) - e) > fabs(e) * 0x1p-46) bad++;
    pt_df q = pt_df_div(pt_df_of(a), pt_df_of(b));
    double eq = (double)a / (double)b;
    if (fabs(eq) < 1e37 && fabs(eq) > 1e-30 && fabs(((double)q.hi + (double)q.lo) - eq) > fabs(eq) * 0x1p-45) bad++;
  }
  REPORT("arith", bad);
  bad = 0;
  for (int i = -400000; i <= 400000; i++) {
    const float x = (float)i * 1e-5f;
    if (ulps(pt_erf(x), erff(x)) > 1) bad++;
    if (x > -1.0f && ulps(pt_log1p(x), log1pf(x)) > 2) bad++;
    if (ulps(pt_erfc(x), erfcf(x)) > 4) bad++; /* the float continued fraction near 3 */
    if (ulps(pt_expm1(x), expm1f(x)) > 2) bad++;
    if (ulps(pt_hypot(x, 0.75f * x + 1.0f), hypotf(x, 0.75f * x + 1.0f)) > 2) bad++;
  }
  const float big[] = {10.0f, 12.0f, -3.5f, 1e30f, 1e-30f};
  for (float x : big) if (ulps(pt_erfc(x), erfcf(x)) > 4 || ulps(pt_hypot(x, x), hypotf(x, x)) > 2) bad++;
  if (pt_hypot(INFINITY, NAN) != INFINITY || pt_expm1(-100.0f) != -1.0f || pt_expm1(100.0f) != INFINITY) bad++;
  const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, INFINITY, -INFINITY, NAN, 1e-3f};
  for (float x : sp) for (float y : sp) {
    const float r = pt_pow(x, y), e = powf(x, y);
    if (ulps(r, e) > 1 || (e == e && signbit(r) != signbit(e))) bad++;
  }
  REPORT("math", bad);
  bad = 0;
  for (long a = -60; a <= 60; a++) for (long b = -7; b <= 7; b++) {
    if (b == 0) continue;
    pt_df r = pt_df_mod_py(pt_df_of_long(a), pt_df_of_long(b));
    long e = a % b; if (e != 0 && ((e < 0) != (b < 0))) e += b;
    if (r.hi != (float)e || r.lo != 0.0f) bad++;
    pt_df big = pt_df_mod_py(pt_df_of_long(a + (1L << 40)), pt_df_of_long(b));
    long eb = (a + (1L << 40)) % b; if (eb != 0 && ((eb < 0) != (b < 0))) eb += b;
    if (big.hi != (float)eb) bad++;
  }
  for (int i = 0; i < 100000; i++) { float x = rf(); if (!std::isfinite(x) || fabsf(x) > 1e6f) continue;
    pt_df v = pt_df_add(pt_df_of(x), pt_df_of(x * 0x1p-30f));
    double d = (double)v.hi + (double)v.lo;
    if ((double)pt_df_floor(v).hi + pt_df_floor(v).lo != floor(d) || (double)pt_df_rint(v).hi + pt_df_rint(v).lo != nearbyint(d)) bad++; }
  REPORT("df_round", bad);
  bad = 0;
  /* PyTorch's powi for e < 0: 1 for base 1, +-1 by parity for base -1, 0 for every other base */
  const long ebig[] = {-2147483647L - 1, -2147483647L, -(1L << 40) - 1, -(1L << 62)};
  for (long a = -5; a <= 5; a++) for (long e = -9; e <= 9; e++) for (int k = -1; k < 4; k++) {
    const long x = k < 0 ? e : ebig[k];
    long want = 1;
    if (x < 0) want = a == 1 ? 1 : a == -1 ? (x % 2 ? -1 : 1) : 0;
    else for (long j = 0; j < x; j++) want *= a;
    if (pt_ipow(a, x) != want) bad++;
    if ((int)x == x && pt_ipow((int)a, (int)x) != (int)want) bad++;
  }
  REPORT("ipow", bad);
  return 0;
}
`;

testUnless(
  gxx() ? null : "g++ not found, so no host run of the numeric helpers",
  "msl: numeric helpers agree with the C library when run on the host (g++)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "pt-msl-host-"));
    try {
      writeFileSync(join(dir, "metal_stdlib"), MSL_HOST_SHIM);
      const file = join(dir, "host.cpp"), exe = join(dir, "host");
      writeFileSync(file, `${PREAMBLE}${DF_HELPERS}${EW_HELPERS}${HOST_MAIN}`);
      const c = spawnSync("g++", [...FLAGS, "-O1", "-ffp-contract=off", "-I", dir, "-x", "c++", file, "-o", exe], { encoding: "utf8" });
      assert.equal(c.status, 0, `g++ failed:\n${(c.stderr ?? "").slice(0, 4000)}`);
      const r = spawnSync(exe, [], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      const results = Object.fromEntries(r.stdout.trim().split("\n").map((l) => l.split(" ")).map(([k, v]) => [k, Number(v)]));
      assert.deepEqual(Object.keys(results), ["f16", "int64", "arith", "math", "df_round", "ipow"]);
      for (const [k, v] of Object.entries(results)) assert.equal(v, 0, `${k}: ${v} failures`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
