/**
 * Running CUDA C on the CPU for the tests: g++ compiles a unit against tools/cuda_emu (a
 * block is 256 fibers on one thread with real barriers, warps in a random order) and runs it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { assert } from "./harness.ts";
import { cudaTemplateSource } from "../src/kernels/cuda.ts";
import { type Kind, LAYOUTS } from "../src/kernels/slots.ts";
import { MSL_HOST_SHIM } from "../src/kernels/msl/shim.ts";

/** Whether g++ runs here. */
export function hasGxx(): boolean {
  try {
    return spawnSync("g++", ["--version"], { encoding: "utf8" }).status === 0;
  } catch {
    return false;
  }
}

/** Compiles `source` as DIR/NAME.cc with the emulator's headers, runs it, and returns its stdout's lines. */
export function runEmulated(dir: string, name: string, source: string): string[] {
  const file = join(dir, `${name}.cc`), exe = join(dir, name);
  writeFileSync(file, source);
  const emu = new URL("../tools/cuda_emu/", import.meta.url).pathname;
  const cc = spawnSync("g++", ["-std=c++20", "-O1", "-w", "-I", emu, "-x", "c++", file, "-o", exe, "-lm"], { encoding: "utf8" });
  assert.equal(cc.status, 0, `g++ failed:\n${(cc.stderr ?? "").slice(0, 4000)}`);
  const run = spawnSync(exe, [], { encoding: "utf8", maxBuffer: 1 << 26 });
  assert.equal(run.status, 0, `the emulation exited with ${run.status}:\n${(run.stderr ?? "").slice(0, 2000)}`);
  return run.stdout.trim().split("\n");
}

/** dtype codes (blocks.h) of the element types these runs use, their sizes, and two kernel error codes. */
export const F32 = 0, F16 = 1, BF16 = 2, F64 = 3, I32 = 4, I64 = 5, U8 = 6, BOOL = 7;
export const SIZE: Record<number, number> = { [F32]: 4, [F16]: 2, [BF16]: 2, [F64]: 8, [I32]: 4, [I64]: 8, [U8]: 1, [BOOL]: 1 };
export const KERR_INDEX = 1, KERR_COUNT = 4;

/** A VIEW's slots: buffer index, dtype, offset, eight strides. */
export const view = (buf: number, dt: number, offset: number, strides: readonly number[]) => [buf, dt, offset, ...pad8(strides, 0)];
/** xs padded to eight slots with fill. */
export const pad8 = (xs: readonly number[], fill: number) => Array.from({ length: 8 }, (_, d) => xs[d] ?? fill);

/** What block() takes for a field: a number, a shape or stride list, a VIEW's slots (view()), or a run of VIEWs. */
type Slots = number | readonly number[] | readonly (readonly number[])[];
/** A `kind` block's slots from slots.ts's table, by field name, as ArgBlock.fill writes them (a count left out: its length). */
export function block(kind: Kind, values: Readonly<Record<string, Slots>>): number[] {
  const out: number[] = [];
  for (const f of LAYOUTS[kind]) {
    const v = values[f.name];
    if (v === undefined && f.type !== "count") throw new Error(`the ${kind} block needs its field ${f.name}`);
    if (f.type === "count") out.push(v === undefined ? (values[f.of!] as readonly unknown[]).length : v as number);
    else if (f.type === "shape" || f.type === "strides") out.push(...pad8(v as number[], f.type === "shape" ? 1 : 0));
    else if (f.type === "views") { for (const x of v as number[][]) out.push(...x); }
    else out.push(...(typeof v === "number" ? [v] : v as number[]));
  }
  return out;
}

/** Values as a buffer of dtype dt (f16 and bf16 as their bits). */
export function bytes(dt: number, values: readonly number[]): Uint8Array {
  const b = new Uint8Array(values.length * SIZE[dt]), v = new DataView(b.buffer);
  values.forEach((x, i) => {
    if (dt === F32) v.setFloat32(4 * i, x, true);
    else if (dt === F64) v.setFloat64(8 * i, x, true);
    else if (dt === I32) v.setInt32(4 * i, x, true);
    else if (dt === I64) v.setBigInt64(8 * i, BigInt(x), true);
    else if (dt === F16 || dt === BF16) v.setUint16(2 * i, x, true);
    else v.setUint8(i, x);
  });
  return b;
}
/** A buffer of dtype dt as values (f16 and bf16 as their bits). */
export function values(dt: number, b: Uint8Array): number[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength), n = b.length / SIZE[dt];
  return Array.from(
    { length: n },
    (_, i) =>
      dt === F32
        ? v.getFloat32(4 * i, true)
        : dt === F64
        ? v.getFloat64(8 * i, true)
        : dt === I32
        ? v.getInt32(4 * i, true)
        : dt === I64
        ? Number(v.getBigInt64(8 * i, true))
        : dt === F16 || dt === BF16
        ? v.getUint16(2 * i, true)
        : v.getUint8(i),
  );
}

/**
 * One launch: a template (by name, or a program's text in `source`, its name then an identifier of the
 * test's), its block, its buffers (by values, or bytes as they are), the grid.
 */
export interface Launch {
  name: string;
  template: string;
  source?: string;
  slots: number[];
  buffers: { dt: number; values?: number[]; raw?: Uint8Array }[];
  grid: number;
}
/** What a launch left: the error word and details, the last buffer's values, and every buffer's bytes. */
export interface Result {
  err: number[];
  out: number[];
  bufs: Uint8Array[];
}

/** Runs the launches in one C++ unit under the emulator. */
export function emulate(launches: Launch[]): Result[] {
  const dir = mkdtempSync(join(tmpdir(), "pt-cuda-emu-"));
  try {
    const programs = new Map(launches.map((l) => [l.template, l.source ?? cudaTemplateSource(l.template)]));
    const unit = ["#define PT_NOINLINE __attribute__((noinline))", '#include "shim.h"'];
    for (const [t, text] of programs) unit.push(`namespace t_${t} {\n#define pt_main pt_main_${t}\n${text}\n#undef pt_main\n}`);
    unit.push(String.raw`#include "run.h"
#include <vector>
static void *load(const char *path, long n) {
  FILE *f = fopen(path, "rb");
  char *b = (char *)calloc(1, n + 64);
  if (n > 0 && (!f || fread(b, 1, n, f) != (size_t)n)) { fprintf(stderr, "cannot read %s\n", path); exit(3); }
  if (f) fclose(f);
  return b;
}
template <class P> static void fill(P &p, std::vector<double> a, std::vector<void *> bufs, long long *err) {
  memset(&p, 0, sizeof p);
  for (size_t i = 0; i < a.size(); i++) p.a[i] = a[i];
  for (size_t i = 0; i < bufs.size(); i++) p.buf[i] = (unsigned long long)bufs[i];
  p.nargs = (int)a.size(), p.nbuf = (int)bufs.size(), p.err = (unsigned long long)err;
}
static void dump(int k, long long *err, std::vector<void *> bufs, std::vector<long> n) {
  printf("%d %lld %lld %lld %lld", k, err[0], err[1], err[2], err[3]);
  for (size_t j = 0; j < bufs.size(); j++) {
    printf(" x"); /* an empty buffer is still a field */
    for (long i = 0; i < n[j]; i++) printf("%02x", ((unsigned char *)bufs[j])[i]);
  }
  printf("\n");
}
int main() {`);
    launches.forEach((l, k) => {
      const names = l.buffers.map((b, i) => {
        const file = join(dir, `b${k}_${i}.bin`), data = b.raw ?? bytes(b.dt, b.values ?? []);
        writeFileSync(file, data);
        return { file, n: data.length };
      });
      unit.push(`  { /* ${l.name} */
    std::vector<void *> bufs = {${names.map((b) => `load("${b.file}", ${b.n})`).join(", ")}};
    long long err[4] = {0, 0, 0, 0};
    t_${l.template}::pt_params p; fill(p, {${l.slots}}, bufs, err); emu_launch(t_${l.template}::pt_main_${l.template}, p, ${l.grid});
    dump(${k}, err, bufs, {${names.map((b) => b.n)}});
  }`);
    });
    unit.push("  return 0;\n}");
    const lines = runEmulated(dir, "launches", unit.join("\n"));
    assert.equal(lines.length, launches.length, lines.slice(0, 20).join("\n"));
    return lines.map((line, k) => {
      const [, e0, e1, e2, e3, ...hexes] = line.split(" ");
      const bufs = hexes.map((x) => new Uint8Array((x.length - 1) / 2).map((_, i) => parseInt(x.slice(2 * i + 1, 2 * i + 3), 16)));
      const dt = launches[k].buffers[launches[k].buffers.length - 1].dt;
      return { err: [e0, e1, e2, e3].map(Number), out: values(dt, bufs[bufs.length - 1]), bufs };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An MSL program as one of cuda_emu's: the stand-in <metal_stdlib> with a real barrier, threadgroup
 * arrays static (one for the block's fibers), and a pt_main(pt_params) that calls the kernel.
 */
export function mslOnEmulator(msl: string): string {
  const barrier = "inline void threadgroup_barrier(mem_flags) {}";
  const local = "#define PT_SHARED_LOCAL(T, name) threadgroup T name[PT_BLOCK];",
    localN = "#define PT_SHARED_LOCAL_N(T, name, n) threadgroup T name[n];";
  assert.ok(
    MSL_HOST_SHIM.includes(barrier) && msl.includes(local) && msl.includes(localN),
    "the stand-in's barrier and the threadgroup arrays' macros",
  );
  const program = msl.replace(/\0$/, "").replace("#include <metal_stdlib>\nusing namespace metal;\n", "")
    .replace(local, "#define PT_SHARED_LOCAL(T, name) static T name[PT_BLOCK];")
    .replace(localN, "#define PT_SHARED_LOCAL_N(T, name, n) static T name[n];");
  const buffers = Array.from({ length: 16 }, (_, k) => `(uchar *)p.buf[${k}]`).join(", ");
  return String.raw`${MSL_HOST_SHIM.replace(barrier, "inline void threadgroup_barrier(mem_flags) { __syncthreads(); }")}
using namespace metal;
namespace msl {
${program}
}
#undef kernel
#undef device
#undef constant
#undef thread
#undef threadgroup
typedef struct { unsigned long long buf[16]; unsigned long long err; int nbuf; int nargs; double a[240]; } pt_params;
static msl::pt_mtl_params mp; /* the block's fibers all write the same */
static msl::pt_mtl_error me;
static void pt_main(const pt_params p) {
  for (int i = 0; i < 240; i++) mp.ai[i] = (long)p.a[i], mp.af[i] = (float)p.a[i];
  msl::pt_main(${buffers}, mp, &me, uint3{blockIdx.x, 0, 0}, uint3{gridDim.x, 1, 1}, threadIdx.x);
  if (me.code.v != 0) ((long long *)p.err)[0] = me.code.v;
}`;
}
