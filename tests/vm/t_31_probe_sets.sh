#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The other kernel probe sets of probes/, as t_30_probe_sets.sh does them
# (split in two for the per-script timeout).
PROBE_SETS="block-io vfs-rw file-changes" . /tests/t_30_probe_sets.sh
