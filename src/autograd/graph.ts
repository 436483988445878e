/**
 * Reverse-mode autograd: the recorded graph and the backward pass. An op whose inputs
 * require gradients records a GradNode on its result (record()); backward() walks the
 * nodes from a result in reverse order of recording and hands each node the gradient of
 * its output, and its rule (autograd/rules/*.ts) returns its inputs' gradients. Rules are
 * TypeScript over the library's own ops, run with recording off, so their kernels are the
 * ordinary ones and fuse through the lazy path.
 *
 * Ownership and ordering. A node keeps what its rule needs as saved tensors: handles of
 * their own on the same storage (or the same pending node), exempt from pt.tidy, so
 * that disposing the op's inputs or result does not take them away. A node is counted
 * by the tensor it produced and by every node that consumed that tensor; when the count
 * falls to 0 (the result disposed and no recorded op used it) its saved tensors are
 * disposed and it lets go of its inputs' nodes. backward() disposes the saved tensors
 * of every node it ran, unless retainGraph; the gradients of leaves (tensors made by
 * the user with requiresGrad) accumulate into `leaf.grad`, which the leaf owns.
 */
import { TensorError } from "../base/errors.ts";
import { keepOwner } from "../runtime/ownership.ts";
import type { DType } from "../base/dtype.ts";
import { aliasOf, Tensor } from "../tensor/tensor.ts";
import { bufferVersion } from "../tensor/inplace.ts";
import { full } from "../tensor/creation.ts";
import { tidy } from "../tensor/tidy.ts";

/** Whether ops record gradients now: pt.noGrad and the backward pass itself turn it off. */
export let gradEnabled = true;

/** Runs fn with recording off (as `torch.no_grad`); restores the previous mode, also when fn throws. */
export function noGrad<T>(fn: () => T): T {
  const was = gradEnabled;
  gradEnabled = false;
  try {
    return fn();
  } finally {
    gradEnabled = was;
  }
}

/** Runs fn with recording on, also inside pt.noGrad (as `torch.enable_grad`). */
export function enableGrad<T>(fn: () => T): T {
  const was = gradEnabled;
  gradEnabled = true;
  try {
    return fn();
  } finally {
    gradEnabled = was;
  }
}

/** Floating-point dtypes: the only ones that carry gradients, as in PyTorch. */
export function differentiable(dtype: DType): boolean {
  return dtype === "float32" || dtype === "float64" || dtype === "float16" || dtype === "bfloat16";
}

/** Whether x is a tensor whose gradient is wanted (recording must be on too: see recording()). */
export function wantsGrad(x: unknown): boolean {
  return x instanceof Tensor && x.requiresGrad;
}

/** A saved tensor with the version of its storage when saved (tensor/inplace.ts counts in-place writes). */
class Saved {
  constructor(readonly tensor: Tensor, readonly version: number) {}
}

/**
 * A rule: given the gradient of the op's output (same shape and dtype as the output) and
 * the saved tensors, the gradient of each input, or null where the input needs none.
 * Each returned gradient has its input's shape (rules reduce broadcast dims themselves).
 */
export type Rule = (grad: Tensor, saved: readonly Tensor[]) => readonly (Tensor | null)[];

/** Where an input's gradient goes: the node that produced it, or the leaf tensor that accumulates it, or nowhere. */
type Edge = { node: GradNode; leaf: null } | { node: null; leaf: Tensor } | null;

/** One recorded op. */
export class GradNode {
  #refs = 1; // the result tensor
  #saved: Saved[] | null;
  /** True once backward ran this node without retainGraph (its saved tensors are gone). */
  spent = false;
  constructor(
    readonly op: string,
    readonly edges: readonly Edge[],
    saved: readonly Tensor[],
    readonly rule: Rule,
    readonly shape: readonly number[],
    readonly dtype: DType,
  ) {
    this.#saved = saved.map((t) => {
      const a = aliasOf(t, op);
      keepOwner(a); // owned by this node, not by the tidy scope that is open now
      return new Saved(a, a.isDeferred ? 0 : bufferVersion(a.buf));
    });
    for (const e of edges) if (e !== null && e.node !== null) e.node.#refs++;
  }

  /** The saved tensors, checked against in-place changes since they were saved. */
  savedTensors(): Tensor[] {
    if (this.#saved === null) {
      throw new TensorError(
        "backward",
        `trying to backward through ${this.op} a second time, after its saved tensors were freed; ` +
          "pass { retainGraph: true } to the first backward",
      );
    }
    return this.#saved.map((s) => {
      const v = s.tensor.isDeferred ? 0 : bufferVersion(s.tensor.buf);
      if (v !== s.version) {
        throw new TensorError(
          "backward",
          `a tensor that ${this.op} saved for the backward pass was modified in place afterwards (version ${v}, saved at ` +
            `version ${s.version}); clone it before modifying it, or modify it after backward`,
        );
      }
      return s.tensor;
    });
  }

  /** Frees the saved tensors (backward without retainGraph). */
  freeSaved(): void {
    if (this.#saved === null) return;
    for (const s of this.#saved) s.tensor.dispose();
    this.#saved = null;
    this.spent = true;
  }

  /** The result or a consumer is gone; the last one frees the node and lets go of its inputs. */
  unref(): void {
    if (--this.#refs > 0) return;
    if (this.#saved !== null) { for (const s of this.#saved) s.tensor.dispose(); }
    this.#saved = null;
    for (const e of this.edges) if (e !== null && e.node !== null) e.node.unref();
  }
}

function edgeOf(x: unknown): Edge {
  if (!(x instanceof Tensor) || !x.requiresGrad) return null;
  const node = x.gradFn;
  return node !== null ? { node, leaf: null } : { node: null, leaf: x };
}

/**
 * Records `out` as the result of op over `inputs` (tensors or scalars, in the rule's order),
 * when recording is on and an input requires gradients; `saved` are what the rule reads.
 * Returns out. Results of integer or bool dtype record nothing (they have no gradient).
 */
export function record(out: Tensor, op: string, inputs: readonly unknown[], saved: readonly Tensor[], rule: Rule): Tensor {
  if (!gradEnabled || !differentiable(out.dtype) || inputs.includes(out)) return out; // an op that returned its input records nothing
  const edges = inputs.map(edgeOf);
  if (edges.every((e) => e === null)) return out;
  out.setGradFn(new GradNode(op, edges, saved, rule, out.shape, out.dtype));
  return out;
}

/** Records each of several outputs of one op (sort's values, say) with its own rule. */
export function recordEach(outs: readonly Tensor[], op: string, inputs: readonly unknown[], saved: readonly Tensor[], rules: Rule[]): void {
  for (let i = 0; i < outs.length; i++) record(outs[i], op, inputs, saved, rules[i]);
}

/** Options of Tensor.backward. */
export interface BackwardOptions {
  /** Keep the saved tensors so that backward can run through the same graph again (default false). */
  retainGraph?: boolean;
}

/** The nodes reachable from root, each after every node that consumes its output (reverse topological order). */
function order(root: GradNode): GradNode[] {
  const out: GradNode[] = [], seen = new Set<GradNode>([root]);
  const stack: [GradNode, number][] = [[root, 0]];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [node, i] = top;
    if (i < node.edges.length) {
      top[1]++;
      const e = node.edges[i];
      if (e !== null && e.node !== null && !seen.has(e.node)) {
        seen.add(e.node);
        stack.push([e.node, 0]);
      }
    } else {
      out.push(node);
      stack.pop();
    }
  }
  return out.reverse();
}

function accumulate(into: Map<GradNode, Tensor>, node: GradNode, g: Tensor): void {
  const had = into.get(node);
  if (had === undefined) return void into.set(node, g);
  into.set(node, had.add(g));
  had.dispose();
  g.dispose();
}

function accumulateLeaf(leaf: Tensor, g: Tensor): void {
  const had = leaf.grad;
  const sum = had === null ? g : had.add(g);
  if (had !== null) g.dispose();
  keepOwner(sum);
  leaf.grad = sum; // disposes the old gradient
}

/** Checks a gradient a rule returned against its input. */
function checked(g: Tensor, node: GradNode, want: { shape: readonly number[] }): Tensor {
  if (g.shape.length !== want.shape.length || g.shape.some((d, i) => d !== want.shape[i])) {
    throw new TensorError("backward", `the ${node.op} rule returned a gradient of shape [${g.shape}] for an input of [${want.shape}]`);
  }
  return g;
}

/**
 * Computes the gradient of root with respect to every leaf it was computed from, adding
 * it into each leaf's `grad`. grad is d(loss)/d(root); it may be left out when root has one
 * element. Frees the graph's saved tensors unless retainGraph.
 */
export function backward(root: Tensor, grad: Tensor | undefined, opts: BackwardOptions = {}): void {
  if (!differentiable(root.dtype)) {
    throw new TensorError("backward", `a ${root.dtype} tensor has no gradient: only floating-point results are differentiable`);
  }
  if (!root.requiresGrad) {
    throw new TensorError(
      "backward",
      "this tensor does not require gradients and has no recorded op (make an input with { requiresGrad: true } or call requiresGrad_())",
    );
  }
  if (grad === undefined && root.numel !== 1) {
    throw new TensorError(
      "backward",
      `a gradient can be implied only for a tensor of one element; this one has shape [${root.shape}]: pass the gradient, ` +
        "or reduce it first (e.g. .sum())",
    );
  }
  if (grad !== undefined) {
    if (!(grad instanceof Tensor)) throw new TensorError("backward", "the gradient must be a Tensor");
    if (grad.shape.length !== root.shape.length || grad.shape.some((d, i) => d !== root.shape[i])) {
      throw new TensorError("backward", `the gradient has shape [${grad.shape}], the tensor [${root.shape}]`);
    }
    if (grad.dtype !== root.dtype) throw new TensorError("backward", `the gradient is ${grad.dtype}, the tensor ${root.dtype}`);
    if (grad.device !== root.device) {
      throw new TensorError("backward", `the gradient is on ${grad.device.id}, the tensor on ${root.device.id}`);
    }
  }
  const retain = opts.retainGraph === true;
  noGrad(() => {
    const seed = grad === undefined ? onesOf(root) : aliasOf(grad, "backward");
    const start = root.gradFn;
    if (start === null) return accumulateLeaf(root, seed);
    const nodes = order(start);
    const grads = new Map<GradNode, Tensor>([[start, seed]]);
    try {
      for (const node of nodes) {
        const g = grads.get(node);
        if (g === undefined) continue;
        grads.delete(node);
        let ins: (Tensor | null)[];
        try {
          const saved = node.savedTensors();
          ins = distinct(tidy(() => node.rule(g, saved)), g, node.op); // the rule's intermediates are freed
        } finally {
          g.dispose();
        }
        for (let i = 0; i < node.edges.length; i++) {
          const e = node.edges[i], gi = ins[i] ?? null;
          if (gi === null) continue;
          if (e === null) {
            gi.dispose();
            continue;
          }
          const target = e.node ?? e.leaf;
          const want = checked(gi, node, target);
          const typed = want.dtype === target.dtype ? want : castAndDrop(want, target.dtype);
          if (e.node !== null) accumulate(grads, e.node, typed);
          else accumulateLeaf(e.leaf, typed);
        }
      }
    } finally {
      for (const g of grads.values()) g.dispose();
      if (!retain) { for (const n of nodes) n.freeSaved(); }
    }
  });
}

/** The rule's gradients as tensors of their own: one returned twice, or the incoming gradient itself, gets an alias. */
function distinct(ins: readonly (Tensor | null)[], g: Tensor, op: string): (Tensor | null)[] {
  const seen = new Set<Tensor>([g]);
  return ins.map((t) => {
    if (t === null) return null;
    if (!seen.has(t)) return seen.add(t), t;
    return aliasOf(t, op);
  });
}

function castAndDrop(g: Tensor, dtype: DType): Tensor {
  const c = g.to(dtype);
  g.dispose();
  return c;
}

function onesOf(t: Tensor): Tensor {
  return full(t.shape, 1, { device: t.device, dtype: t.dtype });
}
