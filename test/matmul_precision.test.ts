/**
 * Half-precision matmul and setMatmulPrecision: float16 and bfloat16 products against a
 * float64 loop over the same rounded inputs, on whichever path the device takes (a vendor
 * BLAS on tensor cores where the device has "matmul_f16"/"matmul_bf16", the kernel for layouts the BLAS
 * cannot take, float32 casts elsewhere), and TF32 under "high" where a BLAS offers it.
 */
import * as pt from "../mod.ts";
import { assert, assertTensorError, rng, test } from "./harness.ts";

const nums = (t: pt.Tensor): number[] => Array.from(t.toArray() as ArrayLike<number>, Number);

/** Rounding unit of each dtype's 11- or 8-bit significand, and TF32's 11. */
const EPS = { float16: 2 ** -11, bfloat16: 2 ** -8, tf32: 2 ** -11 } as const;

function uniform(n: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => r() * 2 - 1);
}

/**
 * Checks c = a @ b for row-major [batch, M, K] @ [batch, K, N] values (what the operands
 * hold after rounding): each output within eps of the result's rounding plus 4 * eps of
 * the products' magnitudes (the inputs' rounding for TF32, the f32 sums' order otherwise).
 */
function checkProduct(c: number[], a: number[], b: number[], dims: number[], eps: number, what: string): void {
  const [batch, M, K, N] = dims;
  for (let p = 0; p < batch; p++) {
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let s = 0, mag = 0;
        for (let k = 0; k < K; k++) {
          const x = a[(p * M + i) * K + k] * b[(p * K + k) * N + j];
          s += x;
          mag += Math.abs(x);
        }
        const got = c[(p * M + i) * N + j];
        if (!(Math.abs(got - s) <= eps * Math.abs(s) + 4 * eps * mag + 1e-30)) {
          throw new Error(`${what}: [${p}, ${i}, ${j}] = ${got}, want ${s} (within ${eps * Math.abs(s) + 4 * eps * mag})`);
        }
      }
    }
  }
}

const HALVES = ["float16", "bfloat16"] as const;

test("float16 and bfloat16 matmul agree with a float64 loop at odd sizes and keep their dtype", () => {
  for (const dtype of HALVES) {
    for (const [M, K, N] of [[1, 1, 1], [7, 7, 7], [33, 127, 5], [130, 257, 65], [257, 300, 129], [1024, 1031, 17]]) {
      using a32 = pt.tensor(uniform(M * K, M + 3 * K), { dtype: "float32" }), b32 = pt.tensor(uniform(K * N, K + 5 * N));
      using a = a32.reshape([M, K]).to(dtype), b = b32.reshape([K, N]).to(dtype);
      using c = a.matmul(b);
      assert.equal(c.dtype, dtype);
      assert.deepEqual(c.shape, [M, N]);
      checkProduct(nums(c), nums(a), nums(b), [1, M, K, N], EPS[dtype], `${dtype} ${M}x${K}x${N}`);
    }
  }
});

test("half matmul reads transposed, doubly strided and batched operands through their strides", () => {
  for (const dtype of HALVES) {
    const [B, M, K, N] = [3, 70, 45, 90]; // tiles of 128 where a device has them (Vulkan's cooperative matrices)
    using a32 = pt.tensor(uniform(B * K * M, 11)).reshape([B, K, M]), b32 = pt.tensor(uniform(B * N * K, 12)).reshape([B, N, K]);
    using at = a32.to(dtype), bt = b32.to(dtype);
    using a = at.transpose(1, 2), b = bt.transpose(1, 2); // [B, M, K] and [B, K, N], both column-major
    using ac = a.contiguous(), bc = b.contiguous();
    using c = a.matmul(b); // one strided-batched BLAS call where there is one
    checkProduct(nums(c), nums(ac), nums(bc), [B, M, K, N], EPS[dtype], `${dtype} transposed batch`);

    // every other row and column: no BLAS layout, so the kernel (or the float32 cast) runs
    using big = pt.tensor(uniform(2 * M * 2 * K, 13)).reshape([2 * M, 2 * K]).to(dtype);
    using sa = big.at(pt.slice(0, null, 2), pt.slice(1, null, 2));
    using sac = sa.contiguous();
    using b0 = bc.at(0);
    using cs = sa.matmul(b0);
    checkProduct(nums(cs), nums(sac), nums(b0), [1, M, K, N], EPS[dtype], `${dtype} doubly strided`);

    // a batch broadcast against one matrix: a loop of single products
    using b1 = b0.unsqueeze(0).expand([B, K, N]);
    using cb = ac.matmul(b1);
    using b1c = b1.contiguous();
    checkProduct(nums(cb), nums(ac), nums(b1c), [B, M, K, N], EPS[dtype], `${dtype} broadcast batch`);
  }
});

test("half matmul of empty and K = 0 operands gives empty and zero results", () => {
  for (const dtype of HALVES) {
    using e = pt.zeros([0, 4], { dtype }), w = pt.ones([4, 3], { dtype });
    using ce = e.matmul(w);
    assert.deepEqual(ce.shape, [0, 3]);
    using k1 = pt.ones([2, 0], { dtype }), k2 = pt.ones([0, 3], { dtype });
    using ck = k1.matmul(k2);
    assert.equal(ck.dtype, dtype);
    assert.deepEqual(nums(ck), [0, 0, 0, 0, 0, 0]);
  }
});

test("setMatmulPrecision: 'highest' is the default and exact; 'high' stays within TF32 of the loop and 'highest' returns the same bits", () => {
  assert.equal(pt.getMatmulPrecision(), "highest");
  const [M, K, N] = [96, 200, 80];
  using a = pt.tensor(uniform(M * K, 21)).reshape([M, K]), b = pt.tensor(uniform(K * N, 22)).reshape([K, N]);
  const av = nums(a), bv = nums(b);
  using exact = a.matmul(b);
  const before = nums(exact);
  checkProduct(before, av, bv, [1, M, K, N], 2 ** -22, "highest");
  try {
    for (const p of ["high", "medium"] as const) {
      pt.setMatmulPrecision(p);
      assert.equal(pt.getMatmulPrecision(), p);
      using fast = a.matmul(b);
      checkProduct(nums(fast), av, bv, [1, M, K, N], EPS.tf32, p);
      if (pt.defaultDevice().has("matmul_tf32")) {
        // a device that says it rounds to TF32 here must give a result that differs from the exact one
        assert.notDeepEqual(nums(fast), before, `${p} used TF32 on ${pt.defaultDevice().id}`);
      }
    }
  } finally {
    pt.setMatmulPrecision("highest");
  }
  using again = a.matmul(b);
  assert.deepEqual(nums(again), before);
});

test("setMatmulPrecision refuses other names, naming the function", () => {
  for (const bad of ["low", "HIGH", "", 1, null]) {
    assertTensorError(
      () => pt.setMatmulPrecision(bad as unknown as pt.MatmulPrecision),
      /setMatmulPrecision/,
      /"highest", "high" or "medium"/,
    );
  }
  assert.equal(pt.getMatmulPrecision(), "highest");
});

test("half matmul gradients flow in the operands' dtype", () => {
  for (const dtype of HALVES) {
    using a32 = pt.tensor(uniform(12, 31)).reshape([3, 4]), b32 = pt.tensor(uniform(20, 32)).reshape([4, 5]);
    using a = a32.to(dtype).requiresGrad_(), b = b32.to(dtype).requiresGrad_();
    using c = a.matmul(b);
    using s = c.sum();
    s.backward();
    assert.equal(a.grad!.dtype, dtype);
    // dL/da = ones @ b^T: each row is b's row sums
    using bt = b.sum(1);
    const want = nums(bt);
    const ga = nums(a.grad!);
    for (let i = 0; i < 12; i++) {
      assert.ok(Math.abs(ga[i] - want[i % 4]) <= 4 * EPS[dtype] * 5 + 1e-6, `${dtype} grad[${i}] ${ga[i]} vs ${want[i % 4]}`);
    }
  }
});
