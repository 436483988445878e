/**
 * pt.tidy and pt.keep: scopes that dispose every tensor made inside them except what the
 * function returns, for the intermediates a chain such as `x.matmul(w).relu()` makes and
 * never names. The scope lists live in ownership.ts, which sees every tensor as it is made.
 */
import { TensorError } from "../base/errors.ts";
import { closeScope, collect, keepOwner, openScope, type Owner } from "../runtime/ownership.ts";
import { Tensor } from "./tensor.ts";

/** Tensors in a function's result: the value itself, or inside arrays and plain objects. */
function resultTensors(v: unknown, out: Set<Owner>, depth: number): void {
  if (v instanceof Tensor) out.add(v);
  else if (depth > 8 || v === null || typeof v !== "object") return;
  else if (Array.isArray(v)) { for (const x of v) resultTensors(x, out, depth + 1); }
  else if (v instanceof Map) { for (const x of v.values()) resultTensors(x, out, depth + 1); }
  else {
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) { for (const x of Object.values(v)) resultTensors(x, out, depth + 1); }
  }
}

const isThenable = (v: unknown): boolean =>
  v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";

/**
 * Runs `fn` and disposes every tensor made while it ran, except the tensors it returns
 * (alone, or in arrays, Maps and plain objects) and those passed to `pt.keep`. Returned
 * tensors belong to the enclosing tidy, if any. Scopes nest. When fn throws, everything it
 * made but kept tensors is disposed and the error propagates.
 *
 * fn must be synchronous: a tensor made after an `await` would land in whatever scope is
 * open then. A function that returns a Promise is refused with a TensorError, and the
 * tensors it made before its first await are disposed; in async code, tidy each
 * synchronous step and dispose (or `using`) what crosses an await.
 *
 * @example
 * const loss = pt.tidy(() => x.matmul(w).add(b).relu().sum()); // the matmul, add and relu results are freed
 * @throws {TensorError} when fn is not a function or returns a Promise; what fn throws propagates.
 */
export function tidy<T>(fn: () => T): T {
  if (typeof fn !== "function") throw new TensorError("tidy", `expects a function, got ${typeof fn}`);
  openScope();
  let result: T;
  try {
    result = fn();
  } catch (e) {
    closeScope(null);
    throw e;
  }
  if (isThenable(result)) {
    closeScope(null);
    throw new TensorError(
      "tidy",
      "the function returned a Promise; tidy runs synchronous functions only (tidy each synchronous step of async code instead)",
    );
  }
  const keep = new Set<Owner>();
  resultTensors(result, keep, 0);
  closeScope(keep);
  return result;
}

/**
 * Exempts `t` from disposal by every pt.tidy scope, open or later (a model's parameters updated inside a tidy step, say); returns
 * t. It is still freed by `dispose()` or once unreachable.
 *
 * @example
 * let w = pt.keep(pt.randn([3, 3]));
 * pt.tidy(() => {
 *   const next = pt.keep(w.sub(w.mul(0.1))); // outlives the tidy without being returned; w.mul(0.1) is freed
 *   w.dispose();
 *   w = next;
 * });
 * @throws {TensorError} when t is not a tensor.
 */
export function keep(t: Tensor): Tensor {
  if (!(t instanceof Tensor)) throw new TensorError("keep", `expects a Tensor, got ${t === null ? "null" : typeof t}`);
  keepOwner(t);
  return t;
}

/**
 * Frees now the tensors the program dropped without disposing them, instead of when the
 * garbage collector gets round to them: a full collection where the runtime offers one
 * (always under Bun; under Deno with `--v8-flags=--expose-gc`), then a sweep of the
 * library's weak references. Returns the number of tensors freed. The library calls this
 * itself when a device's memory in use has grown by the collect threshold
 * (`pt.setCollectThreshold`, 64 MiB by default) and before it retries a failed allocation.
 */
export function collectGarbage(): number {
  return collect();
}
