/* toe-fastgen - write a deterministic SSE Level-2 feed (and its ground truth).
 *
 *   toe-fastgen --templates FILE.xml [--records N] [--seed S] [--framing step|raw]
 *               [--per-msg K] [--securities N] [--channels N] [--order-pct P]
 *               [--biz-global] [--truth FILE.jsonl] [-o OUT]
 *
 * Generates realistic tick-by-tick trades and orders (kernels/fast/host/
 * sse_gen.c) and FAST-encodes them with the given template file: as STEP
 * messages of 1..K records of one type (dictionary reset per message,
 * MsgSeqNum from 1), or as one raw FAST stream (one dictionary for the whole
 * stream, never reset). BizIndex counts 1, 2, ... per channel across trades
 * and orders, as SSE numbers it (--biz-global: 1, 2, 3, ... across channels,
 * the numbering of earlier versions). --truth writes one JSON line per record, exactly as
 * toe-fastdump prints the decoded record (with "msg_seq" for STEP framing).
 * Exit status: 0 done, 1 error, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fast/host/fast_json.h"
#include "feed/feed_gen.h"
#include "feed/feed_net.h"

#define MAX_PER_MSG FEED_MAX_PER_MSG

static void usage(FILE *f)
{
	fprintf(f,
		"usage: toe-fastgen --templates FILE.xml [--records N] [--seed S] [--framing step|raw]\n"
		"                   [--per-msg K] [--securities N] [--channels N] [--order-pct P]\n"
		"                   [--biz-global] [--truth FILE.jsonl] [-o OUT]\n"
		"  --templates FILE   FAST template file (XML) to encode with\n"
		"  --records N        records to generate (default 1000)\n"
		"  --seed S           generator seed (default 1); same seed, same feed\n"
		"  --framing step     SSE STEP messages, dictionary reset per message (default)\n"
		"  --framing raw      one raw FAST stream, one dictionary, never reset\n"
		"  --per-msg K        STEP: at most K records per message, 1..%d (default 4)\n"
		"  --securities N     securities traded, 1..%d (default 200)\n"
		"  --channels N       channels, 1..%d (default 4)\n"
		"  --order-pct P      share of orders in percent (default 70)\n"
		"  --biz-global       BizIndex 1, 2, 3, ... across channels (default: 1, 2, ... per channel, as SSE\n"
		"                     numbers it; --biz-per-channel says so)\n"
		"  --truth FILE       write the records as JSON lines (as toe-fastdump prints them)\n"
		"  -o OUT             output file (default standard output, not a terminal)\n",
		MAX_PER_MSG, SSE_GEN_MAX_SEC, SSE_GEN_MAX_CHAN);
}

static int write_all(FILE *f, const void *p, size_t n, const char *name)
{
	if (n && fwrite(p, 1, n, f) != n) {
		fprintf(stderr, "toe-fastgen: %s: write failed: %s\n", name, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"templates", required_argument, 0, 't'}, {"records", required_argument, 0, 'n'},
		{"seed", required_argument, 0, 's'},      {"framing", required_argument, 0, 'f'},
		{"per-msg", required_argument, 0, 'k'},   {"truth", required_argument, 0, 'T'},
		{"securities", required_argument, 0, 'S'}, {"channels", required_argument, 0, 'c'},
		{"order-pct", required_argument, 0, 'p'}, {"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},            {"biz-per-channel", no_argument, 0, 'B'},
		{"biz-global", no_argument, 0, 'G'},
		{0, 0, 0, 0},
	};
	const char *templates = NULL, *truth_path = NULL, *out_path = NULL;
	uint64_t records = 1000, per_msg = 4;
	int raw = 0, c;
	struct sse_gen_cfg cfg;
	sse_gen_default(&cfg);

	while ((c = getopt_long(argc, argv, "t:n:s:f:k:T:S:c:p:o:hBG", lopts, NULL)) != -1) {
		const char *bad = NULL;
		if (feed_gen_opt(c, optarg, &cfg, &per_msg, &bad))
			c = 0; /* taken */
		switch (c) {
		case 0: break;
		case 't': templates = optarg; break;
		case 'n':
			if (feed_parse_u64(optarg, 0, UINT64_MAX, &records))
				bad = "--records needs a number";
			break;
		case 'f':
			if (!strcmp(optarg, "raw"))
				raw = 1;
			else if (!strcmp(optarg, "step"))
				raw = 0;
			else
				bad = "--framing must be step or raw";
			break;
		case 'T': truth_path = optarg; break;
		case 'B':
			cfg.biz_per_channel = 1;
			break;
		case 'G':
			cfg.biz_per_channel = 0;
			break;
		case 'o': out_path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, "toe-fastgen: %s, not '%s'\n", bad, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "toe-fastgen: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!templates) {
		fprintf(stderr, "toe-fastgen: --templates is required\n");
		usage(stderr);
		return 2;
	}
	if (!out_path && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "toe-fastgen: not writing binary data to a terminal; use -o OUT or a redirection\n");
		return 2;
	}

	FILE *out = NULL, *truth = NULL;
	int rc = 1;
	char err[512];
	struct feed_src *fs = feed_src_new(templates, &cfg, (uint32_t)per_msg, err, sizeof err);
	if (!fs) {
		fprintf(stderr, "toe-fastgen: %s\n", err);
		goto done;
	}

	const char *out_name = out_path ? out_path : "standard output";
	out = out_path ? fopen(out_path, "wb") : stdout;
	if (!out) {
		fprintf(stderr, "toe-fastgen: %s: %s\n", out_path, strerror(errno));
		goto done;
	}
	if (truth_path && !(truth = fopen(truth_path, "w"))) {
		fprintf(stderr, "toe-fastgen: %s: %s\n", truth_path, strerror(errno));
		goto done;
	}

	uint64_t done_recs = 0;
	while (done_recs < records) {
		if (raw) {
			union toe_record t;
			sse_gen_next(&fs->stream.gen, &t);
			int n = sse_encode_raw(&fs->prog, &fs->stream.enc, &t, fs->msg, fs->cap, &fs->recs[0]);
			if (n < 0) {
				fprintf(stderr, "toe-fastgen: record %" PRIu64 " cannot be encoded with %s\n",
					done_recs + 1, templates);
				goto done;
			}
			if (write_all(out, fs->msg, (size_t)n, out_name))
				goto done;
			if (truth) {
				fast_json_record(truth, &fs->prog, &fs->names, &fs->recs[0], NULL);
				fputc('\n', truth);
			}
			done_recs++;
			continue;
		}
		uint64_t left = records - done_recs;
		if (feed_src_next(fs, left > MAX_PER_MSG ? MAX_PER_MSG : (uint32_t)left) < 0) {
			fprintf(stderr, "toe-fastgen: message %" PRIu64 " cannot be encoded with %s\n",
				fs->stream.seq, templates);
			goto done;
		}
		if (write_all(out, fs->msg, (size_t)fs->len, out_name))
			goto done;
		if (truth)
			feed_src_truth(fs, truth);
		done_recs += fs->nrecs;
	}
	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "toe-fastgen: %s: write failed\n", out_name);
		goto done;
	}
	if (truth && (fflush(truth) || ferror(truth))) {
		fprintf(stderr, "toe-fastgen: %s: write failed\n", truth_path);
		goto done;
	}
	rc = 0;
done:
	if (out && out != stdout && fclose(out) && rc == 0) {
		fprintf(stderr, "toe-fastgen: %s: %s\n", out_path, strerror(errno));
		rc = 1;
	}
	if (truth && fclose(truth) && rc == 0) {
		fprintf(stderr, "toe-fastgen: %s: %s\n", truth_path, strerror(errno));
		rc = 1;
	}
	feed_src_free(fs);
	return rc;
}
