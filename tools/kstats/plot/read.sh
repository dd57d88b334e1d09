#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstats-plot's reader of its inputs, run with KP_TMP and KP_HOST set.
# read.sh K: the text of input K.
if [ -n "$KP_HOST" ]; then
	exec ssh -- "$KP_HOST" "cat /sys/kernel/debug/kstats/$(cat "$KP_TMP/rname$1")"
fi
exec cat "$KP_TMP/in$1"
