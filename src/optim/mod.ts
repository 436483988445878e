/**
 * pt.optim: optimizers and learning-rate schedulers, as torch.optim. Each optimizer updates its parameters in place
 * (views of them see the update), each parameter's update as one fused kernel where the lazy path allows, and keeps
 * every number that changes per step (the learning rate, Adam's step count and bias corrections) in device tensors,
 * so that a training step captured with `pt.capture` (forward, backward and `opt.step()`) replays correct updates.
 *
 * @example
 * using w = pt.zeros([3], { requiresGrad: true });
 * using opt = new pt.optim.Adam([w], { lr: 0.1 });
 * const sched = new pt.optim.CosineAnnealingLR(opt, { tMax: 100 });
 * for (let i = 0; i < 100; i++) {
 *   pt.tidy(() => {
 *     w.sub(pt.tensor([1, 2, 3])).square().sum().backward();
 *     opt.step();
 *     opt.zeroGrad();
 *   });
 *   sched.step();
 * }
 * @module
 */
export { Optimizer, ParamGroup } from "./optimizer.ts";
export type { GroupOptions, OptimizerStateDict, ParamGroupInit, ParamsInit, SavedParamGroup, SavedParamState } from "./optimizer.ts";
export { SGD } from "./sgd.ts";
export type { SGDOptions } from "./sgd.ts";
export { Adam, AdamW } from "./adam.ts";
export type { AdamOptions } from "./adam.ts";
export { CosineAnnealingLR, LRScheduler, StepLR } from "./scheduler.ts";
export type { CosineAnnealingLROptions, SchedulerStateDict, StepLROptions } from "./scheduler.ts";
