#!/usr/bin/env bash
# Crash mode (a), docs/durability.md: `run --crash-after` shuts a loop ext4 down mid-run with the
# shutdown ioctl (no log flush), three times at moments drawn from three seeds. Each time: exit
# 0, the stop reason "crashed" in the JSON, no error, the run ends promptly (timeout), the tree
# is left in place although --cleanup was given, the durability log (on /tmp) is complete; then
# unmount, mount (the journal is replayed), `fsmix verify` checks every promise of the log and
# finds them kept, `e2fsck -fn` finds nothing, and the filesystem is usable again (the next cut
# runs on it). Fails on the old binary (no --crash-after, no verify).
# --crash-after on tmpfs is refused before anything is built (exit 3), a moment after the run's
# end is bad input (exit 2); so is a filesystem that is not a dedicated test filesystem (its root
# holds a neighbour's directory: the neighbour's reads go on; the filesystem of the current
# directory, of --json, of the standard output, of / in a chroot), each on a loop image of its
# own, remounted after the old binary's shutdowns; inodes made unreadable with debugfs are reported as broken
# promises of kind unreadable (exit 1, fails on the old binary: exit 1 without a report); a sync
# op after the filesystem was shut down behind fsmix's back is no promise (the run fails); one
# cut on xfs too (where mkfs.xfs is).
# Loop devices and mounts need root; skipped with a message where unavailable.
set -u
. "$(dirname "$0")/lib.bash"

crash_profile 6 >"$work/crash.ffsb"

# 1. tmpfs has no shutdown ioctl: exit 3, nothing built.
loc=$(shmdir)
timeout 60 "$bin" run "$work/crash.ffsb" --location "$loc" --crash-after 1 >"$work/tmpfs.out" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q "without the shutdown ioctl" "$work/tmpfs.out" && [ ! -e "$loc/fsmix.fs0" ]; then
	ok "--crash-after on tmpfs: exit 3 before anything is built"
else
	bad "--crash-after on tmpfs: exit $rc"; sed 's/^/     /' "$work/tmpfs.out" | tail -5
fi

mnt=$work/powercut-crash
if ! mount_ext4 "$mnt" 96; then
	skip_env loop "crash mode (a): no loop device or mkfs.ext4 here (needs root)"
	summary
fi
dev=$(findmnt -n -o SOURCE --mountpoint "$mnt")

# 2. A moment after the end of the run: bad input, nothing built.
timeout 60 "$bin" run "$work/crash.ffsb" --location "$mnt" --crash-after 6 >"$work/late.out" 2>&1
rc=$?
[ $rc -eq 2 ] && [ ! -e "$mnt/fsmix.fs0" ] && ok "--crash-after 6 with time=6: exit 2" ||
	bad "--crash-after after the run's end: exit $rc"

# 2b. Only a dedicated test filesystem: the shutdown stops the whole filesystem, so --crash-after
# refuses (exit 2, before anything is built) a filesystem whose root holds anything but fsmix's
# trees and lost+found, and the filesystem of the current directory, of an output or of /.
# Fails on the old binary: it shut the filesystem down, and the neighbour's reads failed (EIO).
# On a small image of its own: the old binary's shutdowns hurt only it.
shared=$work/shared
if mount_ext4 "$shared" 32; then
	sdev=$(findmnt -n -o SOURCE --mountpoint "$shared")
	mkdir -p "$shared/neighbour" && echo "the neighbour's data" >"$shared/neighbour/notes"
	# refused NAME MESSAGE-REGEX LOCATION [ARGS..]: exit 2 with that message, nothing built; run
	# from the directory $rdir (default: here), its standard output to $rout (default: a file)
	refused() {
		local name=$1 re=$2 loc=$3
		shift 3
		(cd "${rdir:-.}" && exec timeout 60 "$bin" run "$work/crash.ffsb" --location "$loc" \
			--crash-after random:4 "$@") >"${rout:-$work/refused.out}" 2>"$work/refused.err"
		local rc=$?
		# shut down (the old binary): mounted again, so that each case shows for itself
		[ $rc -eq 2 ] || { umount "$shared" && mount -t ext4 "$sdev" "$shared"; }
		if [ $rc -eq 2 ] && grep -q -- "$re" "$work/refused.err" && [ ! -e "$loc/fsmix.fs0" ]; then
			ok "--crash-after $name: exit 2, nothing built"
		else
			bad "--crash-after $name: exit $rc"
			grep 'fsmix:' "$work/refused.err" | tail -3 | sed 's/^/     /'
		fi
	}
	# the neighbour reads its file while fsmix runs (or crashes) there
	(for ((i = 0; i < 50; i++)); do cat "$shared/neighbour/notes" || exit 1; sleep 0.1; done) \
		>"$work/notes.read" 2>&1 &
	npid=$!
	refused "on a filesystem whose root holds a neighbour's directory" \
		"holds 'neighbour' in $shared, which is not fsmix's" "$shared"
	wait $npid && [ "$(grep -c "neighbour's data" "$work/notes.read")" = 50 ] &&
		ok "the neighbour's reads all succeed meanwhile" ||
		bad "the neighbour's reads: $(grep -v "neighbour's data" "$work/notes.read" | head -1)"
	mkdir "$shared/sub"
	refused "in a subdirectory of that filesystem" "holds 'neighbour' in $shared," "$shared/sub"
	mv "$shared/neighbour" "$shared/sub/neighbour"
	refused "below a directory holding a neighbour's" "holds 'neighbour' in $shared/sub," "$shared/sub"
	rm -r "$shared/sub/neighbour"
	mkdir -p "$shared/sub/loc"
	refused "with --json on the tested filesystem" \
		"is on the filesystem of --json '$shared/r.json'" "$shared/sub/loc" --json "$shared/r.json"
	rout=$shared/sub/out.txt refused "with the standard output in a file there" \
		"is on the filesystem of the standard output" "$shared/sub/loc"
	rm -f "$shared/sub/out.txt" "$shared/r.json"
	rdir=$shared/sub refused "from a current directory on the tested filesystem" \
		"is on the filesystem of the current directory" "$shared/sub/loc"
	# the directories on the way to the location hold nothing else: accepted, and crashed
	rmdir "$shared/sub/loc"
	timeout 120 "$bin" run "$work/crash.ffsb" --location "$shared/sub" --crash-after random:4 \
		--json "$work/sub.json" >"$work/sub.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ "$(jq -r .stop_reason "$work/sub.json")" = crashed ] &&
		ok "--crash-after in a subdirectory of a dedicated filesystem (root: lost+found and it): crashed" ||
		{ bad "--crash-after in a subdirectory of a dedicated filesystem: exit $rc"; grep 'fsmix:' "$work/sub.out" | tail -3 | sed 's/^/     /'; }
else
	skipped "--crash-after's refusals: no loop device or mkfs.ext4 here"
fi

# 2c. The filesystem of / is refused: tested in a chroot whose / is a small loop ext4 holding
# fsmix and its libraries (never on this machine's own root: on the old binary, or were the
# check broken, the shutdown takes only that image down). Fails on the old binary (exit 0).
croot=$work/chroot
copy_libs() { # copy_libs ROOT: the binary's shared libraries into ROOT, at their paths
	local l
	for l in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$1$(dirname "$l")" && cp -L "$l" "$1$l" || return 1
	done
}
if mount_ext4 "$croot" 64 && cp "$bin" "$croot/fsmix" && mkdir -p "$croot/proc" "$croot/loc" &&
	copy_libs "$croot" && mount -t proc proc "$croot/proc" && mounts+=("$croot/proc"); then
	crash_profile 6 >"$croot/crash.ffsb"
	timeout 60 chroot "$croot" /fsmix run /crash.ffsb --location /loc --crash-after random:4 >"$work/root.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q "location '/loc' is on the filesystem of / (the machine's root filesystem)" "$work/root.out" &&
		[ ! -e "$croot/loc/fsmix.fs0" ] && ok "--crash-after on the filesystem of / (in a chroot): exit 2, nothing built" ||
		{ bad "--crash-after on the filesystem of / (in a chroot): exit $rc"; grep 'fsmix:' "$work/root.out" | tail -3 | sed 's/^/     /'; }
else
	skipped "--crash-after on the filesystem of /: cannot make a chroot on a loop ext4"
fi

# 3. Three cuts.
for seed in 11 12 13; do
	j=$work/cut$seed.json
	log=$work/cut$seed.durlog
	timeout 120 "$bin" run "$work/crash.ffsb" --location "$mnt" --seed $seed \
		--crash-after random:4 --cleanup --json "$j" --durability-log "$log" >"$work/cut$seed.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(jq -r .stop_reason "$j")" = crashed ] &&
		[ "$(jq -r '.crash.at_s < 4' "$j")" = true ] && [ "$(jq '.errors | length' "$j")" = 0 ] &&
		grep -q "^Crashed: the filesystems were shut down" "$work/cut$seed.out"; then
		ok "cut (seed $seed): exit 0, stop reason crashed at $(jq -r .crash.at_s "$j") s, no error"
	else
		bad "cut (seed $seed): exit $rc, stop reason $(jq -r .stop_reason "$j" 2>/dev/null)"
		tail -8 "$work/cut$seed.out" | sed 's/^/     /'
	fi
	[ -d "$mnt/fsmix.fs0/data" ] && ok "cut (seed $seed): the tree is left in place (no --cleanup)" ||
		bad "cut (seed $seed): the tree is gone"
	if ! umount "$mnt" || ! mount -t ext4 "$dev" "$mnt"; then
		bad "cut (seed $seed): cannot unmount and mount $dev again"
		summary
	fi
	v=$work/verify$seed.json
	timeout 120 "$bin" verify "$work/crash.ffsb" --location "$mnt" --durability-log "$log" \
		--json "$v" >"$work/verify$seed.out" 2>&1
	vrc=$?
	if [ $vrc -eq 0 ] && [ "$(jq -r .log_complete "$v")" = true ] && [ "$(jq -r .checked "$v")" -gt 0 ] &&
		[ "$(jq -r .broken "$v")" = 0 ] && [ "$(jq -r .acknowledged.fsync "$v")" -gt 0 ]; then
		ok "cut (seed $seed): fsmix verify: $(jq -r .checked "$v") promises checked ($(jq -r .acknowledged.fsync "$v") fsyncs acknowledged), none broken"
	else
		bad "cut (seed $seed): fsmix verify exit $vrc"
		tail -6 "$work/verify$seed.out" | sed 's/^/     /'
	fi
	umount "$mnt" && e2fsck -fn "$dev" >"$work/fsck$seed.out" 2>&1
	frc=$?
	mount -t ext4 "$dev" "$mnt" || { bad "cut (seed $seed): cannot mount $dev after fsck"; summary; }
	[ $frc -eq 0 ] && ok "cut (seed $seed): after the journal's replay e2fsck -fn finds nothing" ||
		{ bad "cut (seed $seed): e2fsck -fn exit $frc"; tail -5 "$work/fsck$seed.out" | sed 's/^/     /'; }
done

# 4. sync(2) reports no error: a sync op after the filesystem died (shut down behind fsmix's back,
# no log flush, as a power cut) must not be journaled as a promise. With the log on, fsmix
# confirms each sync with syncfs (which fails on the dead filesystem): the run fails, and verify
# finds every promise kept (the old binary recorded the dead syncs: creates lost, broken).
cat >"$work/sync.ffsb" <<'EOF'
time=30
[filesystem0]
location=/unused
num_files=20
num_dirs=2
min_filesize=4KB
max_filesize=8KB
[end0]
[threadgroup0]
num_threads=8
op_rate=200
create_weight=4
sync_weight=2
write_size=4KB
write_blocksize=4KB
[end0]
EOF
sloc=$mnt/durreview-sync
mkdir -p "$sloc"
timeout 120 "$bin" run "$work/sync.ffsb" --location "$sloc" --seed 3 --json "$work/sync.json" \
	--durability-log "$work/sync.durlog" >"$work/sync.out" 2>&1 &
spid=$!
for ((i = 0; i < 600; i++)); do # the run phase under way: its records reach the log
	[ "$(stat -c %s "$work/sync.durlog" 2>/dev/null || echo 0)" -gt 16384 ] && break
	sleep 0.1
done
xfs_io -x -c shutdown "$mnt" 2>"$work/shutdown.err" ||
	python3 -c 'import fcntl,os,struct,sys; fd=os.open(sys.argv[1],os.O_RDONLY); fcntl.ioctl(fd,0x8004587d,struct.pack("I",2))' "$mnt"
wait $spid
src=$?
if umount "$mnt" && mount -t ext4 -o errors=remount-ro "$dev" "$mnt"; then
	timeout 120 "$bin" verify "$work/sync.ffsb" --location "$sloc" --durability-log "$work/sync.durlog" \
		--json "$work/sync-verify.json" >"$work/sync-verify.out" 2>&1
	vrc=$?
	syncs=$(jq -r .acknowledged.sync "$work/sync-verify.json" 2>/dev/null)
	if [ $src -eq 1 ] && [ $vrc -eq 0 ] && [ "${syncs:-0}" -gt 0 ]; then
		ok "sync after the filesystem died: the run fails (exit 1), verify: $syncs syncs confirmed, $(jq -r .checked "$work/sync-verify.json") promises kept"
	else
		bad "sync after the filesystem died: run exit $src, verify exit $vrc, ${syncs:-no} syncs, $(jq -r .broken "$work/sync-verify.json" 2>/dev/null) broken"
		tail -n 4 "$work/sync.out" | sed "s/^/     /"; head -n 40 "$work/sync-verify.out" | sed "s/^/     /"
	fi
else
	bad "sync after the filesystem died: cannot mount $dev again"
fi

# 5. The check can fail: the last cut's files truncated behind fsmix's back break its promises.
find "$mnt/fsmix.fs0/data" -type f -name 'f*' -exec truncate -s 0 {} +
timeout 120 "$bin" verify "$work/crash.ffsb" --location "$mnt" --durability-log "$work/cut13.durlog" \
	--json "$work/trunc.json" >"$work/trunc.out" 2>&1
vrc=$?
[ $vrc -eq 1 ] && [ "$(jq -r .broken "$work/trunc.json")" -gt 0 ] &&
	ok "files truncated after the cut: verify exit 1, $(jq -r .broken "$work/trunc.json") promises broken" ||
	{ bad "files truncated after the cut: verify exit $vrc"; tail -4 "$work/trunc.out" | sed 's/^/     /'; }

# 6. Inodes that cannot be read (their checksums spoilt with debugfs, as a corrupt inode after a
# barrier=0 power cut): each a broken promise of kind unreadable with its errno (EBADMSG), in the
# text and the JSON, the walk goes on past the first, exit 1 (not 2).
umount "$mnt"
find_files() { debugfs -R "ls -p $1" "$dev" 2>/dev/null | awk -F/ '$6 ~ /^f[0-9]+$/ { print $6 }'; }
{
	for f in $(find_files /fsmix.fs0/data); do echo "set_inode_field /fsmix.fs0/data/$f checksum 0"; done
	for d in $(debugfs -R "ls -p /fsmix.fs0/data" "$dev" 2>/dev/null | awk -F/ '$6 ~ /^d[0-9]+$/ { print $6 }'); do
		for f in $(find_files /fsmix.fs0/data/$d); do echo "set_inode_field /fsmix.fs0/data/$d/$f checksum 0"; done
	done
} >"$work/spoil.cmds"
debugfs -w -f "$work/spoil.cmds" "$dev" >"$work/spoil.out" 2>&1
mount -t ext4 -o errors=remount-ro "$dev" "$mnt" || { bad "cannot mount $dev after debugfs"; summary; }
timeout 120 "$bin" verify "$work/crash.ffsb" --location "$mnt" --durability-log "$work/cut13.durlog" \
	--json "$work/unread.json" >"$work/unread.out" 2>&1
vrc=$?
u=$(jq -r '.broken_by_kind.unreadable' "$work/unread.json" 2>/dev/null)
if [ $vrc -eq 1 ] && [ "${u:-0}" -gt 1 ] && [ "$(jq -r '.examples.unreadable[0].errno' "$work/unread.json")" = 74 ] &&
	grep -q "unreadable: .*Bad message (errno 74)" "$work/unread.out"; then
	ok "inodes unreadable (EBADMSG): verify exit 1, $u files reported unreadable in text and JSON"
else
	bad "inodes unreadable: verify exit $vrc, unreadable ${u:-none} ($(grep -c set_inode "$work/spoil.cmds") inodes spoilt)"
	tail -4 "$work/unread.out" | sed 's/^/     /'
fi

# 7. xfs takes the same ioctl (XFS_IOC_GOINGDOWN): one cut, verify passes.
xmnt=$work/powercut-crash-xfs
if command -v mkfs.xfs >/dev/null && truncate -s 320M "$work/xfs.img" && mkfs.xfs -q -f "$work/xfs.img" &&
	xdev=$(losetup -f --show "$work/xfs.img") && loops+=("$xdev") && mkdir -p "$xmnt" &&
	mount -t xfs "$xdev" "$xmnt" && mounts+=("$xmnt"); then
	timeout 120 "$bin" run "$work/crash.ffsb" --location "$xmnt" --seed 21 --crash-after random:4 \
		--json "$work/xfs.json" --durability-log "$work/xfs.durlog" >"$work/xfs.out" 2>&1
	rc=$?
	if umount "$xmnt" && mount -t xfs "$xdev" "$xmnt"; then
		timeout 120 "$bin" verify "$work/crash.ffsb" --location "$xmnt" --durability-log "$work/xfs.durlog" \
			--json "$work/xfs-verify.json" >"$work/xfs-verify.out" 2>&1
		vrc=$?
	else
		vrc=mount
	fi
	[ $rc -eq 0 ] && [ "$(jq -r .stop_reason "$work/xfs.json")" = crashed ] && [ "$vrc" = 0 ] &&
		[ "$(jq -r .checked "$work/xfs-verify.json")" -gt 0 ] &&
		ok "xfs: crashed at $(jq -r .crash.at_s "$work/xfs.json") s, verify: $(jq -r .checked "$work/xfs-verify.json") promises kept" ||
		{ bad "xfs: run exit $rc, verify exit $vrc"; tail -4 "$work/xfs.out" "$work/xfs-verify.out" 2>/dev/null | sed 's/^/     /'; }
else
	skip_env xfs "xfs: no mkfs.xfs, or the xfs image cannot be made and mounted"
fi
summary
