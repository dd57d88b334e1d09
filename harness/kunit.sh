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
# The suite needs none of what UML and kunit.py's arch_uml.config enable by
# default for other tests (block layer, io_uring, virtio PCI, input, HID,
# USB): a fifth fewer objects to build.
trim="CONFIG_EXPERT=y CONFIG_BLOCK=n CONFIG_IO_URING=n CONFIG_VIRTIO_UML=n
	CONFIG_UML_PCI_OVER_VIRTIO=n CONFIG_INPUT=n CONFIG_HID_SUPPORT=n CONFIG_USB_SUPPORT=n"
# shellcheck disable=SC2046
python3 tools/testing/kunit/kunit.py run --kunitconfig=lib/.kunitconfig \
	$(printf -- '--kconfig_add %s ' $trim) \
	--build_dir="$BUILD_UML" --jobs="$JOBS" --timeout=300 \
	--make_options "$(cc_opts)" "$@"
