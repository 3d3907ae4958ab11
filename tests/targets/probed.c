// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for uprobe tests. Usage: probed [N]
 * Calls hot() N times (default 1000), parse_line() on a few lines and
 * account() on a small linked list, then prints one line with the totals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probed.h"

unsigned long hot_count;
char probed_tag[8] = "probed";
const char *probed_mode = "normal";

__attribute__((noinline)) int hot(int i)
{
	hot_count++;
	return i * 2 + 1;
}

/* Returns the number of ',' separated fields in the first len bytes. */
__attribute__((noinline)) int parse_line(const char *line, int len)
{
	int fields = 1;
	int i;

	for (i = 0; i < len && line[i]; i++) {
		if (line[i] == ',')
			fields++;
	}
	return fields;
}

__attribute__((noinline)) long account(struct account *acct, int delta)
{
	long before = acct->balance;

	acct->balance += delta;
	if (acct->balance < 0)
		acct->balance = 0;
	return acct->balance - before;
}

int main(int argc, char **argv)
{
	static const char *const lines[] = { "a,b,c", "one", "x,y" };
	struct account accts[2] = {
		{ .id = 1, .balance = 100, .name = "alice" },
		{ .id = 2, .balance = 50, .name = "bob" },
	};
	long n = 1000, sum = 0, moved = 0;
	int fields = 0;
	long i;

	if (argc > 1)
		n = strtol(argv[1], NULL, 0);
	accts[0].next = &accts[1];
	for (i = 0; i < n; i++)
		sum += hot((int)i);
	for (i = 0; i < 3; i++)
		fields += parse_line(lines[i], (int)strlen(lines[i]));
	moved += account(&accts[0], 25);
	moved += account(accts[0].next, -70);
	printf("%s hot=%lu sum=%ld fields=%d moved=%ld\n", probed_tag,
	       hot_count, sum, fields, moved);
	return 0;
}
