/**
 * Recording an elementwise op as a deferred node: its expression, with each deferred
 * operand of the same shape inlined (fusion) and every other operand a strided leaf.
 *
 * What may be inlined keeps results identical to eager mode bit for bit: a deferred operand
 * is inlined only when its stored value equals the value its expression computes, i.e. its
 * dtype computes in its own storage type (float32, float64, int32, int64, and bool made by
 * a comparison or logic op). float16, bfloat16, uint8, int8 and int16 results round or wrap when stored,
 * so such an operand runs first and is read back as a leaf. An operand that would be
 * broadcast (recomputed per output element) is materialized instead, and programs stay
 * within the argument-block and register limits of every renderer.
 */
import type { Device } from "../runtime/device.ts";
import type { Expr } from "../kernels/ir.ts";
import type { DType } from "../base/dtype.ts";
import { broadcastStrides, sameShape, sealed } from "../base/shape.ts";
import { Deferred, type Leaf, type LeafRefs, type OpTrail, retainLeaves } from "./deferred.ts";

/** What record() needs from a tensor operand (tensor.ts implements it). */
export interface Operand {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
  /** The node this handle stands for while it is deferred, else null. */
  readonly deferred: Deferred | null;
  /** The buffer handle; materializes a deferred operand. */
  readonly buf: number;
}

const MAX_LEAVES = 12, MAX_CONSTS = 64, MAX_NODES = 64, MAX_DEPTH = 24;
const LEAF_SIZE = { nodes: 1, depth: 1 };
const NO_TRAILS: readonly OpTrail[] = [];
const BOOL_ROOTS = new Set([
  "eq",
  "ne",
  "lt",
  "le",
  "gt",
  "ge",
  "logicalAnd",
  "logicalOr",
  "logicalXor",
  "logicalNot",
  "isnan",
  "isinf",
  "isfinite",
  "nonzero",
]);

/** Whether n's stored value is the value its expression computes (so a consumer may inline it). */
export function storesExactly(n: Deferred): boolean {
  const d = n.dtype; // compares, not a Set: this runs for every inlined operand
  if (d === "float32" || d === "float64" || d === "int32" || d === "int64") return true;
  const e = n.expr;
  return n.dtype === "bool" && (e.k === "unary" || e.k === "binary") && BOOL_ROOTS.has(e.op);
}

/** Whether operand x, which stands for node n, is inlined into an op over `shape`. */
function inlines(n: Deferred, x: Operand, shape: readonly number[]): boolean {
  return n.buffer === 0 && n.refs !== null && sameShape(x.shape, shape) && storesExactly(n);
}

/**
 * record() for the common step of a chain: one operand, node n inlined whole, and the op's
 * constants (expr reads the operand as load 0 and its constants from 0).
 */
function chainStep(device: Device, op: string, expr: Expr, n: Deferred, consts: readonly number[]): Deferred | undefined {
  const s = size(expr, [{ nodes: n.nodes, depth: n.depth }]); // plain objects only: size() stays monomorphic
  return stepNode(device, op, rewrite(expr, [n.expr], n.consts.length), n, consts, s.nodes, s.depth);
}

/**
 * The node of a chain step whose expr has n's tree inlined and its own constants numbered
 * after n's, of the given size: it reads n's leaves (sharing their references) and n's
 * constants followed by its own, so it needs none of the general path's leaf matching.
 * Undefined when the program would pass the limits.
 */
function stepNode(
  device: Device,
  op: string,
  expr: Expr,
  n: Deferred,
  consts: readonly number[],
  nodes: number,
  depth: number,
): Deferred | undefined {
  if (n.consts.length + consts.length > MAX_CONSTS || nodes > MAX_NODES || depth > MAX_DEPTH) return undefined;
  const node = new Deferred(
    device,
    expr.dtype,
    n.shape, // sealed, and equal to the op's shape (inlines())
    expr,
    (n.refs as LeafRefs).share(),
    consts.length === 0 ? n.consts : withAll(n.consts, consts),
    { op, from: [n.trail] },
  );
  node.nodes = nodes;
  node.depth = depth;
  return node;
}

/**
 * How an op over one tensor x (unbroadcast) and constants is recorded as a step of x's
 * chain: through `via`, x's node inlined (a later step), or null, x's memory as load 0 (the
 * first step); undefined when the op takes the general path.
 */
export function stepVia(x: Operand): Deferred | null | undefined {
  const n = x.deferred;
  if (n === null) return null;
  return inlines(n, x, x.shape) ? n : undefined;
}

/**
 * record() of an op over one tensor x and constants, whose expr reads x through `via`
 * (stepVia: x's node's tree, with the op's constants numbered after the node's; or load 0)
 * and adds `grow` nodes and `rise` levels above it (the caller built expr, so it knows;
 * walking the tree to count them cost as much as the rest of the step). Undefined when the
 * program would pass the size limits: the caller takes the general path, which runs the
 * op eagerly. Skips the general path's operand gathering and expression rewriting on the
 * hot tensor-op-scalar ops.
 */
export function recordStep(
  device: Device,
  op: string,
  expr: Expr,
  x: Operand,
  via: Deferred | null,
  consts: readonly number[],
  grow: number,
  rise: number,
): Deferred | undefined {
  if (via !== null) return stepNode(device, op, expr, via, consts, via.nodes + grow, via.depth + rise);
  // The first step: one leaf, so expr's loads and constants keep their indices.
  const leaves: Leaf[] = [{ buf: x.buf, dtype: x.dtype, offset: x.offset, strides: x.strides }];
  const node = new Deferred(device, expr.dtype, x.shape, expr, retainLeaves(leaves, op), consts, { op, from: NO_TRAILS });
  node.nodes = 1 + grow;
  node.depth = 1 + rise;
  return node;
}

/**
 * a then b, into an array made at its size: for arrays this small a loop is several times
 * cheaper than concat() or slice() and push() under both runtimes (docs/measurements.md).
 */
function withAll(a: readonly number[], b: readonly number[]): number[] {
  const n = a.length, out = new Array<number>(n + b.length);
  for (let i = 0; i < n; i++) out[i] = a[i];
  for (let i = 0; i < b.length; i++) out[n + i] = b[i];
  return out;
}

/** Nodes and depth of e, where load i stands for a subtree of parts[i]'s size. */
function size(e: Expr, parts: readonly { nodes: number; depth: number }[]): { nodes: number; depth: number } {
  switch (e.k) {
    case "load":
      return parts[e.input];
    case "const":
    case "index":
      return { nodes: 1, depth: 1 };
    case "cast":
    case "unary": {
      const a = size(e.a, parts);
      return { nodes: a.nodes + 1, depth: a.depth + 1 };
    }
    case "binary": {
      const a = size(e.a, parts), b = size(e.b, parts);
      return { nodes: a.nodes + b.nodes + 1, depth: Math.max(a.depth, b.depth) + 1 };
    }
    case "where": {
      const c = size(e.c, parts), a = size(e.a, parts), b = size(e.b, parts);
      return { nodes: a.nodes + b.nodes + c.nodes + 1, depth: Math.max(a.depth, b.depth, c.depth) + 1 };
    }
  }
}

function isIdentity(map: readonly number[]): boolean {
  for (let i = 0; i < map.length; i++) if (map[i] !== i) return false;
  return true;
}

/** Rewrites loads and constants of e: load i -> loads[i], const j -> const (j + shift). */
function rewrite(e: Expr, loads: readonly Expr[], shift: number): Expr {
  switch (e.k) {
    case "load":
      return loads[e.input];
    case "const":
      return shift === 0 ? e : { k: "const", index: e.index + shift, dtype: e.dtype };
    case "index":
      return e;
    case "cast":
      return { k: "cast", a: rewrite(e.a, loads, shift), dtype: e.dtype };
    case "unary":
      return { k: "unary", op: e.op, a: rewrite(e.a, loads, shift), dtype: e.dtype };
    case "binary":
      return { k: "binary", op: e.op, a: rewrite(e.a, loads, shift), b: rewrite(e.b, loads, shift), dtype: e.dtype };
    case "where":
      return { k: "where", c: rewrite(e.c, loads, shift), a: rewrite(e.a, loads, shift), b: rewrite(e.b, loads, shift), dtype: e.dtype };
  }
}

function sameLeaf(x: Leaf, l: Leaf): boolean {
  return x.buf === l.buf && x.dtype === l.dtype && x.offset === l.offset && sameShape(x.strides, l.strides);
}

class LeafSet {
  readonly list: Leaf[] = [];
  index(l: Leaf): number {
    for (let i = 0; i < this.list.length; i++) if (sameLeaf(this.list[i], l)) return i;
    return this.list.push(l) - 1;
  }
}

/**
 * A deferred node for `expr` (whose loads index `inputs`, broadcast to `shape`), or
 * undefined when the op should run eagerly (too big to fuse).
 */
export function record(
  device: Device,
  op: string,
  expr: Expr,
  inputs: readonly Operand[],
  consts: readonly number[],
  shape: readonly number[],
): Deferred | undefined {
  if (inputs.length === 1) {
    const n = inputs[0].deferred;
    if (n !== null && inlines(n, inputs[0], shape)) return chainStep(device, op, expr, n, consts);
  }
  const leaves = new LeafSet();
  // Inlined operands' constants come first and the op's own last, so the first inlined tree
  // keeps its constants' indices (and usually its loads'), and is shared, not copied.
  const allConsts: number[] = [];
  const trails: OpTrail[] = [];
  const sizes: { nodes: number; depth: number }[] = [];
  const parts: Expr[] = [];
  for (const x of inputs) { // a loop, not map(): this runs once per recorded op
    const n = x.deferred;
    if (n !== null && inlines(n, x, shape)) {
      sizes.push({ nodes: n.nodes, depth: n.depth });
      const nl = n.leaves, map: number[] = [];
      for (let i = 0; i < nl.length; i++) map.push(leaves.index(nl[i]));
      const shift = allConsts.length;
      for (let i = 0; i < n.consts.length; i++) allConsts.push(n.consts[i]);
      trails.push(n.trail);
      // Trees are immutable, so one whose loads and constants keep their indices is shared
      // as it is: a chain of ops then copies no subtree (each copy grew with the chain).
      if (shift === 0 && isIdentity(map)) parts.push(n.expr);
      else {
        const loads: Expr[] = [];
        for (let i = 0; i < nl.length; i++) loads.push({ k: "load", input: map[i], dtype: nl[i].dtype });
        parts.push(rewrite(n.expr, loads, shift));
      }
      continue;
    }
    const buf = n !== null && n.buffer !== 0 ? n.buffer : x.buf;
    sizes.push(LEAF_SIZE);
    const strides = broadcastStrides(x.shape, x.strides, shape);
    parts.push({ k: "load", input: leaves.index({ buf, dtype: x.dtype, offset: x.offset, strides }), dtype: x.dtype });
  }
  const ownShift = allConsts.length;
  for (let i = 0; i < consts.length; i++) allConsts.push(consts[i]);
  const s = size(expr, sizes);
  if (leaves.list.length > MAX_LEAVES || allConsts.length > MAX_CONSTS || s.nodes > MAX_NODES || s.depth > MAX_DEPTH) return undefined;
  const refs = retainLeaves(leaves.list, op); // chainStep shares a chain's references; an op joining others takes its own
  const node = new Deferred(
    device,
    expr.dtype,
    sealed(shape),
    rewrite(expr, parts, ownShift),
    refs,
    allConsts,
    { op, from: trails.length === 0 ? NO_TRAILS : trails },
  );
  node.nodes = s.nodes;
  node.depth = s.depth;
  return node;
}
