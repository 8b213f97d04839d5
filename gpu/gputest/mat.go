package gputest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/gpu"
)

// CheckMat tests a device's gpu.MatOps on a random batch of shape s to relative
// tolerance tol: MatMulAdd against host arithmetic, its transpose by
// ⟨b, A v⟩ = ⟨Aᵀ b, v⟩, and OuterSum by ⟨Σ r_n v_nᵀ, A⟩ = Σ_n ⟨r_n, A v_n⟩.
func CheckMat(d gpu.MatOps, s gpu.Batch, tol float64) error {
	ops, ok := d.(gpu.Ops)
	if !ok {
		return fmt.Errorf("gputest: check mat: %T has no array operations", d)
	}
	c := &opsCheck{d: ops, tol: tol, rng: rand.New(rand.NewPCG(19, uint64(s.Len())))}
	defer c.free()
	hw := s.H * s.W
	a, ab, err := c.random(hw * hw)
	if err != nil {
		return err
	}
	v, vb, err := c.random(s.Len())
	if err != nil {
		return err
	}
	b, bb, err := c.random(s.Len())
	if err != nil {
		return err
	}
	av, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	atb, err := c.zeros(s.Len())
	if err != nil {
		return err
	}
	outer, err := c.zeros(hw * hw)
	if err != nil {
		return err
	}
	if err := d.MatMulAdd(av, ab, vb, s, 1, false); err != nil {
		return fmt.Errorf("mat mul add: %w", err)
	}
	if err := d.MatMulAdd(atb, ab, bb, s, 1, true); err != nil {
		return fmt.Errorf("mat mul add (transpose): %w", err)
	}
	if err := d.OuterSum(outer, bb, vb, s); err != nil {
		return fmt.Errorf("outer sum: %w", err)
	}
	gotAv, err := c.read(av)
	if err != nil {
		return err
	}
	gotAtb, err := c.read(atb)
	if err != nil {
		return err
	}
	gotOuter, err := c.read(outer)
	if err != nil {
		return err
	}
	want := make([]float64, s.Len())
	for n := 0; n < s.N; n++ {
		for i := 0; i < hw; i++ {
			want[n*hw+i] = dot(a[i*hw:(i+1)*hw], v[n*hw:(n+1)*hw])
		}
	}
	return errors.Join(c.closeVec("mat mul add against host arithmetic", gotAv, want),
		c.adjoint("mat mul add and its transpose", b, gotAv, gotAtb, v),
		c.close("outer sum: ⟨Σ b_n v_nᵀ, A⟩ against ⟨b, A v⟩", dot(gotOuter, a), dot(b, want), math.Sqrt(dot(gotOuter, gotOuter)*dot(a, a))))
}
