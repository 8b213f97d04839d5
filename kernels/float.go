package kernels

import (
	"math"
	"unsafe"
)

// Float is the element type of the kernels that are written once for both
// precisions: float32 and float64 (and types defined on them). Go compiles
// one copy of a generic kernel per underlying type (GC shape), so each
// precision runs its own specialised machine code with no dictionary lookups
// in the inner loops.
//
// Conventions for F = float32:
//
//   - Reductions (dot products, sums of function values, sums over the
//     images of a batch) accumulate in float64 and return float64, whatever F.
//     For F = float64 this is the float64 arithmetic the kernels always had.
//   - Constants (twiddle factors, kernel coefficients, ε) are computed in
//     float64 and rounded once to F.
//   - Everything else (pixels, spectra, gradients) is computed and stored in F.
type Float interface{ ~float32 | ~float64 }

// Complex is a complex number with parts of type F. Go cannot write generic
// code over complex64 and complex128 (real, imag and complex refuse type
// parameters, and a float cannot be converted to a complex type parameter),
// so the generic FFT works on pairs {Re, Im} and spells out complex
// arithmetic with the exact formulas the compiler uses for complex128:
// (a+bi)(c+di) = (ac − bd) + (ad + bc)i. A []Complex[float64] has the memory
// layout of a []complex128 and a []Complex[float32] that of a []complex64
// (real part first, no padding), so Complex128s and Complex64s reinterpret
// one as the other without copying.
type Complex[F Float] struct{ Re, Im F }

// Complex128s returns c viewed as a []Complex[float64] (same memory).
func Complex128s(c []complex128) []Complex[float64] {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*Complex[float64])(unsafe.Pointer(&c[0])), len(c))
}

// ComplexView returns the interleaved values v (real, imaginary, real, …)
// viewed as len(v)/2 complex values (same memory); an odd last value is left
// out.
func ComplexView[F Float](v []F) []Complex[F] {
	if len(v) < 2 {
		return nil
	}
	return unsafe.Slice((*Complex[F])(unsafe.Pointer(&v[0])), len(v)/2)
}

// Complex64s returns c viewed as a []Complex[float32] (same memory).
func Complex64s(c []complex64) []Complex[float32] {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*Complex[float32])(unsafe.Pointer(&c[0])), len(c))
}

// AsComplex128 returns c viewed as a []complex128 (same memory).
func AsComplex128(c []Complex[float64]) []complex128 {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*complex128)(unsafe.Pointer(&c[0])), len(c))
}

// AsComplex64 returns c viewed as a []complex64 (same memory).
func AsComplex64(c []Complex[float32]) []complex64 {
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*complex64)(unsafe.Pointer(&c[0])), len(c))
}

// toComplex rounds a complex128 to Complex[F].
func toComplex[F Float](c complex128) Complex[F] { return Complex[F]{F(real(c)), F(imag(c))} }

// cadd returns a + b.
func cadd[F Float](a, b Complex[F]) Complex[F] { return Complex[F]{a.Re + b.Re, a.Im + b.Im} }

// csub returns a − b.
func csub[F Float](a, b Complex[F]) Complex[F] { return Complex[F]{a.Re - b.Re, a.Im - b.Im} }

// cmul returns a·b, computed as Go computes a complex128 product.
func cmul[F Float](a, b Complex[F]) Complex[F] {
	return Complex[F]{a.Re*b.Re - a.Im*b.Im, a.Re*b.Im + a.Im*b.Re}
}

// cconj returns the complex conjugate of a.
func cconj[F Float](a Complex[F]) Complex[F] { return Complex[F]{a.Re, -a.Im} }

// Sqrt is the square root in F. For float32 the compiler turns the round
// trip through float64 into one single-precision square root (correctly
// rounded either way).
func Sqrt[F Float](x F) F { return F(math.Sqrt(float64(x))) }

// Abs is |x| in F.
func Abs[F Float](x F) F { return F(math.Abs(float64(x))) }

// DotT returns Σ a[i]·b[i] over the common length, accumulated in float64
// (four partial sums, combined as (s0+s1)+(s2+s3)) whatever F: for float32
// data every product is exact in float64, so the only rounding is that of
// the float64 sums.
func DotT[F Float](a, b []F) float64 {
	var z F
	if unsafe.Sizeof(z) == 4 && dot32 != nil && len(a) > 0 && len(b) > 0 {
		return dot32(unsafe.Slice((*float32)(unsafe.Pointer(&a[0])), len(a)), unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)))
	}
	if unsafe.Sizeof(z) == 8 && dot64 != nil && len(a) > 0 && len(b) > 0 {
		return dot64(unsafe.Slice((*float64)(unsafe.Pointer(&a[0])), len(a)), unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)))
	}
	var s0, s1, s2, s3 float64
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		// Fixed-length windows: one bounds check per four products.
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += float64(a4[0]) * float64(b4[0])
		s1 += float64(a4[1]) * float64(b4[1])
		s2 += float64(a4[2]) * float64(b4[2])
		s3 += float64(a4[3]) * float64(b4[3])
	}
	for ; i < n; i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dot32 is DotT for float32 in vector registers, set by vector_amd64.go on
// an AVX2 CPU (nil otherwise); it returns DotT's result bit for bit.
var dot32 func(a, b []float32) float64

// dot64 is DotT for float64 in vector registers (the four partial sums are
// the lanes of one vector), likewise.
var dot64 func(a, b []float64) float64

// Axpy adds alpha·x to dst elementwise (dst[i] += alpha·x[i]) over the common
// length, in F.
func Axpy[F Float](dst []F, alpha F, x []F) {
	n := min(len(dst), len(x))
	dst, x = dst[:n], x[:n]
	for i, v := range x {
		dst[i] += alpha * v
	}
}

// Convert writes src rounded (or widened) to the element type of dst; the
// lengths must agree. Between float64 and float32 an AVX2 CPU converts four
// values an instruction, bit for bit the loop's result.
func Convert[D, S Float](dst []D, src []S) {
	src = src[:len(dst)]
	var d D
	var s S
	if len(dst) > 0 && unsafe.Sizeof(d) == 4 && unsafe.Sizeof(s) == 8 && narrow != nil {
		narrow(unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), len(dst)), unsafe.Slice((*float64)(unsafe.Pointer(&src[0])), len(src)))
		return
	}
	if len(dst) > 0 && unsafe.Sizeof(d) == 8 && unsafe.Sizeof(s) == 4 && widen != nil {
		widen(unsafe.Slice((*float64)(unsafe.Pointer(&dst[0])), len(dst)), unsafe.Slice((*float32)(unsafe.Pointer(&src[0])), len(src)))
		return
	}
	convertLoop(dst, src)
}

// convertLoop is Convert as a plain loop, the fallback of the vector
// kernels.
func convertLoop[D, S Float](dst []D, src []S) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

// narrow and widen are Convert from float64 to float32 and back in vector
// registers, set by vector_amd64.go on an AVX2 CPU (nil otherwise).
var (
	narrow func(dst []float32, src []float64)
	widen  func(dst []float64, src []float32)
)
