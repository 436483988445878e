/**
 * The backend-neutrality check (tools/check_neutral.ts) over the repository and over planted violations.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findViolations } from "../tools/check_neutral.ts";
import { assert, test } from "./harness.ts";

const repo = new URL("..", import.meta.url).pathname;

/** A throwaway tree holding the given files, checked and removed. */
function check(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "pt-neutral-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return findViolations(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("the project's shared code is backend-neutral", () => {
  const found = findViolations(repo);
  assert.deepEqual(found.map((v) => `${v.file}:${v.line}: ${v.why}`), []);
});

test("a shared file that names a backend fails the check, with file and line", () => {
  const found = check({ "src/tensor/bad.ts": "export const a = 1;\nexport const fast = device.info.name === 'cuda';\n" });
  assert.equal(found.length, 1);
  assert.equal(found[0].file, "src/tensor/bad.ts");
  assert.equal(found[0].line, 2);
  assert.match(found[0].why, /names a backend/);
});

test("an SDK header in the native core fails the check", () => {
  const found = check({ "native/src/core/bad.c": "#include <stdint.h>\n#include <cuda.h>\nint x;\n" });
  assert.deepEqual(found.map((v) => [v.line, v.why]), [[2, "includes an SDK header (#include <cuda.h>)"]]);
});

test("branching on the active backend fails the check", () => {
  const found = check({ "src/lazy/bad.ts": "if (device.backend === name) run();\n" });
  assert.equal(found.length, 1);
  assert.match(found[0].why, /branches on which backend/);
});

test("comments may name backends; backend-owned renderers are not shared code", () => {
  const found = check({
    "src/tensor/ok.ts": "// the cuda renderer lives elsewhere\n/* Vulkan and Metal too */\nexport const x = 1;\n",
    "src/kernels/cuda.ts": "export const language = 'cuda';\n",
  });
  assert.deepEqual(found, []);
});
