/**
 * Running CUDA C on the CPU for the tests: g++ compiles a unit against tools/cuda_emu (a
 * block is 256 fibers on one thread with real barriers, warps in a random order) and runs it.
 */
import { writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { assert } from "./harness.ts";

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
