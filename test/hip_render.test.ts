/**
 * The HIP renderer's output, checked without a GPU: every template and elementwise program
 * renders, is the CUDA renderer's program with exactly HIP's documented rewrites, and carries
 * cuda/params.h's struct verbatim (the HIP build of the driver shares that header). hiprtc is not on the machines that run this suite; where
 * g++ exists each source is compiled as C++ against a small header that stands in for HIP's
 * built-ins, and the hip-on-cuda form (PT_CUDA_KERNELS=hip, which the GPU machine runs
 * through NVRTC) against one that stands in for CUDA's.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kindOf } from "../src/kernels/launch.ts";
import { binary, cast, COMPARES, COMPUTE, decode, KINDS, load, mixed, NAMES, PREDICATES, unary } from "./render_common.ts";
import { assert, test, testUnless } from "./harness.ts";
import { BINARY, binaryDefined, type BinaryOp, type Expr, FLOAT_ONLY_UNARY, UNARY, type UnaryOp } from "../src/kernels/ir.ts";
import { cudaElementwiseReduceSource, cudaElementwiseSource, cudaRenderer, cudaTemplateSource } from "../src/kernels/cuda.ts";
import {
  cudaKernels,
  HIP_TEMPLATES,
  hipElementwiseReduceSource,
  hipElementwiseSource,
  hipOnCudaRenderer,
  hipRenderer,
  hipTemplateSource,
  registerHipRenderers,
} from "../src/kernels/hip.ts";
import { CUDA_BOUNDS, CUDA_FIRST_LINE, CUDA_KERNEL, HIP_KERNEL, HIP_PART } from "../src/kernels/hip/preamble.ts";
import { HIP_ON_CUDA } from "../src/kernels/hip/cuda_compat.ts";
import type { DType } from "../src/base/dtype.ts";

const unaryExpr = (op: UnaryOp, dt: DType) => unary(op, load(0, dt), PREDICATES.has(op) ? "bool" : dt);
const binaryExpr = (op: BinaryOp, dt: DType) => binary(op, load(0, dt), load(1, dt), COMPARES.has(op) ? "bool" : dt);

/** Every elementwise expression the suite renders: each op on each compute type it has. */
function elementwiseCases(): [string, Expr, number][] {
  const out: [string, Expr, number][] = [["mixed", mixed(), 2]];
  for (const op of Object.keys(UNARY) as UnaryOp[]) {
    for (const dt of COMPUTE) if (!(dt.startsWith("int") && FLOAT_ONLY_UNARY.has(op))) out.push([`${op}_${dt}`, unaryExpr(op, dt), 1]);
  }
  for (const op of Object.keys(BINARY) as BinaryOp[]) {
    for (const dt of COMPUTE.filter((d) => binaryDefined(op, d))) out.push([`${op}_${dt}`, binaryExpr(op, dt), 2]);
  }
  return out;
}

/** The HIP text with HIP's rewrites undone: must give the CUDA text back, less CUDA's launch bounds. */
function undo(hip: string): string {
  assert.ok(hip.startsWith(HIP_PART), "starts with the HIP part");
  return CUDA_FIRST_LINE + hip.slice(HIP_PART.length).replace(HIP_KERNEL, CUDA_KERNEL);
}
const unbounded = (cuda: string) => cuda.replace(CUDA_BOUNDS, "");

/** HIP's launch bounds, once, on the first declaration of pt_main; no other bounds. */
function checkBounds(src: string, name: string): void {
  assert.equal(src.match(/__launch_bounds__/g)?.length, 1, `${name}: one __launch_bounds__`);
  assert.ok(
    src.indexOf(HIP_KERNEL) >= 0 && src.indexOf(HIP_KERNEL) === src.indexOf("pt_main(") - HIP_KERNEL.indexOf("pt_main("),
    `${name}: the bounds are on the first pt_main`,
  );
}

test("hip: every template kind of blocks.h renders one pt_main with HIP's launch bounds", () => {
  assert.deepEqual([...HIP_TEMPLATES].sort(), [...NAMES].sort());
  for (const kind of NAMES) {
    const prog = hipRenderer.template(kind);
    assert.equal(prog.kind, kindOf(kind));
    assert.equal(prog.key, `hip:t:${kind}`);
    assert.equal(prog.source[prog.source.length - 1], 0, "sources end with a NUL byte");
    const src = decode(prog.source).replace(/\0$/, "");
    assert.equal(src, hipTemplateSource(kind));
    checkBounds(src, kind);
    assert.ok(!src.includes("NVRTC"), `${kind}: no CUDA compiler named`);
    assert.ok(!/#include/.test(src), "no includes: hiprtc pre-includes HIP's runtime header");
    assert.equal(undo(src), unbounded(cudaTemplateSource(kind)), `${kind}: the CUDA program plus HIP's rewrites only`);
    assert.deepEqual(hipRenderer.template(kind), prog, "the same program again (renderers cache nothing: the device does)");
  }
  assert.throws(() => hipTemplateSource("fft"), /no template "fft"/);
  assert.throws(() => hipRenderer.template("fft"), /no template "fft"/);
});

test("hip: every elementwise op renders, as the CUDA program plus HIP's rewrites", () => {
  for (const [name, expr, n] of elementwiseCases()) {
    const src = hipElementwiseSource(expr, n);
    assert.ok(src.startsWith(HIP_PART), name);
    checkBounds(src, name);
    assert.match(src, /pt_ew_st_\w+\(vb0, dt0, q0, t\d+\);/, `${name} stores`);
    assert.equal(undo(src), unbounded(cudaElementwiseSource(expr, n)), name);
  }
  for (const op of FLOAT_ONLY_UNARY) assert.throws(() => hipElementwiseSource(unaryExpr(op, "int32"), 1), /needs a float ctype/);
  assert.match(hipElementwiseSource(binaryExpr("div", "int64"), 2), /PT_KERR_INT_DIV/);
  assert.match(hipElementwiseSource(binaryExpr("add", "float32"), 2), /pt_add\(t0, t1\)/, "float add rounds once");
});

/** ewreduce programs: E of each compute type (integer errors included) and none of the inputs. */
function ewReduceCases(): [string, Expr, number][] {
  const out: [string, Expr, number][] = [["mixed", cast(mixed(), "float32"), 2]];
  for (const dt of COMPUTE) out.push([`div_${dt}`, binaryExpr("div", dt), 2], [`lt_${dt}`, binaryExpr("lt", dt), 2]);
  out.push(["index", cast({ k: "index", dtype: "int64" }, "float64"), 0]);
  return out;
}

test("hip: ewreduce programs render, as the CUDA program plus HIP's rewrites, keyed apart from CUDA's", () => {
  for (const [name, expr, n] of ewReduceCases()) {
    const src = hipElementwiseReduceSource(expr, n, 0); // the renderer's programs are for one op
    checkBounds(src, name);
    assert.equal(undo(src), unbounded(cudaElementwiseReduceSource(expr, n, 0)), name);
    const prog = hipRenderer.elementwiseReduce!(expr, n, 0);
    assert.equal(prog.kind, "ewreduce");
    assert.equal(decode(prog.source), `${src}\0`, name);
    assert.equal(prog.key, cudaRenderer.elementwiseReduce!(expr, n, 0).key.replace(/^cuda:/, "hip:"));
    assert.deepEqual(hipRenderer.elementwiseReduce!(expr, n, 0), prog, "the same program again (renderers cache nothing: the device does)");
    assert.equal(decode(hipOnCudaRenderer.elementwiseReduce!(expr, n, 0).source), `${HIP_ON_CUDA}${src}\0`);
  }
});

test("hip: one structure gives one source and key; keys are apart from CUDA's", () => {
  const add = () => binary("add", load(0, "float32"), load(1, "float32"), "float32");
  const a = hipRenderer.elementwise(add(), 2), b = hipRenderer.elementwise(add(), 2);
  assert.deepEqual(a, b, "the same program again (renderers cache nothing: the device does)");
  assert.equal(a.kind, "ew");
  assert.ok(a.key.startsWith("hip:"), a.key);
  const keys = new Set([
    a.key,
    hipRenderer.elementwise(binary("sub", load(0, "float32"), load(1, "float32"), "float32"), 2).key,
    hipRenderer.elementwise(binary("add", load(0, "float64"), load(1, "float64"), "float64"), 2).key,
    hipRenderer.elementwise(add(), 3).key,
    hipOnCudaRenderer.elementwise(add(), 2).key,
  ]);
  assert.equal(keys.size, 5);
  const onCuda = decode(hipOnCudaRenderer.elementwise(add(), 2).source);
  assert.equal(onCuda, `${HIP_ON_CUDA}${decode(a.source)}`, "hip-on-cuda = the compat header + the HIP program");
  assert.equal(hipOnCudaRenderer.template("sort").key, "hip-on-cuda:t:sort");
});

test("hip: sources carry cuda/params.h's pt_params struct, limits and error codes verbatim", () => {
  const header = readFileSync(new URL("../native/src/backends/cuda/params.h", import.meta.url), "utf8");
  const struct = header.match(/typedef struct \{[\s\S]*?\} pt_params;/);
  assert.ok(struct, "params.h defines pt_params");
  const limits: string[] = header.match(/#define PT_CUDA_MAX_\w+ \d+/g) ?? [];
  const codes: string[] = header.match(/#define PT_KERR_\w+ \d+[^\n]*/g) ?? [];
  assert.equal(limits.length, 2);
  assert.ok(codes.length >= 3, "params.h defines the error codes");
  for (const src of [hipElementwiseSource(mixed(), 2), ...KINDS.map(hipTemplateSource)]) {
    assert.ok(src.includes(struct[0]), "struct text");
    for (const text of [...limits, ...codes]) assert.ok(src.includes(text), `${text}`);
  }
});

test("hip: PT_CUDA_KERNELS=hip registers the HIP renderer for the CUDA device too", () => {
  const saved = process.env.PT_CUDA_KERNELS;
  const registered = (value: string | undefined) => {
    if (value === undefined) delete process.env.PT_CUDA_KERNELS;
    else process.env.PT_CUDA_KERNELS = value;
    const got: [string, unknown][] = [];
    registerHipRenderers((language, r) => got.push([language, r]));
    return got;
  };
  try {
    assert.deepEqual(registered(undefined), [["hip", hipRenderer]]);
    assert.deepEqual(registered("cuda"), [["hip", hipRenderer]]);
    assert.deepEqual(registered("HIP"), [["hip", hipRenderer], ["cuda", hipOnCudaRenderer]]);
    assert.equal(cudaKernels(), "hip");
    assert.throws(() => registered("rocm"), /PT_CUDA_KERNELS="rocm": expected "cuda" \(the default\) or "hip"/);
  } finally {
    if (saved === undefined) delete process.env.PT_CUDA_KERNELS;
    else process.env.PT_CUDA_KERNELS = saved;
  }
});

/** Host-side stand-ins for the device built-ins the programs use, enough for g++ to type-check them. */
const COMMON = String.raw`
#include <math.h>
#include <string.h>
#define __global__
#define __device__
#define __forceinline__ inline
#define PT_NOINLINE __attribute__((noinline))
#define __shared__ static
#define __launch_bounds__(n)
struct pt_dim3 { unsigned x, y, z; };
extern pt_dim3 threadIdx, blockIdx, blockDim, gridDim;
extern int warpSize;
void __syncthreads();
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
/** hiprtc defines __HIP__ and declares HIP's maskless cross-lane intrinsics; the driver passes the wave size. */
const HIP_SHIM = String.raw`#define __HIP__ 1
#define PT_WAVE_SIZE 64
${COMMON}
template <class T> T __shfl(T v, int lane, int w = 64);
template <class T> T __shfl_up(T v, unsigned d, int w = 64);
template <class T> T __shfl_down(T v, unsigned d, int w = 64);
template <class T> T __shfl_xor(T v, int m, int w = 64);
unsigned long long __ballot(int p);
unsigned __lane_id();
void __builtin_amdgcn_fence(int order, const char *scope);
void __builtin_amdgcn_wave_barrier();
`;
/** NVRTC for sm_90: CUDA's masked cross-lane intrinsics, which the compat header maps onto. */
const CUDA_SHIM = String.raw`${COMMON}
#define __CUDA_ARCH__ 900
template <class T> T __shfl_sync(unsigned mask, T v, int lane, int w = 32);
template <class T> T __shfl_up_sync(unsigned mask, T v, unsigned d, int w = 32);
template <class T> T __shfl_down_sync(unsigned mask, T v, unsigned d, int w = 32);
template <class T> T __shfl_xor_sync(unsigned mask, T v, int m, int w = 32);
unsigned __ballot_sync(unsigned mask, int p);
int __any_sync(unsigned mask, int p);
int __all_sync(unsigned mask, int p);
void __syncwarp(unsigned mask = 0xffffffffu);
/* CUDA 12 still declares its deprecated maskless forms, with CUDA's return types. */
unsigned __ballot(int p);
int __any(int p);
int __all(int p);
int __shfl(int v, int lane, int w = 32);
int __shfl_up(int v, unsigned d, int w = 32);
int __shfl_down(int v, unsigned d, int w = 32);
int __shfl_xor(int v, int m, int w = 32);
`;
/** Uses every CUDA warp spelling the HIP part maps, so g++ instantiates the whole chain. */
const LANES = String.raw`
static __device__ double pt_probe_lanes(double v, long long i) {
  v += __shfl_sync(0xffffffffu, v, 0) + __shfl_up_sync(0xffffffffu, v, 1) + __shfl_xor_sync(0xffffffffu, v, 1);
  i += __shfl_down_sync(0xffffffffu, i, 16);
  __syncwarp();
  const unsigned b = __ballot_sync(0xffffffffu, v > 0);
  return v + (double)(i + b + __any_sync(0xffffffffu, 1) + __all_sync(0xffffffffu, 0) + PT_WAVE_SIZE);
}
`;

function hasGxx(): boolean {
  try {
    return spawnSync("g++", ["--version"], { encoding: "utf8" }).status === 0;
  } catch {
    return false;
  }
}

/** The HIP part's and the compat header's macros, which would leak into the next program of one unit. */
const UNDEF = ["__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync"]
  .concat(["__all_sync", "__syncwarp", "__builtin_amdgcn_wave_barrier", "__builtin_amdgcn_fence", "__shfl", "__shfl_up"])
  .concat(["__shfl_down", "__shfl_xor", "__ballot", "__any", "__all", "__lane_id"])
  .map((m) => `#undef ${m}\n`).join("");

/** Compiles the programs as one C++ unit (each in a namespace of its own) after shim. */
function gxx(shim: string, programs: [string, string][]): void {
  const dir = mkdtempSync(join(tmpdir(), "pt-hip-"));
  try {
    writeFileSync(join(dir, "shim.h"), shim);
    const unit = programs.map(([name, src], i) =>
      `namespace p${i} { /* ${name} */\n#define pt_main pt_main_${i}\n${src}\n#undef pt_main\n${UNDEF}}\n`
    );
    const file = join(dir, "programs.cpp");
    writeFileSync(file, `#include "shim.h"\n${unit.join("")}`);
    const flags = ["-std=c++17", "-fsyntax-only", "-Wall", "-Wno-unknown-pragmas", "-Wno-unused-function"];
    flags.push("-Wno-unused-variable", "-Wno-unused-but-set-variable");
    const result = spawnSync("g++", [...flags, "-x", "c++", file], { encoding: "utf8" });
    assert.equal(result.status, 0, `g++ rejected a program:\n${(result.stderr ?? "").slice(0, 4000)}`);
    assert.equal(result.stderr ?? "", "", `g++ warned:\n${(result.stderr ?? "").slice(0, 4000)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

testUnless(
  hasGxx() ? null : "g++ not found, so no C++ syntax check (hiprtc, or NVRTC with PT_CUDA_KERNELS=hip, compiles these)",
  "hip: every program compiles as C++ against stand-ins for HIP's and (hip-on-cuda) CUDA's built-ins (g++)",
  () => {
    const programs: [string, string][] = KINDS.map((k) => [k, hipTemplateSource(k)]);
    for (const [name, expr, n] of elementwiseCases()) programs.push([`ew_${name}`, hipElementwiseSource(expr, n)]);
    for (const [name, expr, n] of ewReduceCases()) programs.push([`ewr_${name}`, hipElementwiseReduceSource(expr, n)]);
    programs.push(["lanes", HIP_PART + LANES]);
    gxx(HIP_SHIM, programs);
    gxx(CUDA_SHIM, programs.map(([name, src]) => [name, HIP_ON_CUDA + src]));
  },
);
