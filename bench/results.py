"""Writes bench/RESULTS.md from one run of bench/gpu_compare.sh: what is measured and how to
reproduce it, the run's commit, date and machine, one table (a row per case of bench/cases.ts;
for each of the CPU, CUDA and Vulkan, polytensor's median and ours / peer time for each peer
of that device measured in the same run), one chart (results.svg beside the markdown, drawn by
bench/chart.py) and a link to bench/history/. It reads OUT_DIR/gpu_compare.json ("sources",
written by bench/gpu_report.py) and prints only what is there: a device or peer that did not
run, failed or skipped a case says so in its cells and in the list under the table.

    python3 bench/results.py OUT_DIR [RESULTS.md]      (default OUT_DIR/RESULTS.md)
"""
import json, os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chart import svg  # noqa: E402

# (device, its name, its peers as (gpu_compare.sh step, name)), in the table's order
DEVICES = [("cpu", "CPU", [("torch_cpu", "PyTorch"), ("numpy", "NumPy")]),
           ("cuda", "CUDA", [("torch", "PyTorch"), ("cupy", "CuPy"), ("floor", "C floor")]),
           ("vulkan", "Vulkan", [("vulkan_floor", "C floor"), ("webgpu", "WebGPU")])]
GPU_COMMAND = "source .device/setup.sh && bash scripts/gpu_run.sh bench"


def deno_fmt(path):
    """Formats the markdown as the repository's `deno fmt --check` wants it, where a Deno is found."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for c in (shutil.which("deno"), os.path.join(root, "node_modules", ".bin", "deno")):
        if c and os.access(c, os.X_OK):
            r = subprocess.run([c, "fmt", "--quiet", "--config", os.path.join(root, "deno.json"), path], capture_output=True, text=True)
            return "formatted by deno fmt" if r.returncode == 0 else f"deno fmt failed: {r.stderr.strip()[:300]}"
    return "no Deno found: run deno fmt on it before committing"


def fmt(v):
    return f"{v:.3f}" if v >= 0.1 else f"{v:.4f}"


def fmt_ratio(r):
    return f"{r:.2f}x" if r < 10 else f"{r:.1f}x" if r < 100 else f"{r:.0f}x"


def clean(msg):
    """A log line fit for one markdown list item: no runs of spaces, no table pipes, at most 300 characters."""
    return " ".join(msg.replace("|", "/").split())[:300]


def status(src):
    """Why a source has no number for a case it covers."""
    if src is None or src["rc"] == "127":
        return "not run"
    if src["skip_reason"]:
        return "skipped"
    return "failed" if src["failure"] else "-"


def lookup(src, case, ns_key=None, sep=" "):
    """(value, text) of one case in one source: ms, or ns under ns_key; value None if it has none."""
    table, key = (src["ns"], ns_key) if ns_key else (src["ms"], case)
    if key in table:
        v = table[key]
        return v, (f"{v:.0f} ns" if ns_key else fmt(v)) + (f"{sep}WRONG" if case in src["wrong"] else "")
    if case in src["errors"]:
        return None, "error"
    if case in src["skipped"]:
        return None, "skipped"
    return None, status(src)


def main(out, md_path):
    with open(os.path.join(out, "gpu_compare.json")) as f:
        run = json.load(f)
    h, sources, ran = run["header"], run.get("sources", {}), run.get("devices", [])
    micro_floor = run.get("micro_floor", {})
    ours = {d: sources.get(f"polytensor-{d}") for d, _, _ in DEVICES if d in ran}
    rows = []
    for src in filter(None, ours.values()):
        rows += [n for n in list(src["ms"]) + list(src["errors"]) + list(src["skipped"]) if n not in rows]
    if not rows:  # no polytensor step ran: the peers' cases still name the rows
        rows = list(dict.fromkeys(n for s in sources.values() for n in s["covers"]))

    head, series = ["case"], []
    for d, name, peers in DEVICES:
        head += [f"{name} ms"] + [f"{name} vs {pn}" for _, pn in peers]
        series += [(d, f"{name}: ours / {pn}", k, {}) for k, pn in peers]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for n in rows:
        cells = [n]
        for d, name, peers in DEVICES:
            mine = ours.get(d)
            micro = bool(mine and n in mine["ns"])
            v, text = lookup(mine, n, n if micro else None, " ") if mine else (None, "not run")
            cells.append(text)
            for k, pn in peers:
                p = sources.get(k) if d in ran else None
                key = micro_floor.get(n) if micro else None
                if p is None or n not in p["covers"] or (micro and not key):
                    cells.append("")
                    continue
                pv, ptext = lookup(p, n, key, ", ")
                if v and pv:
                    r = v / pv
                    cells.append(f"{fmt_ratio(r)} ({ptext})")
                    next(s for s in series if s[0] == d and s[2] == k)[3][n] = r
                else:
                    cells.append(f"- ({ptext})" if pv else ptext)
        lines.append("| " + " | ".join(cells) + " |")

    dry = not h.get("driver")
    devs = h.get("polytensor_device", "")
    title = f"polytensor / peer time, {h.get('date', '?')}" + (": DRY RUN on a machine without a GPU" if dry else f", {h.get('device')}")
    svg_path = os.path.join(os.path.dirname(os.path.abspath(md_path)), "results.svg")
    with open(svg_path, "w") as f:
        f.write(svg(title, [(label, vals) for _, label, _, vals in series], rows,
                    "ours / peer time, log scale; right of 1.0: polytensor slower, left: faster. host_* rows: ns per call"))

    problems = []
    for d, name, peers in DEVICES:
        if d not in ran:
            problems.append(f"- {name}: not run (this run's devices: {' '.join(ran)})")
            continue
        for k, pn in [(f"polytensor-{d}", "polytensor")] + peers:
            s = sources.get(k)
            what = f"{name} {pn}"
            if s is None:
                problems.append(f"- {what}: not run")
                continue
            if s["rc"] == "127":
                problems.append(f"- {what}: not run: {clean(s['failure'].removeprefix('exit 127: '))}")
            elif s["failure"] or s["skip_reason"]:
                problems.append(f"- {what}: {'skipped: ' if s['skip_reason'] else ''}{clean(s['skip_reason'] or s['failure'])}")
            by_msg = {}
            for case, msg in s["errors"].items():
                by_msg.setdefault(msg, []).append(case)
            problems += [f"- {what}, {', '.join(cs) if len(cs) < 4 else f'{len(cs)} cases'}: error: {clean(msg)}" for msg, cs in by_msg.items()]
            problems += [f"- {what}, {case}: result WRONG: {clean(msg)}" for case, msg in s["wrong"].items()]
            if s["skipped"] and not s["skip_reason"]:
                problems.append(f"- {what}: skipped {', '.join(s['skipped'])}")

    meta = lambda k: (sources.get(k) or {}).get("meta", {})  # noqa: E731
    tc, tg, cp, npy, wg = meta("torch_cpu"), meta("torch"), meta("cupy"), meta("numpy"), meta("webgpu")
    peers = [f"PyTorch {tc['torch']} on the CPU ({tc.get('threads')} threads)" if "torch" in tc else "",
             f"NumPy {npy['numpy']}" if "numpy" in npy else "",
             f"PyTorch {tg['torch']} on {tg.get('device')} (CUDA {tg.get('cuda')}, TF32 {'on' if tg.get('allow_tf32') is True else 'off'})"
             if "torch" in tg else "",
             f"CuPy {cp['cupy']}" if "cupy" in cp else "",
             f"Deno {wg['deno']} WebGPU on {wg.get('adapter')}{' (a fallback adapter)' if wg.get('fallback_adapter') else ''}"
             if "deno" in wg else ""]
    para = ("Every case of [bench/cases.ts](cases.ts) on polytensor's CPU, CUDA and Vulkan devices, each beside the peers measured in"
            " the same run on the same machine: on the CPU PyTorch (CPU) and NumPy; on CUDA PyTorch, CuPy and the plain C floor over the"
            " driver API ([floor/cuda_floor.c](floor/cuda_floor.c)); on Vulkan the plain C floor ([floor/vulkan_floor.c](floor/vulkan_floor.c))"
            " and Deno's WebGPU. A device column is polytensor's median in ms (host_* rows: ns per call); a peer column is ours / peer"
            " time (below 1.00x polytensor is faster) with the peer's median in brackets. Blank: the peer has no such case; not run,"
            " failed, error, skipped: see the list under the table. polytensor and the floors time work + sync with the wall clock; the"
            " GPU peers use CUDA events for device-bound cases ([gpu_harness.py](gpu_harness.py)). Machines are shared and noisy:"
            " compare ratios within this table. Written by [results.py](results.py) from one run of [gpu_compare.sh](gpu_compare.sh)."
            " To reproduce, on the GPU machine, with native/zig-out built by `zig build` and `zig build floor` and carried there with"
            " .device, one command writes $OUT/RESULTS.md and $OUT/results.svg, which replace bench/RESULTS.md and bench/results.svg:")
    doc = ["# Benchmark results", "", para, "", f"    {GPU_COMMAND}", ""]
    if dry:
        vk = next((x.split(": ", 1)[1].split(", blas:")[0] for x in devs.split("; ") if x.startswith("vulkan:")), "")
        quick = "; PT_BENCH_QUICK=1: two samples a case" if "PT_BENCH_QUICK=1" in (h.get("command") or "") else ""
        note = (f"**DRY RUN on a machine without a GPU** (nvidia-smi found none{'; Vulkan ran on ' + vk if vk else ''}{quick})."
                " It shows this file's format and that the harness runs; its numbers say nothing about GPU speed. The GPU run"
                " replaces it.")
        doc += [note, ""]
    doc += [
        f"- commit: {h.get('commit', 'unknown')}; run started {h.get('started') or '?'}, reported {h.get('date', '?')}",
        f"- machine: GPU {h.get('driver') or 'none found'}; CPU {h.get('cpu') or '?'}",
        f"- runtime: {h.get('runtime', '?')}; polytensor devices: {devs}",
        f"- peers that ran: {'; '.join(filter(None, peers)) or 'none'}",
        f"- this run: `{h.get('command') or '?'}`", "",
    ] + lines + ["", "![ours / peer time, per case](results.svg)", ""]
    if problems:
        doc += ["Not run, failed, skipped:", ""] + problems + [""]
    doc += ["Earlier results, the session logs with their own tables and charts: [bench/history/](history/).", ""]
    with open(md_path, "w") as f:
        f.write("\n".join(doc))
    print(f"wrote {md_path} ({len(rows)} cases; {deno_fmt(md_path)}) and {svg_path}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.join(sys.argv[1], "RESULTS.md"))
