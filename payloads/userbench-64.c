/*
 * The x86-64 wrapper around a user benchmark's code (payloads/userbench.h, register
 * contract in docs/bench.md). Machine code written byte by byte; the encodings are those
 * nasm gives for the instructions in the comments (SDM Vol. 2).
 *
 *   entry:  lea rax, [rip + table]           n = 1 or 2 picks a variant; both
 *           movsxd rcx, [rax + rsi*4 - 4]     paths run the same 4 instructions
 *           add rax, rcx
 *           jmp rax
 *   table:  dd variant0 - table, variant1 - table
 *   variantK:
 *           push rbx, rbp, r12-r15; mov r14, rdi; zero the other registers; cld
 *           init code
 *           mov r15d, loop                    (loop > 0)
 *           jmp top                           over the alignment padding (int3)
 *   top:    copies x code
 *           dec r15; jnz top                  (loop > 0)
 *           cld; pop r15-r12, rbp, rbx; ret
 */
#include "payloads/userbench.h"
#include "payloads/userbench-emit.h"

const enum cfg_bench_mode userbench_mode = CFG_BENCH_64;

const char *userbench_skip(const struct cfg_bench *b)
{
	const struct cfg_bench_code *c = userbench_code(b);
	if (c->code_len)
		return 0;
	return c->skip[0] ? c->skip : "no 64-bit code in the configuration (bench.NAME.code: "
				      "scripts/bareperf-asm writes it unless --bits 32)";
}

#define PROLOGUE_MAX 64
#define EPILOGUE_MAX 32
#define ENTRY_LEN    32

size_t userbench_size_max(const struct cfg_bench *b)
{
	const struct cfg_bench_code *c = userbench_code(b);
	size_t body = (size_t)c->code_len * b->unroll;
	return ENTRY_LEN + 2 * (PROLOGUE_MAX + c->init_len + b->align + EPILOGUE_MAX) + 3 * body;
}

static void variant(struct emit *e, const struct cfg_bench *b, unsigned k,
		    struct userbench_layout *lay)
{
	const struct cfg_bench_code *c = userbench_code(b);
	uint32_t copies = b->unroll << k;

	PUT(e, 0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57);  /* push rbx..r15 */
	PUT(e, 0x49, 0x89, 0xfe);                       /* mov r14, rdi */
	PUT(e, 0x31, 0xc0, 0x31, 0xdb, 0x31, 0xc9, 0x31, 0xd2,     /* xor eax/ebx/ecx/edx */
	    0x31, 0xf6, 0x31, 0xff, 0x31, 0xed,                    /* xor esi/edi/ebp */
	    0x45, 0x31, 0xc0, 0x45, 0x31, 0xc9, 0x45, 0x31, 0xd2,  /* xor r8d/r9d/r10d */
	    0x45, 0x31, 0xdb, 0x45, 0x31, 0xe4, 0x45, 0x31, 0xed,  /* xor r11d/r12d/r13d */
	    0x45, 0x31, 0xff);                                     /* xor r15d */
	PUT(e, 0xfc);                                   /* cld */
	lay->init[k] = (uint32_t)e->o;
	put(e, c->init, c->init_len);
	if (b->loop) {
		PUT(e, 0x41, 0xbf);                     /* mov r15d, imm32 */
		put32(e, b->loop);
	}
	PUT(e, 0xe9);                                   /* jmp rel32 */
	size_t jmp_at = e->o;
	put32(e, 0);
	size_t top = e->o;
	while ((top & (b->align - 1)) != (b->offset & (b->align - 1)))
		top++;
	while (e->o < top && !e->full)
		PUT(e, 0xcc);                           /* int3: never executed */
	patch32(e, jmp_at, (uint32_t)(top - (jmp_at + 4)));
	lay->top[k] = (uint32_t)top;
	lay->copies[k] = copies;
	for (uint32_t i = 0; i < copies && !e->full; i++)
		put(e, c->code, c->code_len);
	if (b->loop) {
		PUT(e, 0x49, 0xff, 0xcf);               /* dec r15 */
		PUT(e, 0x0f, 0x85);                     /* jnz rel32 */
		put32(e, (uint32_t)(top - (e->o + 4)));
	}
	PUT(e, 0xfc);                                   /* cld: the kernel's C expects DF = 0 */
	PUT(e, 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b); /* pop r15..rbx */
	PUT(e, 0xc3);                                   /* ret */
}

int userbench_emit(const struct cfg_bench *b, uint8_t *out, size_t cap,
		   struct userbench_layout *lay)
{
	struct emit e = { out, 0, cap, 0 };

	memset(lay, 0, sizeof(*lay));
	lay->copy_len = userbench_code(b)->code_len;
	lay->init_len = userbench_code(b)->init_len;
	lay->entry = 0;
	PUT(&e, 0x48, 0x8d, 0x05);                      /* lea rax, [rip + table] */
	put32(&e, 17 - 7);
	PUT(&e, 0x48, 0x63, 0x4c, 0xb0, 0xfc);          /* movsxd rcx, [rax + rsi*4 - 4] */
	PUT(&e, 0x48, 0x01, 0xc8);                      /* add rax, rcx */
	PUT(&e, 0xff, 0xe0);                            /* jmp rax */
	size_t table = e.o;                             /* 17 */
	put32(&e, 0);
	put32(&e, 0);
	while (e.o < ENTRY_LEN && !e.full)
		PUT(&e, 0xcc);
	for (unsigned k = 0; k < 2; k++) {
		patch32(&e, table + 4 * k, (uint32_t)(e.o - table));
		variant(&e, b, k, lay);
	}
	lay->size = (uint32_t)e.o;
	return e.full ? -1 : 0;
}
