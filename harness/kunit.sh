#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# usage: harness/kunit.sh [kunit.py run options]
#
# Runs the kstats KUnit tests (lib/.kunitconfig) in UML through
# tools/testing/kunit/kunit.py, building out of tree in the cache.
set -eu
. "$(dirname "$0")/lib.sh"

"$HARNESS/tree.sh"
set_paths
step "KUnit: building UML kernel and running the kstats suite"
cd "$SRC"
python3 tools/testing/kunit/kunit.py run --kunitconfig=lib/.kunitconfig \
	--build_dir="$BUILD_UML" --jobs="$JOBS" --timeout=300 \
	--make_options "$(cc_opts)" "$@"
