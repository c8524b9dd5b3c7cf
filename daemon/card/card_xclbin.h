/* card_xclbin.h - what toed reads from an xclbin file: UUID, platform, kernels, memory banks.
 *
 * An xclbin is an axlf container (XRT's xclbin.h): a fixed header, section
 * headers, then sections. toed needs, before it touches the card:
 *   - the UUID (checked against the card after loading) and the platform
 *     VBNV it was built for (checked against the card's shell);
 *   - IP_LAYOUT: that every kernel of toe_regmap.h has its compute unit;
 *   - MEM_TOPOLOGY + CONNECTIVITY (or GROUP_TOPOLOGY + GROUP_CONNECTIVITY,
 *     which XRT prefers when present): the memory bank each HBM port of
 *     hbm_writer_top is connected to, the index xrtBOAlloc takes;
 *   - EMBEDDED_METADATA (XML): argument ids of the kernels' ports (the
 *     `arg_index` CONNECTIVITY uses) and their register offsets.
 *
 * The parser reads fields at the byte offsets of xclbin.h's structs (below),
 * little-endian, with every count and offset checked against the file's
 * length: the file is input, not trusted memory. It does not need XRT's
 * headers; tests/integration/test_xrt_noop.sh checks these offsets against
 * xclbin.h and parses files generated from its structs.
 */
#ifndef TOED_XRT_XCLBIN_H
#define TOED_XRT_XCLBIN_H

#include <stddef.h>
#include <stdint.h>

/* ---- layout (xclbin.h, XRT 2.13) ---- */
#define TOE_AXLF_MAGIC "xclbin2"         /* m_magic, NUL-padded to 8 bytes */
#define TOE_AXLF_OFF_HEADER 304          /* offsetof(struct axlf, m_header) */
#define TOE_AXLF_OFF_SECTIONS 456        /* offsetof(struct axlf, m_sections) */
#define TOE_AXLF_SIZE 496                /* sizeof(struct axlf): header + one section header */
#define TOE_AXLF_HDR_LENGTH 0            /* axlf_header.m_length (u64) */
#define TOE_AXLF_HDR_VERSION_PATCH 24    /* u16, then major u8, minor u8 */
#define TOE_AXLF_HDR_MODE 28             /* u16 enum XCLBIN_MODE */
#define TOE_AXLF_HDR_VBNV 48             /* m_platformVBNV[64] */
#define TOE_AXLF_HDR_UUID 112            /* uuid[16] */
#define TOE_AXLF_HDR_NSECTIONS 144       /* u32 */
#define TOE_AXLF_SECT_SIZE 40            /* sizeof(struct axlf_section_header) */
#define TOE_AXLF_SECT_KIND 0             /* u32 */
#define TOE_AXLF_SECT_NAME 4             /* char[16] */
#define TOE_AXLF_SECT_OFFSET 24          /* u64 */
#define TOE_AXLF_SECT_SIZEF 32           /* u64 */
#define TOE_MEM_TOPO_OFF_DATA 8          /* offsetof(struct mem_topology, m_mem_data) */
#define TOE_MEM_DATA_SIZE 40             /* type u8, used u8, pad 6, size_kb u64 @8, base u64 @16, tag[16] @24 */
#define TOE_CONN_OFF_DATA 4              /* offsetof(struct connectivity, m_connection) */
#define TOE_CONN_SIZE 12                 /* arg_index, m_ip_layout_index, mem_data_index (i32) */
#define TOE_IP_LAYOUT_OFF_DATA 8         /* offsetof(struct ip_layout, m_ip_data) */
#define TOE_IP_DATA_SIZE 80              /* type u32, properties u32, base u64 @8, name[64] @16 */
#define TOE_AXLF_MAX_SECTIONS 0x10000    /* XCLBIN_MAX_NUM_SECTION */

/* enum axlf_section_kind */
#define TOE_SECT_EMBEDDED_METADATA 2
#define TOE_SECT_MEM_TOPOLOGY 6
#define TOE_SECT_CONNECTIVITY 7
#define TOE_SECT_IP_LAYOUT 8
#define TOE_SECT_GROUP_TOPOLOGY 26
#define TOE_SECT_GROUP_CONNECTIVITY 27
/* enum MEM_TYPE, enum IP_TYPE, enum XCLBIN_MODE (the values toed looks at) */
#define TOE_MEM_HBM 6
#define TOE_IP_KERNEL 1
#define TOE_XCLBIN_FLAT 0
#define TOE_XCLBIN_PR 1
#define TOE_XCLBIN_HW_EMU 4
#define TOE_XCLBIN_SW_EMU 5
#define TOE_XCLBIN_HW_EMU_PR 6

/* ---- parsed content ---- */
#define TOE_XCLBIN_MAX_MEMS 256
#define TOE_XCLBIN_MAX_IPS 128
#define TOE_XCLBIN_MAX_CONNS 1024
#define TOE_XCLBIN_MAX_ARGS 256
#define TOE_XCLBIN_MAX_KERNELS 32
#define TOE_XRT_DEFAULT_CU_RANGE 0x10000u /* XRT's address range of a CU whose metadata gives none */

struct toe_xclbin_mem {
	uint8_t type;     /* MEM_TYPE */
	uint8_t used;
	uint64_t size_kb;
	uint64_t base;
	char tag[17];     /* "HBM[0]" */
};

struct toe_xclbin_ip {
	uint32_t type;    /* IP_TYPE */
	uint32_t props;
	uint64_t base;
	char name[65];    /* "kernel:cu" */
};

struct toe_xclbin_conn {
	int32_t arg, ip, mem;
};

struct toe_xclbin_arg {
	char kernel[64];
	char name[48];
	uint32_t id;
	uint32_t offset;     /* register offset of the argument */
	uint8_t has_offset;
};

struct toe_xclbin_kernel {
	char name[64];
	uint32_t range;      /* AXI-Lite address range: <port mode="slave" range=...> */
	uint8_t has_range;
};

struct toe_xclbin {
	uint8_t uuid[16];
	char vbnv[65];
	uint16_t mode;       /* XCLBIN_MODE */
	uint8_t ver_major, ver_minor;
	uint16_t ver_patch;
	uint64_t length;
	uint32_t nsections;
	int has_mem, has_ip, has_conn, has_meta;
	int mem_is_group;    /* mem[] and conn[] come from GROUP_TOPOLOGY / GROUP_CONNECTIVITY */
	uint32_t nmem, nip, nconn, narg, nkernel;
	struct toe_xclbin_mem mem[TOE_XCLBIN_MAX_MEMS];
	struct toe_xclbin_ip ip[TOE_XCLBIN_MAX_IPS];
	struct toe_xclbin_conn conn[TOE_XCLBIN_MAX_CONNS];
	struct toe_xclbin_arg arg[TOE_XCLBIN_MAX_ARGS];
	struct toe_xclbin_kernel kernel[TOE_XCLBIN_MAX_KERNELS];
};

/* Parse buf[0..len). 0, or -1 with the reason in err. x is about 130 KB:
 * allocate it. */
int toe_xclbin_parse(const uint8_t *buf, size_t len, struct toe_xclbin *x, char *err, size_t errlen);
/* Read and parse a file ("path: reason" in err). */
int toe_xclbin_read(const char *path, struct toe_xclbin *x, char *err, size_t errlen);

/* Index in ip[] of the compute unit named as xrt::ip names it
 * ("kernel:{cu}"; the IP_LAYOUT says "kernel:cu"), or -1. */
int toe_xclbin_find_ip(const struct toe_xclbin *x, const char *xrt_name);
/* The argument `arg` of kernel `kernel` from the metadata, or NULL. */
const struct toe_xclbin_arg *toe_xclbin_find_arg(const struct toe_xclbin *x, const char *kernel, const char *arg);
/* The register space xrt::ip allows for a CU of `kernel`: its slave port's
 * range in the metadata, else XRT's default (64 KB); XRT refuses accesses
 * beyond it. */
uint32_t toe_xclbin_cu_range(const struct toe_xclbin *x, const char *kernel);
/* Memory bank (index in mem[]) argument arg_id of CU ip is connected to, or -1. */
int toe_xclbin_arg_bank(const struct toe_xclbin *x, int ip, uint32_t arg_id);

/* "e6b9...-..." */
void toe_uuid_str(const uint8_t uuid[16], char out[37]);

/* The platform a VBNV names, without the parts that differ between the
 * development platform an xclbin is built for and the base shell flashed on
 * the card: "xilinx_u50_gen3x16_xdma_5_202210_1" and
 * "xilinx_u50_gen3x16_xdma_base_5" both give "xilinx_u50_gen3x16_xdma_5". */
void toe_platform_key(const char *vbnv, char *out, size_t len);
/* The card a VBNV names ("u50"), or "" when it does not say. */
void toe_platform_board(const char *vbnv, char *out, size_t len);

#endif
