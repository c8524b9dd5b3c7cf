/* card_ip.h - a tiny extern "C" wrapper over the C++-only parts of XRT toed needs (card_ip.cpp).
 *
 * XRT's C kernel API refuses ap_ctrl_none kernels, and toed's kernels are
 * all free-running: their AXI-Lite registers are reached through xrt::ip,
 * which exists only in C++. The C API also cannot tell a device's shell
 * name or list the devices' BDFs. Everything here catches XRT's exceptions
 * and turns them into a negative errno value and a message; nothing throws.
 *
 * Device arguments are xrtDeviceHandle values (the C API's), passed as void *.
 * Built only with XRT (g++ -std=c++17 -isystem /usr/include/xrt).
 */
#ifndef TOED_XRT_IP_H
#define TOED_XRT_IP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct toe_xrtip;

/* Open compute unit `name` ("kernel:{cu}") of the xclbin loaded on dev. */
int toe_xrtip_open(void *dev, const char *name, struct toe_xrtip **ip, char *err, size_t errlen);
void toe_xrtip_close(struct toe_xrtip *ip);
int toe_xrtip_read(struct toe_xrtip *ip, uint32_t off, uint32_t *val);
int toe_xrtip_write(struct toe_xrtip *ip, uint32_t off, uint32_t val);
/* What the last failed read or write said ("" none). */
const char *toe_xrtip_error(const struct toe_xrtip *ip);

/* The shell's VBNV (xrt::info::device::name); -ENOTSUP when XRT cannot tell. */
int toe_xrtdev_name(void *dev, char *out, size_t len);
/* The cards XRT sees, as "0000:3b:00.1 xilinx_u50_gen3x16_xdma_base_5, ..."
 * (out may be NULL). Returns how many. */
int toe_xrtdev_list(char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
