#!/usr/bin/env bash
# bench_tree_deep.sh - the tree build stays linear in files with a deep tree (issue 28, item 3):
# build time per file for growing file counts on tmpfs, with dir_depth levels of dir_fanout.
#
#   bash tests/bench/bench_tree_deep.sh [BUILD_DIR]
#
# For each size n (BENCH_TREE_SIZES, default "1000000 2000000 4000000") fsmix builds (time=0) a
# tree of n empty files under BENCH_TREE_TOP (default 16) directories of BENCH_TREE_DEPTH (3)
# levels of BENCH_TREE_FANOUT (16) (16 + 256 + 4096 directories, n / 4096 files per leaf),
# BENCH_REPS times (default 3), each on a fresh tree removed afterwards (fsmix clean); it prints
# the median build time (fsmix's own "built ... in T s"), the time per file, and its ratio to the
# smallest size's. Empty files: the build's own cost (names, directories, the pool), not
# copying pages. As root it mounts a tmpfs of its own when the directory has too few free inodes
# for the largest tree (/dev/shm often has fewer than 4 million). Exit 1 when the per-file time of the largest size is more than
# BENCH_TREE_SLACK (default 1.5) times the smallest's: the build grew faster than linear. The
# machine is shared and noisy: compare within one run. Needs about 1 KiB of RAM per file on
# /dev/shm (BENCH_TREE_DIR to use another tmpfs).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
fsmix=$build/src/fsmix
sizes=${BENCH_TREE_SIZES:-1000000 2000000 4000000}
depth=${BENCH_TREE_DEPTH:-3} fanout=${BENCH_TREE_FANOUT:-16} ntop=${BENCH_TREE_TOP:-16}
reps=${BENCH_REPS:-3} slack=${BENCH_TREE_SLACK:-1.5}
[ -x "$fsmix" ] || { echo "no fsmix at $fsmix" >&2; exit 2; }
work=$(mktemp -d "${BENCH_TREE_DIR:-/dev/shm}/fsmix-bench-tree.XXXXXX")
mounted=
trap '"$fsmix" clean "$work/p.ffsb" >/dev/null 2>&1; [ -n "$mounted" ] && umount "$work"; rm -rf "$work"' EXIT
# /dev/shm's inodes are bounded (nr_inodes: half the RAM's pages by default, often fewer than
# 4 million): as root, a tmpfs of its own with enough of them; else say what is missing.
need=$(($(printf '%s\n' $sizes | sort -n | tail -1) + 100000))
if [ "$(stat -f -c %d "$work")" -lt "$need" ]; then
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o "size=50%,nr_inodes=$need,mode=0700" fsmix-bench "$work"; then
		mounted=1
	else
		echo "$work has $(stat -f -c %d "$work") free inodes, the largest tree needs $need: run as root (a tmpfs of its own) or set BENCH_TREE_DIR" >&2
		exit 2
	fi
fi
mkdir "$work/loc"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "tree build on $(stat -f -c %T "$work"), $ntop x $fanout^$((depth - 1)) leaves over $depth levels, median of $reps, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
first=
for n in $sizes; do
	cat >"$work/p.ffsb" <<EOF2
seed=1
[filesystem0]
	location=$work/loc
	num_files=$n
	num_dirs=$ntop
	dir_depth=$depth
	dir_fanout=$fanout
	min_filesize=0
	max_filesize=0
[end0]
EOF2
	times=()
	for ((r = 0; r < reps; r++)); do
		"$fsmix" run "$work/p.ffsb" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
		t=$(sed -n 's/.*: \([0-9]*\) files in \([0-9.]*\) s.*/\2/p' "$work/err")
		got=$(sed -n 's/.*: \([0-9]*\) files in \([0-9.]*\) s.*/\1/p' "$work/err")
		[ "$got" = "$n" ] || { echo "built ${got:-?} files, not $n" >&2; cat "$work/err" >&2; exit 1; }
		times+=("$t")
		"$fsmix" clean "$work/p.ffsb" >/dev/null 2>&1
	done
	t=$(printf '%s\n' "${times[@]}" | median)
	per=$(awk -v t="$t" -v n="$n" 'BEGIN { printf "%.3f", t * 1e6 / n }')
	[ -n "$first" ] || first=$per
	printf '%9d files: %8.2f s (runs: %s), %s us per file, %.2fx the smallest size per file\n' \
		"$n" "$t" "${times[*]}" "$per" "$(awk -v a="$per" -v b="$first" 'BEGIN { print a / b }')"
	last=$per
done
if awk -v a="$last" -v b="$first" -v s="$slack" 'BEGIN { exit !(a > b * s) }'; then
	echo "NOT LINEAR: the largest size costs more than ${slack}x the smallest per file"
	exit 1
fi
echo "linear: the per-file time of the largest size is within ${slack}x the smallest's"
