/* feed_lat.c - the feed simulator's send log and latency statistics (host only). */
#include "feed/feed_lat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int feed_sendlog_write(FILE *f, const struct feed_sendlog_ent *e, size_t n)
{
	if (fwrite(FEED_SENDLOG_MAGIC, 1, FEED_SENDLOG_HDR, f) != FEED_SENDLOG_HDR)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint8_t b[FEED_SENDLOG_ENT];
		put_le(b, e[i].msg_seq, 8);
		put_le(b + 8, e[i].send_ns, 8);
		put_le(b + 16, e[i].first_biz, 8);
		put_le(b + 24, e[i].nrecords, 4);
		put_le(b + 28, e[i].len, 4);
		if (fwrite(b, 1, sizeof b, f) != sizeof b)
			return -1;
	}
	return 0;
}

int feed_sendlog_read(const char *path, struct feed_sendlog_ent **out, size_t *n, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t b[FEED_SENDLOG_ENT];
	struct feed_sendlog_ent *v = NULL;
	size_t cnt = 0, cap = 0, got;
	*out = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(b, 1, FEED_SENDLOG_HDR, f) != FEED_SENDLOG_HDR || memcmp(b, FEED_SENDLOG_MAGIC, FEED_SENDLOG_HDR)) {
		snprintf(err, errlen, "%s: not a send log (no %s magic)", path, FEED_SENDLOG_MAGIC);
		fclose(f);
		return -1;
	}
	while ((got = fread(b, 1, sizeof b, f)) == sizeof b) {
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			struct feed_sendlog_ent *nv = realloc(v, nc * sizeof *v);
			if (!nv) {
				snprintf(err, errlen, "%s: out of memory", path);
				free(v);
				fclose(f);
				return -1;
			}
			v = nv;
			cap = nc;
		}
		v[cnt].msg_seq = get_le(b, 8);
		v[cnt].send_ns = get_le(b + 8, 8);
		v[cnt].first_biz = get_le(b + 16, 8);
		v[cnt].nrecords = (uint32_t)get_le(b + 24, 4);
		v[cnt].len = (uint32_t)get_le(b + 28, 4);
		cnt++;
	}
	int bad = ferror(f) || got != 0;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path, got ? "partial entry at the end" : "read error");
		free(v);
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
}

int feed_sendlog_wait(const char *path, uint64_t max_seq, int tries, struct feed_sendlog_ent **out, size_t *n,
		      char *err, size_t errlen)
{
	for (int k = 0;; k++) {
		if (feed_sendlog_read(path, out, n, err, errlen) == 0) {
			if (max_seq == 0 || feed_sendlog_find(*out, *n, max_seq))
				return 0;
			snprintf(err, errlen, "the send log does not reach the last message received");
			free(*out);
			*out = NULL;
			*n = 0;
		}
		if (k + 1 >= tries)
			return -1;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

const struct feed_sendlog_ent *feed_sendlog_find(const struct feed_sendlog_ent *v, size_t n, uint64_t msg_seq)
{
	if (n == 0)
		return NULL;
	/* the usual log: msg_seq k at index k - first */
	uint64_t first = v[0].msg_seq;
	if (msg_seq >= first && msg_seq - first < n && v[msg_seq - first].msg_seq == msg_seq)
		return &v[msg_seq - first];
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].msg_seq < msg_seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].msg_seq == msg_seq ? &v[lo] : NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t feed_lat_pct(const int64_t *sorted, size_t n, uint32_t ppm)
{
	if (ppm > 1000000)
		ppm = 1000000;
	/* (n - 1) * ppm stays below 2^64 for any n below 1.8e13 */
	return sorted[(uint64_t)(n - 1) * ppm / 1000000u];
}

void feed_lat_summarize(int64_t *v, size_t n, struct feed_lat_summary *s)
{
	memset(s, 0, sizeof *s);
	if (n == 0)
		return;
	qsort(v, n, sizeof v[0], cmp_i64);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->p50 = feed_lat_pct(v, n, 500000);
	s->p90 = feed_lat_pct(v, n, 900000);
	s->p99 = feed_lat_pct(v, n, 990000);
	s->p999 = feed_lat_pct(v, n, 999000);
	/* mean without overflow: sum of quotients and remainders */
	int64_t q = 0, r = 0, nn = (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		q += v[i] / nn;
		r += v[i] % nn;
		if (r >= nn || r <= -nn) {
			q += r / nn;
			r %= nn;
		}
	}
	s->mean = q + r / nn;
}

static void us(FILE *f, const char *label, int64_t ns)
{
	fprintf(f, "  %s %s%" PRId64 ".%01" PRId64, label, ns < 0 ? "-" : "", (ns < 0 ? -ns : ns) / 1000,
		(ns < 0 ? -ns : ns) % 1000 / 100);
}

void feed_lat_print(FILE *f, const char *name, const struct feed_lat_summary *s)
{
	fprintf(f, "%s: n %" PRIu64, name, s->n);
	us(f, "min", s->min);
	us(f, "p50", s->p50);
	us(f, "p90", s->p90);
	us(f, "p99", s->p99);
	us(f, "p99.9", s->p999);
	us(f, "max", s->max);
	us(f, "mean", s->mean);
	fprintf(f, " us\n");
}

void feed_lat_print_json(FILE *f, const char *name, const struct feed_lat_summary *s)
{
	fprintf(f,
		"{\"name\":\"%s\",\"unit\":\"ns\",\"n\":%" PRIu64 ",\"min\":%" PRId64 ",\"p50\":%" PRId64
		",\"p90\":%" PRId64 ",\"p99\":%" PRId64 ",\"p999\":%" PRId64 ",\"max\":%" PRId64 ",\"mean\":%" PRId64
		"}",
		name, s->n, s->min, s->p50, s->p90, s->p99, s->p999, s->max, s->mean);
}

void feed_lat_report(int64_t *v, size_t n, FILE *human, const char *name, FILE *result, const char *label)
{
	struct feed_lat_summary s;
	feed_lat_summarize(v, n, &s);
	feed_lat_print(human, name, &s);
	fputs("RESULT ", result);
	feed_lat_print_json(result, label, &s);
	fputc('\n', result);
}
