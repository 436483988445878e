"""PyTorch peer of bench/kernel_times.ts: the same ops and shapes on the first CUDA device,
each run REPS times between two CUDA events, the median of SAMPLES such runs over REPS in ms.
float32 with TF32 off. Prints {device_ms: {op: ms}} as JSON.

    python3 bench/kernel_times_torch.py [op ...]
"""
import json
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
REPS, SAMPLES = 10, 7
dev = torch.device("cuda")
M16 = 16 * 1024 * 1024
r = lambda *s: torch.rand(s, device=dev)
OPS = {
    "copy_16m": (lambda: [r(M16)], lambda x: x.clone()),
    "add_16m": (lambda: [r(M16), r(M16)], lambda a, b: a + b),
    "sum_16m": (lambda: [r(M16)], lambda x: x.sum()),
    "broadcast_add": (lambda: [r(64, 128, 64), r(64, 1, 64)], lambda a, b: a + b),
    "broadcast_add_big": (lambda: [r(64, 1024, 256), r(64, 1, 256)], lambda a, b: a + b),
    "chw_to_hwc_1080p": (lambda: [r(3, 1080, 1920)], lambda x: x.permute(1, 2, 0).contiguous()),
    "hwc_to_chw_1080p": (lambda: [r(1080, 1920, 3)], lambda x: x.permute(2, 0, 1).contiguous()),
    "transpose_4096": (lambda: [r(4096, 4096)], lambda x: x.t().contiguous()),
    "sort_middle_64x1024x64": (lambda: [r(64, 1024, 64)], lambda x: x.sort(1)),
    "sort_last_4096x1024": (lambda: [r(4096, 1024)], lambda x: x.sort(-1)),
    "sum_rows_8192x4096": (lambda: [r(8192, 4096)], lambda x: x.sum(-1)),
    "softmax_8192x4096": (lambda: [r(8192, 4096)], lambda x: torch.softmax(x, -1)),
    "matmul_4096": (lambda: [r(4096, 4096), r(4096, 4096)], lambda a, b: a @ b),
    "matmul_4096_f16": (lambda: [r(4096, 4096).half(), r(4096, 4096).half()], lambda a, b: a @ b),
}
only = sys.argv[1:]
out = {}
for name, (setup, op) in OPS.items():
    if only and name not in only:
        continue
    xs = setup()
    for _ in range(REPS):
        op(*xs)
    torch.cuda.synchronize()
    ms = []
    for _ in range(SAMPLES):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(REPS):
            op(*xs)
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b) / REPS)
    out[name] = sorted(ms)[SAMPLES // 2]
    print(f"{name}: {out[name]:.4f} ms", file=sys.stderr)
print(json.dumps({"torch": torch.__version__, "device_ms": out}, indent=1))
