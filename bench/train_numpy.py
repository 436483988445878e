"""NumPy peer of bench/train.ts on the CPU: the same MLPs, batch, data and optimizers, with
the backward pass written by hand (float32 throughout, NumPy's BLAS for the products).

    big:   MLP 784-1024-1024-10, batch 256, Adam lr 1e-3
    small: MLP 784-64-10, batch 64, SGD lr 0.1

The weights, inputs and labels come from hash_uniform, the same counter-based hash as
train.ts's hashUniform, so that loss_check (the losses of the first CHECK_STEPS steps)
agrees across train.ts, train_torch.py and this file up to float32 rounding. This module
also holds what train_torch.py shares: the data, the timing loop and the output.

Timing as train.ts: warm-up, then repetitions of n steps (about REP_S each) until the budget;
ms_per_step is the median over repetitions of (repetition time / n), on the wall clock.

    python3 bench/train_numpy.py [big|small ...]

PT_BENCH_QUICK=1: a few steps; PT_TRAIN_BUDGET_MS: sampling time per case (default 3000).
Prints {device, runtime, cases: {name: {eager: {...}}}, errors} on stdout.
"""
import json, os, statistics, sys, time

import numpy as np

QUICK = os.environ.get("PT_BENCH_QUICK") == "1"
BUDGET_S = 0.0 if QUICK else float(os.environ.get("PT_TRAIN_BUDGET_MS") or 3000) / 1e3
WARM_S, WARM_MIN, WARM_MAX = (0.0, 1, 1) if QUICK else (1.5, 10, 5000)
REP_S, MIN_REPS, MAX_REPS, MAX_N = (0.0, 2, 2, 2) if QUICK else (0.1, 5, 40, 1000)
CHECK_STEPS = 3
CASES = {
    "big": {"sizes": [784, 1024, 1024, 10], "batch": 256, "opt": "adam", "lr": 1e-3},
    "small": {"sizes": [784, 64, 10], "batch": 64, "opt": "sgd", "lr": 0.1},
}
M32 = 0xFFFFFFFF


def hash_uniform(n, seed, lo, hi):
    """n float32 values lo + (hi - lo) * hash(i + seed * 0x27d4eb2d) / 2^32, as train.ts's hashUniform."""
    x = (np.arange(n, dtype=np.uint64) + np.uint64((seed * 0x27D4EB2D) & M32)) & np.uint64(M32)
    for _ in range(2):
        x = (((x >> np.uint64(16)) ^ x) * np.uint64(0x45D9F3B)) & np.uint64(M32)
    x = (x >> np.uint64(16)) ^ x
    return (lo + (hi - lo) * (x.astype(np.float64) / 4294967296.0)).astype(np.float32)


def init_params(c):
    """[(W [in, out], b [out])] per layer: seeds 2l+1 and 2l+2, bounds 1/sqrt(in)."""
    out = []
    s = c["sizes"]
    for l in range(len(s) - 1):
        fin, fout = s[l], s[l + 1]
        bound = 1 / np.sqrt(fin)
        out.append((hash_uniform(fin * fout, 2 * l + 1, -bound, bound).reshape(fin, fout),
                    hash_uniform(fout, 2 * l + 2, -bound, bound)))
    return out


def batch_data(c):
    """x [B, 784] in [0, 1) (seed 100) and int labels [B] in 0..9 (seed 101)."""
    x = hash_uniform(c["batch"] * c["sizes"][0], 100, 0.0, 1.0).reshape(c["batch"], c["sizes"][0])
    u = hash_uniform(c["batch"], 101, 0.0, 1.0)
    y = np.minimum(9, np.floor(u * np.float32(10)).astype(np.int64))
    return x, y


def time_steps(step, value, sync=lambda: None, events=None):
    """step() -> loss handle; value(loss) -> float. Returns train.ts's result fields (events: (make, elapsed) for CUDA)."""
    steps = 0
    check = []
    for _ in range(CHECK_STEPS):
        check.append(value(step()))
        steps += 1
    w0, warm = time.perf_counter(), 0
    while warm < WARM_MAX and (warm < WARM_MIN or time.perf_counter() - w0 < WARM_S):
        step()
        warm += 1
        if warm % 8 == 0:  # so that the clock sees the device's progress (launches only queue work)
            sync()
    sync()
    warm_per = (time.perf_counter() - w0) / warm
    probe = 1 if QUICK else 5  # then the steps per repetition from a short timed run (or the warm-up, when faster)
    p0 = time.perf_counter()
    for _ in range(probe):
        step()
    sync()
    per = min(warm_per, (time.perf_counter() - p0) / probe)
    steps += warm + probe
    n = max(1, min(MAX_N, int(np.ceil(REP_S / max(per, 1e-6)))))
    wall, ev, last = [], [], None
    t0 = time.perf_counter()
    while len(wall) < MIN_REPS or (len(wall) < MAX_REPS and time.perf_counter() - t0 < BUDGET_S):
        if events:
            e0, e1 = events[0](), events[0]()
            e0.record()
        a = time.perf_counter()
        for _ in range(n):
            last = step()
        if events:
            e1.record()
        sync()
        wall.append((time.perf_counter() - a) * 1e3 / n)
        if events:
            ev.append(events[1](e0, e1) / n)
        steps += n
    t = sorted(ev if events else wall)
    q = lambda p: float(np.quantile(t, p))  # noqa: E731
    r = {"ms_per_step": statistics.median(t), "p10_ms": q(0.1), "p90_ms": q(0.9), "reps": len(t), "steps_per_rep": n,
         "warmup_steps": warm + probe, "loss_check": check, "loss_final": value(last), "steps_total": steps,
         "timing": "cuda events" if events else "wall clock + sync"}
    if events:
        r["wall_ms_per_step"] = statistics.median(wall)
    return r


def run_cases(names, run_case, header):
    """Runs run_case(name) for each case (all when names is empty) and prints the JSON."""
    for n in names:
        if n not in CASES:
            raise SystemExit(f"unknown case {n} (big or small)")
    out, errors = {}, {}
    for name in names or list(CASES):
        try:
            out[name] = run_case(name)
            for mode, r in out[name].items():
                print(f"{name}/{mode}: {r['ms_per_step']:.4f} ms/step ({r['reps']} x {r['steps_per_rep']} steps), loss "
                      f"{' '.join(f'{l:.5f}' for l in r['loss_check'])} .. {r['loss_final']:.5f} after {r['steps_total']} steps",
                      file=sys.stderr)
        except Exception as e:  # one broken case must not stop the other
            errors[f"{name}/eager"] = f"{type(e).__name__}: {e}"
            print(f"{name}: ERROR {errors[f'{name}/eager']}", file=sys.stderr)
    print(json.dumps({**header, "quick": QUICK, "cases": out, "errors": errors}, indent=1))


class NumpyMLP:
    """The model, the step's forward and hand-written backward, and the update (SGD or torch.optim.Adam's)."""

    def __init__(self, c):
        self.params = [p.copy() for layer in init_params(c) for p in layer]  # W0, b0, W1, b1, ...
        self.x, self.y = batch_data(c)
        self.opt, self.lr = c["opt"], np.float32(c["lr"])
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def step(self):
        p, x, y = self.params, self.x, self.y
        layers = len(p) // 2
        hs, h = [x], x
        for l in range(layers):
            z = h @ p[2 * l]
            z += p[2 * l + 1]
            if l + 1 < layers:
                np.maximum(z, 0, out=z)
                hs.append(z)
            h = z
        # cross-entropy: logsumexp with the row max, minus the label's logit
        b = x.shape[0]
        m = h.max(axis=1, keepdims=True)
        e = np.exp(h - m)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) + m[:, 0] - h[np.arange(b), y]))
        dz = e / s  # softmax
        dz[np.arange(b), y] -= 1
        dz *= np.float32(1 / b)
        grads = [None] * len(p)
        for l in reversed(range(layers)):
            grads[2 * l] = hs[l].T @ dz
            grads[2 * l + 1] = dz.sum(axis=0)
            if l > 0:
                dh = dz @ p[2 * l].T
                dh *= hs[l] > 0  # relu's gradient (0 at 0)
                dz = dh
        self.update(grads)
        return loss

    def update(self, grads):
        if self.opt == "sgd":
            for p, g in zip(self.params, grads):
                p -= self.lr * g
            return
        b1, b2, eps = np.float32(0.9), np.float32(0.999), np.float32(1e-8)
        self.t += 1
        bc1, bc2 = 1 - 0.9 ** self.t, 1 - 0.999 ** self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * (g * g)
            denom = np.sqrt(v) / np.float32(np.sqrt(bc2)) + eps
            p -= np.float32(self.lr / bc1) * (m / denom)


def main():
    def run_case(name):
        model = NumpyMLP(CASES[name])
        return {"eager": time_steps(model.step, float)}
    threads = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS") if k in os.environ}
    run_cases(sys.argv[1:], run_case, {"device": f"cpu ({os.cpu_count()} cores)", "runtime": f"numpy {np.__version__}",
                                       "threads": threads or "library default"})


if __name__ == "__main__":
    main()
