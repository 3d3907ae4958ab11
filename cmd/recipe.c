// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recipes: a command's options in a file users can read and copy
 * (probes/NAME.hist for ktrace hist), found like the probe sets.
 *
 *   # syscalls-by-name: system calls by name, most frequent first
 *   # (perf trace -s, strace -c)
 *   event raw_syscalls:sys_enter
 *   key id.syscall
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

struct kt_recipe {
	char *text;
	struct kt_recipe *next;
};

void kt_recipe_free(struct kt_recipe *r)
{
	while (r) {
		struct kt_recipe *next = r->next;

		free(r->text);
		free(r);
		r = next;
	}
}

/* NAME (in the recipes' directory) or a path: malloc'ed. */
static char *recipe_path(const char *name, const char *kind)
{
	const char *dir = kt_probes_dir();
	char *p;

	if (strchr(name, '/'))
		return strdup(name);
	if (!dir || kt_name_check(name)) {
		errno = ENOENT;
		return NULL;
	}
	if (asprintf(&p, "%s/%s.%s", dir, name, kind) < 0)
		return NULL;
	return p;
}

static const struct option *find_opt(const struct option *opts,
				     const char *name)
{
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts;
	return NULL;
}

/* One "OPTION [VALUE]" line (cut in place) through apply. */
static int recipe_line(struct kt_ctx *ctx, const char *path, int lineno,
		       char *line, const struct option *opts,
		       int (*apply)(void *arg, int opt, const char *val),
		       void *arg)
{
	char *val = line + strcspn(line, " \t");
	const struct option *o;
	char *end;

	if (*val)
		*val++ = '\0';
	while (isspace((unsigned char)*val))
		val++;
	end = val + strlen(val);
	while (end > val && isspace((unsigned char)end[-1]))
		*--end = '\0';
	o = find_opt(opts, line);
	if (!o)
		return kt_usage_error(ctx, NULL, "%s:%d: unknown option '%s'",
				      path, lineno, line);
	if ((o->has_arg == required_argument) != (*val != '\0'))
		return kt_usage_error(ctx, NULL, "%s:%d: '%s' %s", path,
				      lineno, line, *val ? "takes no value" :
				      "needs a value");
	return apply(arg, o->val, *val ? val : NULL);
}

int kt_recipe_apply(struct kt_ctx *ctx, const char *name,
		    const struct option *opts,
		    int (*apply)(void *arg, int opt, const char *val),
		    void *arg, struct kt_recipe **keep)
{
	char *path = recipe_path(name, "hist"), *line, *next;
	struct kt_recipe *r;
	int ret = KT_OK, lineno = 0;

	if (!path)
		return kt_error(ctx, KT_USAGE,
				"no recipe '%s' (ktrace hist --list-recipes)",
				name);
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(path);
		return kt_error(ctx, KT_FAIL, "out of memory");
	}
	r->text = kt_read_file(path, NULL);
	if (!r->text) {
		ret = kt_error(ctx, errno == ENOENT ? KT_USAGE : KT_FAIL,
			       "cannot read recipe '%s': %s", path,
			       strerror(errno));
		free(r);
		free(path);
		return ret;
	}
	r->next = *keep;
	*keep = r;
	for (line = r->text; !ret && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (isspace((unsigned char)*line))
			line++;
		if (*line && *line != '#')
			ret = recipe_line(ctx, path, lineno, line, opts, apply,
					  arg);
	}
	free(path);
	return ret;
}

/* "# NAME: what it answers" of a recipe file, or "". */
static void recipe_summary(const char *path, char *buf, size_t len)
{
	char *text = kt_read_file(path, NULL), *colon;

	buf[0] = '\0';
	if (text && text[0] == '#') {
		colon = strchr(text, ':');
		if (colon && colon < text + strcspn(text, "\n")) {
			colon++;
			while (*colon == ' ')
				colon++;
			snprintf(buf, len, "%.*s", (int)strcspn(colon, "\n"),
				 colon);
		}
	}
	free(text);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kt_recipe_list(struct kt_ctx *ctx, const char *kind)
{
	const char *dir = kt_probes_dir();
	char **names = NULL, sfx[32], path[4096], sum[256];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(sfx, sizeof(sfx), ".%s", kind);
	d = dir ? opendir(dir) : NULL;
	if (!d)
		return kt_error(ctx, KT_FAIL, "no recipes installed (%s)",
				dir ? dir : "no probes directory");
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (l <= strlen(sfx) || strcmp(de->d_name + l - strlen(sfx),
					       sfx))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strndup(de->d_name, l - strlen(sfx));
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	if (ctx->json && kt_json(ctx))
		kt_json_array_begin(kt_json(ctx));
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s%s", dir, names[i], sfx);
		recipe_summary(path, sum, sizeof(sum));
		if (ctx->json) {
			struct kt_json *j = kt_json(ctx);

			if (j) {
				kt_json_object_begin(j);
				kt_jstr(j, "recipe", names[i]);
				kt_jstr(j, "path", path);
				kt_jstr(j, "summary", sum);
				kt_json_object_end(j);
			}
		} else {
			fprintf(ctx->out, "%-24s %s\n", names[i], sum);
		}
		free(names[i]);
	}
	if (ctx->json && kt_json(ctx))
		kt_json_array_end(kt_json(ctx));
	free(names);
	return KT_OK;
}

void kt_recipe_summary(const char *name, const char *kind, char *buf,
		       size_t len)
{
	char *path = recipe_path(name, kind);

	buf[0] = '\0';
	if (path)
		recipe_summary(path, buf, len);
	free(path);
}
