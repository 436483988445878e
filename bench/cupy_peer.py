"""CuPy peer of bench/cases.ts: the cases of bench/cases.ts (plus add_16m, sum_16m,
matmul_1024) that CuPy has the ops for; a case whose op CuPy lacks is listed in
_meta.skipped. float32; matmul with TF32 off (CUPY_TF32=0). Each result is checked once
against NumPy on the host. Output as in bench/gpu_harness.py.

    python3 bench/cupy_peer.py [case ...]

sort: CuPy has no sort returning values and indices together; argsort + take_along_axis
gives both, as ours and torch.sort do.
"""
import os

os.environ["CUPY_TF32"] = "0"
import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from gpu_harness import HW, M16, Case, Framework, main, windows  # noqa: E402

rs = cp.random.RandomState(0)
f32 = np.float32


def rand(*s):
    return rs.random_sample(s, dtype=cp.float32)


def randn(*s):
    return rs.standard_normal(s, dtype=cp.float32)


h = cp.asnumpy


def add(name, n):
    def verify(s, out):
        if n <= M16:
            return [("a+b", h(out), h(s["a"]) + h(s["b"]), 0)]
        return [(f"a+b @{w.start}", h(out[w]), h(s["a"][w]) + h(s["b"][w]), 0) for w in windows(n)]
    return Case(name, lambda: {"a": rand(n), "b": rand(n)}, lambda s: s["a"] + s["b"], verify)


def matmul(name, n):
    def verify(s, out):  # 64 sampled entries against float64 dot products
        k = np.arange(64)
        i, j = (k * 7919) % n, (k * 104729) % n
        a, b = h(s["a"]).astype(np.float64), h(s["b"]).astype(np.float64)
        return [("c[i,j]", h(out)[i, j], np.einsum("kp,pk->k", a[i], b[:, j]), 1e-4)]
    return Case(name, lambda: {"a": rand(n, n), "b": rand(n, n)}, lambda s: s["a"] @ s["b"], verify)


def binary_loop(name, n, reps):
    return Case(name, lambda: {"a": rand(n), "b": rand(n)}, lambda s: s["a"] + s["b"],
                lambda s, out: [("a+b", h(out), h(s["a"]) + h(s["b"]), 0)], reps)


def sort_op(s):
    c = s["x"].copy()
    ix = cp.argsort(c, axis=1)
    return cp.take_along_axis(c, ix, axis=1), ix


def sort_verify(s, out):
    x = h(s["x"])
    ix = np.argsort(x, axis=1, kind="stable")
    return [("values", h(out[0]), np.take_along_axis(x, ix, 1), 0), ("indices", h(out[1]), ix, 0)]


def alias_op(s):
    d = (s["src"] + 1) * 2 - 3
    return [d] + [d.view().copy() for _ in range(4)]


def alias_verify(s, outs):
    want = (h(s["src"]) + f32(1)) * f32(2) - f32(3)
    return [(f"alias {k}", h(o), want, 0) for k, o in enumerate(outs)]


def uniform_hw():
    return {"x": rand(*HW) * f32(1.2) - f32(0.1)}


def noncontig_op(s):
    hwc = cp.ascontiguousarray(s["x"].transpose(1, 2, 0))
    return hwc, cp.ascontiguousarray(hwc.transpose(2, 0, 1))


CASES = [
    add("add_16m", M16),
    Case("sum_16m", lambda: {"a": rand(M16)}, lambda s: s["a"].sum(),
         lambda s, out: [("sum", h(out), h(s["a"]).astype(np.float64).sum(), 1e-5)]),
    matmul("matmul_1024", 1024),
    binary_loop("dispatch_overhead_small", 64, 256),
    binary_loop("eager_binary_dispatch_tight_loop", 16, 4096),
    Case("masking_ops_tight_loop", lambda: {"x": randn(256), "y": randn(256)}, lambda s: cp.where(s["x"] > 0, s["x"], s["y"]),
         lambda s, out: [("where", h(out), np.where(h(s["x"]) > 0, h(s["x"]), h(s["y"])), 0)], 256),
    Case("broadcast_binary_add", lambda: {"a": rand(64, 128, 64), "b": rand(64, 1, 64)}, lambda s: s["a"] + s["b"],
         lambda s, out: [("a+b", h(out), h(s["a"]) + h(s["b"]), 0)], 32),
    Case("sort_middle_axis_64x1024x64", lambda: {"x": rand(64, 1024, 64)}, sort_op, sort_verify),
    Case("deferred_alias_copy_materialize", lambda: {"src": rand(262144)}, alias_op, alias_verify),
    Case("chw_rgb_to_hwc_u8_1080p", uniform_hw,
         lambda s: cp.ascontiguousarray((cp.clip(s["x"], 0, 1) * f32(255) + f32(0.5)).astype(cp.uint8).transpose(1, 2, 0)),
         lambda s, out: [("u8", h(out), (np.clip(h(s["x"]), 0, 1) * f32(255) + f32(0.5)).astype(np.uint8).transpose(1, 2, 0), 1)]),
    Case("fused_pointwise_1080p", uniform_hw, lambda s: cp.clip((s["x"] * f32(1.15) + f32(-0.02)) * f32(0.98), 0, 1),
         lambda s, out: [("pointwise", h(out), np.clip((h(s["x"]) * f32(1.15) + f32(-0.02)) * f32(0.98), 0, 1), 1e-6)]),
    Case("mask_logical_reduce_16m", lambda: {"x": randn(M16)},
         lambda s: cp.count_nonzero(cp.logical_and(s["x"] > 0, s["x"] < 0.5)),
         lambda s, out: [("count", h(out), np.count_nonzero((h(s["x"]) > 0) & (h(s["x"]) < 0.5)), 0)]),
    Case("sq_diff_mean_16m", lambda: {"x": rand(M16), "y": rand(M16)}, lambda s: cp.mean(cp.square(s["x"] - s["y"])),
         lambda s, out: [("mean", h(out), np.mean(np.square(h(s["x"]) - h(s["y"])), dtype=np.float64), 1e-5)]),
    Case("noncontig_chw_hwc_copy_1080p", lambda: {"x": rand(*HW)}, noncontig_op,
         lambda s, out: [("hwc", h(out[0]), h(s["x"]).transpose(1, 2, 0), 0), ("back", h(out[1]), h(s["x"]), 0)]),
    matmul("matmul_4096", 4096),
    add("add_256m", 256 * 1024 * 1024),
]
# Ops each case needs from CuPy; a case whose op is missing is skipped, not failed.
NEEDS = {"sort_middle_axis_64x1024x64": ["argsort", "take_along_axis"], "mask_logical_reduce_16m": ["count_nonzero", "logical_and"],
         "masking_ops_tight_loop": ["where"], "chw_rgb_to_hwc_u8_1080p": ["clip", "ascontiguousarray"]}

if __name__ == "__main__":
    skipped = [c.name for c in CASES if any(not hasattr(cp, op) for op in NEEDS.get(c.name, []))]
    dev = cp.cuda.Device()
    name = cp.cuda.runtime.getDeviceProperties(dev.id)["name"]
    fw = Framework(lambda: cp.cuda.runtime.deviceSynchronize(), cp.cuda.Event, cp.cuda.get_elapsed_time)
    main([c for c in CASES if c.name not in skipped], fw,
         {"cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(), "numpy": np.__version__,
          "device": name.decode() if isinstance(name, bytes) else str(name), "skipped": skipped})
