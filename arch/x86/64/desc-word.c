/* The x86-64 half of arch/x86/desc.c: the 64-bit TSS with its IST stacks, 16-byte IDT
 * gates, CS reloaded by a far return. SDM Vol. 3A 7.7 (64-bit TSS), 6.14.1 (64-bit IDT
 * gates), 6.14.5 (IST). */
#include <stddef.h>
#include "arch/x86/desc.h"
#include "arch/x86/desc-word.h"
#include "arch/x86/stacks.h"
#include "lib/str.h"

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "64-bit TSS is 104 bytes");

struct idt_gate {
	uint16_t off_lo, sel;
	uint8_t ist, type_attr;
	uint16_t off_mid;
	uint32_t off_hi, zero;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate is 16 bytes");

static struct tss64 tss[STACK_CPUS] __attribute__((aligned(16)));
static struct idt_gate idt[256] __attribute__((aligned(16)));

void tss_set_rsp0(uint64_t rsp0)
{
	tss[0].rsp[0] = rsp0;
}

/* The 64-bit TSS descriptor is 16 bytes: the upper 8 hold base bits 63:32. */
void desc_tss_init(unsigned cpu, uint64_t *g)
{
	struct tss64 *t = &tss[cpu];
	memset(t, 0, sizeof(*t));
	t->rsp[0] = stack_top_cpu(cpu, STACK_TRAP);
	t->ist[IST_DF - 1] = stack_top_cpu(cpu, STACK_DF);
	t->ist[IST_NMI - 1] = stack_top_cpu(cpu, STACK_NMI);
	t->ist[IST_MC - 1] = stack_top_cpu(cpu, STACK_MC);
	t->ist[IST_DB - 1] = stack_top_cpu(cpu, STACK_DB);
	t->iomap_base = sizeof(*t);   /* no I/O bitmap: CPL 3 I/O always #GPs */
	g[SEL_TSS / 8] = desc_tss_low((uintptr_t)t, sizeof(*t) - 1);
	g[SEL_TSS / 8 + 1] = (uintptr_t)t >> 32;
}

void desc_reload_cs(void)
{
	__asm__ volatile("pushq %0\n\t leaq 1f(%%rip), %%rax\n\t pushq %%rax\n\t lretq\n1:"
			 : : "i"(SEL_KCODE) : "rax", "memory");
}

static void set_gate(unsigned vec, uintptr_t handler, unsigned ist, unsigned dpl)
{
	idt[vec] = (struct idt_gate){
		.off_lo = handler & 0xffff,
		.sel = SEL_KCODE,
		.ist = ist,
		.type_attr = GATE_INTERRUPT | (dpl ? GATE_DPL3 : 0),
		.off_mid = (handler >> 16) & 0xffff,
		.off_hi = handler >> 32,
	};
}

void desc_set_gate(unsigned vec, uintptr_t handler, unsigned dpl)
{
	set_gate(vec, handler, 0, dpl);
}

void desc_set_stack_gates(void)
{
	set_gate(VEC_DF, trap_entries[VEC_DF], IST_DF, 0);
	set_gate(VEC_NMI, trap_entries[VEC_NMI], IST_NMI, 0);
	set_gate(VEC_MC, trap_entries[VEC_MC], IST_MC, 0);
	set_gate(VEC_DB, trap_entries[VEC_DB], IST_DB, 0);
}

void desc_load_idt(void)
{
	struct table_ptr ip = { sizeof(idt) - 1, (uintptr_t)idt };
	__asm__ volatile("lidt %0" : : "m"(ip));
}
