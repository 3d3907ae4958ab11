/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types shared by the probed test target and the unit tests that resolve
 * probe arguments against it (offsets are checked with offsetof()).
 */
#ifndef PROBED_H
#define PROBED_H

struct account {
	int id;
	long balance;
	char name[16];
	struct account *next;
};

#endif
