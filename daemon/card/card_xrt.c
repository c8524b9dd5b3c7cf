/* card_xrt.c - toe_devops_xrt: the device operations on a real card, through XRT (see card_dev.h).
 *
 * Device, xclbin and buffers through XRT's C API; registers through xrt::ip
 * (card_ip.cpp), because the C kernel API refuses toed's ap_ctrl_none
 * kernels. XRT's console log (its banner and its own error lines) is
 * silenced before the first call: toed reports every failure itself, in one
 * line. TOED_XRT_VERBOSITY=N in the environment gives XRT's log back
 * (Runtime.verbosity, 0..7).
 *
 * Built for real when TOED_HAVE_XRT is defined (with -isystem
 * /usr/include/xrt, linked with -Wl,--no-as-needed -lxrt_core
 * -Wl,--as-needed -lxrt_coreutil and xrt_ip.o, -lstdc++); otherwise every
 * open fails with "built without XRT" and nothing references XRT.
 */
#include "card/card_dev.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef TOED_HAVE_XRT

#include <stdlib.h>

#include <experimental/xrt_ini.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>

#include "card/card_ip.h"

static void quiet_xrt(void)
{
	static int done;
	const char *v = getenv("TOED_XRT_VERBOSITY");
	if (done)
		return;
	done = 1;
	/* must precede every other XRT call: XRT reads its configuration once */
	xrtIniUintSet("Runtime.verbosity", v && *v ? (unsigned)strtoul(v, NULL, 10) : 0u);
}

static const char *errtext(int e, const char *dflt)
{
	return e ? strerror(e) : dflt;
}

static int x_open(void *ctx, const char *pci, void **dev, char *err, size_t errlen)
{
	xrtDeviceHandle d;
	char list[512];
	int n, e;
	(void)ctx;
	quiet_xrt();
	errno = 0;
	d = pci && pci[0] ? xrtDeviceOpenByBDF(pci) : xrtDeviceOpen(0);
	e = errno;
	if (d) {
		*dev = d;
		return 0;
	}
	n = toe_xrtdev_list(list, sizeof list);
	if (n > 0)
		snprintf(err, errlen, "XRT: %s; XRT sees %d card%s: %s", errtext(e, "no such device"), n, n == 1 ? "" : "s",
			 list);
	else
		snprintf(err, errlen, "XRT: %s; XRT sees no card", errtext(e, "no such device"));
	return e == 0 || e == ENODEV || e == EINVAL || e == ENOENT ? -ENODEV : -e;
}

static void x_close(void *dev)
{
	xrtDeviceClose((xrtDeviceHandle)dev);
}

static int x_load(void *dev, const char *path, char *err, size_t errlen)
{
	int r;
	errno = 0;
	r = xrtDeviceLoadXclbinFile((xrtDeviceHandle)dev, path);
	if (r == 0)
		return 0;
	r = r < 0 ? -r : r;
	snprintf(err, errlen, "XRT: %s", strerror(errno ? errno : r));
	return -(errno ? errno : r);
}

static int x_uuid(void *dev, uint8_t uuid[16])
{
	xuid_t u;
	int r = xrtDeviceGetXclbinUUID((xrtDeviceHandle)dev, u);
	if (r)
		return r < 0 ? r : -r;
	memcpy(uuid, u, 16);
	return 0;
}

static int x_platform(void *dev, char *name, size_t len)
{
	return toe_xrtdev_name(dev, name, len);
}

static int x_bo_alloc(void *dev, uint64_t size, uint32_t bank, void **bo, char *err, size_t errlen)
{
	xrtBufferHandle b;
	errno = 0;
	b = xrtBOAlloc((xrtDeviceHandle)dev, (size_t)size, XRT_BO_FLAGS_NONE, (xrtMemoryGroup)bank);
	if (!b) {
		snprintf(err, errlen, "XRT: %s", errtext(errno, "allocation failed"));
		return errno ? -errno : -ENOMEM;
	}
	*bo = b;
	return 0;
}

static void x_bo_free(void *bo)
{
	xrtBOFree((xrtBufferHandle)bo);
}

static void *x_bo_map(void *bo)
{
	return xrtBOMap((xrtBufferHandle)bo);
}

static uint64_t x_bo_addr(void *bo)
{
	return xrtBOAddress((xrtBufferHandle)bo);
}

static int x_bo_sync(void *bo, int dir, uint64_t off, uint64_t size)
{
	int r = xrtBOSync((xrtBufferHandle)bo, dir == TOE_SYNC_FROM_DEVICE ? XCL_BO_SYNC_BO_FROM_DEVICE :
									   XCL_BO_SYNC_BO_TO_DEVICE,
			  (size_t)size, (size_t)off);
	if (r == 0)
		return 0;
	return r < 0 ? r : -r;
}

static int x_ip_open(void *dev, const char *name, void **ip, char *err, size_t errlen)
{
	struct toe_xrtip *h;
	int r = toe_xrtip_open(dev, name, &h, err, errlen);
	if (r == 0)
		*ip = h;
	return r;
}

static void x_ip_close(void *ip)
{
	toe_xrtip_close((struct toe_xrtip *)ip);
}

static int x_reg_read(void *ip, uint32_t off, uint32_t *val)
{
	return toe_xrtip_read((struct toe_xrtip *)ip, off, val);
}

static int x_reg_write(void *ip, uint32_t off, uint32_t val)
{
	return toe_xrtip_write((struct toe_xrtip *)ip, off, val);
}

static const char *x_ip_error(void *ip)
{
	return toe_xrtip_error((const struct toe_xrtip *)ip);
}

const struct toe_devops toe_devops_xrt = {
	.name = "xrt",
	.open = x_open,
	.close = x_close,
	.load_xclbin = x_load,
	.xclbin_uuid = x_uuid,
	.platform = x_platform,
	.bo_alloc = x_bo_alloc,
	.bo_free = x_bo_free,
	.bo_map = x_bo_map,
	.bo_addr = x_bo_addr,
	.bo_sync = x_bo_sync,
	.ip_open = x_ip_open,
	.ip_close = x_ip_close,
	.reg_read = x_reg_read,
	.reg_write = x_reg_write,
	.ip_error = x_ip_error,
};

int toe_devops_xrt_available(void)
{
	return 1;
}

#else /* !TOED_HAVE_XRT */

static int n_open(void *ctx, const char *pci, void **dev, char *err, size_t errlen)
{
	(void)ctx;
	(void)pci;
	*dev = NULL;
	snprintf(err, errlen, "this toed was built without XRT (install libxrt-dev and uuid-dev, then rebuild)");
	return -ENOTSUP;
}

static void n_close(void *dev)
{
	(void)dev;
}

static int n_load(void *dev, const char *path, char *err, size_t errlen)
{
	(void)dev;
	(void)path;
	snprintf(err, errlen, "built without XRT");
	return -ENOTSUP;
}

static int n_uuid(void *dev, uint8_t uuid[16])
{
	(void)dev;
	(void)uuid;
	return -ENOTSUP;
}

static int n_platform(void *dev, char *name, size_t len)
{
	(void)dev;
	if (len)
		name[0] = 0;
	return -ENOTSUP;
}

static int n_bo_alloc(void *dev, uint64_t size, uint32_t bank, void **bo, char *err, size_t errlen)
{
	(void)dev;
	(void)size;
	(void)bank;
	*bo = NULL;
	snprintf(err, errlen, "built without XRT");
	return -ENOTSUP;
}

static void n_bo_free(void *bo)
{
	(void)bo;
}

static void *n_bo_map(void *bo)
{
	(void)bo;
	return NULL;
}

static uint64_t n_bo_addr(void *bo)
{
	(void)bo;
	return 0;
}

static int n_bo_sync(void *bo, int dir, uint64_t off, uint64_t size)
{
	(void)bo;
	(void)dir;
	(void)off;
	(void)size;
	return -ENOTSUP;
}

static int n_ip_open(void *dev, const char *name, void **ip, char *err, size_t errlen)
{
	(void)dev;
	(void)name;
	*ip = NULL;
	snprintf(err, errlen, "built without XRT");
	return -ENOTSUP;
}

static void n_ip_close(void *ip)
{
	(void)ip;
}

static int n_reg_read(void *ip, uint32_t off, uint32_t *val)
{
	(void)ip;
	(void)off;
	*val = 0;
	return -ENOTSUP;
}

static int n_reg_write(void *ip, uint32_t off, uint32_t val)
{
	(void)ip;
	(void)off;
	(void)val;
	return -ENOTSUP;
}

static const char *n_ip_error(void *ip)
{
	(void)ip;
	return "built without XRT";
}

const struct toe_devops toe_devops_xrt = {
	.name = "xrt (not built)",
	.open = n_open,
	.close = n_close,
	.load_xclbin = n_load,
	.xclbin_uuid = n_uuid,
	.platform = n_platform,
	.bo_alloc = n_bo_alloc,
	.bo_free = n_bo_free,
	.bo_map = n_bo_map,
	.bo_addr = n_bo_addr,
	.bo_sync = n_bo_sync,
	.ip_open = n_ip_open,
	.ip_close = n_ip_close,
	.reg_read = n_reg_read,
	.reg_write = n_reg_write,
	.ip_error = n_ip_error,
};

int toe_devops_xrt_available(void)
{
	return 0;
}

#endif
