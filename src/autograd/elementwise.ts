/**
 * Gradient rules of the elementwise ops, as PyTorch defines them (its derivatives.yaml):
 * each front end in tensor/elementwise.ts calls the matching function here on its result
 * when an operand requires gradients. A rule's gradient has its operand's shape: what
 * broadcasting expanded is summed back (unbroadcast). Rules run with recording off.
 */
import type { BinaryOp, UnaryOp } from "../kernels/ir.ts";
import { Tensor, type TensorLike } from "../tensor/tensor.ts";
import { unary as ewUnary, where as select } from "../tensor/elementwise.ts";
import { full } from "../tensor/creation.ts";
import { record, type Rule } from "./graph.ts";

/** g summed over the dims broadcasting added or expanded, to `shape`. */
export function unbroadcast(g: Tensor, shape: readonly number[]): Tensor {
  if (g.shape.length === shape.length && g.shape.every((d, i) => d === shape[i])) return g;
  const lead = g.ndim - shape.length, axes: number[] = [];
  for (let i = 0; i < g.ndim; i++) if (i < lead || (shape[i - lead] === 1 && g.shape[i] !== 1)) axes.push(i);
  const s = axes.length === 0 ? g : g.sum(axes, true);
  return s.reshape(shape);
}

const tensors = (...xs: unknown[]): Tensor[] => xs.filter((x): x is Tensor => x instanceof Tensor);
/** Where each operand's gradient goes in a rule's saved list (null for a scalar). */
function slots(...xs: unknown[]): (number | null)[] {
  let n = 0;
  return xs.map((x) => (x instanceof Tensor ? n++ : null));
}
/** The operand: its saved tensor, or the scalar itself. */
function operand(x: TensorLike, slot: number | null, saved: readonly Tensor[]): TensorLike {
  return slot === null ? x : saved[slot];
}
/** Whether x is a tensor whose gradient is wanted. */
const wants = (x: unknown): x is Tensor => x instanceof Tensor && x.requiresGrad;

/** The gradient for an operand, or null for a scalar or a tensor that needs none. */
function to(x: TensorLike, g: Tensor): Tensor | null {
  return x instanceof Tensor && x.requiresGrad ? unbroadcast(g, x.shape) : null;
}

export function binary(op: BinaryOp, a: TensorLike, b: TensorLike, out: Tensor): Tensor {
  const [sa, sb] = slots(a, b);
  const A = (s: readonly Tensor[]) => operand(a, sa, s), B = (s: readonly Tensor[]) => operand(b, sb, s);
  let rule: Rule, saved: Tensor[];
  switch (op) {
    case "add":
      return record(out, op, [a, b], [], (g) => [to(a, g), to(b, g)]);
    case "sub":
      return record(out, op, [a, b], [], (g) => [to(a, g), to(b, g.neg())]);
    case "mul": { // each gradient reads the other operand only: save what the wanted gradients read
      const wa = wants(a), wb = wants(b), ka = wb && a instanceof Tensor, kb = wa && b instanceof Tensor;
      saved = [...(ka ? [a] : []), ...(kb ? [b] : [])];
      rule = (g, s) => [wa ? to(a, g.mul(kb ? s[s.length - 1] : b)) : null, wb ? to(b, g.mul(ka ? s[0] : a)) : null];
      break;
    }
    case "div": // d/da = 1/b, d/db = -a/b^2 = -out/b
      saved = [...tensors(a, b), out];
      rule = (g, s) => {
        const q = g.div(B(s));
        return [to(a, q), b instanceof Tensor && b.requiresGrad ? to(b, q.mul(s[s.length - 1]).neg()) : null];
      };
      break;
    case "pow": // d/da = b * a^(b-1) (0 where b == 0), d/db = out * log(a) (0 where a == 0 and b >= 0)
      saved = [...tensors(a, b), out];
      rule = (g, s) => {
        const x = A(s), e = B(s), y = s[s.length - 1];
        let ga: Tensor | null = null, gb: Tensor | null = null;
        if (a instanceof Tensor && a.requiresGrad) {
          const d = asTensor(e, y).mul(powOf(x, e, y)).maskedFill(eqZero(e, y), 0);
          ga = to(a, g.mul(d));
        }
        if (b instanceof Tensor && b.requiresGrad) {
          const xa = asTensor(x, y);
          const d = y.mul(xa.log()).maskedFill(xa.eq(0).logicalAnd(asTensor(e, y).ge(0)), 0);
          gb = to(b, g.mul(d));
        }
        return [ga, gb];
      };
      break;
    case "atan2": // d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
      saved = tensors(a, b);
      rule = (g, s) => {
        const y = asTensor(A(s), g), x = asTensor(B(s), g), q = g.div(y.square().add(x.square()));
        return [to(a, q.mul(x)), b instanceof Tensor && b.requiresGrad ? to(b, q.mul(y).neg()) : null];
      };
      break;
    case "hypot": // d/da = a / out, d/db = b / out
      saved = [...tensors(a, b), out];
      rule = (g, s) => {
        const q = g.div(s[s.length - 1]);
        return [to(a, q.mul(A(s))), b instanceof Tensor && b.requiresGrad ? to(b, q.mul(B(s))) : null];
      };
      break;
    case "fmod": // C's remainder: d/da = 1, d/db = -trunc(a / b)
      saved = tensors(a, b);
      rule = (g, s) => [to(a, g), b instanceof Tensor && b.requiresGrad ? to(b, g.mul(asTensor(A(s), g).div(B(s)).trunc()).neg()) : null];
      break;
    case "floorDivide": // piecewise constant: zero gradients, as floor's
      return record(out, op, [a, b], [], (g) => [to(a, g.mul(0)), to(b, g.mul(0))]);
    case "mod": // remainder: d/da = 1, d/db = -floor(a / b)
      saved = tensors(a, b);
      rule = (g, s) => [to(a, g), b instanceof Tensor && b.requiresGrad ? to(b, g.mul(asTensor(A(s), g).div(B(s)).floor()).neg()) : null];
      break;
    case "maximum":
    case "minimum": // the gradient goes to the larger (smaller) operand; ties split it in half, as PyTorch
      saved = tensors(a, b);
      rule = (g, s) => {
        const x = asTensor(A(s), g), y = B(s);
        const wins = op === "maximum" ? x.gt(y) : x.lt(y), tie = x.eq(y);
        const half = g.mul(0.5);
        const ga = g.where(wins, 0).add(half.where(tie, 0)), gb = g.sub(ga);
        return [to(a, ga), to(b, gb)];
      };
      break;
    default: // comparisons and logical ops give bool results, which record() passes over
      return out;
  }
  return record(out, op, [a, b], saved, rule);
}

/** A JS scalar operand as a tensor like `like` (0-d), for rules that need ops on it. */
function asTensor(x: TensorLike, like: Tensor): Tensor {
  return x instanceof Tensor ? x : full([], x, { device: like.device, dtype: like.dtype });
}

function powOf(x: TensorLike, e: TensorLike, y: Tensor): Tensor {
  return asTensor(x, y).pow(typeof e === "number" ? e - 1 : (e as Tensor).sub(1));
}

function eqZero(e: TensorLike, y: Tensor): Tensor {
  return asTensor(e, y).eq(0);
}

const LN2 = Math.LN2;

export function unary(op: UnaryOp, x: Tensor, out: Tensor): Tensor {
  // Each rule gets [x, out] or [x] or [out] as saved, by what it reads.
  const withX = (f: (g: Tensor, x: Tensor) => Tensor) => record(out, op, [x], [x], (g, s) => [f(g, s[0])]);
  const withOut = (f: (g: Tensor, y: Tensor) => Tensor) => record(out, op, [x], [out], (g, s) => [f(g, s[0])]);
  switch (op) {
    case "neg":
      return record(out, op, [x], [], (g) => [g.neg()]);
    case "abs":
      return withX((g, x) => g.mul(x.sign()));
    case "sign":
    case "floor":
    case "ceil":
    case "round":
    case "trunc": // piecewise constant: zero gradient, as PyTorch
      return record(out, op, [x], [], (g) => [g.mul(0)]);
    case "square":
      return withX((g, x) => g.mul(x).mul(2));
    case "reciprocal":
      return withOut((g, y) => g.mul(y.square()).neg());
    case "exp":
      return withOut((g, y) => g.mul(y));
    case "exp2":
      return withOut((g, y) => g.mul(y).mul(LN2));
    case "log":
      return withX((g, x) => g.div(x));
    case "log2":
      return withX((g, x) => g.div(x.mul(LN2)));
    case "log1p":
      return withX((g, x) => g.div(x.add(1)));
    case "sqrt":
      return withOut((g, y) => g.div(y.mul(2)));
    case "rsqrt":
      return withOut((g, y) => g.mul(y.pow(3)).mul(-0.5));
    case "sin":
      return withX((g, x) => g.mul(x.cos()));
    case "cos":
      return withX((g, x) => g.mul(x.sin()).neg());
    case "tan":
      return withOut((g, y) => g.mul(y.square().add(1)));
    case "tanh":
      return withOut((g, y) => g.mul(y.square().neg().add(1)));
    case "sigmoid":
      return withOut((g, y) => g.mul(y).mul(y.neg().add(1)));
    case "relu": // 0 at 0, as PyTorch's threshold_backward
      return withOut((g, y) => g.where(y.gt(0), 0));
    case "gelu": // d/dx x·Φ(x) = Φ(x) + x·φ(x), with Φ(x) = gelu(x) / x (1/2 at 0)
      return record(out, op, [x], [x, out], (g, s) => {
        const [x, y] = s;
        const phi = x.square().mul(-0.5).exp().mul(1 / Math.sqrt(2 * Math.PI));
        const cdf = select(x.eq(0), 0.5, y.div(x));
        return [g.mul(cdf.add(x.mul(phi)))];
      });
    case "erf":
    case "erfc": { // d/dx erf = 2/sqrt(pi) exp(-x^2)
      const k = (op === "erf" ? 2 : -2) / Math.sqrt(Math.PI);
      return withX((g, x) => g.mul(x.square().neg().exp().mul(k)));
    }
    case "expm1":
      return withOut((g, y) => g.mul(y.add(1)));
    case "log10":
      return withX((g, x) => g.div(x.mul(Math.LN10)));
    case "asin":
      return withX((g, x) => g.mul(x.square().neg().add(1).rsqrt()));
    case "acos":
      return withX((g, x) => g.mul(x.square().neg().add(1).rsqrt()).neg());
    case "atan":
      return withX((g, x) => g.div(x.square().add(1)));
    case "sinh":
      return withX((g, x) => g.mul(ewUnary("cosh", x)));
    case "cosh":
      return withX((g, x) => g.mul(ewUnary("sinh", x)));
    case "asinh":
      return withX((g, x) => g.mul(x.square().add(1).rsqrt()));
    case "acosh":
      return withX((g, x) => g.mul(x.square().sub(1).rsqrt()));
    case "atanh":
      return withX((g, x) => g.div(x.square().neg().add(1)));
    default: // predicates and logicalNot give bool results
      return out;
  }
}

export function cast(x: Tensor, out: Tensor): Tensor {
  return record(out, "cast", [x], [], (g) => [g]); // the engine casts the gradient back to x's dtype
}

export function clamp(x: Tensor, lo: TensorLike | undefined, hi: TensorLike | undefined, out: Tensor): Tensor {
  const inputs = [x, lo, hi];
  // The gradient passes where x lies within [lo, hi]; a tensor bound takes it where it clamped.
  return record(out, "clamp", inputs, tensors(x, lo, hi), (g, s) => {
    const [sx, sl, sh] = slots(x, lo, hi);
    const xv = s[sx!];
    const L = lo === undefined ? undefined : operand(lo, sl, s), H = hi === undefined ? undefined : operand(hi, sh, s);
    let inside = xv.eq(xv); // true except at NaN
    if (L !== undefined) inside = inside.logicalAnd(xv.ge(L));
    if (H !== undefined) inside = inside.logicalAnd(xv.le(H));
    const below = L === undefined ? null : xv.lt(L), above = H === undefined ? null : xv.gt(H);
    return [
      to(x, g.where(inside, 0)),
      lo instanceof Tensor && below !== null ? to(lo, g.where(below, 0)) : null,
      hi instanceof Tensor && above !== null ? to(hi, g.where(above, 0)) : null,
    ];
  });
}

export function where(cond: Tensor, a: TensorLike, b: TensorLike, out: Tensor): Tensor {
  return record(out, "where", [a, b], [cond], (g, s) => [to(a, g.where(s[0], 0)), to(b, g.maskedFill(s[0], 0))]);
}

export function maskedFill(self: Tensor, mask: Tensor, value: TensorLike, out: Tensor): Tensor {
  return record(out, "maskedFill", [self, value], [mask], (g, s) => [
    to(self, g.maskedFill(s[0], 0)),
    value instanceof Tensor ? to(value, g.where(s[0].expand(g.shape), 0).sum()) : null,
  ]);
}

export function lerp(start: Tensor, end: TensorLike, weight: TensorLike, out: Tensor): Tensor {
  const [ss, se, sw] = slots(start, end, weight);
  return record(out, "lerp", [start, end, weight], tensors(start, end, weight), (g, s) => {
    const S = s[ss!], E = operand(end, se, s), W = operand(weight, sw, s);
    const gw = weight instanceof Tensor && weight.requiresGrad ? to(weight, g.mul(asTensor(E, g).sub(S))) : null;
    const ge = end instanceof Tensor && end.requiresGrad ? to(end, g.mul(W)) : null;
    return [to(start, g.mul(asTensor(W, g).neg().add(1))), ge, gw];
  });
}
