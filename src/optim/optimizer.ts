/**
 * The optimizer base (torch.optim.Optimizer): parameter groups, zeroGrad, step, the state
 * dict, and the device-resident hyperparameters every algorithm reads.
 *
 * Updates. Each algorithm (sgd.ts, adam.ts) writes a parameter and each state tensor with
 * one in-place write (tensor/inplace.ts writeInto, through assign() below): the new value is
 * one lazy expression of the parameter, its gradient and its state, and its fused kernel
 * writes the tensor's own storage (views of it see the update). The gradient's expression,
 * when backward left it pending, fuses into each kernel that reads it.
 *
 * Captured steps. pt.capture replays device work without running JavaScript, so every number
 * that changes from step to step lives in a device tensor that the step updates in place:
 * each group's learning rate (a 0-d tensor per device and dtype, written by the `lr` setter
 * and the schedulers), Adam's step count and bias corrections, and SGD's "momentum buffer
 * started" flag. Constant hyperparameters (momentum, betas, eps, weight decay) are JS
 * numbers that become kernel constants. Every state tensor is made, with its initial value,
 * when the optimizer is made (not on the first step, as PyTorch does), so that the first
 * step does the same device work as every later one and may itself be the one a capture
 * records.
 */
import { differentiable, noGrad } from "../autograd/graph.ts";
import type { Device } from "../runtime/device.ts";
import { TensorError } from "../base/errors.ts";
import { keepOwner } from "../runtime/ownership.ts";
import { full } from "../tensor/creation.ts";
import type { DType } from "../base/dtype.ts";
import { writeInto } from "../tensor/inplace.ts";
import { Tensor } from "../tensor/tensor.ts";
import { tidy } from "../tensor/tidy.ts";

/** The options every parameter group has: its learning rate. */
export interface GroupOptions {
  /** The learning rate (>= 0). */
  lr: number;
}

/**
 * A parameter group as given to an optimizer, as PyTorch's `{"params": [...], "lr": ...}` dicts: its parameters and any
 * options that override the optimizer's.
 */
export type ParamGroupInit<O> = { readonly params: readonly Tensor[] } & { readonly [K in keyof O]?: O[K] };

/** What an optimizer takes: the parameters (one group), or parameter groups. */
export type ParamsInit<O> = readonly Tensor[] | readonly ParamGroupInit<O>[];

/** The saved state of one parameter in a state dict: tensors (copies the caller owns) and numbers. */
export interface SavedParamState {
  /** A state tensor (a copy) or number, by the camelCase form of PyTorch's name (`momentumBuffer`, `expAvg`, `step`). */
  [name: string]: Tensor | number;
}

/** The saved options of one parameter group in a state dict, and the indices of its parameters. */
export interface SavedParamGroup {
  /** The indices of the group's parameters, counted over all groups in order (as PyTorch's state dict). */
  params: number[];
  /** The learning rate. */
  lr: number;
  /** The group's other options, by name (`momentum`, `betas`, ...). */
  [option: string]: number | boolean | readonly number[];
}

/**
 * An optimizer's state as `stateDict()` returns it and `loadStateDict()` takes it, as PyTorch's `state_dict()`: the state
 * of each parameter that has been updated, by its index over all groups, and each group's options.
 */
export interface OptimizerStateDict {
  /** The state of each parameter updated at least once, by index. */
  state: { [index: number]: SavedParamState };
  /** The options of each group, in order. */
  paramGroups: SavedParamGroup[];
}

/** The dtype an update computes in: float64 for float64 parameters, else float32 (PyTorch's opmath for half types). */
export function opDType(p: Tensor): DType {
  return p.dtype === "float64" ? "float64" : "float32";
}

/** t in the update's compute dtype (a fused cast when it differs). */
export function up(t: Tensor, dt: DType): Tensor {
  return t.dtype === dt ? t : t.cast(dt);
}

/** t in dtype dt, for the value an in-place write adds into a tensor of that dtype (so the write's kernel is the update's). */
export function down(t: Tensor, dt: DType): Tensor {
  return t.dtype === dt ? t : t.cast(dt);
}

/**
 * Writes the value `build` returns (a new tensor: the last op of an expression, in dst's shape) into dst's own storage, as
 * `dst.copy_(value)` does but as one fused kernel where the lazy path allows: build's intermediates are freed before the
 * write, so the value's pending node is the only pending reader of dst left (tensor/inplace.ts launches every other one
 * first, and a copy_ argument's handle would be one), and its kernel writes dst directly.
 */
export function assign(dst: Tensor, op: string, build: () => Tensor): void {
  writeInto(dst, tidy(() => down(build(), dst.dtype)), op, true);
}

/** A device tensor that the optimizer owns (exempt from pt.tidy scopes), with its value computed now. */
export function owned(t: Tensor): Tensor {
  keepOwner(t);
  return t.materialize();
}

/** A 0-d tensor of value on device, owned by the optimizer. */
export function deviceScalar(value: number, device: Device, dtype: DType): Tensor {
  return owned(full([], value, { device, dtype }));
}

/** Throws unless v is a finite number >= 0 (or > 0 with `positive`). */
export function checkNumber(op: string, what: string, v: unknown, positive = false): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (positive && v === 0)) {
    throw new TensorError(op, `invalid ${what}: ${describe(v)} (must be a finite number ${positive ? "> 0" : ">= 0"})`);
  }
  return v;
}

/** A saved state tensor for p: a live tensor of p's shape (any device and floating dtype: the restore moves and casts it). */
export function checkedTensor(t: unknown, p: Tensor, name: string, where: string): Tensor {
  if (!(t instanceof Tensor)) throw new TensorError(where, `${name} is ${describe(t)}, not a Tensor`);
  if (t.disposed) throw new TensorError(where, `${name} was disposed`);
  if (!differentiable(t.dtype)) throw new TensorError(where, `${name} is ${t.dtype}, not a floating-point tensor`);
  if (t.shape.length !== p.shape.length || t.shape.some((d, i) => d !== p.shape[i])) {
    throw new TensorError(where, `${name} has shape [${t.shape.join(", ")}], the parameter [${p.shape.join(", ")}]`);
  }
  return t;
}

/** src copied into dst (moved to dst's device first, and cast to its dtype). */
export function restoreInto(dst: Tensor, src: Tensor): void {
  if (src.device === dst.device) dst.copy_(src);
  else {
    using moved = src.to(dst.device);
    dst.copy_(moved);
  }
}

/** Throws unless v is a boolean. */
export function checkBoolean(op: string, what: string, v: unknown): boolean {
  if (typeof v !== "boolean") throw new TensorError(op, `invalid ${what}: ${describe(v)} (must be true or false)`);
  return v;
}

/** A value as an error message shows it. */
export function describe(v: unknown): string {
  if (v instanceof Tensor) return `a Tensor`;
  if (Array.isArray(v)) return `[${v.map(describe).join(", ")}]`;
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || v === undefined || typeof v !== "object") return String(v);
  return "an object";
}

/**
 * One parameter group, as an entry of PyTorch's `optimizer.param_groups`: its parameters, its options, and its learning
 * rate, which can be changed between steps (schedulers do). The learning rate lives in a device tensor per device and
 * dtype the group's parameters use, so a step captured with `pt.capture` reads the value set before each replay.
 */
export class ParamGroup<O extends GroupOptions = GroupOptions> {
  /** The parameters this group updates, in order. */
  readonly params: readonly Tensor[];
  readonly #owner: string;
  #options: O;
  /** The learning rate as a 0-d tensor, by device id and the compute dtype of the parameters that read it. */
  readonly #lr = new Map<string, Tensor>();

  /** @internal Made by the optimizer. */
  constructor(owner: string, params: readonly Tensor[], options: O) {
    this.#owner = owner;
    this.params = Object.freeze([...params]);
    this.#options = Object.freeze({ ...options });
    for (const p of params) {
      const key = keyOf(p);
      if (!this.#lr.has(key)) this.#lr.set(key, deviceScalar(options.lr, p.device, opDType(p)));
    }
  }

  /** The group's options (a frozen copy; the learning rate is changed through `lr`). */
  get options(): Readonly<O> {
    return this.#options;
  }

  /** The learning rate. */
  get lr(): number {
    return this.#options.lr;
  }
  /**
   * Sets the learning rate for the following steps (written to the device tensors the updates read, in queue order).
   * Set it outside a captured step: inside one, the write is recorded with this value and replayed with it.
   *
   * @throws {TensorError} when lr is not a finite number >= 0.
   */
  set lr(lr: number) {
    checkNumber(this.#owner, "learning rate", lr);
    this.#options = Object.freeze({ ...this.#options, lr });
    for (const t of this.#lr.values()) t.fill_(lr);
  }

  /** @internal The learning rate as the 0-d tensor p's update reads. */
  lrOf(p: Tensor): Tensor {
    return this.#lr.get(keyOf(p))!;
  }

  /** @internal Replaces the options (loadStateDict: already checked), writing the learning rate. */
  setOptions(options: O): void {
    this.#options = Object.freeze({ ...options });
    for (const t of this.#lr.values()) t.fill_(options.lr);
  }

  /** @internal Frees the learning rate tensors. */
  dispose(): void {
    for (const t of this.#lr.values()) t.dispose();
    this.#lr.clear();
  }
}

function keyOf(p: Tensor): string {
  return `${p.device.id}/${opDType(p)}`;
}

/** @internal What one algorithm does to a parameter, and how it keeps, saves and restores the parameter's state. */
export interface Algorithm<O extends GroupOptions, S> {
  /** The optimizer's name, as errors show it ("SGD"). */
  readonly name: string;
  /** The options a group has, with their defaults (undefined: required). */
  readonly defaults: { readonly [K in keyof O]: O[K] | undefined };
  /** Throws a TensorError (op `where`) for a bad option value; returns the options as kept (copies of arrays). */
  check(o: O, where: string): O;
  /** The state of parameter p with its initial values (made when the optimizer is). */
  init(p: Tensor, o: O): S;
  /** One update of p from its gradient g (p's shape and device), under noGrad and a tidy scope. */
  update(p: Tensor, g: Tensor, s: S, group: ParamGroup<O>): void;
  /** The state to save for p (copies), or null when it has none. */
  save(s: S, o: O): SavedParamState | null;
  /**
   * Checks `saved` (p's saved state, or undefined for none) against p and the options o it will be used with (a TensorError
   * for op `where` when it does not fit), and returns what restores it (or p's initial state), run once every parameter's
   * state was checked.
   */
  load(p: Tensor, s: S, saved: SavedParamState | undefined, o: O, where: string): () => void;
  /** Frees the state's tensors. */
  free(s: S): void;
}

/**
 * The base of the optimizers, as `torch.optim.Optimizer`: parameter groups, `zeroGrad`, `step`, `stateDict` and
 * `loadStateDict`. Its subclasses are `SGD`, `Adam` and `AdamW`; the schedulers (`StepLR`, `CosineAnnealingLR`) take any.
 * The optimizer owns its state tensors (pt.tidy scopes do not free them); `dispose()` frees them at once.
 */
export class Optimizer<O extends GroupOptions = GroupOptions> {
  /** The parameter groups, as `optimizer.param_groups`. */
  readonly paramGroups: readonly ParamGroup<O>[];
  readonly #algo: Algorithm<O, unknown>;
  /** Every parameter over all groups, in order, with its group, its state and whether it was updated yet. */
  readonly #slots: { p: Tensor; group: ParamGroup<O>; state: unknown; updated: boolean }[] = [];
  #disposed = false;

  /** @internal Made by the subclasses. */
  protected constructor(algo: Algorithm<O, unknown>, params: ParamsInit<O>, opts: Partial<O> | undefined) {
    this.#algo = algo;
    const name = algo.name;
    const given = known<O>(name, opts ?? {}, "the options", algo.defaults);
    if (!Array.isArray(params)) {
      throw new TensorError(name, `expects an array of parameters or of parameter groups, got ${describe(params)}`);
    }
    if (params.length === 0) throw new TensorError(name, "got an empty parameter list");
    const isGroup = (x: unknown): x is ParamGroupInit<O> => x !== null && typeof x === "object" && !(x instanceof Tensor);
    const specs: ParamGroupInit<O>[] = isGroup(params[0])
      ? [...params as readonly ParamGroupInit<O>[]]
      : [{ params } as unknown as ParamGroupInit<O>];
    const seen = new Set<Tensor>();
    const groups: ParamGroup<O>[] = [];
    let index = 0;
    try {
      specs.forEach((spec, gi) => {
        const where = specs.length > 1 || isGroup(params[0]) ? `parameter group ${gi}` : "the parameters";
        if (!isGroup(spec)) throw new TensorError(name, `${where} is ${describe(spec)}, not a { params, ... } object`);
        const { params: ps, ...rest } = spec;
        if (!Array.isArray(ps)) throw new TensorError(name, `${where} has no params array`);
        if (ps.length === 0) throw new TensorError(name, `${where} has no parameters`);
        const o = merge(name, where, algo.defaults, known<O>(name, rest, where, algo.defaults), given);
        const checked = algo.check(o, name);
        for (const p of ps) {
          checkParam(name, p, index++, seen);
          seen.add(p);
        }
        groups.push(new ParamGroup(name, ps, checked));
      });
      this.paramGroups = Object.freeze(groups);
      for (const group of groups) {
        for (const p of group.params) this.#slots.push({ p, group, state: algo.init(p, group.options), updated: false });
      }
    } catch (e) {
      for (const g of groups) g.dispose();
      for (const s of this.#slots) algo.free(s.state);
      throw e;
    }
  }

  /** The first group's learning rate (every group's, when they share one). */
  get lr(): number {
    return this.paramGroups[0].lr;
  }
  /**
   * Sets every group's learning rate, as assigning `group["lr"]` in each of PyTorch's `param_groups`; each group's `lr`
   * sets one.
   *
   * @throws {TensorError} when lr is not a finite number >= 0.
   */
  set lr(lr: number) {
    checkNumber(this.#algo.name, "learning rate", lr);
    for (const g of this.paramGroups) g.lr = lr;
  }

  /**
   * Sets every parameter's gradient to null, disposing it, as `zero_grad()` (set_to_none=True); with setToNone false,
   * fills the gradients that exist with zeros instead.
   *
   * @throws {TensorError} after dispose().
   */
  zeroGrad(setToNone = true): void {
    this.#live("zeroGrad");
    for (const s of this.#slots) {
      if (setToNone) s.p.grad = null;
      else if (s.p.grad !== null) noGrad(() => s.p.grad!.zero_());
    }
  }

  /**
   * Updates every parameter that has a gradient from it (parameters whose `grad` is null are skipped, their state
   * unchanged), as `step()`. Runs under pt.noGrad; its intermediates are freed. Each parameter's new value is written
   * into its own storage, so views of it see it.
   *
   * @throws {TensorError} when a gradient's shape or device is not its parameter's, a parameter or gradient was disposed,
   * or after dispose().
   */
  step(): void {
    this.#live("step");
    const algo = this.#algo, op = `${algo.name}.step`;
    noGrad(() =>
      tidy(() => {
        this.#slots.forEach((s, i) => {
          const g = s.p.grad;
          if (g === null) return;
          if (g.device !== s.p.device) {
            throw new TensorError(op, `the gradient of parameter ${i} is on ${g.device.id}, the parameter on ${s.p.device.id}`);
          }
          if (
            g.shape.length !== s.p.shape.length || g.shape.some((d, k) => d !== s.p.shape[k])
          ) {
            throw new TensorError(
              op,
              `the gradient of parameter ${i} has shape [${g.shape.join(", ")}], the parameter [${s.p.shape.join(", ")}]`,
            );
          }
          algo.update(s.p, g, s.state, s.group);
          s.updated = true;
        });
      })
    );
  }

  /**
   * The optimizer's state, as `state_dict()`: for each parameter updated at least once (by its index over all groups)
   * copies of its state tensors and its numbers, and each group's options. The tensors are the caller's (dispose them,
   * or make the dict inside pt.tidy); they can be read with `toArray()`. Reads values from the device.
   *
   * @throws {TensorError} inside a captured step (it reads values), or after dispose().
   */
  stateDict(): OptimizerStateDict {
    this.#live("stateDict", true);
    const state: { [index: number]: SavedParamState } = {};
    noGrad(() =>
      this.#slots.forEach((s, i) => {
        if (!s.updated) return;
        const saved = this.#algo.save(s.state, s.group.options);
        if (saved !== null) state[i] = saved;
      })
    );
    let index = 0;
    const paramGroups = this.paramGroups.map((g) => {
      const o: SavedParamGroup = { params: [], lr: g.lr };
      for (const [k, v] of Object.entries(g.options)) o[k] = Array.isArray(v) ? [...v] : v;
      o.params = g.params.map(() => index++);
      return o;
    });
    return { state, paramGroups };
  }

  /**
   * Restores a state saved by `stateDict()` (of an optimizer of the same kind over parameters of the same shapes, in the
   * same groups), as `load_state_dict()`: each group's options, and each parameter's state, copied into this optimizer's
   * own tensors (cast to its dtype, moved to its device); a parameter without saved state gets its initial state. Training
   * then continues bit for bit as it would have from the saved optimizer.
   *
   * @throws {TensorError} when the dict's groups or parameters do not match this optimizer's, a saved tensor's shape is
   * not its parameter's, an option or number is invalid, or after dispose().
   */
  loadStateDict(dict: OptimizerStateDict): void {
    this.#live("loadStateDict", true);
    const algo = this.#algo, op = `${algo.name}.loadStateDict`;
    if (
      dict === null || typeof dict !== "object" || !Array.isArray(dict.paramGroups) || dict.state === null || typeof dict.state !== "object"
    ) {
      throw new TensorError(op, "expects a { state, paramGroups } object, as stateDict() returns");
    }
    if (dict.paramGroups.length !== this.paramGroups.length) {
      throw new TensorError(op, `the dict has ${dict.paramGroups.length} parameter groups, this optimizer ${this.paramGroups.length}`);
    }
    // Check everything before changing anything.
    const opts = this.paramGroups.map((g, gi) => {
      const saved = dict.paramGroups[gi];
      if (saved === null || typeof saved !== "object" || !Array.isArray(saved.params)) {
        throw new TensorError(op, `parameter group ${gi} of the dict is not a { params, ... } object`);
      }
      if (saved.params.length !== g.params.length) {
        throw new TensorError(
          op,
          `parameter group ${gi} of the dict has ${saved.params.length} parameters, this optimizer's ${g.params.length}`,
        );
      }
      const { params: _, ...rest } = saved;
      const where = `parameter group ${gi}`;
      return algo.check(merge(op, where, algo.defaults, known<O>(op, rest, where, algo.defaults), g.options), op);
    });
    const indices = dict.paramGroups.flatMap((g) => g.params);
    for (const [k, v] of Object.entries(dict.state)) {
      const i = indices.indexOf(Number(k));
      if (i < 0) throw new TensorError(op, `the dict has state for parameter ${k}, which none of its groups lists`);
      if (v === null || typeof v !== "object") throw new TensorError(op, `the state of parameter ${k} is ${describe(v)}`);
    }
    const groupOf = new Map(this.paramGroups.map((g, gi) => [g, gi]));
    const restores = this.#slots.map((s, i) => {
      const saved = (dict.state as Record<string, SavedParamState | undefined>)[String(indices[i])];
      return { s, saved, restore: algo.load(s.p, s.state, saved, opts[groupOf.get(s.group)!], `${op}: parameter ${i}`) };
    });
    this.paramGroups.forEach((g, gi) => g.setOptions(opts[gi]));
    noGrad(() =>
      tidy(() => {
        for (const { s, saved, restore } of restores) {
          restore();
          s.updated = saved !== undefined;
        }
      })
    );
  }

  /** Frees the optimizer's state and learning-rate tensors now (the parameters stay); idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const s of this.#slots) this.#algo.free(s.state);
    for (const g of this.paramGroups) g.dispose();
  }
  /** `dispose()`, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #live(what: string, hostAccess = false): void {
    const op = `${this.#algo.name}.${what}`;
    if (this.#disposed) throw new TensorError(op, "this optimizer was disposed");
    if (!hostAccess) return;
    const capturing = this.#slots.find((s) => s.p.device.capturing !== 0);
    if (capturing !== undefined) {
      throw new TensorError(
        op,
        `moves state between the host and the device, which pt.capture() cannot record (${capturing.p.device.id} is capturing a step); call it outside the step`,
      );
    }
  }
}

/** o's options (a copy without undefined values), after checking it is an object of known option names. */
function known<O>(op: string, o: unknown, where: string, defaults: object): Partial<O> {
  if (o === null || typeof o !== "object" || Array.isArray(o) || o instanceof Tensor) {
    throw new TensorError(op, `${where} must be an object of options, got ${describe(o)}`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (!(k in defaults)) {
      throw new TensorError(op, `${where}: unknown option ${JSON.stringify(k)} (the options are ${Object.keys(defaults).join(", ")})`);
    }
    if (v !== undefined) out[k] = v;
  }
  return out as Partial<O>;
}

/** Every option from the first layer that has it, else its default; a required option (no default) must be in a layer. */
function merge<O>(op: string, where: string, defaults: { readonly [K in keyof O]: O[K] | undefined }, ...layers: Partial<O>[]): O {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(defaults) as (keyof O & string)[]) {
    const layer = layers.find((l) => l[k] !== undefined);
    const v = layer !== undefined ? layer[k] : defaults[k];
    if (v === undefined) throw new TensorError(op, `${where}: no ${k} was given (it has no default)`);
    out[k] = v;
  }
  return out as O;
}

function checkParam(op: string, p: unknown, i: number, seen: Set<Tensor>): void {
  if (!(p instanceof Tensor)) throw new TensorError(op, `parameter ${i} is ${describe(p)}, not a Tensor`);
  if (p.disposed) throw new TensorError(op, `parameter ${i} was disposed`);
  if (!differentiable(p.dtype)) {
    throw new TensorError(op, `parameter ${i} is ${p.dtype}; only floating-point tensors can be optimized`);
  }
  if (!p.requiresGrad) {
    throw new TensorError(
      op,
      `parameter ${i} does not require gradients (make it with { requiresGrad: true } or call requiresGrad_())`,
    );
  }
  if (!p.isLeaf) throw new TensorError(op, `parameter ${i} is the result of a recorded op, not a leaf; optimize a leaf (detach() it)`);
  if (seen.has(p)) throw new TensorError(op, `parameter ${i} appears more than once (in one group or in two)`);
}
