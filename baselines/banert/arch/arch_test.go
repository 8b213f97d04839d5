package arch

import "testing"

// The parameter counts are the ones the package banert documents and its
// checkpoints record: 10,567 with 3 inputs, 10,857 with 4.
func TestNumParams(t *testing.T) {
	for inputs, want := range map[int]int{3: 10567, 4: 10857} {
		if got := NumParams(inputs); got != want {
			t.Errorf("NumParams(%d) = %d, want %d", inputs, got, want)
		}
	}
}

// Params' views tile theta in order, and the convolutions' channels and
// the norms' sizes are those of the blocks NormScale and ConvWeight name.
func TestParamsAndConvs(t *testing.T) {
	for _, inputs := range []int{3, 4} {
		theta := make([]float64, NumParams(inputs))
		for i := range theta {
			theta[i] = float64(i)
		}
		next := 0
		for i, b := range Layout(inputs) {
			v := Params(theta, inputs, i)
			if len(v) != b.Len() || (len(v) > 0 && v[0] != float64(next)) {
				t.Fatalf("%d inputs, block %s: view of %d values from %v, want %d from %d", inputs, b.Name, len(v), v[:min(1, len(v))], b.Len(), next)
			}
			next += b.Len()
		}
		if next != len(theta) || Params(theta, inputs, len(Layout(inputs))) != nil || Params(theta[:5], inputs, 2) != nil {
			t.Errorf("%d inputs: the blocks cover %d of %d values, or a missing block has a view", inputs, next, len(theta))
		}
		lay := Layout(inputs)
		for i, c := range Convs(inputs) {
			w, bias := lay[ConvWeight(i)], lay[ConvWeight(i)+1]
			if w.Shape[0] != c.Out || w.Shape[1] != c.In || w.Shape[2] != KernelSize || bias.Len() != c.Out {
				t.Errorf("%d inputs, conv %d: blocks %s %v and %s %v, want %d → %d channels", inputs, i, w.Name, w.Shape, bias.Name, bias.Shape, c.In, c.Out)
			}
			scale, offset := lay[NormScale(i)], lay[NormScale(i)+1]
			if scale.Len() != c.In || offset.Len() != c.In {
				t.Errorf("%d inputs: norm %d has blocks %s %v and %s %v, want %d channels (conv %d's input)", inputs, i, scale.Name, scale.Shape, offset.Name, offset.Shape, c.In, i)
			}
		}
	}
}

func TestCheckInputs(t *testing.T) {
	for inputs, ok := range map[int]bool{2: false, 3: true, 4: true, 5: false} {
		if err := CheckInputs(inputs); (err == nil) != ok {
			t.Errorf("CheckInputs(%d) = %v", inputs, err)
		}
	}
}
