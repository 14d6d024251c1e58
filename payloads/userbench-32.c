/*
 * The i686 wrapper around a user benchmark's code (payloads/userbench.h, the 32-bit
 * register contract in docs/bench.md): the payload convention of the i686 kernel
 * (arch/x86/32/entry.asm: EDI = arg, ESI = n; EBX, EBP and ESP kept). Machine code
 * written byte by byte; the encodings are those nasm gives for the instructions in the
 * comments (SDM Vol. 2). The code runs at two addresses (the user and the supervisor
 * alias), so nothing here is absolute: every jump is relative.
 *
 *   entry:  cmp esi, 1                        n = 1 or 2 picks a variant; both
 *           jne two                           paths run the same 3 instructions
 *           jmp variant0
 *   two:    jmp variant1
 *   variantK:
 *           push ebx, ebp; mov esi, edi; zero the other registers; cld
 *           init code
 *           mov ebp, loop                     (loop > 0)
 *           jmp top                           over the alignment padding (int3)
 *   top:    copies x code
 *           dec ebp; jnz top                  (loop > 0)
 *           cld; pop ebp, ebx; ret
 */
#include "payloads/userbench.h"
#include "payloads/userbench-emit.h"

const enum cfg_bench_mode userbench_mode = CFG_BENCH_32;

const char *userbench_skip(const struct cfg_bench *b)
{
	const struct cfg_bench_code *c = userbench_code(b);
	if (c->code_len)
		return 0;
	return c->skip[0] ? c->skip : "no 32-bit code in the configuration (bench.NAME.code32: "
				      "scripts/bareperf-asm writes it where nasm assembles the code "
				      "as 32-bit code, unless --bits 64)";
}

#define PROLOGUE_MAX 32
#define EPILOGUE_MAX 16
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

	PUT(e, 0x53, 0x55);                             /* push ebx; push ebp */
	PUT(e, 0x89, 0xfe);                             /* mov esi, edi */
	PUT(e, 0x31, 0xc0, 0x31, 0xdb, 0x31, 0xc9,      /* xor eax/ebx/ecx */
	    0x31, 0xd2, 0x31, 0xff, 0x31, 0xed);        /* xor edx/edi/ebp */
	PUT(e, 0xfc);                                   /* cld */
	lay->init[k] = (uint32_t)e->o;
	put(e, c->init, c->init_len);
	if (b->loop) {
		PUT(e, 0xbd);                           /* mov ebp, imm32 */
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
		PUT(e, 0x4d);                           /* dec ebp */
		PUT(e, 0x0f, 0x85);                     /* jnz rel32 */
		put32(e, (uint32_t)(top - (e->o + 4)));
	}
	PUT(e, 0xfc);                                   /* cld: the kernel's C expects DF = 0 */
	PUT(e, 0x5d, 0x5b);                             /* pop ebp; pop ebx */
	PUT(e, 0xc3);                                   /* ret */
}

int userbench_emit(const struct cfg_bench *b, uint8_t *out, size_t cap,
		   struct userbench_layout *lay)
{
	struct emit e = { out, 0, cap, 0 };
	size_t jmp[2];

	memset(lay, 0, sizeof(*lay));
	lay->copy_len = userbench_code(b)->code_len;
	lay->init_len = userbench_code(b)->init_len;
	lay->entry = 0;
	PUT(&e, 0x83, 0xfe, 0x01);                      /* cmp esi, 1 */
	PUT(&e, 0x0f, 0x85);                            /* jne rel32: to the second jmp */
	put32(&e, 5);
	PUT(&e, 0xe9);                                  /* jmp rel32: variant 0 */
	jmp[0] = e.o;
	put32(&e, 0);
	PUT(&e, 0xe9);                                  /* jmp rel32: variant 1 */
	jmp[1] = e.o;
	put32(&e, 0);
	while (e.o < ENTRY_LEN && !e.full)
		PUT(&e, 0xcc);
	for (unsigned k = 0; k < 2; k++) {
		patch32(&e, jmp[k], (uint32_t)(e.o - (jmp[k] + 4)));
		variant(&e, b, k, lay);
	}
	lay->size = (uint32_t)e.o;
	return e.full ? -1 : 0;
}
