/**
 * Learning-rate schedulers, as torch.optim.lr_scheduler's, in their closed forms: each
 * step() computes every group's rate from the epoch count and the rates the groups had
 * when the scheduler was made, and sets it through the group's `lr` (a device write, so a
 * captured training step replays with the new rate). Call step() outside a captured step:
 * its JavaScript does not run on a replay.
 */
import { TensorError } from "../base/errors.ts";
import { checkNumber, describe, type Optimizer } from "./optimizer.ts";

/** A scheduler's state, as `stateDict()` returns it and `loadStateDict()` takes it. */
export interface SchedulerStateDict {
  /** The epochs counted (step() calls since the scheduler was made). */
  lastEpoch: number;
  /** The groups' learning rates when the scheduler was made. */
  baseLrs: number[];
}

/**
 * The base of the schedulers, as `torch.optim.lr_scheduler.LRScheduler`: an epoch counter that starts at 0 when the
 * scheduler is made (the groups keep their learning rates then), and `step()`, which counts an epoch and sets every
 * group's learning rate from it.
 */
export abstract class LRScheduler {
  /** The optimizer whose learning rates this sets. */
  readonly optimizer: Optimizer;
  #base: number[];
  #epoch = 0;
  #last: number[];
  readonly #name: string;

  /** @internal Made by the subclasses. */
  protected constructor(name: string, optimizer: Optimizer) {
    this.#name = name;
    if (optimizer === null || typeof optimizer !== "object" || !Array.isArray(optimizer.paramGroups)) {
      throw new TensorError(name, `expects an optimizer, got ${describe(optimizer)}`);
    }
    this.optimizer = optimizer;
    this.#base = optimizer.paramGroups.map((g) => g.lr);
    this.#last = [...this.#base];
  }

  /** The groups' learning rates when the scheduler was made, as `base_lrs`. */
  get baseLrs(): readonly number[] {
    return this.#base;
  }
  /** The epochs counted so far, as `last_epoch`. */
  get lastEpoch(): number {
    return this.#epoch;
  }
  /** The learning rate of each group that the last step() set (the base rates before any), as `get_last_lr()`. */
  get lastLr(): number[] {
    return [...this.#last];
  }

  /**
   * Counts an epoch and sets each group's learning rate for it, as `scheduler.step()` (call it after `optimizer.step()`).
   *
   * @throws {TensorError} when a computed rate is negative or not finite, or the optimizer was disposed.
   */
  step(): void {
    const epoch = this.#epoch + 1;
    const lrs = this.#base.map((base, i) => this.lrAt(epoch, base, i));
    this.optimizer.paramGroups.forEach((g, i) => (g.lr = lrs[i]));
    this.#epoch = epoch;
    this.#last = lrs;
  }

  /** The scheduler's epoch count and base rates, as `state_dict()`. */
  stateDict(): SchedulerStateDict {
    return { lastEpoch: this.#epoch, baseLrs: [...this.#base] };
  }

  /**
   * Restores a state from `stateDict()` and sets the groups' learning rates for its epoch, as `load_state_dict()`.
   *
   * @throws {TensorError} when the dict's epoch is not an integer >= 0 or its base rates do not match the groups.
   */
  loadStateDict(dict: SchedulerStateDict): void {
    const op = `${this.#name}.loadStateDict`;
    const e = dict?.lastEpoch, base = dict?.baseLrs;
    if (typeof e !== "number" || !Number.isInteger(e) || e < 0) {
      throw new TensorError(op, `lastEpoch is ${describe(e)}, not an integer >= 0`);
    }
    if (!Array.isArray(base) || base.length !== this.optimizer.paramGroups.length) {
      throw new TensorError(op, `baseLrs must be an array of ${this.optimizer.paramGroups.length} rates, got ${describe(base)}`);
    }
    base.forEach((b, i) => checkNumber(op, `base learning rate ${i}`, b));
    this.#base = [...base];
    this.#epoch = e;
    const lrs = e === 0 ? [...base] : base.map((b, i) => this.lrAt(e, b, i));
    this.optimizer.paramGroups.forEach((g, i) => (g.lr = lrs[i]));
    this.#last = lrs;
  }

  /**
   * @internal Group i's learning rate at `epoch` (>= 1) from its base rate.
   * @param epoch the epoch count
   * @param base the group's rate when the scheduler was made
   * @param i the group's index
   */
  protected abstract lrAt(epoch: number, base: number, i: number): number;
}

/** The options of `StepLR`. */
export interface StepLROptions {
  /** Epochs between decays (a positive integer). */
  stepSize: number;
  /** The factor of each decay (default 0.1). */
  gamma?: number;
}

/**
 * Decays each group's learning rate by gamma every stepSize epochs, as `torch.optim.lr_scheduler.StepLR`:
 * lr = base · gamma^floor(epoch / stepSize).
 *
 * @example
 * using opt = new pt.optim.SGD([w], { lr: 0.1 });
 * const sched = new pt.optim.StepLR(opt, { stepSize: 30, gamma: 0.1 }); // 0.1 for epochs 0-29, 0.01 for 30-59, ...
 * for (let epoch = 0; epoch < 90; epoch++) {
 *   trainOneEpoch(opt);
 *   sched.step();
 * }
 */
export class StepLR extends LRScheduler {
  /** Epochs between decays. */
  readonly stepSize: number;
  /** The factor of each decay. */
  readonly gamma: number;

  /**
   * A scheduler of `optimizer`'s learning rates, which it takes as the base rates.
   *
   * @throws {TensorError} when stepSize is not a positive integer or gamma is not a finite number >= 0.
   */
  constructor(optimizer: Optimizer, opts: StepLROptions) {
    super("StepLR", optimizer);
    const { stepSize, gamma = 0.1 } = opts ?? {};
    if (typeof stepSize !== "number" || !Number.isInteger(stepSize) || stepSize <= 0) {
      throw new TensorError("StepLR", `invalid stepSize: ${describe(stepSize)} (must be a positive integer)`);
    }
    this.stepSize = stepSize;
    this.gamma = checkNumber("StepLR", "gamma", gamma);
  }

  /** @internal base · gamma^floor(epoch / stepSize). */
  protected lrAt(epoch: number, base: number): number {
    return base * this.gamma ** Math.floor(epoch / this.stepSize);
  }
}

/** The options of `CosineAnnealingLR`. */
export interface CosineAnnealingLROptions {
  /** The epochs of half a cosine period (> 0). */
  tMax: number;
  /** The lowest learning rate (default 0). */
  etaMin?: number;
}

/**
 * Anneals each group's learning rate along a cosine from its base rate to etaMin over tMax epochs, as
 * `torch.optim.lr_scheduler.CosineAnnealingLR` in its closed form: lr = etaMin + (base - etaMin)·(1 + cos(π·epoch/tMax))/2
 * (past tMax it rises again, as the closed form does).
 *
 * @example
 * using opt = new pt.optim.AdamW(params, { lr: 1e-3 });
 * const sched = new pt.optim.CosineAnnealingLR(opt, { tMax: 100, etaMin: 1e-5 });
 * for (let epoch = 0; epoch < 100; epoch++) {
 *   trainOneEpoch(opt);
 *   sched.step();
 * }
 */
export class CosineAnnealingLR extends LRScheduler {
  /** The epochs of half a period. */
  readonly tMax: number;
  /** The lowest learning rate. */
  readonly etaMin: number;

  /**
   * A scheduler of `optimizer`'s learning rates, which it takes as the base rates.
   *
   * @throws {TensorError} when tMax is not a finite number > 0 or etaMin is not a finite number >= 0.
   */
  constructor(optimizer: Optimizer, opts: CosineAnnealingLROptions) {
    super("CosineAnnealingLR", optimizer);
    const { tMax, etaMin = 0 } = opts ?? {};
    this.tMax = checkNumber("CosineAnnealingLR", "tMax", tMax, true);
    this.etaMin = checkNumber("CosineAnnealingLR", "etaMin", etaMin);
  }

  /** @internal etaMin + (base - etaMin)·(1 + cos(π·epoch/tMax))/2. */
  protected lrAt(epoch: number, base: number): number {
    return this.etaMin + (base - this.etaMin) * (1 + Math.cos(Math.PI * epoch / this.tMax)) / 2;
  }
}
