#!/usr/bin/env bash
# A set of benchmark cases on the GPU machine: ours on each backend, then PyTorch in the same run, each as
# bench/run.ts's and bench/torch_peer.py's JSON under $OUT, and a table with the time ratios.
#   source .device/setup.sh && bash scripts/gpu_cases.sh nn|matmul [backends...]   (default: cuda vulkan)
# nn: issue #27's four cases (fp32, TF32 off) plus matmul_4096, the SIMT fp32 rate that bounds a kernel without
# tensor cores. matmul: issue #28's matmul_4096 in float32, float16, bfloat16 and float32 with TF32 allowed.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-/tmp/pt-out}
mkdir -p "$out"
set_name=${1:-nn}
shift
case "$set_name" in
  nn) cases=(softmax_8192x4096 layer_norm_8192x4096 conv2d_32x64x56x56_3x3 sdpa_causal_8x16x1024x64) peer_extra=(matmul_4096) ;;
  matmul) cases=(matmul_4096 matmul_4096_f16 matmul_4096_bf16 matmul_4096_tf32) peer_extra=() ;;
  *) echo "gpu_cases.sh: unknown set $set_name (nn or matmul)" >&2; exit 2 ;;
esac
backends=("$@")
[ ${#backends[@]} -eq 0 ] && backends=(cuda vulkan)
rt=(deno run --allow-all --no-check)
command -v deno >/dev/null || rt=(bun)
export PT_BENCH_FULL=1 PT_BENCH_BUDGET_MS=${PT_BENCH_BUDGET_MS:-1500}
for b in "${backends[@]}"; do
  PT_DEVICE=$b timeout 240 "${rt[@]}" bench/run.ts "${cases[@]}" >"$out/$set_name-$b.json" 2>"$out/$set_name-$b.log"
  echo "$b: exit $?"
done
timeout 200 python3 bench/torch_peer.py "${cases[@]}" "${peer_extra[@]}" >"$out/$set_name-torch.json" 2>"$out/$set_name-torch.log"
echo "torch: exit $?"
python3 - "$out" "$set_name" "${backends[@]}" -- "${cases[@]}" <<'PY'
import json, sys, os
args = sys.argv[1:]
out, set_name, backs, cases = args[0], args[1], args[2:args.index("--")], args[args.index("--") + 1:]
def load(n):
    try: return json.load(open(os.path.join(out, n)))
    except Exception as e: return {"_load_error": str(e)}
peer = load(f"{set_name}-torch.json")  # {case: ms, _meta: {errors}}
ours = {b: load(f"{set_name}-{b}.json") for b in backs}  # {results: {case: {median_ms}}, errors}
flop = lambda c: 2 * 4096**3 if c.startswith("matmul_4096") else None
rate = lambda c, ms: f" {flop(c) / ms / 1e9:.0f} TFLOP/s" if flop(c) and ms else ""
print("| case | torch ms | " + " | ".join(f"{b} ms (x torch)" for b in backs) + " |")
print("|---|---|" + "---|" * len(backs))
for c in cases:
    t = peer.get(c) if isinstance(peer.get(c), (int, float)) else None
    cells = []
    for b in backs:
        m = (ours[b].get("results") or {}).get(c, {}).get("median_ms")
        cells.append("-" if m is None else f"{m:.3f}" + (f" ({m / t:.2f}x)" if t else "") + rate(c, m))
    print(f"| {c} | {'-' if t is None else f'{t:.3f}' + rate(c, t)} | " + " | ".join(cells) + " |")
m = peer.get("matmul_4096")
if set_name == "nn" and isinstance(m, (int, float)):
    r = 2 * 4096**3 / m / 1e9  # TFLOP/s
    print(f"torch matmul_4096 fp32: {m:.3f} ms = {r:.1f} TFLOP/s; causal sdpa [8,16,1024,64] is {4 * 8 * 16 * 1024 * 1024 * 64 / 2 / 1e9:.1f} GFLOP, "
          f"{4 * 8 * 16 * 1024 * 1024 * 64 / 2 / (r * 1e12) * 1e3:.3f} ms at that rate")
for n, d in [("torch", peer.get("_meta", {}))] + list(ours.items()):
    for c, e in (d.get("errors") or {}).items(): print(f"error {n} {c}: {e}")
    if "_load_error" in d: print(f"error {n}: {d['_load_error']}")
PY
