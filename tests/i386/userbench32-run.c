/* The i686 wrapper of a user benchmark (payloads/userbench-32.c) run natively as 32-bit
 * code: an i386 program, linked -m32 -static and run under qemu-i386 by
 * tests/unit/test_bench32.c (this machine's kernel need not run i386 programs). It calls
 * the generated code as the i686 harness does (arch/x86/32/entry.asm's payload convention:
 * EDI = arg, ESI = n; EBX, EBP and ESP kept) and checks what one call does: n = 1 runs
 * unroll x max(loop, 1) copies, n = 2 twice that; the registers the code starts with; and
 * what the wrapper keeps. Prints "ok NAME" or "FAIL NAME: ..." per check; exit status 1 on
 * any failure. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "lib/config.h"
#include "payloads/userbench.h"

static unsigned fails;

static void check(int ok, const char *name, const char *fmt, unsigned long a, unsigned long b)
{
	if (ok) {
		printf("ok   %s\n", name);
		return;
	}
	fails++;
	printf("FAIL %s: ", name);
	printf(fmt, a, b);
	printf("\n");
}

/* One call of fn(arg, n) with EBX and EBP set to known values: what they hold after. */
struct kept { uint32_t ebx, ebp, eflags; };

static struct kept call(const uint8_t *fn, void *arg, uint32_t n)
{
	struct kept k;
	uint32_t d = (uint32_t)(uintptr_t)arg, s = n;
	__asm__ volatile("push %%ebx\n\tpush %%ebp\n\t"
			 "mov $0x1234, %%ebx\n\tmov $0x5678, %%ebp\n\t"
			 "call *%%eax\n\t"
			 "mov %%ebx, %%ecx\n\tmov %%ebp, %%edx\n\t"
			 "pop %%ebp\n\tpop %%ebx\n\t"
			 "pushf\n\tpop %%eax"
			 : "=c"(k.ebx), "=d"(k.ebp), "=a"(k.eflags), "+D"(d), "+S"(s)
			 : "a"(fn) : "memory", "cc");
	return k;
}

static uint8_t *emit(const struct cfg_bench *b, struct userbench_layout *lay, size_t *len)
{
	*len = (userbench_size_max(b) + 4095) & ~(size_t)4095;
	uint8_t *code = mmap(0, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED || userbench_emit(b, code, *len, lay) || lay->size > userbench_size_max(b) ||
	    mprotect(code, *len, PROT_READ | PROT_EXEC)) {
		printf("FAIL emit: cannot generate or map the code\n");
		fails++;
		return 0;
	}
	return code;
}

/* add dword [esi], 1 counts copies; the init code stores 7 beside the count. The 64-bit
 * code of the benchmark (int3) is never the one that runs. */
static void counts(void)
{
	static const struct { uint32_t unroll, loop, align, offset; } shapes[] = {
		{ 100, 10, 64, 0 }, { 1, 0, 1, 0 }, { 7, 0, 4096, 5 }, { 3, 1, 16, 15 }, { 250, 3, 32, 1 },
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct cfg_bench b = { .unroll = shapes[i].unroll, .loop = shapes[i].loop,
				       .align = shapes[i].align, .offset = shapes[i].offset };
		struct cfg_bench_code *c = &b.mode[CFG_BENCH_32];
		memcpy(c->code, "\x83\x06\x01", 3);                     /* add dword [esi], 1 */
		c->code_len = 3;
		memcpy(c->init, "\xc7\x46\x04\x07\x00\x00\x00", 7);     /* mov dword [esi+4], 7 */
		c->init_len = 7;
		b.mode[CFG_BENCH_64].code[0] = 0xcc;
		b.mode[CFG_BENCH_64].code_len = 1;
		struct userbench_layout lay;
		size_t len;
		uint8_t *code = emit(&b, &lay, &len);
		if (!code)
			return;
		uint32_t copies = b.unroll * (b.loop ? b.loop : 1);
		for (unsigned k = 0; k < 2; k++) {
			uint32_t buf[2] = { 0, 0 };
			char name[96];
			struct kept kept = call(code + lay.entry, buf, k + 1);
			snprintf(name, sizeof(name), "unroll %u loop %u align %u offset %u, n = %u: copies",
				 b.unroll, b.loop, b.align, b.offset, k + 1);
			check(buf[0] == copies << k, name, "%lu, expected %lu", buf[0], copies << k);
			snprintf(name, sizeof(name), "unroll %u loop %u, n = %u: init ran once", b.unroll, b.loop, k + 1);
			check(buf[1] == 7, name, "%lu, expected %lu", buf[1], 7);
			snprintf(name, sizeof(name), "unroll %u, n = %u: EBX and EBP kept", b.unroll, k + 1);
			check(kept.ebx == 0x1234 && kept.ebp == 0x5678, name, "EBX %lx, EBP %lx", kept.ebx, kept.ebp);
			snprintf(name, sizeof(name), "align %u offset %u: first copy placed", b.align, b.offset);
			check(lay.top[k] % b.align == b.offset % b.align && lay.copies[k] == b.unroll << k, name,
			      "top %lu, copies %lu", lay.top[k], lay.copies[k]);
		}
		munmap(code, len);
	}
}

/* The code sees ESI = buffer, every other general register 0 (EBP too: the loop counter is
 * set after the init code) and DF = 0; it clobbers EBX and EBP and sets DF, which the
 * wrapper restores and clears. */
static void contract(void)
{
	static const uint8_t code[] = {
		0x8b, 0x06,                                 /* mov eax, [esi] */
		0x09, 0xd8, 0x09, 0xc8, 0x09, 0xd0,         /* or eax, ebx; or eax, ecx; or eax, edx */
		0x09, 0xf8, 0x09, 0xe8,                     /* or eax, edi; or eax, ebp */
		0x9c, 0x5b, 0x09, 0xd8,                     /* pushfd; pop ebx; or eax, ebx (DF: bit 10) */
		0x89, 0x06,                                 /* mov [esi], eax */
		0xbb, 0xff, 0xff, 0xff, 0xff,               /* mov ebx, -1 */
		0xbd, 0xff, 0xff, 0xff, 0xff,               /* mov ebp, -1 */
		0xfd,                                       /* std */
	};
	for (uint32_t loop = 0; loop <= 1; loop++) {
		struct cfg_bench b = { .unroll = 1, .loop = loop, .align = 1 };
		memcpy(b.mode[CFG_BENCH_32].code, code, sizeof(code));
		b.mode[CFG_BENCH_32].code_len = sizeof(code);
		if (loop) {     /* with a loop the code may not write EBP: drop mov ebp, -1 */
			memmove(b.mode[CFG_BENCH_32].code + 23, b.mode[CFG_BENCH_32].code + 28, 1);
			b.mode[CFG_BENCH_32].code_len = 24;
		}
		struct userbench_layout lay;
		size_t len;
		uint8_t *p = emit(&b, &lay, &len);
		if (!p)
			return;
		uint32_t buf[1] = { 0 };
		struct kept kept = call(p + lay.entry, buf, 1);
		check((buf[0] & (1u << 10)) == 0, loop ? "loop 1: DF clear on entry" : "DF clear on entry",
		      "EFLAGS or registers %lx%.0lu", buf[0], 0);
		check((buf[0] & ~0x3fffffu) == 0, loop ? "loop 1: registers 0 on entry" : "registers 0 on entry",
		      "or of the registers and EFLAGS %lx%.0lu", buf[0], 0);
		check(kept.ebx == 0x1234 && kept.ebp == 0x5678, "EBX and EBP restored after the code clobbered them",
		      "EBX %lx, EBP %lx", kept.ebx, kept.ebp);
		check((kept.eflags & (1u << 10)) == 0, "DF clear after the code set it", "EFLAGS %lx%.0lu",
		      kept.eflags, 0);
		munmap(p, len);
	}
}

int main(void)
{
	if (userbench_mode != CFG_BENCH_32) {
		printf("FAIL mode: userbench_mode is %d\n", (int)userbench_mode);
		return 1;
	}
	counts();
	contract();
	printf("userbench32-run: %u failed\n", fails);
	return fails ? 1 : 0;
}
