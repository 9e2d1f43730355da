#!/usr/bin/env bash
# peers_build.sh - build the peers that bench_filebench.sh and bench_mdtest.sh run fsmix against:
# filebench (github.com/filebench/filebench, 1.5-alpha3 = 22620e6) and mdtest (part of
# github.com/hpc/ior). Not a test; the sources and the builds stay outside the repository.
#
#   bash tests/bench/peers_build.sh [PEERS_DIR]
#
# PEERS_DIR (default $PEERS_DIR, else /work/peers) holds the unpacked sources:
#   PEERS_DIR/filebench   e.g. git -C filebench.git archive 22620e6 | tar -x -C PEERS_DIR/filebench
#   PEERS_DIR/ior         e.g. git -C ior.git archive HEAD | tar -x -C PEERS_DIR/ior
# and gets PEERS_DIR/inst/bin/filebench (installed, so that its cvar libraries are where its
# FBLIBDIR points: PEERS_DIR/inst/lib) and PEERS_DIR/ior/src/mdtest. A missing source is
# skipped with a message; the exit status is 0 when everything whose source is there was built,
# 1 when a build failed.
# Build dependencies (Debian): autoconf automake libtool flex bison (filebench), libopenmpi-dev
# openmpi-bin (ior/mdtest): apt-get install -y autoconf automake libtool flex bison
# libopenmpi-dev openmpi-bin.
# Running: filebench 1.5-alpha3 must run with ASLR off for its processes only -- setarch
# "$(uname -m)" -R filebench -f X.f (never a system-wide randomize_va_space change); mdtest runs
# under mpirun (--allow-run-as-root --oversubscribe as root on a small machine).
set -u
peers=$(realpath -m "${1:-${PEERS_DIR:-/work/peers}}")
jobs=${BUILD_JOBS:-2}
rc=0

build_filebench() {
	local src=$peers/filebench
	[ -f "$src/configure.ac" ] || { echo "peers_build: no filebench source in $src: skipped"; return 0; }
	# GCC >= 10 defaults to -fno-common; filebench 1.5-alpha3 defines globals in headers.
	(cd "$src" && libtoolize --force --copy >/dev/null && aclocal && autoheader &&
		automake --add-missing --copy && autoconf &&
		./configure --prefix="$peers/inst" CFLAGS="-O2 -g -fcommon" &&
		make -j"$jobs" && make install) >"$peers/filebench-build.log" 2>&1 ||
		{ echo "peers_build: filebench build failed (see $peers/filebench-build.log)" >&2; return 1; }
	echo "peers_build: $peers/inst/bin/filebench ($("$peers/inst/bin/filebench" -h 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1))"
}

build_mdtest() {
	local src=$peers/ior
	[ -f "$src/configure.ac" ] || { echo "peers_build: no ior source in $src: skipped"; return 0; }
	command -v mpicc >/dev/null || { echo "peers_build: no mpicc (apt-get install libopenmpi-dev openmpi-bin): mdtest skipped"; return 0; }
	(cd "$src" && ./bootstrap && ./configure && make -j"$jobs") >"$peers/ior-build.log" 2>&1 ||
		{ echo "peers_build: ior/mdtest build failed (see $peers/ior-build.log)" >&2; return 1; }
	echo "peers_build: $src/src/mdtest"
}

build_filebench || rc=1
build_mdtest || rc=1
exit $rc
