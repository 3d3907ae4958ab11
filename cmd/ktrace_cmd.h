/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the ktrace subcommands (cmd/). */
#ifndef KTRACE_CMD_H
#define KTRACE_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "ktrace.h"

enum {
	KT_OK = 0,
	KT_FAIL = 1,	/* the operation failed */
	KT_USAGE = 2,	/* the command line was wrong */
};

struct kt_ctx {
	FILE *out;		/* results */
	FILE *err;		/* diagnostics */
	bool json;		/* --json: machine-readable output and errors */
	const char *tracefs;	/* --tracefs DIR, or NULL */
	struct ktrace_tfs *tfs;	/* opened on first use by kt_tfs() */
	const char *cmd;	/* the running subcommand's name */
};

struct cmd {
	const char *name;
	int (*fn)(struct kt_ctx *ctx, int argc, char **argv);
	const char *summary;
};

/* Dispatch argv[0] among cmds; prints usage for unknown commands. */
int kt_dispatch(struct kt_ctx *ctx, const struct cmd *cmds, const char *what,
		int argc, char **argv);

/*
 * The error funnel: prints "ktrace: MSG" (or {"error": "MSG"} under --json)
 * on ctx->err and returns status, so callers can `return kt_error(...)`.
 */
int kt_error(struct kt_ctx *ctx, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Same for a struct ktrace_err: the message, the kernel's text, and a
 * caret under the offending character of the user's input. */
int kt_error_detail(struct kt_ctx *ctx, int status,
		    const struct ktrace_err *err);
/* "unknown option" / "missing argument" style usage error: exit 2. */
int kt_usage_error(struct kt_ctx *ctx, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The tracefs handle (opened on first call). NULL: error already printed. */
struct ktrace_tfs *kt_tfs(struct kt_ctx *ctx);

/* Reset getopt for a fresh parse (subcommands are called in-process). */
void kt_getopt_reset(void);

/* JSON string (with quotes) of s on f. */
void kt_json_str(FILE *f, const char *s);

/* Subcommands. */
int cmd_list(struct kt_ctx *ctx, int argc, char **argv);
int cmd_enable(struct kt_ctx *ctx, int argc, char **argv);
int cmd_disable(struct kt_ctx *ctx, int argc, char **argv);
int cmd_filter(struct kt_ctx *ctx, int argc, char **argv);
int cmd_show(struct kt_ctx *ctx, int argc, char **argv);
int cmd_reset(struct kt_ctx *ctx, int argc, char **argv);
int cmd_probe(struct kt_ctx *ctx, int argc, char **argv);
int cmd_record(struct kt_ctx *ctx, int argc, char **argv);
int cmd_report(struct kt_ctx *ctx, int argc, char **argv);
int cmd_stat(struct kt_ctx *ctx, int argc, char **argv);

/* Entry point shared by main() and the in-process tests. */
int ktrace_main(struct kt_ctx *ctx, int argc, char **argv);

#endif
