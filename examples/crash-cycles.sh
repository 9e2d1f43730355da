#!/usr/bin/env bash
# crash-cycles.sh - the crash campaign of docs/durability.md ("Crash campaign"): CYCLES crashes
# of one filesystem under one profile, each on a fresh loop filesystem, each checked.
#
#   sudo examples/crash-cycles.sh FS MODE BARRIER [CYCLES [PROFILE [SEED]]]
#     FS       ext4, xfs or btrfs
#     MODE     shutdown: fsmix run --crash-after random:AT (mode (a); ext4 and xfs: this
#              kernel's btrfs has no shutdown ioctl), or powercut: fsmix-powercut under the
#              loop device, cut at a moment drawn from [0, AT) (mode (b))
#     BARRIER  on or off (ext4 barrier=1/barrier=0, btrfs barrier/nobarrier; xfs: on only)
#     CYCLES   how many crashes (default 20); PROFILE (default profiles/crash-mix.ffsb; "":
#              the default);
#              SEED, the first cycle's seed (default 1; cycle i uses SEED + i)
#
# Every cycle: a fresh image in ${TMPDIR:-/tmp} (mkfs, mounted with the barrier option), fsmix run
# PROFILE --time TIME --seed N with its durability log there too, the crash, the filesystem
# unmounted and mounted again (its journal or log tree replayed), unmounted, checked read-only
# (e2fsck -fn, xfs_repair -n, btrfs check --readonly: its problems counted, nothing repaired),
# mounted again, fsmix verify --json. One line per cycle: the seed, the crash moment (s into
# the run phase), the run's exit status, the fsyncs and fdatasyncs, O_SYNC/O_DSYNC writes and
# replaces acknowledged, promises checked, kept and broken, broken by kind, lost tail, the
# checker's problems (*: the image did not mount, e2fsck -fy's), verify's exit status, and in
# mode powercut the disk's flushes and the KiB the cut dropped from its cache; then the totals.
# Also in OUT/crash-cycles-FS-MODE-bBARRIER.txt and .dat (whitespace-separated, one cycle a
# line).
#
# Environment: CRASH_TIME (the run's --time, s; 4), CRASH_AT (the crash moment is drawn from
# [0, CRASH_AT) s of the run phase; 3), CRASH_MB (the image, MiB; 256, xfs 320), CRASH_OUT
# (where the table and data go; .), CRASH_KEEP (a directory: the image, log, run and verify
# output of every cycle that broke a promise or gave no verdict where none may break, mode
# shutdown or barriers on, are copied to CRASH_KEEP/broken-FS-SEED/; with CRASH_KEEP_ALL=1
# also with barriers off), POWERCUT_DESTAGE (destage delay, ms; 1000), POWERCUT_CACHE (64M),
# FSMIX and FSMIX_POWERCUT (the programs; default the build tree's, else PATH).
#
# Exit status: 0 the campaign ran and nothing broke that may not (mode shutdown or barriers on:
# every cycle verified, no promise broken); 1 some cycle broke a promise or gave no verdict
# where none may break, or a run, mount or verify failed; 2 usage; 3 a program, root or
# /dev/fuse missing. Every mount, loop device, daemon and run it starts is undone on any exit,
# Ctrl-C included.
set -uo pipefail
usage() {
	echo "usage: crash-cycles.sh ext4|xfs|btrfs shutdown|powercut on|off [CYCLES [PROFILE [SEED]]]" >&2
	exit 2
}
[ $# -ge 3 ] && [ $# -le 6 ] || usage
fs=$1 mode=$2 barrier=$3 cycles=${4:-20} profile=${5:-} seed0=${6:-1}
case $fs in ext4 | xfs | btrfs) ;; *) usage ;; esac
case $mode in shutdown | powercut) ;; *) usage ;; esac
case $barrier in on | off) ;; *) usage ;; esac
time_s=${CRASH_TIME:-4} at=${CRASH_AT:-3} out=${CRASH_OUT:-.} keep=${CRASH_KEEP:-}
destage=${POWERCUT_DESTAGE:-1000} cache=${POWERCUT_CACHE:-64M}
mb=${CRASH_MB:-$([ "$fs" = xfs ] && echo 320 || echo 256)} # mkfs.xfs: 300 MB at least
for v in "$cycles" "$seed0" "$time_s" "$at" "$mb"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "crash-cycles.sh: '$v': CYCLES, SEED, CRASH_TIME, CRASH_AT and CRASH_MB are whole numbers" >&2; exit 2; }
done
[ "$cycles" -ge 1 ] && [ "$at" -ge 1 ] && [ "$at" -lt "$time_s" ] ||
	{ echo "crash-cycles.sh: CYCLES >= 1 and 1 <= CRASH_AT < CRASH_TIME" >&2; exit 2; }
if [ "$fs" = btrfs ] && [ "$mode" = shutdown ]; then
	echo "crash-cycles.sh: btrfs has the shutdown ioctl only with CONFIG_BTRFS_EXPERIMENTAL (fsmix --crash-after refuses it, exit 3): use powercut" >&2
	exit 3
fi
if [ "$fs" = xfs ] && [ "$barrier" = off ]; then
	echo "crash-cycles.sh: xfs has no nobarrier since Linux 4.19: barrier on only" >&2
	exit 2
fi
case $fs/$barrier in
ext4/on) mopts=barrier=1 ;;
ext4/off) mopts=barrier=0 ;;
btrfs/on) mopts=barrier ;;
btrfs/off) mopts=nobarrier ;;
xfs/on) mopts= ;;
esac
# Broken promises may only come from a disk whose flushes the filesystem skipped.
strict=$([ "$mode" = powercut ] && [ "$barrier" = off ] && echo 0 || echo 1)

pc_fs=$fs
. "$(dirname "$0")/powercut-lib.bash"
case $fs in
ext4) tools="mkfs.ext4 e2fsck" ;;
xfs) tools="mkfs.xfs xfs_repair" ;;
btrfs) tools="mkfs.btrfs btrfs" ;;
esac
for t in $tools losetup mountpoint jq; do
	command -v "$t" >/dev/null || { echo "crash-cycles.sh: no $t" >&2; exit 3; }
done
if [ "$mode" = powercut ]; then
	pc_init || { echo "crash-cycles.sh: $pc_why" >&2; exit 3; }
else
	[ "$(id -u)" = 0 ] || { echo "crash-cycles.sh: needs root (loop devices, mounts, the shutdown ioctl)" >&2; exit 3; }
	pc_fsmix=${FSMIX:-${FSMIX_BIN:-$pc_here/build/src/fsmix}}
	[ -x "$pc_fsmix" ] || pc_fsmix=$(command -v fsmix) || { echo "crash-cycles.sh: fsmix not found (set FSMIX)" >&2; exit 3; }
	pc_dir=$(mktemp -d "${TMPDIR:-/tmp}/crash-cycles-XXXXXX")
fi
trap 'pc_cleanup; rm -rf "$pc_dir"' EXIT
trap 'echo "crash-cycles.sh: interrupted" >&2; exit 130' INT TERM
if [ -z "$profile" ]; then # the source tree's, else the installed one (FSMIX_PROFILES: elsewhere)
	profile=${FSMIX_PROFILES:-$pc_here/profiles}/crash-mix.ffsb
	[ -f "$profile" ] || profile=$(dirname "$pc_fsmix")/../share/fsmix/profiles/crash-mix.ffsb
fi
[ -f "$profile" ] || { echo "crash-cycles.sh: no profile $profile (set FSMIX_PROFILES, or name it)" >&2; exit 2; }
profile=$(realpath "$profile")
mkdir -p "$out" || exit 2
tag=crash-cycles-$fs-$mode-b$barrier
data=$out/$tag.dat table=$out/$tag.txt

# shutdown_cycle SEED: a fresh loop filesystem, the run crashed by --crash-after random:AT, its
# image attached again as the powercut mode's is ($pc_img, pc_attach). Sets $run_rc and $moment.
shutdown_cycle() {
	local seed=$1 run
	pc_name=$tag-$seed pc_img=$pc_dir/$tag-$seed.img pc_mnt=$pc_dir/mnt pc_stats=/dev/null
	mkdir -p "$pc_mnt"
	rm -f "$pc_img" && truncate -s "${mb}M" "$pc_img" || return 1
	pc_dev=$(losetup -f --show "$pc_img") || return 1
	pc_loops+=("$pc_dev")
	pc_mkfs "$mopts" || return 1
	"$pc_fsmix" run "$profile" --location "$pc_mnt" --time "$time_s" --seed "$seed" \
		--crash-after "random:$at" --durability-log "$log" --json "$pc_dir/$pc_name.run.json" \
		>"$pc_dir/$pc_name.run.txt" 2>"$pc_dir/$pc_name.run.err" &
	run=$!
	pc_runs+=("$run")
	wait "$run"
	run_rc=$?
	_pc_forget pc_runs "$run"
	moment=$(jq -r '.crash.at_s // "-" | if type == "number" then . * 100 | round / 100 else . end' \
		"$pc_dir/$pc_name.run.json" 2>/dev/null) || moment=-
	umount "$pc_mnt" || return 1
	_pc_forget pc_mounts "$pc_mnt"
	losetup -d "$pc_dev" && _pc_forget pc_loops "$pc_dev"
}

# powercut_cycle SEED: a fresh fsmix-powercut disk, the cut at a moment drawn from [0, AT) with
# the seed, the persisted image attached by pc_attach. Sets $run_rc and $moment.
powercut_cycle() {
	local seed=$1
	moment=$(awk -v s="$seed" -v t="$at" 'BEGIN { srand(s); printf "%.2f", rand() * t }')
	pc_disk "$tag-$seed" "$mb" --seed "$seed" --destage-delay "$destage" --cache-size "$cache" || return 1
	pc_mkfs "$mopts" || return 1
	pc_run_cut "$profile" "$moment" "$log" --time "$time_s" --seed "$seed"
	run_rc=$pc_rc
	mv "$pc_out.json" "$pc_dir/$pc_name.run.json" 2>/dev/null
	mv "$pc_out.txt" "$pc_dir/$pc_name.run.txt" 2>/dev/null
	mv "$pc_out.err" "$pc_dir/$pc_name.run.err" 2>/dev/null
	pc_detach
}

# keep_evidence SEED: the image (unmounted first), the log and every output of the cycle, to
# CRASH_KEEP/broken-FS-SEED/.
keep_evidence() {
	local d=$keep/broken-$fs-$1
	mkdir -p "$d" || return 1
	if mountpoint -q "$pc_mnt"; then umount "$pc_mnt" && _pc_forget pc_mounts "$pc_mnt"; fi
	cp --sparse=always "$pc_img" "$d/" && cp "$log" "$d/" && cp "$profile" "$d/"
	cp "$pc_dir/$pc_name".* "$d/" 2>/dev/null
	echo "crash-cycles.sh: cycle $1: evidence kept in $d" >&2
}

printf '# %s %s barrier=%s (%s) time=%s at=[0,%s) image=%sMiB profile=%s fsmix=%s kernel=%s\n' \
	"$fs" "$mode" "$barrier" "${mopts:-defaults}" "$time_s" "$at" "$mb" "$profile" "$pc_fsmix" "$(uname -r)" >"$data"
printf '# seed at_s run_rc fsyncs osync replaces checked kept broken kinds lost_tail fsck verify_rc flushes dropped_KiB\n' >>"$data"
row() { printf '%-5s %-5s %-4s %-6s %-6s %-5s %-8s %-6s %-7s %-40s %-5s %-5s %-7s %-8s %s\n' "$@"; }
row seed at_s run acked osync repl checked kept broken "broken by kind" lost fsck verify flushes dropped | tee "$table"
failed=0
for ((i = 0; i < cycles; i++)); do
	seed=$((seed0 + i)) log=$pc_dir/$tag-$((seed0 + i)).durlog run_rc=- moment=-
	rm -f "$log"
	if ! ${mode}_cycle "$seed"; then
		echo "crash-cycles.sh: cycle $seed: cannot make, crash or detach the filesystem" >&2
		tail -3 "$pc_dir"/*.err 2>/dev/null >&2
		failed=1
		pc_cleanup
		continue
	fi
	# the disk's flushes and what the cut dropped from its cache (mode powercut)
	flushes=$(pc_stat flushes 2>/dev/null) dropped=$(pc_stat dropped_bytes 2>/dev/null)
	flushes=${flushes:--} dropped=${dropped:+$((dropped / 1024))} dropped=${dropped:--}
	if ! pc_attach; then
		echo "crash-cycles.sh: cycle $seed: the crashed image does not mount: $(tail -1 "$pc_dir/$pc_name.mount.err")" >&2
		row "$seed" "$moment" "$run_rc" - - - - - - unmountable - - - "$flushes" "$dropped" | tee -a "$table"
		echo "$seed $moment $run_rc - - - - - - unmountable - - - $flushes $dropped" >>"$data"
		[ "$strict" = 1 ] && failed=1
		pc_cleanup
		rm -f "$pc_img" "$log"
		continue
	fi
	pc_verify "$profile" "$log"
	j=$pc_dir/$pc_name.verify.json
	osync=$(jq -r '.acknowledged.osync_writes // "-"' "$j" 2>/dev/null) || osync=-
	repl=$(jq -r '.acknowledged.replace // "-"' "$j" 2>/dev/null) || repl=-
	kept=$(jq -r '.kept // "-"' "$j" 2>/dev/null) || kept=-
	lost=$(jq -r '.lost_tail // "-"' "$j" 2>/dev/null) || lost=-
	kinds=$(jq -r '[.broken_by_kind // {} | to_entries[] | select(.value > 0) | "\(.key):\(.value)"] | join(",")' "$j" 2>/dev/null)
	[ -n "$kinds" ] || kinds=-
	[ "$pc_checked" = - ] && kinds="no-verdict"
	fsck=$pc_fsck_errors
	[ "$pc_unmountable" = 1 ] && fsck="$fsck*"
	row "$seed" "$moment" "$run_rc" "$pc_acked" "$osync" "$repl" "$pc_checked" "$kept" "$pc_broken" "$kinds" "$lost" "$fsck" "$pc_verify_rc" "$flushes" "$dropped" | tee -a "$table"
	echo "$seed $moment $run_rc $pc_acked $osync $repl $pc_checked $kept $pc_broken $kinds $lost $fsck $pc_verify_rc $flushes $dropped" >>"$data"
	bad=0
	if [ "$pc_checked" = - ] || { [ "$pc_broken" != 0 ] && [ "$pc_broken" != - ]; }; then bad=1; fi
	[ "$pc_checked" = - ] && tail -3 "$pc_dir/$pc_name.verify" >&2
	# a run that did not end as a crash: --crash-after exits 0 ("crashed"); after a power cut
	# fsmix ends with 1 (EIO) or, when the cut missed its calls, 0
	if [ "$mode" = shutdown ] && [ "$run_rc" != 0 ]; then
		echo "crash-cycles.sh: cycle $seed: fsmix run exit $run_rc:" >&2
		tail -3 "$pc_dir/$pc_name.run.err" >&2
		failed=1
	fi
	if [ "$bad" = 1 ] && [ "$strict" = 1 ]; then
		failed=1
		[ -n "$keep" ] && keep_evidence "$seed"
	elif [ "$bad" = 1 ] && [ -n "$keep" ] && [ -n "${CRASH_KEEP_ALL:-}" ]; then
		keep_evidence "$seed"
	fi
	pc_release
	rm -f "$log"
done

awk '!/^#/ { n++; if ($7 == "-") nv++; else { a += $4; o += $5 == "-" ? 0 : $5; r += $6 == "-" ? 0 : $6; c += $7; k += $8; b += $9; if ($9 > 0) hit++; l += $11 == "-" ? 0 : $11 }
	if ($15 ~ /^[0-9]+$/) { d += $15; nd++ }
	if ($12 ~ /^[0-9]/ && $12 + 0 > 0) f++
	m = split($10, kk, ","); for (x = 1; x <= m; x++) if (split(kk[x], p, ":") == 2) kind[p[1]] += p[2] }
	END {
		s = ""; for (q in kind) s = s (s == "" ? "" : ",") q ":" kind[q]
		printf "total: %d cycles (%d without a verdict), %d fsyncs and fdatasyncs, %d O_SYNC/O_DSYNC writes and %d replaces acknowledged; %d promises checked, %d kept, %d broken (in %d cycles)%s, %d lost tail; checker problems in %d cycles\n",
			n, nv, a, o, r, c, k, b, hit, s == "" ? "" : " by kind " s, l, f
		if (nd) printf "the cuts dropped %d KiB from the disk cache in all (mean %.0f KiB)\n", d, d / nd
	}' "$data" | tee -a "$table"
echo "$fs, $mode, barrier $barrier (${mopts:-defaults}), $(uname -r); table: $table, data: $data" >&2
exit $failed
