//go:build purego || !amd64

package vec

// AVX2 is false: this build has no assembly.
const AVX2 = false

// FMA is false: this build has no assembly.
const FMA = false
