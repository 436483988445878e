"""Builds gpu_compare.md (stdout) and gpu_compare.json from the step outputs that
bench/gpu_compare.sh leaves in OUT_DIR: NAME.json (stdout), NAME.log (stderr), NAME.rc for
NAME in polytensor, floor, torch, cupy. Any of them may be missing, empty or broken.

    python3 bench/gpu_report.py OUT_DIR      (env: PT_RT, PT_GIT, PT_GPU from the script)
"""
import json, os, re, sys, time

out = sys.argv[1]
CASES = ["dispatch_overhead_small", "eager_binary_dispatch_tight_loop", "masking_ops_tight_loop", "broadcast_binary_add",
         "sort_middle_axis_64x1024x64", "deferred_alias_copy_materialize", "chw_rgb_to_hwc_u8_1080p", "fused_pointwise_1080p",
         "mask_logical_reduce_16m", "noncontig_chw_hwc_copy_1080p", "matmul_4096", "add_256m", "add_16m", "sum_16m", "matmul_1024"]
FLOOR_CASES = {"dispatch_overhead_small", "deferred_alias_copy_materialize", "add_256m"}
GIB3 = 3 * 2**30  # bytes moved by add_256m


def read(name, ext):
    try:
        with open(f"{out}/{name}.{ext}") as f:
            return f.read()
    except OSError:
        return ""


class Source:
    """One step's numbers {case: ms}, per-case errors / wrong results, and why it failed, if it did."""

    def __init__(self, name):
        self.rc, self.log = read(name, "rc").strip() or "?", read(name, "log")
        try:
            self.raw = json.loads(read(name, "json"))
        except ValueError:
            self.raw = None
        raw = self.raw if isinstance(self.raw, dict) else {}
        meta = raw.get("_meta", {})
        self.meta, self.errors, self.wrong = meta, dict(meta.get("errors", {})), dict(meta.get("wrong", {}))
        self.skipped = list(meta.get("skipped", [])) + list(raw.get("skipped", []))
        if name == "polytensor":  # bench/run.ts: {device, results: {case: {median_ms}}, errors, skipped}
            self.ms = {k: v["median_ms"] for k, v in raw.get("results", {}).items()}
            self.errors.update(raw.get("errors", {}))
            if not raw:  # no JSON: take the per-case errors from the log
                self.errors.update(dict(re.findall(r"^(\S+): ERROR (.*)$", self.log, re.M)))
        else:
            self.ms = {k: v for k, v in raw.items() if isinstance(v, (int, float)) and not k.startswith("_")}
        self.failure = ""
        if raw.get("_error"):
            self.failure = raw["_error"]
        elif self.rc != "0" or self.raw is None:
            lines = [ln for ln in self.log.splitlines() if ln.strip() and not ln.startswith("==")]
            self.failure = f"exit {self.rc}: " + (" | ".join(lines[-3:]) or "no output")
        if name == "polytensor" and not self.ms and self.errors and not self.failure.startswith("exit 127"):
            self.failure = "PT_DEVICE=cuda unavailable or broken: " + next(iter(self.errors.values()))

    def cell(self, case):
        if case in self.ms:
            return fmt(self.ms[case]) + (" (WRONG)" if case in self.wrong else "")
        return "error" if case in self.errors else "skipped" if case in self.skipped else "failed" if self.failure else "-"


def fmt(v):
    return f"{v:.3f}" if v >= 0.1 else f"{v:.4f}"


def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "-"


ours, floor, torch, cupy = (Source(n) for n in ("polytensor", "floor", "torch", "cupy"))
src = {"polytensor": ours, "C floor": floor, "PyTorch": torch, "CuPy": cupy}
header = {
    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "device": torch.meta.get("device") or floor.meta.get("device") or os.environ.get("PT_GPU") or "unknown",
    "driver": os.environ.get("PT_GPU", ""),
    "torch": f"{torch.meta.get('torch', '?')} (CUDA {torch.meta.get('cuda', '?')}, allow_tf32={torch.meta.get('allow_tf32', '?')})",
    "cupy": f"{cupy.meta.get('cupy', '?')} (CUDA runtime {cupy.meta.get('cuda_runtime', '?')})",
    "runtime": os.environ.get("PT_RT", "?").strip(),
    "commit": os.environ.get("PT_GIT", "unknown"),
    "polytensor_device": (ours.raw.get("device") if isinstance(ours.raw, dict) else None) or "-",
    "floor": floor.meta,
}
print("# polytensor on CUDA vs the C floor, PyTorch and CuPy\n")
for k in ("date", "device", "driver", "torch", "cupy", "runtime", "commit", "polytensor_device"):
    print(f"- {k}: {header[k]}")
print("\nMedians in ms. ours/X > 1: polytensor is slower than X by that factor.\n")
print("| case | polytensor ms | C floor ms | PyTorch ms | CuPy ms | ours/PyTorch | ours/floor |\n|---|---:|---:|---:|---:|---:|---:|")
names = CASES + sorted({n for s in (ours, torch, cupy) for n in list(s.ms) + list(s.errors)} - set(CASES))
for n in names:
    if n not in FLOOR_CASES and not any(n in s.ms or n in s.errors for s in src.values()):
        continue
    fl = floor.cell(n) if n in FLOOR_CASES else ""
    o = ours.ms.get(n)
    print(f"| {n} | {ours.cell(n)} | {fl} | {torch.cell(n)} | {cupy.cell(n)} | {ratio(o, torch.ms.get(n))} | "
          f"{ratio(o, floor.ms.get(n)) if n in FLOOR_CASES else ''} |")

print("\nC floor (plain C over libcuda + NVRTC, wall clock, each sample ends with a stream sync):\n")
for k, what in [("graph_replay_256", "256 launches captured once as a CUDA graph, replay + sync"),
                ("launch_256_host_ms", "host time of the 256 cuLaunchKernel calls alone"),
                ("nvrtc_compile_ms", "NVRTC compile of the floor's three kernels")]:
    print(f"- {what}: {fmt(floor.ms[k]) + ' ms' if k in floor.ms else '-'}")
for k, what in [("add_256m", "add_256m, one vectorised kernel (3 GiB moved)"), ("dtod_copy_1gib", "cuMemcpyDtoDAsync of 1 GiB (read + write)")]:
    gb = floor.ms.get(k + "_gbps")
    print(f"- {what}: {fmt(floor.ms[k]) + ' ms, ' if k in floor.ms else ''}{f'{gb:.0f} GB/s' if gb else '-'}")
bw = [f"{name} {GIB3 / (s.ms['add_256m'] * 1e6):.0f}" for name, s in src.items() if s.ms.get("add_256m")]
print(f"- add_256m GB/s (3 GiB / median): {', '.join(bw) or '-'}")
print("\npolytensor and the floor are timed with the wall clock around (work + sync). The peers use the wall"
      " clock for the host-bound cases (many small launches) and CUDA events (device time) for the others;"
      " their wall-clock medians are in gpu_compare.json (_meta.wall_ms).")

problems = [f"- {name}: {s.failure}" for name, s in src.items() if s.failure]
for name, s in src.items():  # one line per distinct message
    by_msg = {}
    for case, msg in s.errors.items():
        by_msg.setdefault(msg, []).append(case)
    problems += [f"- {name} {', '.join(cs) if len(cs) < 4 else f'({len(cs)} cases)'}: {msg}" for msg, cs in by_msg.items()]
problems += [f"- {name} {case}: result WRONG: {msg}" for name, s in src.items() for case, msg in s.wrong.items()]
if problems:
    print("\nErrors:\n" + "\n".join(problems))

steps = {name: {"rc": s.rc, "failure": s.failure, "log_tail": s.log.splitlines()[-20:]} for name, s in src.items()}
with open(f"{out}/gpu_compare.json", "w") as f:
    json.dump({"header": header, "polytensor": ours.raw, "floor": floor.raw, "torch": torch.raw, "cupy": cupy.raw, "steps": steps}, f, indent=1)
