// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Machine code to text through capstone (Debian's libcapstone): the
 * architecture, mode and syntax are the kt_arch table's (lib/arch), so
 * nothing here is per architecture. Bytes it cannot decode are kept as
 * ".byte" entries (CS_OPT_SKIPDATA): the addresses after them stay right.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

#include "arch/arch.h"
#include "sym/annotate.h"

/* "mnemonic operands" of one decoded instruction (the caller frees it). */
static char *insn_text(const cs_insn *ci)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", ci->mnemonic, ci->op_str[0] ? " " : "",
		     ci->op_str) < 0)
		return NULL;
	return s;
}

/* Move the n decoded ci[] into v[0..n) (texts allocated). 0 or -ENOMEM. */
static int take(struct kt_ainsn *v, const cs_insn *ci, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct kt_ainsn){
			.addr = ci[i].address,
			.len = ci[i].size,
			.file = -1,
		};
		v[i].text = insn_text(&ci[i]);
		if (!v[i].text) {
			while (i--)
				free(v[i].text);
			return -ENOMEM;
		}
	}
	return 0;
}

int kt_disasm(const struct kt_arch *arch, const uint8_t *code, size_t len,
	      uint64_t addr, struct kt_ainsn **out, size_t *n)
{
	cs_insn *ci = NULL;
	csh h;
	size_t got;
	int ret;

	*out = NULL;
	*n = 0;
	if (!arch || cs_open(arch->cs_arch, arch->cs_mode, &h) != CS_ERR_OK)
		return -EOPNOTSUPP;
	if (arch->cs_syntax)
		cs_option(h, CS_OPT_SYNTAX, arch->cs_syntax);
	cs_option(h, CS_OPT_SKIPDATA, CS_OPT_ON);
	got = len ? cs_disasm(h, code, len, addr, 0, &ci) : 0;
	if (!got && len) {
		ret = cs_errno(h) == CS_ERR_MEM ? -ENOMEM : -EOPNOTSUPP;
		cs_close(&h);
		return ret;
	}
	*out = calloc(got ? got : 1, sizeof(**out));
	ret = *out ? take(*out, ci, got) : -ENOMEM;
	if (ret) {
		free(*out);
		*out = NULL;
	} else {
		*n = got;
	}
	cs_free(ci, got);
	cs_close(&h);
	return ret;
}
