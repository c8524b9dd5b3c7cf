/* toe-fastdump - decode a FAST stream (raw or STEP-framed) and print JSON records.
 *
 *   toe-fastdump --templates FILE.xml [--framing auto|raw|step] [--reset-every N] [--stats]
 *                [--decoder auto|fast|reference] [FILE|-]
 *
 * One JSON object per record on stdout; errors on stderr with their byte
 * offset; exit status 1 when any error (reportable ones included) occurred,
 * 2 on a usage error. Framing auto (the default) is STEP when the input starts
 * with "8=STEP." (every STEP message does; a raw FAST stream starting so would
 * need a 7-byte presence map of those bytes), raw otherwise: a user who
 * forgets --framing on a STEP file gets records, not a presence-map error.
 * --stats prints counts, the decoder used, the time to read the input (into
 * memory, every page touched: touch_pages) and the decode-only time and rate
 * instead.
 *
 * Decoders: "reference" is the card's interpreter (every field, as JSON);
 * "fast" the CPU decoder of kernels/fast/host/, which decodes straight into
 * tick records (same records, errors and counters; no per-field values, so
 * it only runs with --stats); "auto" picks fast with --stats and the
 * reference when records are printed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fast/fast_stream.h"
#include "fast/host/fastx.h"
#include "fast/host/fast_compile.h"
#include "fast/host/fast_json.h"
#include "feed/feed_gen.h"

struct opts {
	const char *templates;
	const char *input;
	int step; /* 1 STEP, 0 raw, -1 auto: decided from the input's first bytes */
	uint64_t reset_every;
	int stats;
	int decoder; /* enum fastx_choice */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: toe-fastdump --templates FILE.xml [--framing auto|raw|step] [--reset-every N] [--stats] "
		   "[FILE|-]\n"
		   "  --templates FILE  FAST template file (XML) read at start-up\n"
		   "  --framing auto    step when the input starts with 8=STEP., else raw (default)\n"
		   "  --framing raw     one continuous FAST stream\n"
		   "  --framing step    SSE STEP messages; dictionary reset per message\n"
		   "  --reset-every N   raw framing: reset the dictionary every N records\n"
		   "  --stats           print counts, decoder and decode-only rate instead of records\n"
		   "  --decoder D       auto (default: fast with --stats, else reference), fast (the CPU\n"
		   "                    decoder, tick records only: needs --stats) or reference\n");
}

/* Read each page of the input once from user space, so that --stats times
 * decoding and not the first touch of memory the kernel has just filled.
 * That touch is not free everywhere: on the PVM guests of our CI and
 * development machines it costs about 6 us per 4 KB page (a read of one
 * byte per page of a 3 MB file took 4.4 ms), which doubled the decode time
 * of a file read just before; it belongs to reading the file. */
static void touch_pages(const uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		(void)*(const volatile uint8_t *)(buf + i);
}

/* Read a whole file (or stdin) into memory, every page touched. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf;
	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t r;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	if (buf)
		touch_pages(buf, n);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct tally {
	uint64_t per_tpl[FAST_MAX_TEMPLATES];
	uint64_t errors[FAST_ERR_COUNT];
	uint64_t records;
};

static void report_warnings(uint32_t warn, uint64_t off)
{
	for (int e = 1; e < FAST_ERR_COUNT; e++)
		if (warn & (1u << e))
			fprintf(stderr, "toe-fastdump: offset %" PRIu64 ": %s (reportable; record delivered)\n", off,
				fast_err_name(e));
}

static void print_stats(const struct fast_prog *prog, const struct fast_names *names, const struct tally *t,
			const uint64_t *errors, size_t bytes, double secs)
{
	printf("bytes %zu\nrecords %" PRIu64 "\n", bytes, t->records);
	for (uint32_t k = 0; k < prog->ntpl; k++)
		printf("template %u %s %" PRIu64 "\n", prog->tpl[k].id, names->tpl[k], t->per_tpl[k]);
	for (int e = 1; e < FAST_ERR_COUNT; e++)
		if (errors[e])
			printf("error %s %" PRIu64 "\n", fast_err_name(e), errors[e]);
	if (secs > 0)
		printf("rate %.1f MB/s %.0f records/s %.1f ns/record\n", bytes / secs / 1e6, t->records / secs,
		       t->records ? secs * 1e9 / t->records : 0.0);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"templates", required_argument, 0, 't'}, {"framing", required_argument, 0, 'f'},
		{"reset-every", required_argument, 0, 'r'}, {"stats", no_argument, 0, 's'},
		{"decoder", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	struct opts o = {.input = "-", .step = -1};
	int c;
	while ((c = getopt_long(argc, argv, "t:f:r:d:sh", lopts, NULL)) != -1) {
		switch (c) {
		case 't': o.templates = optarg; break;
		case 'f':
			if (strcmp(optarg, "step") == 0)
				o.step = 1;
			else if (strcmp(optarg, "raw") == 0)
				o.step = 0;
			else if (strcmp(optarg, "auto") == 0)
				o.step = -1;
			else {
				fprintf(stderr, "toe-fastdump: --framing must be auto, raw or step, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r': {
			char *end;
			errno = 0;
			o.reset_every = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg) {
				fprintf(stderr, "toe-fastdump: --reset-every needs a number, not '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case 's': o.stats = 1; break;
		case 'd':
			o.decoder = fastx_choice_parse(optarg);
			if (o.decoder < 0) {
				fprintf(stderr, "toe-fastdump: --decoder must be auto, fast or reference, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		o.input = argv[optind++];
	if (!o.templates || optind < argc) {
		usage(stderr);
		return 2;
	}

	static struct fast_prog prog;
	static struct fast_names names;
	char err[512];
	if (fast_compile_file(o.templates, &prog, &names, err, sizeof err) != 0) {
		fprintf(stderr, "toe-fastdump: %s\n", err);
		return 1;
	}
	if (names.nnotes)
		fprintf(stderr, "toe-fastdump: note: %s\n", names.note);
	int fast = o.decoder == FASTX_FAST || (o.decoder == FASTX_AUTO && o.stats);
	if (fast && !o.stats) {
		fprintf(stderr, "toe-fastdump: --decoder fast decodes into tick records only; printing every field "
				"needs the reference (use --stats, or --decoder reference/auto)\n");
		return 2;
	}
	struct fastx_prog *xp = NULL;
	static struct fastx_dec xd;
	if (fast) {
		xp = fastx_prog_new(&prog);
		if (!xp) {
			fprintf(stderr, "toe-fastdump: out of memory\n");
			return 1;
		}
	}
	size_t len;
	double tr0 = now_s();
	uint8_t *buf = slurp(o.input, &len);
	double read_secs = now_s() - tr0;
	if (!buf) {
		fprintf(stderr, "toe-fastdump: %s: %s\n", o.input, strerror(errno ? errno : EIO));
		return 1;
	}
	int detected = o.step < 0;
	if (detected)
		o.step = len >= 7 && memcmp(buf, "8=STEP.", 7) == 0;
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	struct tally t = {0};
	const uint64_t *errors;
	int failed = 0;
	double t0 = now_s();
	if (!o.step) {
		static struct fast_dec dec;
		static struct fast_rec rec;
		size_t off = 0;
		fast_dec_init(&dec, &prog);
		if (fast)
			fastx_dec_init(&xd, xp, &rec);
		while (off < len) {
			uint32_t used, n = len - off > UINT32_MAX ? UINT32_MAX : (uint32_t)(len - off);
			if (o.reset_every && t.records && t.records % o.reset_every == 0)
				fast_dec_reset(&dec);
			int e = fast ? fastx_record(&xd, &dec, buf + off, n, 0, &used)
				     : fast_dec_record(&dec, buf + off, n, &used, &rec);
			if (e != FAST_OK) {
				/* a raw stream has no message boundary to resume at */
				fprintf(stderr, "toe-fastdump: offset %zu (record at %zu): %s; raw stream cannot "
					"resynchronise, stopping\n", off + used, off, fast_err_name(e));
				failed = 1;
				break;
			}
			uint32_t warn = fast ? xd.warn : rec.warn;
			if (warn) {
				report_warnings(warn, off);
				failed = 1;
			}
			t.records++;
			t.per_tpl[fast ? xd.tpl : rec.tpl]++;
			if (!o.stats) {
				fast_json_record(stdout, &prog, &names, &rec, NULL);
				putchar('\n');
			}
			off += used;
		}
		errors = dec.errors;
	} else {
		static struct fast_stream fs;
		size_t off = 0;
		fast_stream_init(&fs, &prog, FAST_FRAMING_STEP);
		if (fast)
			fastx_dec_init(&xd, xp, &fs.rec);
		while (off < len) {
			uint32_t n = len - off > (1u << 20) ? (1u << 20) : (uint32_t)(len - off);
			int ev;
			fast_stream_feed(&fs, buf + off, n);
			while ((ev = fast ? fastx_stream_next(&xd, &fs) : fast_stream_next(&fs)) != FS_NONE) {
				if (ev == FS_ERROR) {
					fprintf(stderr, "toe-fastdump: offset %" PRIu64 ": %s", fs.err_offset,
						fast_err_name(fs.err));
					if (fs.err_skipped)
						fprintf(stderr, " (%" PRIu64 " bytes of the message not decoded)",
							fs.err_skipped);
					fprintf(stderr, "; resynchronising at the next 8=STEP\n");
					failed = 1;
					continue;
				}
				uint32_t warn = fast ? xd.warn : fs.rec.warn;
				if (warn) {
					report_warnings(warn, fs.data_offset);
					failed = 1;
				}
				t.records++;
				t.per_tpl[fast ? xd.tpl : fs.rec.tpl]++;
				if (!o.stats)
					feed_json_line(stdout, &prog, &names, &fs.rec, fs.msg_seq);
			}
			off += n;
		}
		if (step_pending(&fs.step)) {
			fprintf(stderr, "toe-fastdump: offset %" PRIu64 ": input ends inside a STEP message (%u bytes "
				"not decoded)\n", fs.step.msg_start, step_pending(&fs.step));
			failed = 1;
		}
		for (int e = 0; e < FAST_ERR_COUNT; e++)
			t.errors[e] = fs.dec.errors[e] + fs.step.errors[e];
		errors = t.errors;
	}
	double secs = now_s() - t0;
	if (o.stats) {
		printf("framing %s%s\n", o.step ? "step" : "raw", detected ? " (detected)" : "");
		print_stats(&prog, &names, &t, errors, len, secs);
		if (fast) {
			printf("decoder fast isa %s pext %s templates_specialised %u templates_fallback %u "
			       "records_fast %" PRIu64 " records_fallback %" PRIu64 " records_vector %" PRIu64
			       " records_vector_to_avx2 %" PRIu64 "\n",
			       fastx_isa_name(fastx_isa_get()), fastx_pext_get() ? "on" : "off",
			       fastx_prog_specialised(xp), fastx_prog_fallback(xp), xd.fast, xd.fallback, xd.vec,
			       xd.vec_fallback);
			for (uint32_t k = 0; k < prog.ntpl; k++)
				if (fastx_prog_why(xp, k)[0])
					printf("fallback template %u %s: %s\n", prog.tpl[k].id, names.tpl[k],
					       fastx_prog_why(xp, k));
			if (fastx_isa_get() == FASTX_ISA_VBMI)
				for (uint32_t k = 0; k < prog.ntpl; k++)
					if (fastx_prog_vwhy(xp, k)[0])
						printf("avx2 template %u %s: %s\n", prog.tpl[k].id, names.tpl[k],
						       fastx_prog_vwhy(xp, k));
		} else {
			printf("decoder reference\n");
		}
		printf("time read %.6f s decode %.6f s (decode only: input in memory, no output)\n", read_secs, secs);
	}
	fflush(stdout);
	fastx_prog_free(xp);
	free(buf);
	return failed ? 1 : 0;
}
