//go:build amd64 && !purego

package mconv

import "golang.org/x/sys/cpu"

// haveCmac4 reports whether cmac4 (AVX2 and FMA) can run on this CPU
// (golang.org/x/sys/cpu also checks that the OS saves the YMM registers).
var haveCmac4 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// cmac4 computes, for the pairs i = 0..pairs−1 of consecutive complex
// values (2·pairs values) and the four outputs q = 0..3,
//
//	out[q·os + k] = Σ_{b<nb} op(w[q·wsa + b·wsb + k]) · x[b·xs + k],  k = 2i, 2i+1,
//
// where op is the identity, or complex conjugation when neg = 1<<63.
// Strides are in bytes. Each product is accumulated in two vector
// registers, Σ Re(w)·x and Σ Im(w)·swap(x), with fused multiply-adds, and
// combined once at the end (VADDSUBPD); so the result equals the scalar
// complex sums up to rounding, not bit for bit. Implemented in
// cmac_amd64.s; call only when haveCmac4.
//
//go:noescape
func cmac4(out, w, x *complex128, pairs, nb int, os, wsa, wsb, xs uintptr, neg uint64)
