"""One Adam step of Banert et al.'s learned optimizer in PyTorch, the
reference for the Go benchmark baselines/banert BenchmarkAdamStep96.

The network (package banert): instance norm with a learned per-channel scale
and offset of the input [x, ∇f(x), Δ_{t−1}] → conv 3×3 (3 → 32, zero "same"
padding, bias) → instance norm → leaky ReLU(0.2) → conv 3×3 (32 → 32) →
instance norm → leaky ReLU(0.2) → conv 3×3 (32 → 1); ε = 1e-6 in every
instance norm. T safeguarded iterations from x⁰ = y,

    x^{t+1} = x^t − (1/L)(∇f(x^t) + Δ_t),   Δ_t = 0.9·h_t·‖∇f(x^t)‖/√(1 + ‖h_t‖²),

unrolled; the loss is f(x^T), differentiated through every ∇f (written as
forward operations) into the network's 10,567 parameters, then one Adam step
(learning rate 1e-3). One function of 96×96 with the benchmark's blur
boundary (reflect). One timed operation is one such step.

    python3 bench/pytorch/banert.py                   # time float32, 2 threads
    python3 bench/pytorch/banert.py --check DIR       # compare with a Go dump
"""
import os
import sys

import torch
import torch.nn.functional as F

import common

WIDTH, NORM_EPS, SLOPE, SAFEGUARD = 32, 1e-6, 0.2, 0.9


def layout(inputs=3):
    """The parameter blocks in the order of banert.Layout."""
    return [("norm0.scale", (inputs,)), ("norm0.offset", (inputs,)),
            ("conv1.weight", (WIDTH, inputs, 3, 3)), ("conv1.bias", (WIDTH,)),
            ("norm1.scale", (WIDTH,)), ("norm1.offset", (WIDTH,)),
            ("conv2.weight", (WIDTH, WIDTH, 3, 3)), ("conv2.bias", (WIDTH,)),
            ("norm2.scale", (WIDTH,)), ("norm2.offset", (WIDTH,)),
            ("conv3.weight", (1, WIDTH, 3, 3)), ("conv3.bias", (1,))]


def new_params(dtype, seed=1, flat=None):
    """He-normal weights, zero biases and offsets, unit scales (as
    banert.NewNetwork), or the values of flat in Layout's order."""
    g = torch.Generator().manual_seed(seed)
    params, off = [], 0
    for name, shape in layout():
        n = 1
        for d in shape:
            n *= d
        if flat is not None:
            v = torch.tensor(flat[off:off + n], dtype=dtype).view(shape)
        elif len(shape) == 4:
            v = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype) * (2 / (n // shape[0])) ** 0.5
        elif name.endswith(".scale"):
            v = torch.ones(shape, dtype=dtype)
        else:
            v = torch.zeros(shape, dtype=dtype)
        off += n
        params.append(v.requires_grad_())
    return params


def network(p, z):
    z = F.instance_norm(z, weight=p[0], bias=p[1], eps=NORM_EPS)
    for layer in range(2):
        w, b, scale, offset = p[2 + 4 * layer:6 + 4 * layer]
        z = F.conv2d(z, w, b, padding=1)
        z = F.leaky_relu(F.instance_norm(z, weight=scale, bias=offset, eps=NORM_EPS), SLOPE)
    return F.conv2d(z, p[10], p[11], padding=1)


def unrolled_loss(p, blur, x0, y, T):
    norm = lambda v: torch.sqrt((v * v).sum(dim=(1, 2, 3), keepdim=True))
    x, prev = x0, torch.zeros_like(x0)
    for _ in range(T):
        g = common.gradient(blur, x, y)
        h = network(p, torch.cat([x, g, prev], dim=1))
        delta = SAFEGUARD * h * norm(g) / torch.sqrt(1 + norm(h) ** 2)
        x = x - (g + delta) / common.L
        prev = delta
    return common.objective(blur, x, y).sum()


def synthetic_function(size, dtype, seed=7):
    blur = common.Blur("reflect", size, size, dtype)
    torch.manual_seed(seed)
    truth = common.synthetic(1, size, size, dtype, seed)
    y = blur.apply(truth) + 0.01 * torch.randn_like(truth)
    return blur, y.clone(), y


def check(folder, size, T):
    """f(x^T) and its gradient at the Go network's parameters against the Go
    training graph's (a dump: theta, x0, y, loss, grad)."""
    meta = common.read_meta(folder)
    ok = True
    for precision in ("float64", "float32"):
        dtype = common.dtype_of(precision)
        blur = common.Blur("reflect", size, size, dtype)
        img = lambda name: torch.tensor(common.read_dump(folder, name), dtype=dtype).view(1, 1, size, size)
        p = new_params(dtype, flat=common.read_dump(folder, "theta"))
        loss = unrolled_loss(p, blur, img("x0"), img("y"), T)
        loss.backward()
        grad = torch.cat([q.grad.flatten() for q in p]).double().numpy()
        dv = abs(float(loss) - meta["loss"]) / abs(meta["loss"])
        dg = common.rel(grad, common.read_dump(folder, "grad"))
        print(f"{precision}: f(x^T) {float(loss):.12g} (Go float64 {meta['loss']:.12g}, rel diff {dv:.2e}); "
              f"gradient rel diff ‖Δ‖/‖g‖ {dg:.2e}")
        tol = 1e-9 if precision == "float64" else 1e-3
        ok = ok and dv < tol and dg < tol
    return ok


def main():
    ap, a = common.arguments(__doc__, 3.0, lambda ap: ap.add_argument("--T", type=int, default=10, help="unrolled iterations"))
    if a.T < 1 or a.size < 5:
        ap.error("--T must be positive and --size at least 5")
    info = common.setup_threads(a.threads)
    if a.check:
        sys.exit(0 if check(a.check, a.size, a.T) else 1)
    dtype = common.dtype_of(a.precision)
    blur, x0, y = synthetic_function(a.size, dtype)
    p = new_params(dtype)
    opt = torch.optim.Adam(p, lr=1e-3)

    def step():
        opt.zero_grad()
        unrolled_loss(p, blur, x0, y, a.T).backward()
        opt.step()

    runs, wall, cpu, best = common.timed(step, a.seconds)
    print(f"torch-banert/adam-step/{a.precision} T={a.T} size={a.size} runs={runs} "
          f"{wall:.3f} wall-ms/op {cpu:.3f} cpu-ms/op {best:.3f} min-wall-ms  ({info})")


if __name__ == "__main__":
    main()
