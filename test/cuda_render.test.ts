/**
 * The CUDA renderer's output, checked without a GPU: every op and template renders, keys
 * follow structure, and the text carries params.h's struct verbatim. NVRTC is not on the
 * machines that run this suite, so compiling (and running) the programs is verified on the
 * GPU machine; here, where g++ exists, each source is compiled as C++ against a small
 * header that stands in for the CUDA built-ins, which catches syntax and type errors.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kindOf } from "../src/kernels/launch.ts";
import { binary, cast, COMPARES, COMPUTE, decode, load, mixed, NAMES, PREDICATES, unary } from "./render_common.ts";
import { assert, rng, test, testUnless } from "./harness.ts";
import { hasGxx, runEmulated } from "./cuda_emu.ts";
import {
  BINARY,
  binaryDefined,
  type BinaryOp,
  encodeBytecode,
  type Expr,
  FLOAT_ONLY_UNARY,
  UNARY,
  type UnaryOp,
} from "../src/kernels/ir.ts";
import {
  CUDA_TEMPLATES,
  cudaElementwiseReduceSource,
  cudaElementwiseSource,
  cudaRenderer,
  cudaTemplateSource,
} from "../src/kernels/cuda.ts";
import type { DType } from "../src/base/dtype.ts";

function unarySource(op: UnaryOp, dt: DType): string {
  return cudaElementwiseSource(unary(op, load(0, dt), PREDICATES.has(op) ? "bool" : dt), 1);
}
function binarySource(op: BinaryOp, dt: DType): string {
  return cudaElementwiseSource(binary(op, load(0, dt), load(1, dt), COMPARES.has(op) ? "bool" : dt), 2);
}

/** ewreduce programs: each compute type of E, integer errors (div, mod, pow), bool values, no inputs. */
function ewReduceCases(): [string, string][] {
  const out: [string, string][] = [["ewr_mixed_f32", cudaElementwiseReduceSource(cast(mixed(), "float32"), 2)]];
  for (const dt of COMPUTE) {
    for (const op of ["div", "mod", "pow"] as BinaryOp[]) {
      out.push([`ewr_${op}_${dt}`, cudaElementwiseReduceSource(binary(op, load(0, dt), load(1, dt), dt), 2)]);
    }
    out.push([`ewr_lt_${dt}`, cudaElementwiseReduceSource(binary("lt", load(0, dt), load(1, dt), "bool"), 2)]);
  }
  out.push(["ewr_index", cudaElementwiseReduceSource(cast({ k: "index", dtype: "int64" }, "float64"), 0)]);
  return out;
}

test("cuda: every unary op renders for each compute type it has", () => {
  for (const op of Object.keys(UNARY) as UnaryOp[]) {
    for (const dt of COMPUTE) {
      const int = dt.startsWith("int");
      if (int && FLOAT_ONLY_UNARY.has(op)) {
        assert.throws(() => unarySource(op, dt), /needs a float ctype/, `${op} on ${dt}`);
        continue;
      }
      const src = unarySource(op, dt);
      assert.match(src, /extern "C" __global__ void pt_main\(const pt_params p\)/, `${op} ${dt}`);
      assert.match(src, /pt_ew_st_\w+\(vb0, dt0, q0, t1\);/, `${op} ${dt} stores`);
    }
  }
});

test("cuda: every binary op renders for every compute type", () => {
  for (const op of Object.keys(BINARY) as BinaryOp[]) {
    for (const dt of COMPUTE) {
      if (!binaryDefined(op, dt)) {
        assert.throws(() => binarySource(op, dt), /needs an? (float|integer) ctype/, `${op} on ${dt}`);
        continue;
      }
      const src = binarySource(op, dt);
      assert.match(src, /pt_ew_ld_\w+\(vb2, dt2, q2\)/, `${op} ${dt} loads input 1`);
      if (dt.startsWith("int") && (op === "div" || op === "mod" || op === "fmod" || op === "floorDivide")) {
        assert.match(src, /PT_KERR_INT_DIV/);
      }
      if (dt.startsWith("int") && op === "pow") assert.doesNotMatch(src, /PT_FAIL\(PT_KERR/, "integer pow never fails");
    }
  }
  assert.match(binarySource("add", "int32"), /int\(pt_u32\(t0\) \+ pt_u32\(t1\)\)/, "integer add wraps");
  assert.match(binarySource("add", "float32"), /pt_add\(t0, t1\)/, "float add rounds once");
});

test("cuda: one structure gives one source and key; other structures other keys", () => {
  const a = cudaRenderer.elementwise(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 2);
  const b = cudaRenderer.elementwise(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 2);
  assert.equal(a.key, b.key);
  assert.equal(decode(a.source), decode(b.source));
  assert.equal(a.kind, "ew");
  assert.ok(a.key.startsWith("cuda:"));
  assert.equal(a.source[a.source.length - 1], 0, "sources end with a NUL byte");
  const keys = new Set([
    a.key,
    cudaRenderer.elementwise(binary("sub", load(0, "float32"), load(1, "float32"), "float32"), 2).key,
    cudaRenderer.elementwise(binary("add", load(0, "float64"), load(1, "float64"), "float64"), 2).key,
    cudaRenderer.elementwise(binary("add", load(1, "float32"), load(0, "float32"), "float32"), 2).key,
    cudaRenderer.elementwise(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 3).key,
    cudaRenderer.elementwise(unary("neg", load(0, "float32"), "float32"), 1).key,
  ]);
  assert.equal(keys.size, 6);
  // the same source for the same structure whatever the storage dtypes in the views
  assert.equal(
    cudaElementwiseSource(unary("abs", load(0, "float16"), "float32"), 1),
    cudaElementwiseSource(unary("abs", load(0, "float32"), "float32"), 1),
  );
});

test("cuda: sources carry params.h's pt_params struct verbatim", () => {
  const header = readFileSync(new URL("../native/src/backends/cuda/params.h", import.meta.url), "utf8");
  const struct = header.match(/typedef struct \{[\s\S]*?\} pt_params;/);
  assert.ok(struct, "params.h defines pt_params");
  const codes = header.match(/#define PT_KERR_\w+ \d+[^\n]*/g) ?? [];
  assert.ok(codes.length >= 3, "params.h defines the error codes");
  const sources = [
    cudaElementwiseSource(mixed(), 2),
    cudaElementwiseReduceSource(mixed(), 2),
    ...Object.keys(CUDA_TEMPLATES).map(cudaTemplateSource),
  ];
  for (const src of sources) {
    assert.ok(src.includes(struct[0]), "struct text");
    for (const c of codes) assert.ok(src.includes(c), c);
    assert.ok(src.includes("#define PT_CUDA_MAX_BUFS 16") && src.includes("#define PT_CUDA_MAX_ARGS 240"));
    assert.ok(!/#include/.test(src), "no includes: NVRTC runs without an include path");
  }
});

test("cuda: every template kind of blocks.h renders a pt_main", () => {
  assert.deepEqual(Object.keys(CUDA_TEMPLATES).sort(), [...NAMES].sort());
  for (const kind of NAMES) {
    const prog = cudaRenderer.template(kind);
    assert.equal(prog.kind, kindOf(kind));
    assert.equal(prog.key, `cuda:t:${kind}`);
    const src = decode(prog.source);
    assert.equal(src.match(/extern "C" __global__ void pt_main\(const pt_params p\)/g)?.length, 1, kind);
    assert.deepEqual(cudaRenderer.template(kind), prog, "the same program again (renderers cache nothing: the device does)");
  }
  assert.throws(() => cudaRenderer.template("fft"), /no template "fft"/);
});

test("cuda: sort is a bitonic network within 48 KB of static shared memory; reduce has its contiguous path", () => {
  const sort = cudaTemplateSource("sort"), reduce = cudaTemplateSource("reduce");
  const num = (src: string, name: string) => Number(src.match(new RegExp(`#define ${name} (\\d+)`))?.[1]);
  const cap = num(sort, "PT_SORT_CAP"), pairs = num(sort, "PT_SORT_PAIRS"), rows = num(sort, "PT_SORT_MAXR");
  assert.ok(cap > 0 && pairs * 2 === cap && rows > 0, "sort sizes");
  assert.ok(cap * 8 + 3 * rows * 8 <= 48 * 1024, "sort's static shared memory fits 48 KB");
  assert.match(sort, /pt_bitonic_sort_packed\(PT_SH_PASS\(sm\) w, P, tid\)/);
  assert.match(sort, /pt_sort_long\(/, "rows longer than shared memory have a path");
  assert.match(reduce, /pt_fast_dt<K_SUM>/);
  assert.match(reduce, /__shfl_down_sync/);
  for (const src of [sort, reduce]) {
    assert.match(src, /extern "C" __global__ void __launch_bounds__\(PT_BLOCK, \d\) pt_main\(const pt_params p\);\n/);
  }
});

/** Stand-ins for the CUDA built-ins the programs use, enough for g++ to type-check them. */
const SHIM = String.raw`
#include <math.h>
#include <string.h>
#define __global__
#define __device__
#define __forceinline__ inline
#define PT_NOINLINE __attribute__((noinline))
#define __shared__ static
#define __launch_bounds__(...)
struct pt_dim3 { unsigned x, y, z; };
extern pt_dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);
double __shfl_down_sync(unsigned mask, double v, int delta);
long long __shfl_down_sync(unsigned mask, long long v, int delta);
template <class T, class U> static T pt_bits(U u) { T t; memcpy(&t, &u, sizeof t); return t; }
static float __int_as_float(int x) { return pt_bits<float>(x); }
static float __uint_as_float(unsigned x) { return pt_bits<float>(x); }
static unsigned __float_as_uint(float x) { return pt_bits<unsigned>(x); }
static double __longlong_as_double(long long x) { return pt_bits<double>(x); }
static long long __double_as_longlong(double x) { return pt_bits<long long>(x); }
static unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fmul_rn(float a, float b) { return a * b; }
static float __fdiv_rn(float a, float b) { return a / b; }
static float __fsqrt_rn(float a) { return sqrtf(a); }
static double __dadd_rn(double a, double b) { return a + b; }
static double __dsub_rn(double a, double b) { return a - b; }
static double __dmul_rn(double a, double b) { return a * b; }
static double __ddiv_rn(double a, double b) { return a / b; }
static double __dsqrt_rn(double a) { return sqrt(a); }
unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected, unsigned long long value);
unsigned long long atomicMin(unsigned long long *p, unsigned long long value);
`;

testUnless(
  hasGxx() ? null : "g++ not found, so no C++ syntax check (NVRTC compiles these on the GPU machine)",
  "cuda: every program compiles as C++ against a stand-in for the CUDA built-ins (g++)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "pt-cuda-"));
    try {
      writeFileSync(join(dir, "shim.h"), SHIM);
      const programs: [string, string][] = Object.keys(CUDA_TEMPLATES).map((k) => [k, cudaTemplateSource(k)]);
      programs.push(["ew_mixed", cudaElementwiseSource(mixed(), 2)]);
      for (const op of Object.keys(UNARY) as UnaryOp[]) {
        for (const dt of COMPUTE) {
          if (!(dt.startsWith("int") && FLOAT_ONLY_UNARY.has(op))) programs.push([`ew_${op}_${dt}`, unarySource(op, dt)]);
        }
      }
      for (const op of Object.keys(BINARY) as BinaryOp[]) {
        for (const dt of COMPUTE.filter((d) => binaryDefined(op, d))) programs.push([`ew_${op}_${dt}`, binarySource(op, dt)]);
      }
      programs.push(...ewReduceCases());
      // One translation unit for all: each program in a namespace of its own, with pt_main
      // renamed (extern "C" names ignore namespaces); the preamble's macros repeat verbatim.
      const unit = programs.map(([name, src], i) =>
        `namespace p${i} { /* ${name} */\n#define pt_main pt_main_${i}\n${src.replace(/\0$/, "")}\n#undef pt_main\n}\n`
      );
      const file = join(dir, "programs.cu");
      writeFileSync(file, `#include "shim.h"\n${unit.join("")}`);
      const flags = [
        "-std=c++17",
        "-fsyntax-only",
        "-Wall",
        "-Wno-unknown-pragmas",
        "-Wno-unused-function",
        "-Wno-unused-variable",
        "-Wno-unused-but-set-variable",
      ];
      const result = spawnSync("g++", [...flags, "-x", "c++", file], { encoding: "utf8" });
      assert.equal(result.status, 0, `g++ rejected a program:\n${(result.stderr ?? "").slice(0, 4000)}`);
      assert.equal(result.stderr ?? "", "", `g++ warned:\n${(result.stderr ?? "").slice(0, 4000)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("cuda: an elementwise block that cannot fit pt_params is refused when rendered", () => {
  let e: Expr = load(0, "float32");
  for (let i = 1; i < 19; i++) e = binary("add", e, load(i, "float32"), "float32");
  assert.ok(cudaElementwiseSource(e, 19).includes("pt_main"), "19 inputs fit (20 views of 11 slots)");
  let f: Expr = load(0, "float32");
  for (let i = 1; i < 20; i++) f = binary("add", f, load(i, "float32"), "float32");
  assert.throws(() => cudaElementwiseSource(f, 20), /argument slots/);
  const c = (index: number): Expr => ({ k: "const", index, dtype: "float32" });
  assert.throws(() => cudaElementwiseSource(binary("add", load(0, "float32"), c(300), "float32"), 1), /argument slots/);
});

/**
 * Runs an elementwise program as C++ on the CPU: every thread of a 3-block grid in turn
 * (thread 0 of a block first, so the general path's shared-memory setup precedes its use).
 * Views are 1-D: `views[v]` = [dtype code, offset, bytes of buffer]; inputs get `data`.
 */
function runOnCpu(dir: string, name: string, src: string, n: number, views: number[][], consts: number[], data: Uint8Array[]): Uint8Array {
  const driver = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"
pt_dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads() {}
unsigned long long atomicCAS(unsigned long long *p, unsigned long long e, unsigned long long v) { unsigned long long o = *p; if (o == e) *p = v; return o; }
#include "${name}.cu"
static const long long views[][3] = {${views.map((v) => `{${v.join(", ")}}`).join(", ")}};
static const double consts[] = {0${consts.map((c) => `, ${c}`).join("")}};
int main() {
  const int nv = ${views.length}, nc = ${consts.length};
  static pt_params P;
  static unsigned long long err[4];
  P.err = (unsigned long long)err;
  P.a[0] = 1, P.a[1] = ${n};
  for (int d = 1; d < 8; d++) P.a[1 + d] = 1;
  P.a[9] = nv;
  for (int v = 0; v < nv; v++) {
    char *b = (char *)calloc(1, views[v][2] + 64);
    if (v > 0 && fread(b, 1, views[v][2], stdin) != (size_t)views[v][2]) return 3;
    P.buf[v] = (unsigned long long)b;
    double *w = &P.a[10 + 11 * v];
    w[0] = v, w[1] = views[v][0], w[2] = views[v][1], w[3] = 1;
  }
  P.a[10 + 11 * nv] = nc;
  for (int c = 0; c < nc; c++) P.a[11 + 11 * nv + c] = consts[c + 1];
  gridDim.x = 3, blockDim.x = PT_BLOCK;
  for (blockIdx.x = 0; blockIdx.x < 3; blockIdx.x++)
    for (threadIdx.x = 0; threadIdx.x < PT_BLOCK; threadIdx.x++) pt_main(P);
  fwrite((char *)P.buf[0], 1, views[0][2], stdout);
  return err[0] ? 4 : 0;
}
`;
  writeFileSync(join(dir, `${name}.cu`), src.replace(/\0$/, ""));
  writeFileSync(join(dir, `${name}.cc`), driver);
  const exe = join(dir, name);
  const cc = spawnSync("g++", ["-std=c++17", "-O1", "-w", "-x", "c++", join(dir, `${name}.cc`), "-o", exe, "-lm"], { encoding: "utf8" });
  assert.equal(cc.status, 0, `g++ failed on ${name}:\n${(cc.stderr ?? "").slice(0, 3000)}`);
  const input = new Uint8Array(data.reduce((s, d) => s + d.length, 0));
  data.reduce((at, d) => (input.set(d, at), at + d.length), 0);
  const run = spawnSync(exe, [], { input, maxBuffer: 1 << 24 });
  assert.equal(run.status, 0, `${name} exited with ${run.status}`);
  return new Uint8Array(run.stdout);
}

test("cuda: an ewreduce program rendered for one op is the every-op program with that op fixed, keyed by op", () => {
  const expr = binary("mul", load(0, "float32"), load(1, "float32"), "float32");
  const generic = cudaElementwiseReduceSource(expr, 2);
  const line = "const int op = int(PT_A(PT_EWREDUCE_OP));";
  assert.equal(generic.split(line).length, 2, "the every-op program reads its op once, from the block");
  const keys = new Set<string>();
  for (let op = 0; op < 12; op++) {
    const prog = cudaRenderer.elementwiseReduce!(expr, 2, op);
    const src = new TextDecoder().decode(prog.source).replace(/\0$/, "");
    assert.equal(src, generic.replace(line, `const int op = ${op} /* rendered for this op alone */;`), `op ${op}`);
    keys.add(prog.key);
  }
  assert.equal(keys.size, 12, "one program per op");
});

testUnless(
  hasGxx() ? null : "g++ not found, so no CPU run of the linear-layout programs",
  "cuda: a linear-layout program computes what the general program computes (both run as C++ on the CPU)",
  () => {
    const code = { float32: 0, float16: 1, float64: 3, int32: 4, int64: 5, uint8: 6, int8: 8, int16: 9 } as const;
    const size = { float32: 4, float16: 2, float64: 8, int32: 4, int64: 8, uint8: 1, int8: 1, int16: 2 } as const;
    const c0: Expr = { k: "const", index: 0, dtype: "float32" };
    const idx: Expr = cast({ k: "index", dtype: "int32" }, "float32");
    const cases: { name: string; expr: Expr; dtypes: (keyof typeof code)[] }[] = [
      {
        name: "add_f32",
        expr: binary("add", load(0, "float32"), load(1, "float32"), "float32"),
        dtypes: ["float32", "float32", "float32"],
      },
      {
        name: "f16_index_to_u8",
        expr: cast(binary("add", binary("mul", cast(load(0, "float16"), "float32"), c0, "float32"), idx, "float32"), "uint8"),
        dtypes: ["uint8", "float16"],
      },
      {
        name: "i64_floor_div_to_f64",
        expr: cast(binary("div", load(0, "int64"), cast(load(1, "int32"), "int64"), "int64"), "float64"),
        dtypes: ["float64", "int64", "int32"],
      },
      {
        name: "i8_times_i16_to_i8",
        expr: cast(binary("mul", cast(load(0, "int8"), "int32"), cast(load(1, "int16"), "int32"), "int32"), "int8"),
        dtypes: ["int8", "int8", "int16"],
      },
      { name: "f32_to_i16", expr: cast(load(0, "float32"), "int16"), dtypes: ["int16", "float32"] },
      {
        name: "i16_to_f32",
        expr: binary("add", cast(load(0, "int16"), "float32"), cast(load(1, "int8"), "float32"), "float32"),
        dtypes: ["float32", "int16", "int8"],
      },
    ];
    const dir = mkdtempSync(join(tmpdir(), "pt-cuda-lin-"));
    try {
      writeFileSync(join(dir, "shim.h"), SHIM);
      for (const c of cases) {
        for (const [n, offset] of [[1000, 0], [1003, 0], [999, 5], [3, 0], [700, 5], [768, 0]]) { // the grid is 768 threads
          const views = c.dtypes.map((d) => [code[d], offset, (n + offset) * size[d]]);
          const data = c.dtypes.slice(1).map((d, k) => {
            const bytes = new Uint8Array((n + offset) * size[d]);
            if (d === "int64") new BigInt64Array(bytes.buffer).forEach((_, i, a) => a[i] = BigInt((i * 7919 + k) % 211 - 100));
            else if (d === "int32") new Int32Array(bytes.buffer).forEach((_, i, a) => a[i] = (i * 31 + k) % 17 - 8 || 3); // never 0: a divisor
            else if (d === "float32") new Float32Array(bytes.buffer).forEach((_, i, a) => a[i] = Math.sin(i + k) * 100);
            else if (d === "float16") new Uint16Array(bytes.buffer).forEach((_, i, a) => a[i] = 0x3c00 + ((i * 37) & 0x7ff) - 0x400);
            else if (d === "int8") new Int8Array(bytes.buffer).forEach((_, i, a) => a[i] = ((i * 37 + k) % 256) - 128);
            else if (d === "int16") new Int16Array(bytes.buffer).forEach((_, i, a) => a[i] = ((i * 7919 + k) % 65536) - 32768);
            return bytes;
          });
          const general = runOnCpu(dir, `g_${c.name}`, cudaElementwiseSource(c.expr, c.dtypes.length - 1), n, views, [3.5], data);
          const prog = cudaRenderer.elementwiseLinear!(c.expr, c.dtypes.length - 1, c.dtypes.map((d) => code[d]));
          assert.ok(prog.key.startsWith(`cuda:L${c.dtypes.map((d) => code[d]).join(".")}:`), prog.key);
          const linear = runOnCpu(dir, `l_${c.name}`, decode(prog.source), n, views, [3.5], data);
          assert.equal(linear.length, general.length);
          const first = linear.findIndex((b, i) => b !== general[i]);
          assert.equal(first, -1, `${c.name} n=${n} offset=${offset}: byte ${first} differs`);
          assert.ok(general.some((b) => b !== 0), `${c.name}: the output was written`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

testUnless(
  hasGxx() ? null : "g++ not found, so no CPU run of integer pow",
  "cuda: integer pow with a negative exponent truncates as PyTorch's powi (run as C++ on the CPU)",
  () => {
    // PyTorch's powi for e < 0: 1 for base 1, +-1 by parity for base -1, 0 for every other base
    const bases = [2, 1, -1, 0, -2, 3, -1, 1, 0, 7, -1, -1, -7, 5];
    const exps = [-1, -1, -1, -1, -1, 0, -2, -3, -2, 2, -2147483648, -2147483647, 3, -1];
    const expect = [0, 1, -1, 0, 0, 1, 1, 1, 0, 49, 1, -1, -343, 0];
    const n = bases.length;
    const dir = mkdtempSync(join(tmpdir(), "pt-cuda-ipow-"));
    try {
      writeFileSync(join(dir, "shim.h"), SHIM);
      for (const [dt, code, size] of [["int32", 4, 4], ["int64", 5, 8]] as const) {
        const pack = (xs: number[]) => bytesOf(code, xs);
        const src = cudaElementwiseSource(binary("pow", load(0, dt), load(1, dt), dt), 2);
        const views = [[code, 0, n * size], [code, 0, n * size], [code, 0, n * size]];
        const out = runOnCpu(dir, `ipow_${dt}`, src, n, views, [], [pack(bases), pack(exps)]);
        const got = dt === "int32" ? [...new Int32Array(out.buffer, 0, n)] : [...new BigInt64Array(out.buffer, 0, n)].map(Number);
        assert.deepEqual(got, expect, dt);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** The dtype code of E for an ewreduce program: its STORE's ctype (f32, f64, i32, i64). */
const E_DTYPE = [0, 3, 4, 5];
const CODE_SIZE = [4, 2, 2, 8, 4, 8, 1, 1];

/** A strided input of an ewreduce case: its dtype code, offset and strides over E's shape, and its buffer. */
interface EwInput {
  dt: number;
  offset: number;
  strides: number[];
  bytes: Uint8Array;
}

/** blocks.h's VIEW: [buf, dtype, offset, stride x8]. */
const viewSlots = (buf: number, dt: number, offset: number, strides: readonly number[]) => [
  buf,
  dt,
  offset,
  ...Array.from({ length: 8 }, (_, d) => strides[d] ?? 0),
];
const pad8 = (xs: readonly number[], fill: number) => Array.from({ length: 8 }, (_, d) => xs[d] ?? fill);
const rowMajor = (shape: readonly number[]) => shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));

/** Values as the little-endian bytes of dtype code dt (float16: given as their bits). */
function bytesOf(dt: number, values: readonly number[]): Uint8Array {
  const b = new Uint8Array(values.length * CODE_SIZE[dt]);
  const v = new DataView(b.buffer);
  values.forEach((x, i) => {
    if (dt === 0) v.setFloat32(4 * i, x, true);
    else if (dt === 3) v.setFloat64(8 * i, x, true);
    else if (dt === 4) v.setInt32(4 * i, x, true);
    else if (dt === 5) v.setBigInt64(8 * i, BigInt(x), true);
    else if (dt === 1) v.setUint16(2 * i, x, true); // raw float16 bits
    else throw new Error(`bytesOf: dtype ${dt}`);
  });
  return b;
}

/**
 * Float values in [-1, 1) with pairs of huge ones that cancel exactly, so that a sum depends
 * on the order of its additions (the low bits of the small values are lost differently),
 * and a NaN now and then where `nans` asks for it.
 */
function orderSensitive(n: number, seed: number, nans = false): number[] {
  const r = rng(seed);
  const out = Array.from({ length: n }, () => Math.fround(2 * r() - 1));
  for (let k = 0; k < n / 64; k++) {
    const a = Math.floor(r() * n), b = Math.floor(r() * n);
    if (a === b) continue;
    out[a] = Math.fround(r() * 2 ** 40);
    out[b] = -out[a];
  }
  if (nans) { for (let k = 0; k < 3; k++) out[Math.floor(r() * n)] = NaN; }
  return out;
}

testUnless(
  hasGxx() ? null : "g++ not found, so no CPU run of the ewreduce programs",
  "cuda: an ewreduce program gives the reduce template's bits on the materialized expression (both run as C++ on the CPU)",
  () => {
    const R = { sum: 0, prod: 1, max: 2, min: 3, argmax: 4, argmin: 5, any: 6, all: 7, mean: 8, var: 9, std: 10, count: 11 };
    const F32 = 0, F64 = 3, I32 = 4, I64 = 5;
    const c0: Expr = { k: "const", index: 0, dtype: "float32" };
    const idx: Expr = { k: "index", dtype: "int32" };
    // [op, ddof, start, rows, rowlen]: rows of E rowlen apart from element start (blocks.h).
    type Geometry = [number, number, number, number, number];
    // Every op over whole rows, then rows from starts at every alignment, empty and short rows.
    const geometries = (numel: number, rowlen: number): Geometry[] => [
      ...[R.sum, R.mean, R.var, R.std, R.max, R.min, R.argmax, R.argmin, R.count, R.any, R.all, R.prod].map((op): Geometry => [
        op,
        1,
        0,
        numel / rowlen,
        rowlen,
      ]),
      [R.sum, 1, 5, 3, Math.floor((numel - 5) / 3)], // a misaligned start: rows with a head and a tail
      [R.sum, 1, 3, 1, numel - 3], // one row of all but the first elements (a split reduction's tail)
      [R.mean, 1, 7, 6, Math.floor((numel - 7) / 6) - 1],
      [R.var, 0, 1, 4, Math.floor((numel - 1) / 4) - 3],
      [R.std, 3, 2, 2, Math.floor((numel - 2) / 2)],
      [R.argmax, 1, 9, 5, 40],
      [R.max, 1, 9, 5, 40],
      [R.sum, 1, 0, 3, 0], // empty rows: the identity
      [R.max, 1, 0, 2, 0], // empty rows of max: an error
      [R.sum, 1, 11, 2, 3], // rows shorter than the head
      ...[R.sum, R.var, R.count, R.argmax].map((op): Geometry => [op, 1, 1, 1, numel - 1]), // long rows: every unrolled step
    ];
    const cases: { name: string; expr: Expr; shape: number[]; inputs: EwInput[]; consts: number[]; geometries: Geometry[] }[] = [];
    {
      // f32 products of contiguous inputs (linear), with the index in the expression
      const shape = [7, 1003], n = 7 * 1003;
      const x = orderSensitive(n, 1), y = orderSensitive(n, 2);
      const expr = binary(
        "add",
        binary("mul", load(0, "float32"), load(1, "float32"), "float32"),
        binary("mul", cast(idx, "float32"), c0, "float32"),
        "float32",
      );
      const inputs = [x, y].map((v) => ({ dt: F32, offset: 0, strides: rowMajor(shape), bytes: bytesOf(F32, v) }));
      cases.push({ name: "f32 x*y + i*c", expr, shape, inputs, consts: [1e-3], geometries: geometries(n, 1003) });
    }
    {
      // NaNs for max/min/argmax/argmin (the first NaN wins), through an offset view
      const shape = [5, 800], n = 4000;
      const x = orderSensitive(n + 3, 3, true);
      const expr = binary("maximum", load(0, "float32"), unary("neg", c0, "float32"), "float32");
      const inputs = [{ dt: F32, offset: 3, strides: rowMajor(shape), bytes: bytesOf(F32, x) }];
      const rows: Geometry[] = [R.max, R.min, R.argmax, R.argmin, R.sum, R.count].map((op) => [op, 1, 0, 5, 800]);
      cases.push({ name: "f32 NaNs", expr, shape, inputs, consts: [0.5], geometries: [...rows, [R.argmax, 1, 1, 3, 1333]] });
    }
    {
      // f64 squared deviations from a broadcast row mean: rows inside the last dim are affine,
      // rows across it need coordinates (pt_ew_coords)
      const shape = [6, 700], n = 4200;
      const x = orderSensitive(n, 4), m = orderSensitive(6, 5);
      const expr = unary("square", binary("sub", load(0, "float64"), load(1, "float64"), "float64"), "float64");
      const inputs = [
        { dt: F64, offset: 0, strides: [700, 1], bytes: bytesOf(F64, x) },
        { dt: F64, offset: 0, strides: [1, 0], bytes: bytesOf(F64, m) },
      ];
      cases.push({ name: "f64 (x - m)^2", expr, shape, inputs, consts: [], geometries: geometries(n, 700) });
    }
    {
      // f32 from float16 bits and a transposed input: strided, affine with a step of 300
      const shape = [4, 300], n = 1200;
      const h = Array.from({ length: n }, (_, i) => 0x3c00 + ((i * 37) & 0x7ff) - 0x400);
      const t = orderSensitive(n, 6);
      const expr = binary("mul", cast(load(0, "float16"), "float32"), load(1, "float32"), "float32");
      const inputs = [
        { dt: 1, offset: 0, strides: [300, 1], bytes: bytesOf(1, h) },
        { dt: F32, offset: 0, strides: [1, 4], bytes: bytesOf(F32, t) },
      ];
      const rows: Geometry[] = [[R.sum, 1, 0, 4, 300], [R.sum, 1, 1, 2, 599], [R.var, 1, 0, 4, 300], [R.mean, 1, 2, 3, 397]];
      cases.push({ name: "f16 * transposed f32", expr, shape, inputs, consts: [], geometries: rows });
    }
    {
      // integers: i32 sums wrap, i64 floor division; counts and arg positions
      const shape = [3, 1000], n = 3000;
      const r = rng(7);
      const a = Array.from({ length: n }, () => Math.floor(r() * 2 ** 31) - 2 ** 30);
      const b = Array.from({ length: n }, () => Math.floor(r() * 200) - 100 || 7);
      const i32 = binary("add", load(0, "int32"), load(1, "int32"), "int32");
      const inputs = [a, b].map((v) => ({ dt: I32, offset: 0, strides: rowMajor(shape), bytes: bytesOf(I32, v) }));
      cases.push({ name: "i32 x+y", expr: i32, shape, inputs, consts: [], geometries: geometries(n, 1000) });
      const i64 = binary("div", cast(load(0, "int32"), "int64"), load(1, "int64"), "int64");
      const inputs64 = [
        { dt: I32, offset: 0, strides: rowMajor(shape), bytes: bytesOf(I32, a) },
        { dt: I64, offset: 0, strides: rowMajor(shape), bytes: bytesOf(I64, b) },
      ];
      cases.push({ name: "i64 x//y", expr: i64, shape, inputs: inputs64, consts: [], geometries: geometries(n, 1000) });
    }
    {
      // comparisons: bool values are i32 0/1; and an expression of the index alone (no inputs)
      const shape = [4, 999], n = 3996;
      const x = orderSensitive(n, 8, true);
      const gt = binary("gt", load(0, "float32"), c0, "bool");
      const inputs = [{ dt: F32, offset: 0, strides: rowMajor(shape), bytes: bytesOf(F32, x) }];
      cases.push({ name: "bool x > c", expr: gt, shape, inputs, consts: [0.25], geometries: geometries(n, 999) });
      const ramp = binary("mul", cast(idx, "float32"), c0, "float32");
      cases.push({ name: "f32 i*c, no inputs", expr: ramp, shape, inputs: [], consts: [0.37], geometries: geometries(n, 999) });
    }

    // One C++ unit: the reduce template, then each case's ew and ewreduce programs, each in a
    // namespace with pt_main renamed; tools/cuda_emu runs a block as 256 fibers with real barriers.
    const outDtype = (op: number, eDt: number) =>
      op === R.argmax || op === R.argmin || op === R.count || op === R.any || op === R.all
        ? I64
        : eDt === F32 || eDt === F64 || op >= R.mean
        ? F64 // the accumulator's double, every bit of it
        : I64;
    const unit: string[] = [
      "#define PT_NOINLINE __attribute__((noinline))",
      '#include "shim.h"',
      `namespace red {\n#define pt_main pt_main_red\n${cudaTemplateSource("reduce")}\n#undef pt_main\n}`,
      "#undef PT_CUDA_MAX_SLOTS",
    ];
    const runs: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), "pt-cuda-ewr-"));
    try {
      cases.forEach((c, k) => {
        const words = encodeBytecode(c.expr, c.inputs.length);
        const eDt = E_DTYPE[words[words.length - 5]]; // STORE's ctype
        const numel = c.shape.reduce((a, b) => a * b, 1);
        const rank = c.shape.length;
        unit.push(
          `namespace ew${k} {\n#define pt_main pt_main_ew${k}\n${cudaElementwiseSource(c.expr, c.inputs.length)}\n#undef pt_main\n}`,
        );
        unit.push(
          `namespace er${k} {\n#define pt_main pt_main_er${k}\n${cudaElementwiseReduceSource(c.expr, c.inputs.length) // the program for every op (the block's)
          }\n#undef pt_main\n}`,
        );
        c.inputs.forEach((inp, v) => writeFileSync(join(dir, `in${k}_${v}.bin`), inp.bytes));
        const ins = c.inputs.map((inp, v) => `load("${join(dir, `in${k}_${v}.bin`)}", ${inp.bytes.length})`);
        const ewBlock = [rank, ...pad8(c.shape, 1), c.inputs.length + 1, ...viewSlots(0, eDt, 0, rowMajor(c.shape))];
        c.inputs.forEach((inp, v) => ewBlock.push(...viewSlots(v + 1, inp.dt, inp.offset, inp.strides)));
        ewBlock.push(c.consts.length, ...c.consts);
        const lines = [
          `  { /* ${c.name} */`,
          `    std::vector<void *> ins = {${ins.join(", ")}};`,
          `    char *E = (char *)aligned_alloc(256, ${Math.ceil((numel * CODE_SIZE[eDt] + 1) / 256) * 256});`,
          `    long long err[4] = {0, 0, 0, 0};`,
          `    std::vector<void *> bufs = {E};`,
          `    bufs.insert(bufs.end(), ins.begin(), ins.end());`,
          `    { ew${k}::pt_params p; fill(p, {${ewBlock}}, bufs, err); emu_launch(ew${k}::pt_main_ew${k}, p, ${
            Math.min(Math.ceil(numel / 256), 4)
          }); }`,
          `    if (err[0]) printf("ew ${k} failed: %lld\\n", err[0]);`,
        ];
        c.geometries.forEach(([op, ddof, start, rows, rowlen], g) => {
          const od = outDtype(op, eDt);
          const red = [op, ddof, 1, ...pad8([rows], 1), 1, ...pad8([rowlen], 1), ...viewSlots(0, eDt, start, [rowlen])];
          red.push(...pad8([1], 0), ...viewSlots(1, od, 0, [1]));
          const er = [op, ddof, rank, ...pad8(c.shape, 1), start, rows, rowlen, c.inputs.length + 1, ...viewSlots(0, od, 0, [1])];
          c.inputs.forEach((inp, v) => er.push(...viewSlots(v + 1, inp.dt, inp.offset, inp.strides)));
          er.push(c.consts.length, ...c.consts);
          const grid = Math.min(rows, 2); // fewer blocks than rows: the row loop strides
          lines.push(`    compare(${k}, ${g}, ${rows * 8}, [&](char *out, long long *e) {
      red::pt_params p; fill(p, {${red}}, {E, out}, e); emu_launch(red::pt_main_red, p, ${grid});
    }, [&](char *out, long long *e) {
      std::vector<void *> b = {out};
      b.insert(b.end(), ins.begin(), ins.end());
      er${k}::pt_params p; fill(p, {${er}}, b, e); emu_launch(er${k}::pt_main_er${k}, p, ${grid});
    });`);
        });
        lines.push("  }");
        runs.push(lines.join("\n"));
      });
      unit.push(String.raw`#include "run.h"
#include <functional>
#include <vector>
static void *load(const char *path, long n) {
  FILE *f = fopen(path, "rb");
  char *b = (char *)calloc(1, n + 64);
  if (!f || fread(b, 1, n, f) != (size_t)n) { fprintf(stderr, "cannot read %s\n", path); exit(3); }
  fclose(f);
  return b;
}
template <class P> static void fill(P &p, std::vector<double> a, std::vector<void *> bufs, long long *err) {
  memset(&p, 0, sizeof p);
  if (a.size() > sizeof p.a / sizeof p.a[0]) { fprintf(stderr, "block of %zu slots\n", a.size()); exit(3); }
  for (size_t i = 0; i < a.size(); i++) p.a[i] = a[i];
  for (size_t i = 0; i < bufs.size(); i++) p.buf[i] = (unsigned long long)bufs[i];
  p.nargs = (int)a.size(), p.nbuf = (int)bufs.size(), p.err = (unsigned long long)err;
}
/* One line per geometry: case, geometry, then each kernel's error code and output bytes. */
static void compare(int k, int g, int bytes, std::function<void(char *, long long *)> a, std::function<void(char *, long long *)> b) {
  std::vector<char> x(bytes + 8, (char)0xcd), y(bytes + 8, (char)0xcd);
  long long ea[4] = {0, 0, 0, 0}, eb[4] = {0, 0, 0, 0};
  a(x.data(), ea);
  b(y.data(), eb);
  printf("%d %d %lld ", k, g, ea[0]);
  for (int i = 0; i < bytes; i++) printf("%02x", (unsigned char)x[i]);
  printf(" %lld ", eb[0]);
  for (int i = 0; i < bytes; i++) printf("%02x", (unsigned char)y[i]);
  printf("\n");
}
int main() {
${runs.join("\n")}
  return 0;
}
`);
      const lines = runEmulated(dir, "ewreduce", unit.join("\n"));
      assert.equal(lines.length, cases.reduce((s, c) => s + c.geometries.length, 0), lines.slice(0, 20).join("\n"));
      for (const line of lines) {
        const [k, g, errA, outA, errB, outB] = line.split(" ");
        const c = cases[Number(k)], [op, ddof, start, rows, rowlen] = c.geometries[Number(g)];
        const what = `${c.name}: op ${op} ddof ${ddof}, ${rows} rows of ${rowlen} from ${start}`;
        assert.equal(errB, errA, `${what}: error code`);
        assert.equal(outB, outA, `${what}: the fused result differs from the reduce template's`);
        if (errA === "0") assert.ok(!outA.includes("cdcdcdcd"), `${what}: every row was written`);
        else assert.ok(op === R.max && rowlen === 0, `${what}: unexpected error ${errA}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test("every error report is spelled pt_fail(p.err, or PT_FAIL(PT_KERR_, so the driver knows which programs can set the word", () => {
  const sources: [string, string][] = Object.keys(CUDA_TEMPLATES).map((n) => [n, cudaTemplateSource(n)]);
  sources.push(["int_div", binarySource("div", "int32")], ["int_mod", binarySource("mod", "int64")], ...ewReduceCases());
  const count = (src: string, re: RegExp) => (src.match(re) ?? []).length;
  for (const [name, src] of sources) {
    // every call of either form, less the function's definition and the macro's definition and body
    const calls = count(src, /pt_fail\(/g) - count(src, /void pt_fail\(/g) - count(src, /pt_fail\(\(p\)\.err,/g) +
      count(src, /PT_FAIL\(/g) - count(src, /#define PT_FAIL\(/g);
    const spelled = count(src, /pt_fail\(p\.err,|PT_FAIL\(PT_KERR_/g);
    assert(
      calls === spelled,
      `${name}: ${calls} error reports, ${spelled} spelled pt_fail(p.err, or PT_FAIL(PT_KERR_ (native/src/backends/cuda/program.c looks for them)`,
    );
  }
  assert.match(cudaTemplateSource("gather"), /PT_FAIL\(PT_KERR_INDEX/, "a template's report through the macro");
  for (const [name, src] of [["int_div", binarySource("div", "int32")], ["index_get", cudaTemplateSource("index_get")]]) {
    assert(/pt_fail\(p\.err,|PT_FAIL\(PT_KERR_/.test(src), `${name} can fail, but its source spells no report`);
  }
  const add = binarySource("add", "float32");
  assert(!/pt_fail\(p\.err|PT_FAIL\(PT_KERR_/.test(add), "a float add reports nothing, so its syncs skip the word");
});
