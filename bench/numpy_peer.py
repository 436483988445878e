"""NumPy peer of bench/cases.ts: the same cases where NumPy has the op, timed with
time.perf_counter over many repeats after a warm-up. Prints JSON {case: median_ms, "_meta":
{numpy, blas, errors}} on stdout, the NumPy version and BLAS also on stderr. PT_BENCH_QUICK=1:
two repeats; PT_BENCH_FULL=1 adds matmul_4096 and add_256m; PT_BENCH_BUDGET_MS: the
sampling time per case (default 2000).

    python3 bench/numpy_peer.py [case ...]

Our sort also returns int64 indices (torch.sort); np.sort returns the values only.
"""
import json, os, statistics, sys, time
import numpy as np

QUICK, FULL = os.environ.get("PT_BENCH_QUICK") == "1", os.environ.get("PT_BENCH_FULL") == "1"
BUDGET, MIN, MAX = (0, 2, 2) if QUICK else (float(os.environ.get("PT_BENCH_BUDGET_MS") or 2000) / 1e3, 7, 200)
rng = np.random.default_rng(0)
rand = lambda *s: rng.random(s, dtype=np.float32)
randn = lambda *s: rng.standard_normal(s, dtype=np.float32)
M16, HW = 16 * 1024 * 1024, (3, 1080, 1920)


def reps(n, f):
    def run():
        for _ in range(n):
            f()
    return run


def case_add(n):
    a, b = rand(n), rand(n)
    return lambda: np.add(a, b)


def case_matmul(n):
    a, b = rand(n, n), rand(n, n)
    return lambda: a @ b


def case_masking():
    x, y = randn(256), randn(256)
    return reps(256, lambda: np.where(x > 0, x, y))


def case_broadcast():
    a, b = rand(64, 128, 64), rand(64, 1, 64)
    return reps(32, lambda: a + b)


def case_sort():
    x = rand(64, 1024, 64)
    return lambda: np.sort(x.copy(), axis=1, kind="stable")


def case_alias():
    src = rand(262144)
    def run():
        d = (src + 1) * 2 - 3
        return [d] + [d.view().copy() for _ in range(4)]
    return run


def case_chw_u8():
    x = rand(*HW) * 1.2 - 0.1
    return lambda: np.ascontiguousarray((np.clip(x, 0, 1) * 255 + 0.5).astype(np.uint8).transpose(1, 2, 0))


def case_pointwise():
    x = rand(*HW) * 1.2 - 0.1
    return lambda: np.clip((x * np.float32(1.15) + np.float32(-0.02)) * np.float32(0.98), 0, 1)


def case_mask_reduce():
    x = randn(M16)
    return lambda: np.count_nonzero(np.logical_and(x > 0, x < 0.5))


def case_sq_diff_mean():
    x, y = rand(M16), rand(M16)
    return lambda: np.mean(np.square(x - y))


def case_noncontig():
    x = rand(*HW)
    def run():
        hwc = np.ascontiguousarray(x.transpose(1, 2, 0))
        return np.ascontiguousarray(hwc.transpose(2, 0, 1))
    return run


def case_softmax():
    x = randn(8192, 4096)
    def run():
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    return run


def case_layer_norm():
    x, w, b = randn(8192, 4096), randn(4096), randn(4096)
    def run():
        m = x.mean(-1, keepdims=True)
        c = x - m
        return c / np.sqrt((c * c).mean(-1, keepdims=True) + np.float32(1e-5)) * w + b
    return run


CASES = {
    "add_16m": lambda: case_add(M16),
    "sum_16m": lambda: (lambda a: lambda: a.sum())(rand(M16)),
    "matmul_1024": lambda: case_matmul(1024),
    "dispatch_overhead_small": lambda: (lambda a, b: reps(256, lambda: a + b))(rand(64), rand(64)),
    "eager_binary_dispatch_tight_loop": lambda: (lambda a, b: reps(4096, lambda: a + b))(rand(16), rand(16)),
    "masking_ops_tight_loop": case_masking,
    "broadcast_binary_add": case_broadcast,
    "sort_middle_axis_64x1024x64": case_sort,
    "deferred_alias_copy_materialize": case_alias,
    "chw_rgb_to_hwc_u8_1080p": case_chw_u8,
    "fused_pointwise_1080p": case_pointwise,
    "mask_logical_reduce_16m": case_mask_reduce,
    "noncontig_chw_hwc_copy_1080p": case_noncontig,
    "sq_diff_mean_16m": case_sq_diff_mean,
    "softmax_8192x4096": case_softmax,
    "layer_norm_8192x4096": case_layer_norm,
}
BIG = {"matmul_4096": lambda: case_matmul(4096), "add_256m": lambda: case_add(256 * 1024 * 1024)}
if FULL:
    CASES.update(BIG)


def median_ms(run):
    w0 = time.perf_counter()
    for i in range(3):  # warm-up
        if i and time.perf_counter() - w0 > 0.3:
            break
        run()
    t, t0 = [], time.perf_counter()
    while len(t) < MIN or (len(t) < MAX and time.perf_counter() - t0 < BUDGET):
        a = time.perf_counter()
        run()
        t.append((time.perf_counter() - a) * 1e3)
    return statistics.median(t)


def blas():
    try:
        from threadpoolctl import threadpool_info
        return "; ".join(f"{i['internal_api']} {i.get('version')} {i.get('threading_layer', '')} {i['filepath']} threads={i['num_threads']}"
                         for i in threadpool_info())
    except ImportError:
        return "threadpoolctl not installed; see numpy.show_config()"


if __name__ == "__main__":
    meta = {"numpy": np.__version__, "blas": blas(), "errors": {}, "skipped": [] if FULL else list(BIG)}
    print(f"numpy {np.__version__} from {np.__file__}; BLAS: {meta['blas']}", file=sys.stderr)
    out = {}
    for name, make in CASES.items():
        if len(sys.argv) > 1 and name not in sys.argv[1:]:
            continue
        try:
            out[name] = median_ms(make())
            print(f"{name}: {out[name]:.3f} ms", file=sys.stderr)
        except Exception as e:  # one broken case must not stop the others
            meta["errors"][name] = f"{type(e).__name__}: {e}"
            print(f"{name}: ERROR {meta['errors'][name]}", file=sys.stderr)
    out["_meta"] = meta
    print(json.dumps(out, indent=1))
