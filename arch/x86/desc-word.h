/* The word-size halves of arch/x86/desc.c (arch/x86/64/desc-word.c,
 * arch/x86/32/desc-word.c): the TSS and its descriptor, the IDT gate format, the stacks
 * the critical exceptions run on, and reloading CS. Only desc.c and its halves include
 * this. */
#ifndef ARCH_X86_DESC_WORD_H
#define ARCH_X86_DESC_WORD_H
#include <stdint.h>

/* Segment descriptor bits (SDM Vol. 3A Figure 3-8). */
#define SEG_ACCESSED  (1ull << 40)
#define SEG_RW        (1ull << 41)
#define SEG_CODE      (1ull << 43)
#define SEG_S         (1ull << 44)
#define SEG_DPL(d)    ((uint64_t)(d) << 45)
#define SEG_P         (1ull << 47)
#define SEG_L         (1ull << 53)
#define SEG_DB        (1ull << 54)
#define SEG_G         (1ull << 55)
#define SEG_LIMIT_MAX (0xffffull | (0xfull << 48))
#define SEG_TSS_AVAIL (0x9ull << 40)

/* Code segments run 64-bit code (L) in the x86-64 kernel, 32-bit code (D/B) in the i686
 * one (SDM Vol. 3A 5.2.1). */
#ifdef __x86_64__
#define SEG_CODE_MODE SEG_L
#else
#define SEG_CODE_MODE SEG_DB
#endif

/* IDT gate type byte (SDM Vol. 3A 6.11, 6.14.1): type 0xE is a 32-bit interrupt gate in
 * protected mode and a 64-bit one in long mode. */
#define GATE_INTERRUPT 0x8e         /* P, DPL 0, interrupt gate */
#define GATE_DPL3      0x60

#define GDT_ENTRIES 8

/* The operand of LGDT and LIDT: a 6-byte one on i686, 10 bytes on x86-64. */
struct table_ptr {
	uint16_t limit;
	uintptr_t base;
} __attribute__((packed));

extern const uintptr_t trap_entries[256];   /* entry.asm */

/* The low 8 bytes of an available TSS's descriptor (SDM Vol. 3A 7.2.2, 7.2.3). */
uint64_t desc_tss_low(uintptr_t base, uint32_t limit);

/* In each half: CPU cpu's TSS (and on i686 its #DF task), with their descriptors in gdt. */
void desc_tss_init(unsigned cpu, uint64_t *gdt);
/* Load CS from the GDT just loaded (a far return or jump: MOV cannot load CS). */
void desc_reload_cs(void);
/* An interrupt gate to handler, callable from CPL dpl (0 or 3). */
void desc_set_gate(unsigned vec, uintptr_t handler, unsigned dpl);
/* #DF (and on x86-64 NMI, #MC, #DB) on stacks of their own: IST or a task gate. */
void desc_set_stack_gates(void);
void desc_load_idt(void);

#endif
