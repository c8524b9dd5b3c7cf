/* test_xrt_xclbin.c - reading an xclbin (daemon/card/card_xclbin.c) and finding the ring's HBM banks.
 *
 * The files are built by test_xrt_common.h from xclbin.h's layout. Checked:
 * the header fields, the compute units by their xrt::ip names, the bank of
 * each hbm_writer_top port through CONNECTIVITY (and through the GROUP_*
 * sections when they exist, as XRT does), argument ids and register offsets
 * from the metadata, positional ids without metadata; the backend allocating
 * in those banks; every truncation of a valid file and corrupted counts and
 * offsets refused without reading outside the buffer (ASan); the platform
 * names reduced to what the card and the xclbin share.
 */
#include "test_xrt_common.h"

static struct toe_xclbin x;

static int parse(const struct tx_xclbin *d, char *err, size_t errlen)
{
	uint8_t *buf = calloc(1, 1 << 16);
	size_t n = tx_xclbin_build(d, buf, 1 << 16);
	/* exactly n bytes of heap: a read beyond them is an ASan error */
	uint8_t *exact = malloc(n);
	int r;
	memcpy(exact, buf, n);
	r = toe_xclbin_parse(exact, n, &x, err, errlen);
	free(exact);
	free(buf);
	return r;
}

static void test_fields(void)
{
	struct tx_xclbin d;
	char err[512];
	int hbm, ch;
	tx_xclbin_default(&d);
	CHECK_EQ(parse(&d, err, sizeof err), 0);
	CHECK_MEM(x.uuid, d.uuid, 16);
	CHECK(!strcmp(x.vbnv, TX_VBNV));
	CHECK_EQ(x.ver_major, 2);
	CHECK_EQ(x.ver_minor, 13);
	CHECK_EQ(x.mode, 0);
	CHECK_EQ(x.nmem, 32);
	CHECK(!strcmp(x.mem[5].tag, "HBM[5]"));
	CHECK_EQ(x.mem[5].type, 6);
	CHECK_EQ(x.mem[5].size_kb, 262144);
	CHECK_EQ(x.mem[5].base, 5ull << 28);
	CHECK_EQ(x.nip, 6);
	CHECK_EQ(x.mem_is_group, 0);
	CHECK(toe_xclbin_find_ip(&x, TOE_IP_CMAC) == 0);
	CHECK(toe_xclbin_find_ip(&x, TOE_IP_ETH_RX) == 1);
	CHECK(toe_xclbin_find_ip(&x, TOE_IP_HBM) == 5);
	CHECK(toe_xclbin_find_ip(&x, "hbm_writer_top:{hbm_writer_top_2}") < 0);
	CHECK(toe_xclbin_find_ip(&x, "nope:{nope_1}") < 0);
	hbm = toe_xclbin_find_ip(&x, TOE_IP_HBM);
	for (ch = 0; ch < 4; ch++) {
		char port[16];
		const struct toe_xclbin_arg *a;
		snprintf(port, sizeof port, "hbm%d", ch);
		a = toe_xclbin_find_arg(&x, "hbm_writer_top", port);
		CHECK(a != NULL);
		if (!a)
			continue;
		CHECK_EQ(a->id, 1 + ch);
		CHECK(a->has_offset);
		CHECK_EQ(a->offset, 0x40 + 0x10 * ch);
		CHECK_EQ(toe_xclbin_arg_bank(&x, hbm, a->id), 4 + ch);
	}
	/* fast_top's argument 1 goes to bank 9, hbm_writer_top's to 5 */
	CHECK_EQ(toe_xclbin_arg_bank(&x, toe_xclbin_find_ip(&x, TOE_IP_FAST), 1), 9);
	CHECK_EQ(toe_xclbin_arg_bank(&x, hbm, 7), -1);
	CHECK(toe_xclbin_find_arg(&x, "fast_top", "udp_in") != NULL);
	CHECK(toe_xclbin_find_arg(&x, "hbm_writer_top", "udp_in") == NULL);

	/* GROUP_TOPOLOGY numbers the banks backwards: the group index wins */
	d.group = 1;
	CHECK_EQ(parse(&d, err, sizeof err), 0);
	CHECK_EQ(x.mem_is_group, 1);
	hbm = toe_xclbin_find_ip(&x, TOE_IP_HBM);
	for (ch = 0; ch < 4; ch++) {
		int b = toe_xclbin_arg_bank(&x, hbm, 1 + (uint32_t)ch);
		char tag[24];
		CHECK_EQ(b, 31 - (4 + ch));
		snprintf(tag, sizeof tag, "HBM[%d]", 4 + ch);
		if (b >= 0)
			CHECK(!strcmp(x.mem[b].tag, tag));
	}
	d.group = 0;

	/* register space from the slave port's range, XRT's 64 KB where none is given */
	CHECK_EQ(toe_xclbin_cu_range(&x, "fast_top"), 0x20000);
	CHECK_EQ(toe_xclbin_cu_range(&x, "hbm_writer_top"), 0x4000);
	CHECK_EQ(toe_xclbin_cu_range(&x, "udp_top"), 0x10000);
	d.fast_range = 1;
	CHECK_EQ(parse(&d, err, sizeof err), 0);
	CHECK_EQ(toe_xclbin_cu_range(&x, "fast_top"), 0x10000);
	d.fast_range = 0;

	/* no metadata: nothing to look up, the caller falls back to positions */
	d.no_meta = 1;
	CHECK_EQ(parse(&d, err, sizeof err), 0);
	CHECK_EQ(x.has_meta, 0);
	CHECK_EQ(x.narg, 0);
	CHECK(toe_xclbin_find_arg(&x, "hbm_writer_top", "hbm0") == NULL);
	CHECK_EQ(toe_xclbin_cu_range(&x, "fast_top"), 0x10000);
}

/* The backend allocates each channel's buffer in the bank its port is wired to. */
static void backend_banks(const struct tx_xclbin *d, const uint32_t phys[4], const char *what)
{
	struct rx_cfg cfg;
	struct toe_xrt_params p;
	struct toe_fake_cfg fc = { 0 };
	struct toe_fake *f;
	struct toe_xrt *be = NULL;
	char path[64], err[1024];
	uint32_t ch;
	const char *fe;
	fc.check_banks = 1;
	for (ch = 0; ch < 4; ch++)
		fc.hbm_bank[ch] = phys[ch];
	f = toe_fake_new(&fc);
	tx_cfg(&cfg);
	CHECK_EQ(tx_xclbin_file(d, path), 0);
	tx_params(&p, path, &cfg, 64);
	if (toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err) < 0)
		fprintf(stderr, "%s: %s\n", what, err);
	CHECK(be != NULL);
	for (ch = 0; be && ch < 4; ch++)
		CHECK_EQ((toe_xrt_ring_addr(be, ch) - 0x4000000000ull) >> 28, phys[ch]);
	CHECK_EQ(toe_fake_errors(f, &fe), 0);
	toe_xrt_close(be);
	toe_fake_free(f);
	unlink(path);
}

static void test_backend_banks(void)
{
	struct tx_xclbin d;
	uint32_t b[4] = { 4, 5, 6, 7 }, g[4] = { 27, 26, 25, 24 }, odd[4] = { 0, 12, 3, 31 };
	tx_xclbin_default(&d);
	backend_banks(&d, b, "default");
	/* metadata numbering the arguments differently: its ids are the ones CONNECTIVITY uses */
	d.arg_shift = 3;
	backend_banks(&d, b, "arg ids from the metadata");
	d.arg_shift = 0;
	/* metadata without the ports: hbm0..3 are arguments 1..4 of hbm_writer_top(rec_in, hbm0, ...) */
	d.no_hbm_args = 1;
	backend_banks(&d, b, "positional");
	d.no_hbm_args = 0;
	/* with GROUP_*: the fake numbers banks as the group topology does */
	d.group = 1;
	backend_banks(&d, g, "group topology");
	d.group = 0;
	memcpy(d.hbm_bank, odd, sizeof odd);
	backend_banks(&d, odd, "banks 0, 12, 3, 31");
}

static void test_malformed(void)
{
	struct tx_xclbin d;
	uint8_t *buf = calloc(1, 1 << 16), *cut;
	size_t n, len;
	uint32_t ok = 0, refused = 0;
	char err[512];
	tx_xclbin_default(&d);
	n = tx_xclbin_build(&d, buf, 1 << 16);

	/* every truncation: refused (the header's length is checked) or parsed, never a stray read */
	for (len = 0; len < n; len++) {
		cut = malloc(len ? len : 1);
		memcpy(cut, buf, len);
		if (toe_xclbin_parse(cut, len, &x, err, sizeof err) == 0)
			ok++;
		else
			refused++;
		free(cut);
	}
	CHECK_EQ(ok, 0);
	CHECK_EQ(refused, n);

	/* the header's length trimmed with the file: sections now lie outside */
	cut = malloc(n);
	memcpy(cut, buf, n);
	tx_put64(cut + 304, 700); /* past the section headers, short of the sections */
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	CHECK(strstr(err, "outside the file") != NULL);
	/* a count beyond its section */
	memcpy(cut, buf, n);
	{
		uint64_t off = (uint64_t)cut[456 + 24] | (uint64_t)cut[456 + 25] << 8; /* MEM_TOPOLOGY, first section */
		tx_put32(cut + off, 1000);
	}
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	CHECK(strstr(err, "MEM_TOPOLOGY section: 1000 entries do not fit") != NULL);
	/* a negative count */
	memcpy(cut, buf, n);
	{
		uint64_t off = (uint64_t)cut[456 + 24] | (uint64_t)cut[456 + 25] << 8;
		tx_put32(cut + off, 0xffffffffu);
	}
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	/* too many section headers */
	memcpy(cut, buf, n);
	tx_put32(cut + 304 + 144, 100000);
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	CHECK(strstr(err, "section headers") != NULL);
	/* a section offset near 2^64 */
	memcpy(cut, buf, n);
	tx_put64(cut + 456 + 40 + 24, 0xfffffffffffffff0ull);
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	/* connectivity pointing past the banks: no bank, no crash */
	memcpy(cut, buf, n);
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), 0);
	x.conn[0].mem = 5000;
	CHECK_EQ(toe_xclbin_arg_bank(&x, x.conn[0].ip, (uint32_t)x.conn[0].arg), -1);
	/* bad magic */
	cut[0] = 'X';
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	CHECK(strstr(err, "not an xclbin") != NULL);
	/* metadata that is not well-formed XML */
	memcpy(cut, buf, n);
	{
		uint32_t i, ns = cut[304 + 144];
		for (i = 0; i < ns; i++) {
			const uint8_t *h = cut + 456 + 40 * i;
			if (h[0] == 2) /* EMBEDDED_METADATA */
				memcpy(cut + ((size_t)h[24] | (size_t)h[25] << 8), "<?xml version=\"1.0\"?><a><b></a>", 31);
		}
	}
	CHECK_EQ(toe_xclbin_parse(cut, n, &x, err, sizeof err), -1);
	CHECK(strstr(err, "EMBEDDED_METADATA is not well-formed XML") != NULL);
	free(cut);
	free(buf);
}

static void test_platform(void)
{
	char k[96], b[32];
	toe_platform_key("xilinx_u50_gen3x16_xdma_5_202210_1", k, sizeof k);
	CHECK(!strcmp(k, "xilinx_u50_gen3x16_xdma_5"));
	toe_platform_key("xilinx_u50_gen3x16_xdma_base_5", k, sizeof k);
	CHECK(!strcmp(k, "xilinx_u50_gen3x16_xdma_5"));
	toe_platform_key("xilinx_u50_gen3x16_xdma_201920_3", k, sizeof k);
	CHECK(!strcmp(k, "xilinx_u50_gen3x16_xdma"));
	toe_platform_key("xilinx_u280_gen3x16_xdma_base_1", k, sizeof k);
	CHECK(!strcmp(k, "xilinx_u280_gen3x16_xdma_1"));
	toe_platform_key("", k, sizeof k);
	CHECK(!strcmp(k, ""));
	toe_platform_key("xilinx_u50_gen3x16_xdma_5_202210_1", k, 8);
	CHECK(!strcmp(k, "xilinx_"));
	toe_platform_board("xilinx_u50_gen3x16_xdma_base_5", b, sizeof b);
	CHECK(!strcmp(b, "u50"));
	toe_platform_board("xilinx_u280_gen3x16_xdma_1_202211_1", b, sizeof b);
	CHECK(!strcmp(b, "u280"));
	toe_platform_board("acme_board", b, sizeof b);
	CHECK(!strcmp(b, ""));
	{
		uint8_t u[16];
		char s[37];
		int i;
		for (i = 0; i < 16; i++)
			u[i] = (uint8_t)(i * 17);
		toe_uuid_str(u, s);
		CHECK(!strcmp(s, "00112233-4455-6677-8899-aabbccddeeff"));
	}
}

int main(void)
{
	if (tx_load_prog() != 0)
		return test_skip("xrt_xclbin", "cannot compile " TX_TEMPLATES);
	test_fields();
	test_backend_banks();
	test_malformed();
	test_platform();
	return test_done("xrt_xclbin");
}
