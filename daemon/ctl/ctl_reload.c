/* ctl_reload.c - configuration reload (see ctl_reload.h). */
#include "ctl/ctl_reload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "dp/dp_setup.h"

/* The STEP sessions' passwords, read here on the control plane (the data plane
 * does no file I/O) from the running configuration's password_file, and handed
 * over for each feed's next Logon: a reload is how a changed password takes
 * effect. A file that cannot be read now keeps the password in use (the reload
 * check refused the configuration already unless the file changed since). */
static void hand_passwords(struct toed *t)
{
	static struct dp_sess_passwords pw; /* static: no copy left on a stack */
	int any = 0;
	memset(&pw, 0, sizeof pw);
	for (uint32_t i = 0; i < t->cfg->nfeeds && i < TOED_MAX_FEEDS; i++) {
		const struct toed_feed *f = &t->cfg->feed[i];
		char why[160];
		if (!toed_feed_has_session(f) || !f->password_file[0])
			continue;
		if (toed_read_password(f->password_file, pw.pw[i], sizeof pw.pw[i], why, sizeof why) == 0) {
			pw.set[i] = 1;
			any = 1;
		} else {
			log_err("[feed.%s] password_file = %s: %s; the session keeps the password it has", f->name,
				f->password_file, why);
		}
	}
	if (any)
		toed_dp_set_passwords(&t->dp, &pw);
	explicit_bzero(&pw, sizeof pw);
}

void toed_apply_live(struct toed *t)
{
	struct toed_dp_live l;
	char err[640];
	toed_log_set(t->cfg->log.level, t->cfg->log.target);
	dp_setup_live(&l, t->cfg);
	toed_dp_set_live(&t->dp, &l);
	hand_passwords(t);
	if (toed_record_configure(t->rec, t->cfg->record.pcap, t->cfg->record.ticks, err, sizeof err) < 0)
		log_err("%s", err);
}

/* Log every line of text at prio. */
static void log_lines(int prio, char *text)
{
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		toed_log(prio, "%s", l);
}

int toed_reload(struct toed *t, char **report)
{
	struct toed_config *next = malloc(sizeof *next);
	struct toed_diag *diag = malloc(sizeof *diag);
	struct toed_diff *diff = malloc(sizeof *diff);
	char *text = NULL, *copy;
	size_t tlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	int rc = -1;
	const char *path = t->cfg->path[0] ? t->cfg->path : t->opt.config_path;

	if (report)
		*report = NULL;
	toed_notify_reloading(&t->notify);
	if (!next || !diag || !diff || !out) {
		log_err("reload: out of memory");
		goto done;
	}
	log_notice("reload: reading %s", path);
	toed_diag_init(diag);
	if (toed_config_load(path, next, diag) < 0) {
		fprintf(out, "reload refused, the running configuration stays in force: %u error%s in %s\n",
			diag->errors, diag->errors == 1 ? "" : "s", path);
		toed_diag_print(diag, out);
		fflush(out);
		t->reload_errors++;
		copy = strdup(text);
		if (copy) {
			log_lines(TOED_LOG_ERROR, copy);
			free(copy);
		}
		snprintf(t->last_reload, sizeof t->last_reload, "refused: %.400s", diag->n ? diag->msg[0].text : "errors");
		goto done;
	}
	if (diag->warnings) {
		toed_diag_print(diag, out);
		fflush(out);
	}
	int mask = toed_config_diff(t->cfg, next, diff);
	if (!mask) {
		fprintf(out, "reload: nothing changed\n");
	} else {
		toed_diff_print(diff, out);
		fprintf(out, "reload: %u change%s applied, %u need%s a restart\n", diff->live, diff->live == 1 ? "" : "s",
			diff->restart, diff->restart == 1 ? "s" : "");
	}
	fflush(out);
	copy = strdup(text);
	if (copy) {
		log_lines(TOED_LOG_NOTICE, copy);
		free(copy);
	}
	toed_config_apply_live(t->cfg, next);
	toed_apply_live(t);
	t->reloads++;
	snprintf(t->last_reload, sizeof t->last_reload, "%u applied, %u need a restart", diff->live, diff->restart);
	rc = 0;
done:
	toed_notify_ready(&t->notify);
	if (out)
		fclose(out);
	if (report)
		*report = text;
	else
		free(text);
	free(next);
	free(diag);
	free(diff);
	return rc;
}
