#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon's and lib's files import each other in no circle (issue #31):
# from the symbols each object defines and uses (nm), no file calls into
# one that calls it back, however many files lie between (ARCHITECTURE.md,
# "The rooms"). Before #31: http <-> metrics, registry -> notify -> reload
# -> registry, resolve <-> registry, commands <-> control/plan/bench/...
: "${O:?O (build dir) not set}" "${SRC:?SRC (source dir) not set}"
command -v nm > /dev/null || { echo "nm not installed"; exit 77; }
python3 "$SRC/tests/host/layers-check.py" "$O/obj/daemon" "$O/obj/lib"
