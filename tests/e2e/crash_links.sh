#!/usr/bin/env bash
# Crash cycles of second names (docs/durability.md, "Second names"): a profile mixing buffered
# writes, fdatasync, create_fsync, delete, rename, replace_fsync, link, unlink and syncfs, with
# dirsync=1 (so most links and unlinks are covered by their directory's fsync), is cut with `--crash-after random:3` on a small loop ext4 (three cycles on one filesystem, each
# rebuilding the tree the last cut left) and on xfs (two cycles), then the filesystem is mounted
# again (its journal replayed) and `fsmix verify` checks the log: every cut exit 0 with the stop
# reason "crashed", verify exit 0 with no promise broken. Fails on the old binary (no link or unlink: exit 2 at
# the profile).
# More cycles for figures: CRASH_LINKS_EXT4_SEEDS="$(seq -s' ' 101 120)" and CRASH_LINKS_XFS_SEEDS
# name the seeds of each filesystem's cuts. Loop devices and mounts need root; skipped with a message where unavailable.
set -u
. "$(dirname "$0")/lib.bash"

cat >"$work/ns.ffsb" <<'EOF'
time=4
[filesystem0]
location=/unused
num_files=40
num_dirs=3
min_filesize=4KB
max_filesize=24KB
[end0]
[threadgroup0]
num_threads=3
op_rate=150
dirsync=1
write_weight=3
write_fdatasync_weight=1
create_fsync_weight=2
delete_weight=1
rename_weight=1
replace_fsync_weight=1
link_weight=3
unlink_weight=1
syncfs_weight=1
readall_weight=1
write_size=4KB
write_blocksize=4KB
read_blocksize=4KB
[end0]
EOF

# cycle FSTYPE DEV MNT SEED: one cut, the remount, the check (lib.bash's crash_cycle).
cycle() {
	local fstype=$1 dev=$2 mnt=$3 seed=$4
	crash_cycle "$work/ns.ffsb" "$fstype" "$dev" "$mnt" "$seed" || return 1
	local rc=$crash_rc vrc=$crash_vrc j=$crash_j v=$crash_v
	local links
	links=$(jq -r '[.total.ops[] | select(.name == "link") | .count] | add // 0' "$j" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$(jq -r .stop_reason "$j")" = crashed ] && [ "$(jq '.errors | length' "$j")" = 0 ] &&
		[ "${links:-0}" -gt 0 ] && [ $vrc -eq 0 ] && [ "$(jq -r .broken "$v")" = 0 ] &&
		[ "$(jq -r .checked "$v")" -gt 0 ] && [ "$(jq -r .second_name_promises "$v")" -gt 0 ]; then
		ok "$fstype cut (seed $seed) at $(jq -r .crash.at_s "$j") s: $links links, $(jq -r '[.total.ops[] | select(.name == "unlink") | .count] | add' "$j") unlinks, $(find "$mnt" -name 'l*' -type f | wc -l) second names after the cut; verify: $(jq -r .checked "$v") promises kept, $(jq -r .second_name_promises "$v") of second names"
	else
		bad "$fstype cut (seed $seed): run exit $rc ($(jq -r .stop_reason "$j" 2>/dev/null)), $links links, verify exit $vrc, broken $(jq -r .broken "$v" 2>/dev/null)"
		tail -4 "$work/cut$seed.out" | sed 's/^/     /'
		tail -12 "$work/verify$seed.out" | sed 's/^/     /'
	fi
}

mnt=$work/ns-ext4
if mount_ext4 "$mnt" 128; then
	dev=$(findmnt -n -o SOURCE --mountpoint "$mnt")
	for seed in ${CRASH_LINKS_EXT4_SEEDS:-51 52 53}; do
		cycle ext4 "$dev" "$mnt" $seed || break
	done
else
	skipped "ext4: no loop device or mkfs.ext4 here (needs root)"
fi

# xfs: mkfs.xfs wants an image of at least 300 MiB (sparse: little is written).
xmnt=$work/ns-xfs
if command -v mkfs.xfs >/dev/null && [ "$(id -u)" = 0 ] && truncate -s 320M "$work/xfs.img" &&
	mkfs.xfs -q -f "$work/xfs.img" && xdev=$(losetup -f --show "$work/xfs.img") && loops+=("$xdev") &&
	mkdir -p "$xmnt" && mount -t xfs "$xdev" "$xmnt" && mounts+=("$xmnt"); then
	for seed in ${CRASH_LINKS_XFS_SEEDS:-61 62}; do
		cycle xfs "$xdev" "$xmnt" $seed || break
	done
else
	skipped "xfs: no mkfs.xfs, or the xfs image cannot be made and mounted"
fi
summary
