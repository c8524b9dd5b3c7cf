/* ctl_priv.c - user switch and capability drop with raw syscalls (see ctl_priv.h). */
#include "ctl/ctl_priv.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"

static const char *const cap_names[] = {
	"cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner", "cap_fsetid", "cap_kill",
	"cap_setgid", "cap_setuid", "cap_setpcap", "cap_linux_immutable", "cap_net_bind_service",
	"cap_net_broadcast", "cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner", "cap_sys_module",
	"cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace", "cap_sys_pacct", "cap_sys_admin", "cap_sys_boot",
	"cap_sys_nice", "cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod", "cap_lease",
	"cap_audit_write", "cap_audit_control", "cap_setfcap", "cap_mac_override", "cap_mac_admin", "cap_syslog",
	"cap_wake_alarm", "cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf", "cap_checkpoint_restore",
};

const char *toed_priv_names(uint64_t mask, char *buf, unsigned len)
{
	size_t o = 0;
	buf[0] = 0;
	for (unsigned c = 0; c < 64; c++) {
		if (!(mask & (1ull << c)))
			continue;
		char tmp[16];
		const char *n = c < sizeof cap_names / sizeof cap_names[0] ? cap_names[c] : NULL;
		if (!n) {
			snprintf(tmp, sizeof tmp, "cap_%u", c);
			n = tmp;
		}
		int w = snprintf(buf + o, len - o, "%s%s", o ? "," : "", n);
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
	if (!o)
		snprintf(buf, len, "none");
	return buf;
}

static int cap_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	return (int)syscall(SYS_capget, &h, d);
}

static int cap_set(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	return (int)syscall(SYS_capset, &h, d);
}

uint64_t toed_priv_effective(void)
{
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (cap_get(d) < 0)
		return 0;
	return (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
}

static unsigned last_cap(void)
{
	unsigned v = CAP_LAST_CAP;
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%u", &v) != 1 || v > 63)
			v = CAP_LAST_CAP;
		fclose(f);
	}
	return v;
}

static int switch_user(const char *user)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int e = getpwnam_r(user, &pw, buf, sizeof buf, &res);
	if (e || !res) {
		char *end;
		errno = 0;
		unsigned long id = strtoul(user, &end, 10);
		if (*user && !*end && !errno) {
			/* a number without a passwd entry: no supplementary groups */
			if (setgroups(0, NULL) < 0 || setgid((gid_t)id) < 0 || setuid((uid_t)id) < 0) {
				log_warn("privileges: cannot switch to uid %lu: %s", id, strerror(errno));
				return -1;
			}
			return 0;
		}
		log_warn("privileges: user %s: %s; staying uid %u", user, e ? strerror(e) : "no such user",
			 (unsigned)getuid());
		return -1;
	}
	if (initgroups(pw.pw_name, pw.pw_gid) < 0 && setgroups(0, NULL) < 0) {
		log_warn("privileges: cannot set the groups of %s: %s", user, strerror(errno));
		return -1;
	}
	if (setgid(pw.pw_gid) < 0) {
		log_warn("privileges: setgid(%u): %s", (unsigned)pw.pw_gid, strerror(errno));
		return -1;
	}
	if (setuid(pw.pw_uid) < 0) {
		log_warn("privileges: setuid(%u): %s", (unsigned)pw.pw_uid, strerror(errno));
		return -1;
	}
	return 0;
}

int toed_priv_user_exists(const char *user)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;
	if (getpwnam_r(user, &pw, buf, sizeof buf, &res) == 0 && res)
		return 1;
	errno = 0;
	(void)strtoul(user, &end, 10);
	return *user && !*end && !errno; /* a number: switch_user takes it without a passwd entry */
}

int toed_priv_drop(const char *user, uint64_t keep)
{
	int failed = 0;
	char names[512];
	struct __user_cap_data_struct d[2];

	/* bounding set first: dropping from it needs CAP_SETPCAP, which goes with the user switch or below */
	unsigned last = last_cap();
	int bset_failed = 0;
	if (toed_priv_effective() & TOED_CAP(8)) { /* CAP_SETPCAP */
		for (unsigned c = 0; c <= last; c++) {
			if (keep & (1ull << c))
				continue;
			if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
				bset_failed = errno;
		}
	} else {
		log_debug("privileges: no CAP_SETPCAP: the capability bounding set stays as it is");
	}
	if (bset_failed) {
		log_notice("privileges: cannot shrink the capability bounding set: %s", strerror(bset_failed));
		failed++;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);

	/* the bounding set does not limit the permitted set: CAP_SETUID/SETGID still work here */
	if (user && *user) {
		if (geteuid() != 0) {
			log_warn("privileges: cannot switch to user %s: not running as root", user);
			failed++;
		} else {
			/* keep the permitted set across setuid; the effective set is raised again below */
			if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
				log_warn("privileges: PR_SET_KEEPCAPS: %s", strerror(errno));
			if (switch_user(user) < 0)
				failed++;
			prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
		}
	}

	memset(d, 0, sizeof d);
	if (cap_get(d) < 0) {
		log_warn("privileges: capget: %s", strerror(errno));
		failed++;
	} else {
		uint64_t perm = (uint64_t)d[0].permitted | (uint64_t)d[1].permitted << 32;
		uint64_t want = perm & keep;
		if (want != keep && geteuid() == 0)
			log_notice("privileges: capabilities %s were not available",
				   toed_priv_names(keep & ~perm, names, sizeof names));
		for (int i = 0; i < 2; i++) {
			d[i].permitted = (uint32_t)(want >> (32 * i));
			d[i].effective = d[i].permitted;
			d[i].inheritable = 0;
		}
		if (cap_set(d) < 0) {
			log_warn("privileges: capset: %s", strerror(errno));
			failed++;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		log_notice("privileges: no_new_privs: %s", strerror(errno));
	log_info("privileges: uid %u gid %u, capabilities %s", (unsigned)getuid(), (unsigned)getgid(),
		 toed_priv_names(toed_priv_effective(), names, sizeof names));
	return failed;
}
