"""Shared timing for bench/torch_peer.py and bench/cupy_peer.py (docs/architecture.md, Benchmarks).

A case is Case(name, setup, op, verify, reps, host): setup() makes the inputs, op(s) is one
repetition of the work, verify(s, out) returns [(label, got, want, tol)] as NumPy arrays
(the reference computed another way, on the host). Host-bound cases (many small launches)
are timed with the wall clock around (loop + synchronize); device-bound ones with events
around the loop, waiting on the end event (wall time is kept too, in _meta.wall_ms). Every
sample starts and ends with the device idle; on the CPU (Framework.host_only) every case
is timed with the wall clock. Prints {case: median_ms, "_meta": {...}}.
PT_BENCH_QUICK=1: two samples per case; PT_BENCH_BUDGET_MS: the sampling time per case;
PT_BENCH_FULL=0 leaves out matmul_4096 and add_256m, as bench/cases.ts does without it.
"""
import json, os, statistics, sys, time
from typing import Callable, NamedTuple

import numpy as np

QUICK = os.environ.get("PT_BENCH_QUICK") == "1"
SAMPLES, MIN_SAMPLES, BUDGET_S = (2, 2, 0.0) if QUICK else (50, 10, float(os.environ.get("PT_BENCH_BUDGET_MS") or 5000) / 1e3)
BIG = {"matmul_4096", "add_256m"}
M16, HW = 16 * 1024 * 1024, (3, 1080, 1920)
# Many small launches: the host's dispatch cost dominates, so the wall clock is the measure.
HOST_BOUND = {"dispatch_overhead_small", "eager_binary_dispatch_tight_loop", "masking_ops_tight_loop",
              "broadcast_binary_add", "deferred_alias_copy_materialize"}


class Case(NamedTuple):
    name: str
    setup: Callable
    op: Callable
    verify: Callable
    reps: int = 1


class Framework(NamedTuple):
    sync: Callable[[], None]  # wait until the device is idle
    event: Callable[[], object]  # a timing event with record() and synchronize()
    elapsed_ms: Callable[[object, object], float]
    host_only: bool = False  # no device events: the wall clock for every case


def check(c: Case, s, fw: Framework) -> str:
    """Runs the op once more and compares with the reference; returns "" or what is wrong."""
    bad = []
    for label, got, want, tol in c.verify(s, c.op(s)):
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            bad.append(f"{label}: shape {got.shape}, want {want.shape}")
            continue
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        lim = tol * np.maximum(1.0, np.abs(want.astype(np.float64)))
        if not np.all(err <= lim):
            i = int(np.argmax(err - lim))
            bad.append(f"{label}: element {i} got {got.reshape(-1)[i]}, want {want.reshape(-1)[i]} (tol {tol})")
    fw.sync()
    return "; ".join(bad)


def sample(c: Case, s, fw: Framework, host: bool):
    """One timed sample: (median-relevant ms, wall ms)."""
    fw.sync()
    if host:
        t0 = time.perf_counter()
        for _ in range(c.reps):
            c.op(s)
        fw.sync()
        wall = (time.perf_counter() - t0) * 1e3
        return wall, wall
    e0, e1 = fw.event(), fw.event()
    t0 = time.perf_counter()
    e0.record()
    for _ in range(c.reps):
        c.op(s)
    e1.record()
    e1.synchronize()
    wall = (time.perf_counter() - t0) * 1e3
    fw.sync()
    return fw.elapsed_ms(e0, e1), wall


def main(cases: list, fw: Framework, meta: dict) -> None:
    only = sys.argv[1:]
    out, wall, how, errors, wrong = {}, {}, {}, {}, {}
    skipped = [c.name for c in cases if c.name in BIG and os.environ.get("PT_BENCH_FULL") == "0"]
    for c in cases:
        if (only and c.name not in only) or c.name in skipped:
            continue
        host = fw.host_only or c.name in HOST_BOUND
        try:
            s = c.setup()
            fw.sync()
            for _ in range(3):  # warm-up: allocator, library handles, kernel caches
                sample(c, s, fw, host)
            msg = check(c, s, fw)
            if msg:
                wrong[c.name] = msg
                print(f"WARNING: {c.name}: result is wrong: {msg}", file=sys.stderr)
            t, w, t0 = [], [], time.perf_counter()
            while len(t) < SAMPLES and (len(t) < MIN_SAMPLES or time.perf_counter() - t0 < BUDGET_S):
                a, b = sample(c, s, fw, host)
                t.append(a)
                w.append(b)
            out[c.name], wall[c.name] = statistics.median(t), statistics.median(w)
            how[c.name] = f"{'wall' if host else 'events'}, {len(t)} samples"
            print(f"{c.name}: {out[c.name]:.4f} ms ({how[c.name]})", file=sys.stderr)
            del s
        except Exception as e:  # one broken case must not stop the others
            errors[c.name] = f"{type(e).__name__}: {e}"
            print(f"{c.name}: ERROR {errors[c.name]}", file=sys.stderr)
        fw.sync()
    meta.update(timing=how, wall_ms=wall, errors=errors, wrong=wrong)
    if skipped:
        meta["skipped"] = meta.get("skipped", []) + skipped
    out["_meta"] = meta
    print(json.dumps(out, indent=1))


def windows(n: int, w: int = 4096):
    """Three check windows (start, middle, end) of a big 1-D array."""
    return [slice(at, at + w) for at in (0, n // 2, n - w)]
