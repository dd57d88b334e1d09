// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_trace: the parser of the commands of _control. It checks the
 * syntax only, and looks nothing up: whether symbols exist and names are
 * free is known when the command is carried out (kstats_trace_control.c).
 */

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kstats.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>

#include "kstats_trace.h"

#define KSTATS_TRACE_TP_SYM	"__tracepoint_"
#define KSTATS_TRACE_MAX_WORDS	12
/* The characters of a glob, beside those of symbols. */
#define KSTATS_TRACE_GLOB	"*?["

/* The prefix of a function that chooses its mode, in trace commands. */
static const char *const kstats_trace_prefix[KSTATS_TRACE_NR_MODES] = {
	[KSTATS_TRACE_PCPU] = "pcpu:",
	[KSTATS_TRACE_FPROBE] = "fprobe:",
};

/* Symbols: what kallsyms may hold (letters, digits, '_', '.', '$'). */
static bool kstats_trace_valid_sym(const char *sym)
{
	const char *c;

	/* Not a number either: ftrace's filter takes one as an index. */
	if (!*sym || strlen(sym) >= KSYM_NAME_LEN || isdigit(*sym))
		return false;
	for (c = sym; *c; c++)
		if (!isalnum(*c) && *c != '_' && *c != '.' && *c != '$')
			return false;
	return true;
}

/* A module's name, as MODULE:SYM gives it: @len characters of @mod. */
static bool kstats_trace_valid_mod(const char *mod, size_t len)
{
	size_t i;

	if (!len || len >= MODULE_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(mod[i]) && mod[i] != '_')
			return false;
	return true;
}

/*
 * SYM, or MODULE:SYM for a function of a module (the form of kprobe
 * events). kstats must not time itself: its record path would recurse.
 */
static int kstats_trace_check_sym(const char *sym)
{
	const char *colon = strchr(sym, ':');
	const char *func = colon ? colon + 1 : sym;
	size_t mlen = colon ? colon - sym : 0;

	if (strpbrk(sym, KSTATS_TRACE_GLOB)) {
		kstats_trace_err(sym, "'%s' is a glob: only trace fprobe:GLOB as NAME takes one",
				 sym);
		return -EINVAL;
	}
	if (str_has_prefix(sym, KSTATS_TRACE_TP)) {
		kstats_trace_err(sym, "'%s': a tracepoint is an end of a pair, trace NAME start POINT end POINT",
				 sym);
		return -EINVAL;
	}
	/* fprobe:pcpu:FUNC is two forms, not the module pcpu. */
	if (colon && (!strncmp(sym, "pcpu:", mlen + 1) || !strncmp(sym, "fprobe:", mlen + 1))) {
		kstats_trace_err(sym, "'%s': one form at most, pcpu: or fprobe:", sym);
		return -EINVAL;
	}
	if (colon && !kstats_trace_valid_mod(sym, mlen)) {
		kstats_trace_err(sym, "invalid module name in '%s': MODULE:SYMBOL, with '_' where the module's file has '-'",
				 sym);
		return -EINVAL;
	}
	if (!kstats_trace_valid_sym(func)) {
		kstats_trace_err(sym, "invalid symbol '%s'", sym);
		return -EINVAL;
	}
	if (str_has_prefix(func, "kstats_") ||
	    (colon && mlen == strlen(KBUILD_MODNAME) && !strncmp(sym, KBUILD_MODNAME, mlen))) {
		kstats_trace_err(sym, "%s: kstats cannot trace itself", sym);
		return -EPERM;
	}
	return 0;
}

/* A glob of ftrace's filter: symbol characters, '*', '?' and [classes]. */
static int kstats_trace_check_glob(const char *glob)
{
	const char *c;

	for (c = glob; *c; c++) {
		if (!isalnum(*c) && !strchr("_.$*?[]!^-", *c)) {
			kstats_trace_err(glob, "invalid glob '%s': symbol characters, '*', '?' and [...] only",
					 glob);
			return -EINVAL;
		}
	}
	/*
	 * A name without a glob's characters is a group too: of the
	 * functions that share it, each in its own file.
	 */
	if (glob[0] == '!' || isdigit(glob[0]) || strlen(glob) >= KSYM_NAME_LEN) {
		kstats_trace_err(glob, "invalid glob '%s': a glob of function names, such as vfs_*",
				 glob);
		return -EINVAL;
	}
	return 0;
}

/*
 * A metric name, as its file's name, with room for a prefix of @extra
 * characters (GAP-): refused here, with the word marked, rather than by
 * kstats_new() once half of the trace is made.
 */
static int kstats_trace_check_name(const char *name, size_t extra)
{
	if (strlen(name) + extra > NAME_MAX) {
		kstats_trace_err(name, "name longer than %zu characters: %.32s...",
				 NAME_MAX - extra, name);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* SYM[+OFF], __tracepoint_NAME or tp:NAME */
static int kstats_trace_parse_point(char *word, struct kstats_trace_where *p)
{
	char *plus;
	size_t n;

	p->offset = 0;
	p->tracepoint = false;
	n = str_has_prefix(word, KSTATS_TRACE_TP);
	if (!n)
		n = str_has_prefix(word, KSTATS_TRACE_TP_SYM);
	if (n) {
		p->sym = word + n;
		p->tracepoint = true;
		if (!kstats_trace_valid_sym(p->sym) || strpbrk(p->sym, ".$")) {
			kstats_trace_err(word, "invalid tracepoint '%s'", word);
			return -EINVAL;
		}
		return 0;
	}
	plus = strchr(word, '+');
	if (plus) {
		*plus++ = '\0';
		if (kstrtouint(plus, 0, &p->offset)) {
			kstats_trace_err(plus, "invalid offset '+%s' of '%s'", plus, word);
			return -EINVAL;
		}
	}
	p->sym = word;
	return kstats_trace_check_sym(word);
}

/*
 * The options that end a trace command, in any order, each at most once:
 * bits N, pid N, cgroup PATH, maxactive N, gap. Takes them off the end of
 * @argv.
 */
static int kstats_trace_parse_options(char **argv, int *argc,
				      struct kstats_trace_cmd *cmd)
{
	bool bits = false;
	char *key, *val;

	/* "trace FUNC" or "trace NAME start P end P" stays before them. */
	while (*argc >= 3) {
		if (!strcmp(argv[*argc - 1], "gap")) {
			if (cmd->gap) {
				kstats_trace_err(argv[*argc - 1], "gap given twice");
				return -EINVAL;
			}
			cmd->gap = true;
			*argc -= 1;
			continue;
		}
		if (*argc < 4)
			break;
		key = argv[*argc - 2];
		val = argv[*argc - 1];
		if (!strcmp(key, "bits")) {
			if (bits) {
				kstats_trace_err(key, "bits given twice");
				return -EINVAL;
			}
			bits = true;
			cmd->bits_set = true;
			if (kstrtouint(val, 10, &cmd->bits)) {
				kstats_trace_err(val, "invalid bits '%s'", val);
				return -EINVAL;
			}
			if (cmd->bits > KSTATS_MAX_FRAC_BITS) {
				kstats_trace_err(val, "bits %u out of range 0..%u",
						 cmd->bits, KSTATS_MAX_FRAC_BITS);
				return -ERANGE;
			}
		} else if (!strcmp(key, "pid")) {
			if (cmd->pid) {
				kstats_trace_err(key, "pid given twice");
				return -EINVAL;
			}
			if (kstrtoint(val, 10, &cmd->pid) || cmd->pid <= 0) {
				kstats_trace_err(val, "invalid pid '%s'", val);
				cmd->pid = 0;
				return -EINVAL;
			}
		} else if (!strcmp(key, "cgroup")) {
			if (cmd->cgroup) {
				kstats_trace_err(key, "cgroup given twice");
				return -EINVAL;
			}
			if (val[0] != '/') {
				kstats_trace_err(val, "cgroup '%s': a path from the cgroup2 root, starting with /",
						 val);
				return -EINVAL;
			}
			cmd->cgroup = val;
		} else if (!strcmp(key, "maxactive")) {
			if (cmd->maxactive) {
				kstats_trace_err(key, "maxactive given twice");
				return -EINVAL;
			}
			if (kstrtouint(val, 10, &cmd->maxactive) || !cmd->maxactive) {
				kstats_trace_err(val, "invalid maxactive '%s'", val);
				cmd->maxactive = 0;
				return -EINVAL;
			}
			if (cmd->maxactive > KSTATS_TRACE_MAXACTIVE_MAX) {
				kstats_trace_err(val, "maxactive %u out of range 1..%u",
						 cmd->maxactive, KSTATS_TRACE_MAXACTIVE_MAX);
				return -ERANGE;
			}
		} else {
			break;
		}
		*argc -= 2;
	}
	return 0;
}

/**
 * kstats_trace_parse() - parse one command of the _control file
 * @line: the command, NUL terminated; one trailing newline is allowed.
 *	Modified: @cmd points into it.
 * @cmd: the parsed command
 *
 * The commands are ``trace [pcpu:|fprobe:]FUNC [OPTIONS]``,
 * ``trace NAME start POINT end POINT [OPTIONS]`` where a POINT is
 * ``SYM[+OFF]``, ``__tracepoint_NAME`` or ``tp:NAME``,
 * ``trace fprobe:GLOB as NAME [OPTIONS]`` (a group: every function that
 * the glob GLOB matches, bits 1 unless given) and ``remove NAME``.
 * The OPTIONS, in any order: ``bits N``; ``gap``, a ``GAP-NAME`` metric
 * too, for a function; ``pid N``, only the calls of the
 * process (thread group) N; ``cgroup PATH``, only those of the tasks in
 * the cgroup v2 PATH (from the root of the cgroup2 hierarchy) or below;
 * ``maxactive N``, the calls in flight at once that the probe holds, for a
 * function (up to 4096) or a group (up to 65536), not a pair, whose ends
 * hold none.
 * A ``#`` starts a comment; a line that is only a comment does nothing.
 * Only the syntax is checked here: whether symbols exist and names are free
 * is known when the command is carried out.
 *
 * Context: process context; may sleep.
 * Return: 0 (@cmd->verb is %KSTATS_TRACE_NONE for a comment), -EINVAL for
 * a malformed command (an option given twice, a pid that is not a
 * positive number, a cgroup path not starting with /, maxactive 0 or for a
 * pair), -ERANGE for bits or maxactive out of range, -ENAMETOOLONG for a
 * name longer than a file name may be (NAME_MAX, less "GAP-" for a
 * function), -EPERM for a kstats function; a warning says what was wrong.
 */
int kstats_trace_parse(char *line, struct kstats_trace_cmd *cmd)
{
	char *argv[KSTATS_TRACE_MAX_WORDS], *word, *func, *comment;
	size_t len = strlen(line), n = 0;
	int argc = 0, ret;
	unsigned int mode;

	memset(cmd, 0, sizeof(*cmd));
	if (len && line[len - 1] == '\n')
		line[--len] = '\0';
	for (word = line; *word; word++) {
		if (iscntrl(*word) && *word != '\t') {
			kstats_trace_err(word, "control character in command");
			return -EINVAL;
		}
	}
	/* A '#' starts a comment, to the end of the line, as in tracefs. */
	comment = strchr(line, '#');
	if (comment)
		*comment = '\0';
	while ((word = strsep(&line, " \t"))) {
		if (!*word)
			continue;
		if (argc == KSTATS_TRACE_MAX_WORDS) {
			kstats_trace_err(word, "too many words in command");
			return -EINVAL;
		}
		argv[argc++] = word;
	}
	if (!argc && comment) {
		cmd->verb = KSTATS_TRACE_NONE;
		return 0;
	}
	if (!argc) {
		kstats_trace_err(NULL, "empty command");
		return -EINVAL;
	}

	if (!strcmp(argv[0], "remove")) {
		if (argc != 2) {
			kstats_trace_err(NULL, "usage: remove NAME");
			return -EINVAL;
		}
		cmd->verb = KSTATS_TRACE_REMOVE;
		cmd->name = argv[1];
		return 0;
	}
	if (strcmp(argv[0], "trace")) {
		kstats_trace_err(argv[0], "unknown command '%s': expected trace or remove",
				 argv[0]);
		return -EINVAL;
	}

	cmd->verb = KSTATS_TRACE_ADD;
	cmd->bits = KSTATS_TRACE_DEFAULT_BITS;
	ret = kstats_trace_parse_options(argv, &argc, cmd);
	if (ret)
		return ret;

	if (cmd->gap && (argc == 6 || (argc == 4 && !strcmp(argv[2], "as")))) {
		kstats_trace_err("gap", "gap: only a function's trace has a GAP- metric, not %s",
				 argc == 6 ? "a pair" : "a group");
		return -EINVAL;
	}
	if (cmd->maxactive && argc == 6) {
		kstats_trace_err("maxactive",
				 "maxactive: a pair's ends are kprobes, which hold no call in flight");
		return -EINVAL;
	}
	if (argc == 6 && !strcmp(argv[2], "start") && !strcmp(argv[4], "end")) {
		cmd->mode = KSTATS_TRACE_PAIR;
		cmd->name = argv[1];
		ret = kstats_trace_check_name(cmd->name, 0);
		if (!ret)
			ret = kstats_trace_parse_point(argv[3], &cmd->start);
		if (!ret)
			ret = kstats_trace_parse_point(argv[5], &cmd->end);
		return ret;
	}
	if (cmd->maxactive > KSTATS_TRACE_MAXACTIVE_FUNC &&
	    !(argc == 4 && !strcmp(argv[2], "as"))) {
		kstats_trace_err("maxactive",
				 "maxactive %u out of range 1..%u for a function, as kprobe and fprobe events take it; a group takes up to %u",
				 cmd->maxactive, KSTATS_TRACE_MAXACTIVE_FUNC,
				 KSTATS_TRACE_MAXACTIVE_MAX);
		return -ERANGE;
	}
	if (argc == 4 && !strcmp(argv[2], "as")) {
		n = str_has_prefix(argv[1], kstats_trace_prefix[KSTATS_TRACE_FPROBE]);
		if (!n) {
			kstats_trace_err(argv[1], "'%s': a group is timed by fprobe: trace fprobe:GLOB as NAME",
					 argv[1]);
			return -EINVAL;
		}
		cmd->mode = KSTATS_TRACE_GROUP;
		cmd->name = argv[3];
		cmd->start.sym = argv[1] + n;
		if (!cmd->bits_set)
			cmd->bits = KSTATS_TRACE_GROUP_BITS;
		ret = kstats_trace_check_glob(cmd->start.sym);
		return ret ?: kstats_trace_check_name(cmd->name, 0);
	}
	if (argc != 2) {
		kstats_trace_err(NULL, "usage: trace [pcpu:|fprobe:]FUNC [OPTIONS], trace NAME start POINT end POINT [OPTIONS] or trace fprobe:GLOB as NAME [OPTIONS]; OPTIONS: bits N, pid N, cgroup PATH, maxactive N, gap");
		return -EINVAL;
	}

	func = argv[1];
	cmd->mode = KSTATS_TRACE_KRETPROBE;
	for (mode = 0; mode < ARRAY_SIZE(kstats_trace_prefix); mode++) {
		n = str_has_prefix(func, kstats_trace_prefix[mode] ?: "");
		if (n) {
			cmd->mode = mode;
			break;
		}
	}
	func += n;
	cmd->name = func;
	cmd->start.sym = func;
	ret = kstats_trace_check_name(func, strlen(KSTATS_TRACE_GAP));
	return ret ?: kstats_trace_check_sym(func);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_trace_parse);
