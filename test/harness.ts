/**
 * One test suite for both runtimes: `test` maps to Deno.test under Deno and to bun:test's
 * test under Bun. Assertions use node:assert, which both provide.
 */
import assert from "node:assert/strict";
export { assert };

type TestFn = () => void | Promise<void>;
interface Registrar {
  (name: string, fn: TestFn): void;
}

const g = globalThis as Record<string, unknown>;
let register: Registrar, registerSkipped: Registrar;
if (g.Bun !== undefined) {
  const spec = "bun:test"; // a non-literal specifier keeps Deno's checker away from Bun's module
  type BunTest = (name: string, fn: TestFn, timeout?: number) => void;
  const bunTest = await import(spec) as { test: BunTest & { skip: BunTest } };
  register = (name, fn) => bunTest.test(name, fn, 120_000);
  registerSkipped = (name, fn) => bunTest.test.skip(name, fn);
} else {
  const deno = g.Deno as {
    test(opts: { name: string; fn: TestFn; ignore?: boolean; sanitizeResources: boolean; sanitizeOps: boolean }): void;
  };
  register = (name, fn) => deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });
  registerSkipped = (name, fn) => deno.test({ name, fn, ignore: true, sanitizeResources: false, sanitizeOps: false });
}

export function test(name: string, fn: TestFn): void {
  register(name, digests === null ? fn : digests.wrap(name, fn));
}

/**
 * A test that cannot run here, with the reason: Deno reports it ignored and Bun skipped, so
 * it counts as neither passed nor failed (scripts/test.sh totals the skips), and the reason
 * is printed once.
 */
export function skip(name: string, reason: string): void {
  console.log(`skip: ${name}: ${reason}`);
  registerSkipped(name, () => {});
}

/**
 * PT_DIGEST=DIR: every value a test reads back (toArray, data, item, toList) is hashed and
 * appended to DIR/<pid>.tsv as "file :: test name, run, read index, dtype, shape, FNV-1a of the bytes",
 * so that two builds of the library can be compared op output by op output on one device
 * (scripts/digest.sh). The hooks patch Tensor's methods here, in the suite, not in the library.
 */
interface Digests {
  wrap(name: string, fn: TestFn): TestFn;
}
const digests: Digests | null = (() => {
  const dir = env("PT_DIGEST");
  if (!dir) return null;
  let current = "", reads = 0, patched: Promise<void> | null = null;
  const runs = new Map<string, number>();
  const fnv = (bytes: Uint8Array): string => {
    let h = 0x811c9dc5;
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    return (h >>> 0).toString(16).padStart(8, "0");
  };
  const text = (v: unknown): string => JSON.stringify(v, (_k, x) => typeof x === "bigint" ? `${x}n` : Number.isNaN(x) ? "NaN" : x);
  // Patched when the first test starts: the library is imported by then (importing it from here, while a test file's
  // imports are still being evaluated, would meet it half initialised).
  const patch = async (): Promise<void> => {
    const { Tensor } = await import("../mod.ts");
    const fs = await import("node:fs");
    const file = `${dir}/${(g.process as { pid: number } | undefined)?.pid ?? (g.Deno as { pid: number }).pid}.tsv`;
    type T = InstanceType<typeof Tensor>;
    const note = (t: T, v: unknown): void => {
      if (current === "") return;
      const bytes = ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new TextEncoder().encode(text(v));
      fs.appendFileSync(file, `${current}\t${reads++}\t${t.dtype}\t${t.shape.join("x")}\t${fnv(bytes)}\n`);
    };
    const proto = Tensor.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const m of ["toArray", "item", "toList"]) {
      const orig = proto[m];
      proto[m] = function (this: T, ...a: unknown[]) {
        const v = orig.apply(this, a);
        note(this, v);
        return v;
      };
    }
    const data = proto.data;
    proto.data = async function (this: T, ...a: unknown[]) {
      const v = await (data.apply(this, a) as Promise<unknown>);
      note(this, v);
      return v;
    };
  };
  return {
    wrap: (name, fn) => {
      // Keyed by file too: two files may share a test name.
      const file = /test\/[\w.]+\.test\.ts/.exec(new Error().stack ?? "")?.[0] ?? "?";
      const key = `${file} :: ${name.replaceAll("\t", " ")}`;
      return async () => {
        await (patched ??= patch());
        const run = (runs.get(key) ?? 0) + 1;
        runs.set(key, run);
        current = `${key}\t${run}`;
        reads = 0;
        try {
          await fn();
        } finally {
          current = "";
        }
      };
    },
  };
})();

/** test(name, fn), or skip(name, reason) when `reason` is a string: the condition that stops it here. */
export function testUnless(reason: string | null, name: string, fn: TestFn): void {
  if (reason === null) test(name, fn);
  else skip(name, reason);
}

/** The runtime's environment variable, or undefined. */
export function env(name: string): string | undefined {
  if (g.Bun !== undefined) return (g.Bun as { env: Record<string, string | undefined> }).env[name];
  try {
    return (g.Deno as { env: { get(n: string): string | undefined } }).env.get(name);
  } catch {
    return undefined;
  }
}

/** Element-wise |a - b| <= atol + rtol * |b|, with NaN matching NaN. */
export function assertClose(
  actual: ArrayLike<number | bigint>,
  expected: ArrayLike<number | bigint>,
  rtol = 1e-5,
  atol = 1e-6,
  what = "",
): void {
  assert.equal(actual.length, expected.length, `${what} length ${actual.length} != ${expected.length}`);
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]), b = Number(expected[i]);
    if (Number.isNaN(b) && Number.isNaN(a)) continue;
    if (a === b) continue;
    if (!(Math.abs(a - b) <= atol + rtol * Math.abs(b))) {
      assert.fail(`${what} element ${i}: got ${a}, expected ${b} (rtol ${rtol}, atol ${atol})`);
    }
  }
}

/** Asserts that fn throws a TensorError whose message matches every pattern. */
export function assertTensorError(fn: () => unknown, ...patterns: RegExp[]): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error, "expected a TensorError, nothing was thrown");
  assert.equal(
    (caught as Error).name,
    "TensorError",
    `expected a TensorError, got ${(caught as Error).name}: ${(caught as Error).message}`,
  );
  for (const p of patterns) assert.match((caught as Error).message, p);
}

/** A reproducible pseudo-random stream for test data (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Philox4x32-10 of counter (c, 0, 0, 0) under key (k0, k1), as in Random123. */
export function philox(counter: bigint, k0: number, k1: number): number[] {
  const M0 = 0xd2511f53n, M1 = 0xcd9e8d57n, mask = 0xffffffffn;
  let c = [counter & mask, counter >> 32n, 0n, 0n];
  let a = BigInt(k0), b = BigInt(k1);
  for (let r = 0; r < 10; r++) {
    if (r > 0) {
      a = (a + 0x9e3779b9n) & mask;
      b = (b + 0xbb67ae85n) & mask;
    }
    const p0 = M0 * c[0], p1 = M1 * c[2];
    c = [((p1 >> 32n) ^ c[1] ^ a) & mask, p1 & mask, ((p0 >> 32n) ^ c[3] ^ b) & mask, p0 & mask];
  }
  return c.map(Number);
}
