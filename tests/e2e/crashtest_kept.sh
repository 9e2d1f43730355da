#!/usr/bin/env bash
# fsmix crashtest on filesystems that keep their promises (docs/durability.md, "Every crash
# state"; issue 27): ext4 barrier=1 data=ordered, ext4 data=journal, xfs and btrfs, each on a
# 3 s run of the scaled 2010 profile (profiles/ext4-barrier-2010.ffsb, 200 files, 4 threads
# paced) and of profiles/crash-mix.ffsb (replace_fsync, rename, truncate, fallocate, O_DSYNC),
# 6 flush points with one random subset each: exit 0, no state broken, none flagged by the
# checker, every state mounted. A broken state here is a false alarm of verify's cut log (or a
# kernel finding): crashtest prints the state and its kinds. btrfs runs the 2010 profile with
# directio=0: this kernel's btrfs fails O_DIRECT reads of files being rewritten with EIO
# (seen in a plain run, without crashtest).
# Needs root, /dev/fuse, loop devices and fsmix-powercut; skipped with a message otherwise.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "crashtest: $pc_why"
	summary
fi
export FSMIX_POWERCUT=$pc_powercut
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
scaled=(--set filesystem0.num_files=200 --set filesystem0.num_dirs=10 --set filesystem0.reuse=0
	--threads 4 --set threadgroup0.op_rate=50)

# The eight crashtests are independent (each its own disk image, loop device and daemon below
# TMPDIR) and mostly wait (mkfs, mounts, flushes, the paced 3 s runs: 11 CPU s in 69 s of wall
# one after another), so two run at a time; each is judged, in order, when it has ended.
# launch NAME FS SIZE MOUNT-OPTIONS PROFILE ARGS..: NAME's crashtest, in the background; SIZE
# default: no --size, and the disk must have the default of FS (256M btrfs, 320M xfs: what their
# mkfs accepts; it was 64M for all, which mkfs.btrfs and mkfs.xfs refuse).
declare -A pid=() want_size=()
launch() {
	local name=$1 fs=$2 size=$3 mo=$4 prof=$5 j=$work/$1.json
	shift 5
	if ! command -v "mkfs.$fs" >/dev/null; then
		skip_env "$fs" "$name: mkfs.$fs not found"
		return
	fi
	local opts=(--fs "$fs" --time 3 --seed 5 --states 6 --reorder 1 --json "$j")
	if [ "$size" = default ]; then
		case $fs in btrfs) want_size[$name]=268435456 ;; xfs) want_size[$name]=335544320 ;; *) want_size[$name]=67108864 ;; esac
	else
		opts+=(--size "$size")
	fi
	[ -n "$mo" ] && opts+=(--mount-options "$mo")
	timeout 600 "$bin" crashtest "$prof" "${opts[@]}" "$@" >"$work/$name.out" 2>&1 &
	pid[$name]=$!
}
# kept NAME: once NAME's crashtest has ended: exit 0, at least 6 states, none broken, flagged
# or unmountable.
kept() {
	local name=$1 j=$work/$1.json rc n b f u
	[ -n "${pid[$name]:-}" ] || return # skipped at its launch
	wait "${pid[$name]}"
	rc=$?
	n=$(jq -r .states_explored "$j" 2>/dev/null) b=$(jq -r .states_broken "$j" 2>/dev/null)
	f=$(jq -r .states_fsck_flagged "$j" 2>/dev/null) u=$(jq -r .states_unmountable "$j" 2>/dev/null)
	local size_ok=yes ds
	ds=$(jq -r .disk_size "$j" 2>/dev/null)
	[ -n "${want_size[$name]:-}" ] && [ "$ds" != "${want_size[$name]}" ] && size_ok="no: $ds bytes, not ${want_size[$name]}"
	[ $rc = 0 ] && [ "$b" = 0 ] && [ "$f" = 0 ] && [ "$u" = 0 ] && [ "${n:-0}" -ge 6 ] && [ "$size_ok" = yes ] &&
		ok "$name: $n states, 0 broken, 0 flagged, $(jq -r .promises_checked "$j") promises checked${want_size[$name]:+ (the default disk: $ds bytes)}" ||
		{ bad "$name: exit $rc, states $n, broken $b, flagged $f, unmountable $u, default size ${size_ok}"; tail -15 "$work/$name.out" | sed 's/^/     /'; }
}

p2010=$src/profiles/ext4-barrier-2010.ffsb
mix=$src/profiles/crash-mix.ffsb
# start NAME: launch the crashtest NAME (PROFILE-FS[-MODE]).
start() {
	case $1 in
	2010-ext4-ordered) launch "$1" ext4 128M barrier=1,data=ordered "$p2010" "${scaled[@]}" ;;
	2010-ext4-journal) launch "$1" ext4 128M data=journal "$p2010" "${scaled[@]}" ;;
	2010-xfs) launch "$1" xfs default "" "$p2010" "${scaled[@]}" ;;
	2010-btrfs) launch "$1" btrfs 256M "" "$p2010" "${scaled[@]}" --set directio=0 ;;
	mix-ext4-ordered) launch "$1" ext4 128M barrier=1,data=ordered "$mix" ;;
	mix-ext4-journal) launch "$1" ext4 128M data=journal "$mix" ;;
	mix-xfs) launch "$1" xfs 320M "" "$mix" ;;
	mix-btrfs) launch "$1" btrfs default "" "$mix" ;;
	esac
}
names=(2010-ext4-ordered 2010-ext4-journal 2010-xfs 2010-btrfs mix-ext4-ordered mix-ext4-journal
	mix-xfs mix-btrfs)
# Under sanitizers four of the eight: each filesystem once, each profile twice; fsmix's code is
# the same in all, and whether each filesystem keeps its promises is the default build's
# question, which runs all eight.
[ -n "${FSMIX_SANITIZERS:-}" ] && names=(2010-ext4-ordered 2010-xfs mix-ext4-journal mix-btrfs)
# two at a time: the next one starts before the previous one is judged
start "${names[0]}"
for ((i = 1; i < ${#names[@]}; i++)); do
	start "${names[i]}"
	kept "${names[i - 1]}"
done
kept "${names[-1]}"
[ "$(losetup -a | grep -cF "$TMPDIR/fsmix-crashtest") $(ls "$TMPDIR" | wc -l)" = "0 0" ] &&
	ok "nothing left behind" || bad "loop devices or directories left behind"
summary
