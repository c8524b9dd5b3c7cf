// card_ip.cpp - extern "C" wrapper over xrt::ip and xrt::device queries (see card_ip.h).
//
// Build: g++ -std=c++17 -Wall -Wextra -Werror -isystem /usr/include/xrt -c daemon/card/card_ip.cpp
// Link:  -Wl,--no-as-needed -lxrt_core -Wl,--as-needed -lxrt_coreutil -lstdc++
#include "card/card_ip.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <system_error>

#include <experimental/xrt_ip.h>
#include <experimental/xrt_system.h>
#include <xrt/xrt_device.h>

struct toe_xrtip {
	xrt::ip ip;
	std::string error;
};

namespace {

// The errno a std::system_error carries (XRT's errors are system_errors), else EIO.
int code_of(const std::exception &e)
{
	const std::system_error *se = dynamic_cast<const std::system_error *>(&e);
	int c = se ? se->code().value() : EIO;
	if (c < 0)
		c = -c;
	return c ? c : EIO;
}

void put(char *out, size_t len, const char *s)
{
	if (out && len)
		std::snprintf(out, len, "%s", s);
}

// A register access failed: keep XRT's message for toe_xrtip_error (unless even that fails), return -errno.
int failed(toe_xrtip *ip, const std::exception &e)
{
	try {
		ip->error = e.what();
	} catch (...) {
	}
	return -code_of(e);
}

xrt::device as_device(void *dev)
{
	return xrt::device(xrtDeviceToXclDevice(static_cast<xrtDeviceHandle>(dev)));
}

} // namespace

extern "C" int toe_xrtip_open(void *dev, const char *name, struct toe_xrtip **out, char *err, size_t errlen)
{
	*out = nullptr;
	try {
		xrt::device d = as_device(dev);
		toe_xrtip *ip = new toe_xrtip{ xrt::ip(d, d.get_xclbin_uuid(), name), std::string() };
		*out = ip;
		return 0;
	} catch (const std::bad_alloc &) {
		put(err, errlen, "out of memory");
		return -ENOMEM;
	} catch (const std::exception &e) {
		put(err, errlen, e.what());
		return -code_of(e);
	}
}

extern "C" void toe_xrtip_close(struct toe_xrtip *ip)
{
	try {
		delete ip;
	} catch (...) {
	}
}

extern "C" int toe_xrtip_read(struct toe_xrtip *ip, uint32_t off, uint32_t *val)
{
	try {
		*val = ip->ip.read_register(off);
		return 0;
	} catch (const std::exception &e) {
		return failed(ip, e);
	}
}

extern "C" int toe_xrtip_write(struct toe_xrtip *ip, uint32_t off, uint32_t val)
{
	try {
		ip->ip.write_register(off, val);
		return 0;
	} catch (const std::exception &e) {
		return failed(ip, e);
	}
}

extern "C" const char *toe_xrtip_error(const struct toe_xrtip *ip)
{
	return ip ? ip->error.c_str() : "";
}

extern "C" int toe_xrtdev_name(void *dev, char *out, size_t len)
{
	try {
		put(out, len, as_device(dev).get_info<xrt::info::device::name>().c_str());
		return 0;
	} catch (const std::exception &) {
		put(out, len, "");
		return -ENOTSUP;
	}
}

extern "C" int toe_xrtdev_list(char *out, size_t len)
{
	unsigned n = 0;
	put(out, len, "");
	try {
		n = static_cast<unsigned>(xrt::system::enumerate_devices());
	} catch (const std::exception &) {
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		std::string s;
		try {
			xrt::device d(i);
			s = d.get_info<xrt::info::device::bdf>() + " " + d.get_info<xrt::info::device::name>();
		} catch (const std::exception &e) {
			s = "#" + std::to_string(i) + " (" + e.what() + ")";
		}
		if (out && len) {
			size_t used = std::strlen(out);
			std::snprintf(out + used, len - used, "%s%s", i ? ", " : "", s.c_str());
		}
	}
	return static_cast<int>(n);
}
