"""PyTorch peer of bench/cases.ts: every case there, the add_16m, sum_16m and
matmul_1024 extras included, on the first CUDA device, or with --device cpu
on the CPU (PyTorch's own thread count, in _meta.threads). float32; matmul with TF32 off.
Each result is checked once against NumPy on the host. Timing and output as in
bench/gpu_harness.py: JSON {case: median_ms, "_meta": {...}} on stdout.

    python3 bench/torch_peer.py [--device cuda|cpu] [case ...]

deferred_alias_copy_materialize is eager here, as in cases.ts: d by its three ops, each
alias by a clone of a view.
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F

from gpu_harness import HW, M16, Case, Framework, main, windows

DEVICE = "cuda"
if sys.argv[1:2] == ["--device"]:
    DEVICE = sys.argv[2]
    del sys.argv[1:3]
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False  # conv2d in true fp32, as ours
dev = torch.device(DEVICE)
gen = torch.Generator(device=dev).manual_seed(0)
f32 = np.float32


def rand(*s):
    return torch.rand(s, device=dev, generator=gen)


def randn(*s):
    return torch.randn(s, device=dev, generator=gen)


def h(t):
    return t.detach().cpu().numpy()


def add(name, n):
    def verify(s, out):
        if n <= M16:
            return [("a+b", h(out), h(s["a"]) + h(s["b"]), 0)]
        return [(f"a+b @{w.start}", h(out[w]), h(s["a"][w]) + h(s["b"][w]), 0) for w in windows(n)]
    return Case(name, lambda: {"a": rand(n), "b": rand(n)}, lambda s: s["a"].add(s["b"]), verify)


def matmul(name, n, dtype=torch.float32, tf32=False):
    """n x n uniform operands in dtype; tf32: float32 with allow_tf32 for this case only."""
    tol = {torch.float32: 2e-3 if tf32 else 1e-4, torch.float16: 2e-3, torch.bfloat16: 8e-3}[dtype]

    def op(s):
        if not tf32:
            return s["a"] @ s["b"]
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return s["a"] @ s["b"]
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False

    def verify(s, out):  # 64 sampled entries against float64 dot products
        k = np.arange(64)
        i, j = (k * 7919) % n, (k * 104729) % n
        a, b = h(s["a"].float()).astype(np.float64), h(s["b"].float()).astype(np.float64)
        want = np.einsum("kp,pk->k", a[i], b[:, j])
        return [("c[i,j]", h(out.float())[i, j], want, tol)]
    return Case(name, lambda: {"a": rand(n, n).to(dtype), "b": rand(n, n).to(dtype)}, op, verify)


def binary_loop(name, n, reps):
    return Case(name, lambda: {"a": rand(n), "b": rand(n)}, lambda s: s["a"].add(s["b"]),
                lambda s, out: [("a+b", h(out), h(s["a"]) + h(s["b"]), 0)], reps)


def masking(s):
    m = s["x"].gt(0)
    return torch.where(m, s["x"], s["y"])


def sort_op(s):
    c = s["x"].clone()
    return torch.sort(c, dim=1, stable=True)


def sort_verify(s, out):
    x = h(s["x"])
    ix = np.argsort(x, axis=1, kind="stable")
    return [("values", h(out[0]), np.take_along_axis(x, ix, 1), 0), ("indices", h(out[1]), ix, 0)]


def alias_op(s):
    d = s["src"].add(1).mul(2).sub(3)
    return [d] + [d.view(d.shape).clone() for _ in range(4)]


def alias_verify(s, outs):
    want = (h(s["src"]) + f32(1)) * f32(2) - f32(3)
    return [(f"alias {k}", h(o), want, 0) for k, o in enumerate(outs)]


def uniform_hw():
    return {"x": rand(*HW) * 1.2 - 0.1}


def noncontig_op(s):
    hwc = s["x"].permute(1, 2, 0).contiguous()
    return hwc, hwc.permute(2, 0, 1).contiguous()


CASES = [
    add("add_16m", M16),
    Case("sum_16m", lambda: {"a": rand(M16)}, lambda s: s["a"].sum(),
         lambda s, out: [("sum", h(out), h(s["a"]).astype(np.float64).sum(), 1e-5)]),
    matmul("matmul_1024", 1024),
    binary_loop("dispatch_overhead_small", 64, 256),
    binary_loop("eager_binary_dispatch_tight_loop", 16, 4096),
    Case("masking_ops_tight_loop", lambda: {"x": randn(256), "y": randn(256)}, masking,
         lambda s, out: [("where", h(out), np.where(h(s["x"]) > 0, h(s["x"]), h(s["y"])), 0)], 256),
    Case("broadcast_binary_add", lambda: {"a": rand(64, 128, 64), "b": rand(64, 1, 64)}, lambda s: s["a"].add(s["b"]),
         lambda s, out: [("a+b", h(out), h(s["a"]) + h(s["b"]), 0)], 32),
    Case("sort_middle_axis_64x1024x64", lambda: {"x": rand(64, 1024, 64)}, sort_op, sort_verify),
    Case("deferred_alias_copy_materialize", lambda: {"src": rand(262144)}, alias_op, alias_verify),
    Case("chw_rgb_to_hwc_u8_1080p", uniform_hw,
         lambda s: s["x"].clamp(0, 1).mul(255).add(0.5).to(torch.uint8).permute(1, 2, 0).contiguous(),
         lambda s, out: [("u8", h(out), (np.clip(h(s["x"]), 0, 1) * f32(255) + f32(0.5)).astype(np.uint8).transpose(1, 2, 0), 1)]),
    Case("fused_pointwise_1080p", uniform_hw, lambda s: s["x"].mul(1.15).add(-0.02).mul(0.98).clamp(0, 1),
         lambda s, out: [("pointwise", h(out), np.clip((h(s["x"]) * f32(1.15) + f32(-0.02)) * f32(0.98), 0, 1), 1e-6)]),
    Case("mask_logical_reduce_16m", lambda: {"x": randn(M16)},
         lambda s: torch.logical_and(s["x"].gt(0), s["x"].lt(0.5)).count_nonzero(),
         lambda s, out: [("count", h(out), np.count_nonzero((h(s["x"]) > 0) & (h(s["x"]) < 0.5)), 0)]),
    Case("sq_diff_mean_16m", lambda: {"x": rand(M16), "y": rand(M16)}, lambda s: s["x"].sub(s["y"]).square().mean(),
         lambda s, out: [("mean", h(out), np.mean(np.square(h(s["x"]) - h(s["y"])), dtype=np.float64), 1e-5)]),
    Case("noncontig_chw_hwc_copy_1080p", lambda: {"x": rand(*HW)}, noncontig_op,
         lambda s, out: [("hwc", h(out[0]), h(s["x"]).transpose(1, 2, 0), 0), ("back", h(out[1]), h(s["x"]), 0)]),
    matmul("matmul_4096", 4096),
    matmul("matmul_4096_f16", 4096, torch.float16),
    matmul("matmul_4096_bf16", 4096, torch.bfloat16),
    matmul("matmul_4096_tf32", 4096, tf32=True),
    add("add_256m", 256 * 1024 * 1024),
]


def softmax_verify(s, out):
    x = h(s["x"]).astype(np.float64)[::2731]
    e = np.exp(x - x.max(-1, keepdims=True))
    return [("softmax", h(out)[::2731], e / e.sum(-1, keepdims=True), 1e-5)]


def layer_norm_verify(s, out):
    x = h(s["x"]).astype(np.float64)[::2731]
    z = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    return [("layerNorm", h(out)[::2731], z * h(s["w"]) + h(s["b"]), 1e-4)]


def conv_verify(s, out):  # image 0, output channels 0 and 63, as direct sums over 3x3 windows
    x = np.pad(h(s["x"])[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))
    w = h(s["w"]).astype(np.float64)
    return [(f"conv2d[0,{o}]", h(out)[0, o], np.einsum("cijab,cab->ij", win, w[o]), 1e-4) for o in (0, 63)]


def attention_verify(s, out):  # two (batch, head) slices against a float64 softmax of products
    q, k, v = (h(s[n])[:1, :2].astype(np.float64) for n in "qkv")
    sc = q @ k.swapaxes(-1, -2) / 8 + np.triu(np.full((1024, 1024), -np.inf), 1)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    return [("attention", h(out)[:1, :2], (p / p.sum(-1, keepdims=True)) @ v, 1e-4)]


NN_CASES = [
    Case("softmax_8192x4096", lambda: {"x": randn(8192, 4096)}, lambda s: torch.softmax(s["x"], -1), softmax_verify),
    Case("layer_norm_8192x4096", lambda: {"x": randn(8192, 4096), "w": randn(4096), "b": randn(4096)},
         lambda s: F.layer_norm(s["x"], [4096], s["w"], s["b"]), layer_norm_verify),
    Case("conv2d_32x64x56x56_3x3", lambda: {"x": randn(32, 64, 56, 56), "w": randn(64, 64, 3, 3) * 0.05},
         lambda s: F.conv2d(s["x"], s["w"], padding=1), conv_verify),
    Case("sdpa_causal_8x16x1024x64", lambda: {n: randn(8, 16, 1024, 64) for n in "qkv"},
         lambda s: F.scaled_dot_product_attention(s["q"], s["k"], s["v"], is_causal=True), attention_verify),
]
CASES += NN_CASES


def tf32():
    try:
        return bool(torch.backends.cuda.matmul.allow_tf32)
    except Exception as e:  # newer releases may refuse to mix the two TF32 APIs
        return str(e)


if __name__ == "__main__":
    if DEVICE == "cpu":
        fw = Framework(lambda: None, None, None, host_only=True)
        main(CASES, fw, {"torch": torch.__version__, "device": "cpu", "threads": torch.get_num_threads(), "numpy": np.__version__})
    else:
        ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
        fw = Framework(torch.cuda.synchronize, ev, lambda a, b: a.elapsed_time(b))
        main(CASES, fw, {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(dev),
                         "allow_tf32": tf32(), "numpy": np.__version__})
