package wcrr

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParseWeights checks that the reader of the WCRR weights JSON never
// panics nor allocates for sizes the file merely claims, and that a model
// it accepts is valid. Seeds in testdata/fuzz/FuzzParseWeights.
func FuzzParseWeights(f *testing.F) {
	layer := func(in, out int) string {
		var fs []string
		for range out {
			var ch []string
			for range in {
				ch = append(ch, "[[1,0,0],[0,1,0],[0,0,1]]")
			}
			fs = append(fs, "["+strings.Join(ch, ",")+"]")
		}
		return fmt.Sprintf(`{"in_channels":%d,"out_channels":%d,"kernel_size":3,"padding":1,"weight":[%s]}`, in, out, strings.Join(fs, ","))
	}
	valid := `{"mu":2,"L":3,"conv":{"layers":[` + layer(1, 2) + "," + layer(2, 2) + "," + layer(2, 1) +
		`]},"potential":{"closed_form":{"h_c":[0.1],"T_c":[0.5]}}}`
	f.Add([]byte(valid))
	f.Add([]byte(strings.Replace(valid, `"out_channels":2`, `"out_channels":2000000000`, 1)))
	f.Add([]byte(`{"mu":1,"L":1,"conv":{"layers":[]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parse(b)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid model: %v", err)
		}
		for l, layer := range m.Layers {
			if len(layer.Weight) != layer.Cout*layer.Cin*layer.K*layer.K {
				t.Fatalf("layer %d: %d weights for %d×%d×%d×%d", l, len(layer.Weight), layer.Cout, layer.Cin, layer.K, layer.K)
			}
		}
	})
}
