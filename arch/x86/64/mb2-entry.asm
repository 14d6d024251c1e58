; The BIOS path's entry: GRUB (i386-pc) starts the kernel ELF by Multiboot2 in 32-bit
; protected mode, paging off, EAX = MB2_LOADER_MAGIC, EBX = the boot information
; (Multiboot2 spec 1.0, 3.2). QEMU's -kernel starts it by PVH (lib/pvh.h) at pvh_entry32 in
; the same state with EBX = the start information; that stub says so in EAX
; (PVH_START_MAGIC) and goes on as the Multiboot2 entry does. This stub checks for long
; mode, maps 0..4 GiB identity and the image at KERNEL_VBASE, enters long mode (SDM Vol. 3A
; 10.8.5) and calls mb2_boot(magic, information) (arch/x86/64/mb2-boot.c), which fills
; struct boot_info and enters kernel_entry.
; Until long mode every address is physical: PHYS() turns a link address into one.
%include "abi.inc"
%include "mb2-header.inc"
%include "pvh-note.inc"

%define PHYS(x)         ((x) - KERNEL_VBASE + KERNEL_BIOS_PHYS)
%define PTE_TABLE       (PTE_P | PTE_W)
%define PTE_LARGE       (PTE_P | PTE_W | PTE_PS)
%define BOOT_STACK_SIZE (16 * 1024)

; The one-line refusal writes COM1 (UART_* from lib/pc-io.h, through abi.inc).
%define VGA_TEXT        0xb8000         ; colour text mode, 80x25: GRUB leaves it on

extern mb2_boot, __kernel_end
global mb2_entry32, pvh_entry32

; GRUB and QEMU would otherwise start e_entry, the 64-bit kernel_entry.
PVH_NOTE PHYS(pvh_entry32), dq
MB2_HEADER PHYS(mb2_entry32)
bits 32

pvh_entry32:
	mov eax, PVH_START_MAGIC
mb2_entry32:
	cli
	cld
	mov esp, PHYS(boot_stack_top)
	cmp eax, MB2_LOADER_MAGIC
	je .known
	cmp eax, PVH_START_MAGIC
	jne .not_multiboot2
.known:
	mov [PHYS(boot_magic)], eax
	mov [PHYS(mb2_info)], ebx
	call has_long_mode
	test eax, eax
	jz .no_long_mode
	call build_tables

	mov eax, PHYS(boot_pml4)
	mov cr3, eax
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE
	mov cr0, eax
	lgdt [PHYS(boot_gdt_ptr)]
	jmp SEL_KCODE:PHYS(.long_mode)

.not_multiboot2:
	mov esi, PHYS(msg_not_mb2)
	jmp refuse
.no_long_mode:
	mov esi, PHYS(msg_no_lm)
	jmp refuse

bits 64
.long_mode:
	mov eax, SEL_KDATA
	mov ds, eax
	mov es, eax
	mov ss, eax
	xor eax, eax
	mov fs, eax
	mov gs, eax
	; Leave the identity mapping for the link address; the stack follows.
	mov rax, .high
	jmp rax
.high:
	lea rsp, [rel boot_stack_top]
	xor ebp, ebp
	mov edi, [rel boot_magic]
	mov esi, [rel mb2_info]
	call mb2_boot                   ; does not return
.halt:	cli
	hlt
	jmp .halt

bits 32
; ZF clear when CPUID exists: EFLAGS.ID can be toggled (SDM Vol. 1 3.4.3.3).
has_cpuid:
	pushfd
	pop eax
	mov ecx, eax
	xor eax, RFLAGS_ID
	push eax
	popfd
	pushfd
	pop eax
	push ecx
	popfd
	xor eax, ecx
	test eax, RFLAGS_ID
	ret

; EAX = 1 when CPUID exists and reports long mode, else 0.
has_long_mode:
	call has_cpuid
	jz .no
	mov eax, CPUID_EXT_FEATURES & 0xffff0000
	cpuid
	cmp eax, CPUID_EXT_FEATURES
	jb .no
	mov eax, CPUID_EXT_FEATURES
	cpuid
	test edx, CPUID_EXT_EDX_LM
	jz .no
	mov eax, 1
	ret
.no:	xor eax, eax
	ret

; 0..4 GiB identity in 2 MiB pages (boot information, modules, ACPI, the stack); the
; image at KERNEL_VBASE: PML4[511] -> PDPT[510] -> 2 MiB pages from KERNEL_BIOS_PHYS.
; The tables are .bss, zeroed by the loader, and lie inside the image, which mb2_boot
; keeps out of usable memory.
build_tables:
	mov dword [PHYS(boot_pml4)], PHYS(boot_pdpt_low) + PTE_TABLE
	mov dword [PHYS(boot_pml4) + 511 * 8], PHYS(boot_pdpt_high) + PTE_TABLE
	mov dword [PHYS(boot_pdpt_high) + 510 * 8], PHYS(boot_pd_high) + PTE_TABLE
	xor ecx, ecx
.pdpt:	mov eax, ecx
	shl eax, PAGE_SHIFT
	add eax, PHYS(boot_pd_low) + PTE_TABLE
	mov [PHYS(boot_pdpt_low) + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jb .pdpt
	xor ecx, ecx                    ; PD entry index 0..2047 over the four tables
.low:	mov eax, ecx
	shl eax, 21
	or eax, PTE_LARGE
	mov [PHYS(boot_pd_low) + ecx * 8], eax
	mov eax, ecx
	shr eax, 11                     ; bits 32+ of the address: entry / 2048
	mov [PHYS(boot_pd_low) + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 4 * 512
	jb .low
	xor ecx, ecx
	mov eax, KERNEL_BIOS_PHYS | PTE_LARGE
.high:	mov [PHYS(boot_pd_high) + ecx * 8], eax
	add eax, LARGE_PAGE_SIZE
	inc ecx
	mov edx, eax
	and edx, ~(LARGE_PAGE_SIZE - 1)
	cmp edx, PHYS(__kernel_end)
	jb .high
	ret

; Print the NUL-terminated line at ESI on UART_COM1 and the screen, then stop: through
; isa-debug-exit under a hypervisor (QEMU), else halt for good.
refuse:
	mov dx, UART_COM1 + UART_IER
	xor al, al
	out dx, al
	mov dx, UART_COM1 + UART_LCR
	mov al, UART_LCR_DLAB
	out dx, al
	mov dx, UART_COM1
	mov al, 1                       ; divisor 1: UART_BASE_BAUD
	out dx, al
	inc dx
	xor al, al
	out dx, al
	mov dx, UART_COM1 + UART_LCR
	mov al, UART_LCR_8N1
	out dx, al
	mov dx, UART_COM1 + UART_FCR
	mov al, 0xc7                    ; FIFOs on and cleared
	out dx, al
	mov dx, UART_COM1 + UART_MCR
	mov al, 0x03                    ; DTR, RTS
	out dx, al
	mov edi, VGA_TEXT
.char:	mov bl, [esi]
	test bl, bl
	jz .done
	mov ecx, 100000                 ; no UART: give up waiting, still print on screen
	mov dx, UART_COM1 + UART_LSR
.wait:	in al, dx
	test al, UART_LSR_THRE
	jnz .send
	loop .wait
.send:	mov dx, UART_COM1
	mov al, bl
	out dx, al
	cmp bl, 0x20
	jb .next
	mov [edi], bl
	mov byte [edi + 1], 0x0f        ; white on black
	add edi, 2
.next:	inc esi
	jmp .char
.done:	call has_cpuid                  ; then the hypervisor bit says whether QEMU listens
	jz .halt
	mov eax, 1
	cpuid
	test ecx, CPUID_1_ECX_HYPERVISOR
	jz .halt
	mov dx, QEMU_DEBUG_EXIT_PORT
	mov eax, QEMU_DEBUG_EXIT_BASE + EXIT_CODE_FATAL
	out dx, eax
.halt:	cli
	hlt
	jmp .halt

section .rodata
msg_no_lm:
	db 13, 10, "bareperf: this CPU has no 64-bit long mode (CPUID 80000001h:EDX bit 29 clear);"
	db " the x86-64 kernel cannot run on it. Stopped.", 13, 10, 0
msg_not_mb2:
	db 13, 10, "bareperf: not started by a Multiboot2 loader (EAX lacks 0x36d76289). Stopped."
	db 13, 10, 0

align 8
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff           ; SEL_KCODE: 64-bit code, DPL 0 (SDM Vol. 3A 3.4.5)
	dq 0x00cf92000000ffff           ; SEL_KDATA: flat data
boot_gdt_end:
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dd PHYS(boot_gdt)

section .bss nobits alloc noexec write align=4096
boot_pml4:      resb PAGE_SIZE
boot_pdpt_low:  resb PAGE_SIZE
boot_pdpt_high: resb PAGE_SIZE
boot_pd_low:    resb 4 * PAGE_SIZE
boot_pd_high:   resb PAGE_SIZE
boot_stack:     resb BOOT_STACK_SIZE
boot_stack_top:
mb2_info:       resd 1          ; EBX at entry: the boot or start information
boot_magic:     resd 1          ; EAX: MB2_LOADER_MAGIC or PVH_START_MAGIC
