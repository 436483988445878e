#!/usr/bin/env bash
# The neural-network benchmark cases of issue #27 on the GPU machine: ours on each backend, then PyTorch (fp32, no
# TF32) in the same run, each as bench/run.ts's and bench/torch_peer.py's JSON under $OUT.
#   source .device/setup.sh && bash scripts/gpu_nn.sh [backends...]   (default: cuda vulkan)
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-/tmp/pt-out}
mkdir -p "$out"
cases=(softmax_8192x4096 layer_norm_8192x4096 conv2d_32x64x56x56_3x3 sdpa_causal_8x16x1024x64)
backends=("$@")
[ ${#backends[@]} -eq 0 ] && backends=(cuda vulkan)
rt=(deno run --allow-all --no-check)
command -v deno >/dev/null || rt=(bun)
export PT_BENCH_FULL=1 PT_BENCH_BUDGET_MS=${PT_BENCH_BUDGET_MS:-1500}
for b in "${backends[@]}"; do
  PT_DEVICE=$b timeout 240 "${rt[@]}" bench/run.ts "${cases[@]}" >"$out/nn-$b.json" 2>"$out/nn-$b.log"
  echo "$b: exit $?"
done
# matmul_4096 (fp32, no TF32): the SIMT fp32 rate that bounds a kernel without tensor cores.
timeout 200 python3 bench/torch_peer.py "${cases[@]}" matmul_4096 >"$out/nn-torch.json" 2>"$out/nn-torch.log"
echo "torch: exit $?"
python3 - "$out" "${backends[@]}" <<'PY'
import json, sys, os
out, backs = sys.argv[1], sys.argv[2:]
def load(n):
    try: return json.load(open(os.path.join(out, n)))
    except Exception as e: return {"_load_error": str(e)}
peer = load("nn-torch.json")  # {case: ms, _meta: {errors}}
ours = {b: load(f"nn-{b}.json") for b in backs}  # {results: {case: {median_ms}}, errors}
print("| case | torch ms | " + " | ".join(f"{b} ms (x torch)" for b in backs) + " |")
print("|---|---|" + "---|" * len(backs))
for c in ["softmax_8192x4096", "layer_norm_8192x4096", "conv2d_32x64x56x56_3x3", "sdpa_causal_8x16x1024x64"]:
    t = peer.get(c) if isinstance(peer.get(c), (int, float)) else None
    cells = []
    for b in backs:
        m = (ours[b].get("results") or {}).get(c, {}).get("median_ms")
        cells.append("-" if m is None else f"{m:.3f}" + (f" ({m / t:.2f}x)" if t else ""))
    print(f"| {c} | {'-' if t is None else f'{t:.3f}'} | " + " | ".join(cells) + " |")
m = peer.get("matmul_4096")
if isinstance(m, (int, float)):
    rate = 2 * 4096**3 / m / 1e9  # TFLOP/s
    print(f"torch matmul_4096 fp32: {m:.3f} ms = {rate:.1f} TFLOP/s; causal sdpa [8,16,1024,64] is {4 * 8 * 16 * 1024 * 1024 * 64 / 2 / 1e9:.1f} GFLOP, "
          f"{4 * 8 * 16 * 1024 * 1024 * 64 / 2 / (rate * 1e12) * 1e3:.3f} ms at that rate")
for n, d in [("torch", peer.get("_meta", {}))] + list(ours.items()):
    for c, e in (d.get("errors") or {}).items(): print(f"error {n} {c}: {e}")
    if "_load_error" in d: print(f"error {n}: {d['_load_error']}")
PY
