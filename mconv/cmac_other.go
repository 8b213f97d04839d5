//go:build !amd64 || purego

package mconv

// haveCmac4 is false: cmac4 has no implementation on this architecture.
const haveCmac4 = false

func cmac4(out, w, x *complex128, pairs, nb int, os, wsa, wsb, xs uintptr, neg uint64) {
	panic("mconv: cmac4 is not available on this architecture")
}
