#!/usr/bin/env bash
# bench_crashtest.sh - how fast fsmix crashtest explores crash states (prints figures; asserts
# nothing).
#
#   bash tests/bench/bench_crashtest.sh [BUILD_DIR]
#
# tests/e2e/lib.bash's crash_profile run for BENCH_SECONDS (default 10) on a 64 MiB ext4
# (barrier=1) recorded by crashtest, then BENCH_STATES flush points (default 40) explored with
# subset none. Printed: states/s against the target >= 5 (issue 27), what each step costs per
# state (switch: the control file's state change; mount: the journal's recovery; verify: the
# log cut and every promise read back; umount; checker: e2fsck -fn), and the record's size
# against the bytes the disk received, against the target < 4x. Needs root, /dev/fuse, loop
# devices, mkfs.ext4, jq.
#
# Figures here (2 shared CPUs, load 26 to 35 from other helpers' builds and tests): 40 states in
# 29.9 s, 1.34 states/s; per state switch 29.5 ms, mount 96.6, verify 462.6, umount 69.2,
# checker 90; 4,813 flushes, 8,835 writes, 71,335,936 bytes received, the record 71,772,768
# bytes: 1.006x. At load 10 to 15: 1.49 states/s (switch 32, mount 101, verify 421, umount 45,
# checker 74), 1.007x. With verify's prefetch, alternating builds at load 3.4 to 6: 4.30 to
# 5.29 states/s (before it 2.60 to 3.11). On the idle machine (load < 2), three runs: 7.85,
# 7.17 and 6.57 states/s (switch 8-10 ms, mount 43-47, verify 52-66, umount 7-8, checker
# 17-21), 78,552-79,088 promises checked a run; the build before the prefetch, alternated with
# it, 5.86 and 6.33 against 7.43 and 6.52. docs/durability.md, "Every crash state", says where
# the time goes.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
FSMIX=$build/src/fsmix
export FSMIX_POWERCUT=${FSMIX_POWERCUT:-$build/src/fsmix-powercut}
secs=${BENCH_SECONDS:-10} states=${BENCH_STATES:-40}
work=$(mktemp -d /tmp/fsmix-bench-ct.XXXXXX)
trap 'rm -rf "$work"' EXIT
FSMIX_SOURCE_DIR=$top FSMIX_BIN=$FSMIX . "$top/tests/e2e/lib.bash" >/dev/null
crash_profile "$secs" >"$work/p.ffsb"
/usr/bin/time -f %e -o "$work/wall" "$FSMIX" crashtest "$work/p.ffsb" --fs ext4 --size 64M \
	--mount-options barrier=1 --seed 1 --states "$states" --json "$work/j.json" >"$work/out" 2>&1
echo "bench_crashtest: exit $?, wall $(cat "$work/wall") s (the run ${secs} s, its setup and $states states)"
jq -r '"  states explored \(.states_explored) in \(.seconds * 100 | round / 100) s: \(.states_per_second * 100 | round / 100) states/s (target >= 5)",
  "  per state (ms): " + ([.ms_per_state | to_entries[] | "\(.key) \(.value * 10 | round / 10)"] | join(", ")),
  "  broken \(.states_broken), flagged \(.states_fsck_flagged), promises checked \(.promises_checked)",
  "  record: \(.flushes) flushes, \(.record_writes) writes, \(.record_write_bytes) bytes received, record \(.record_bytes) bytes: \(.record_bytes / .record_write_bytes * 1000 | round / 1000)x (target < 4x)"' \
	"$work/j.json"
