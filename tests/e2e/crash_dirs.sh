#!/usr/bin/env bash
# Crash cycles of the directory operations (docs/durability.md, "Directories"): a profile mixing
# mkdir, rmdir, createdir, create_fsync, write and delete (one group with dirsync=1, whose
# directory fsyncs cover its mkdirs and rmdirs) with another group's mkdir, rmdir and syncfs
# (no dirsync: its directories covered only by a syncfs) is cut with `--crash-after random:2`
# on a small loop ext4 (two cycles, each on the tree the last cut left) and on xfs (two
# cycles), the filesystem mounted again (its journal replayed) and `fsmix verify` checks the
# log: every cut exit 0 with the stop reason "crashed", mkdir and rmdir records in the log,
# verify exit 0 with directory promises checked and none broken. Fails on the old binary (no
# mkdir or rmdir op: exit 2 at the profile). More cycles for figures: CRASH_DIRS_EXT4_SEEDS and
# CRASH_DIRS_XFS_SEEDS name the seeds of each filesystem's cuts. Loop devices and mounts need
# root; skipped with a message where unavailable.
set -u
. "$(dirname "$0")/lib.bash"

cat >"$work/dirs.ffsb" <<'EOF2'
time=3
[filesystem0]
location=/unused
num_files=30
num_dirs=2
min_filesize=4KB
max_filesize=16KB
[end0]
[threadgroup0]
num_threads=2
op_rate=150
dirsync=1
mkdir_weight=3
rmdir_weight=2
createdir_weight=1
create_fsync_weight=2
write_weight=2
delete_weight=1
write_size=4KB
write_blocksize=4KB
[end0]
[threadgroup1]
num_threads=1
op_rate=60
mkdir_weight=3
rmdir_weight=2
syncfs_weight=1
[end1]
EOF2

# cycle FSTYPE DEV MNT SEED: one cut, the remount, the check.
cycle() {
	local fstype=$1 dev=$2 mnt=$3 seed=$4 j=$work/cut$4.json log=$work/cut$4.durlog v=$work/verify$4.json
	timeout 120 "$bin" run "$work/dirs.ffsb" --location "$mnt" --seed "$seed" --crash-after random:2 \
		--json "$j" --durability-log "$log" >"$work/cut$seed.out" 2>&1
	local rc=$?
	if ! umount "$mnt" || ! mount -t "$fstype" "$dev" "$mnt"; then
		bad "$fstype cut (seed $seed): cannot unmount and mount $dev again"
		return 1
	fi
	timeout 120 "$bin" verify "$work/dirs.ffsb" --location "$mnt" --durability-log "$log" \
		--json "$v" >"$work/verify$seed.out" 2>&1
	local vrc=$?
	local mk rm_
	mk=$(jq -r '.acknowledged.mkdir // 0' "$v" 2>/dev/null)
	rm_=$(jq -r '.acknowledged.rmdir // 0' "$v" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$(jq -r .stop_reason "$j")" = crashed ] && [ "$(jq '.errors | length' "$j")" = 0 ] &&
		[ "${mk:-0}" -gt 0 ] && [ "${rm_:-0}" -gt 0 ] && [ $vrc -eq 0 ] && [ "$(jq -r .broken "$v")" = 0 ] &&
		[ "$(jq -r .dir_promises "$v")" -gt 0 ]; then
		ok "$fstype cut (seed $seed) at $(jq -r .crash.at_s "$j") s: $mk mkdir and $rm_ rmdir logged; verify: $(jq -r .checked "$v") promises kept, $(jq -r .dir_promises "$v") of them directories"
	else
		bad "$fstype cut (seed $seed): run exit $rc ($(jq -r .stop_reason "$j" 2>/dev/null)), mkdir ${mk:-?}, rmdir ${rm_:-?}, verify exit $vrc, broken $(jq -r .broken "$v" 2>/dev/null)"
		tail -4 "$work/cut$seed.out" | sed 's/^/     /'
		tail -12 "$work/verify$seed.out" | sed 's/^/     /'
	fi
}

mnt=$work/dirs-ext4
if mount_ext4 "$mnt" 128; then
	dev=$(findmnt -n -o SOURCE --mountpoint "$mnt")
	for seed in ${CRASH_DIRS_EXT4_SEEDS:-51 52}; do
		cycle ext4 "$dev" "$mnt" $seed || break
	done
else
	skipped "ext4: no loop device or mkfs.ext4 here (needs root)"
fi

# xfs: mkfs.xfs wants an image of at least 300 MiB (sparse: little is written).
xmnt=$work/dirs-xfs
if command -v mkfs.xfs >/dev/null && [ "$(id -u)" = 0 ] && truncate -s 320M "$work/xfs.img" &&
	mkfs.xfs -q -f "$work/xfs.img" && xdev=$(losetup -f --show "$work/xfs.img") && loops+=("$xdev") &&
	mkdir -p "$xmnt" && mount -t xfs "$xdev" "$xmnt" && mounts+=("$xmnt"); then
	for seed in ${CRASH_DIRS_XFS_SEEDS:-61 62}; do
		cycle xfs "$xdev" "$xmnt" $seed || break
	done
else
	skipped "xfs: no mkfs.xfs, or the xfs image cannot be made and mounted"
fi
summary
