; The 256 trap entry points, the fast CPL 3 entries and the ring-switching run calls of
; the i686 kernel. SDM Vol. 3A 6.12 (interrupt frames without and with a privilege
; change), 6.14 is the x86-64 counterpart in arch/x86/64/entry.asm.
;
; Code in .payload is called with the machine's register convention for payloads:
; EDI = first argument, ESI = second, EDX = third; result in EAX (EDX:EAX for 64 bits);
; EBX, EBP and ESP preserved. run_cpl0/run_cpl3 are called from C (cdecl).
bits 32
%include "abi.inc"
%include "trap-stubs.inc"

extern trap_dispatch

global trap_entries, int80_fast, bp_entry, bp_fast_resume, user_exit_entry
global run_cpl0, run_cpl3, run_resume, run_saved_esp, run_exit_rip, run_exit_rsp

section .text
TRAP_STUBS

; Frame built here is struct trap_frame (arch/x86/32/trap-frame.h), lowest address first.
trap_common:
	push ds
	push es
	push fs
	push gs
	pushad
	mov eax, SEL_KDATA
	mov ds, eax
	mov es, eax
	cld
	mov eax, esp
	mov ebx, esp
	and esp, -16
	sub esp, 12
	push eax
	call trap_dispatch
	mov esp, ebx
	popad
	pop gs
	pop fs
	pop es
	pop ds
	add esp, 8
	iretd

; INT 0x80 from CPL 3 (the INT n/IRET round-trip benchmark): nothing but IRETD.
int80_fast:
	iretd

; #BP: from CPL 3 while a run asked for it (the exception round-trip benchmark), return
; at once; anything else takes the normal path and is reported. DS may still be the
; user's flat data segment here: same base, and CPL 0 may read through it.
bp_entry:
	test byte [esp + 4], 3
	jz trap_entry_3
	cmp byte [ss:bp_fast_resume], 0
	je trap_entry_3
	iretd

; INT VEC_USER_EXIT: how user_entry ends a CPL 3 run, with EDI as its result. Only from
; CPL 3, from user_entry's own INT (the EIP after it is run_exit_rip) and with the stack
; as user_entry aligned it (run_exit_rsp): arch/x86/run.c sets both. Anything else is a
; payload's INT 0x81, which takes the ordinary path and ends the run as its fault. The
; interrupt gate cleared IF and TF; AC and DF go too. DS may still be the user's.
%assign USER_EXIT_VECTOR VEC_USER_EXIT
user_exit_entry:
	test byte [esp + 4], 3
	jz .stray
	push eax
	mov eax, [esp + 4]
	cmp eax, [ss:run_exit_rip]
	jne .stray_pop
	mov eax, [esp + 16]
	cmp eax, [ss:run_exit_rsp]
	jne .stray_pop
	pop eax
	push RFLAGS_RESERVED1
	popfd
	mov eax, edi
	xor edx, edx
	jmp run_resume
.stray_pop:
	pop eax
.stray:
	jmp trap_entry_%[USER_EXIT_VECTOR]

; uint64_t run_cpl3(eip, esp, a0, a1, a2, eflags): enter ring 3 at eip with the given
; stack and EFLAGS, a0-a2 in EDI/ESI/EDX. Returns through run_resume.
run_cpl3:
	push ebp
	push ebx
	push esi
	push edi
	mov [run_saved_esp], esp
	mov eax, [esp + 20]             ; eip
	mov ecx, [esp + 24]             ; esp
	mov edi, [esp + 28]
	mov esi, [esp + 32]
	mov edx, [esp + 36]
	mov ebx, [esp + 40]             ; eflags
	push SEL_UDATA | RPL3
	push ecx
	push ebx
	push SEL_UCODE | RPL3
	push eax
	mov eax, SEL_UDATA | RPL3
	mov ds, eax
	mov es, eax
	xor eax, eax
	mov fs, eax
	mov gs, eax
	xor ebx, ebx
	xor ecx, ecx
	xor ebp, ebp
	iretd

; uint64_t run_cpl0(fn, a0, a1, stack): call fn in ring 0 with the payload convention, on
; the given stack (the payloads' own, arch/x86/stacks.c: what it does to it cannot reach
; this one), with the same recovery point as run_cpl3, so a fault or the watchdog ends it
; cleanly.
run_cpl0:
	push ebp
	push ebx
	push esi
	push edi
	mov [run_saved_esp], esp
	mov eax, [esp + 20]
	mov edi, [esp + 24]
	mov esi, [esp + 28]
	xor edx, edx
	mov esp, [esp + 32]
	sti                         ; only now: the recovery point is saved (STI's shadow covers the call)
	call eax
	; fall through with the result in EDX:EAX

; Ring 0, EDX:EAX = result. Also the target the trap handler redirects a run to; the
; data segments may still be the user's (user_exit_entry). The #DF task returns here by a
; task switch, which sets CR0.TS (SDM Vol. 3A 2.5): CLTS, or the next x87 or SSE
; instruction raises #NM.
run_resume:
	mov ecx, SEL_KDATA
	mov ds, ecx
	mov es, ecx
	mov esp, [ss:run_saved_esp]
	clts
	pop edi
	pop esi
	pop ebx
	pop ebp
	ret

section .rodata
TRAP_ENTRY_TABLE

section .bss
align 4
run_saved_esp: resd 1
run_exit_rip: resd 1
run_exit_rsp: resd 1
bp_fast_resume: resb 1

section .note.GNU-stack noalloc noexec nowrite progbits
