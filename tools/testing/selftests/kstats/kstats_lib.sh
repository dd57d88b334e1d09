# SPDX-License-Identifier: GPL-2.0
#
# Common start of the kstats selftests: KTAP helpers, the debugfs mount in
# $DEBUGFS, and a skip (exit 4) without root or debugfs. Sourced.

for h in "$DIR/ktap_helpers.sh" "$DIR/../kselftest/ktap_helpers.sh"; do
	[ -f "$h" ] && . "$h" && break
done
[ -n "${KSFT_SKIP:-}" ] || { echo "ktap_helpers.sh not found"; exit 4; }

DEBUGFS=$(awk '$3 == "debugfs" { print $2; exit }' /proc/mounts)

ktap_print_header
[ "$(id -u)" -eq 0 ] || { ktap_skip_all "must be run as root"; exit "$KSFT_SKIP"; }
[ -n "$DEBUGFS" ] || { ktap_skip_all "debugfs is not mounted"; exit "$KSFT_SKIP"; }
