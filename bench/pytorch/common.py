"""Shared pieces of the PyTorch reference: Problem 1's objective, the timer,
and the files written by a Go dump for the numerical checks.

Problem 1 (package problem, Deblur): f(x) = ½‖A x − y‖² + α S(x) per image,
A the 5×5 Gaussian blur of σ = 1.5 (weights summing to 1) scaled to ‖A‖ = 1,
S the isotropic Huber total variation with forward differences (Neumann
boundary), α = 2e-4, ε = 0.005, L = 1 + 8α/ε = 1.32.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

ALPHA, EPS, L = 2e-4, 0.005, 1.32


def dtype_of(precision):
    if precision not in ("float32", "float64"):
        raise SystemExit(f"--precision {precision!r}: use float32 or float64")
    return torch.float32 if precision == "float32" else torch.float64


def gaussian_kernel(k=5, sigma=1.5):
    c = k // 2
    i = np.arange(k, dtype=np.float64) - c
    v = np.exp(-(i[:, None] ** 2 + i[None, :] ** 2) / (2 * sigma * sigma))
    return v / v.sum()


def sym_pad(x, p):
    """Half-sample symmetric extension (… b a | a b …) of p pixels on each side."""
    x = torch.cat([x[..., :p, :].flip(-2), x, x[..., -p:, :].flip(-2)], dim=-2)
    return torch.cat([x[..., :p].flip(-1), x, x[..., -p:].flip(-1)], dim=-1)


def sym_pad_adjoint(z, p):
    """The transpose of sym_pad: border values folded back onto the image."""
    z = z.clone()
    z[..., p:2 * p, :] += z[..., :p, :].flip(-2)
    z[..., -2 * p:-p, :] += z[..., -p:, :].flip(-2)
    z = z[..., p:-p, :]
    z[..., p:2 * p] += z[..., :p].flip(-1)
    z[..., -2 * p:-p] += z[..., -p:].flip(-1)
    return z[..., p:-p]


class _BlurOp(torch.autograd.Function):
    """A or Aᵀ with the other as its derivative: both are correlations (the
    adjoint's kernel flipped), whose backward through oneDNN's depthwise
    kernel is far faster than autograd's transposed convolution."""

    @staticmethod
    def forward(ctx, x, blur, adjoint):
        ctx.blur, ctx.adjoint = blur, adjoint
        return blur._correlate(x, adjoint)

    @staticmethod
    def backward(ctx, g):
        return _BlurOp.apply(g, ctx.blur, not ctx.adjoint), None, None


class Blur:
    """A = scale · (5×5 Gaussian correlation, same size) on [N,1,H,W] batches,
    with a zero or half-sample symmetric ("reflect") boundary; scale makes
    ‖A‖ = 1 (Lanczos on AᵀA in float64, as problem.Normalize). The batch runs
    as the channels of one depthwise convolution (oneDNN's fast kernel for a
    single-channel filter); apply and adjoint are differentiable."""

    def __init__(self, boundary, h, w, dtype):
        if boundary not in ("zero", "reflect"):
            raise SystemExit(f"--boundary {boundary!r}: use zero or reflect")
        self.boundary = boundary
        self.kernel = torch.tensor(gaussian_kernel(), dtype=torch.float64).view(1, 1, 5, 5)
        self._banks = {}
        self.scale = 1.0 / self._norm(h, w)
        self.kernel = (self.kernel * self.scale).to(dtype)
        self._banks = {}

    def _bank(self, n, flipped):
        if (n, flipped) not in self._banks:
            k = self.kernel.flip(-1, -2) if flipped else self.kernel
            self._banks[n, flipped] = k.expand(n, 1, 5, 5).contiguous()
        return self._banks[n, flipped]

    def _correlate(self, x, adjoint):
        n = x.shape[0]
        z = x.reshape(1, n, *x.shape[-2:])
        bank = self._bank(n, adjoint)
        if self.boundary == "zero":
            z = F.conv2d(z, bank, padding=2, groups=n)
        elif adjoint:
            z = sym_pad_adjoint(F.conv2d(F.pad(z, (4, 4, 4, 4)), bank, groups=n), 2)
        else:
            z = F.conv2d(sym_pad(z, 2), bank, groups=n)
        return z.reshape(x.shape)

    def apply(self, x):
        return _BlurOp.apply(x, self, False)

    def adjoint(self, r):
        return _BlurOp.apply(r, self, True)

    def _norm(self, h, w, steps=120):
        """√(largest eigenvalue of AᵀA) by Lanczos with full reorthogonalisation."""
        rng = np.random.default_rng(1)
        q = rng.standard_normal(h * w)
        q /= np.linalg.norm(q)
        basis, alpha, beta = [], [], []
        for _ in range(steps):
            basis.append(q)
            t = torch.from_numpy(q).view(1, 1, h, w)
            z = self.adjoint(self.apply(t)).flatten().numpy().copy()
            alpha.append(q @ z)
            for b in basis:
                z -= (b @ z) * b
            nz = np.linalg.norm(z)
            if nz < 1e-14:
                break
            beta.append(nz)
            q = z / nz
        k = len(alpha)
        tri = np.diag(alpha) + np.diag(beta[:k - 1], 1) + np.diag(beta[:k - 1], -1)
        return float(np.sqrt(np.linalg.eigvalsh(tri)[-1]))


def diff(x):
    """Forward differences (Neumann): rows then columns, 0 on the last row/column."""
    d1 = F.pad(x[..., 1:, :] - x[..., :-1, :], (0, 0, 0, 1))
    d2 = F.pad(x[..., 1:] - x[..., :-1], (0, 1))
    return d1, d2


def diff_adjoint(q1, q2):
    """The transpose of diff."""
    q1, q2 = q1[..., :-1, :], q2[..., :-1]
    return F.pad(q1, (0, 0, 1, 0)) - F.pad(q1, (0, 0, 0, 1)) + F.pad(q2, (1, 0)) - F.pad(q2, (0, 1))


def huber_tv(x, eps=EPS):
    """Σ_ij h_ε(|Dx|_ij) per image, h_ε(r) = r²/(2ε) for r ≤ ε and r − ε/2
    otherwise, written as r²/(2m) + m/2 − ε/2 with m = max(r, ε)."""
    d1, d2 = diff(x)
    r2 = d1 * d1 + d2 * d2
    m = torch.sqrt(torch.clamp(r2, min=eps * eps))
    return (r2 / (2 * m) + (m - eps) / 2).sum(dim=(-1, -2, -3))


def objective(blur, x, y, alpha=ALPHA):
    """f_k(x_k) for every image of the batch x [N,1,H,W]."""
    r = blur.apply(x) - y
    return 0.5 * (r * r).sum(dim=(-1, -2, -3)) + alpha * huber_tv(x)


def gradient(blur, x, y, alpha=ALPHA, eps=EPS):
    """∇f written as forward operations (so that it can be differentiated)."""
    d1, d2 = diff(x)
    s = 1 / torch.clamp(torch.sqrt(d1 * d1 + d2 * d2), min=eps)
    return blur.adjoint(blur.apply(x) - y) + alpha * diff_adjoint(d1 * s, d2 * s)


def synthetic(n, h, w, dtype, seed):
    """Smooth random images in [0, 1] (a blurred noise field), for timing."""
    g = torch.Generator().manual_seed(seed)
    z = torch.rand(n, 1, h, w, dtype=torch.float64, generator=g)
    k = torch.ones(1, 1, 7, 7, dtype=torch.float64) / 49
    return F.conv2d(F.pad(z, (3, 3, 3, 3), mode="circular"), k).to(dtype)


def timed(step, seconds, min_runs=3):
    """Runs step once to warm up, then repeatedly for at least `seconds` (and
    min_runs times); returns (runs, wall ms per run, CPU ms per run of all
    threads, wall ms of the fastest run)."""
    step()
    runs, best, w0, c0 = 0, float("inf"), time.perf_counter(), time.process_time()
    while runs < min_runs or time.perf_counter() - w0 < seconds:
        t = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t)
        runs += 1
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return runs, 1e3 * wall / runs, 1e3 * cpu / runs, 1e3 * best


def setup_threads(threads):
    torch.set_num_threads(threads)
    policy = os.environ.get("OMP_WAIT_POLICY", "default")
    return (f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
            f"oneDNN {torch.backends.mkldnn.is_available()}, OMP_WAIT_POLICY {policy}")


def read_dump(folder, name):
    return np.fromfile(os.path.join(folder, name + ".bin"), dtype="<f8")


def read_meta(folder):
    with open(os.path.join(folder, "meta.json")) as f:
        return json.load(f)


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))



def arguments(doc, seconds, extra):
    """Parses the options both references share (--size, --precision,
    --threads, --seconds, --check) after extra(ap) added the script's own;
    refuses a --check folder without a Go dump."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    extra(ap)
    ap.add_argument("--size", type=int, default=96, help="image height and width")
    ap.add_argument("--precision", default="float32", choices=("float32", "float64"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=seconds, help="time per measurement")
    ap.add_argument("--check", metavar="DIR", help="compare with a Go dump instead of timing")
    a = ap.parse_args()
    if a.threads < 1:
        ap.error("--threads must be positive")
    if a.check and not os.path.isfile(os.path.join(a.check, "meta.json")):
        ap.error(f"--check {a.check}: no Go dump there (meta.json): bench/pytorch/check.sh makes one")
    return ap, a
