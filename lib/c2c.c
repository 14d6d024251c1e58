/* Cross-core measurement halves, their statistics and their printing (lib/c2c.h). */
#include "lib/c2c.h"
#include "lib/format.h"
#include "lib/json-out.h"
#include "lib/str.h"
#include "lib/u128.h"

const char *c2c_status_text(enum c2c_status s)
{
	static const char *const text[] = {
		[C2C_OK] = "ok",
		[C2C_NO_PARTNER] = "the other CPU never started its half",
		[C2C_LOST_PARTNER] = "the other CPU stopped answering part way",
		[C2C_ABORTED] = "the other CPU gave up first",
		[C2C_BAD_DATA] = "the shared memory did not hold what was written",
	};
	return (unsigned)s < sizeof(text) / sizeof(text[0]) ? text[s] : "unknown status";
}

enum wait_result { WAIT_OK, WAIT_ABORTED, WAIT_SPUN_OUT };

/* Spins until *w holds want; stops early when it holds C2C_ABORT or after limit loads.
 * No PAUSE: it would add its own latency (over 100 cycles on recent cores) to every
 * transfer the loop measures. */
static enum wait_result wait_for(const uint32_t *w, uint32_t want, uint64_t limit)
{
	uint64_t spins = 0;
	uint32_t v;

	while ((v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) != want) {
		if (v == C2C_ABORT)
			return WAIT_ABORTED;
		if (++spins >= limit)
			return WAIT_SPUN_OUT;
	}
	return WAIT_OK;
}

static void raise_flag(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

/* A failed wait as a status: spun out before the partner did anything, or after. */
static enum c2c_status wait_status(enum wait_result w, bool partner_seen)
{
	if (w == WAIT_ABORTED)
		return C2C_ABORTED;
	return partner_seen ? C2C_LOST_PARTNER : C2C_NO_PARTNER;
}

/* ------------------------------------------------------------ c2c_latency */

int c2c_pingpong_init(struct c2c_pingpong *p, c2c_clock_fn clock, uint64_t spin_limit,
		      uint32_t rounds, uint32_t warmup, uint32_t samples, int64_t *ticks,
		      char *why, size_t whylen)
{
	uint64_t total = ((uint64_t)warmup + samples) * rounds;

	memset(p, 0, sizeof(*p));
	if (rounds == 0 || samples == 0 || total > C2C_ROUND_TRIPS_MAX) {
		bp_snprintf(why, whylen, "%u samples (%u of them warm-up) of %u round trips: "
			    "between 1 and %u round trips in all can be run", warmup + samples,
			    warmup, rounds, C2C_ROUND_TRIPS_MAX);
		return -1;
	}
	p->clock = clock;
	p->spin_limit = spin_limit;
	p->rounds = rounds;
	p->warmup = warmup;
	p->samples = samples;
	p->ticks = ticks;
	return 0;
}

void c2c_ping(void *arg)
{
	struct c2c_pingpong *p = arg;
	uint32_t *seq = &p->line.word;
	const uint64_t limit = p->spin_limit;
	const uint32_t rounds = p->rounds;
	enum wait_result w;
	uint32_t v = 1;         /* the value the line holds once pong is here */

	/* Settings in locals: the loops touch no memory but the line and the clock. */
	w = wait_for(seq, v, limit);
	if (w != WAIT_OK) {
		p->stuck_at = v;
		p->ping_status = wait_status(w, false);
		raise_flag(seq, C2C_ABORT);
		return;
	}
	for (uint32_t s = 0; s < p->warmup + p->samples; s++) {
		uint64_t t0 = p->clock();
		for (uint32_t r = 0; r < rounds; r++, v += 2) {
			raise_flag(seq, v + 1);
			w = wait_for(seq, v + 2, limit);
			if (w != WAIT_OK) {
				p->stuck_at = v + 2;
				p->ping_status = wait_status(w, true);
				raise_flag(seq, C2C_ABORT);
				return;
			}
		}
		uint64_t t1 = p->clock();
		if (s >= p->warmup)
			p->ticks[s - p->warmup] = (int64_t)(t1 - t0);
	}
	p->ping_status = C2C_OK;
}

void c2c_pong(void *arg)
{
	struct c2c_pingpong *p = arg;
	uint32_t *seq = &p->line.word;
	const uint64_t limit = p->spin_limit;
	const uint32_t total = (p->warmup + p->samples) * p->rounds;
	uint32_t expect = 0, k = 0;
	enum c2c_status st = C2C_OK;

	/* 0 -> 1, unless ping has given up already (the line holds C2C_ABORT). */
	if (!__atomic_compare_exchange_n(seq, &expect, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		st = C2C_ABORTED;
		goto out;
	}
	for (; k < total; k++) {
		enum wait_result w = wait_for(seq, 2 * k + 2, limit);
		if (w != WAIT_OK) {
			st = wait_status(w, k > 0);
			if (w == WAIT_SPUN_OUT)
				raise_flag(seq, C2C_ABORT);
			break;
		}
		raise_flag(seq, 2 * k + 3);
	}
out:
	p->answered = k;
	p->pong_status = st;
}

void c2c_pingpong_abort(void *arg)
{
	struct c2c_pingpong *p = arg;
	raise_flag(&p->line.word, C2C_ABORT);
}

void c2c_latency_result(const struct c2c_pingpong *p, unsigned trim_pct, unsigned ping_cpu,
			unsigned pong_cpu, struct c2c_latency *out)
{
	memset(out, 0, sizeof(*out));
	out->ping_cpu = ping_cpu;
	out->pong_cpu = pong_cpu;
	out->rounds = p->rounds;
	stats_compute(p->ticks, p->samples, trim_pct, &out->st);
	int64_t r = p->rounds ? p->rounds : 1;
	out->round_trip_median_milli = out->st.median_milli / r;
	out->round_trip_min_milli = out->st.min * 1000 / r;
	out->one_way_median_milli = out->st.median_milli / (2 * r);
	out->one_way_min_milli = out->st.min * 1000 / (2 * r);
}

/* ------------------------------------------------------------ false_sharing */

void c2c_counters_init(struct c2c_counters *c, c2c_clock_fn clock, uint64_t spin_limit,
		       uint32_t increments, bool padded)
{
	memset(c, 0, sizeof(*c));
	c->clock = clock;
	c->spin_limit = spin_limit;
	c->increments = increments;
	c->padded = padded;
}

/* Together: the two counters are neighbouring words of one line. */
static uint32_t *counter_of(struct c2c_counters *c, unsigned side)
{
	return c->padded ? &c->data[side].word[0] : &c->data[0].word[side];
}

static void count_side(struct c2c_counters *c, unsigned side)
{
	uint32_t *mine = counter_of(c, side);
	const uint32_t n = c->increments;
	enum wait_result w;

	raise_flag(&c->gate[side].word, 1);
	w = wait_for(&c->gate[!side].word, 1, c->spin_limit);
	if (w != WAIT_OK) {
		if (w == WAIT_SPUN_OUT)
			raise_flag(&c->gate[side].word, C2C_ABORT);
		c->status[side] = wait_status(w, false);
		return;
	}
	uint64_t t0 = c->clock();
	for (uint32_t i = 0; i < n; i++)
		__atomic_fetch_add(mine, 1, __ATOMIC_RELAXED);
	uint64_t t1 = c->clock();
	c->ticks[side] = t1 - t0;
	c->status[side] = __atomic_load_n(mine, __ATOMIC_RELAXED) == n ? C2C_OK : C2C_BAD_DATA;
}

void c2c_count_first(void *counters)
{
	count_side(counters, 0);
}

void c2c_count_second(void *counters)
{
	count_side(counters, 1);
}

void c2c_counters_abort(void *arg)
{
	struct c2c_counters *c = arg;
	raise_flag(&c->gate[0].word, C2C_ABORT);
	raise_flag(&c->gate[1].word, C2C_ABORT);
}

void c2c_false_sharing_result(int64_t *const shared[2], int64_t *const padded[2], unsigned reps,
			      uint32_t increments, const unsigned cpu[2],
			      struct c2c_false_sharing *out)
{
	int64_t n = increments ? increments : 1;
	int64_t shared_sum = 0, padded_sum = 0;

	memset(out, 0, sizeof(*out));
	out->increments = increments;
	out->reps = reps;
	for (unsigned side = 0; side < 2; side++) {
		struct stats st;
		out->cpu[side] = cpu[side];
		stats_compute(shared[side], reps, 0, &st);
		out->shared_milli[side] = st.median_milli / n;
		shared_sum += st.median_milli;
		stats_compute(padded[side], reps, 0, &st);
		out->padded_milli[side] = st.median_milli / n;
		padded_sum += st.median_milli;
	}
	out->ratio_milli = padded_sum > 0 ? shared_sum * 1000 / padded_sum : 0;
}

/* ------------------------------------------------------------ shared_bw */

void c2c_stream_init(struct c2c_stream *s, c2c_clock_fn clock, uint64_t spin_limit,
		     uintptr_t *buf, size_t bytes, uint32_t warmup, uint32_t samples,
		     int64_t *write_ticks, int64_t *read_ticks)
{
	memset(s, 0, sizeof(*s));
	s->clock = clock;
	s->spin_limit = spin_limit;
	s->buf = buf;
	s->words = bytes / sizeof(uintptr_t);
	s->warmup = warmup;
	s->samples = samples;
	s->write_ticks = write_ticks;
	s->read_ticks = read_ticks;
}

void c2c_stream_write(void *arg)
{
	struct c2c_stream *s = arg;
	volatile uintptr_t *buf = s->buf;
	uint32_t total = s->warmup + s->samples;
	enum c2c_status st = C2C_OK;

	for (uint32_t g = 1; g <= total + 1; g++) {
		/* The reader is done with the last generation before this one overwrites it. */
		if (g > 1) {
			enum wait_result w = wait_for(&s->to_writer.word, g - 1, s->spin_limit);
			if (w != WAIT_OK) {
				st = wait_status(w, g > 2);
				if (w == WAIT_SPUN_OUT)
					raise_flag(&s->to_reader.word, C2C_ABORT);
				break;
			}
		}
		if (g > total)
			break;
		uint64_t t0 = s->clock();
		for (size_t i = 0; i < s->words; i++)
			buf[i] = g;
		uint64_t t1 = s->clock();
		if (g > s->warmup)
			s->write_ticks[g - 1 - s->warmup] = (int64_t)(t1 - t0);
		raise_flag(&s->to_reader.word, g);
	}
	s->writer_status = st;
}

void c2c_stream_abort(void *arg)
{
	struct c2c_stream *s = arg;
	raise_flag(&s->to_reader.word, C2C_ABORT);
	raise_flag(&s->to_writer.word, C2C_ABORT);
}

void c2c_stream_read(void *arg)
{
	struct c2c_stream *s = arg;
	const volatile uintptr_t *buf = s->buf;
	uint32_t total = s->warmup + s->samples;
	enum c2c_status st = C2C_OK;
	uint64_t bad = 0;

	for (uint32_t g = 1; g <= total; g++) {
		enum wait_result w = wait_for(&s->to_reader.word, g, s->spin_limit);
		if (w != WAIT_OK) {
			st = wait_status(w, g > 1);
			if (w == WAIT_SPUN_OUT)
				raise_flag(&s->to_writer.word, C2C_ABORT);
			break;
		}
		uint64_t t0 = s->clock();
		for (size_t i = 0; i < s->words; i++)
			bad += buf[i] != g;
		uint64_t t1 = s->clock();
		if (g > s->warmup)
			s->read_ticks[g - 1 - s->warmup] = (int64_t)(t1 - t0);
		raise_flag(&s->to_writer.word, g);
	}
	s->bad_words = bad;
	s->reader_status = st == C2C_OK && bad ? C2C_BAD_DATA : st;
}

/* Bytes per tick x1000 from a median in ticks x1000. */
static int64_t per_tick_milli(uint64_t bytes, int64_t median_milli)
{
	return median_milli > 0 ? (int64_t)(bytes * 1000000 / (uint64_t)median_milli) : 0;
}

void c2c_bandwidth_result(const struct c2c_stream *s, unsigned writer_cpu, unsigned reader_cpu,
			  struct c2c_bandwidth *out)
{
	struct stats st;
	uint64_t bytes = (uint64_t)s->words * sizeof(uintptr_t);

	memset(out, 0, sizeof(*out));
	out->writer_cpu = writer_cpu;
	out->reader_cpu = reader_cpu;
	out->bytes = bytes;
	out->reps = s->samples;
	stats_compute(s->write_ticks, s->samples, 0, &st);
	out->write_milli = per_tick_milli(bytes, st.median_milli);
	stats_compute(s->read_ticks, s->samples, 0, &st);
	out->read_milli = per_tick_milli(bytes, st.median_milli);
}

/* ------------------------------------------------------------ printing */

/* v * mul / div for v >= 0, without overflow in between; 0 when div is 0. */
static int64_t scale(int64_t v, uint64_t mul, uint64_t div)
{
	if (div == 0 || v < 0)
		return 0;
	struct u128 q = u128_divmod64(u128_mul64((uint64_t)v, mul), div, 0);
	return q.hi || q.lo > INT64_MAX ? INT64_MAX : (int64_t)q.lo;
}

int64_t c2c_ticks_to_ns_milli(int64_t ticks_milli, uint64_t tsc_hz)
{
	return scale(ticks_milli, 1000000000ull, tsc_hz);
}

int64_t c2c_gbps_milli(int64_t bytes_per_tick_milli, uint64_t tsc_hz)
{
	return scale(bytes_per_tick_milli, tsc_hz, 1000000000ull);
}

/* ,"name":value with value in thousandths. */
static void put_named_milli(struct json_out *j, const char *name, int64_t milli)
{
	json_put(j, ",\"%s\":", name);
	json_put_milli(j, milli);
}

int c2c_latency_json(const struct c2c_latency *l, uint64_t tsc_hz, char *buf, size_t len)
{
	struct json_out j = json_out_start(buf, len);

	json_put(&j, "{\"test\":\"c2c_latency\",\"ping_cpu\":%u,\"pong_cpu\":%u,\"rounds\":%u,"
	    "\"reps\":%u,\"trimmed\":%u,\"unit\":\"ticks\"", l->ping_cpu, l->pong_cpu, l->rounds,
	    l->st.n + l->st.trimmed, l->st.trimmed);
	put_named_milli(&j, "one_way_median", l->one_way_median_milli);
	put_named_milli(&j, "one_way_min", l->one_way_min_milli);
	put_named_milli(&j, "round_trip_median", l->round_trip_median_milli);
	put_named_milli(&j, "round_trip_min", l->round_trip_min_milli);
	if (tsc_hz) {
		put_named_milli(&j, "one_way_median_ns", c2c_ticks_to_ns_milli(l->one_way_median_milli, tsc_hz));
		put_named_milli(&j, "one_way_min_ns", c2c_ticks_to_ns_milli(l->one_way_min_milli, tsc_hz));
	}
	json_put(&j, "}");
	return json_out_end(&j);
}

int c2c_false_sharing_json(const struct c2c_false_sharing *f, char *buf, size_t len)
{
	struct json_out j = json_out_start(buf, len);
	char a[32], b[32];

	json_put(&j, "{\"test\":\"false_sharing\",\"cpus\":[%u,%u],\"increments\":%u,\"reps\":%u,"
	    "\"unit\":\"ticks per increment\"", f->cpu[0], f->cpu[1], f->increments, f->reps);
	stats_fmt_milli(a, sizeof(a), f->shared_milli[0]);
	stats_fmt_milli(b, sizeof(b), f->shared_milli[1]);
	json_put(&j, ",\"shared\":[%s,%s]", a, b);
	stats_fmt_milli(a, sizeof(a), f->padded_milli[0]);
	stats_fmt_milli(b, sizeof(b), f->padded_milli[1]);
	json_put(&j, ",\"padded\":[%s,%s]", a, b);
	put_named_milli(&j, "ratio", f->ratio_milli);
	json_put(&j, "}");
	return json_out_end(&j);
}

int c2c_bandwidth_json(const struct c2c_bandwidth *bw, uint64_t tsc_hz, char *buf, size_t len)
{
	struct json_out j = json_out_start(buf, len);

	json_put(&j, "{\"test\":\"shared_bw\",\"writer_cpu\":%u,\"reader_cpu\":%u,\"bytes\":%llu,"
	    "\"reps\":%u,\"unit\":\"bytes per tick\"", bw->writer_cpu, bw->reader_cpu,
	    (unsigned long long)bw->bytes, bw->reps);
	put_named_milli(&j, "write", bw->write_milli);
	put_named_milli(&j, "read", bw->read_milli);
	if (tsc_hz) {
		put_named_milli(&j, "write_gbps", c2c_gbps_milli(bw->write_milli, tsc_hz));
		put_named_milli(&j, "read_gbps", c2c_gbps_milli(bw->read_milli, tsc_hz));
	}
	json_put(&j, "}");
	return json_out_end(&j);
}

void c2c_matrix_init(struct c2c_matrix *m, const unsigned *cpu, unsigned n)
{
	m->n = n < C2C_MATRIX_MAX ? n : C2C_MATRIX_MAX;
	for (unsigned r = 0; r < C2C_MATRIX_MAX; r++) {
		m->cpu[r] = r < m->n ? cpu[r] : 0;
		for (unsigned c = 0; c < C2C_MATRIX_MAX; c++)
			m->cell[r][c] = C2C_CELL_NONE;
	}
}

int c2c_matrix_index(const struct c2c_matrix *m, unsigned cpu)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->cpu[i] == cpu)
			return (int)i;
	return -1;
}

/* One decimal, rounded half away from zero: 52.45 -> "52.5" (from 52450). */
static void cell_text(int64_t v, char *buf, size_t len)
{
	if (v == C2C_CELL_NONE) {
		buf[0] = '\0';
		return;
	}
	if (v == C2C_CELL_FAIL) {
		str_copy(buf, "fail", len);
		return;
	}
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	uint64_t tenths = (u + 50) / 100;
	bp_snprintf(buf, len, "%s%llu.%llu", v < 0 ? "-" : "", (unsigned long long)(tenths / 10),
		    (unsigned long long)(tenths % 10));
}

static void emit_trimmed(char *line, size_t o, void (*emit)(void *ctx, const char *line),
			 void *ctx)
{
	while (o > 0 && line[o - 1] == ' ')
		o--;
	line[o] = '\0';
	emit(ctx, line);
}

void c2c_matrix_format(const struct c2c_matrix *m, void (*emit)(void *ctx, const char *line),
		       void *ctx)
{
	char line[C2C_MATRIX_LINE_MAX + 32], cell[24];
	size_t o;

	o = (size_t)bp_snprintf(line, sizeof(line), "%5s", "");
	for (unsigned c = 0; c < m->n && o < sizeof(line); c++)
		o += (size_t)bp_snprintf(line + o, sizeof(line) - o, " %7u", m->cpu[c]);
	emit_trimmed(line, o < sizeof(line) ? o : sizeof(line) - 1, emit, ctx);
	for (unsigned r = 0; r < m->n; r++) {
		o = (size_t)bp_snprintf(line, sizeof(line), "%5u", m->cpu[r]);
		for (unsigned c = 0; c < m->n && o < sizeof(line); c++) {
			cell_text(m->cell[r][c], cell, sizeof(cell));
			o += (size_t)bp_snprintf(line + o, sizeof(line) - o, " %7s", cell);
		}
		emit_trimmed(line, o < sizeof(line) ? o : sizeof(line) - 1, emit, ctx);
	}
}
