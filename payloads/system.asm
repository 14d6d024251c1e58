; Privilege transitions (CPL 3 only; kernel side in arch/x86/entry.asm kept to a
; handful of instructions), the measuring instructions themselves, and fault payloads.
bits 64
default rel
%include "abi.inc"
section .payload

%macro PAYLOAD 1
global %1
align 64
%1:
%endmacro

PAYLOAD pl_sys_syscall             ; SYSCALL/SYSRET round trip: 4 user insns/iter
.loop:	mov eax, SYS_NULL
	syscall
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_sys_int80               ; INT 0x80/IRETQ round trip: 3 user insns/iter
.loop:	int VEC_INT_ROUNDTRIP
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_sys_int3                ; #BP exception round trip: 3 user insns/iter
.loop:	int3
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdtsc              ; 4 RDTSC: 6/iter
.loop:
%rep 4
	rdtsc
%endrep
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdtscp             ; 4 RDTSCP: 6/iter
.loop:
%rep 4
	rdtscp
%endrep
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdpmc              ; 4 RDPMC of counter arg: 6/iter
	mov rcx, rdi
.loop:
%rep 4
	rdpmc
%endrep
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_cost_cpuid              ; 2 x (xor eax; xor ecx; CPUID leaf 0): 8/iter
	push rbx
.loop:
%rep 2
	xor eax, eax
	xor ecx, ecx
	cpuid
%endrep
	dec rsi
	jnz .loop
	pop rbx
	ret

PAYLOAD pl_cost_lfence             ; 4 LFENCE: 6/iter
.loop:
%rep 4
	lfence
%endrep
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_cost_mfence             ; 4 MFENCE: 6/iter
.loop:
%rep 4
	mfence
%endrep
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_cost_rdmsr              ; CPL 0: 4 RDMSR of IA32_TIME_STAMP_COUNTER: 6/iter
	mov ecx, MSR_IA32_TSC
.loop:
%rep 4
	rdmsr
%endrep
	dec rsi
	jnz .loop
	ret

; Fault payloads: the kernel must report each and carry on.
PAYLOAD pl_fault_priv              ; HLT at CPL 3: #GP
.loop:	hlt
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_fault_kaddr             ; load from arg, a kernel address: #PF at CPL 3
.loop:	mov rax, [rdi]
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_fault_div0              ; DIV by zero: #DE at any CPL
	xor ecx, ecx
.loop:	mov eax, 1
	xor edx, edx
	div rcx
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_fault_ud                ; UD2: #UD at any CPL
.loop:	ud2
	dec rsi
	jnz .loop
	ret

PAYLOAD pl_fault_hang              ; never ends: only the watchdog stops it
.loop:	jmp .loop

section .note.GNU-stack noalloc noexec nowrite progbits
