/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The handles' insides, for lib/tracefs's files alone: the layers above
 * reach the tree through tfs.h's accessors, never through these paths.
 */
#ifndef KTRACE_TRACEFS_TFS_PRIV_H
#define KTRACE_TRACEFS_TFS_PRIV_H

#include "tracefs/tfs.h"

struct tracefs_instance;

struct ktrace_inst {
	struct ktrace_tfs *tfs;
	char *name;		/* NULL: top instance */
	char *dir;		/* tfs->dir or tfs->dir/instances/name */
	struct tracefs_instance *ti;	/* NULL for the top instance */
	bool owned;
	bool is_new;
};

struct ktrace_tfs {
	char *dir;		/* tracefs root, no trailing '/' */
	char *state_dir;	/* where ktrace remembers what it created */
	struct ktrace_inst top;	/* kt_tfs_top(): its dir is dir, borrowed */
};

#endif
