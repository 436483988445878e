/**
 * HIP inventory without an AMD GPU, and with one. Where there is no HIP runtime (this CI) or
 * a runtime but no device (the GPU machine: libamdhip64.so.5, NVIDIA only), the hip row is
 * unavailable with a reason that says which, PT_DEVICE=hip and PT_REQUIRE=hip fail with a
 * clear message, and nothing crashes; with an AMD GPU the devices are listed and usable.
 * A stand-in libamdhip64 (compiled here when a C compiler exists) drives the native driver
 * through its inventory, activation, memory and copies, with and without a device. Runs in
 * a process of its own (scripts/test.sh), like every *.isolated.test.ts: the runtime is
 * looked for once per process, and the child processes here need a clean one each.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pt from "../mod.ts";
import { hasContext } from "../src/runtime/device.ts";
import { HIP_TEMPLATES } from "../src/kernels/hip.ts";
import { assert, assertTensorError, test } from "./harness.ts";

const g = globalThis as Record<string, unknown>;
const isBun = g.Bun !== undefined;
const MOD = new URL("../mod.ts", import.meta.url).href;
const ROOT = new URL("..", import.meta.url).pathname;

/** Runs a TypeScript snippet (or a test file) in a fresh process of this runtime. */
function child(args: { code?: string; testFile?: string; filter?: string; env?: Record<string, string> }) {
  const dir = mkdtempSync(join(tmpdir(), "pt-hip-inv-"));
  try {
    let argv: string[];
    if (args.code !== undefined) {
      const file = join(dir, "child.ts");
      writeFileSync(file, `import * as pt from "${MOD}";\n${args.code}\n`);
      argv = isBun ? ["run", file] : ["run", "--allow-all", "--no-check", file]; // types are the parent run's to check
    } else {
      const f = join(ROOT, args.testFile!);
      argv = isBun ? ["test", f, "-t", args.filter!] : ["test", "--allow-all", "--no-check", f, "--filter", args.filter!];
    }
    const exe = isBun ? process.execPath : (g.Deno as { execPath(): string }).execPath();
    const r = spawnSync(exe, argv, { encoding: "utf8", cwd: ROOT, env: { ...process.env, ...args.env }, timeout: 120_000 });
    return { status: r.status, signal: r.signal, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hipRow = () => pt.backends().find((b) => b.name === "hip");
/** The reasons there may be no HIP device, each naming what was missing. */
const NO_HIP = [
  /^hip: not compiled in this build/,
  /^hip: libamdhip64\.so .* not found .*no ROCm HIP runtime is installed/,
  /^hip: amdhip64_7\.dll, amdhip64_6\.dll or amdhip64\.dll not found/,
  /^hip: there is no HIP runtime on macOS/,
  /^hip: \S*amdhip64\S* loaded, but hipGetDeviceCount found no device: hipError\w+ \(\d+\)$/,
  /^hip: \S*amdhip64\S* loaded, but hipGetDeviceCount found no device \(it reported 0\)$/,
];

test("hip inventory: devices with a HIP language, or none with the reason", () => {
  const hip = hipRow();
  assert.ok(hip, "hip is a row of every build");
  if (!hip.available) {
    assert.equal(hip.devices.length, 0);
    assert.ok(NO_HIP.some((re) => re.test(hip.reason)), `unexpected reason: ${hip.reason}`);
    assertTensorError(() => pt.device("hip"), /hip has no device: hip: /);
    assertTensorError(() => pt.device("hip:1"), /hip has no device: hip: /);
    return;
  }
  for (const d of hip.devices) {
    assert.equal(d.language, "hip");
    assert.ok(d.subgroupSize === 32 || d.subgroupSize === 64, `${d.id}: wave size ${d.subgroupSize}`);
    assert.ok(d.maxWorkgroup >= 256 && d.computeUnits > 0 && d.memoryTotal > 0, `${d.id}: ${JSON.stringify(d)}`);
    assert.equal(hasContext(d), false, `listing created a context on ${d.id}`);
  }
});

test("hip inventory: PT_DEVICE=hip runs on HIP, or fails with the reason", () => {
  const r = child({ code: "using t = pt.ones([3]);\nconsole.log(`sum=${t.sum().item()}`);", env: { PT_DEVICE: "hip" } });
  assert.equal(r.signal, null, `the child was killed: ${r.out}`);
  if (hipRow()!.available) {
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /sum=3/);
  } else {
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /TensorError: device: hip has no device: hip: /);
  }
});

test("hip inventory: PT_REQUIRE=hip fails unless HIP has a device", () => {
  const r = child({ testFile: "test/devices.test.ts", filter: "PT_REQUIRE", env: { PT_REQUIRE: "hip" } });
  assert.equal(r.signal, null, `the child was killed: ${r.out}`);
  if (hipRow()!.available) assert.equal(r.status, 0, r.out);
  else {
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /PT_REQUIRE=hip: hip is unavailable: hip: /);
  }
});

/**
 * A stand-in HIP runtime: the required entry points of cuda/lib.h's HIP column, on host memory,
 * with PT_STUB_HIP_DEVICES devices (0 by default) of wave size 64 and arch gfx90a. Modules are
 * refused (hipErrorInvalidImage), so a kernel never "runs"; a real hiprtc, where installed,
 * still compiles each program before the stand-in refuses it.
 */
const STUB = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int devices(void) { const char *e = getenv("PT_STUB_HIP_DEVICES"); return e ? atoi(e) : 0; }
static int bad(int d) { return d < 0 || d >= devices(); }
static int token;
const char *hipGetErrorName(int e) {
  return e == 0 ? "hipSuccess" : e == 2 ? "hipErrorOutOfMemory" : e == 100 ? "hipErrorNoDevice" : e == 101 ? "hipErrorInvalidDevice"
       : e == 200 ? "hipErrorInvalidImage" : "hipErrorUnknown";
}
const char *hipGetErrorString(int e) { return e == 100 ? "no ROCm-capable device is detected" : "stand-in"; }
int hipRuntimeGetVersion(int *v) { *v = 60200000; return 0; }
int hipGetDeviceCount(int *n) { *n = devices(); return *n ? 0 : 100; }
int hipDeviceGet(int *d, int i) { if (bad(i)) return 101; *d = i; return 0; }
int hipDeviceGetName(char *s, int n, int d) { if (bad(d)) return 101; snprintf(s, (size_t)n, "Stand-in AMD GPU %d", d); return 0; }
int hipDeviceTotalMem(size_t *b, int d) { if (bad(d)) return 101; *b = (size_t)1 << 34; return 0; }
int hipDeviceGetAttribute(int *v, int a, int d) { if (bad(d)) return 101; *v = a == 87 ? 64 : a == 56 ? 1024 : a == 63 ? 104 : 0; return 0; }
int hipGetDevicePropertiesR0600(void *p, int d) {
  if (bad(d)) return 101;
  memset(p, 0, 1472);
  strcpy((char *)p, "gfx-looking name is skipped");
  strcpy((char *)p + 1200, "gfx90a:sramecc+:xnack-");
  return 0;
}
int hipSetDevice(int d) { return bad(d) ? 101 : 0; }
int hipDeviceSynchronize(void) { return 0; }
int hipDeviceReset(void) { return 0; }
int hipMalloc(void **p, size_t n) { *p = n > ((size_t)1 << 34) ? NULL : calloc(1, n); return *p ? 0 : 2; }
int hipFree(void *p) { free(p); return 0; }
int hipMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return 0; }
int hipMemcpyHtoDAsync(void *d, const void *s, size_t n, void *q) { (void)q; memmove(d, s, n); return 0; }
int hipMemcpyDtoHAsync(void *d, const void *s, size_t n, void *q) { (void)q; memmove(d, s, n); return 0; }
int hipMemcpyDtoDAsync(void *d, const void *s, size_t n, void *q) { (void)q; memmove(d, s, n); return 0; }
int hipMemsetD8Async(void *d, unsigned char v, size_t n, void *q) { (void)q; memset(d, v, n); return 0; }
int hipStreamCreateWithFlags(void **q, unsigned f) { (void)f; *q = &token; return 0; }
int hipStreamDestroy(void *q) { (void)q; return 0; }
int hipStreamSynchronize(void *q) { (void)q; return 0; }
int hipStreamWaitEvent(void *q, void *e, unsigned f) { (void)q; (void)e; (void)f; return 0; }
int hipEventCreateWithFlags(void **e, unsigned f) { (void)f; *e = &token; return 0; }
int hipEventRecord(void *e, void *q) { (void)e; (void)q; return 0; }
int hipEventQuery(void *e) { (void)e; return 0; }
int hipEventSynchronize(void *e) { (void)e; return 0; }
int hipEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 0; return 0; }
int hipEventDestroy(void *e) { (void)e; return 0; }
int hipModuleLoadData(void **m, const void *img) { (void)m; (void)img; return 200; }
int hipModuleUnload(void *m) { (void)m; return 0; }
int hipModuleGetFunction(void **f, void *m, const char *n) { (void)f; (void)m; (void)n; return 500; }
int hipModuleLaunchKernel(void) { return 98; }
`;

/** Builds the stand-in as libamdhip64.so.7 (looked for first) into dir; false without a C compiler. */
function buildStub(dir: string): boolean {
  if (process.platform !== "linux") return false;
  writeFileSync(join(dir, "stub.c"), STUB);
  for (const [cc, pre] of [["cc", []], ["gcc", []], ["python3", ["-m", "ziglang", "cc"]]] as [string, string[]][]) {
    const r = spawnSync(cc, [...pre, "-shared", "-fPIC", "-O1", "-o", join(dir, "libamdhip64.so.7"), join(dir, "stub.c")], {
      encoding: "utf8",
    });
    if (r.status === 0) return true;
  }
  return false;
}

/**
 * A real hiprtc for the stand-in, where this machine has one: ROCm before 5.3 (Debian's
 * libamdhip64-5, the GPU machine's) keeps hiprtc inside libamdhip64, so it is linked into
 * the stand-in's folder under the name the driver looks for there first.
 */
const REAL_HIPRTC = ["/usr/lib/x86_64-linux-gnu/libhiprtc.so.6", "/opt/rocm/lib/libhiprtc.so.6", "/usr/lib/x86_64-linux-gnu/libhiprtc.so.5"]
  .concat(["/opt/rocm/lib/libhiprtc.so.5", "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so.5"]);
function linkHiprtc(dir: string): string | undefined {
  const real = REAL_HIPRTC.find((f) => existsSync(f));
  if (real) symlinkSync(real, join(dir, "libhiprtc.so.6"));
  return real;
}

test("hip driver on a stand-in runtime: no device, then one device through open, memory, copies and compile", () => {
  const dir = mkdtempSync(join(tmpdir(), "pt-hip-stub-"));
  try {
    if (!buildStub(dir)) {
      console.log("hip_inventory: no C compiler (cc, gcc or python3 -m ziglang cc); skipping the stand-in runtime");
      return;
    }
    const hiprtc = linkHiprtc(dir);
    const ld = { LD_LIBRARY_PATH: [dir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") };
    const none = child({ code: 'console.log(`reason=${pt.backends().find((b) => b.name === "hip")!.reason}`);', env: ld });
    assert.equal(none.status, 0, none.out);
    if (/hip: not compiled/.test(none.out)) return; // a build without hip: nothing of ours to drive
    assert.match(none.out, /reason=hip: \S*libamdhip64\.so\.7 loaded, but hipGetDeviceCount found no device: hipErrorNoDevice \(100\)/);

    const code = `
import { native, readString, utf8 } from "${new URL("../src/runtime/native.ts", import.meta.url).href}";
import { HIP_TEMPLATES, hipElementwiseSource, hipTemplateSource } from "${new URL("../src/kernels/hip.ts", import.meta.url).href}";
import { kindOf } from "${new URL("../src/kernels/launch.ts", import.meta.url).href}";
const hip = pt.backends().find((b) => b.name === "hip")!;
const d = hip.devices[0];
console.log(\`device=\${d.id}|\${d.name}|\${d.language}|\${d.subgroupSize}|\${d.maxWorkgroup}|\${d.computeUnits}|\${d.memoryTotal}\`);
using t = pt.tensor([1.5, -2, 3e9], { device: "hip" });
console.log(\`roundtrip=\${[...(t.toArray() as Float32Array)].join(",")}\`);
const b = pt.backends().findIndex((x) => x.name === "hip");
const dev = native.pt_device_open(b, 0);
const programs: [string, string][] = HIP_TEMPLATES.map((k) => [k, hipTemplateSource(k)]);
programs.push(["ew", hipElementwiseSource({ k: "binary", op: "add", a: { k: "load", input: 0, dtype: "float32" }, b: { k: "load", input: 1, dtype: "float32" }, dtype: "float32" }, 2)]);
for (const [kind, src] of programs) {
  const k = utf8(kindOf(kind)), s = utf8(src + "\\0");
  const st = native.pt_program_create(dev, k, k.length, s, s.length);
  console.log(\`program \${kind}: \${st > 0 ? "loaded" : readString((buf, cap) => native.pt_last_error(buf, cap)).replaceAll("\\n", " ")}\`);
}
native.pt_device_close(dev);
`;
    const one = child({ code, env: { ...ld, PT_STUB_HIP_DEVICES: "1" } });
    assert.equal(one.status, 0, one.out);
    assert.match(one.out, /device=hip:0\|Stand-in AMD GPU 0\|hip\|64\|1024\|104\|17179869184/);
    assert.match(one.out, /roundtrip=1\.5,-2,3000000000/);
    const lines = one.out.split("\n").filter((l) => l.startsWith("program "));
    assert.equal(lines.length, HIP_TEMPLATES.length + 1, one.out);
    console.log(`hip_inventory: compiling with ${hiprtc ? `the hiprtc of ${hiprtc}` : "no hiprtc (none on this machine)"}`);
    for (const line of lines) {
      // hiprtc absent: said so. Present: it compiled for the stand-in's gfx90a, and the stand-in refused the image.
      const missing = /hip: hiprtc \(libhiprtc\.so\.6\) not found/.test(line);
      const refused = /hipModuleLoadData failed: hipErrorInvalidImage \(200\).*built for gfx90a:sramecc\+:xnack-/.test(line);
      assert.ok(missing || refused, line);
      if (hiprtc) assert.ok(refused, `hiprtc is here but did not compile: ${line}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
