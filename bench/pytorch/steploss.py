"""The greedy step loss of M-PC on Problem 1 in PyTorch, the reference for
the Go benchmarks steploss BenchmarkStepLossMPC (float64) and
BenchmarkStepLossPrecision/m-pc/float32.

    loss(θ, φ) = (1/N) Σ_k f_k(x_k⁺),   x⁺ = x − θ ⊛ g + φ ⊛ p,

with image-sized circular convolutions by FFT (origin at pixel (0, 0)), g =
∇f(x) and p fixed for the step (their spectra computed once per step, as the
Go engine does), the gradient in (θ, φ) by autograd. One timed operation is
one loss and its gradient.

    python3 bench/pytorch/steploss.py                  # time float32, 2 threads
    python3 bench/pytorch/steploss.py --check DIR      # compare with a Go dump
"""
import os
import sys

import torch

import common


class StepLoss:
    def __init__(self, blur, x, g, p, y):
        self.blur, self.x, self.y = blur, x, y
        h, w = x.shape[-2:]
        self.size = (h, w)
        self.g_hat = torch.fft.rfft2(g)
        self.p_hat = torch.fft.rfft2(p)

    def __call__(self, theta, phi):
        s = torch.fft.rfft2(theta) * self.g_hat - torch.fft.rfft2(phi) * self.p_hat
        x_next = self.x - torch.fft.irfft2(s, s=self.size)
        return common.objective(self.blur, x_next, self.y).mean()


def value_and_gradient(loss, theta, phi):
    theta = theta.detach().requires_grad_()
    phi = phi.detach().requires_grad_()
    v = loss(theta, phi)
    v.backward()
    return v, theta.grad, phi.grad


def synthetic_step(n, size, dtype, seed=1):
    """A step on synthetic data: x = y = A x_true + noise 0.01, g = ∇f(x),
    p = 0.02 g + 0.01 noise; θ = τδ + 0.3τ/H noise and φ = 0.2/H noise
    (τ = 1/L), as the Go benchmarks' data."""
    torch.manual_seed(seed)
    blur = common.Blur("zero", size, size, dtype)
    truth = common.synthetic(n, size, size, dtype, seed)
    y = blur.apply(truth) + 0.01 * torch.randn_like(truth)
    x = y.clone()
    g = common.gradient(blur, x, y)
    p = 0.02 * g + 0.01 * torch.randn_like(g)
    tau = 1 / common.L
    theta = torch.zeros(size, size, dtype=dtype)
    theta[0, 0] = tau
    theta += 0.3 * tau / size * torch.randn_like(theta)
    phi = 0.2 / size * torch.randn_like(theta)
    return StepLoss(blur, x, g, p, y), theta, phi


def check(folder, n, size):
    """The loss and gradient at the Go test point, in both precisions, against
    the Go engine's (a dump: x, g, p, y, u = (θ, φ), loss_*, grad_*)."""
    meta = common.read_meta(folder)
    ok = True
    for precision in ("float64", "float32"):
        dtype = common.dtype_of(precision)
        t = lambda name: torch.tensor(common.read_dump(folder, name), dtype=dtype).view(n, 1, size, size)
        blur = common.Blur("zero", size, size, dtype)
        loss = StepLoss(blur, t("x"), t("g"), t("p"), t("y"))
        u = torch.tensor(common.read_dump(folder, "u"), dtype=dtype).view(2, size, size)
        v, gt, gp = value_and_gradient(loss, u[0], u[1])
        go_grad = common.read_dump(folder, "grad_" + precision)
        ours = torch.cat([gt.flatten(), gp.flatten()]).double().numpy()
        dv = abs(float(v) - meta["loss_" + precision]) / abs(meta["loss_" + precision])
        dg = common.rel(ours, go_grad)
        print(f"{precision}: loss {float(v):.12g} (Go {meta['loss_' + precision]:.12g}, rel diff {dv:.2e}); "
              f"gradient rel diff ‖Δ‖/‖g‖ {dg:.2e}; blur scale {blur.scale:.17g} (Go {meta['scale']:.17g})")
        tol = 1e-10 if precision == "float64" else 1e-4
        ok = ok and dv < tol and dg < tol
    return ok


def main():
    ap, a = common.arguments(__doc__, 1.0, lambda ap: ap.add_argument("--n", type=int, default=25, help="number of functions"))
    if a.n < 1 or a.size < 2:
        ap.error("--n must be positive and --size at least 2")
    info = common.setup_threads(a.threads)
    if a.check:
        sys.exit(0 if check(a.check, a.n, a.size) else 1)
    loss, theta, phi = synthetic_step(a.n, a.size, common.dtype_of(a.precision))
    runs, wall, cpu, best = common.timed(lambda: value_and_gradient(loss, theta, phi), a.seconds)
    print(f"torch-steploss/m-pc/{a.precision} n={a.n} size={a.size} runs={runs} "
          f"{wall:.3f} wall-ms/op {cpu:.3f} cpu-ms/op {best:.3f} min-wall-ms  ({info})")


if __name__ == "__main__":
    main()
