#include "textflag.h"
#include "go_asm.h"

// func prefetch(addr uintptr)
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ addr+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func prefetch2(a, b uintptr)
TEXT ·prefetch2(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 (BX)
	RET

// func prefetch3(a, b, c uintptr)
TEXT ·prefetch3(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	PREFETCHT0 (AX)
	PREFETCHT0 (BX)
	PREFETCHT0 (CX)
	RET

// func prefetchItem(it *laneItem)
// An interface value is a type word, then the pointer to the value: the
// handler's and the argument's pointers are their second words.
TEXT ·prefetchItem(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ it+0(FP), AX
	MOVQ (laneItem_h+8)(AX), BX
	PREFETCHT0 (BX)
	PREFETCHT0 64(BX)
	PREFETCHT0 128(BX)
	CMPB laneItem_unread(AX), $0
	JNE unread
	MOVQ (laneItem_data+8)(AX), CX
	PREFETCHT0 (CX)
unread:
	RET
