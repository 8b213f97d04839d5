"""Problem 1 (Huber-TV deblurring) in numpy, and a learned optimizer on it.

    f_k(x) = ½‖s·K x − y_k‖² + α Σ_ij h_ε(|(D x)_ij|)

K: the 5×5 Gaussian blur (σ = 1.5, kernel normalised to sum 1) as a "same"
convolution with zero padding, s its scale (‖sK‖ = 1, recorded in the
checkpoint's "operator"), D forward differences with the last difference of
each direction zero (Neumann), h_ε the Huber function r²/(2ε) for r ≤ ε and
r − ε/2 beyond. The starting point is x0 = y.

    /usr/bin/python3 python/examples/deblur.py CHECKPOINT Y.npy [ITERS]
"""

import re
import sys

import numpy as np

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), ".."))
import greedyl2o  # noqa: E402


def gaussian_kernel(k=5, sigma=1.5):
    c = k // 2
    i, j = np.meshgrid(np.arange(k) - c, np.arange(k) - c, indexing="ij")
    g = np.exp(-(i * i + j * j) / (2 * sigma * sigma))
    return g / g.sum()


def conv_same(x, kernel):
    """Zero-padded 'same' correlation of every image of x [N, H, W]."""
    k = kernel.shape[0]
    c = k // 2
    h, w = x.shape[-2:]
    pad = np.zeros(x.shape[:-2] + (h + 2 * c, w + 2 * c))
    pad[..., c:c + h, c:c + w] = x
    out = np.zeros_like(x)
    for u in range(k):
        for v in range(k):
            out += kernel[u, v] * pad[..., u:u + h, v:v + w]
    return out


def diff(x):
    d1 = np.zeros_like(x)
    d2 = np.zeros_like(x)
    d1[..., :-1, :] = x[..., 1:, :] - x[..., :-1, :]
    d2[..., :, :-1] = x[..., :, 1:] - x[..., :, :-1]
    return d1, d2


def diff_adjoint(g1, g2):
    out = np.zeros_like(g1)
    out[..., 1:, :] += g1[..., :-1, :]
    out[..., :-1, :] -= g1[..., :-1, :]
    out[..., :, 1:] += g2[..., :, :-1]
    out[..., :, :-1] -= g2[..., :, :-1]
    return out


def problem1_gradient(y, scale, alpha=2e-4, eps=0.005, sigma=1.5):
    """∇f for the batch of observations y [N, H, W]."""
    kernel = gaussian_kernel(5, sigma)

    def grad(x):
        r = scale * conv_same(x, kernel) - y
        g = scale * conv_same(r, kernel[::-1, ::-1])
        d1, d2 = diff(x)
        s = 1 / np.maximum(np.sqrt(d1 * d1 + d2 * d2), eps)
        return g + alpha * diff_adjoint(d1 * s, d2 * s)

    return grad


def from_checkpoint(ck, y):
    """Problem 1's gradient with the scale, α and ε the checkpoint records."""
    m = ck.manifest
    scale = float(re.match(r"([0-9.eE+-]+)\*conv\(gauss5-([0-9.]+),5,zero\)", m["operator"]).group(1))
    sigma = float(re.match(r".*gauss5-([0-9.]+)", m["operator"]).group(1))
    eps = float(re.search(r"eps=([0-9.eE+-]+)", m["regularizer"]).group(1))
    return problem1_gradient(y, scale, m["alpha"], eps, sigma)


if __name__ == "__main__":
    ck = greedyl2o.load(sys.argv[1])
    y = np.load(sys.argv[2])
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    grad = from_checkpoint(ck, y)
    for t, x in enumerate(greedyl2o.iterate(ck, grad, y, iters), 1):
        if t % 10 == 0 or t == iters:
            print("iteration %d: max |∇f| = %.3e" % (t, np.abs(grad(x)).max()))
