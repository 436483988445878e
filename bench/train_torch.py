"""PyTorch peer of bench/train.ts: the same MLPs (nn.Linear + ReLU, weights copied from the
hash-generated [in, out] matrices transposed), batch, data, loss (F.cross_entropy) and
optimizers (torch.optim.Adam lr 1e-3 / SGD lr 0.1 momentum 0, their defaults otherwise), in
float32 with TF32 off (cuBLAS and cuDNN), eager. The step: forward, loss, backward,
opt.step(), opt.zero_grad().

    python3 bench/train_torch.py [--device cuda|cpu] [big|small ...]

On CUDA the repetitions are timed with CUDA events around n steps (wall clock + synchronize
kept as wall_ms_per_step); on the CPU with the wall clock, torch's threads set to the
machine's cores. Timing, data and output as bench/train_numpy.py (whose helpers this uses):
{device, runtime, cases: {name: {eager: {...}}}, errors}; loss_check must agree with
train.ts's and train_numpy.py's up to float32 rounding.
"""
import os, sys

import torch
import torch.nn.functional as F

from train_numpy import CASES, batch_data, init_params, run_cases, time_steps

DEVICE = "cuda"
if sys.argv[1:2] == ["--device"]:
    DEVICE = sys.argv[2]
    del sys.argv[1:3]
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
if DEVICE == "cpu":
    torch.set_num_threads(os.cpu_count() or 1)
dev = torch.device(DEVICE)


def make(c):
    layers = []
    for l, (w, b) in enumerate(init_params(c)):
        lin = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.copy_(torch.from_numpy(b))
        layers.append(lin)
        if l + 2 < len(c["sizes"]):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dev)
    x, y = batch_data(c)
    x, y = torch.from_numpy(x).to(dev), torch.from_numpy(y).to(dev)
    if c["opt"] == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=c["lr"])
    else:
        opt = torch.optim.SGD(model.parameters(), lr=c["lr"], momentum=0)
    return model, opt, x, y


def run_case(name):
    model, opt, x, y = make(CASES[name])

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    if DEVICE == "cuda":
        ev = (lambda: torch.cuda.Event(enable_timing=True), lambda a, b: a.elapsed_time(b))
        return {"eager": time_steps(step, lambda l: float(l.item()), torch.cuda.synchronize, ev)}
    return {"eager": time_steps(step, lambda l: float(l.item()))}


def tf32():
    try:
        return bool(torch.backends.cuda.matmul.allow_tf32)
    except Exception as e:  # newer releases may refuse to mix the two TF32 APIs
        return str(e)


if __name__ == "__main__":
    if DEVICE == "cuda":
        where = f"cuda {torch.cuda.get_device_name(dev)}, cuda {torch.version.cuda}, allow_tf32 {tf32()}"
    else:
        where = f"cpu ({torch.get_num_threads()} threads of {os.cpu_count()} cores)"
    run_cases(sys.argv[1:], run_case, {"device": where, "runtime": f"torch {torch.__version__}"})
