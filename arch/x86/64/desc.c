/* GDT, TSS and IDT. SDM Vol. 3A 3.4.5, 7.7, 6.14. */
#include <stddef.h>
#include "arch/x86/desc.h"
#include "arch/x86/stacks.h"
#include "lib/str.h"

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

#define GATE_INTERRUPT 0x8e         /* P, DPL 0, 64-bit interrupt gate */
#define GATE_DPL3      0x60

struct table_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* One GDT and TSS per logical processor (a busy TSS cannot be shared); one IDT. */
static uint64_t gdt[STACK_CPUS][8] __attribute__((aligned(16)));
static struct tss64 tss[STACK_CPUS] __attribute__((aligned(16)));
static struct idt_gate idt[256] __attribute__((aligned(16)));
extern const uint64_t trap_entries[256];   /* entry.asm */
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

void tss_set_rsp0(uint64_t rsp0)
{
	tss[0].rsp[0] = rsp0;
}

static void set_gate(unsigned vec, uint64_t handler, unsigned ist, unsigned dpl)
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

/* Build CPU cpu's GDT and TSS (its own stacks) and load them with the shared IDT. */
void desc_init_cpu(unsigned cpu)
{
	const uint64_t code = SEG_P | SEG_S | SEG_CODE | SEG_RW | SEG_ACCESSED | SEG_L | SEG_G |
			      SEG_LIMIT_MAX;
	const uint64_t data = SEG_P | SEG_S | SEG_RW | SEG_ACCESSED | SEG_DB | SEG_G | SEG_LIMIT_MAX;
	uint64_t *g = gdt[cpu];
	struct tss64 *t = &tss[cpu];

	g[0] = 0;
	g[SEL_KCODE / 8] = code;
	g[SEL_KDATA / 8] = data;
	g[SEL_UCODE32 / 8] = (code & ~SEG_L) | SEG_DB | SEG_DPL(3);
	g[SEL_UDATA / 8] = data | SEG_DPL(3);
	g[SEL_UCODE / 8] = code | SEG_DPL(3);

	memset(t, 0, sizeof(*t));
	t->rsp[0] = stack_top_cpu(cpu, STACK_TRAP);
	t->ist[IST_DF - 1] = stack_top_cpu(cpu, STACK_DF);
	t->ist[IST_NMI - 1] = stack_top_cpu(cpu, STACK_NMI);
	t->ist[IST_MC - 1] = stack_top_cpu(cpu, STACK_MC);
	t->ist[IST_DB - 1] = stack_top_cpu(cpu, STACK_DB);
	t->iomap_base = sizeof(*t);   /* no I/O bitmap: CPL 3 I/O always #GPs */
	uint64_t base = (uint64_t)t, limit = sizeof(*t) - 1;
	g[SEL_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) | SEG_TSS_AVAIL | SEG_P |
			 (((base >> 24) & 0xff) << 56);
	g[SEL_TSS / 8 + 1] = base >> 32;

	struct table_ptr gp = { sizeof(gdt[0]) - 1, (uint64_t)g };
	__asm__ volatile(
		"lgdt %0\n\t"
		"mov %1, %%ds\n\t mov %1, %%es\n\t mov %1, %%ss\n\t"
		"xor %%eax, %%eax\n\t mov %%ax, %%fs\n\t mov %%ax, %%gs\n\t"
		"pushq %2\n\t leaq 1f(%%rip), %%rax\n\t pushq %%rax\n\t lretq\n"
		"1:\n\t"
		"ltr %w3\n\t"
		: : "m"(gp), "r"((uint64_t)SEL_KDATA), "i"(SEL_KCODE), "r"(SEL_TSS) : "rax", "memory");
	struct table_ptr ip = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(ip));
}

void desc_init(void)
{
	desc_init_cpu(0);
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, trap_entries[v], 0, 0);
	set_gate(VEC_DF, trap_entries[VEC_DF], IST_DF, 0);
	set_gate(VEC_NMI, trap_entries[VEC_NMI], IST_NMI, 0);
	set_gate(VEC_MC, trap_entries[VEC_MC], IST_MC, 0);
	set_gate(VEC_DB, trap_entries[VEC_DB], IST_DB, 0);
	set_gate(VEC_BP, (uint64_t)bp_entry, 0, 3);                  /* int3 from CPL 3 */
	set_gate(VEC_INT_ROUNDTRIP, (uint64_t)int80_fast, 0, 3);
	set_gate(VEC_USER_EXIT, (uint64_t)user_exit_entry, 0, 3);
	struct table_ptr ip = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(ip));
}
