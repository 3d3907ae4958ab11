// SPDX-License-Identifier: LGPL-2.1-only
/* The Prometheus text exposition format (see prom.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/prom.h"

void kt_prom_escape(FILE *f, const char *s, bool label)
{
	for (; *s; s++) {
		size_t n = strcspn(s, label ? "\\\n\"" : "\\\n");

		fwrite(s, 1, n, f);
		s += n;
		if (!*s)
			break;
		fputc('\\', f);
		fputc(*s == '\n' ? 'n' : *s, f);
	}
}

static bool name_char(char c, bool label, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (c == ':')
		return !label;
	return !first && c >= '0' && c <= '9';
}

char *kt_prom_name(char *buf, size_t len, const char *s, bool label)
{
	size_t o = 0;

	if (*s >= '0' && *s <= '9')
		buf[o++] = '_';
	for (; *s && o + 1 < len; s++, o++)
		buf[o] = name_char(*s, label, o == 0) ? *s : '_';
	if (!o)
		buf[o++] = '_';
	buf[o] = '\0';
	/* "__" starts the names Prometheus keeps for itself */
	if (label && buf[0] == '_' && buf[1] == '_')
		buf[0] = 'k';
	return buf;
}

void kt_prom_family(FILE *f, const char *name, const char *type,
		    const char *help)
{
	if (help) {
		fprintf(f, "# HELP %s ", name);
		kt_prom_escape(f, help, false);
		fputc('\n', f);
	}
	fprintf(f, "# TYPE %s %s\n", name, type);
}

static void sample_start(FILE *f, const char *name,
			 const struct kt_prom_label *l, int n)
{
	fputs(name, f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%c%s=\"", i ? ',' : '{', l[i].name);
		kt_prom_escape(f, l[i].value, true);
		fputc('"', f);
	}
	if (n)
		fputc('}', f);
}

void kt_prom_u64(FILE *f, const char *name, const struct kt_prom_label *l,
		 int n, uint64_t v)
{
	sample_start(f, name, l, n);
	fprintf(f, " %llu\n", (unsigned long long)v);
}

void kt_prom_double(FILE *f, const char *name, const struct kt_prom_label *l,
		    int n, double v)
{
	sample_start(f, name, l, n);
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else {
		char b[40];

		/* the shortest of 15 or 17 digits that reads back as v */
		snprintf(b, sizeof(b), "%.15g", v);
		if (strtod(b, NULL) != v)
			snprintf(b, sizeof(b), "%.17g", v);
		fprintf(f, " %s\n", b);
	}
}
