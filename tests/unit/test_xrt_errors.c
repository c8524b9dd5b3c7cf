/* test_xrt_errors.c - the card backend's bring-up errors: each problem gives one line that names it.
 *
 * With the fake card: no card at the BDF / no card at all, a shell for
 * another platform, a refused load, a UUID mismatch after loading, an
 * xclbin without the expected kernels (or without an IP_LAYOUT), an
 * emulation xclbin, a file that is not an xclbin or is truncated, a missing
 * file, registers refused (as XRT's noop shim does), a kernel with a wrong
 * magic or register map version, a metadata register offset that disagrees
 * with toe_regmap.h. After every failure nothing is left behind: the card is
 * closed, every buffer freed. Problems found in the xclbin file are found
 * before the card is opened.
 */
#include "test_xrt_common.h"

static struct rx_cfg cfg;

/* Open with this fake configuration and xclbin description; expect failure
 * with every needle in the message. Returns the fake (freed by the caller). */
static struct toe_fake *expect_fail(const struct toe_fake_cfg *fc, const struct tx_xclbin *xd, const char *pci,
				    const char *n1, const char *n2, const char *n3)
{
	struct toe_xrt_params p;
	struct toe_xrt *be = NULL;
	struct toe_fake *f = toe_fake_new(fc);
	char path[64], err[1024] = "";
	CHECK_EQ(tx_xclbin_file(xd, path), 0);
	tx_params(&p, path, &cfg, 64);
	if (pci)
		p.pci = pci;
	CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
	CHECK(be == NULL);
	CHECK(strchr(err, '\n') == NULL); /* one line */
	if (getenv("TX_VERBOSE"))
		fprintf(stderr, "%s\n", err);
	if ((n1 && !strstr(err, n1)) || (n2 && !strstr(err, n2)) || (n3 && !strstr(err, n3))) {
		fprintf(stderr, "message: %s\n  wanted: %s | %s | %s\n", err, n1, n2 ? n2 : "", n3 ? n3 : "");
		CHECK(!"message");
	}
	CHECK(!toe_fake_is_open(f));
	CHECK_EQ(toe_fake_live_bos(f), 0);
	unlink(path);
	if (be)
		toe_xrt_close(be);
	return f;
}

static void done(struct toe_fake *f, int touched)
{
	uint32_t n;
	toe_fake_writes(f, &n);
	if (!touched)
		CHECK_EQ(n, 0);
	toe_fake_free(f);
}

int main(void)
{
	struct tx_xclbin xd;
	struct toe_fake_cfg fc;
	struct toe_fake *f;
	char path[64], err[1024], u[37];

	if (tx_load_prog() != 0)
		return test_skip("xrt_errors", "cannot compile " TX_TEMPLATES);
	tx_cfg(&cfg);

	/* no card at that BDF: the message names the BDF and the key, and lists what there is */
	tx_xclbin_default(&xd);
	memset(&fc, 0, sizeof fc);
	f = expect_fail(&fc, &xd, "0000:af:00.1", "no Alveo card at PCI 0000:af:00.1", "[device] pci", TOE_FAKE_BDF);
	done(f, 0);
	/* no card at all, first card asked for */
	fc.no_card = 1;
	f = expect_fail(&fc, &xd, "", "no Alveo card found", "xbutil examine", NULL);
	done(f, 0);

	/* wrong platform: an xclbin for another card, or for another shell of this card */
	memset(&fc, 0, sizeof fc);
	xd.vbnv = "xilinx_u280_gen3x16_xdma_1_202211_1";
	f = expect_fail(&fc, &xd, NULL, "wrong platform", "xilinx_u280_gen3x16_xdma_1_202211_1", TOE_FAKE_SHELL);
	done(f, 0);
	xd.vbnv = "xilinx_u50_gen3x4_xdma_2_202010_1";
	f = expect_fail(&fc, &xd, NULL, "wrong platform", "xilinx_u50_gen3x4_xdma_2_202010_1", "flash");
	done(f, 0);
	xd.vbnv = NULL;
	/* a card that cannot tell its shell: only a notice, and the card's own check at load */
	{
		struct toe_xrt_params p;
		struct toe_xrt *be = NULL;
		fc.shell = "";
		f = toe_fake_new(&fc);
		CHECK_EQ(tx_xclbin_file(&xd, path), 0);
		tx_params(&p, path, &cfg, 64);
		p.log = tx_log;
		tx_last_log[0] = 0;
		CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), 0);
		CHECK(strstr(tx_last_log, "does not tell its shell") != NULL);
		toe_xrt_close(be);
		toe_fake_free(f);
		unlink(path);
		fc.shell = NULL;
	}

	/* the card refuses the xclbin */
	fc.refuse_load = 1;
	f = expect_fail(&fc, &xd, NULL, "refused [device] xclbin", "built for " TX_VBNV, "not compatible");
	done(f, 0);
	fc.refuse_load = 0;

	/* UUID mismatch: both UUIDs in the message */
	fc.uuid_mismatch = 1;
	toe_uuid_str(xd.uuid, u);
	f = expect_fail(&fc, &xd, NULL, "UUID mismatch", u, "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaef5");
	done(f, 0);
	fc.uuid_mismatch = 0;

	/* kernels missing from the xclbin: found in the file, the card never opened */
	xd.omit = TOE_KID_UDP;
	f = expect_fail(&fc, &xd, NULL, "lacks compute units", "udp_top:{udp_top_1}", "build_xclbin.sh");
	done(f, 0);
	xd.omit = TOE_FAKE_KID_CMAC;
	f = expect_fail(&fc, &xd, NULL, "lacks compute units", "cmac_0:{cmac_0}", NULL);
	done(f, 0);
	xd.omit = 0;
	xd.no_ip_layout = 1;
	f = expect_fail(&fc, &xd, NULL, "no IP_LAYOUT", NULL, NULL);
	done(f, 0);
	xd.no_ip_layout = 0;

	/* an emulation xclbin */
	xd.mode = 5; /* XCLBIN_SW_EMU */
	f = expect_fail(&fc, &xd, NULL, "emulation", NULL, NULL);
	done(f, 0);
	xd.mode = 0;

	/* fast_top's register space too small for the template memory (or not given: XRT's 64 KB) */
	xd.fast_range = 0x10000;
	f = expect_fail(&fc, &xd, NULL, "fast_top's register space is 0x10000 bytes", "needs 0x18000", NULL);
	done(f, 0);
	xd.fast_range = 1;
	f = expect_fail(&fc, &xd, NULL, "fast_top's register space is 0x10000 bytes (XRT's default", NULL, NULL);
	done(f, 0);
	xd.fast_range = 0;
	xd.no_meta = 1;
	f = expect_fail(&fc, &xd, NULL, "fast_top's register space", NULL, NULL);
	done(f, 0);
	xd.no_meta = 0;

	/* the register map in the metadata disagrees */
	xd.bad_offset = 1;
	f = expect_fail(&fc, &xd, NULL, "hbm1 register is at 0x48", "0x50", NULL);
	done(f, 0);
	xd.bad_offset = 0;

	/* not an xclbin; truncated; missing */
	{
		struct toe_xrt_params p;
		struct toe_xrt *be = NULL;
		uint8_t *buf = calloc(1, 1 << 16);
		size_t n = tx_xclbin_build(&xd, buf, 1 << 16);
		FILE *fp;
		f = toe_fake_new(NULL);
		snprintf(path, sizeof path, "/tmp/test_xrt_errors_%d", (int)getpid());
		tx_params(&p, path, &cfg, 64);
		fp = fopen(path, "wb");
		CHECK(fp != NULL);
		if (fp) {
			fputs("this is a text file\n", fp);
			fclose(fp);
		}
		CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
		CHECK(strstr(err, "not an xclbin") != NULL);
		CHECK(strstr(err, path) != NULL);
		fp = fopen(path, "wb");
		if (fp) {
			fwrite(buf, 1, n / 2, fp);
			fclose(fp);
		}
		CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
		CHECK(strstr(err, "truncated xclbin") != NULL);
		unlink(path);
		CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
		CHECK(strstr(err, "No such file") != NULL);
		CHECK(!toe_fake_is_open(f));
		done(f, 0);
		free(buf);
	}

	/* registers refused, as XRT's noop shim refuses them: an error, buffers freed, card closed */
	fc.refuse_regs = 1;
	f = expect_fail(&fc, &xd, NULL, "reading register 0x1000 of eth_rx_top failed", "Operation not permitted",
			"noop shim");
	done(f, 0);
	fc.refuse_regs = 0;

	/* kernels that are not toed's, or from another version */
	fc.bad_magic_kid = TOE_KID_UDP;
	f = expect_fail(&fc, &xd, NULL, "udp_top reports magic 0xdeadbeef", "not toed's", NULL);
	done(f, 0);
	fc.bad_magic_kid = 0;
	fc.bad_version_kid = TOE_KID_FAST;
	f = expect_fail(&fc, &xd, NULL, "fast_top speaks register map version 2", "rebuild the xclbin", NULL);
	done(f, 0);
	fc.bad_version_kid = 0;

	/* the ring does not fit its bank */
	{
		struct toe_xrt_params p;
		struct toe_xrt *be = NULL;
		f = toe_fake_new(NULL);
		CHECK_EQ(tx_xclbin_file(&xd, path), 0);
		tx_params(&p, path, &cfg, 1u << 22); /* 512 MB per channel, banks of 256 MB */
		CHECK_EQ(toe_xrt_open(&be, &toe_devops_fake, f, &p, err, sizeof err), -1);
		CHECK(strstr(err, "does not fit bank HBM[4]") != NULL);
		done(f, 0);
		unlink(path);
	}
	return test_done("xrt_errors");
}
