#!/usr/bin/env bash
# examples/crash-cycles.sh, the crash campaign of docs/durability.md, on a small scale: its
# refusals (usage: exit 2; btrfs with --crash-after: exit 3), two --crash-after cycles on ext4
# (exit 0, one line each, no promise broken, nothing left mounted or attached), one power cut
# with barrier=0 (a verdict, the cut dropped cached blocks), and a campaign stopped by SIGTERM
# mid-run: exit 130, its run, mounts, loop devices and daemon undone.
# Needs root and loop devices (mode powercut also /dev/fuse and fsmix-powercut); skipped with
# a message otherwise.
set -u
. "$(dirname "$0")/lib.bash"
cc=$src/examples/crash-cycles.sh
export FSMIX=$bin CRASH_OUT=$work/out
# The script's disks and mounts go below TMPDIR: the checks below see this test's alone (the
# same test of another build may run beside it).
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

# leftovers TAG: loop devices or mounts of a campaign TAG (crash-cycles-FS-MODE-bBARRIER) still
# there, or any of this test's.
leftovers() {
	{ losetup -a; cat /proc/mounts; } | grep -F "$TMPDIR/" | grep -c "$1\|crash-cycles-[A-Za-z0-9]*/mnt\|powercut-"
}

for args in "zfs shutdown on:2" "ext4 crash on:2" "ext4 shutdown maybe:2" "xfs powercut off:2" \
	"btrfs shutdown on:3" "ext4 shutdown on x:2"; do
	bash "$cc" ${args%:*} >"$work/usage.out" 2>&1
	rc=$?
	[ $rc = "${args#*:}" ] && ok "crash-cycles.sh ${args%:*}: exit $rc ($(head -1 "$work/usage.out"))" ||
		bad "crash-cycles.sh ${args%:*}: exit $rc, want ${args#*:}: $(head -2 "$work/usage.out")"
done

if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null || ! losetup -f >/dev/null 2>&1; then
	skip_env loop "crash cycles: no root, mkfs.ext4 or loop device"
	summary
fi

bash "$cc" ext4 shutdown on 2 "" 31 >"$work/a.out" 2>&1
rc=$?
t=$CRASH_OUT/crash-cycles-ext4-shutdown-bon
rows=$(grep -c '^3[12] ' "$t.txt" 2>/dev/null)
[ $rc = 0 ] && [ "$rows" = 2 ] && grep -q '^total: 2 cycles (0 without a verdict).* 0 broken (in 0 cycles)' "$t.txt" &&
	[ "$(grep -vc '^#' "$t.dat")" = 2 ] && [ "$(leftovers crash-cycles-ext4-shutdown)" = 0 ] &&
	ok "ext4, 2 --crash-after cycles: exit 0, $(grep '^total' "$t.txt" | sed 's/;.*//')" ||
	{ bad "ext4 --crash-after cycles: exit $rc, $rows rows, leftovers $(leftovers crash-cycles-ext4-shutdown)"; tail -5 "$work/a.out" | sed 's/^/     /'; }

# SIGTERM in the middle of a run: the script ends the run, unmounts and detaches.
bash "$cc" ext4 shutdown on 3 "" 41 >"$work/term.out" 2>&1 &
pid=$!
for ((i = 0; i < 300; i++)); do
	pgrep -f -- "--location $TMPDIR/.*--seed 41 --crash-after" >/dev/null && break
	sleep 0.05
done
sleep 0.3
kill -TERM $pid
wait $pid
rc=$?
sleep 0.5
[ $rc = 130 ] && [ "$(leftovers crash-cycles-ext4-shutdown)" = 0 ] && ! pgrep -f -- "--location $TMPDIR/.*--seed 41 --crash-after" >/dev/null &&
	ok "SIGTERM mid-run: exit 130, no run, mount or loop device left" ||
	{ bad "SIGTERM mid-run: exit $rc, leftovers $(leftovers crash-cycles-ext4-shutdown)"; tail -3 "$work/term.out" | sed 's/^/     /'; }

if [ -z "${FSMIX_POWERCUT:-}" ] || [ ! -c /dev/fuse ]; then
	skip_env fuse "crash cycles in mode powercut: no fsmix-powercut or /dev/fuse"
	summary
fi
bash "$cc" ext4 powercut off 1 "" 4 >"$work/b.out" 2>&1
rc=$?
t=$CRASH_OUT/crash-cycles-ext4-powercut-boff
read -r _ _ _ _ _ _ checked _ _ _ _ _ vrc _ dropped < <(grep -v '^#' "$t.dat" 2>/dev/null)
[ $rc = 0 ] && [ "${dropped:-0}" -gt 0 ] 2>/dev/null && { [ "$vrc" = 1 ] || [ "$vrc" = 2 ]; } &&
	[ "$(leftovers crash-cycles-ext4-powercut)" = 0 ] &&
	ok "ext4 barrier=0, one power cut: exit 0, $checked promises checked, verify exit $vrc, $dropped KiB dropped by the cut" ||
	{ bad "ext4 barrier=0 power cut: exit $rc, verify $vrc, dropped ${dropped:-?}"; tail -5 "$work/b.out" | sed 's/^/     /'; }
summary
