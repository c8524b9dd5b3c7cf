/* card_dev.h - the device-operations seam between toed's card backend and the card.
 *
 * The backend logic (card_backend.c: bring-up checks, programming, the ring
 * drain) talks to the card only through a struct toe_devops, a table of the
 * few operations it needs. Two implementations:
 *
 *   toe_devops_xrt   (card_xrt.c)  the real card through XRT: the C API for
 *                    the device, the xclbin and buffers, xrt::ip (C++, via
 *                    card_ip.cpp) for registers of the free-running kernels;
 *   toe_devops_fake  (tests/lib/card_fake.c)  the test double: a fake card
 *                    that runs the kernels' C code and keeps separate device
 *                    and host copies of every buffer, so a missing sync
 *                    shows; the unit tests and the test program toed_test
 *                    use it, the release toed does not contain it.
 *
 * The caller picks the table: toed's main passes toe_devops_xrt to
 * toed_run() (dp_thread.h, struct toed_dp_seams).
 *
 * Conventions: functions returning int give 0 or a negative errno value;
 * those with err/errlen also leave a one-line reason there (without the
 * device or file name, which the caller adds). Handles are opaque.
 */
#ifndef TOED_XRT_DEV_H
#define TOED_XRT_DEV_H

#include <stddef.h>
#include <stdint.h>

#define TOE_SYNC_TO_DEVICE 0   /* XCL_BO_SYNC_BO_TO_DEVICE */
#define TOE_SYNC_FROM_DEVICE 1 /* XCL_BO_SYNC_BO_FROM_DEVICE */

struct toe_devops {
	const char *name; /* "xrt", "fake" */

	/* Open the card at PCI BDF `pci` ("dddd:bb:dd.f"; "" = the first card).
	 * ctx: implementation data (the fake's instance; NULL for XRT).
	 * -ENODEV when there is no such card. */
	int (*open)(void *ctx, const char *pci, void **dev, char *err, size_t errlen);
	void (*close)(void *dev);

	/* Load the xclbin file onto the card (it replaces what runs there). */
	int (*load_xclbin)(void *dev, const char *path, char *err, size_t errlen);
	/* UUID of the xclbin the card runs now. */
	int (*xclbin_uuid)(void *dev, uint8_t uuid[16]);
	/* VBNV of the shell flashed on the card ("xilinx_u50_gen3x16_xdma_base_5");
	 * -ENOTSUP when the device cannot tell (XRT's noop shim). */
	int (*platform)(void *dev, char *name, size_t len);

	/* Buffer objects: size bytes in memory bank `bank` (the index XRT's
	 * xrtBOAlloc takes: MEM_TOPOLOGY, or GROUP_TOPOLOGY when present). */
	int (*bo_alloc)(void *dev, uint64_t size, uint32_t bank, void **bo, char *err, size_t errlen);
	void (*bo_free)(void *bo);
	void *(*bo_map)(void *bo);          /* host copy; NULL on error */
	uint64_t (*bo_addr)(void *bo);      /* device address (what a kernel's m_axi port takes) */
	/* Copy [off, off+size) between host and device copy (TOE_SYNC_*). */
	int (*bo_sync)(void *bo, int dir, uint64_t off, uint64_t size);

	/* Register access to one compute unit by its xrt::ip name
	 * ("kernel:{cu}", TOE_IP_* of toe_regmap.h). ip_open fails when the
	 * loaded xclbin has no such CU; reads and writes may fail later (the
	 * noop shim refuses them): ip_error then says why. */
	int (*ip_open)(void *dev, const char *name, void **ip, char *err, size_t errlen);
	void (*ip_close)(void *ip);
	int (*reg_read)(void *ip, uint32_t off, uint32_t *val);
	int (*reg_write)(void *ip, uint32_t off, uint32_t val);
	const char *(*ip_error)(void *ip); /* reason of the last failed read/write ("" none) */
};

/* XRT; without XRT at build time (TOED_HAVE_XRT undefined) every open fails
 * with "built without XRT". */
extern const struct toe_devops toe_devops_xrt;
/* 1 when toe_devops_xrt is the real thing. */
int toe_devops_xrt_available(void);

#endif
