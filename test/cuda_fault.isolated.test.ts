/**
 * A kernel fault that kills a CUDA context (an illegal address: CUDA's "sticky" errors) is
 * reported at the next wait as a TensorError, handles from the dead context are rejected
 * naming why, and the next use of the device rebuilds its context, or, where CUDA refuses
 * to (driver 580 after an illegal address), fails with a TensorError that says to restart
 * the process: never a crash, a hang or a wrong answer. Its own process, since the fault
 * poisons CUDA for the rest of it. Runs when the default device is CUDA (PT_DEVICE=cuda).
 */
import * as pt from "../mod.ts";
import { native } from "../src/runtime/native.ts";
import { ArgBlock } from "../src/kernels/block.ts";
import { PARAMS } from "../src/kernels/cuda.ts";
import { assert, testUnless } from "./harness.ts";

const PT_ELOST = -8;

/** An "ew" program whose kernel stores to address 16, which no allocation covers. */
const FAULT = `${PARAMS}
extern "C" __global__ void pt_main(const pt_params p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *(volatile int *)(16ull + (unsigned long long)p.nbuf * 0ull) = 1;
}
`;

function errorOf(fn: () => unknown): pt.TensorError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof pt.TensorError, `expected a TensorError, got ${e}`);
    return e;
  }
  assert.fail("expected a TensorError, but the call succeeded");
}

const dev = pt.defaultDevice();
testUnless(
  dev.backend === "cuda" ? null : `the default device is ${dev.id}, not CUDA (PT_DEVICE=cuda runs this)`,
  "a kernel fault is reported at the next wait; the dead context's handles are rejected and the next use rebuilds it or says why it cannot",
  () => {
    const before = pt.tensor([1, 2, 3]);
    assert.deepEqual(Array.from(before.toArray() as Float32Array), [1, 2, 3]);

    const program = dev.program("ew", new TextEncoder().encode(`${FAULT}\0`), "test:cuda_fault", 2);
    using scratch = pt.zeros([4]);
    const args = new ArgBlock().fill("ew", { shape: [4], views: [scratch, scratch], consts: [] }).finish();
    const launched = native.pt_launch(dev.queue, program, args, args.length);

    const fault = launched < 0 ? null : errorOf(() => dev.sync());
    if (fault) {
      assert.equal(fault.status, PT_ELOST, `the fault's status: ${fault.message}`);
      assert.match(fault.message, /ILLEGAL_ADDRESS|illegal address/i);
      assert.match(fault.message, /lost/);
    } else assert.equal(launched, PT_ELOST, "a launch that already saw the fault reports the lost context");

    // The next use closes the dead context and opens a new one where CUDA allows it.
    let after: number[] | undefined, refused: pt.TensorError | undefined;
    try {
      using x = pt.tensor([1, 2]);
      using y = x.add(1);
      after = Array.from(y.toArray() as Float32Array);
    } catch (e) {
      assert.ok(e instanceof pt.TensorError, `a refused rebuild is a TensorError, got ${e}`);
      refused = e;
    }
    if (after) assert.deepEqual(after, [2, 3], "work on the rebuilt context is right");
    else assert.match(refused!.message, /restart the process/, "a refused rebuild says what to do");
    console.log(after ? "the context was rebuilt" : `the rebuild was refused: ${refused!.message}`);

    const stale = errorOf(() => before.toArray());
    assert.match(stale.message, /from before its context was lost to a fault/, stale.message);
    before.dispose(); // releasing a handle of the dead context is a no-op, not a crash
  },
);
