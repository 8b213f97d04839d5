package gpu

import (
	"strings"
	"testing"
)

func TestArena(t *testing.T) {
	for _, d := range []Ops{CPU(), Host32()} {
		base := d.Stats().InUse
		a := NewArena(d)
		b1, err := a.Alloc(10)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Alloc(5); err != nil {
			t.Fatal(err)
		}
		want := int64(15 * d.ValueSize())
		if a.Bytes() != want || a.Peak() != want {
			t.Errorf("%s: arena holds %d bytes (peak %d), want %d", d.Name(), a.Bytes(), a.Peak(), want)
		}
		if got := d.Stats().InUse - base; got != want {
			t.Errorf("%s: device counts %d bytes for the arena, want %d", d.Name(), got, want)
		}
		var order []int
		a.OnClose(func() { order = append(order, 1) })
		a.OnClose(func() { order = append(order, 2) })
		a.Close()
		if len(order) != 2 || order[0] != 2 || order[1] != 1 {
			t.Errorf("%s: OnClose functions ran in order %v, want [2 1]", d.Name(), order)
		}
		if a.Bytes() != 0 || a.Peak() != want || b1.Len() != 0 {
			t.Errorf("%s: after Close the arena holds %d bytes (peak %d) and its buffer %d values, want 0, %d, 0", d.Name(), a.Bytes(), a.Peak(), b1.Len(), want)
		}
		if got := d.Stats().InUse; got != base {
			t.Errorf("%s: device in use %d after Close, want %d", d.Name(), got, base)
		}
		a.Close()
		if _, err := a.Alloc(1); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("%s: Alloc after Close returned %v", d.Name(), err)
		}
		ran := false
		a.OnClose(func() { ran = true })
		if !ran {
			t.Errorf("%s: OnClose on a closed arena did not run its function", d.Name())
		}
		if _, err := NewArena(d).Alloc(-1); err == nil {
			t.Errorf("%s: negative size accepted", d.Name())
		}
	}
}
