// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --flamegraph FILE.svg: folded stacks drawn as a flame graph, one
 * self-contained SVG (no other tools, no network): the root at the
 * bottom, a frame as wide as its share of the samples, children in name
 * order; hovering shows a frame's name and share, clicking zooms to it,
 * clicking the root (or Escape) zooms out. The page also takes "#zoom=NAME"
 * and "#hover=NAME" (the first frame of that name), which is how the
 * browser test drives it without a mouse.
 *
 * A differential graph (report --diff --flamegraph) is drawn from the new
 * recording's counts, each frame coloured by its change against the old
 * one's, scaled to the new total: red grew, blue shrank, the deeper the
 * more, white unchanged (as FlameGraph draws difffolded.pl's output).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

struct fnode {
	char *name;
	unsigned long long value;	/* samples here and above */
	unsigned long long old;		/* the same in the old recording */
	struct fnode *kids;		/* sorted by name */
	int nkids, cap;
};

struct kt_flame {
	struct fnode root;
	bool diff;			/* kt_flame_add_diff() was called */
};

static struct fnode *kid_get(struct fnode *n, const char *name, size_t len)
{
	int lo = 0, hi = n->nkids;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		int c = strncmp(n->kids[mid].name, name, len);

		if (!c && n->kids[mid].name[len])
			c = 1;
		if (!c)
			return &n->kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (n->nkids == n->cap) {
		int cap = n->cap ? 2 * n->cap : 4;
		struct fnode *nv = realloc(n->kids, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		n->kids = nv;
		n->cap = cap;
	}
	memmove(&n->kids[lo + 1], &n->kids[lo],
		(n->nkids - lo) * sizeof(*n->kids));
	memset(&n->kids[lo], 0, sizeof(*n->kids));
	n->kids[lo].name = strndup(name, len);
	if (!n->kids[lo].name)
		return NULL;
	n->nkids++;
	return &n->kids[lo];
}

static void fnode_free(struct fnode *n)
{
	for (int i = 0; i < n->nkids; i++)
		fnode_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

int kt_flame_add_diff(struct kt_flame *fg, const char *folded,
		      unsigned long long old, unsigned long long count)
{
	struct fnode *n = &fg->root;

	fg->diff |= old != 0;
	n->value += count;
	n->old += old;
	while (*folded) {
		size_t len = strcspn(folded, ";");

		n = kid_get(n, folded, len);
		if (!n)
			return -ENOMEM;
		n->value += count;
		n->old += old;
		folded += len + (folded[len] == ';');
	}
	return 0;
}

int kt_flame_add(struct kt_flame *fg, const char *folded,
		 unsigned long long count)
{
	return kt_flame_add_diff(fg, folded, 0, count);
}

struct kt_flame *kt_flame_alloc(void)
{
	struct kt_flame *fg = calloc(1, sizeof(*fg));

	if (fg)
		fg->root.name = strdup("all");
	if (fg && !fg->root.name) {
		free(fg);
		return NULL;
	}
	return fg;
}

void kt_flame_free(struct kt_flame *fg)
{
	if (!fg)
		return;
	fnode_free(&fg->root);
	free(fg);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				putc(*s, f);
		}
	}
}

/* flamegraph.pl's "hot" palette: red to yellow, stable per name. */
static void color(const char *name, int *r, int *g, int *b)
{
	unsigned int h = 2166136261u;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = (int)((h >> 8) % 230);
	*b = (int)((h >> 16) % 55);
}

/* A frame's change: its new count less its old one scaled to the new
 * total. */
static double change(const struct fnode *n, double scale)
{
	return n->value - n->old * scale;
}

static double max_change(const struct fnode *n, double scale)
{
	double m = change(n, scale) < 0 ? -change(n, scale) : change(n, scale);

	for (int i = 0; i < n->nkids; i++) {
		double k = max_change(&n->kids[i], scale);

		if (k > m)
			m = k;
	}
	return m;
}

/* Red for growth, blue for loss, white for none: the share of the largest
 * change sets the depth. */
static void diff_color(double d, double max, int *r, int *g, int *b)
{
	int v = max > 0 ? (int)(210 * (d < 0 ? -d : d) / max) : 0;

	*r = d < 0 ? 255 - v : 255;
	*g = 255 - v;
	*b = d > 0 ? 255 - v : 255;
}

struct layout {
	unsigned long long total;	/* the root's samples */
	bool diff;
	double scale, max;		/* diff: old to new, largest change */
};

#define FG_WIDTH 1200
#define FG_PAD 10
#define FG_ROW 16

static int depth_of(const struct fnode *n)
{
	int d = 0;

	for (int i = 0; i < n->nkids; i++) {
		int k = depth_of(&n->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
}

/* Frames as <g> elements, x and width in samples (the script lays out). */
static void emit(FILE *f, const struct fnode *n, unsigned long long x,
		 int depth, const struct layout *l)
{
	unsigned long long kx = x;
	int r, g, b;

	if (l->diff)
		diff_color(change(n, l->scale), l->max, &r, &g, &b);
	else
		color(n->name, &r, &g, &b);
	fprintf(f, "<g class=\"f\" data-x=\"%llu\" data-w=\"%llu\" data-d=\"%d\"><title>",
		x, n->value, depth);
	xml_text(f, n->name);
	fprintf(f, " (%llu samples, %.2f%%", n->value,
		l->total ? 100.0 * n->value / l->total : 0.0);
	if (l->diff)	/* the change in share: as the colour says */
		fprintf(f, ", %+.2f%%", l->total ?
			100.0 * change(n, l->scale) / l->total : 0.0);
	fprintf(f, ")</title><rect height=\"%d\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/><text></text></g>\n",
		FG_ROW - 1, r, g, b);
	for (int i = 0; i < n->nkids; i++) {
		emit(f, &n->kids[i], kx, depth + 1, l);
		kx += n->kids[i].value;
	}
}

static const char fg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"var W = FG_W, PAD = FG_P, ROW = FG_R, H, frames, details, zoomed = null;\n"
	"function nameOf(g) { var t = g.querySelector('title').textContent;\n"
	"  return t.substring(0, t.lastIndexOf(' (')); }\n"
	"function layout(x0, w0, d0) {\n"
	"  frames.forEach(function (g) {\n"
	"    var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d, show, px, pw;\n"
	"    if (d < d0) { show = x <= x0 && x0 + w0 <= x + w; px = 0; pw = W - 2 * PAD; }\n"
	"    else { show = x >= x0 && x + w <= x0 + w0;\n"
	"      px = (x - x0) / w0 * (W - 2 * PAD); pw = w / w0 * (W - 2 * PAD); }\n"
	"    g.style.display = show && pw >= 0.1 ? '' : 'none';\n"
	"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"    var y = H - PAD - 16 - (d + 1) * ROW;\n"
	"    r.setAttribute('x', PAD + px); r.setAttribute('y', y);\n"
	"    r.setAttribute('width', Math.max(pw - 0.5, 0));\n"
	"    t.setAttribute('x', PAD + px + 3); t.setAttribute('y', y + ROW - 4);\n"
	"    var n = nameOf(g), fit = Math.floor((pw - 6) / 7);\n"
	"    t.textContent = fit < 3 ? '' : n.length <= fit ? n : n.substring(0, fit - 2) + '..';\n"
	"  });\n"
	"}\n"
	"function zoom(g) { zoomed = g && +g.dataset.d > 0 ? g : null;\n"
	"  var z = zoomed || frames[0];\n"
	"  layout(+z.dataset.x, +z.dataset.w, +z.dataset.d);\n"
	"  document.getElementById('zoom').textContent = zoomed ? 'Zoomed to ' + nameOf(zoomed) + ' (click all or press Escape to reset)' : ''; }\n"
	"function hover(g) { details.textContent = g ? g.querySelector('title').textContent : ' '; }\n"
	"function byName(n) { for (var i = 0; i < frames.length; i++) if (nameOf(frames[i]) === n) return frames[i]; return null; }\n"
	"function fromHash() { var h = decodeURIComponent(location.hash.substring(1));\n"
	"  if (h.indexOf('zoom=') === 0) zoom(byName(h.substring(5)));\n"
	"  if (h.indexOf('hover=') === 0) hover(byName(h.substring(6))); }\n"
	"window.addEventListener('load', function () {\n"
	"  var svg = document.documentElement; H = +svg.getAttribute('height');\n"
	"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"  details = document.getElementById('details');\n"
	"  frames.forEach(function (g) {\n"
	"    g.addEventListener('click', function () { zoom(g); });\n"
	"    g.addEventListener('mouseover', function () { hover(g); });\n"
	"    g.addEventListener('mouseout', function () { hover(null); }); });\n"
	"  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') zoom(null); });\n"
	"  zoom(null); fromHash(); window.addEventListener('hashchange', fromHash);\n"
	"  svg.setAttribute('data-ready', 'yes');\n"
	"});\n"
	"]]></script>\n";

int kt_flame_write(const struct kt_flame *fg, FILE *f, const char *title)
{
	int depth = depth_of(&fg->root);
	int height = depth * FG_ROW + 2 * FG_PAD + 56;
	const char *s = fg_script;
	struct layout l;

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; fill: #000; } "
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; } "
		"#title { font-size: 17px; } </style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		FG_WIDTH, height, FG_WIDTH, height, FG_WIDTH / 2);
	xml_text(f, title);
	fprintf(f, "</text>\n<text id=\"zoom\" x=\"%d\" y=\"44\"></text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		FG_PAD, FG_PAD, height - 8);
	l.total = fg->root.value;
	l.diff = fg->diff;
	l.scale = fg->root.old ? (double)fg->root.value / fg->root.old : 0;
	l.max = l.diff ? max_change(&fg->root, l.scale) : 0;
	emit(f, &fg->root, 0, 0, &l);
	/* the script, with the layout's numbers */
	while (*s) {
		const char *m = strstr(s, "FG_");

		if (!m) {
			fputs(s, f);
			break;
		}
		fwrite(s, 1, m - s, f);
		fprintf(f, "%d", m[3] == 'W' ? FG_WIDTH :
			       m[3] == 'P' ? FG_PAD : FG_ROW);
		s = m + 4;
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
