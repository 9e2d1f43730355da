# powercut-lib.bash - both crash modes of docs/durability.md as shell functions (sourced by
# examples/powercut-2010.sh and the e2e tests crash_powercut.sh): a disk with a volatile write
# cache (fsmix-powercut) under a loop device and a filesystem ($pc_fs: ext4, the default, or
# btrfs or xfs), fsmix run with its durability log in ${TMPDIR:-/tmp}, the power cut, the
# persisted image attached, its journal (log tree) replayed by a mount, checked (e2fsck -fn,
# btrfs check --readonly, xfs_repair -n), fsmix verify.
# Every mount, loop device and daemon it makes is recorded and undone by pc_cleanup, whatever
# failed; it never detaches a device or unmounts a directory it did not make. Needs root,
# /dev/fuse, losetup, mkfs.ext4, e2fsck (or btrfs-progs, xfsprogs for those) and fsmix-powercut
# (built where libfuse3-dev is found).
#
#   pc_init [DIR]           find the programs, make the work directory (DIR or a temp dir);
#                           returns 1 with the reason in $pc_why when something is missing
#   pc_disk NAME MB [OPT..] a fresh backing image NAME.img of MB megabytes behind the daemon
#                           (options: fsmix-powercut's), a loop device on its disk.img: $pc_dev
#   pc_mkfs MOUNT_OPTIONS   mkfs.$pc_fs on $pc_dev, mounted at $pc_mnt with MOUNT_OPTIONS
#                           (ext4: barrier=1 or barrier=0; btrfs: barrier or nobarrier; xfs
#                           has no nobarrier since Linux 4.19: "" or defaults)
#   pc_run_cut PROFILE S LOG [ARGS..]
#                           fsmix run PROFILE on $pc_mnt with --durability-log LOG (not on the
#                           tested disk), the power cut S seconds after its workers start;
#                           $pc_rc, the run's output in $pc_out (.txt, .err, .json)
#   pc_cut [PCT]            the power cut now (PCT: persist that share of the cache first)
#   pc_detach               after the cut: the counters saved ($pc_stats), $pc_mnt unmounted, the
#                           loop device detached, the daemon unmounted and ended
#   pc_attach               the persisted backing image on a loop device; mounted (journal
#                           replay) and unmounted; checked read-only (e2fsck -fn, btrfs check
#                           --readonly, xfs_repair -n): $pc_fsck_errors (problems found),
#                           $pc_fsck_rc; mounted again at $pc_mnt as the replay left it, not
#                           repaired (verify reports what cannot be read as unreadable); only
#                           an ext4 that does not mount ($pc_unmountable=1) is repaired first
#                           by e2fsck -fy, its problems counted by it
#   pc_verify PROFILE LOG [ARGS..]
#                           fsmix verify on $pc_mnt: $pc_verify_rc; promises $pc_checked and
#                           $pc_broken; $pc_acked acknowledged fsyncs and fdatasyncs in the log;
#                           after a cut, with --cut-at $pc_cut_at (the daemon's cut_mono_ns):
#                           the run outlived the cut, and what it was told from then on (a sync
#                           that returned once the disk was dead) is no promise a real power cut
#                           could have broken; $pc_after_cut records were acknowledged after it
#   pc_stat KEY             a counter of $pc_stats (flushes, dropped_bytes, ...)
#   pc_release              unmount and detach the attached image, remove it
#   pc_cleanup              undo everything still mounted, attached or running (a run still
#                           going, as after Ctrl-C, is ended first: it holds the mount)
pc_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pc_mounts=() pc_loops=() pc_fuses=() pc_pids=() pc_runs=()
pc_fs=${pc_fs:-ext4}

pc_init() {
	pc_why=
	pc_fsmix=${FSMIX:-${FSMIX_BIN:-$pc_here/build/src/fsmix}}
	[ -x "$pc_fsmix" ] || pc_fsmix=$(command -v fsmix) || { pc_why="fsmix not found (set FSMIX)"; return 1; }
	pc_powercut=${FSMIX_POWERCUT:-$(dirname "$pc_fsmix")/fsmix-powercut}
	[ -x "$pc_powercut" ] || pc_powercut=$(command -v fsmix-powercut) ||
		{ pc_why="fsmix-powercut not found (built where libfuse3-dev is installed; set FSMIX_POWERCUT)"; return 1; }
	[ "$(id -u)" = 0 ] || { pc_why="needs root (loop devices and mounts)"; return 1; }
	[ -c /dev/fuse ] || { pc_why="no /dev/fuse"; return 1; }
	local t
	for t in losetup mkfs.ext4 e2fsck fusermount3 findmnt; do
		command -v $t >/dev/null || { pc_why="no $t"; return 1; }
	done
	if [ -n "${1:-}" ]; then
		pc_dir=$1
		mkdir -p "$pc_dir"
	else
		pc_dir=$(mktemp -d "${TMPDIR:-/tmp}/powercut-XXXXXX")
	fi
}

# _pc_mounted DIR: whether something is mounted on DIR, from the mount table: mountpoint(1)
# stats DIR, which a filesystem shut down by the cut answers with EIO (then "not mounted", and
# the loop device and the daemon were never let go).
_pc_mounted() {
	findmnt -n --mountpoint "$1" >/dev/null 2>&1
}

pc_cleanup() {
	local i
	for i in "${pc_runs[@]}"; do kill "$i" 2>/dev/null && wait "$i" 2>/dev/null; done
	for ((i = ${#pc_mounts[@]} - 1; i >= 0; i--)); do
		_pc_mounted "${pc_mounts[$i]}" && { umount "${pc_mounts[$i]}" 2>/dev/null || umount -l "${pc_mounts[$i]}"; }
	done
	for i in "${pc_loops[@]}"; do losetup -d "$i" 2>/dev/null; done
	for i in "${pc_fuses[@]}"; do
		_pc_mounted "$i" && { fusermount3 -u "$i" 2>/dev/null || { sleep 1; fusermount3 -uz "$i"; }; }
	done
	for i in "${pc_pids[@]}"; do kill "$i" 2>/dev/null; done
	pc_mounts=() pc_loops=() pc_fuses=() pc_pids=() pc_runs=()
}

# _pc_forget ARRAY VALUE: drop VALUE from the named array (it was undone).
_pc_forget() {
	local -n a=$1
	local x keep=()
	for x in "${a[@]}"; do [ "$x" = "$2" ] || keep+=("$x"); done
	a=("${keep[@]}")
}

pc_disk() {
	local name=$1 mb=$2
	shift 2
	pc_name=$name
	pc_img=$pc_dir/$name.img pc_fuse=$pc_dir/$name.fuse pc_mnt=$pc_dir/$name.mnt
	pc_stats=$pc_dir/$name.stats
	rm -f "$pc_img" "$pc_stats"
	mkdir -p "$pc_fuse" "$pc_mnt"
	"$pc_powercut" -f --size "${mb}M" --stats "$pc_stats.exit" "$@" "$pc_img" "$pc_fuse" \
		2>"$pc_dir/$name.daemon.log" &
	pc_pid=$!
	pc_pids+=("$pc_pid")
	local i
	for ((i = 0; i < 100; i++)); do
		[ -e "$pc_fuse/disk.img" ] && _pc_mounted "$pc_fuse" && break
		kill -0 "$pc_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! [ -e "$pc_fuse/disk.img" ]; then
		echo "fsmix-powercut did not mount $pc_fuse:" >&2
		cat "$pc_dir/$name.daemon.log" >&2
		return 1
	fi
	pc_fuses+=("$pc_fuse")
	pc_dev=$(losetup -f --show --direct-io=on "$pc_fuse/disk.img") || return 1
	pc_loops+=("$pc_dev")
}

pc_mkfs() {
	case $pc_fs in
	ext4) mkfs.ext4 -q -F "$pc_dev" >/dev/null ;;
	btrfs) mkfs.btrfs -q -f "$pc_dev" >/dev/null ;;
	xfs) mkfs.xfs -q -f "$pc_dev" >/dev/null ;;
	*) echo "pc_mkfs: pc_fs=$pc_fs: ext4, btrfs or xfs" >&2 && false ;;
	esac || return 1
	mount -t "$pc_fs" ${1:+-o "$1"} "$pc_dev" "$pc_mnt" || return 1
	pc_mounts+=("$pc_mnt")
}

# _pc_check: the read-only check of the unmounted $pc_dev after the replay: $pc_fsck_rc and
# $pc_fsck_errors (the problems it reports; 1 when it fails without naming one).
_pc_check() {
	local out=$pc_dir/$pc_name.fsck
	case $pc_fs in
	ext4)
		e2fsck -fn "$pc_dev" >"$out" 2>&1
		pc_fsck_rc=$?
		# "could be narrower/shorter. Optimize? no" is no problem (e2fsck exits 0 for it)
		pc_fsck_errors=$(grep '? no$' "$out" | grep -vc 'Optimize? no$')
		;;
	btrfs)
		btrfs check --readonly "$pc_dev" >"$out" 2>&1
		pc_fsck_rc=$?
		pc_fsck_errors=$(grep -c '^ERROR' "$out")
		;;
	xfs)
		xfs_repair -n "$pc_dev" >"$out" 2>&1
		pc_fsck_rc=$?
		pc_fsck_errors=0
		;;
	esac
}

pc_cut() {
	"$pc_powercut" cut "$pc_fuse" ${1:+"$1"}
}

# pc_run_cut PROFILE S LOG [ARGS..]: the cut S seconds (a decimal) after "fsmix: running".
pc_run_cut() {
	local profile=$1 at=$2 log=$3 i
	shift 3
	pc_out=$pc_dir/$pc_name.run
	rm -f "$log"
	timeout 600 "$pc_fsmix" run "$profile" --location "$pc_mnt" --durability-log "$log" \
		--json "$pc_out.json" "$@" >"$pc_out.txt" 2>"$pc_out.err" &
	local run=$!
	pc_runs+=("$run")
	for ((i = 0; i < 600; i++)); do
		grep -q "^fsmix: running" "$pc_out.err" 2>/dev/null && break
		kill -0 $run 2>/dev/null || break
		sleep 0.1
	done
	sleep "$at"
	pc_cut
	wait $run
	pc_rc=$?
	_pc_forget pc_runs "$run"
}

pc_detach() {
	cat "$pc_fuse/stats" >"$pc_stats" 2>/dev/null
	if _pc_mounted "$pc_mnt"; then
		umount "$pc_mnt" 2>/dev/null || umount -l "$pc_mnt"
	fi
	_pc_forget pc_mounts "$pc_mnt"
	local i
	# forgotten only once undone: pc_cleanup tries again whatever is left
	for ((i = 0; i < 50; i++)); do
		losetup -d "$pc_dev" 2>/dev/null && { _pc_forget pc_loops "$pc_dev"; break; }
		sleep 0.1
	done
	for ((i = 0; i < 50; i++)); do
		fusermount3 -u "$pc_fuse" 2>/dev/null && { _pc_forget pc_fuses "$pc_fuse"; break; }
		sleep 0.1
	done
	# the daemon ends once its mount is gone; one still there after 10 s (its mount held by
	# something) is detached lazily and stopped, not waited for forever
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pc_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pc_pid" 2>/dev/null; then
		echo "powercut-lib: the daemon of $pc_fuse did not end; stopped" >&2
		fusermount3 -uz "$pc_fuse" 2>/dev/null
		kill "$pc_pid" 2>/dev/null
	fi
	wait "$pc_pid" 2>/dev/null
	_pc_forget pc_pids "$pc_pid"
}

pc_attach() {
	pc_dev=$(losetup -f --show "$pc_img") || return 1
	pc_loops+=("$pc_dev")
	pc_fsck_errors=- pc_fsck_rc=- pc_unmountable=0
	# the journal (btrfs: the log tree) is replayed by the mount; the check then sees what
	# the replay left
	if mount -t "$pc_fs" "$pc_dev" "$pc_mnt" 2>"$pc_dir/$pc_name.mount.err"; then
		umount "$pc_mnt" || return 1
		_pc_check
		# not repaired: verify sees the tree as the replay left it (a corrupt inode or
		# directory block is a promise of kind unreadable), as the kernel would serve it
	elif [ "$pc_fs" != ext4 ]; then
		return 1
	else
		# the persisted image does not mount: e2fsck -fy replays the journal and repairs
		# (its problems are counted), as a user would after a power cut
		pc_unmountable=1
		e2fsck -fy "$pc_dev" >"$pc_dir/$pc_name.fsck" 2>&1
		pc_fsck_rc=$?
		pc_fsck_errors=$(grep '? yes$' "$pc_dir/$pc_name.fsck" | grep -vc 'Optimize? yes$')
	fi
	[ "$pc_fsck_rc" -ne 0 ] && [ "$pc_fsck_errors" -eq 0 ] && pc_fsck_errors=1
	# ext4: errors=remount-ro whatever the superblock says: never a panic on the damage verify
	# reads (btrfs and xfs have no errors= option; they turn read-only on their own)
	local opts=()
	[ "$pc_fs" = ext4 ] && opts=(-o errors=remount-ro)
	mount -t "$pc_fs" "${opts[@]}" "$pc_dev" "$pc_mnt" || return 1
	pc_mounts+=("$pc_mnt")
}

pc_verify() {
	local profile=$1 log=$2
	shift 2
	pc_cut_at=$(pc_stat cut_mono_ns 2>/dev/null)
	[ "${pc_cut_at:-0}" = 0 ] && pc_cut_at=
	timeout 600 "$pc_fsmix" verify "$profile" --location "$pc_mnt" --durability-log "$log" \
		--json "$pc_dir/$pc_name.verify.json" ${pc_cut_at:+--cut-at "$pc_cut_at"} "$@" \
		>"$pc_dir/$pc_name.verify" 2>&1
	pc_verify_rc=$?
	local j=$pc_dir/$pc_name.verify.json
	pc_checked=$(jq -r '.checked // empty' "$j" 2>/dev/null)
	pc_broken=$(jq -r '.broken // empty' "$j" 2>/dev/null)
	pc_acked=$(jq -r '(.acknowledged.fsync // 0) + (.acknowledged.fdatasync // 0)' "$j" 2>/dev/null)
	pc_after_cut=$(jq -r '.records_after_cut // empty' "$j" 2>/dev/null)
	pc_checked=${pc_checked:--} pc_broken=${pc_broken:--} pc_acked=${pc_acked:--}
	pc_after_cut=${pc_after_cut:--}
}

pc_stat() {
	awk -v k="$1" '$1 == k { print $2 }' "$pc_stats"
}

pc_release() {
	if _pc_mounted "$pc_mnt"; then
		umount "$pc_mnt" || return 1
	fi
	_pc_forget pc_mounts "$pc_mnt"
	losetup -d "$pc_dev" 2>/dev/null && _pc_forget pc_loops "$pc_dev"
	rm -f "$pc_img"
}
