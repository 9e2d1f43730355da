#!/usr/bin/env bash
# The seed experiment scripts of examples/ run end to end, scaled down by their own knobs, on
# fresh loop-mounted ext4 images, and print the tables docs/experiments.md shows: a row per run,
# then AVG and STDDEV. Needs root, losetup and mkfs.ext4; skips (77) otherwise.
set -u
. "$(dirname "$0")/lib.bash"
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	skip_env loop "seed scripts: need root, losetup and mkfs.ext4"
	summary
fi
ex=$src/examples

# script NAME ENV...: run examples/NAME.sh with the environment ENV, output in $work/NAME.out;
# a failure is reported here (exit status and the end of its stderr) and returns 1.
script() {
	local name=$1 rc
	shift
	env FSMIX="$bin" "$@" timeout 600 bash "$ex/$name.sh" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	[ $rc -eq 0 ] && return 0
	bad "$name.sh: exit $rc"
	tail -5 "$work/$name.err" | sed 's/^/     /'
	return 1
}
# rows FILE LABEL: how many lines of FILE start with LABEL and end in a number.
rows() { grep -cE "^$2 .* [0-9.]+$" "$1"; }

# Seed 002: 1 and 4 filesystems (2 is the profiles' default); every test prints its AVG. The
# writers are bounded (200 files of 40 KB, 32 MB appended per filesystem): the run's bytes, and
# the images on /tmp, do not depend on how long the sync takes on this machine.
if script sync-cost RUNS=1 DELAY2=200 DELAY3=200 FS_COUNTS="1 4" CREATES=200 BIG_MB=32; then
	missing=0
	for label in "1: 200 syncs, idle" "2: sync after 40 KB creates" "3: sync after a big write"; do
		for n in 1 4; do
			[ "$(rows "$work/sync-cost.out" "$label, $n fs +AVG")" -eq 1 ] || { echo "     no AVG for '$label, $n fs'"; missing=1; }
		done
	done
	[ $missing = 0 ] && ok "sync-cost.sh: the three tests with 1 and 4 filesystems" || bad "sync-cost.sh output"
fi
# Seed 001: the 2010 profile with barrier=1 and barrier=0; flushes only with barriers. Counted
# (4 x 100 operations, about 85 of them with an fsync), not timed: the flushes do not depend on
# the disk's speed.
if script barrier-2010 RUNS=2 OPS=100 THREADS=4 FILES=300; then
	avg=$(awk '$1 == "AVG" { print $2 }' "$work/barrier-2010.out" | tr '\n' ' ')
	read -r on off <<<"$avg"
	[ -n "${off:-}" ] && awk -v a="$on" -v b="$off" 'BEGIN { exit !(a > 10 * b + 10) }' &&
		ok "barrier-2010.sh: flushes with barrier=1 ($on) far above barrier=0 ($off)" ||
		{ bad "barrier-2010.sh: AVG flushes '$avg'"; sed 's/^/     /' "$work/barrier-2010.out"; }
fi
# Seed 000: fsync and fdatasync, 5000 and 50000 blocks: four AVG rows.
if script synctest RUNS=1; then
	[ "$(grep -cE '^[0-9]+ +(fsync|fdatasync) +AVG ' "$work/synctest.out")" -eq 4 ] &&
		ok "synctest.sh: four AVG rows" || bad "synctest.sh output"
fi
# Seed 003: no, one and two fsyncs per transaction.
if script zodb RUNS=1 TXNS=200; then
	[ "$(grep -cE '^(No fsyncs|One fsync|Two fsyncs): +AVG [0-9.]+ txn/sec' "$work/zodb.out")" -eq 3 ] &&
		ok "zodb.sh: three AVG rows" || bad "zodb.sh output"
fi
# Seed 004: one line per timed fsync.
if script fsync-tester SIZE=64MB PERIOD=300 COUNT=3; then
	[ "$(grep -c '^fsync time: ' "$work/fsync-tester.out")" -eq 3 ] &&
		ok "fsync-tester.sh: three fsync times" || bad "fsync-tester.sh output"
fi

# sync-cost.sh's bounds take positive integers: anything else is exit 2, naming the knob,
# before any image is made.
env FSMIX="$bin" CREATES=40k timeout 60 bash "$ex/sync-cost.sh" >/dev/null 2>"$work/bad-knob.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "take positive integers, not '40k'" "$work/bad-knob.err"; then
	ok "sync-cost.sh: CREATES=40k is refused (exit 2, the value named)"
else
	bad "sync-cost.sh CREATES=40k: exit $rc: $(head -1 "$work/bad-knob.err")"
fi

# No loop device or mount is left behind.
if losetup -a | grep -q fsmix-seed || grep -q fsmix-seed /proc/mounts; then
	bad "a seed script left a loop device or a mount"
else
	ok "the seed scripts unmounted and detached everything"
fi

summary
