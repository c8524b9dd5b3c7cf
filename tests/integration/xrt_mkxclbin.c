/* xrt_mkxclbin.c - write a metadata-only xclbin for toed from XRT's own xclbin.h structures.
 *
 *   xrt_mkxclbin OUT [UUID32HEX] [OMIT_KERNEL] [VBNV]
 *
 * The file has what toed and XRT read without a bitstream: the axlf header
 * (magic, length, platform VBNV, UUID), MEM_TOPOLOGY with the U50's 32 HBM
 * pseudo-channels, IP_LAYOUT with toed's compute units (cmac_0 and the seven
 * HLS tops, ap_ctrl_none, as kernels/hw/link.cfg names them, minus
 * OMIT_KERNEL when given), CONNECTIVITY wiring hbm_writer_top's hbm0..hbm3
 * (arguments 1..4) to HBM[0..3] as link.cfg's sp= lines do, and the
 * EMBEDDED_METADATA a v++ link writes for hbm_writer_top's arguments and
 * the AXI-Lite ranges XRT sizes xrt::ip by (fast_top's template memory
 * reaches 0x18000: 128 KB; 64 KB is XRT's default). XRT's
 * noop shim loads it (tests/integration/test_xrt_noop.sh). UUID: random
 * unless given. Exit 77 where XRT's headers are missing.
 */
#if defined(__has_include)
#if __has_include(<xrt/xclbin.h>) && __has_include(<uuid/uuid.h>)
#define HAVE_XCLBIN_H 1
#endif
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAVE_XCLBIN_H

int main(void)
{
	printf("SKIP: XRT's xclbin.h or uuid/uuid.h missing (apt-get install libxrt-dev uuid-dev)\n");
	return 77;
}

#else

#include <stddef.h>
#include <sys/random.h>
#include <xrt/xclbin.h>

#define NBANKS 32
#define MAXSECT 8

static unsigned char buf[1 << 16];
static size_t used;

/* Room for a section of n bytes, 8-byte aligned; returns its offset. */
static size_t take(size_t n)
{
	size_t off = (used + 7) & ~(size_t)7;
	if (off + n > sizeof buf) {
		fprintf(stderr, "xrt_mkxclbin: too big\n");
		exit(1);
	}
	used = off + n;
	return off;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	/* the 100G build's eight; with OMIT_KERNEL "4x10g" the 4 x 10G build's (no cmac_0, the rest) */
	static const char *const cus[] = { "cmac_0:cmac_0",          "eth_rx_top:eth_rx_top_1",
					   "mirror_toe_top:mirror_toe_top_1", "udp_top:udp_top_1",
					   "fast_top:fast_top_1",     "hbm_writer_top:hbm_writer_top_1",
					   "gtoe_top:gtoe_top_1",     "tx_arb_top:tx_arb_top_1",
					   "eth_rx_top:eth_rx_top_2", "eth_rx_top:eth_rx_top_3",
					   "eth_rx_top:eth_rx_top_4", "port_mux_top:seg_mux_1",
					   "port_mux_top:udp_mux_1",  "port_mux_top:gtoe_mux_1",
					   "eth10g_0:eth10g_0" };
	const int ncus = (int)(sizeof cus / sizeof cus[0]);
	static const char meta[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<project name=\"toed\">\n"
		"  <platform vendor=\"xilinx\" boardid=\"u50\" name=\"gen3x16_xdma\" featureRomTime=\"0\">\n"
		"    <device name=\"fpga0\" fpgaDevice=\"virtexuplushbm\" addrWidth=\"0\">\n"
		"      <core name=\"OCL_REGION_0\" target=\"bitstream\" type=\"clc_region\">\n"
		"        <kernel name=\"fast_top\" language=\"c\" vlnv=\"xilinx.com:hls:fast_top:1.0\" "
		"hwControlProtocol=\"ap_ctrl_none\">\n"
		"          <port name=\"S_AXI_CONTROL\" mode=\"slave\" range=\"0x20000\" dataWidth=\"32\" portType=\"addressable\" "
		"base=\"0x0\"/>\n"
		"        </kernel>\n"
		"        <kernel name=\"hbm_writer_top\" language=\"c\" vlnv=\"xilinx.com:hls:hbm_writer_top:1.0\" "
		"hwControlProtocol=\"ap_ctrl_none\">\n"
		"          <port name=\"S_AXI_CONTROL\" mode=\"slave\" range=\"0x4000\" dataWidth=\"32\" portType=\"addressable\" "
		"base=\"0x0\"/>\n"
		"          <port name=\"M_AXI_HBM0\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" dataWidth=\"512\" "
		"portType=\"addressable\" base=\"0x0\"/>\n"
		"          <arg name=\"rec_in\" addressQualifier=\"4\" id=\"0\" port=\"rec_in\" size=\"0x0\" offset=\"0x0\"/>\n"
		"          <arg name=\"hbm0\" addressQualifier=\"1\" id=\"1\" port=\"M_AXI_HBM0\" size=\"0x8\" offset=\"0x40\"/>\n"
		"          <arg name=\"hbm1\" addressQualifier=\"1\" id=\"2\" port=\"M_AXI_HBM1\" size=\"0x8\" offset=\"0x50\"/>\n"
		"          <arg name=\"hbm2\" addressQualifier=\"1\" id=\"3\" port=\"M_AXI_HBM2\" size=\"0x8\" offset=\"0x60\"/>\n"
		"          <arg name=\"hbm3\" addressQualifier=\"1\" id=\"4\" port=\"M_AXI_HBM3\" size=\"0x8\" offset=\"0x70\"/>\n"
		"        </kernel>\n"
		"      </core>\n"
		"    </device>\n"
		"  </platform>\n"
		"</project>\n";
	const char *out, *omit = argc > 3 ? argv[3] : "", *vbnv = argc > 4 ? argv[4] : "xilinx_u50_gen3x16_xdma_5_202210_1";
	struct axlf *a = (struct axlf *)buf;
	struct mem_topology *mt;
	struct ip_layout *ipl;
	struct connectivity *cn;
	/* the headers run past m_sections[1]: address them from the buffer */
	struct axlf_section_header *sh = (struct axlf_section_header *)(buf + offsetof(struct axlf, m_sections));
	size_t off, sz;
	int i, nip = 0, hbm_ip = -1, nsect = 4;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: xrt_mkxclbin OUT [UUID32HEX] [OMIT_KERNEL | 4x10g] [VBNV]\n");
		return 2;
	}
	out = argv[1];
	used = offsetof(struct axlf, m_sections) + (size_t)nsect * sizeof(struct axlf_section_header);

	memcpy(a->m_magic, "xclbin2", 8);
	a->m_signature_length = -1;
	memset(a->reserved, 0xff, sizeof a->reserved);
	a->m_header.m_timeStamp = 1700000000;
	a->m_header.m_versionMajor = 2;
	a->m_header.m_versionMinor = 13;
	a->m_header.m_mode = XCLBIN_FLAT;
	snprintf((char *)a->m_header.m_platformVBNV, sizeof a->m_header.m_platformVBNV, "%s", vbnv);
	if (argc > 2 && strlen(argv[2]) == 32) {
		for (i = 0; i < 16; i++) {
			int h = hexval(argv[2][2 * i]), l = hexval(argv[2][2 * i + 1]);
			if (h < 0 || l < 0) {
				fprintf(stderr, "xrt_mkxclbin: bad UUID %s\n", argv[2]);
				return 2;
			}
			a->m_header.uuid[i] = (unsigned char)(h << 4 | l);
		}
	} else if (getrandom(a->m_header.uuid, sizeof a->m_header.uuid, 0) != (ssize_t)sizeof a->m_header.uuid) {
		fprintf(stderr, "xrt_mkxclbin: getrandom failed\n");
		return 1;
	}
	a->m_header.m_numSections = (uint32_t)nsect;

	/* MEM_TOPOLOGY: HBM[0..31], 256 MB each */
	sz = offsetof(struct mem_topology, m_mem_data) + NBANKS * sizeof(struct mem_data);
	off = take(sz);
	mt = (struct mem_topology *)(buf + off);
	mt->m_count = NBANKS;
	for (i = 0; i < NBANKS; i++) {
		mt->m_mem_data[i].m_type = MEM_HBM;
		mt->m_mem_data[i].m_used = 1;
		mt->m_mem_data[i].m_size = 256 * 1024;
		mt->m_mem_data[i].m_base_address = (uint64_t)i << 28;
		snprintf((char *)mt->m_mem_data[i].m_tag, sizeof mt->m_mem_data[i].m_tag, "HBM[%d]", i);
	}
	sh[0].m_sectionKind = MEM_TOPOLOGY;
	snprintf(sh[0].m_sectionName, sizeof sh[0].m_sectionName, "mem_topology");
	sh[0].m_sectionOffset = off;
	sh[0].m_sectionSize = sz;

	/* IP_LAYOUT: the compute units, free-running */
	sz = offsetof(struct ip_layout, m_ip_data) + (size_t)ncus * sizeof(struct ip_data);
	off = take(sz);
	ipl = (struct ip_layout *)(buf + off);
	for (i = 0; i < ncus; i++) {
		struct ip_data *d = &ipl->m_ip_data[nip];
		int four = !strcmp(omit, "4x10g");
		if ((four && i == 0) || (!four && i >= 8))
			continue;
		if (omit[0] && !strncmp(cus[i], omit, strlen(omit)) && cus[i][strlen(omit)] == ':')
			continue;
		if (!strncmp(cus[i], "hbm_writer_top:", 15))
			hbm_ip = nip;
		d->m_type = IP_KERNEL;
		d->properties = (uint32_t)AP_CTRL_NONE << IP_CONTROL_SHIFT;
		d->m_base_address = 0x1800000ull + 0x40000ull * (uint64_t)nip;
		snprintf((char *)d->m_name, sizeof d->m_name, "%s", cus[i]);
		nip++;
	}
	ipl->m_count = nip;
	sz = offsetof(struct ip_layout, m_ip_data) + (size_t)nip * sizeof(struct ip_data);
	sh[1].m_sectionKind = IP_LAYOUT;
	snprintf(sh[1].m_sectionName, sizeof sh[1].m_sectionName, "ip_layout");
	sh[1].m_sectionOffset = off;
	sh[1].m_sectionSize = sz;

	/* CONNECTIVITY: sp=hbm_writer_top_1.hbmN:HBM[N] */
	sz = offsetof(struct connectivity, m_connection) + 4 * sizeof(struct connection);
	off = take(sz);
	cn = (struct connectivity *)(buf + off);
	cn->m_count = hbm_ip >= 0 ? 4 : 0;
	for (i = 0; i < 4 && hbm_ip >= 0; i++) {
		cn->m_connection[i].arg_index = 1 + i;
		cn->m_connection[i].m_ip_layout_index = hbm_ip;
		cn->m_connection[i].mem_data_index = i;
	}
	sh[2].m_sectionKind = CONNECTIVITY;
	snprintf(sh[2].m_sectionName, sizeof sh[2].m_sectionName, "connectivity");
	sh[2].m_sectionOffset = off;
	sh[2].m_sectionSize = sz;

	/* EMBEDDED_METADATA */
	sz = sizeof meta - 1;
	off = take(sz);
	memcpy(buf + off, meta, sz);
	sh[3].m_sectionKind = EMBEDDED_METADATA;
	snprintf(sh[3].m_sectionName, sizeof sh[3].m_sectionName, "metadata");
	sh[3].m_sectionOffset = off;
	sh[3].m_sectionSize = sz;

	a->m_header.m_length = used;
	f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, used, f) != used || fclose(f) != 0) {
		perror(out);
		return 1;
	}
	return 0;
}

#endif
