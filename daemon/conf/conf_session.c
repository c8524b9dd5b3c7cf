/* conf_session.c - a feed's STEP session settings (the [feed.NAME] session keys) as
 * the session layer takes them (kernels/step/step_sess.h), and the password file.
 *
 * The password is not kept in struct toed_config: the config is copied, diffed and
 * printed, and a password must appear in none of those. The control plane reads
 * it from password_file when the data plane is set up and again at each reload
 * (ctl_reload.c), and hands it to the data plane, which never reads the file.
 */
#include "conf/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "step/step_sess.h"

int toed_read_password(const char *path, char *out, size_t len, char *why, size_t wl)
{
	struct stat st;
	char line[STEP_PW_MAX + 2];
	out[0] = 0;
	if (stat(path, &st) < 0) {
		snprintf(why, wl, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) { /* a FIFO would block the reader */
		snprintf(why, wl, "not a regular file");
		return -1;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(why, wl, "%s", strerror(errno));
		return -1;
	}
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	size_t n = strcspn(line, "\r\n");
	if (n == strlen(line) && n == sizeof line - 1) {
		snprintf(why, wl, "the password (first line) is longer than %d characters", STEP_PW_MAX - 1);
		return -1;
	}
	line[n] = 0;
	if (!n) {
		snprintf(why, wl, "the first line (the password) is empty");
		return -1;
	}
	if (n >= len) {
		snprintf(why, wl, "the password is longer than %zu characters", len - 1);
		return -1;
	}
	memcpy(out, line, n + 1);
	return 0;
}

int toed_feed_has_session(const struct toed_feed *f)
{
	return f->sender_comp_id[0] != 0;
}

int toed_feed_session_cfg(const struct toed_feed *f, struct step_sess_cfg *out, char *why, size_t wl)
{
	memset(out, 0, sizeof *out);
	out->role = STEP_SESS_CLIENT;
	snprintf(out->sender, sizeof out->sender, "%s", f->sender_comp_id);
	snprintf(out->target, sizeof out->target, "%s", f->target_comp_id);
	snprintf(out->username, sizeof out->username, "%s", f->username);
	out->heartbeat_s = f->heartbeat_s;
	out->reset_on_logon = f->reset_on_logon;
	if (f->password_file[0]) {
		char r[160];
		if (toed_read_password(f->password_file, out->password, sizeof out->password, r, sizeof r) < 0) {
			snprintf(why, wl, "[feed.%s] password_file = %s: %s", f->name, f->password_file, r);
			return -1;
		}
	}
	return 0;
}
