#!/usr/bin/env bash
# bench_build_ext4.sh - building a tree of millions of empty files on a loop ext4 image: fsmix
# against a raw single-threaded mkdirat/openat loop on the same names (bench_loops tree), each on
# a fresh filesystem (prints figures; asserts nothing). Root only (losetup, mount).
#
#   bash tests/bench/bench_build_ext4.sh [BUILD_DIR]
#
# BENCH_BUILD_FILES (default "1000000 2000000 5000000"), BENCH_BUILD_DIRS (default 1000),
# BENCH_BUILD_IMAGE_DIR (default /dev/shm: the image lives in memory, so the figures are the
# filesystem's CPU work, not a disk's). The image is sparse, sized for the inodes (mkfs -N).
# Long-running: run it once, on a quiet machine if there is one.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
fsmix=$build/src/fsmix
loops=$build/tests/bench_loops
files=${BENCH_BUILD_FILES:-1000000 2000000 5000000}
dirs=${BENCH_BUILD_DIRS:-1000}
[ "$(id -u)" = 0 ] || { echo "bench_build_ext4: needs root (losetup, mount)"; exit 77; }
work=$(mktemp -d "${BENCH_BUILD_IMAGE_DIR:-/dev/shm}/fsmix-bench-build.XXXXXX")
mnt=$work/mnt dev=
mkdir -p "$mnt"
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev"
	rm -rf "$work"
}
trap cleanup EXIT

# fresh N: a new ext4 for N files mounted on $mnt
fresh() {
	mountpoint -q "$mnt" && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" && dev=
	rm -f "$work/img"
	truncate -s $(($1 / 1000000 + 2))G "$work/img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -N $(($1 + $1 / 10 + 10000)) "$work/img" >/dev/null
	dev=$(losetup -f --show "$work/img") && mount "$dev" "$mnt"
}

cat >"$work/empty.ffsb" <<EOF
time=0
[filesystem0]
	location=$mnt
	num_files=1
	num_dirs=$dirs
	min_filesize=0
	max_filesize=0
	reuse=0
[end0]
[threadgroup0]
	num_threads=1
	stat_weight=1
[end0]
EOF

printf '%9s %9s %10s %10s %9s %10s\n' files loop_s loop_f/s fsmix_s fsmix_f/s fsmix/loop
for n in $files; do
	fresh "$n"
	mkdir "$mnt/raw"
	sync
	l=$("$loops" tree "$mnt/raw" "$n" "$dirs" | awk '{ print $5 }')
	fresh "$n"
	sync
	s=$(date +%s.%N)
	"$fsmix" run "$work/empty.ffsb" --set filesystem0.num_files="$n" >"$work/out" 2>&1 ||
		{ echo "fsmix failed:"; tail -3 "$work/out"; }
	f=$(echo "$(date +%s.%N) - $s" | bc -l)
	printf '%9d %9.2f %10.0f %10.2f %9.0f %10.2f\n' "$n" "$l" "$(echo "$n / $l" | bc -l)" "$f" \
		"$(echo "$n / $f" | bc -l)" "$(echo "$l / $f" | bc -l)"
done
