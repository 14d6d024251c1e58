; Privilege transitions, the measuring instructions themselves and fault payloads of the
; i686 kernel: payloads/system.asm in 32-bit form, under the same names and with the
; same instruction counts per iteration. Kernel sides: arch/x86/32/entry.asm.
bits 32
%include "abi.inc"
section .payload

%macro PAYLOAD 1
global %1
align 64
%1:
%endmacro

; SYSCALL is not set up in protected mode (Intel CPUs have none there, SDM Vol. 2B
; SYSCALL; arch/x86/32/run.c): payload_unsupported skips sys_syscall in the i686 kernel,
; so this body only keeps the name and would end as a reported #UD if reached.
PAYLOAD pl_sys_syscall
	ud2

PAYLOAD pl_sys_int80               ; INT 0x80/IRETD round trip: 3 user insns/iter
.loop:	int VEC_INT_ROUNDTRIP
	dec esi
	jnz .loop
	ret

PAYLOAD pl_sys_int3                ; #BP exception round trip: 3 user insns/iter
.loop:	int3
	dec esi
	jnz .loop
	ret

PAYLOAD pl_cost_rdtsc              ; 4 RDTSC: 6/iter
.loop:
%rep 4
	rdtsc
%endrep
	dec esi
	jnz .loop
	ret

PAYLOAD pl_cost_rdtscp             ; 4 RDTSCP: 6/iter
.loop:
%rep 4
	rdtscp
%endrep
	dec esi
	jnz .loop
	ret

PAYLOAD pl_cost_rdpmc              ; 4 RDPMC of counter arg: 6/iter
	mov ecx, edi
.loop:
%rep 4
	rdpmc
%endrep
	dec esi
	jnz .loop
	ret

PAYLOAD pl_cost_cpuid              ; 2 x (xor eax; xor ecx; CPUID leaf 0): 8/iter
	push ebx
.loop:
%rep 2
	xor eax, eax
	xor ecx, ecx
	cpuid
%endrep
	dec esi
	jnz .loop
	pop ebx
	ret

PAYLOAD pl_cost_lfence             ; 4 LFENCE (SSE2): 6/iter
.loop:
%rep 4
	lfence
%endrep
	dec esi
	jnz .loop
	ret

PAYLOAD pl_cost_mfence             ; 4 MFENCE (SSE2): 6/iter
.loop:
%rep 4
	mfence
%endrep
	dec esi
	jnz .loop
	ret

PAYLOAD pl_cost_rdmsr              ; CPL 0: 4 RDMSR of IA32_TIME_STAMP_COUNTER: 6/iter
	mov ecx, MSR_IA32_TSC
.loop:
%rep 4
	rdmsr
%endrep
	dec esi
	jnz .loop
	ret

; Fault payloads: the kernel must report each and carry on.
PAYLOAD pl_fault_priv              ; HLT at CPL 3: #GP
.loop:	hlt
	dec esi
	jnz .loop
	ret

PAYLOAD pl_fault_kaddr             ; load from arg, a kernel address: #PF at CPL 3
.loop:	mov eax, [edi]
	dec esi
	jnz .loop
	ret

PAYLOAD pl_fault_div0              ; DIV by zero: #DE at any CPL
	xor ecx, ecx
.loop:	mov eax, 1
	xor edx, edx
	div ecx
	dec esi
	jnz .loop
	ret

PAYLOAD pl_fault_ud                ; UD2: #UD at any CPL
.loop:	ud2
	dec esi
	jnz .loop
	ret

PAYLOAD pl_fault_hang              ; never ends: only the watchdog stops it
.loop:	jmp .loop

section .note.GNU-stack noalloc noexec nowrite progbits
