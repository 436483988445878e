#!/usr/bin/env bash
# Issue #25's training benchmarks in one command on the GPU machine:
#
#     source .device/setup.sh && bash bench/train_compare.sh [OUT_DIR [DEVICE...]]
#
# (default OUT_DIR bench/out/train, devices cuda vulkan cpu). Runs bench/train.ts (ours, under
# bun if on PATH, else deno; PT_BENCH_RUNTIME picks one) on each device for the two cases
# (big: MLP 784-1024-1024-10, batch 256, Adam; small: 784-64-10, batch 64, SGD), eager and
# captured; bench/train_torch.py on cuda (when cuda is asked for) and on the CPU;
# bench/train_numpy.py on the CPU, with the library's default threads and with one thread
# (numpy-1t). Each step is one case on one device, bounded by `timeout`; the whole run by
# PT_TRAIN_DEADLINE (s, default 450): a step gets what is left of it less 30 s for the report
# (at most PT_STEP_TIMEOUT, default 150 s) and one that would start with under 10 s left is
# recorded as not run. The most important steps run first (cuda, then the CPU's small case).
#
# Writes OUT_DIR/train.md (also on stdout): the table of ms per step, ours / the peer's ratio
# and the issue's targets (big on cuda: eager <= 1.0x PyTorch's eager, captured <= 0.5x;
# small on cuda: eager <= 0.6x; small on the CPU: eager <= 1.0x PyTorch's CPU step, or
# NumPy's when torch is missing), and the losses of every run (the first steps from the same
# start must agree across implementations), OUT_DIR/train.json (every step's result, exit code and
# log tail) and OUT_DIR/steps.tar.gz (each step's NAME.json / .log / .rc, written to OUT_DIR/steps
# while it runs and removed once packed, unless PT_TRAIN_KEEP_STEPS=1): three files, within
# what a device run sends back.
# PT_BENCH_QUICK=1 makes every step a few steps long (a test of the harness);
# PT_TRAIN_BUDGET_MS sets the sampling time per case and mode (default 3000). PT_PYTHON picks
# the Python (default python3); the report needs only its standard library.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-bench/out/train}
shift $(($# > 0 ? 1 : 0))
devices=("$@")
[ ${#devices[@]} -eq 0 ] && devices=(cuda vulkan cpu)
for d in "${devices[@]}"; do
  case "$d" in cuda | vulkan | cpu) ;; *) echo "train_compare.sh: unknown device '$d' (cpu, cuda or vulkan)" >&2; exit 2 ;; esac
done
steps="$out/steps"
rm -rf "$steps" && mkdir -p "$steps" || exit 1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
limit=${PT_STEP_TIMEOUT:-150} deadline=${PT_TRAIN_DEADLINE:-450}
py=${PT_PYTHON:-$(command -v python3 || command -v python || echo python3)}
has() { [[ " ${devices[*]} " == *" $1 "* ]]; }

rt=""
for c in ${PT_BENCH_RUNTIME:-bun deno} node_modules/.bin/${PT_BENCH_RUNTIME:-bun} node_modules/.bin/${PT_BENCH_RUNTIME:-deno}; do
  if "$c" --version >/dev/null 2>&1; then rt=$c; break; fi
done
if [ -z "$rt" ] && [ -f .device/setup.sh ] && [ -e /dev/nvidiactl ]; then
  # shellcheck disable=SC1091
  source .device/setup.sh >&2
  for c in ${PT_BENCH_RUNTIME:-bun deno}; do "$c" --version >/dev/null 2>&1 && { rt=$c; break; }; done
fi
ours=()
if [ -n "$rt" ]; then
  if [ "$(basename "$rt")" = bun ]; then ours=("$rt" bench/train.ts); else ours=("$rt" run --allow-all bench/train.ts); fi
fi

# step NAME CMD...: stdout -> STEPS/NAME.json, stderr -> STEPS/NAME.log (and ours), exit code -> STEPS/NAME.rc
step() {
  local name=$1 t=$((deadline - 30 - SECONDS))
  shift
  [ "$t" -gt "$limit" ] && t=$limit
  if [ "$t" -lt 10 ]; then
    skip "$name" "PT_TRAIN_DEADLINE=$deadline s was spent before this step"
    return
  fi
  echo "== $name ($t s at most): $*" >&2
  if command -v timeout >/dev/null; then set -- timeout -k 5 "$t" "$@"; fi
  { "$@" 2>&1 >"$steps/$name.json" | tee "$steps/$name.log" >&2; }
  echo "${PIPESTATUS[0]}" >"$steps/$name.rc"
}
skip() { # skip NAME REASON: the step could not start
  echo "== $1: not run: $2" >&2
  : >"$steps/$1.json"
  echo "$2" >"$steps/$1.log"
  echo 127 >"$steps/$1.rc"
}
run_ours() { # run_ours DEVICE CASE
  if [ ${#ours[@]} -eq 0 ]; then
    skip "ours-$1-$2" "no ${PT_BENCH_RUNTIME:-bun or deno} found (PATH, node_modules/.bin, .device/setup.sh)"
  elif [ -z "${PT_LIBRARY:-}" ] && [ ! -f native/zig-out/lib/libpolytensor.so ]; then
    skip "ours-$1-$2" "native/zig-out/lib/libpolytensor.so missing (carry native/zig-out)"
  else
    PT_DEVICE=$1 step "ours-$1-$2" "${ours[@]}" "$2"
  fi
}
run_numpy() { # run_numpy CASE
  step "numpy-cpu-$1" "$py" bench/train_numpy.py "$1"
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 step "numpy1t-cpu-$1" "$py" bench/train_numpy.py "$1"
}

started=$(date -u "+%Y-%m-%d %H:%M UTC")
if has cuda; then
  for c in big small; do run_ours cuda "$c"; step "torch-cuda-$c" "$py" bench/train_torch.py --device cuda "$c"; done
fi
if has cpu; then
  run_ours cpu small
  step torch-cpu-small "$py" bench/train_torch.py --device cpu small
  run_numpy small
fi
if has vulkan; then for c in big small; do run_ours vulkan "$c"; done; fi
if has cpu; then
  run_ours cpu big
  step torch-cpu-big "$py" bench/train_torch.py --device cpu big
  step numpy-cpu-big "$py" bench/train_numpy.py big
fi

if [ -n "${PT_COMMIT:-}" ]; then
  commit=$PT_COMMIT
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
  dirty=$(git status --porcelain 2>/dev/null | wc -l)
  [ "$dirty" -gt 0 ] && commit="$commit (+$dirty uncommitted files)"
else
  commit=unknown
fi
rt_version=$([ -n "$rt" ] && "$rt" --version 2>/dev/null | head -1)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1), $(nproc 2>/dev/null || echo '?') cores"
export PT_STARTED="$started" PT_GIT="$commit" PT_DEVICES="${devices[*]}" PT_SECONDS="$SECONDS"
export PT_RT="${rt:-none} ${rt_version:-}" PT_GPU="$gpu" PT_CPU="$cpu"
"$py" - "$steps" "$out" <<'EOF' | tee "$out/train.md"
import json, os, sys

out, dest = sys.argv[1], sys.argv[2]
E = os.environ


def load(name):
    """(result JSON or None, rc, last lines of the log)."""
    def read(ext):
        try:
            with open(os.path.join(out, f"{name}.{ext}")) as f:
                return f.read()
        except OSError:
            return None
    text, rc, log = read("json"), read("rc"), read("log") or ""
    data = None
    if text and text.strip():
        try:
            data = json.loads(text)
        except ValueError:
            pass
    return data, (rc or "").strip() or "missing", log


def mode(name, case, m="eager"):
    d, _, _ = load(name)
    return ((d or {}).get("cases", {}).get(case) or {}).get(m)


def ms(r):
    return None if r is None else r["ms_per_step"]


def fmt(v, spec=".4f"):
    return "—" if v is None else format(v, spec)


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


cpu_peer = {}  # case -> (peer name, run name): torch's CPU step, else NumPy's (the faster thread setting)
for case in ("big", "small"):
    if ms(mode(f"torch-cpu-{case}", case)) is not None:
        cpu_peer[case] = ("torch cpu", f"torch-cpu-{case}")
    else:
        runs = [n for n in (f"numpy-cpu-{case}", f"numpy1t-cpu-{case}") if ms(mode(n, case)) is not None]
        if runs:
            best = min(runs, key=lambda n: ms(mode(n, case)))
            cpu_peer[case] = ("numpy" + (" 1 thread" if "1t" in best else ""), best)

rows, targets = [], []
# (case, device, peer label, peer run, targets [(mode, limit)])
plan = [("big", "cuda", "torch cuda", "torch-cuda-big", [("eager", 1.0), ("captured", 0.5)]),
        ("small", "cuda", "torch cuda", "torch-cuda-small", [("eager", 0.6)]),
        ("small", "cpu") + cpu_peer.get("small", ("torch cpu / numpy", "torch-cpu-small")) + ([("eager", 1.0)],),
        ("big", "cpu") + cpu_peer.get("big", ("torch cpu / numpy", "torch-cpu-big")) + ([],),
        ("big", "vulkan", "torch cuda", "torch-cuda-big", []),
        ("small", "vulkan", "torch cuda", "torch-cuda-small", [])]
for case in ("small", "big"):  # NumPy beside torch on the CPU, for information
    for n, label in ((f"numpy-cpu-{case}", "numpy"), (f"numpy1t-cpu-{case}", "numpy 1 thread")):
        if cpu_peer.get(case, (None, None))[1] != n and os.path.exists(os.path.join(out, f"{n}.rc")):
            plan.append((case, "cpu", label, n, []))
devices = E.get("PT_DEVICES", "cuda vulkan cpu").split()
for case, dev, peer_label, peer_run, tg in plan:
    if dev not in devices:
        continue
    e, c, p = mode(f"ours-{dev}-{case}", case), mode(f"ours-{dev}-{case}", case, "captured"), mode(peer_run, case)
    re, rc = ratio(ms(e), ms(p)), ratio(ms(c), ms(p))
    tcell = []
    for m, lim in tg:
        r = re if m == "eager" else rc
        ok = None if r is None else r <= lim
        tcell.append(f"{m} ≤ {lim}x: " + ("not measured" if ok is None else ("met" if ok else "**missed**")))
        targets.append((case, dev, m, lim, peer_label, r, ok))
    rows.append(f"| {case} | {dev} | {fmt(ms(e))} | {fmt(ms(c))} | {peer_label} | {fmt(ms(p))} | {fmt(re, '.3f')} | "
                f"{fmt(rc, '.3f')} | {'; '.join(tcell) or '(no target)'} |")

print("# Training step benchmarks (issue #25)\n")
print(f"- started {E.get('PT_STARTED', '?')}, {E.get('PT_SECONDS', '?')} s in all; commit {E.get('PT_GIT', '?')}")
print(f"- ours under {E.get('PT_RT', '?')}; GPU: {E.get('PT_GPU') or 'none'}; CPU: {E.get('PT_CPU', '?')}")
print(f"- command: `bash bench/train_compare.sh {dest} {' '.join(devices)}`"
      + (" (PT_BENCH_QUICK=1: a harness test, not a measurement)" if E.get("PT_BENCH_QUICK") == "1" else ""))
for name in sorted(os.listdir(out)):
    if name.endswith(".json") and name != "train.json":
        d, _, _ = load(name[:-5])
        if d:
            extra = "".join(f", {k} {d[k]}" for k in ("optimizer", "lazy", "threads") if k in d)
            print(f"- {name[:-5]}: {d.get('device')}, {d.get('runtime')}{extra}")
print("\nms per training step (median over repetitions of n steps, each ended by a device sync); ratio = ours / peer, "
      "lower is better. Peer on vulkan rows: PyTorch on CUDA on the same GPU, for information.\n")
print("| case | device | ours eager | ours captured | peer | peer eager | eager / peer | captured / peer | target |")
print("|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
print("\n## Targets\n")
for case, dev, m, lim, peer_label, r, ok in targets:
    state = "not measured" if ok is None else ("met" if ok else "MISSED")
    print(f"- {case} on {dev}, {m}: ours / {peer_label} eager = {fmt(r, '.3f')} (target ≤ {lim}): {state}")

print("\n## Losses\n")
print("loss_check: the losses of the first 3 steps from the same start (same hash-generated weights and batch), which must "
      "agree across implementations up to float32 rounding; rel. diff is the largest against the reference (NumPy's, else "
      "PyTorch's CPU run). loss_final: the last timed step's loss, after `steps` steps (it depends on the step count).\n")
print("| run | case | mode | loss_check | rel. diff | loss_final | steps |")
print("|---|---|---|---|---|---|---|")
ref = {}
for case in ("big", "small"):
    for n in (f"numpy-cpu-{case}", f"numpy1t-cpu-{case}", f"torch-cpu-{case}", f"torch-cuda-{case}"):
        r = mode(n, case)
        if r:
            ref[case] = r["loss_check"]
            break
bad_loss = []
names = sorted(n[:-3] for n in os.listdir(out) if n.endswith(".rc"))
for n in names:
    d, _, _ = load(n)
    for case, ms_ in ((d or {}).get("cases") or {}).items():
        for m, r in ms_.items():
            lc = r.get("loss_check") or []
            diff = None
            if case in ref and len(lc) == len(ref[case]):
                diff = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(lc, ref[case]))
                if diff > 1e-3:
                    bad_loss.append(f"{n} {case}/{m}: loss_check {lc} differs from the reference {ref[case]} (rel. {diff:.2e})")
            print(f"| {n} | {case} | {m} | {' '.join(f'{v:.6f}' for v in lc)} | {fmt(diff, '.1e')} | "
                  f"{fmt(r.get('loss_final'), '.6f')} | {r.get('steps_total')} |")
if bad_loss:
    print("\nLosses that disagree (> 1e-3 relative) with the reference: a wrong gradient or update, or (captured) host-side "
          "optimizer state frozen into the recording:\n")
    for b in bad_loss:
        print(f"- {b}")

print("\n## Steps and errors\n")
for n in names:
    d, rc, log = load(n)
    errs = (d or {}).get("errors") or {}
    status = "ok" if rc == "0" and not errs else f"rc {rc}" + (" (timed out)" if rc in ("124", "137") else "")
    print(f"- {n}: {status}")
    for k, v in errs.items():
        print(f"  - {k}: `{v[:600]}`")
    if rc != "0" or (d is None):
        tail = [l for l in log.strip().splitlines() if l.strip()][-8:]
        if tail:
            print("    ```\n" + "\n".join("    " + l[:300] for l in tail) + "\n    ```")

meta = {k: E.get(k) for k in ("PT_STARTED", "PT_GIT", "PT_DEVICES", "PT_SECONDS", "PT_RT", "PT_GPU", "PT_CPU", "PT_BENCH_QUICK")}
every = {}
for n in names:
    d, rc, log = load(n)
    every[n] = {"rc": rc, "result": d, "log_tail": log.strip().splitlines()[-40:]}
with open(os.path.join(dest, "train.json"), "w") as f:
    json.dump({"meta": meta, "targets": [dict(zip(("case", "device", "mode", "limit", "peer", "ratio", "met"), t)) for t in targets],
               "steps": every}, f, indent=1)
EOF
rc=${PIPESTATUS[0]}
tar -czf "$out/steps.tar.gz" -C "$out" steps || rc=1
[ "${PT_TRAIN_KEEP_STEPS:-0}" = 1 ] || rm -rf "$steps"
exit "$rc"
