// SPDX-License-Identifier: GPL-2.0
/*
 * kstats top: the functions of a group (or every metric), the samples of
 * each interval; its options, the screen drawn from the table's cells,
 * its keys, and its two loops (plain tables into a pipe, a screen on a
 * terminal). What its files share: kstats_top.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kstats_top.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Keys that are escape sequences, past a char's values. */
enum {
	KEY_ESC = 256, KEY_UP, KEY_DOWN, KEY_PGUP, KEY_PGDN, KEY_HOME, KEY_END, KEY_LEFT,
	KEY_OTHER
};

/* What the keys of kstats top change besides the sort. */
struct top_screen {
	int paused;		/* P: no reads until P again */
	int help;		/* ?: the keys' help instead of the table */
	long hfirst;		/* its first line shown: the help scrolled */
	int view;		/* Enter: the histogram of the selected row */
	long vfirst;		/* its first slot row shown: the view scrolled */
	/*
	 * The scroll that keys asked for since the last draw, in their
	 * order, each from where the one before left the screen (at an
	 * edge, none): a page down (1) or up (-1), End (2) or Home (-2).
	 */
	signed char vkey[128];
	int nvkeys;
	long vsel;		/* the row whose histogram vfirst scrolls; -1: none */
	char vrange[64];	/* the range of the slot row at vfirst: kept there */
	long sel;		/* the selected row, an index of t->rows; -1: none yet */
	size_t pos;		/* its place in the rows shown */
	size_t first;		/* the first row shown: the table scrolled */
	/* The rows of the last table drawn, in its order: where keys move. */
	long *order;
	size_t norder;
	int page;		/* rows of the table on the screen */
	/* /: the rows whose names hold the filter (or match it, a glob). */
	char filter[128];
	int editing;		/* the filter's text typed, not applied yet */
	char edit[128];
};

/*
 * The help that ? shows: its title, a key each, and the marks; a text
 * marked .pair shares a line with the next where the width holds both,
 * one marked .more goes on in the next (a blank between them).
 */
static const struct {
	const char *text;
	bool pair;
	bool more;
} top_keys_help[] = {
	{ .text = "Keys of kstats top (Up, Down, k, j, PgUp, PgDn, Home, End", .more = true },
	{ .text = "scroll this; any other key: the table):" },
	{ .text = "  t  sort by total (the time spent)", .pair = true },
	{ .text = "  c  sort by count" },
	{ .text = "  p  sort by the last percentile", .pair = true },
	{ .text = "  n  sort by name" },
	{ .text = "  m  sort by max<=", .pair = true },
	{ .text = "  a  sort by avg" },
	{ .text = "  r  sort by rate/s (count's order)", .pair = true },
	{ .text = "  R  reverse the sort" },
	{ .text = "  Up, Down (k, j), PgUp, PgDn, Home, End: move the cursor;", .more = true },
	{ .text = "the table scrolls" },
	{ .text = "  Enter  the histogram of the function under the cursor", .more = true },
	{ .text = "(Enter or Esc: back); there PgUp, PgDn, Home, End scroll it,", .more = true },
	{ .text = "Up, Down show another function's" },
	{ .text = "  /  filter: the functions whose names hold the text typed,", .more = true },
	{ .text = "or match it (a glob of * ? [...]); Enter applies it,", .more = true },
	{ .text = "Esc cancels, empty: no filter" },
	{ .text = "  P  pause: no reads until P again", .pair = true },
	{ .text = "  q  quit" },
	{ .text = "Marks before a name: + new since the read before (traced since), - gone" },
};

/*
 * The width of a column of paired texts, and the help's lines at most: at
 * the narrowest (10 columns a line, help_wrap()) the help takes fewer.
 */
#define HELP_COLW 38
#define HELP_MAX 160

/*
 * @text into @lines (from @n, @max at most) of @cols columns, broken at
 * its blanks; the lines after the first of a key's text indented as its
 * text after the key (5 columns). Returns the lines.
 */
static int help_wrap(char (*lines)[160], int n, int max, const char *text, int cols)
{
	const char *p = text, *end, *brk;
	int indent = 0, room;

	while (*p && n < max) {
		room = cols - indent > 10 ? cols - indent : 10;
		room = room < 150 ? room : 150;
		end = p + strlen(p);
		if (end - p > room) {
			for (brk = p + room; brk > p && *brk != ' '; brk--)
				;
			end = brk > p ? brk : p + room;
		}
		snprintf(lines[n++], sizeof(lines[0]), "%*s%.*s", indent, "", (int)(end - p), p);
		p = end + strspn(end, " ");
		indent = text[0] == ' ' ? 5 : 2;
	}
	return n;
}

/* The lines of the help at @cols columns into @lines: their count. */
static int help_lines(char (*lines)[160], int cols)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(top_keys_help) && n < HELP_MAX; i++) {
		if (top_keys_help[i].pair && cols >= 2 * HELP_COLW) {
			snprintf(lines[n++], sizeof(lines[0]), "%-*s%s", HELP_COLW,
				 top_keys_help[i].text, top_keys_help[i + 1].text);
			i++;
		} else {
			/* A text and those it goes on in (.more): 200 characters at most. */
			char text[512];
			size_t len = 0;

			for (; i < ARRAY_SIZE(top_keys_help); i++) {
				len += snprintf(text + len, sizeof(text) - len, "%s%s",
						len ? " " : "", top_keys_help[i].text);
				if (!top_keys_help[i].more || len >= sizeof(text) - 1)
					break;
			}
			n = help_wrap(lines, n, HELP_MAX, text, cols);
		}
	}
	return n;
}

/* The keys' line of the table and of the view: the most asked for first. */
static const char * const table_keys[] = {
	"q quit", "? help", "t total", "p", "c count", "n name", "m max", "a avg",
	"R reverse", "r rate", "/ filter", "Enter histogram", "P pause", NULL
};

static const char * const view_keys[] = {
	"q quit", "Esc the table", "PgUp/PgDn scroll", "Up/Down another function", "P pause",
	NULL
};

/*
 * "keys: " and as many of @keys (the key "p" followed by @pct) as fit
 * @cols whole, after @prefix, into @buf.
 */
static void keys_line(char *buf, size_t n, int cols, const char *prefix,
		      const char * const *keys, const char *pct)
{
	char key[64];
	int len, i;

	len = snprintf(buf, n, "%skeys:", prefix);
	for (i = 0; keys[i] && len < (int)n; i++) {
		if (pct && !strcmp(keys[i], "p"))
			snprintf(key, sizeof(key), "p %s", pct);
		else
			snprintf(key, sizeof(key), "%s", keys[i]);
		if (len + 2 + (int)strlen(key) > cols && i)
			break;
		len += snprintf(buf + len, n - len, "%s %s", i ? "," : "", key);
	}
}

/* The rows that the filter lets through, kept in @v's order: their count. */
static size_t top_filter(const struct top_screen *scr, struct row **v, size_t n)
{
	size_t i, k = 0;
	int glob = !!strpbrk(scr->filter, "*?[");

	if (!scr->filter[0])
		return n;
	for (i = 0; i < n; i++)
		if (glob ? !fnmatch(scr->filter, v[i]->name, FNM_NOESCAPE) :
		    !!strstr(v[i]->name, scr->filter))
			v[k++] = v[i];
	return k;
}

/*
 * The cursor on the rows @v shown (@n): the selected row kept where it
 * went when sorted again, its place when it left (the keys moved it as
 * they came: cursor_move()); the table scrolled to show it among @page
 * rows. The rows' order kept for the keys.
 */
static void top_cursor(struct top_screen *scr, struct top *t, struct row **v, size_t n,
		       int page)
{
	size_t i;
	long p;

	for (i = 0; i < n && scr->sel >= 0; i++)
		if (v[i] == &t->rows[scr->sel])
			break;
	p = i < n && scr->sel >= 0 ? (long)i : (long)scr->pos;
	p = p >= (long)n ? (long)n - 1 : p;
	p = p < 0 ? 0 : p;
	scr->pos = p;
	scr->sel = n ? v[p] - t->rows : -1;
	scr->order = top_alloc(scr->order, (n + 1) * sizeof(*scr->order));
	for (i = 0; i < n; i++)
		scr->order[i] = v[i] - t->rows;
	scr->norder = n;
	scr->page = page > 0 ? page : 1;
	if (scr->pos < scr->first)
		scr->first = scr->pos;
	if (page > 0 && scr->pos >= scr->first + page)
		scr->first = scr->pos - page + 1;
	if (scr->first + page > n)
		scr->first = n > (size_t)page ? n - page : 0;
}

/* The screen's first line: what is shown, over what time, in what order. */
static void draw_header(const struct kstats_opt *o, const struct top_screen *scr,
			struct top *t, const char *name, double secs, int cols)
{
	size_t called, listed = top_listed(t, &called);
	char when[64], buf[1024];
	int form;

	if (secs > 0)
		snprintf(when, sizeof(when), "in the last %.2f s", secs);
	else
		snprintf(when, sizeof(when), "since the start");
	/*
	 * Within the width: the widths of the slots left out first, then
	 * shorter forms, the last without "kstats top", its name cut
	 * (start~end) to leave the rest whole.
	 */
	for (form = 0; form < 5; form++) {
		if (form == 4) {
			const char *what = top_what(t, name);
			int n = 0, k, least = strlen(what) < 8 ? strlen(what) : 8;
			char rest[256], cut[256];

			/*
			 * The clauses that fit beside the name, 8 of it at least,
			 * whole: the last ones go first, never a part of a number.
			 */
			for (k = 4; k >= 1; k--) {
				n = snprintf(rest, sizeof(rest), ": %zu/%zu", called, listed);
				if (k > 1)
					n += snprintf(rest + n, sizeof(rest) - n, ", %s",
						      secs > 0 ? when + strlen("in the last ") :
						      "start");
				if (k > 2)
					n += snprintf(rest + n, sizeof(rest) - n, ", %s%s",
						      sort_name(o), o->reverse ? " reversed" : "");
				if (k > 3)
					n += snprintf(rest + n, sizeof(rest) - n, ", bits %s",
						      top_bits(t, 0));
				n += scr->paused ? strlen("paused ") : 0;
				if (n + least <= cols)
					break;
			}
			/* Narrower still: the name cut to 4 (a~z), the counts whole. */
			cut_name(cut, sizeof(cut), what, cols - n > 4 ? cols - n : 4);
			snprintf(buf, sizeof(buf), "%s%s%s", scr->paused ? "paused " : "",
				 cut, rest);
			break;
		}
		if (form < 2)
			snprintf(buf, sizeof(buf),
				 "kstats top%s: %s %s, %zu %s, %zu with samples %s, sort: %s%s, bits %s",
				 scr->paused ? " (paused)" : "",
				 t->path ? (t->group ? "group" : "metric") : "dir",
				 top_what(t, name), listed,
				 t->path && t->group ? "functions" : "metrics", called, when,
				 sort_name(o), o->reverse ? " reversed" : "", top_bits(t, !form));
		else
			snprintf(buf, sizeof(buf),
				 "kstats top%s: %s: %zu%s%zu%s, %s, %s%s, bits %s",
				 scr->paused ? " (paused)" : "", top_what(t, name), called,
				 form == 2 ? " of " : "/", listed, form == 2 ? " with samples" : "",
				 secs > 0 ? when + strlen("in the last ") :
				 form == 2 ? "since the start" : "start",
				 sort_name(o), o->reverse ? " reversed" : "", top_bits(t, 0));
		if ((int)strlen(buf) <= cols)
			break;
	}
	screen_line(buf, cols, NULL);
}

/*
 * The first row of a page of the view, @*first, within @nrows slot rows
 * of which @avail lines hold a page: its rows and lines saying those
 * above and below. Returns the rows it shows.
 */
static long view_page(long *first, long nrows, long avail)
{
	if (nrows <= avail || avail < 3) {
		*first = 0;
		return nrows <= avail ? nrows : avail > 1 ? avail - 1 : 0;
	}
	/* At the end, one line says those above; elsewhere one more, those below. */
	if (*first > nrows - (avail - 1))
		*first = nrows - (avail - 1);
	/* From row 1, the line above would take row 0's place: 0. */
	if (*first < 2)
		*first = 0;
	return avail - (*first > 0) - (*first + avail - (*first > 0) < nrows);
}

/*
 * The start of a slot row of the view's histogram that names it, its
 * lower bound ("[1024,"): a run of empty slots merged on one row keeps it
 * when the run grows. Its length.
 */
static size_t range_len(const char *line)
{
	const char *end = strchr(line, ',');

	/* On a narrow screen, a row by its upper bound: "<=2047 ". */
	if (!strncmp(line, "<=", 2))
		return strcspn(line, " ");
	return *line == '[' && end ? end + 1 - line : 0;
}

/* Whether slot row @line starts with @range: 0 if so, as strcmp. */
static int range_cmp(const char *line, const char *range)
{
	size_t n;

	line += strspn(line, " ");
	n = range_len(line);
	return !n || !range[0] || strlen(range) != n || strncmp(line, range, n);
}

/* The start of slot row @line (range_len()) into @range, @size bytes. */
static void range_copy(char *range, size_t size, const char *line)
{
	size_t n;

	line += strspn(line, " ");
	n = range_len(line);
	snprintf(range, size, "%.*s", n < size ? (int)n : 0, line);
}

/*
 * Enter: the histogram of the selected row, its interval's samples; its
 * slot rows scrolled to @scr->vfirst where they do not all fit, the rows
 * above and below said.
 */
static void draw_view(const struct kstats_opt *o, struct top_screen *scr, const struct row *r,
		      int cols)
{
	char cell[TOP_COLS][TOP_CELL], buf[1024], name[512], *text = NULL, *line, *nl;
	long nrows = 0, fixed = 0, avail, shown, first, last, at, rest, found = -1;
	int nkeys, p;
	const char *sep;
	int wrapped, start;
	const struct ks_hist *h;
	size_t size = 0;
	int bits, npct, i, k;
	const double *pcts = table_pcts(o, &npct);
	struct kstats_opt ho;
	FILE *f;

	/* A scroll asked for applies to this draw, or to none. */
	nkeys = scr->nvkeys;
	scr->nvkeys = 0;
	/*
	 * Its figures, whole, on as many lines as the width needs (those
	 * after the first indented) while one is left for the histogram's
	 * rows: never a cut number.
	 */
	row_cells(o, r, 0, cell);
	/*
	 * A name longer than the line cut (start~end), as the table's; on a
	 * screen too short for a second line, short enough for the count.
	 */
	k = (r->mark == '-' ? strlen(" (gone)") : 0) +
	    (screen_left() < 4 ? strlen(" count ") + strlen(cell[0]) : 0);
	cut_name(name, sizeof(name), r->shown, cols - 1 - k > 8 ? cols - 1 - k : 8);
	k = snprintf(buf, sizeof(buf), "%s%s:", name, r->mark == '-' ? " (gone)" : "");
	for (i = 0, wrapped = 0, start = k; i < npct + 4; i++) {
		char field[TOP_CELL + 48], q[32];
		int len;

		if (i == 0)
			len = snprintf(field, sizeof(field), "count %s", cell[0]);
		else if (i <= npct)
			len = snprintf(field, sizeof(field), "p%s %s",
				       pct_name(q, sizeof(q), pcts[i - 1]), cell[1 + i]);
		else
			len = snprintf(field, sizeof(field), "%s %s",
				       i == npct + 1 ? "max<=" : i == npct + 2 ? "total" : "avg",
				       cell[1 + i]);
		/* ", " between two fields, " " after the name, "  " first on the second line. */
		sep = k > start ? ", " : wrapped ? "  " : " ";
		len += strlen(sep);
		if (k + len > cols || k + len >= (int)sizeof(buf)) {
			/* A line kept for the histogram's rows, or to say them. */
			if (screen_left() < 3)
				break;
			screen_line(buf, cols, NULL);
			wrapped = 1;
			buf[0] = '\0';
			k = 0;
			start = 0;
			len += 2 - strlen(sep);
			sep = "  ";
			if (len > cols)
				break;
		}
		k += snprintf(buf + k, sizeof(buf) - k, "%s%s", sep, field);
	}
	if (buf[0])
		screen_line(buf, cols, NULL);
	if (!r->n) {
		if (screen_left() > 0)
			screen_line("no samples in this interval", cols, NULL);
		return;
	}
	/* The percentiles marked are the table's columns. */
	ho = *o;
	ho.npct = npct;
	memcpy(ho.pct, pcts, npct * sizeof(*pcts));
	/* Another function's histogram: from its start. */
	if (scr->vsel != scr->sel) {
		scr->vsel = scr->sel;
		scr->vfirst = 0;
		scr->vrange[0] = '\0';
	}
	h = row_hist(r, &bits);
	f = open_memstream(&text, &size);
	if (!f)
		kstats_die(1, "out of memory");
	hist_write(f, &ho, h, bits, cols, 1);
	if (fclose(f))
		kstats_die(1, "out of memory");
	/*
	 * The legend and the heads (up to "range"), then a line per slot row;
	 * the one of the range at vfirst before, where slots came or went.
	 */
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		if (fixed && found < 0 && !range_cmp(line, scr->vrange))
			found = nrows - (fixed - 1);
		if (fixed)
			nrows++;
		else if (!strncmp(line + strspn(line, " "), "range ", 6))
			fixed = nrows + 1;
		else
			nrows++;
	}
	if (fixed) {
		nrows -= fixed - 1;
	} else {
		fixed = nrows;
		nrows = 0;
	}
	/*
	 * The slot rows that fit below the heads: from vfirst, a line above
	 * them saying those scrolled past, one below saying those left.
	 */
	avail = screen_left() - fixed;
	/* Scrolled, on the row of its range; at the top, the top still. */
	if (found >= 0 && scr->vfirst > 0)
		scr->vfirst = found;
	first = scr->vfirst;
	shown = view_page(&first, nrows, avail);
	/*
	 * A key at a time: PgDn shows the row after the last shown; PgUp
	 * the page that ends at the row before the first, a page of the
	 * middle (a line above its rows, one below); Home and End the ends.
	 */
	for (p = 0; p < nkeys; p++) {
		if (scr->vkey[p] == 2 || scr->vkey[p] == -2)
			first = scr->vkey[p] < 0 ? 0 : nrows;
		else if (scr->vkey[p] > 0 && first + shown < nrows)
			first += shown;
		else if (scr->vkey[p] < 0)
			first -= avail - 2;
		shown = view_page(&first, nrows, avail);
	}
	scr->vfirst = first;
	last = first + shown;
	/* The range of the first row shown, where it is kept. */
	scr->vrange[0] = '\0';
	for (line = text, at = -fixed; first > 0 && *line && at <= first; at++) {
		if (at == first)
			range_copy(scr->vrange, sizeof(scr->vrange), line);
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
	for (line = text, at = -fixed; *line && screen_left() > 0; line = nl + 1, at++) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		else
			*nl = '\0';
		if (at == 0 && first > 0) {
			snprintf(buf, sizeof(buf), "... %ld rows above: PgUp, Home", first);
			screen_line(buf, cols, NULL);
		}
		if (at >= 0 && at < first)
			continue;
		/*
		 * Rows that do not fit: said on the last line, not left out
		 * unsaid, also where the legend fills the screen.
		 */
		rest = nrows - (at > first ? at : first);
		if (at >= last || (screen_left() == 1 && rest > (at < 0 ? 0 : 1))) {
			snprintf(buf, sizeof(buf), "... %ld more row%s: %s", rest,
				 rest == 1 ? "" : "s",
				 avail < 3 ? "a taller terminal shows them" : "PgDn, End");
			screen_line(buf, cols, NULL);
			break;
		}
		screen_line(line, cols, NULL);
	}
	free(text);
}

/*
 * ?: the help in lines of the width, from its line @scr->hfirst where it
 * does not all fit, the lines above and below said as the view's rows are.
 */
static void draw_help(struct top_screen *scr, int cols)
{
	char buf[128], lines[HELP_MAX][160];
	long first = scr->hfirst, shown, i, all, avail = screen_left();

	/* Lines of 80 columns at most: a help of short lines reads better. */
	all = help_lines(lines, cols < 80 ? cols : 80);
	shown = view_page(&first, all, avail);
	scr->hfirst = first;
	if (first > 0) {
		snprintf(buf, sizeof(buf), "... %ld lines above: PgUp, Home", first);
		screen_line(buf, cols, NULL);
	}
	for (i = first; i < first + shown; i++)
		screen_line(lines[i], cols, NULL);
	if (first + shown < all) {
		i = all - first - shown;
		snprintf(buf, sizeof(buf), "... %ld more line%s: %s", i, i == 1 ? "" : "s",
			 avail < 3 ? "a taller terminal shows them" : "PgDn, End");
		screen_line(buf, cols, NULL);
	}
}

/*
 * A key in the help: those that move scroll it, a line or a page of the
 * terminal as it is (the help below the header and the keys' line) at a
 * time; any other leaves it. Whether it is one that scrolls.
 */
static bool help_key(struct top_screen *scr, int key)
{
	char lines[HELP_MAX][160];
	int rows, cols;
	long first = scr->hfirst, avail, all, shown;

	term_size(&rows, &cols);
	avail = rows - 1 - (rows >= 4);
	all = help_lines(lines, cols < 80 ? cols : 80);
	shown = view_page(&first, all, avail);

	switch (key) {
	case KEY_UP:
	case 'k':
		/* Line 1 is not shown below the line that says the one above. */
		first = first == 2 ? 0 : first - 1;
		break;
	case KEY_DOWN:
	case 'j':
		first = first ? first + 1 : 2;
		break;
	case KEY_PGUP:
		first -= avail - 2;
		break;
	case KEY_PGDN:
		first += first + shown < all ? shown : 0;
		break;
	case KEY_HOME:
		first = 0;
		break;
	case KEY_END:
		first = all;
		break;
	default:
		return false;
	}
	view_page(&first, all, avail);
	scr->hfirst = first;
	return true;
}

/*
 * The screen: what is shown, the keys, and the table, as many rows as the
 * terminal has room for from the first scrolled to, every line within its
 * width (whole columns left out where they do not fit); on a terminal of
 * fewer than 4 lines, the header and the column heads first. A mark
 * before each name: + new, - gone; the selected row in reverse video.
 */
static void draw(const struct kstats_opt *o, struct top_screen *scr, struct top *t,
		 const char *name, double secs)
{
	static const char * const heads[] = { "count", "rate/s" };
	size_t n, i, shown, all, kept;
	int rows, cols, namew = 8, ncol, npct, c, k, w[TOP_COLS], keep[TOP_COLS], left, page;
	struct row **v = top_sorted(t, o->sort, o->sort_pct, o->reverse, &n);
	char buf[1024], (*cell)[TOP_COLS][TOP_CELL], filter[sizeof(scr->filter) + 64] = "";
	char head[TOP_COLS][TOP_CELL];
	const char **names;
	const double *pcts = table_pcts(o, &npct);

	term_size(&rows, &cols);
	screen_begin(rows);
	/*
	 * The rows listed (those gone aside), before and after the filter,
	 * which looks at every row; then --lines of them.
	 */
	for (i = 0, all = 0; i < n; i++)
		all += v[i]->seen == t->gen;
	shown = top_filter(scr, v, n);
	for (i = 0, kept = 0; i < shown; i++)
		kept += v[i]->seen == t->gen;
	if (o->lines > 0 && (size_t)o->lines < shown)
		shown = o->lines;
	draw_header(o, scr, t, name, secs, cols);
	/* The rows of the table: the screen less 3 lines (2 below 4 lines). */
	page = rows - (rows >= 4 ? 3 : 2);
	top_cursor(scr, t, v, shown, page);
	/* No row to show the histogram of: the table. */
	if (scr->sel < 0)
		scr->view = 0;
	/* A filter is said first on the keys' line: what the table leaves out. */
	if (scr->filter[0])
		snprintf(filter, sizeof(filter), "filter '%s': %zu of %zu shown; ", scr->filter,
			 kept, all);
	/* The keys' line goes first when lines are short. */
	if (rows >= 4) {
		if (scr->editing)
			snprintf(buf, sizeof(buf), "filter (Enter apply, Esc cancel): %s_",
				 scr->edit);
		else if (scr->view)
			keys_line(buf, sizeof(buf), cols, "", view_keys, NULL);
		else if (t->missing)
			snprintf(buf, sizeof(buf), "%s: %s; waiting for it", top_what(t, name),
				 strerror(t->missing));
		else
			keys_line(buf, sizeof(buf), cols, filter, table_keys, pct_key_name(o));
		screen_line(buf, cols, NULL);
	}
	if (scr->help || (scr->view && scr->sel >= 0)) {
		if (scr->help)
			draw_help(scr, cols);
		else
			draw_view(o, scr, &t->rows[scr->sel], cols);
		fputs("\033[J", stdout);
		fflush(stdout);
		free(v);
		return;
	}
	scr->view = 0;
	left = screen_left();
	n = left > 1 && shown - scr->first > (size_t)left - 1 ? (size_t)left - 1 :
	    left > 1 ? shown - scr->first : 0;
	v += scr->first;
	ncol = 5 + npct;
	for (c = 0; c < 2; c++)
		snprintf(head[c], TOP_CELL, "%s", heads[c]);
	for (c = 0; c < npct; c++)
		snprintf(head[2 + c], TOP_CELL, "p%s", pct_name(buf, sizeof(buf), pcts[c]));
	snprintf(head[ncol - 3], TOP_CELL, "max<=");
	snprintf(head[ncol - 2], TOP_CELL, "total");
	snprintf(head[ncol - 1], TOP_CELL, "avg");
	for (c = 0; c < ncol; c++)
		w[c] = strlen(head[c]);
	cell = top_alloc(NULL, (n + 1) * sizeof(*cell));
	names = top_alloc(NULL, (n + 1) * sizeof(*names));
	namew = rows_cells(o, v, n, secs, cell, ncol, w, names, namew);
	/* The column of the marks takes one. */
	namew = top_fit(o, cols - 1, ncol, w, namew, unique_width(names, n, 8, cols / 2), keep);
	namew = namew < (int)sizeof(buf) / 2 ? namew : (int)sizeof(buf) / 2;
	if (screen_left() > 0) {
		k = snprintf(buf, sizeof(buf), " %-*s", namew, "function");
		for (c = 0; c < ncol; c++)
			if (keep[c])
				k += snprintf(buf + k, sizeof(buf) - k, " %*s", w[c], head[c]);
		screen_line(buf, cols, "\033[1m");
	}
	for (i = 0; i < n; i++) {
		char mark = v[i]->mark ? v[i]->mark : ' ';

		/* A name cut short keeps its start and its end, apart from the others'. */
		buf[0] = mark;
		k = 1 + cut_unique(buf + 1, sizeof(buf) - 1, names, n, i, namew);
		k += snprintf(buf + k, sizeof(buf) - k, "%*s",
			      namew + 1 - k > 0 ? namew + 1 - k : 0, "");
		for (c = 0; c < ncol; c++)
			if (keep[c])
				k += snprintf(buf + k, sizeof(buf) - k, " %*s", w[c], cell[i][c]);
		screen_line(buf, cols, v[i] == &t->rows[scr->sel] ? "\033[7m" :
			    v[i]->mark == '-' ? "\033[2m" : NULL);
	}
	fputs("\033[J", stdout);
	fflush(stdout);
	free(names);
	free(cell);
	free(v - scr->first);
}

/*
 * Whether @buf[0..@n) ends within an escape sequence: an Esc, or CSI
 * (Esc [) or SS3 (Esc O) without its final byte yet.
 */
static bool esc_open(const char *buf, ssize_t n)
{
	ssize_t i = n;

	while (i > 0 && buf[i - 1] != 0x1b)
		i--;
	if (!i)
		return false;
	if (i == n)
		return true;
	if (buf[i] != '[' && buf[i] != 'O')
		return false;
	for (i++; i < n; i++)
		if (buf[i] >= 0x40 && buf[i] <= 0x7e)
			return false;
	return true;
}

/*
 * The key at @buf[@*i], which is left on its last byte: a char, or for
 * an escape sequence KEY_* (KEY_OTHER: one that no key of top means, F1
 * or a mouse's, skipped whole; KEY_ESC: an Esc alone).
 */
static int key_at(const char *buf, ssize_t n, ssize_t *i)
{
	int arg = 0;
	char fin;

	if (buf[*i] != 0x1b)
		return (unsigned char)buf[*i];
	if (*i + 1 >= n || (buf[*i + 1] != '[' && buf[*i + 1] != 'O'))
		return KEY_ESC;
	for (*i += 2; *i < n && buf[*i] >= '0' && buf[*i] <= '9'; ++*i)
		arg = arg < 1000 ? arg * 10 + buf[*i] - '0' : arg;
	for (; *i < n && (buf[*i] < 0x40 || buf[*i] > 0x7e); ++*i)
		;
	if (*i >= n)
		return KEY_OTHER;
	fin = buf[*i];
	if (fin == '~')
		return arg == 5 ? KEY_PGUP : arg == 6 ? KEY_PGDN : arg == 1 || arg == 7 ? KEY_HOME :
		       arg == 4 || arg == 8 ? KEY_END : KEY_OTHER;
	return fin == 'A' ? KEY_UP : fin == 'B' ? KEY_DOWN : fin == 'H' ? KEY_HOME :
	       fin == 'F' ? KEY_END : fin == 'D' ? KEY_LEFT : KEY_OTHER;
}

/* A key of the filter being typed. */
static void filter_key(struct top_screen *scr, int key)
{
	size_t len = strlen(scr->edit);

	if (key == '\n' || key == '\r') {
		memcpy(scr->filter, scr->edit, sizeof(scr->filter));
		scr->editing = 0;
		scr->pos = 0;
		scr->sel = -1;
	} else if (key == KEY_ESC) {
		scr->editing = 0;
	} else if (key == 0x7f || key == 0x08) {
		if (len)
			scr->edit[len - 1] = '\0';
	} else if (key == 0x15) {
		scr->edit[0] = '\0';
	} else if (key >= 0x20 && key < 0x7f && len + 1 < sizeof(scr->edit)) {
		scr->edit[len] = key;
		scr->edit[len + 1] = '\0';
	}
}

/*
 * The cursor moved by @d rows of the table last drawn, at once, as each
 * key comes: at its first or last row, no further. In the view, another
 * function's histogram, from its start: the scroll asked for before is
 * that of the one left.
 */
static void cursor_move(struct top_screen *scr, long d)
{
	long p = (long)scr->pos;

	if (!scr->norder)
		return;
	d = d > (long)scr->norder ? (long)scr->norder : d < -(long)scr->norder ?
	    -(long)scr->norder : d;
	p = p + d < 0 ? 0 : p + d >= (long)scr->norder ? (long)scr->norder - 1 : p + d;
	if (scr->order[p] != scr->sel && scr->view) {
		scr->vsel = -1;
		scr->nvkeys = 0;
	}
	scr->pos = p;
	scr->sel = scr->order[p];
}

/* PgUp, PgDn, Home, End: the cursor moved, or in the view its histogram scrolled. */
static void page_key(struct top_screen *scr, int key)
{
	int up = key == KEY_PGUP || key == KEY_HOME, end = key == KEY_HOME || key == KEY_END;

	if (scr->view) {
		/* More than a read holds: none (a read is 256 bytes, a key 3 or 4). */
		if (scr->nvkeys < (int)sizeof(scr->vkey))
			scr->vkey[scr->nvkeys++] = (up ? -1 : 1) * (end ? 2 : 1);
	} else {
		cursor_move(scr, end ? (up ? -1 : 1) * (long)scr->norder :
			    up ? -scr->page : scr->page);
	}
}

/* The keys of kstats top read: 1 to redraw, -1 to quit. */
static int top_keys(struct kstats_opt *o, struct top_screen *scr, int *stdin_open)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char buf[256];
	ssize_t n, m, i;
	int ret = 0, k, key;

	n = read(STDIN_FILENO, buf, sizeof(buf) / 2);
	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			*stdin_open = 0;
		return 0;
	}
	/*
	 * An escape sequence cut by the end of a read: the rest follows at
	 * once (a terminal writes a key whole), else the Esc was alone.
	 */
	while (esc_open(buf, n) && n < (ssize_t)sizeof(buf) && poll(&pfd, 1, 50) > 0) {
		m = read(STDIN_FILENO, buf + n, sizeof(buf) - n);
		if (m <= 0)
			break;
		n += m;
	}
	for (i = 0; i < n; i++) {
		ret = 1;
		key = key_at(buf, n, &i);
		if (scr->editing) {
			filter_key(scr, key);
			continue;
		}
		/* Any key but those that scroll it leaves the help, q too; ? shows it. */
		if (scr->help && help_key(scr, key))
			continue;
		if (scr->help || key == '?') {
			scr->help = !scr->help;
			scr->hfirst = 0;
			continue;
		}
		switch (key) {
		case 'q':
		case 'Q':
			return -1;
		case KEY_ESC:
		case KEY_LEFT:
			scr->view = 0;
			scr->nvkeys = 0;
			continue;
		case '\n':
		case '\r':
			scr->view = !scr->view;
			scr->nvkeys = 0;
			continue;
		case KEY_UP:
		case 'k':
			cursor_move(scr, -1);
			continue;
		case KEY_DOWN:
		case 'j':
			cursor_move(scr, 1);
			continue;
		case KEY_PGUP:
		case KEY_PGDN:
		case KEY_HOME:
		case KEY_END:
			page_key(scr, key);
			continue;
		case '/':
			/* A new filter, typed from nothing, as less(1)'s /. */
			scr->editing = 1;
			scr->edit[0] = '\0';
			continue;
		case 'P':
			scr->paused = !scr->paused;
			continue;
		case 'R':
			o->reverse = !o->reverse;
			continue;
		}
		k = key < 256 ? sort_of_key(key) : -1;
		if (k >= 0) {
			o->sort = k;
			/* p: the last percentile column. */
			if (o->sort == SORT_PCT)
				o->sort_pct = pct_last(o);
		}
	}
	return ret;
}

static const char top_help[] =
"usage: kstats top [NAME] [options]\n"
"\n"
"The functions of group NAME (kstats trace 'GLOB', or trace fprobe:GLOB as\n"
"NAME written to kstats/_control), or the metric NAME, or without NAME every\n"
"metric and every function of every group, with the samples of the last\n"
"interval: count, rate, p50, p99 (the means of their slots, or -p), max<=\n"
"(an upper bound: that of the slot of the largest sample), total (the sum of\n"
"the values) and avg (total / count). Keys on a terminal: t total, p p99\n"
"(the last percentile), c count, n name, m max<=, a avg, r rate (the sort),\n"
"R the sort reversed, Up/Down/PgUp/PgDn/Home/End the cursor, Enter the\n"
"histogram of its function (PgUp/PgDn/Home/End scroll it, Up/Down another\n"
"function's), / a filter of the names, P pause, ? help, q quit; + marks a\n"
"function new since the read before, - one gone. Into a pipe: a table per\n"
"interval. NAME is a path if it holds a '/' or, without --dir, names a file\n"
"or directory here (as an INPUT of kstats); else it is looked up in the\n"
"kstats directory.\n"
"\n"
"  -d, --delay SECS     refresh every SECS seconds (default 1), as top(1)'s -d\n"
"  -i, --interval SECS  the same\n"
"  -n, --iterations N   stop after N intervals, as top(1)'s -n\n"
"  -c, --count N        the same\n"
"      --duration SECS  stop after SECS seconds\n"
"      --lines N        show N rows at most (default: the terminal's height,\n"
"                       or every row into a pipe)\n"
"  -p, --percentiles LIST\n"
"                       the percentile columns (default 50,99)\n"
"  -s, --sort KEY       total (default), count, rate, name, max, avg, or pQ,\n"
"                       a percentile column (p50, p99)\n"
"  -u, --unit U         print the values in U (ns, us, ms or s; auto: each\n"
"                       scaled up to s; none: plain numbers); they are\n"
"                       nanoseconds unless --input-unit U says otherwise\n"
"      --input-unit U   the values are in U (alone: printed as with -u auto)\n"
"  -b, --batch          plain tables, also on a terminal\n"
"      --dir DIR        the kstats directory (default: kstats/ under the\n"
"                       debugfs mount of /proc/mounts)\n"
"      --files          read each function's file, not the group's _summary\n"
"  -h, --help           this text\n";

static double top_secs(const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || !(v > 0) || v > 1e9)
		kstats_usage_error("%s: '%s' is not a positive number of seconds", opt, arg);
	return v;
}

static long top_long(const char *opt, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v <= 0)
		kstats_usage_error("%s: '%s' is not a positive number", opt, arg);
	return v;
}

/* kstats top [NAME] [options]: @argv[0] is "top". */
int top_main(int argc, char **argv)
{
	enum { O_DIR = 256, O_FILES, O_CPU, O_LINES, O_DURATION, O_IN_UNIT };
	/* -d and -n as top(1)'s: the delay, the iterations. */
	static const struct option lopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "count", required_argument, NULL, 'c' },
		{ "percentiles", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "lines", required_argument, NULL, O_LINES },
		{ "sort", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "unit", required_argument, NULL, 'u' },
		{ "input-unit", required_argument, NULL, O_IN_UNIT },
		{ "batch", no_argument, NULL, 'b' },
		{ "dir", required_argument, NULL, O_DIR },
		{ "files", no_argument, NULL, O_FILES },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	double interval = 1, secs = 0, t0, t1, next, wait;
	int c, tty, files = 0, batch = 0, stdin_open, redraw, k, gone = 0, plain = 0;
	const char *name = NULL, *dir = NULL, *sort = NULL;
	char *debugfs = NULL, *kdir, *path = NULL;
	bool local;
	struct pollfd pfd[2] = { { .fd = -1, .events = POLLIN }, { .events = POLLIN } };
	long count = 0, i;
	struct kstats_opt opt = { .bits = -1, .cpu = -1, .sort_pct = 1 }, *o = &opt;
	struct top_screen scr = { .sel = -1 };
	const double *pcts;
	struct timespec ts;
	struct stat st;
	struct top *t;
	int npct;

	parse_pcts(o, "50,90,95,99,99.9");
	argv[0] = (char *)"kstats";
	while ((c = getopt_long(argc, argv, "i:p:n:s:c:d:u:bh", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'i':
			interval = top_secs(c == 'd' ? "--delay" : "--interval", optarg);
			break;
		case 'p':
			parse_pcts(o, optarg);
			o->pcts = 1;
			break;
		case O_CPU:
			kstats_usage_error("top: --cpu: %s (kstats --cpu N INPUT: one CPU's)",
					   "its rows are the sums of the CPUs");
		case O_LINES:
			table_opt_lines(o, optarg);
			break;
		case 's':
			sort = optarg;
			break;
		case 'n':
		case 'c':
			count = top_long(c == 'n' ? "--iterations" : "--count", optarg);
			break;
		case O_DURATION:
			secs = top_secs("--duration", optarg);
			break;
		case 'u':
			plain = !strcmp(optarg, "none");
			o->disp = plain ? 0 : parse_unit("--unit", optarg, 1);
			o->human = o->human ?: 1;
			break;
		case O_IN_UNIT:
			o->human = parse_unit("--input-unit", optarg, 0);
			break;
		case 'b':
			batch = 1;
			break;
		case O_DIR:
			dir = optarg;
			break;
		case O_FILES:
			files = 1;
			break;
		case 'h':
			fputs(top_help, stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'kstats top --help'.\n");
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (sort)
		table_opt_sort(o, sort);
	if (plain)
		o->human = 0;
	if (argc > 1)
		kstats_usage_error("top: %d names where one at most was expected", argc);
	if (count && secs > 0)
		kstats_usage_error("top: either --iterations (--count) or --duration, not both");
	if (secs > 0)
		count = (long)fmax(1, ceil(secs / interval - 0.000001));
	name = argc ? argv[0] : NULL;
	pcts = table_pcts(o, &npct);
	/* As an INPUT: a path, or a file here, before a name under debugfs. */
	local = name && (strchr(name, '/') || (!dir && !access(name, F_OK)));
	if (!dir) {
		debugfs = kstats_debugfs("top");
		if (!debugfs && !local)
			kstats_die(1, "top: debugfs is not mounted: %s",
				   "mount -t debugfs none /sys/kernel/debug");
	}
	kdir = dir ? strdup(dir) : debugfs ? top_printf("%s/kstats", debugfs) : NULL;
	free(debugfs);
	if (name) {
		path = local ? strdup(name) : top_printf("%s/%s", kdir, name);
		if (!path)
			kstats_die(1, "out of memory");
		if (stat(path, &st))
			kstats_die(1, "top: %s: %s", path, strerror(errno));
		t = top_new(path, NULL, S_ISDIR(st.st_mode), -1, pcts, npct);
	} else {
		if (stat(kdir, &st) || !S_ISDIR(st.st_mode))
			kstats_die(1, "top: %s: %s", kdir, strerror(errno ?: ENOTDIR));
		t = top_new(NULL, kdir, 0, -1, pcts, npct);
	}
	t->files = files;
	tty = !batch && isatty(STDOUT_FILENO);

	t0 = mono_s();
	t->strict = 1;
	top_read(t);
	t->strict = 0;
	if (t->missing)
		kstats_die(1, "top: %s: %s", path ?: kdir, strerror(t->missing));
	next = t0 + interval;
	if (!tty) {
		for (i = 1; !count || i <= count; i++) {
			ts.tv_sec = (time_t)next;
			ts.tv_nsec = (long)((next - (time_t)next) * 1e9);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			t1 = mono_s();
			/* Malformed text: no table for this read, the next covers it. */
			if (top_read(t)) {
				top_say_bad(t);
				next = fmax(next + interval, t1);
				i--;
				continue;
			}
			/* A group removed is waited for (its table empty), as --interval. */
			if (t->missing && !gone++)
				kstats_warn("top: %s: %s; waiting for it", top_what(t, name),
					    strerror(t->missing));
			else if (!t->missing && gone)
				kstats_warn("top: %s: back", top_what(t, name));
			gone = t->missing ? gone : 0;
			printf("interval %ld seconds %.3f %s %s %s %zu sort %s bits %s\n", i,
			       t1 - t0, t->path ? (t->group ? "group" : "metric") : "dir",
			       top_what(t, name), t->path && t->group ? "functions" : "metrics",
			       top_listed(t, &(size_t){ 0 }), sort_name(o), top_bits(t, 1));
			print_table(o, t, t1 - t0, 0);
			if (fflush(stdout))
				kstats_die(1, "top: standard output: %s", strerror(errno));
			t0 = t1;
			next = fmax(next + interval, t1);
		}
		top_free(t);
		free(kdir);
		free(path);
		return 0;
	}

	/* A terminal: the screen redrawn at each read and key. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	atexit(tty_leave);
	pfd[1].fd = catch_signals();
	stdin_open = isatty(STDIN_FILENO);
	t->hold = 1;
	t->show_gone = 1;
	tty_enter();
	draw(o, &scr, t, name, 0);
	secs = 0;
	for (i = 0; !count || i < count;) {
		t1 = mono_s();
		if (t1 >= next) {
			next = fmax(next + interval, t1);
			/* Paused: no read; the next covers the time since the last. */
			if (scr.paused)
				continue;
			/* Malformed text: the screen as it was, the next read covers it. */
			if (top_read(t)) {
				top_say_bad(t);
				continue;
			}
			secs = t1 - t0;
			draw(o, &scr, t, name, secs);
			i++;
			t0 = t1;
			continue;
		}
		wait = next - t1;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (time_t)wait) * 1e9);
		redraw = 0;
		/* A closed standard input is polled no more. */
		pfd[0].fd = stdin_open ? STDIN_FILENO : -1;
		if (ppoll(pfd, 2, &ts, NULL) > 0) {
			if (pfd[1].revents & POLLIN)
				redraw = top_signal(pfd[1].fd);
			if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
				k = top_keys(o, &scr, &stdin_open);
				if (k < 0)
					break;
				redraw |= k;
			}
		}
		if (redraw)
			draw(o, &scr, t, name, secs);
	}
	tty_leave();
	free(scr.order);
	t->hold = 0;
	top_say_skipped(t);
	top_free(t);
	free(kdir);
	free(path);
	return 0;
}
