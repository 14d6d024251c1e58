/* GDT and IDT for both word sizes: the flat segments, a gate for every vector, the names
 * of the vectors. SDM Vol. 3A 3.4.5 (segment descriptors), 6.10-6.11 (IDT). The halves
 * (the TSS, the gate format, IST or the #DF task, reloading CS) are arch/x86/64/desc-word.c
 * and arch/x86/32/desc-word.c. */
#include "arch/x86/desc.h"
#include "arch/x86/desc-word.h"
#include "arch/x86/stacks.h"

/* One GDT per logical processor (a busy TSS cannot be shared); one IDT, in the half. */
static uint64_t gdt[STACK_CPUS][GDT_ENTRIES] __attribute__((aligned(16)));
extern char int80_fast[], bp_entry[], user_exit_entry[];

static const char *const vec_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO", "#TS", "#NP",
	"#SS", "#GP", "#PF", "RES", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

const char *vector_name(unsigned vec)
{
	if (vec < 32 && vec_names[vec])
		return vec_names[vec];
	if (vec == VEC_APIC_TIMER)
		return "TIMER";
	return vec < 32 ? "RES" : "IRQ";
}

uint64_t desc_tss_low(uintptr_t base, uint32_t limit)
{
	uint64_t b = base;
	return (limit & 0xffff) | ((b & 0xffffff) << 16) | SEG_TSS_AVAIL | SEG_P |
	       (((b >> 24) & 0xff) << 56);
}

unsigned desc_this_cpu(void)
{
	struct table_ptr gp;
	__asm__ volatile("sgdt %0" : "=m"(gp));
	return (unsigned)((gp.base - (uintptr_t)gdt) / sizeof(gdt[0]));
}

/*
 * The same selectors in both kernels (arch/x86/abi.h), all flat 4 GiB segments.
 * SEL_UCODE32 exists for SYSRET's selector arithmetic on x86-64 (a 32-bit user code
 * segment below SEL_UDATA); on i686 it is the same descriptor as SEL_UCODE. Each CPU
 * loads its own GDT (with its TSS) and the shared IDT.
 */
void desc_init_cpu(unsigned cpu)
{
	const uint64_t code = SEG_P | SEG_S | SEG_CODE | SEG_RW | SEG_ACCESSED | SEG_CODE_MODE |
			      SEG_G | SEG_LIMIT_MAX;
	const uint64_t data = SEG_P | SEG_S | SEG_RW | SEG_ACCESSED | SEG_DB | SEG_G | SEG_LIMIT_MAX;
	uint64_t *g = gdt[cpu];

	g[0] = 0;
	g[SEL_KCODE / 8] = code;
	g[SEL_KDATA / 8] = data;
	g[SEL_UCODE32 / 8] = (code & ~SEG_L) | SEG_DB | SEG_DPL(3);
	g[SEL_UDATA / 8] = data | SEG_DPL(3);
	g[SEL_UCODE / 8] = code | SEG_DPL(3);
	desc_tss_init(cpu, g);

	struct table_ptr gp = { sizeof(gdt[0]) - 1, (uintptr_t)g };
	__asm__ volatile(
		"lgdt %0\n\t"
		"mov %1, %%ds\n\t mov %1, %%es\n\t mov %1, %%ss\n\t"
		"xor %%eax, %%eax\n\t mov %%ax, %%fs\n\t mov %%ax, %%gs"
		: : "m"(gp), "r"((uintptr_t)SEL_KDATA) : "eax", "memory");
	desc_reload_cs();
	__asm__ volatile("ltr %w0" : : "r"(SEL_TSS) : "memory");
	desc_load_idt();
}

void desc_init(void)
{
	desc_init_cpu(0);
	for (unsigned v = 0; v < 256; v++)
		desc_set_gate(v, trap_entries[v], 0);
	desc_set_stack_gates();
	desc_set_gate(VEC_BP, (uintptr_t)bp_entry, 3);                  /* int3 from CPL 3 */
	desc_set_gate(VEC_INT_ROUNDTRIP, (uintptr_t)int80_fast, 3);
	desc_set_gate(VEC_USER_EXIT, (uintptr_t)user_exit_entry, 3);
	desc_load_idt();
}
