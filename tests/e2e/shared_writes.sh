#!/usr/bin/env bash
# shared_writes=1 at iodepth > 1 (docs/engines.md, "Writes in flight on one file"): the write
# operations in flight of one worker share their file.
# 1. The key: listed as an fsmix extension; a bad value is an error at its line (exit 2).
# 2. One file, one thread at depth 16, 4 KiB random writes with fdatasync: without the key the
#    operations in flight wait for each other (busy picks, max_in_flight 1); with it none is
#    busy, up to 16 are in flight, and every operation of num_ops is counted once.
# 3. Two small files (so that writes in flight overlap: they go one after the other), writes,
#    fsyncs and fdatasyncs sharing them, random and sequential, readall with verify=1 and the
#    durability log: exit 0, no content mismatch, and `fsmix verify` finds every promise kept.
# 4. The same writes on a loop ext4 shut down mid-run (--crash-after), mounted again: `fsmix
#    verify` finds every promise kept.
# Fails on 45fe137 (no key shared_writes: exit 2 at the profile).
set -u
. "$(dirname "$0")/lib.bash"

"$bin" keys 2>&1 | grep -q "^  shared_writes .*\[fsmix extension\]" &&
	ok "fsmix keys lists shared_writes as an fsmix extension" || bad "fsmix keys: no shared_writes key"

profile() { # profile SHARED FILES SIZE OPS-LINES [TOP-LINES]
	cat <<EOF
time=0
${5:-}
[filesystem0]
location=/unused
num_files=$2
num_dirs=1
min_filesize=$3
max_filesize=$3
[end0]
[threadgroup0]
num_threads=1
num_ops=800
engine=io_uring
iodepth=16
shared_writes=$1
$4
write_size=4KB
write_blocksize=4KB
read_blocksize=4KB
[stats]
enable_stats=1
[end]
[end0]
EOF
}

profile 2 1 64KB "write_weight=1" >"$work/bad.ffsb"
"$bin" check "$work/bad.ffsb" >"$work/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "bad.ffsb:[0-9]*: .*shared_writes" "$work/bad.out" &&
	ok "shared_writes=2: exit 2 naming the file, line and key" ||
	{ bad "shared_writes=2: exit $rc"; head -3 "$work/bad.out" | sed 's/^/     /'; }

# Is the io_uring engine built in, and is io_uring available here?
profile 0 1 64KB "write_weight=1" | sed 's/^num_ops=.*/num_ops=1/' >"$work/probe.ffsb"
"$bin" run "$work/probe.ffsb" --location "$(shmdir)" >"$work/probe.out" 2>&1
if [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'engine=io_uring' "$work/probe.out")"
	summary
fi

# 2. One file.
one="write_fdatasync_weight=1
write_random=1"
for sw in 0 1; do
	profile $sw 1 1MB "$one" "alignio=1" >"$work/one$sw.ffsb"
	timeout 120 "$bin" run "$work/one$sw.ffsb" --location "$(shmdir)" --seed 5 \
		--json "$work/one$sw.json" >"$work/one$sw.out" 2>&1 || bad "one file, shared_writes=$sw: exit $?"
done
read -r c0 b0 m0 < <(jq -r '"\(.total.ops[0].count) \(.total.ops[0].busy) \(.groups[0].max_in_flight)"' "$work/one0.json")
read -r c1 b1 m1 < <(jq -r '"\(.total.ops[0].count) \(.total.ops[0].busy) \(.groups[0].max_in_flight)"' "$work/one1.json")
[ "${b0:-0}" -gt 0 ] && [ "${m0:-0}" = 1 ] &&
	ok "one file, shared_writes=0: the operations in flight wait for each other ($b0 busy picks, max_in_flight 1)" ||
	bad "one file, shared_writes=0: busy '$b0', max_in_flight '$m0'"
[ "${c1:-0}" = 800 ] && [ "${b1:-1}" = 0 ] && [ "${m1:-0}" -gt 1 ] && [ "${m1:-0}" -le 16 ] &&
	ok "one file, shared_writes=1: 800 operations, none busy, up to $m1 in flight" ||
	bad "one file, shared_writes=1: count '$c1', busy '$b1', max_in_flight '$m1'"

# 3. Overlapping writes, verify=1, the durability log, fsmix verify.
mix="write_fsync_weight=3
write_fdatasync_weight=3
write_weight=2
readall_weight=1
write_random=1"
loc=$(shmdir)
profile 1 2 16KB "$mix" "verify=1" >"$work/dur.ffsb"
timeout 120 "$bin" run "$work/dur.ffsb" --location "$loc" --seed 9 --json "$work/dur.json" \
	--durability-log "$work/dur.durlog" >"$work/dur.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q " 0 content mismatches" "$work/dur.out" &&
	[ "$(jq -r '.groups[0].max_in_flight' "$work/dur.json")" -gt 1 ] &&
	ok "two files of 16 KiB, random writes shared at depth 16, verify=1, durability log: exit 0, no mismatch" ||
	{ bad "shared random writes: exit $rc"; tail -5 "$work/dur.out" | sed 's/^/     /'; }
sed -i "s/^write_random=1$/write_random=0/; s/^write_size=4KB$/write_size=8KB/" "$work/dur.ffsb" # sequential: 8 KiB in two calls
timeout 120 "$bin" run "$work/dur.ffsb" --location "$loc" --seed 10 --json "$work/dur2.json" \
	--durability-log "$work/dur2.durlog" >"$work/dur2.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q " 0 content mismatches" "$work/dur2.out" &&
	ok "sequential 8 KiB writes shared at depth 16, verify=1, durability log: exit 0, no mismatch" ||
	{ bad "shared sequential writes: exit $rc"; tail -5 "$work/dur2.out" | sed 's/^/     /'; }
timeout 120 "$bin" verify "$work/dur.ffsb" --location "$loc" --durability-log "$work/dur2.durlog" \
	--json "$work/verify.json" >"$work/verify.out" 2>&1
vrc=$?
if [ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/verify.json")" = 0 ] &&
	[ "$(jq -r .checked "$work/verify.json")" -gt 0 ]; then
	ok "fsmix verify: $(jq -r .checked "$work/verify.json") promises kept"
else
	bad "fsmix verify exit $vrc"
	tail -8 "$work/verify.out" | sed 's/^/     /'
fi

# 4. A crash mid-run (--crash-after: the loop ext4 shut down) with the writes and syncs sharing
# two files at depth 16, mounted again: fsmix verify finds every promise kept (a sync settles
# only the writes completed before it started, docs/durability.md).
mnt=$work/crash
if mount_ext4 "$mnt" 96; then
	dev=$(findmnt -n -o SOURCE --mountpoint "$mnt")
	profile 1 2 64KB "$mix" "time=4" | sed '/^readall_weight/d; s/^num_ops=.*//; /^time=0$/d' >"$work/crash.ffsb"
	timeout 120 "$bin" run "$work/crash.ffsb" --location "$mnt" --crash-after 1.5 --seed 3 \
		--durability-log "$work/crash.durlog" >"$work/crash.out" 2>&1
	rc=$?
	umount "$mnt" && mount -t ext4 "$dev" "$mnt"
	timeout 120 "$bin" verify "$work/crash.ffsb" --location "$mnt" --durability-log "$work/crash.durlog" \
		--json "$work/crash-verify.json" >"$work/crash-verify.out" 2>&1
	vrc=$?
	[ $rc -eq 0 ] && [ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/crash-verify.json")" = 0 ] &&
		ok "crash mid-run, shared writes at depth 16: fsmix verify: $(jq -r .checked "$work/crash-verify.json") promises kept" ||
		{ bad "crash with shared writes: run exit $rc, verify exit $vrc"; tail -5 "$work/crash-verify.out" | sed 's/^/     /'; }
else
	skip_env loop "crash with shared writes: no loop device or mkfs.ext4 here (needs root)"
fi

summary
