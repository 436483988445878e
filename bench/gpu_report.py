"""Builds gpu_compare.md (stdout), gpu_compare.svg (ratios, bench/chart.py) and gpu_compare.json
from the step outputs that bench/gpu_compare.sh leaves in OUT_DIR: NAME.json or NAME.txt
(stdout), NAME.log (stderr), NAME.rc for NAME in polytensor-cpu, polytensor-cuda,
polytensor-vulkan, floor, vulkan_floor, torch, cupy, webgpu, torch_cpu, numpy. Any of them may
be missing, empty or broken. gpu_compare.json's "sources" holds each step's numbers as parsed
here, which bench/results.py turns into bench/RESULTS.md.

    python3 bench/gpu_report.py OUT_DIR      (env: PT_RT, PT_GIT, PT_GPU, PT_CPU, PT_CMD, PT_STARTED,
                                              PT_DEVICES from the script)
"""
import json, os, re, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chart import svg  # noqa: E402

out = sys.argv[1]
CASES = ["dispatch_overhead_small", "eager_binary_dispatch_tight_loop", "masking_ops_tight_loop", "broadcast_binary_add",
         "sort_middle_axis_64x1024x64", "deferred_alias_copy_materialize", "chw_rgb_to_hwc_u8_1080p", "fused_pointwise_1080p",
         "mask_logical_reduce_16m", "sq_diff_mean_16m", "noncontig_chw_hwc_copy_1080p", "matmul_4096", "add_256m", "add_16m", "sum_16m", "matmul_1024",
         "softmax_8192x4096", "layer_norm_8192x4096", "conv2d_32x64x56x56_3x3", "sdpa_causal_8x16x1024x64"]
FLOOR_CASES = {"dispatch_overhead_small", "deferred_alias_copy_materialize", "add_256m", "fused_pointwise_1080p",
               "fused_pointwise_1080p_eager"}
GIB3 = 3 * 2**30  # bytes moved by add_256m
# bench/micro.ts case -> its C floor counterparts in cuda_floor.c (the first is the chart's)
MICRO = {
    "host_alloc_free": [("mem_alloc_free_async_ns", "cuMemAllocAsync + cuMemFreeAsync (the driver's pool)"),
                        ("mem_alloc_free_ns", "cuMemAlloc + cuMemFree")],
    "host_alloc_free_uncached": [("mem_alloc_free_ns", "cuMemAlloc + cuMemFree")],
    "host_fence_record_free": [("event_create_record_destroy_ns", "cuEventCreate + cuEventRecord + cuEventDestroy"),
                               ("event_record_ns", "cuEventRecord of a reused event")],
    "host_sync_idle": [("stream_sync_idle_ns", "cuStreamSynchronize, idle stream")],
    "host_ew_prepare": [(None, "none: C prepares nothing")],
    "host_ew_launch": [("launch_ns", "cuLaunchKernel host time (launch_256_host_ms / 256)")],
    "host_ew_add": [("launch_ns", "cuLaunchKernel host time (launch_256_host_ms / 256)")],
}
TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}


def read(name, ext):
    try:
        with open(f"{out}/{name}.{ext}") as f:
            return f.read()
    except OSError:
        return ""


class Source:
    """One step's numbers {case: ms}, per-case errors / wrong results, and why it failed, if it did."""

    def __init__(self, name, text=None):
        self.name = name
        self.rc, self.log = read(name, "rc").strip() or "?", read(name, "log")
        self.ns, self.lines, self.info = {}, [], []
        if text is None:
            try:
                self.raw = json.loads(read(name, "json"))
            except ValueError:
                self.raw = None
        else:  # vulkan_floor: "name value unit" lines
            self.raw = {}
            for ln in filter(str.strip, text.splitlines()):
                m = re.fullmatch(r"\s*(\S+)\s+([-+]?[\d.]+(?:e[-+]?\d+)?)\s+(\S+)\s*", ln, re.I)
                if m:
                    self.lines.append((m[1], float(m[2]), m[3]))
                else:
                    self.info.append(ln.strip())
            self.raw = {"lines": [list(x) for x in self.lines], "info": self.info} if self.lines or self.info else None
        raw = self.raw if isinstance(self.raw, dict) else {}
        meta = raw.get("_meta", {})
        self.meta, self.errors, self.wrong = meta, dict(meta.get("errors", {})), dict(meta.get("wrong", {}))
        self.skipped = list(meta.get("skipped", []) if isinstance(meta.get("skipped"), list) else []) + list(raw.get("skipped", []))
        self.skip_reason = meta.get("skipped") if isinstance(meta.get("skipped"), str) else ""
        if name.startswith("polytensor"):  # bench/run.ts: {device, results: {case: {median_ms, ns_per_call?}}, errors, skipped}
            self.ms = {k: v["median_ms"] for k, v in raw.get("results", {}).items()}
            self.ns = {k: v["ns_per_call"] for k, v in raw.get("results", {}).items() if "ns_per_call" in v}
            self.errors.update(raw.get("errors", {}))
            if not raw:  # no JSON: take the per-case errors from the log
                self.errors.update(dict(re.findall(r"^(\S+): ERROR (.*)$", self.log, re.M)))
        elif text is not None:
            self.ms = vulkan_cases(self.lines)
        else:
            self.ms = {k: v for k, v in raw.items() if isinstance(v, (int, float)) and not k.startswith("_")}
        if "launch_256_host_ms" in self.ms:
            self.ns["launch_ns"] = self.ms["launch_256_host_ms"] * 1e6 / 256
        self.ns.update({k: v for k, v in self.ms.items() if k.endswith("_ns")})
        self.failure = ""
        if raw.get("_error"):
            self.failure = raw["_error"]
        elif self.rc != "0" or self.raw is None:
            lines = [ln for ln in self.log.splitlines() if ln.strip() and not ln.startswith("==")]
            why = "timed out (PT_STEP_TIMEOUT or PT_BENCH_DEADLINE)" if self.rc == "124" else f"exit {self.rc}"
            self.failure = f"{why}: " + (" | ".join(lines[-3:]) or "no output")
        if name.startswith("polytensor") and not self.ms and self.errors and not self.failure.startswith("exit 127"):
            self.failure = f"PT_DEVICE={name.split('-')[-1]} unavailable or broken: " + next(iter(self.errors.values()))

    def cell(self, case, ns=False):
        t = self.ns if ns else self.ms
        if case in t:
            return (fmt_ns if ns else fmt)(t[case]) + (" (WRONG)" if case in self.wrong else "")
        if case in self.errors:
            return "error"
        return "skipped" if case in self.skipped or self.skip_reason else "failed" if self.failure else "-"


def vulkan_cases(lines):
    """Vulkan floor lines placed by what they measure: ms for the table, GB/s for bandwidth."""
    ms = {}
    for name, v, unit in lines:
        n, u = name.lower(), unit.lower().replace("μ", "µ")
        if u in ("gb/s", "gbps"):
            key = "add_256m_gbps" if "add" in n else "copy_gbps" if "copy" in n else n + "_gbps"
            ms[key] = v
            if key == "add_256m_gbps" and v > 0:
                ms.setdefault("add_256m", GIB3 / (v * 1e6))
        elif u in TO_MS:
            key = n if n in CASES else "replay_256" if "replay" in n else "dispatch_overhead_small" if "dispatch" in n else n
            ms.setdefault(key, v * TO_MS[u])  # the first line of a kind wins
    return ms


def fmt(v):
    return f"{v:.3f}" if v >= 0.1 else f"{v:.4f}"


def fmt_ns(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "-"


def div(a, b):
    return a / b if a and b else None


devices = (os.environ.get("PT_DEVICES") or "").split() or [d for d in ("cuda", "vulkan", "cpu") if read(f"polytensor-{d}", "rc")] or ["cuda"]
# "polytensor" is the CUDA step of harness runs from before the device argument
ours = {d: Source("polytensor" if d == "cuda" and read("polytensor", "rc") and not read("polytensor-cuda", "rc") else f"polytensor-{d}")
        for d in devices}
floor, torch, cupy = Source("floor"), Source("torch"), Source("cupy")
vk = "vulkan" in devices
vkfloor = Source("vulkan_floor", read("vulkan_floor", "txt")) if vk else None
webgpu = Source("webgpu") if vk else None
cpu = "cpu" in devices
tcpu, npy = (Source("torch_cpu"), Source("numpy")) if cpu else (None, None)
# each device's peers for the ratio columns and the chart: the CPU's run on the CPU
PEERS = {d: [("PyTorch CPU", tcpu), ("NumPy", npy)] if d == "cpu" else [("PyTorch", torch), ("CuPy", cupy)] for d in devices}
DEV = {"cuda": "CUDA", "vulkan": "Vulkan", "cpu": "CPU"}
src = {f"polytensor {DEV.get(d, d)}": s for d, s in ours.items()}
cu = "cuda" in devices
src.update({"C floor": floor} if cu else {})
src.update({"PyTorch": torch, "CuPy": cupy})
if vk:
    src.update({"Vulkan floor": vkfloor, "Deno WebGPU": webgpu})
if cpu:
    src.update({"PyTorch CPU": tcpu, "NumPy": npy})
header = {
    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "started": os.environ.get("PT_STARTED", ""),
    "device": torch.meta.get("device") or floor.meta.get("device") or os.environ.get("PT_GPU") or "unknown",
    "driver": os.environ.get("PT_GPU", ""),
    "cpu": os.environ.get("PT_CPU", ""),
    "torch": f"{torch.meta.get('torch', '?')} (CUDA {torch.meta.get('cuda', '?')}, allow_tf32={torch.meta.get('allow_tf32', '?')})",
    "cupy": f"{cupy.meta.get('cupy', '?')} (CUDA runtime {cupy.meta.get('cuda_runtime', '?')})",
    "runtime": os.environ.get("PT_RT", "?").strip(),
    "commit": os.environ.get("PT_GIT", "unknown"),
    "command": os.environ.get("PT_CMD", ""),
    "polytensor_device": "; ".join(f"{d}: {(s.raw.get('device') if isinstance(s.raw, dict) else None) or '-'}" for d, s in ours.items()),
    "floor": floor.meta,
}
if vk:
    header["webgpu"] = webgpu.skip_reason and f"skipped: {webgpu.skip_reason}" or \
        f"{webgpu.meta.get('adapter', '?')}{' (fallback adapter)' if webgpu.meta.get('fallback_adapter') else ''}, Deno {webgpu.meta.get('deno', '?')}"
if cpu:
    header["torch_cpu"] = f"{tcpu.meta.get('torch', '?')} on the CPU, {tcpu.meta.get('threads', '?')} threads"
    header["numpy"] = f"{npy.meta.get('numpy', '?')}, BLAS: {npy.meta.get('blas', '?')}"
print(f"# polytensor on {' and '.join(DEV.get(d, d) for d in devices)} vs the C floor{'s' if vk else ''}, PyTorch and CuPy"
      f"{' and Deno WebGPU' if vk else ''}{' (and on the CPU PyTorch and NumPy)' if cpu else ''}\n")
for k in ("date", "device", "driver", "cpu", "torch", "cupy", "runtime", "commit", "polytensor_device") + (("webgpu",) if vk else ()) \
        + (("torch_cpu", "numpy") if cpu else ()):
    print(f"- {k}: {header[k]}")
print("\nMedians in ms. ours/X > 1: polytensor is slower than X by that factor.\n")

cols = [(f"polytensor {DEV.get(d, d)} ms", (lambda s: lambda n: s.cell(n))(s)) for d, s in ours.items()]
if cu:
    cols.append(("C floor ms", lambda n: floor.cell(n) if n in FLOOR_CASES else ""))
if vk:
    cols.append(("Vulkan floor ms", lambda n: vkfloor.cell(n) if n in vkfloor.ms else ""))
cols += [("PyTorch ms", torch.cell), ("CuPy ms", cupy.cell)]
if cpu:
    cols += [("PyTorch CPU ms", tcpu.cell), ("NumPy ms", npy.cell)]
if vk:
    cols.append(("WebGPU ms", lambda n: webgpu.cell(n) if n == "dispatch_overhead_small" else ""))
for d, s in ours.items():
    tag = "ours" if len(ours) == 1 else DEV.get(d, d)
    pn, p = PEERS[d][0]
    cols.append((f"{tag}/{pn}", (lambda s, p: lambda n: ratio(s.ms.get(n), p.ms.get(n)))(s, p)))
    fl = vkfloor if d == "vulkan" else floor if d == "cuda" else None
    if fl:
        cols.append((f"{tag}/floor", (lambda s, fl: lambda n: ratio(s.ms.get(n), fl.ms.get(n)) if n in fl.ms or n in FLOOR_CASES else "")(s, fl)))
print("| case | " + " | ".join(c for c, _ in cols) + " |\n|---|" + "---:|" * len(cols))
seen = {n for s in list(ours.values()) + [p for _, p in sum(PEERS.values(), [])] for n in list(s.ms) + list(s.errors)}
names = CASES + sorted(seen - set(CASES) - set(MICRO))
for n in names:
    if n not in FLOOR_CASES and not any(n in s.ms or n in s.errors for s in src.values()):
        continue
    print(f"| {n} | " + " | ".join(f(n) for _, f in cols) + " |")

print("\nHost-side microcases, ns per call (bench/micro.ts; the C floor's counterparts in bench/floor/cuda_floor.c):\n")
mcols = [f"polytensor {DEV.get(d, d)} ns" for d in ours]
print("| case | " + " | ".join(mcols) + " | C floor equivalent | floor ns | ours/floor |\n|---|" + "---:|" * len(mcols) + "---|---:|---:|")
for case, pairs in MICRO.items():
    for key, what in pairs:
        mine = [ours[d].cell(case, ns=True) for d in ours]
        fv, o = floor.ns.get(key) if key else None, ours[devices[0]].ns.get(case)
        print(f"| {case} | " + " | ".join(mine) + f" | {what} | {fmt_ns(fv) if fv else '-'} | {ratio(o, fv) if key else ''} |")
print("\nhost_ew_prepare is `a.add(b)` on 1-element tensors with pt_launch replaced by a no-op (no clean seam in"
      " src/kernels/launch.ts): the whole front end, output allocation and release, everything but the FFI launch.")

if cu:
    print("\nC floor (plain C over libcuda + NVRTC, wall clock, each sample ends with a stream sync):\n")
    for k, what in [("graph_replay_256", "256 launches captured once as a CUDA graph, replay + sync"),
                    ("launch_256_host_ms", "host time of the 256 cuLaunchKernel calls alone"),
                    ("nvrtc_compile_ms", "NVRTC compile of the floor's three kernels")]:
        print(f"- {what}: {fmt(floor.ms[k]) + ' ms' if k in floor.ms else '-'}")
    for k, what in [("add_256m", "add_256m, one vectorised kernel (3 GiB moved)"), ("dtod_copy_1gib", "cuMemcpyDtoDAsync of 1 GiB (read + write)")]:
        gb = floor.ms.get(k + "_gbps")
        print(f"- {what}: {fmt(floor.ms[k]) + ' ms, ' if k in floor.ms else ''}{f'{gb:.0f} GB/s' if gb else '-'}")
bw = [f"{name} {GIB3 / (s.ms['add_256m'] * 1e6):.0f}" for name, s in src.items() if s.ms.get("add_256m") and s is not vkfloor]
bw += [f"Vulkan floor {vkfloor.ms['add_256m_gbps']:.0f}"] if vk and vkfloor.ms.get("add_256m_gbps") else []
print(f"{'' if cu else chr(10)}- add_256m GB/s (3 GiB / median): {', '.join(bw) or '-'}")

if vk:
    print("\nCUDA and Vulkan side by side (ms unless named):\n\n| what | CUDA | Vulkan |\n|---|---:|---:|")
    c, v = ours.get("cuda"), ours["vulkan"]
    fc = floor.cell if cu else lambda n: "-"
    gbps = lambda s: f"{GIB3 / (s.ms['add_256m'] * 1e6):.0f}" if s and s.ms.get("add_256m") else "-"
    for what, a, b in [
        ("polytensor dispatch_overhead_small (256 adds + wait)", c.cell("dispatch_overhead_small") if c else "-", v.cell("dispatch_overhead_small")),
        ("floor: 256 launches / dispatches + wait", fc("dispatch_overhead_small"), vkfloor.cell("dispatch_overhead_small")),
        ("floor: replay of the pre-recorded 256 (CUDA graph / command buffer)", fc("graph_replay_256"), vkfloor.cell("replay_256")),
        ("Deno WebGPU: 256 submits + wait", "", webgpu.cell("dispatch_overhead_small")),
        ("polytensor add_256m GB/s", gbps(c), gbps(v)),
        ("floor add_256m GB/s", f"{floor.ms['add_256m_gbps']:.0f}" if "add_256m_gbps" in floor.ms else "-",
         f"{vkfloor.ms['add_256m_gbps']:.0f}" if "add_256m_gbps" in vkfloor.ms else "-"),
        ("floor copy GB/s (read + write)", f"{floor.ms['dtod_copy_1gib_gbps']:.0f}" if "dtod_copy_1gib_gbps" in floor.ms else "-",
         f"{vkfloor.ms['copy_gbps']:.0f}" if "copy_gbps" in vkfloor.ms else "-"),
    ]:
        print(f"| {what} | {a} | {b} |")
    print("\nVulkan floor (native/zig-out/bin/vulkan_floor), as printed:\n")
    print("\n".join(f"- {n} {v:g} {u}" for n, v, u in vkfloor.lines) or "- (nothing)")
    if vkfloor.info:
        print("\n".join(f"- {ln}" for ln in vkfloor.info[:8]))

print("\npolytensor and the floors are timed with the wall clock around (work + sync). The peers use the wall"
      " clock for the host-bound cases (many small launches) and CUDA events (device time) for the others;"
      " their wall-clock medians are in gpu_compare.json (_meta.wall_ms).")

problems = [f"- {name}: {s.failure}" for name, s in src.items() if s.failure]
problems += [f"- {name}: skipped: {s.skip_reason}" for name, s in src.items() if s.skip_reason]
for name, s in src.items():  # one line per distinct message
    by_msg = {}
    for case, msg in s.errors.items():
        by_msg.setdefault(msg, []).append(case)
    problems += [f"- {name} {', '.join(cs) if len(cs) < 4 else f'({len(cs)} cases)'}: {msg}" for msg, cs in by_msg.items()]
problems += [f"- {name} {case}: result WRONG: {msg}" for name, s in src.items() for case, msg in s.wrong.items()]
if problems:
    print("\nErrors and skips:\n" + "\n".join(problems))

series = []
for d, s in ours.items():
    tag = DEV.get(d, d)
    if d == "cuda":
        fl = {n: div(s.ms.get(n), floor.ms.get(n)) for n in FLOOR_CASES}
        fl.update({n: div(s.ns.get(n), floor.ns.get(p[0][0])) for n, p in MICRO.items() if p[0][0]})
        series.append((f"{tag}: ours / C floor", fl))
    if d == "vulkan":
        series.append((f"{tag}: ours / Vulkan floor", {n: div(s.ms.get(n), vkfloor.ms.get(n)) for n in CASES}))
        series.append((f"{tag}: ours / Deno WebGPU", {n: div(s.ms.get(n), webgpu.ms.get(n)) for n in CASES}))
    series += [(f"{tag}: ours / {pn}", {n: div(s.ms.get(n), p.ms.get(n)) for n in names}) for pn, p in PEERS[d]]
with open(f"{out}/gpu_compare.svg", "w") as f:
    f.write(svg(f"polytensor vs peers on {header['device']} ({header['date']})", series, names + list(MICRO),
                "ours / peer time, log scale; right of 1.0: polytensor slower, left: faster. host_* rows: ns per call vs the C floor"))

steps = {name: {"rc": s.rc, "failure": s.failure, "log_tail": s.log.splitlines()[-20:]} for name, s in src.items()}
# The sources as parsed, keyed by step; "covers": the cases a peer measures when it runs
covers = {"floor": sorted(FLOOR_CASES) + [n for n, p in MICRO.items() if p[0][0]], "vulkan_floor": sorted(FLOOR_CASES),
          "webgpu": ["dispatch_overhead_small"], **{k: CASES for k in ("torch", "cupy", "torch_cpu", "numpy")}}
sources = {f"polytensor-{d}": s for d, s in ours.items()}
sources.update({s.name: s for s in (floor if cu else None, vkfloor, webgpu, torch, cupy, tcpu, npy) if s})
sources = {k: {"rc": s.rc, "failure": s.failure, "skip_reason": s.skip_reason, "ms": s.ms, "ns": s.ns, "errors": s.errors,
               "wrong": s.wrong, "skipped": s.skipped, "covers": covers.get(k, []), "meta": s.meta} for k, s in sources.items()}
with open(f"{out}/gpu_compare.json", "w") as f:
    json.dump({"header": header, "devices": devices, **{f"polytensor_{d}": s.raw for d, s in ours.items()}, "floor": floor.raw,
               "vulkan_floor": vkfloor.raw if vk else None, "torch": torch.raw, "cupy": cupy.raw,
               "webgpu": webgpu.raw if vk else None, "torch_cpu": tcpu.raw if cpu else None, "numpy": npy.raw if cpu else None,
               "steps": steps, "sources": sources, "micro_floor": {n: p[0][0] for n, p in MICRO.items() if p[0][0]}}, f, indent=1)
