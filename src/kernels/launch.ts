/**
 * Turns IR and templates into programs for a device (through the renderer its language
 * names) and launches them. Programs are cached per device by their structural key.
 */
import { native } from "../runtime/native.ts";
import type { Device } from "../runtime/device.ts";
import { ArgBlock, type ViewRef } from "./block.ts";
import { slotsOf, VIEW_SLOTS } from "./slots.ts";
import { encodeBytecode, type Expr, exprKey, sameExpr } from "./ir.ts";
import { type OpName, TensorError, underOp, withOp } from "../base/errors.ts";
import { DTYPES } from "../base/dtype.ts";
import { queuedOn, queueFailure, queueFor, scoped } from "../runtime/queue.ts";

/** A renderer turns IR into a program of the device's kernel language. */
export interface Renderer {
  elementwise(expr: Expr, ninputs: number): { kind: string; source: Uint8Array; key: string };
  /**
   * Optional: the same program for the linear layout only (every view contiguous over one
   * dim, view v in buffer v, with these dtype codes, output first), which a language may
   * make cheaper per launch. Same argument block as elementwise.
   */
  elementwiseLinear?(expr: Expr, ninputs: number, dtypes: readonly number[]): { kind: string; source: Uint8Array; key: string };
  /**
   * Optional: the "ewreduce" program of expr (blocks.h: a reduction of the expression's
   * values, row by row, in the order the reduce template walks them once materialized),
   * which may be specialized for the reduce op `op` (launches then carry that op). A device
   * whose renderer lacks it materializes the expression before reducing.
   */
  elementwiseReduce?(expr: Expr, ninputs: number, op: number): { kind: string; source: Uint8Array; key: string };
  template(name: string): { kind: string; source: Uint8Array; key: string };
}

/** A template name's program kind (blocks.h): the name up to a dot, after which a variant of the kind is named. */
export const kindOf = (name: string): string => name.split(".")[0];

/**
 * A Renderer for a source language, from its elementwise and template source functions:
 * programs are named by structure (the bytecode; the template name) with keys
 * "<prefix>:<bytecode>" and "<prefix>:t:<name>", and sources end with a NUL byte so a
 * driver may hand them to a C compiler API as they are. Renderers cache nothing: a device
 * renders a program only when its own cache (Device.programFor) lacks it.
 */
export function sourceRenderer(
  prefix: string,
  ew: (words: Int32Array, linear?: readonly number[]) => string,
  template: (name: string) => string,
  specializesLinear = false,
  ewReduce?: (words: Int32Array, op: number) => string,
  /** Whether ewReduce's programs are specialized by op (keyed by it), or serve every op. */
  reducePerOp = false,
): Renderer {
  const encoder = new TextEncoder();
  const prog = (key: string, kind: string, text: string) => ({ kind, source: encoder.encode(`${text}\0`), key });
  return {
    elementwise(expr, ninputs) {
      const words = encodeBytecode(expr, ninputs);
      return prog(`${prefix}:${words.join(",")}`, "ew", ew(words));
    },
    template: (name) => prog(`${prefix}:t:${name}`, kindOf(name), template(name)),
    ...(specializesLinear && {
      elementwiseLinear(expr: Expr, ninputs: number, dtypes: readonly number[]) {
        const words = encodeBytecode(expr, ninputs);
        return prog(`${prefix}:L${dtypes.join(".")}:${words.join(",")}`, "ew", ew(words, dtypes));
      },
    }),
    ...(ewReduce && {
      elementwiseReduce(expr: Expr, ninputs: number, op: number) {
        const words = encodeBytecode(expr, ninputs);
        return prog(`${prefix}:R${reducePerOp ? op : ""}:${words.join(",")}`, "ewreduce", ewReduce(words, op));
      },
    }),
  };
}

const renderers = new Map<string, Renderer>();

/** Backends register the renderer of their language here. */
export function registerRenderer(language: string, r: Renderer): void {
  renderers.set(language, r);
}

/** The renderer of the device's kernel language (exported for tests that build programs by hand). */
export function rendererFor(device: Device): Renderer {
  const r = renderers.get(device.info.language);
  if (!r) throw new TensorError("launch", `no kernel renderer for language "${device.info.language}" of ${device.id}`);
  return r;
}

function launch(device: Device, program: number, block: ArgBlock, op: OpName): void {
  const args = block.finish();
  // Outside withQueue (the common case) this is one load and two checks more than a bare launch; the core orders buffers across queues.
  const q = scoped === null ? device.queue : queueFor(device);
  if (device.capturing !== 0 && q !== device.capturing) {
    throw new TensorError(op, `${device.id} is capturing a step on another queue; work inside a step must stay on its queue`);
  }
  const st = native.pt_launch(q, program, args, args.length);
  if (st < 0) queueFailure(q, st, op);
  if (scoped === null) device.queued();
  else queuedOn(device, q);
}

/**
 * Per device: its renderer, and the last few elementwise lookups, matched by comparing trees,
 * so that a loop of small ops finds its program without building the string key (a fifth of
 * the lookup's cost). The programs themselves live in the device's one cache (programFor),
 * under structural keys: "ew:<inputs>:<tree>" (":L<dtypes>" for the linear layout),
 * "ewreduce:<op>:<inputs>:<tree>", "t:<template>".
 */
interface Lookup {
  epoch: number;
  renderer: Renderer;
  recent: { expr: Expr; ninputs: number; linear: number; program: number }[];
  next: number;
}
const RECENT = 8;
const lookups = new WeakMap<Device, Lookup>();

function lookupOf(device: Device): Lookup {
  let l = lookups.get(device);
  if (!l || l.epoch !== device.epoch) { // close() empties the device's cache: the handles here went with it
    lookups.set(device, l = { epoch: device.epoch, renderer: rendererFor(device), recent: [], next: 0 });
  }
  return l;
}

/**
 * The program of expr, by structure; for the linear layout (`linear` >= 0: the views' dtype
 * codes packed in base 16, output first) the renderer's linear program of those dtypes.
 */
function elementwiseProgram(device: Device, l: Lookup, expr: Expr, ninputs: number, linear: number): number {
  for (const r of l.recent) if (r.ninputs === ninputs && r.linear === linear && sameExpr(r.expr, expr)) return r.program;
  const program = programByKey(device, l.renderer, expr, ninputs, linear);
  l.recent[l.next] = { expr, ninputs, linear, program };
  l.next = (l.next + 1) % RECENT;
  return program;
}

function programByKey(device: Device, renderer: Renderer, expr: Expr, ninputs: number, linear: number): number {
  const key = linear >= 0 ? `ew:${ninputs}:${exprKey(expr)}:L${linear}` : `ew:${ninputs}:${exprKey(expr)}`;
  return device.programFor(key, ninputs + 1, () =>
    // its layout: output + inputs views
    linear >= 0
      ? renderer.elementwiseLinear!(
        expr,
        ninputs,
        Array.from({ length: ninputs + 1 }, (_, v) => Math.floor(linear / 16 ** (ninputs - v)) % 16),
      )
      : renderer.elementwise(expr, ninputs));
}

/**
 * The program a launch of expr takes on device, from the device's cache (rendered and compiled on a miss): the general
 * one, or with `dtypes` (the views' dtype codes, output first) the linear-layout one, where the renderer has one. For tests.
 */
export function elementwiseProgramFor(device: Device, expr: Expr, ninputs: number, dtypes?: readonly number[]): number {
  const l = lookupOf(device);
  const linear = dtypes === undefined || !l.renderer.elementwiseLinear ? -1 : dtypes.reduce((acc, c) => acc * 16 + c, 0);
  return programByKey(device, l.renderer, expr, ninputs, linear);
}

/**
 * Merges adjacent dims that every view walks as one (stride[d] = stride[d+1] * shape[d+1])
 * and drops dims of size 1, so kernels do less index arithmetic per element. Row-major
 * element order, and with it the INDEX op's value, is unchanged.
 */
function collapse(shape: readonly number[], views: readonly ViewRef[]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = [];
  for (let k = 0; k < views.length; k++) outStrides.push([]);
  for (let d = 0; d < shape.length; d++) { // loops, not closures: this runs once per launch
    const size = shape[d];
    if (size === 1) continue;
    const last = outShape.length - 1;
    let merge = last >= 0;
    for (let k = 0; merge && k < views.length; k++) merge = outStrides[k][last] === views[k].strides[d] * size;
    if (merge) outShape[last] *= size;
    else outShape.push(size);
    for (let k = 0; k < views.length; k++) outStrides[k][merge ? last : last + 1] = views[k].strides[d];
  }
  return { shape: outShape, strides: outStrides };
}

/** The ew and ewreduce slots (slots.ts), placed by at() on these hot paths instead of fill's walk of the table. */
const EW = slotsOf("ew"), EWR = slotsOf("ewreduce");

/** Runs expr over `shape`, writing `out`; inputs are views already broadcast to shape. */
export function runElementwise(
  device: Device,
  op: OpName,
  expr: Expr,
  shape: readonly number[],
  out: ViewRef,
  inputs: readonly ViewRef[],
  consts: readonly number[],
): void {
  const block = new ArgBlock();
  let program: number;
  try { // no closures here: this runs once per eager op
    const views: ViewRef[] = [out];
    for (let k = 0; k < inputs.length; k++) views.push(inputs[k]);
    const c = shape.length > 1 ? collapse(shape, views) : null; // rank <= 1: the views' own strides
    const cshape = c === null ? shape : c.shape;
    block.at(EW.rank).put(cshape.length).at(EW.shape).pad8(cshape, 1).at(EW.nviews).put(views.length);
    for (let k = 0; k < views.length; k++) block.at(EW.views + VIEW_SLOTS * k).view(views[k], c === null ? views[k].strides : c.strides[k]);
    const l = lookupOf(device);
    const linear = l.renderer.elementwiseLinear ? linearLayout(cshape, c === null ? null : c.strides, views) : -1;
    program = elementwiseProgram(device, l, expr, inputs.length, linear);
    block.at(EW.nconst + VIEW_SLOTS * views.length).put(consts.length);
    for (let i = 0; i < consts.length; i++) block.put(consts[i]);
  } catch (e) {
    block.abandon();
    throw underOp(op, e);
  }
  launch(device, program, block, op);
}

/** Whether the device's renderer has "ewreduce" programs (else a reduction materializes its input first). */
export function fusesReductions(device: Device): boolean {
  return lookupOf(device).renderer.elementwiseReduce !== undefined;
}

/**
 * A reduction of expr's values (blocks.h "ewreduce"): row r < rows of the row-major
 * elements [start + r * rowlen, start + (r + 1) * rowlen) of the expression over `shape`
 * (inputs already broadcast to it) is reduced by `reduceOp` into out at element r * outStride.
 */
export function runElementwiseReduce(
  device: Device,
  op: string,
  expr: Expr,
  shape: readonly number[],
  inputs: readonly ViewRef[],
  consts: readonly number[],
  reduce: { op: number; ddof: number; start: number; rows: number; rowlen: number },
  out: ViewRef,
  outStride: number,
): void {
  const block = new ArgBlock();
  let program: number;
  try {
    program = withOp(op, () => {
      const c = shape.length > 1 ? collapse(shape, inputs) : { shape, strides: inputs.map((v) => v.strides) };
      block.at(EWR.op).put(reduce.op).at(EWR.ddof).put(reduce.ddof).at(EWR.rank).put(c.shape.length).at(EWR.shape).pad8(c.shape, 1);
      block.at(EWR.start).put(reduce.start).at(EWR.rows).put(reduce.rows).at(EWR.rowlen).put(reduce.rowlen);
      block.at(EWR.nviews).put(inputs.length + 1).at(EWR.views).view(out, [outStride]); // view 0: OUT
      inputs.forEach((v, k) => block.at(EWR.views + VIEW_SLOTS * (k + 1)).view(v, c.strides[k]));
      const renderer = lookupOf(device).renderer;
      const key = `ewreduce:${reduce.op}:${inputs.length}:${exprKey(expr)}`;
      return device.programFor(key, inputs.length + 1, () => renderer.elementwiseReduce!(expr, inputs.length, reduce.op));
    });
    block.at(EWR.nconst + VIEW_SLOTS * (inputs.length + 1)).push(consts.length, ...consts);
  } catch (e) {
    block.abandon();
    throw e;
  }
  launch(device, program, block, op);
}

/**
 * The views' dtype codes packed in base 16 (view 0 most significant) when the launch has the
 * linear layout (rank <= 1 after collapsing, unit strides, one buffer per view, so the
 * block gives view v buffer index v), else -1 (also past 13 views, where 16^n stops being exact).
 * `strides` are the collapsed strides, or null when the views' own are used (rank <= 1).
 */
function linearLayout(shape: readonly number[], strides: readonly (readonly number[])[] | null, views: readonly ViewRef[]): number {
  if (shape.length > 1 || views.length > 13) return -1;
  let packed = 0;
  for (let k = 0; k < views.length; k++) {
    if (shape.length === 1 && (strides === null ? views[k].strides : strides[k])[0] !== 1) return -1;
    for (let j = 0; j < k; j++) if (views[j].buf === views[k].buf) return -1;
    packed = packed * 16 + DTYPES[views[k].dtype].code;
  }
  return packed;
}

/**
 * Waits for a kernel that can fail on its data (an index out of range in error mode, an
 * integer division by zero) so the failure is raised by the op that caused it, not by
 * whatever later read happens to synchronise. On devices that run work at launch this
 * costs one cheap call; elsewhere it is the price of an exact error for these ops only.
 */
export function settle(device: Device, op: string): void {
  if (device.capturing !== 0) return; // a host wait cannot be recorded: the replay's sync reports it
  const st = native.pt_device_sync(device.handle);
  if (st < 0) queueFailure(queueFor(device), st, op);
}

/** Runs a built-in template (reduce, sort, gather, ...) with a block the caller filled. */
export function runTemplate(device: Device, name: string, op: string, fill: (b: ArgBlock) => void): void {
  const program = device.programFor(`t:${name}`, 0, () => lookupOf(device).renderer.template(name));
  const block = new ArgBlock();
  try {
    withOp(op, () => fill(block));
  } catch (e) {
    block.abandon();
    throw e;
  }
  launch(device, program, block, op);
}
