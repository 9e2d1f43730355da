#!/usr/bin/env bash
# Issue 26: an O_DSYNC write promises its own extent and the length to it, not the other,
# buffered writes of its file (Linux syncs only the written range: generic_write_sync ->
# vfs_fsync_range). A profile with one group writing 4 KiB buffered and another writing 4 KiB
# with O_DSYNC into the same 20 files (and a third, slower, with fdatasync: it settles the
# buffered writes before it, never lowering what a newer O_DSYNC write promised), cut with --crash-after on a loop ext4 (three seeds) and
# xfs (one), then remounted:
# `fsmix verify` finds every promise kept, and the O_DSYNC writes were checked. fsmix fc73ac9
# settled every pending write of the file at each O_DSYNC write and reported the lost buffered
# writes as broken promises (stale) in every cut. Loop devices need root: skipped without.
set -u
. "$(dirname "$0")/lib.bash"

cat >"$work/dsync.ffsb" <<'EOF'
time=6
content=random
[filesystem0]
location=/unused
num_files=20
num_dirs=2
min_filesize=64KB
max_filesize=64KB
[end0]
[threadgroup0]
num_threads=2
op_rate=200
write_weight=1
write_size=4KB
write_blocksize=4KB
[end0]
[threadgroup1]
num_threads=2
op_rate=200
open_sync=dsync
write_weight=1
write_size=4KB
write_blocksize=4KB
[end1]
[threadgroup2]
num_threads=1
op_rate=50
write_fdatasync_weight=1
write_size=4KB
write_blocksize=4KB
[end2]
EOF

# cut FSTYPE MNT SEED: one run cut at a random moment, the filesystem mounted again, verified.
cut() {
	local fstype=$1 mnt=$2 seed=$3 dev log v rc vrc
	dev=$(findmnt -n -o SOURCE --mountpoint "$mnt")
	log=$work/$fstype-cut$seed.durlog
	v=$work/$fstype-verify$seed.json
	rm -rf "$mnt/fsmix.fs0"
	timeout 120 "$bin" run "$work/dsync.ffsb" --location "$mnt" --seed "$seed" \
		--crash-after random:4 --durability-log "$log" >"$work/$fstype-cut$seed.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "^Crashed" "$work/$fstype-cut$seed.out"; then
		bad "$fstype cut (seed $seed): run exit $rc"
		tail -5 "$work/$fstype-cut$seed.out" | sed 's/^/     /'
		return
	fi
	if ! umount "$mnt" || ! mount -t "$fstype" "$dev" "$mnt"; then
		bad "$fstype cut (seed $seed): cannot unmount and mount $dev again"
		summary
	fi
	timeout 300 "$bin" verify "$work/dsync.ffsb" --location "$mnt" --durability-log "$log" \
		--json "$v" >"$work/$fstype-verify$seed.out" 2>&1
	vrc=$?
	if [ $vrc -eq 0 ] && [ "$(jq -r .broken "$v")" = 0 ] &&
		[ "$(jq -r .acknowledged.osync_writes "$v")" -gt 0 ]; then
		ok "$fstype cut (seed $seed): $(jq -r .checked "$v") promises checked ($(jq -r .acknowledged.osync_writes "$v") O_DSYNC writes), none broken"
	else
		bad "$fstype cut (seed $seed): fsmix verify exit $vrc, broken $(jq -r .broken "$v" 2>/dev/null)"
		grep -v "^    " "$work/$fstype-verify$seed.out" | tail -6 | sed 's/^/     /'
	fi
}

mnt=$work/dsync
if ! mount_ext4 "$mnt" 96; then
	skipped "O_DSYNC crash: no loop device or mkfs.ext4 here (needs root)"
	summary
fi
for seed in 1 2 3; do
	cut ext4 "$mnt" $seed
done
# One cut on xfs too, where mkfs.xfs is (its smallest filesystem is 300 MB; the image is sparse).
xmnt=$work/dsync-xfs
if command -v mkfs.xfs >/dev/null && truncate -s 320M "$work/xfs.img" && mkfs.xfs -q -f "$work/xfs.img" &&
	xdev=$(losetup -f --show "$work/xfs.img") && loops+=("$xdev") && mkdir -p "$xmnt" &&
	mount -t xfs "$xdev" "$xmnt" && mounts+=("$xmnt"); then
	cut xfs "$xmnt" 4
else
	skipped "xfs: no mkfs.xfs, or the xfs image cannot be made and mounted"
fi
summary
