// SPDX-License-Identifier: GPL-2.0
/* kstats: the inputs: a file, a metric name under debugfs, or standard input. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kstats.h"

/* The debugfs mount point, from /proc/mounts; NULL if not mounted. */
char *kstats_debugfs(const char *what)
{
	char line[4096], dev[256], dir[2048], type[64];
	char *path = NULL;
	FILE *m;

	m = fopen("/proc/mounts", "r");
	if (!m)
		die(1, "%s: /proc/mounts cannot be read", what);
	while (!path && fgets(line, sizeof(line), m)) {
		if (sscanf(line, "%255s %2047s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "debugfs")) {
			path = strdup(dir);
			if (!path)
				die(1, "out of memory");
		}
	}
	fclose(m);
	return path;
}

/* A metric name: the file kstats/NAME under the debugfs mount. */
char *resolve(const char *input)
{
	char *dir, *path;

	if (!strcmp(input, "-") || strchr(input, '/') || !access(input, F_OK))
		return strdup(input);
	dir = kstats_debugfs(input);
	if (!dir)
		die(1, "%s: no such file, and debugfs is not mounted", input);
	if (asprintf(&path, "%s/kstats/%s", dir, input) < 0)
		die(1, "out of memory");
	free(dir);
	return path;
}

/*
 * Whether @name, an entry of the kstats directory or of a group's, names
 * no metric: the kernel's files (_control, error_log, a group's _summary)
 * or a hidden one. A function's name may start with '_': __do_softirq.
 */
int not_metric(const char *name)
{
	return name[0] == '.' || !strcmp(name, "_summary") || !strcmp(name, "_control") ||
	       !strcmp(name, "error_log");
}

/*
 * An input that is a directory where a metric is read: an error that says
 * why (a group's directory, or one that is not a group's); one that is
 * not there, or cannot be looked at, is that error.
 */
void not_a_dir(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") && stat(path, &st))
		die(1, "%s: %s", path, strerror(errno));
	if (group_dir(path))
		die(1, "%s: a group's directory, where one metric is read: %s", path,
		    "name a function's file in it (kstats DIR/ prints the group's table)");
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		die(1, "%s: %s, not a group's (it has no _summary): %s", path, strerror(EISDIR),
		    "name a function's file in it");
}

/*
 * Read @f, opened from @path, into @d, of frac_bits @bits (-1: inferred);
 * closes @f unless it is stdin.
 */
static void load_file(struct ks_data *d, FILE *f, const char *path, int bits)
{
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		not_a_dir(path);
		die(1, "%s: %s", path, strerror(EISDIR));	/* standard input */
	}
	ks_data_init(d);
	if (ks_read(d, f) || ks_finish(d, bits))
		die(2, "%s: %s", path, d->err);
	/*
	 * Without CPUS lines, the CPUs read are all there is to check: an
	 * input cut between two CPUs' lines (head, grep 'CPU ' | head) reads
	 * as a metric of fewer CPUs. Said, not refused: grep 'CPU ' is a way
	 * to keep the CPU lines.
	 */
	if (d->ncpus && !d->have_all) {
		char name[256];

		kstats_warn("%s: no CPUS lines: CPUs up to %zu summed; one cut off is not seen",
			    shown(name, sizeof(name), path), d->ncpus - 1);
	}
	if (f != stdin)
		fclose(f);
}

void load(struct ks_data *d, const char *path, int bits)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f)
		die(1, "%s: %s", path, strerror(errno));
	load_file(d, f, path, bits);
}
