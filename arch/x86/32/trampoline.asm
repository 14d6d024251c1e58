; Application processor start-up (i686 kernel): kernel/smp.c copies smp_trampoline to a
; free page below 1 MiB and sends INIT-SIPI-SIPI with it as the start-up vector (SDM
; Vol. 3A 9.4.4.1). Real mode -> flat protected mode (9.9.1), then a jump into the image
; (linked virtual = physical), where smp_ap_entry turns on paging as the boot CPU runs it:
; PAE or two-level (CR4 from TRAMP_CR4), EFER.NXE where the boot CPU set it.
%include "abi.inc"
%include "trampoline-rm.inc"

extern smp_ap_main
global smp_trampoline, smp_trampoline_end, smp_ap_entry

section .rodata
align 16
TRAMP_REAL_TO_PM32
	mov eax, [ebx + TRAMP_ENTRY]
	jmp eax

TRAMP_GDT_FLAT32
tramp_gdt_end:
smp_trampoline_end:

section .text
; EBX = the start-up page, paging off: load the kernel's paging state, switch to this
; processor's own stack and never return.
smp_ap_entry:
	mov eax, [ebx + TRAMP_EFER]
	test eax, eax
	jz .paging
	mov ecx, MSR_EFER
	xor edx, edx
	wrmsr
.paging:
	mov eax, [ebx + TRAMP_CR4]
	mov cr4, eax
	mov eax, [ebx + TRAMP_CR3]
	mov cr3, eax
	mov eax, cr0
	or eax, CR0_PG
	mov cr0, eax
	mov esp, [ebx + TRAMP_STACK]
	push dword [ebx + TRAMP_CPU]
	xor ebp, ebp
	call smp_ap_main
.halt:	cli
	hlt
	jmp .halt

section .note.GNU-stack noalloc noexec nowrite progbits
