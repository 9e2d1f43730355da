#!/usr/bin/env bash
# Flushes per sync call on several filesystems (profiles/sync-after-create-4fs.ffsb): one rule
# for the text and the JSON (docs/output.md, "Sync calls per filesystem"): a sync() counts for
# every filesystem; fsync/fdatasync/syncfs of a group count for its bindfs filesystem; those of a
# group without bindfs on several filesystems cannot be attributed (null with a reason, no
# "per sync call" in the text). tmpfs has no device counters (null there too); on loop-mounted
# ext4 (root and loop devices) the per-sync figure is checked against the flush count.
set -u
. "$(dirname "$0")/lib.bash"

prof=$src/profiles/sync-after-create-4fs.ffsb
# run4 BASE NAME [ARGS...]: the profile on BASE/fs0..fs3, each creator making 20 files (counted:
# the run ends when they and the sync are done), the sync 0.1 s after the start; text in
# $work/NAME.out, JSON in $work/NAME.json.
run4() {
	local base=$1 name=$2 i
	shift 2
	local locs=()
	for i in 0 1 2 3; do
		mkdir -p "$base/fs$i"
		locs+=(--location "$i=$base/fs$i" --set "threadgroup$i.num_ops=20")
	done
	"$bin" run "$prof" "${locs[@]}" --set threadgroup4.start_delay=100 --json "$work/$name.json" \
		"$@" >"$work/$name.out" 2>"$work/$name.err"
}
# json_check NAME EXPR: EXPR (python, d = the document, c = its four device_counters) holds.
json_check() {
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
c = [f['device_counters'] for f in d['filesystems']]
assert len(c) == 4, c
assert $2, c" "$work/$1.json"
}

shm=$(shmdir)
if run4 "$shm" shm_sync; then
	json_check shm_sync 'all(x["fsync_calls"] == 1 for x in c)' &&
		ok "tmpfs: the one sync() counts for each of the 4 filesystems (fsync_calls 1 each)" ||
		bad "tmpfs: sync() attribution: $(python3 -c "import json; print([f['device_counters']['fsync_calls'] for f in json.load(open('$work/shm_sync.json'))['filesystems']])")"
	json_check shm_sync 'all(x["flushes_per_fsync"] is None and "block device" in x["flushes_per_fsync_reason"] for x in c)' &&
		! grep -q "per sync call" "$work/shm_sync.out" &&
		ok "tmpfs: no device counters: flushes per sync call null with the device's reason" ||
		bad "tmpfs: per-sync figure without a device"
else
	bad "sync-after-create-4fs on tmpfs failed: $(tail -1 "$work/shm_sync.err")"
fi

# The sync group issues one create_fsync instead, on a filesystem picked at random: its fsync
# cannot be attributed to one of the four.
unbound_fsync() {
	run4 "$1" "$2" --set threadgroup4.sync_weight=0 --set threadgroup4.create_fsync_weight=1 \
		--set threadgroup4.write_blocksize=4KB
}
if unbound_fsync "$shm" shm_fsync; then
	json_check shm_fsync 'all(x["fsync_calls"] is None and x["flushes_per_fsync"] is None for x in c)' &&
		ok "tmpfs: an fsync of a group without bindfs: fsync_calls null on every filesystem" ||
		bad "tmpfs: unattributed fsync"
else
	bad "create_fsync variant failed: $(tail -1 "$work/shm_fsync.err")"
fi

if mount_ext4 "$work/ext4" 256; then
	if run4 "$work/ext4" ext4; then
		# Four locations on one device: each filesystem sees the device's flushes, and the
		# one sync() is each filesystem's only sync call.
		json_check ext4 'all(x["fsync_calls"] == 1 for x in c)' &&
			json_check ext4 'all(x["flush_requests"] is None or x["flushes_per_fsync"] == float(x["flush_requests"]) for x in c)' &&
			ok "ext4: flushes per sync call = flushes / the one sync() on every filesystem" ||
			bad "ext4: per-sync figures"
		n=$(grep -c "per sync call" "$work/ext4.out")
		has_flush=$(python3 -c "import json; print(int(json.load(open('$work/ext4.json'))['filesystems'][0]['device_counters']['flush_requests'] is not None))")
		[ "$n" -eq $((4 * has_flush)) ] &&
			ok "ext4: the text prints per sync call on each filesystem ($n)" ||
			bad "ext4: per sync call lines: $n"
	else
		bad "sync-after-create-4fs on ext4 failed: $(tail -1 "$work/ext4.err")"
	fi
	if unbound_fsync "$work/ext4" ext4_fsync; then
		json_check ext4_fsync 'all(x["fsync_calls"] is None and (x["flush_requests"] is None or "bindfs" in x["flushes_per_fsync_reason"]) for x in c)' &&
			! grep -q "per sync call" "$work/ext4_fsync.out" &&
			ok "ext4: an fsync of a group without bindfs: no per-sync figure (text and JSON), the reason names bindfs" ||
			bad "ext4: unattributed fsync"
	else
		bad "create_fsync variant on ext4 failed: $(tail -1 "$work/ext4_fsync.err")"
	fi
else
	skip_env loop "ext4: no loop-mounted ext4 here (needs root and loop devices)"
fi
summary
