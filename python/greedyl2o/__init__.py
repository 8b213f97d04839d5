"""Read greedyl2o checkpoints and run their learned optimizer in numpy.

    ck = greedyl2o.load("runs/greedy")      # manifest + .npy, SHA-256 checked
    ck.method, ck.theta, ck.phi             # "m-pc", [array per step], [...] or None
    for x in greedyl2o.iterate(ck, grad, x0, iters=100):
        ...

Algorithm 2 of Fahy, Golbabaee and Ehrhardt: x⁺ = x − G_θt ∇f(x) + H_φt (x − x⁻)
with x⁻ = x0 at the first step and θt, φt = those of the last trained step
beyond it. Built-in parametrizations: ps (scalar), pp (pointwise), pc
(image-sized circular convolution, kernel origin at pixel (0, 0)), pcK
(K×K circular convolution), each also as m-X (H of the same family) and
G:H pairs. Iterates are batches [N, H, W] (numpy; torch tensors work too).
"""

import hashlib
import json
import os
import re

import numpy as np

__all__ = ["Checkpoint", "ChecksumError", "load", "iterate", "apply_operator"]


class ChecksumError(ValueError):
    """A checkpoint file whose SHA-256 differs from its manifest's, or a
    manifest whose bytes differ from its seal."""


class Checkpoint:
    """A learned optimizer: its manifest, method and per-step parameters."""

    def __init__(self, manifest, theta, phi):
        self.manifest = manifest
        self.method = manifest["method"]
        self.theta = theta
        self.phi = phi
        self.height = manifest["height"]
        self.width = manifest["width"]

    @property
    def steps(self):
        return len(self.theta)

    def families(self):
        """The (G, H) family names; H is None without momentum."""
        return parse_method(self.method)


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load(directory):
    """Load the checkpoint in directory: manifest.json and params/*.npy.

    Every parameter file is checked against the SHA-256 the manifest lists
    (ChecksumError names a file that differs or is not listed); a manifest
    without checksums (an old checkpoint) loads unverified.
    """
    path = os.path.join(directory, "manifest.json")
    with open(path, "rb") as f:
        raw = f.read()
    _unseal(path, raw)
    manifest = json.loads(raw.decode("utf-8"))
    sums = manifest.get("sha256")
    _, has_h = parse_method(manifest["method"])
    theta, phi = [], [] if has_h else None
    for step in range(len(manifest["steps"])):
        for name, out in (("theta", theta), ("phi", phi)):
            if out is None:
                continue
            rel = "params/%s_%05d.npy" % (name, step)
            path = os.path.join(directory, *rel.split("/"))
            if sums is not None:
                if rel not in sums:
                    raise ChecksumError("%s: not listed in the manifest" % path)
                got = _sha256(path)
                if got != sums[rel]:
                    raise ChecksumError("%s: SHA-256 %s, manifest %s" % (path, got, sums[rel]))
            out.append(np.load(path, allow_pickle=False))
    return Checkpoint(manifest, theta, phi)


SEAL_KEY = "sealed_sha256"
_SEAL_TAIL = re.compile(rb',\n  "' + SEAL_KEY.encode() + rb'": "([0-9a-f]{64})"\n}\n$')


def _unseal(path, raw):
    """Check a sealed manifest: its last member is the SHA-256 of the file
    without it (package checkpoint's Seal). A manifest written before
    manifests were sealed has no such member and passes; one whose bytes do
    not match its seal was edited and raises ChecksumError."""
    m = _SEAL_TAIL.search(raw)
    if m is None:
        if b'"' + SEAL_KEY.encode() + b'"' in raw:
            raise ChecksumError("%s: malformed seal (%s): the manifest was edited" % (path, SEAL_KEY))
        return
    body = raw[: m.start()] + b"\n}\n"
    if hashlib.sha256(body).hexdigest() != m.group(1).decode():
        raise ChecksumError("%s: edited after it was written (its bytes do not match %s)" % (path, SEAL_KEY))


def parse_method(method):
    """Split a method name into its G and H families ("m-pc" -> ("pc", "pc"))."""
    if ":" in method:
        g, h = method.split(":", 1)
        return g, h
    if method.startswith("m-"):
        return method[2:], method[2:]
    return method, None


def _fft(x):
    if type(x).__module__.startswith("torch"):
        import torch

        return torch.fft.fft2, torch.fft.ifft2, lambda a: torch.as_tensor(a, dtype=x.dtype, device=x.device)
    return np.fft.fft2, np.fft.ifft2, np.asarray


def apply_operator(family, params, v):
    """G_θ v for a batch v [N, H, W] and one step's parameters of family."""
    fft2, ifft2, asarray = _fft(v)
    p = asarray(params)
    if family == "ps":
        return p.reshape(-1)[0] * v
    if family == "pp":
        return p.reshape(v.shape[-2:]) * v
    if family == "pc" or (family.startswith("pc") and family[2:].isdigit()):
        h, w = v.shape[-2:]
        if family == "pc":
            kernel = p.reshape(h, w)
        else:
            # A K×K kernel centred at its middle, as an image-sized kernel with
            # its origin at pixel (0, 0).
            k = int(family[2:])
            small = np.asarray(params, dtype=np.float64).reshape(k, k)
            big = np.zeros((h, w))
            c = k // 2
            for u in range(k):
                for s in range(k):
                    big[(u - c) % h, (s - c) % w] += small[u, s]
            kernel = asarray(big)
        return ifft2(fft2(kernel) * fft2(v)).real
    raise NotImplementedError(
        "parametrization %r: this reader knows ps, pp, pc and pcK (circular); "
        "run other families with `l2o apply`" % family)


def iterate(ck, grad, x0, iters):
    """Yield x1, x2, … x_iters of Algorithm 2 from x0 ([N, H, W]).

    grad(x) returns ∇f(x) for the batch, an array of x's shape and kind.
    """
    g_family, h_family = ck.families()
    prev, x = x0, x0
    for t in range(iters):
        step = min(t, ck.steps - 1)
        nxt = x - apply_operator(g_family, ck.theta[step], grad(x))
        if h_family is not None:
            nxt = nxt + apply_operator(h_family, ck.phi[step], x - prev)
        prev, x = x, nxt
        yield x
