/**
 * The examples' models, trained briefly on the CPU on data made here (no download): the CNN of
 * examples/cnn_fashion_mnist.ts on noisy images of ten fixed templates, and the transformer block of
 * examples/transformer_block.ts on its repeating sequences. Each loss must fall well below its start, and the
 * training must leave no memory in use. On the CPU whatever PT_DEVICE says: a step of these small models is a few
 * milliseconds there but seconds on lavapipe, whose launches dominate; scripts/examples.sh runs the examples
 * themselves on the chosen device.
 */
import * as pt from "../mod.ts";
import { assert, rng, test } from "./harness.ts";
import { cnn } from "../examples/cnn_fashion_mnist.ts";
import { meanOf, train } from "../examples/transformer_block.ts";

const cpu = pt.device("cpu");

test("the CNN of examples/cnn_fashion_mnist.ts learns ten noisy templates: its loss falls below half its start", () =>
  pt.withDevice(cpu, () => {
    const before = pt.memoryStats(cpu).inUse;
    const r = rng(5), templates = Array.from({ length: 10 }, () => Float32Array.from({ length: 784 }, () => 2 * r() - 1));
    pt.manualSeed(1);
    const model = cnn(4, 8), opt = new pt.optim.Adam(model.params, { lr: 3e-3 }), losses: number[] = [];
    for (let step = 0; step < 30; step++) {
      const n = 20, xs = new Float32Array(n * 784), ys = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        ys[i] = Math.floor(r() * 10);
        for (let j = 0; j < 784; j++) xs[i * 784 + j] = templates[ys[i]][j] + 0.5 * (r() - 0.5);
      }
      losses.push(pt.tidy(() => {
        const loss = pt.nn.crossEntropy(model.logits(pt.tensor(xs).reshape([n, 784])), pt.tensor(ys));
        loss.backward();
        opt.step();
        opt.zeroGrad();
        return Number(loss.item());
      }));
    }
    opt.dispose();
    for (const p of model.params) p.dispose();
    const first = meanOf(losses, 3, false), last = meanOf(losses, 3, true);
    assert.ok(last < first / 2, `loss ${first.toFixed(3)} at the start, ${last.toFixed(3)} at the end: ${losses.map((l) => l.toFixed(2))}`);
    assert.equal(pt.memoryStats(cpu).inUse, before, "memory left in use");
  }));

test("the transformer block of examples/transformer_block.ts learns its repeating sequences: the loss falls below half", () =>
  pt.withDevice(cpu, () => {
    const before = pt.memoryStats(cpu).inUse;
    const losses = train({ steps: 100, batch: 8, seq: 12, dim: 16, heads: 2, vocab: 8, period: 3, lr: 1e-2, seed: 3 });
    const first = meanOf(losses, 10, false), last = meanOf(losses, 10, true);
    assert.ok(losses.every(Number.isFinite), "a loss is not finite");
    assert.ok(last < first / 2, `loss ${first.toFixed(3)} at the start, ${last.toFixed(3)} at the end`);
    assert.equal(pt.memoryStats(cpu).inUse, before, "memory left in use");
  }));
