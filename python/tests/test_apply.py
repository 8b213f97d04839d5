"""greedyl2o (Python) against `l2o apply`: the iterates of Algorithm 2 on
Problem 1 agree to 1e-12 relative (float64) for PS, PC and M-PC checkpoints
that the test trains, and a changed parameter file is refused.

    /usr/bin/python3 python/tests/test_apply.py     (make test-python)

L2O names an l2o binary; without it the test builds one with `go build`.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))

import deblur  # noqa: E402
import greedyl2o  # noqa: E402

SIZE, N_TRAIN, N_TEST, STEPS, ITERS = 16, 4, 2, 3, 6


class ApplyAgreement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="greedyl2o-py-")
        cls.l2o = os.environ.get("L2O")
        if not cls.l2o:
            cls.l2o = os.path.join(cls.tmp, "l2o")
            subprocess.run(["go", "build", "-o", cls.l2o, "./cmd/l2o"], cwd=ROOT, check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_l2o(self, *args):
        p = subprocess.run([self.l2o, *args], cwd=self.tmp, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, "l2o %s: %s" % (" ".join(args), p.stderr))

    def train_and_apply(self, param):
        ck, out = "ck-" + param, "apply-" + param
        self.run_l2o("train", "greedy", "--problem", "deblur", "--data", "synthetic", "--size", str(SIZE),
                     "--n-train", str(N_TRAIN), "--param", param, "--max-steps", str(STEPS),
                     "--tol-rel", "1e7", "--out", ck)
        self.run_l2o("apply", "--params", ck, "--size", str(SIZE), "--n-test", str(N_TEST),
                     "--iters", str(ITERS), "--out", out, "--save-at", ",".join(str(t) for t in range(ITERS + 1)))
        return os.path.join(self.tmp, ck), os.path.join(self.tmp, out)

    def check(self, param):
        ck_dir, out = self.train_and_apply(param)
        ck = greedyl2o.load(ck_dir)
        self.assertEqual(ck.method, param)
        self.assertEqual(ck.steps, STEPS)
        self.assertEqual(ck.phi is not None, param.startswith("m-"))
        y = np.load(os.path.join(out, "x_t0000.npy"))  # x0 = y in Problem 1
        grad = deblur.from_checkpoint(ck, y)
        # Iterations past STEPS repeat the last step's parameters.
        for t, x in enumerate(greedyl2o.iterate(ck, grad, y, ITERS), 1):
            ref = np.load(os.path.join(out, "x_t%04d.npy" % t))
            rel = np.abs(x - ref).max() / np.abs(ref).max()
            self.assertLess(rel, 1e-12, "%s iteration %d: relative difference %.3g" % (param, t, rel))
            moved = np.abs(ref - np.load(os.path.join(out, "x_t%04d.npy" % (t - 1)))).max()
            self.assertGreater(moved, 1e-8, "%s iteration %d did not move" % (param, t))
        return ck_dir

    def test_ps(self):
        self.check("ps")

    def test_pc(self):
        self.check("pc")

    def test_m_pc(self):
        ck_dir = self.check("m-pc")
        path = os.path.join(ck_dir, "params", "phi_00001.npy")
        with open(path, "r+b") as f:
            f.seek(-3, os.SEEK_END)
            b = f.read(1)
            f.seek(-3, os.SEEK_END)
            f.write(bytes([b[0] ^ 1]))
        with self.assertRaises(greedyl2o.ChecksumError) as cm:
            greedyl2o.load(ck_dir)
        self.assertIn("phi_00001.npy", str(cm.exception))

    def test_edited_manifest(self):
        self.run_l2o("train", "greedy", "--problem", "deblur", "--data", "synthetic", "--size", str(SIZE),
                     "--n-train", str(N_TRAIN), "--param", "ps", "--max-steps", "2", "--out", "ck-seal")
        ck_dir = os.path.join(self.tmp, "ck-seal")
        path = os.path.join(ck_dir, "manifest.json")
        with open(path, "rb") as f:
            raw = f.read()
        self.assertIn(b'"sealed_sha256"', raw)
        greedyl2o.load(ck_dir)  # as written: accepted
        with open(path, "wb") as f:
            f.write(raw.replace(b'"method": "ps"', b'"method": "pp"', 1))
        with self.assertRaises(greedyl2o.ChecksumError) as cm:
            greedyl2o.load(ck_dir)
        self.assertIn("manifest.json", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
