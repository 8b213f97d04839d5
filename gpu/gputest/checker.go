package gputest

import (
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// Checker is what the suites of this package check with, for the suites of
// operators that other packages build on a device (package internal/optest:
// the problems' ray transform, ridge potentials and convolutions): it
// allocates buffers on a device, fills them with seeded random values,
// reads them back and compares results with a relative tolerance. Free
// frees every buffer it allocated.
type Checker struct{ c *opsCheck }

// NewChecker returns a Checker on d with relative tolerance tol and random
// values from the PCG seeded with seed1 and seed2.
func NewChecker(d gpu.Ops, tol float64, seed1, seed2 uint64) *Checker {
	return &Checker{c: &opsCheck{d: d, tol: tol, rng: rand.New(rand.NewPCG(seed1, seed2))}}
}

// Rand is the Checker's random source.
func (k *Checker) Rand() *rand.Rand { return k.c.rng }

// Random returns n values in [−1, 1) and a buffer holding them.
func (k *Checker) Random(n int) ([]float64, gpu.Buffer, error) { return k.c.random(n) }

// Upload returns a buffer holding v.
func (k *Checker) Upload(v []float64) (gpu.Buffer, error) { return k.c.upload(v) }

// Zeros returns a buffer of n zeros.
func (k *Checker) Zeros(n int) (gpu.Buffer, error) { return k.c.zeros(n) }

// Read returns the values of b.
func (k *Checker) Read(b gpu.Buffer) ([]float64, error) { return k.c.read(b) }

// CloseVec compares got with want in the max norm, relative to want's.
func (k *Checker) CloseVec(what string, got, want []float64) error {
	return k.c.closeVec(what, got, want)
}

// Adjoint compares ⟨y, Ax⟩ with ⟨Aᵀy, x⟩, relative to the norms involved.
func (k *Checker) Adjoint(what string, y, ax, aty, x []float64) error {
	return k.c.adjoint(what, y, ax, aty, x)
}

// Free frees every buffer the Checker allocated.
func (k *Checker) Free() { k.c.free() }
