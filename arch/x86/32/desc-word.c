/* The i686 half of arch/x86/desc.c: the 32-bit TSS, the #DF task, 8-byte IDT gates, CS
 * reloaded by a far jump. SDM Vol. 3A 7.2.1 (32-bit TSS), 6.11 (IDT gate descriptors),
 * 6.15 (interrupt 8). Protected mode has no IST: NMI and #MC use interrupt gates on the
 * current stack, #DF a task gate. */
#include <stddef.h>
#include "arch/x86/desc.h"
#include "arch/x86/desc-word.h"
#include "arch/x86/cpu.h"
#include "arch/x86/run.h"
#include "arch/x86/stacks.h"
#include "arch/x86/traps.h"
#include "lib/str.h"

/* i686 only: the #DF task's TSS. In the x86-64 GDT this slot holds the upper half of the
 * 16-byte TSS descriptor at SEL_TSS. */
#define SEL_TSS_DF    0x38

struct tss32 {
	uint16_t link, reserved0;
	uint32_t esp0;
	uint16_t ss0, reserved1;
	uint32_t esp1;
	uint16_t ss1, reserved2;
	uint32_t esp2;
	uint16_t ss2, reserved3;
	uint32_t cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint16_t es, r_es, cs, r_cs, ss, r_ss, ds, r_ds, fs, r_fs, gs, r_gs, ldt, r_ldt;
	uint16_t trap, iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss32) == 104, "32-bit TSS is 104 bytes");

struct idt_gate {
	uint16_t off_lo, sel;
	uint8_t zero, type_attr;
	uint16_t off_hi;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 8, "32-bit IDT gate is 8 bytes");

#define GATE_TASK      0x85         /* P, DPL 0, task gate (SDM Vol. 3A 7.2.5) */

/* One TSS and #DF task per logical processor; one IDT. */
static struct tss32 tss[STACK_CPUS] __attribute__((aligned(16)));
static struct tss32 df_tss[STACK_CPUS] __attribute__((aligned(16)));
static struct idt_gate idt[256] __attribute__((aligned(16)));

void tss_set_rsp0(uint64_t rsp0)
{
	tss[0].esp0 = (uint32_t)rsp0;
}

/* What the interrupted task of CPU cpu resumes with: the frame as run_handle_trap left it
 * (the run's recovery point, run_frame_resume in arch/x86/32/run-word.c). A task switch
 * loads ESP and SS too: the trap stack, free during a run at CPL 0 and abandoned with the rest
 * of a run at CPL 3; run_resume replaces it before it pushes anything. It loads CR3, which
 * no task switch saves (SDM Vol. 3A 7.2.1): the tables in use. */
static void df_resume_task(unsigned cpu, struct tss32 *t, const struct trap_frame *f)
{
	t->eip = f->eip;
	t->cs = (uint16_t)f->cs;
	t->eflags = f->eflags;
	t->eax = f->eax;
	t->edx = f->edx;
	t->ds = (uint16_t)f->ds;
	t->es = (uint16_t)f->es;
	t->fs = (uint16_t)f->fs;
	t->gs = (uint16_t)f->gs;
	t->ss = SEL_KDATA;
	t->esp = stack_top_cpu(cpu, STACK_TRAP);
	t->cr3 = (uint32_t)read_cr3();
}

/*
 * The #DF task (SDM Vol. 3A 6.15, interrupt 8): protected mode has no IST, so a double
 * fault from a stack overflow (a #PF on the guard page, whose delivery pushes onto the
 * same guard page) would fault a third time. The task gate switches to df_tss and its
 * own stack; the CPU saved what ran before in its `tss`. A payload's run that lost its
 * stack ends there as its fault: the saved state is pointed at the run's recovery point
 * and IRET (NT set: the task gate nested this task) switches back to it (7.3); the next
 * #DF resumes after that IRET. Anything else is fatal.
 */
static __attribute__((noreturn, used)) void df_task(void)
{
	for (;;) {
		/* Which CPU: the one whose #DF stack this is (each CPU's df_tss has its own). */
		int at = stack_cpu_of((uintptr_t)__builtin_frame_address(0));
		unsigned cpu = at < 0 ? 0 : (unsigned)at;
		struct tss32 *t = &tss[cpu];
		struct trap_frame f = {
			.edi = t->edi, .esi = t->esi, .ebp = t->ebp, .ebx = t->ebx, .edx = t->edx,
			.ecx = t->ecx, .eax = t->eax, .gs = t->gs, .fs = t->fs, .es = t->es,
			.ds = t->ds, .vector = VEC_DF, .error = 0, .eip = t->eip, .cs = t->cs,
			.eflags = t->eflags, .esp = t->esp, .ss = t->ss,
		};
		if (!run_handle_trap(&f, false))
			trap_fatal(&f, "double fault (through the #DF task gate)");
		df_resume_task(cpu, t, &f);
		__asm__ volatile("iret" ::: "memory");
	}
}

void desc_set_df_task_cr3(uintptr_t cr3)
{
	for (unsigned cpu = 0; cpu < STACK_CPUS; cpu++)
		df_tss[cpu].cr3 = (uint32_t)cr3;
}

/* CPU cpu's TSS and #DF task. The #DF task's CR3 is the tables in use now; the boot
 * CPU's paging_init updates it (desc_set_df_task_cr3) when it loads its own. A task
 * switch loads it. */
void desc_tss_init(unsigned cpu, uint64_t *g)
{
	struct tss32 *t = &tss[cpu], *df = &df_tss[cpu];

	memset(t, 0, sizeof(*t));
	t->esp0 = stack_top_cpu(cpu, STACK_TRAP);
	t->ss0 = SEL_KDATA;
	t->iomap_base = sizeof(*t);   /* no I/O bitmap: CPL 3 I/O always #GPs */
	g[SEL_TSS / 8] = desc_tss_low((uintptr_t)t, sizeof(*t) - 1);

	memset(df, 0, sizeof(*df));
	df->eip = (uintptr_t)df_task;
	df->esp = stack_top_cpu(cpu, STACK_DF);
	df->eflags = RFLAGS_RESERVED1;     /* IF clear */
	df->cs = SEL_KCODE;
	df->ss = df->ds = df->es = SEL_KDATA;
	df->cr3 = (uint32_t)read_cr3();
	df->iomap_base = sizeof(*df);
	g[SEL_TSS_DF / 8] = desc_tss_low((uintptr_t)df, sizeof(*df) - 1);
}

void desc_reload_cs(void)
{
	__asm__ volatile("ljmp %0, $1f\n1:" : : "i"(SEL_KCODE) : "memory");
}

void desc_set_gate(unsigned vec, uintptr_t handler, unsigned dpl)
{
	idt[vec] = (struct idt_gate){
		.off_lo = handler & 0xffff,
		.sel = SEL_KCODE,
		.type_attr = GATE_INTERRUPT | (dpl ? GATE_DPL3 : 0),
		.off_hi = handler >> 16,
	};
}

void desc_set_stack_gates(void)
{
	idt[VEC_DF] = (struct idt_gate){ .sel = SEL_TSS_DF, .type_attr = GATE_TASK };
}

void desc_load_idt(void)
{
	struct table_ptr ip = { sizeof(idt) - 1, (uintptr_t)idt };
	__asm__ volatile("lidt %0" : : "m"(ip));
}
