//go:build amd64 && !purego

#include "textflag.h"

// func cmac4(out, w, x *complex128, pairs, nb int, os, wsa, wsb, xs uintptr, neg uint64)
//
// Registers: AX out, BX w, CX x (advanced by 32 bytes a pair), DX pairs
// left, SI nb, R8 os, R9 wsa, R10 wsb, R11 xs; R12 and R13 walk w and x
// along b, R14 counts b, R15 steps w along q. Y0…Y7 accumulate
// Σ Re(w)·x (even) and Σ Im(w)·swap(x) (odd) for the four outputs; Y8 x,
// Y9 swap(x), Y10 Re(w) duplicated, Y11 Im(w) duplicated, Y12 the sign mask.
TEXT ·cmac4(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), AX
	MOVQ w+8(FP), BX
	MOVQ x+16(FP), CX
	MOVQ pairs+24(FP), DX
	MOVQ nb+32(FP), SI
	MOVQ os+40(FP), R8
	MOVQ wsa+48(FP), R9
	MOVQ wsb+56(FP), R10
	MOVQ xs+64(FP), R11
	VPBROADCASTQ neg+72(FP), Y12
	TESTQ DX, DX
	JLE done
	TESTQ SI, SI
	JLE done

pair:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ BX, R12
	MOVQ CX, R13
	MOVQ SI, R14

inner:
	VMOVUPD (R13), Y8
	VPERMILPD $5, Y8, Y9

	VMOVDDUP (R12), Y10
	VPERMILPD $15, (R12), Y11
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y11, Y1

	LEAQ (R12)(R9*1), R15
	VMOVDDUP (R15), Y10
	VPERMILPD $15, (R15), Y11
	VFMADD231PD Y8, Y10, Y2
	VFMADD231PD Y9, Y11, Y3

	ADDQ R9, R15
	VMOVDDUP (R15), Y10
	VPERMILPD $15, (R15), Y11
	VFMADD231PD Y8, Y10, Y4
	VFMADD231PD Y9, Y11, Y5

	ADDQ R9, R15
	VMOVDDUP (R15), Y10
	VPERMILPD $15, (R15), Y11
	VFMADD231PD Y8, Y10, Y6
	VFMADD231PD Y9, Y11, Y7

	ADDQ R10, R12
	ADDQ R11, R13
	DECQ R14
	JNZ inner

	// out = A ∓ B: even lanes A − B, odd lanes A + B (B negated for conj).
	VXORPD Y12, Y1, Y1
	VXORPD Y12, Y3, Y3
	VXORPD Y12, Y5, Y5
	VXORPD Y12, Y7, Y7
	VADDSUBPD Y1, Y0, Y0
	VADDSUBPD Y3, Y2, Y2
	VADDSUBPD Y5, Y4, Y4
	VADDSUBPD Y7, Y6, Y6
	MOVQ AX, R15
	VMOVUPD Y0, (R15)
	ADDQ R8, R15
	VMOVUPD Y2, (R15)
	ADDQ R8, R15
	VMOVUPD Y4, (R15)
	ADDQ R8, R15
	VMOVUPD Y6, (R15)

	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, CX
	DECQ DX
	JNZ pair

done:
	VZEROUPPER
	RET
