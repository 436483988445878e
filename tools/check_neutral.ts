/**
 * The neutrality check (docs/architecture.md, Neutrality): shared code never names a backend, includes
 * an SDK header, or branches on which backend is active. Shared code is native/src/core,
 * src/tensor, src/lazy and the IR side of src/kernels (a renderer file named after its
 * language is a backend's own). Comments may name backends; code may not.
 *   deno run --allow-read tools/check_neutral.ts      bun tools/check_neutral.ts
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export const SHARED_DIRS = ["native/src/core", "src/tensor", "src/lazy", "src/kernels"];
/** Renderers live beside the IR but belong to their backend. */
const BACKEND_OWNED = /^src\/kernels\/(cuda|hip|vulkan|glsl|spirv|metal|msl)(\.ts|\/)|^src\/kernels\/renderers\.ts$/;

const BACKEND_WORDS =
  /\b([Cc]uda|CUDA|cu(?:Init|Mem|Launch|Ctx|Stream|Event|Module|Device|Graph)\w*|[Nn]vrtc\w*|NVRTC|[Cc]ublas\w*|[Vv]ulkan|vk[A-Z]\w+|VK_\w+|[Ss]pirv|SPIR-V|[Ss]haderc|[Mm]etal|MTL\w+|objc_\w+|[Hh]ip\w*|HIP|[Rr]ocm|ROCm|amdhip\w*|[Oo]pen[Cc][Ll])\b/;
const SDK_INCLUDE = /#\s*include\s*[<"](cuda|cuda_runtime|nvrtc|cublas\w*|vulkan\/|Metal\/|hip\/|CL\/)[^>"]*[>"]/;
const BACKEND_BRANCH = /\.backend\s*[!=]==?|[!=]==?\s*[\w.]*\.backend\b|\.language\s*[!=]==?\s*["']/;

export interface Violation {
  file: string;
  line: number;
  why: string;
  text: string;
}

function codeOf(line: string, inBlock: { v: boolean }): string {
  let out = "", i = 0;
  while (i < line.length) {
    if (inBlock.v) {
      const end = line.indexOf("*/", i);
      if (end < 0) return out;
      inBlock.v = false;
      i = end + 2;
    } else if (line.startsWith("/*", i)) {
      inBlock.v = true;
      i += 2;
    } else if (line.startsWith("//", i)) return out;
    else out += line[i++];
  }
  return out;
}

function* walk(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|c|h|m|zig)$/.test(n)) yield p;
  }
}

/** Every violation under root's shared folders. */
export function findViolations(root: string): Violation[] {
  const out: Violation[] = [];
  for (const d of SHARED_DIRS) {
    for (const path of walk(join(root, d))) {
      const file = relative(root, path).replaceAll("\\", "/");
      if (BACKEND_OWNED.test(file)) continue;
      const inBlock = { v: false };
      readFileSync(path, "utf8").split("\n").forEach((raw, i) => {
        const include = SDK_INCLUDE.exec(raw);
        const code = codeOf(raw, inBlock).replace(/(["'`])(?:\\.|(?!\1).)*\1/g, (s) => (BACKEND_WORDS.test(s) ? "BACKEND_STRING" : '""'));
        const why = include
          ? `includes an SDK header (${include[0]})`
          : /BACKEND_STRING/.test(code) || BACKEND_WORDS.test(code)
          ? "names a backend"
          : BACKEND_BRANCH.test(code)
          ? "branches on which backend is active"
          : "";
        if (why) out.push({ file, line: i + 1, why, text: raw.trim() });
      });
    }
  }
  return out;
}

if (import.meta.main) {
  const root = relative(".", new URL("..", import.meta.url).pathname) || ".";
  const found = findViolations(root);
  for (const v of found) console.error(`${v.file}:${v.line}: ${v.why}: ${v.text}`);
  console.error(found.length ? `neutrality check: ${found.length} violation(s)` : "neutrality check: shared code is backend-neutral");
  if (found.length) (globalThis as { process?: { exit(c: number): never } }).process?.exit(1);
}
