#!/usr/bin/env python3
"""Generate testdata/astra_linear.json with the ASTRA toolbox, and time ASTRA.

Not run by the Go tests. Needs the ASTRA Python bindings (Debian package
python3-astra-toolbox, run with /usr/bin/python3). From the tomo directory:

    /usr/bin/python3 testdata/gen_astra.py          # write the fixture
    /usr/bin/python3 testdata/gen_astra.py --time   # also time 25×256², 180 angles, 363 bins

The fixture holds a deterministic 16×16 image and its projection by ASTRA's
CPU "linear" (Joseph) projector with a 'parallel' geometry: 12 angles
a·π/12, 23 bins of width 1, default volume geometry (pixel size 1, centred).
ASTRA's arrays are [row, col] with row 0 at the top and sinograms are
[angle, bin], the same layout as package tomo, so no reordering is applied;
TestForwardMatchesASTRAFixture compares at 1e-5 relative (ASTRA is float32).
It also holds a deterministic sinogram and its ASTRA backprojection, which
the adjoint must match.
"""
import json
import os
import sys
import time

import astra
import numpy as np


def linear_projector(n, n_angles, det):
    vol_geom = astra.create_vol_geom(n, n)
    angles = np.arange(n_angles) * np.pi / n_angles
    proj_geom = astra.create_proj_geom('parallel', 1.0, det, angles)
    return astra.create_projector('linear', proj_geom, vol_geom)


def fixture(path):
    n, n_angles, det = 16, 12, 23
    i, j = np.mgrid[0:n, 0:n]
    img = ((3 * i + 5 * j) % 7 + 0.25 * i - 0.125 * j).astype(np.float32)
    pid = linear_projector(n, n_angles, det)
    sid, sino = astra.create_sino(img, pid)
    astra.data2d.delete(sid)
    a, k = np.mgrid[0:n_angles, 0:det]
    sino2 = ((2 * a + 3 * k) % 5 + 0.5 * a - 0.25 * k).astype(np.float32)
    bid, back = astra.create_backprojection(sino2, pid)
    astra.data2d.delete(bid)
    astra.projector.delete(pid)
    with open(path, 'w') as f:
        json.dump({
            'Version': astra.__version__, 'N': n, 'Angles': n_angles, 'Det': det,
            'Image': img.astype(np.float64).ravel().tolist(),
            'Sinogram': sino.astype(np.float64).ravel().tolist(),
            'Sinogram2': sino2.astype(np.float64).ravel().tolist(),
            'Back': back.astype(np.float64).ravel().tolist(),
        }, f)
    print('wrote', path)


def timing():
    n, n_angles, det, batch = 256, 180, 363, 25
    rng = np.random.default_rng(1)
    imgs = rng.standard_normal((batch, n, n)).astype(np.float32)
    pid = linear_projector(n, n_angles, det)
    t0 = time.perf_counter()
    sinos = []
    for b in range(batch):
        sid, s = astra.create_sino(imgs[b], pid)
        astra.data2d.delete(sid)
        sinos.append(s)
    t1 = time.perf_counter()
    for b in range(batch):
        bid, _ = astra.create_backprojection(sinos[b], pid)
        astra.data2d.delete(bid)
    t2 = time.perf_counter()
    astra.projector.delete(pid)
    print(f'ASTRA CPU linear, {batch}×{n}², {n_angles} angles, {det} bins: '
          f'forward {1e3 * (t1 - t0):.0f} ms, adjoint {1e3 * (t2 - t1):.0f} ms')


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    fixture(os.path.join(here, 'astra_linear.json'))
    if '--time' in sys.argv:
        timing()
