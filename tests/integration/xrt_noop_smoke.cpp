// xrt_noop_smoke.cpp - toed's real XRT device operations against XRT's noop shim (or the real shim, no card).
//
//   xrt_noop_smoke noop XCLBIN UUID32HEX   linked with -lxrt_noop: open, load, UUID, buffers, registers refused
//   xrt_noop_smoke real XCLBIN             linked with -lxrt_core on a machine without a card at the BDF used
//
// Built by tests/integration/test_xrt_noop.sh (C++17, XRT headers, daemon/card/card_xrt.c with TOED_HAVE_XRT,
// daemon/card/card_ip.cpp). Prints one line per step; exit 0 when every step gave what it should.
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <xrt/xclbin.h>

extern "C" {
#include "card/card_backend.h"
#include "card/card_dev.h"
#include "card/card_xclbin.h"
}

// daemon/card/card_xclbin.c reads the file at these offsets: they must be xclbin.h's
static_assert(offsetof(axlf, m_header) == TOE_AXLF_OFF_HEADER, "axlf.m_header");
static_assert(offsetof(axlf, m_sections) == TOE_AXLF_OFF_SECTIONS, "axlf.m_sections");
static_assert(sizeof(axlf) == TOE_AXLF_SIZE, "sizeof axlf");
static_assert(offsetof(axlf_header, m_length) == TOE_AXLF_HDR_LENGTH, "m_length");
static_assert(offsetof(axlf_header, m_versionPatch) == TOE_AXLF_HDR_VERSION_PATCH, "m_versionPatch");
static_assert(offsetof(axlf_header, m_versionMajor) == TOE_AXLF_HDR_VERSION_PATCH + 2, "m_versionMajor");
static_assert(offsetof(axlf_header, m_mode) == TOE_AXLF_HDR_MODE, "m_mode");
static_assert(offsetof(axlf_header, m_platformVBNV) == TOE_AXLF_HDR_VBNV, "m_platformVBNV");
static_assert(offsetof(axlf_header, uuid) == TOE_AXLF_HDR_UUID, "uuid");
static_assert(offsetof(axlf_header, m_numSections) == TOE_AXLF_HDR_NSECTIONS, "m_numSections");
static_assert(sizeof(axlf_section_header) == TOE_AXLF_SECT_SIZE, "axlf_section_header");
static_assert(offsetof(axlf_section_header, m_sectionName) == TOE_AXLF_SECT_NAME, "m_sectionName");
static_assert(offsetof(axlf_section_header, m_sectionOffset) == TOE_AXLF_SECT_OFFSET, "m_sectionOffset");
static_assert(offsetof(axlf_section_header, m_sectionSize) == TOE_AXLF_SECT_SIZEF, "m_sectionSize");
static_assert(offsetof(mem_topology, m_mem_data) == TOE_MEM_TOPO_OFF_DATA, "mem_topology");
static_assert(sizeof(mem_data) == TOE_MEM_DATA_SIZE, "mem_data");
static_assert(offsetof(mem_data, m_size) == 8 && offsetof(mem_data, m_base_address) == 16 &&
		      offsetof(mem_data, m_tag) == 24,
	      "mem_data fields");
static_assert(offsetof(connectivity, m_connection) == TOE_CONN_OFF_DATA, "connectivity");
static_assert(sizeof(connection) == TOE_CONN_SIZE, "connection");
static_assert(offsetof(ip_layout, m_ip_data) == TOE_IP_LAYOUT_OFF_DATA, "ip_layout");
static_assert(sizeof(ip_data) == TOE_IP_DATA_SIZE, "ip_data");
static_assert(offsetof(ip_data, m_base_address) == 8 && offsetof(ip_data, m_name) == 16, "ip_data fields");
static_assert(EMBEDDED_METADATA == TOE_SECT_EMBEDDED_METADATA && MEM_TOPOLOGY == TOE_SECT_MEM_TOPOLOGY &&
		      CONNECTIVITY == TOE_SECT_CONNECTIVITY && IP_LAYOUT == TOE_SECT_IP_LAYOUT &&
		      ASK_GROUP_TOPOLOGY == TOE_SECT_GROUP_TOPOLOGY && ASK_GROUP_CONNECTIVITY == TOE_SECT_GROUP_CONNECTIVITY,
	      "section kinds");
static_assert(MEM_HBM == TOE_MEM_HBM && IP_KERNEL == TOE_IP_KERNEL && XCLBIN_HW_EMU == TOE_XCLBIN_HW_EMU &&
		      XCLBIN_SW_EMU == TOE_XCLBIN_SW_EMU && XCLBIN_HW_EMU_PR == TOE_XCLBIN_HW_EMU_PR,
	      "enum values");

static int failures;

#define EXPECT(cond, ...)                                               \
	do {                                                            \
		if (cond) {                                             \
			std::printf("ok: " __VA_ARGS__);                \
		} else {                                                \
			failures++;                                     \
			std::printf("FAIL (%s:%d): ", __FILE__, __LINE__); \
			std::printf(__VA_ARGS__);                       \
		}                                                       \
		std::printf("\n");                                      \
	} while (0)

static const char *const ips[] = { TOE_IP_ETH_RX, TOE_IP_MTOE, TOE_IP_UDP, TOE_IP_FAST, TOE_IP_HBM, TOE_IP_CMAC };

static struct rx_cfg cfg;
static struct fast_prog prog; // its content does not matter: the open stops before programming

static void params(struct toe_xrt_params *p, const char *pci, const char *xclbin)
{
	std::memset(p, 0, sizeof *p);
	rx_cfg_default(&cfg);
	cfg.mtoe.max_conns = 8;
	p->pci = pci;
	p->xclbin = xclbin;
	p->rx = &cfg;
	p->prog = &prog;
	p->hw.ring_slots = 1024;
}

static int noop(const char *path, const char *uuid_hex)
{
	const struct toe_devops *ops = &toe_devops_xrt;
	static struct toe_xclbin x;
	char err[1024], u[37], want[37];
	uint8_t uuid[16];
	void *dev = nullptr;
	void *bo[4] = {};
	int r, i;

	EXPECT(toe_devops_xrt_available(), "real XRT device operations built in");
	r = toe_xclbin_read(path, &x, err, sizeof err);
	EXPECT(r == 0, "parsed %s (%s)", path, r ? err : "");
	if (r)
		return 1;
	std::snprintf(want, sizeof want, "%.8s-%.4s-%.4s-%.4s-%.12s", uuid_hex, uuid_hex + 8, uuid_hex + 12,
		      uuid_hex + 16, uuid_hex + 20);
	toe_uuid_str(x.uuid, u);
	EXPECT(!std::strcmp(u, want), "file UUID %s", u);
	int hbm = toe_xclbin_find_ip(&x, TOE_IP_HBM);
	EXPECT(x.nip == 8 && hbm >= 0, "8 compute units (gtoe_top, tx_arb_top too), hbm_writer_top at %d", hbm);
	EXPECT(toe_xclbin_cu_range(&x, "fast_top") == 0x20000 && toe_xclbin_cu_range(&x, "hbm_writer_top") == 0x4000,
	       "register space: fast_top 0x%x, hbm_writer_top 0x%x", toe_xclbin_cu_range(&x, "fast_top"),
	       toe_xclbin_cu_range(&x, "hbm_writer_top"));
	for (i = 0; i < 4; i++) {
		char port[16], tag[24];
		std::snprintf(port, sizeof port, "hbm%d", i);
		std::snprintf(tag, sizeof tag, "HBM[%d]", i);
		const struct toe_xclbin_arg *a = toe_xclbin_find_arg(&x, "hbm_writer_top", port);
		int b = a ? toe_xclbin_arg_bank(&x, hbm, a->id) : -1;
		EXPECT(a && a->offset == 0x40u + 0x10u * (unsigned)i && b == i && !std::strcmp(x.mem[b].tag, tag),
		       "%s: argument %u, register 0x%x, bank %d (%s)", port, a ? a->id : 0, a ? a->offset : 0, b,
		       b >= 0 ? x.mem[b].tag : "-");
	}

	r = ops->open(nullptr, "0000:af:00.1", &dev, err, sizeof err);
	EXPECT(r == -ENODEV && !dev, "open by a BDF the noop shim does not have: %d (%s)", r, err);
	r = ops->open(nullptr, "", &dev, err, sizeof err);
	EXPECT(r == 0 && dev, "open the first device (%s)", r ? err : "");
	if (r)
		return 1;
	r = ops->platform(dev, err, sizeof err);
	EXPECT(r == -ENOTSUP, "the noop shim cannot tell its shell: %d", r);
	r = ops->load_xclbin(dev, path, err, sizeof err);
	EXPECT(r == 0, "load_xclbin (%s)", r ? err : "");
	r = ops->xclbin_uuid(dev, uuid);
	toe_uuid_str(uuid, u);
	EXPECT(r == 0 && !std::memcmp(uuid, x.uuid, 16), "the device reports the file's UUID %s", u);

	for (i = 0; i < 4; i++) {
		int b = toe_xclbin_arg_bank(&x, hbm, 1 + (uint32_t)i);
		r = ops->bo_alloc(dev, 1 << 20, (uint32_t)b, &bo[i], err, sizeof err);
		EXPECT(r == 0 && bo[i], "1 MB buffer in bank %d %s (%s)", b, b >= 0 ? x.mem[b].tag : "", r ? err : "");
		if (r)
			continue;
		uint8_t *m = static_cast<uint8_t *>(ops->bo_map(bo[i]));
		EXPECT(m != nullptr, "mapped at %p, device address 0x%llx", (void *)m,
		       (unsigned long long)ops->bo_addr(bo[i]));
		if (m) {
			std::memset(m, 0x5a, 1 << 20);
			r = ops->bo_sync(bo[i], TOE_SYNC_TO_DEVICE, 0, 1 << 20);
			EXPECT(r == 0, "sync to device: %d", r);
			r = ops->bo_sync(bo[i], TOE_SYNC_FROM_DEVICE, 4096, 256);
			EXPECT(r == 0, "sync from device, 256 bytes at 4096: %d", r);
		}
	}

	for (const char *name : ips) {
		void *ip = nullptr;
		uint32_t v = 0;
		r = ops->ip_open(dev, name, &ip, err, sizeof err);
		EXPECT(r == 0 && ip, "xrt::ip %s (%s)", name, r ? err : "");
		if (r)
			continue;
		r = ops->reg_read(ip, TOE_STAT(TOE_ST_MAGIC), &v);
		EXPECT(r < 0 && *ops->ip_error(ip), "register read refused cleanly: %d, %s", r, ops->ip_error(ip));
		r = ops->reg_write(ip, TOE_CFG(TOE_CF_APPLY), 0);
		EXPECT(r < 0 && *ops->ip_error(ip), "register write refused cleanly: %d, %s", r, ops->ip_error(ip));
		ops->ip_close(ip);
	}
	{
		void *ip = nullptr;
		r = ops->ip_open(dev, "nope:{nope_1}", &ip, err, sizeof err);
		EXPECT(r < 0 && !ip && std::strstr(err, "nope"), "no such compute unit: %d (%s)", r, err);
	}
	for (i = 0; i < 4; i++)
		if (bo[i])
			ops->bo_free(bo[i]);
	ops->close(dev);

	// the whole bring-up: as far as the noop shim goes, then a clean error
	struct toe_xrt_params p;
	struct toe_xrt *be = nullptr;
	params(&p, "", path);
	r = toe_xrt_open(&be, ops, nullptr, &p, err, sizeof err);
	EXPECT(r == -1 && !be && std::strstr(err, "reading register 0x1000 of eth_rx_top failed") &&
		       std::strstr(err, "noop shim"),
	       "toe_xrt_open on the noop shim: %s", err);
	params(&p, "0000:af:00.1", path);
	r = toe_xrt_open(&be, ops, nullptr, &p, err, sizeof err);
	EXPECT(r == -1 && std::strstr(err, "no Alveo card at PCI 0000:af:00.1"), "toe_xrt_open at a missing BDF: %s",
	       err);
	return failures ? 1 : 0;
}

// The real shim on a machine without a card at this BDF. Never asks for the
// first card: on a machine with one, that would reprogram it.
static int real(const char *path)
{
	struct toe_xrt_params p;
	struct toe_xrt *be = nullptr;
	char err[1024];
	params(&p, "0000:ff:1f.7", path);
	int r = toe_xrt_open(&be, &toe_devops_xrt, nullptr, &p, err, sizeof err);
	EXPECT(r == -1 && std::strstr(err, "no Alveo card at PCI 0000:ff:1f.7") && std::strstr(err, "XRT sees"),
	       "real shim, no card: %s", err);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !std::strcmp(argv[1], "noop") && std::strlen(argv[3]) == 32)
		return noop(argv[2], argv[3]);
	if (argc == 3 && !std::strcmp(argv[1], "real"))
		return real(argv[2]);
	std::fprintf(stderr, "usage: xrt_noop_smoke noop XCLBIN UUID32HEX | real XCLBIN\n");
	return 2;
}
