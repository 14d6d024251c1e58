/* User benchmarks' bench.NAME.KEY=VALUE entries (lib/bench-config.c, docs/bench.md): parsed
 * into a bp_config's cfg_bench slots by lib/config.c's parser, which calls in here; this
 * side calls nothing of config.c. */
#ifndef LIB_BENCH_CONFIG_H
#define LIB_BENCH_CONFIG_H
#include <stddef.h>
#include "lib/config.h"

/* bench.NAME.KEY=VALUE (lib/bench-config.c): key is the text after "bench.", vlen 0 for a
 * key without a value. 0, or -1 with the reason in why; a refused key of a well-named
 * benchmark marks it refused (created so, if it was not there yet). */
int bench_config_entry(struct bp_config *cfg, const char *key, size_t klen, const char *v,
		       size_t vlen, char *why, size_t whylen);
/* The refused keys of b for a message ("its init and unroll", "an unknown key") into buf;
 * returns how many. */
unsigned bench_refused_parts(const struct cfg_bench *b, char *buf, size_t len);
/* The benchmark's keys as "cfg.bench.NAME.KEY=VALUE" lines. */
void bench_config_report(const struct cfg_bench *b, void (*emit)(void *ctx, const char *line),
			 void *ctx);

#endif
