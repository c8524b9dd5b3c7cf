// mfast_driver.cpp - mFAST's decoders on toed's benchmark stream (for tests/bench/bench_mfast.sh).
//
// Not part of the build: bench_mfast.sh compiles it against an mFAST checkout
// (MFAST_DIR) and the code mFAST's fast_type_gen generated from
// conf/templates/sse-l2-3201-5801.xml (MFAST_GEN_HEADER, MFAST_GEN_NS). It
// decodes the raw stream bench_fastx writes (BENCH_DUMP_RAW: records back to
// back, the dictionary reset every PER_RESET records) from memory, with
//   gen: fast_decoder_v2 on the generated description (mFAST's fastest), or
//   rt:  fast_decoder on templates parsed from the XML at run time,
// REPS times, timed with the thread's CPU time (the machines are shared), and
// prints best and median ns/record plus the records per template id (so a
// decoder that stopped early or misread the stream cannot pass unnoticed).
#include <mfast.h>
#include <mfast/coder/fast_decoder.h>
#include <mfast/coder/fast_decoder_v2.h>
#include <mfast/xml_parser/dynamic_templates_description.h>
#include MFAST_GEN_HEADER

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <vector>

static double cpu_s()
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int read_file(const char *name, std::vector<char> &out)
{
	std::FILE *f = std::fopen(name, "rb");
	if (!f)
		return -1;
	std::fseek(f, 0, SEEK_END);
	out.resize(std::ftell(f));
	std::rewind(f);
	size_t n = out.empty() ? 0 : std::fread(&out[0], 1, out.size(), f);
	std::fclose(f);
	return n == out.size() ? 0 : -1;
}

template <class Decoder>
static int run(Decoder &dec, const std::vector<char> &raw, unsigned per_reset, unsigned long want, int reps,
	       const char *name)
{
	std::vector<double> t;
	std::map<unsigned, unsigned long> per_id;
	{
		/* an untimed pass: records per template id */
		const char *first = raw.data(), *last = raw.data() + raw.size();
		unsigned long n = 0;
		while (first < last) {
			mfast::message_cref m = dec.decode(first, last, n % per_reset == 0);
			per_id[m.id()]++;
			n++;
		}
	}
	for (int r = 0; r < reps; r++) {
		const char *first = raw.data(), *last = raw.data() + raw.size();
		unsigned long n = 0, acc = 0;
		double t0 = cpu_s();
		while (first < last) {
			mfast::message_cref m = dec.decode(first, last, n % per_reset == 0);
			acc += m.id(); /* keep the result live */
			n++;
		}
		t.push_back(cpu_s() - t0);
		if (n != want || acc == 0) {
			std::fprintf(stderr, "mfast_driver %s: decoded %lu records, expected %lu\n", name, n, want);
			return 1;
		}
	}
	std::sort(t.begin(), t.end());
	std::printf("%s: %lu records, best %.1f ns/record, p50 %.1f ns/record;", name, want, t[0] * 1e9 / want,
		    t[t.size() / 2] * 1e9 / want);
	for (auto &kv : per_id)
		std::printf(" template %u: %lu", kv.first, kv.second);
	std::printf("\n");
	std::printf("RESULT {\"bench\":\"mfast\",\"variant\":\"%s\",\"records\":%lu,\"ns_per_record_best\":%.2f,"
		    "\"ns_per_record_p50\":%.2f}\n",
		    name, want, t[0] * 1e9 / want, t[t.size() / 2] * 1e9 / want);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		std::fprintf(stderr, "usage: mfast_driver gen|rt RAW_FILE TEMPLATES_XML RECORDS PER_RESET REPS\n");
		return 2;
	}
	std::vector<char> raw, xml;
	unsigned long want = std::strtoul(argv[4], 0, 10);
	unsigned per_reset = (unsigned)std::strtoul(argv[5], 0, 10);
	int reps = std::atoi(argv[6]);
	if (read_file(argv[2], raw) != 0 || read_file(argv[3], xml) != 0 || per_reset == 0 || reps < 1) {
		std::fprintf(stderr, "mfast_driver: cannot read %s or %s, or bad numbers\n", argv[2], argv[3]);
		return 2;
	}
	xml.push_back(0);
	try {
		if (!std::strcmp(argv[1], "gen")) {
			mfast::fast_decoder_v2<0> dec(MFAST_GEN_NS::description());
			return run(dec, raw, per_reset, want, reps, "mfast_generated_v2");
		}
		mfast::dynamic_templates_description desc(xml.data());
		mfast::malloc_allocator alloc;
		mfast::fast_decoder dec(&alloc);
		dec.include({&desc});
		return run(dec, raw, per_reset, want, reps, "mfast_runtime_templates");
	} catch (std::exception &e) {
		std::fprintf(stderr, "mfast_driver: %s\n", e.what());
		return 1;
	}
}
