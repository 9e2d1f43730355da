#!/usr/bin/env bash
# Device flush counters (src/measure/devstat.c through tests/tools/devstat_probe): an fsync-heavy
# workload on loop-mounted ext4 sends cache flushes ("barriers", the 2010 experiment's measure)
# with the default options and none with barrier=0; tmpfs has no counters and says why.
# The ext4 parts need root and a loop device, otherwise they are skipped.
set -u
. "$(dirname "$0")/lib.bash"

tools=${FSMIX_TOOLS:-}
probe=$tools/devstat_probe writer=$tools/fsync_writer
if [ -z "$tools" ] || [ ! -x "$probe" ] || [ ! -x "$writer" ]; then
	skip_env tool "FSMIX_TOOLS (the built tests/tools) not set"
	summary
fi
n=200 # fsyncs per run, each after a 4 KiB append

val() { sed -n "s/^$1=//p" "$2"; }
isnum() { [[ $1 =~ ^[0-9]+$ ]]; }

# fsync_run NAME DIR: the workload under the probe; its output is in $work/NAME.out.
fsync_run() {
	"$probe" "$2" -- "$writer" "$2/fsync.dat" "$n" >"$work/$1.out" 2>"$work/$1.err"
}

# queue_info OUT: "write_cache=..., fua=..." of the probed device, for the log.
queue_info() {
	local q dev
	dev=$(val device "$1")
	q=/sys/class/block/${dev%% *}/queue
	[ -r "$q/write_cache" ] && echo "write cache: $(cat "$q/write_cache"), fua: $(cat "$q/fua" 2>/dev/null)"
}

if mount_ext4 "$work/barrier" 64; then
	fsync_run barrier "$work/barrier"
	rc=$? out=$work/barrier.out
	f=$(val flush_ios "$out") w=$(val write_ios "$out")
	echo "     ext4 default ($(val options "$out")) on $(val device "$out"): $f flushes, $w writes for $n fsyncs; $(queue_info "$out")"
	if [ $rc -eq 0 ] && [ "$(val fstype "$out")" = ext4 ] && [[ $(val device "$out") == loop* ]]; then
		ok "ext4 (loop): probed as ext4 on a loop device"
	else
		bad "ext4 probe: exit $rc"; sed 's/^/     /' "$out" "$work/barrier.err"
	fi
	# Each fsync commits a journal transaction whose commit block is written with
	# PREFLUSH|FUA; a loop device has a write-back cache and no FUA, so the block layer sends
	# a flush before and after it: 2 per fsync here, 1 on a disk with FUA.
	if isnum "$f" && isnum "$w" && [ "$w" -ge "$n" ] && [ "$f" -ge $((n / 2)) ] && [ "$f" -le $((4 * n)) ]; then
		ok "ext4 with barriers: $f flushes for $n fsyncs ($(awk -v f="$f" -v n="$n" 'BEGIN { printf "%.2f", f / n }') per fsync)"
	else
		bad "ext4 with barriers: flush_ios=$f write_ios=$w, expected $((n / 2))..$((4 * n)) flushes and >= $n writes"
	fi
else
	skip_env loop "ext4 with barriers: no loop device or mkfs.ext4 here (needs root)"
fi

if mount_ext4 "$work/nobarrier" 64 barrier=0; then
	fsync_run nobarrier "$work/nobarrier"
	rc=$? out=$work/nobarrier.out
	f=$(val flush_ios "$out") w=$(val write_ios "$out")
	echo "     ext4 barrier=0 ($(val options "$out")) on $(val device "$out"): $f flushes, $w writes for $n fsyncs"
	if [ $rc -eq 0 ] && [[ ,$(val options "$out"), == *,nobarrier,* ]]; then
		ok "ext4 barrier=0: the mount options say nobarrier"
	else
		bad "ext4 barrier=0 probe: exit $rc, options '$(val options "$out")'"; sed 's/^/     /' "$work/nobarrier.err"
	fi
	# The writes must reach the device (else 0 flushes proves nothing), the flushes must not.
	if isnum "$f" && isnum "$w" && [ "$w" -ge "$n" ] && [ "$f" -le 5 ]; then
		ok "ext4 barrier=0: $f flushes for $n fsyncs"
	else
		bad "ext4 barrier=0: flush_ios=$f write_ios=$w, expected <= 5 flushes and >= $n writes"
	fi
else
	skip_env loop "ext4 barrier=0: no loop device or mkfs.ext4 here (needs root)"
fi

shm=$(shmdir)
fsync_run tmpfs "$shm"
rc=$? out=$work/tmpfs.out
echo "     tmpfs: device=$(val device "$out"); flush_ios=$(val flush_ios "$out")"
if [ $rc -eq 0 ] && [ "$(val fstype "$out")" = tmpfs ] && [[ $(val device "$out") == "n/a: "*tmpfs* ]] &&
	[[ $(val flush_ios "$out") == "n/a: "*tmpfs* ]] && grep -qx "fsyncs=$n" "$out"; then
	ok "tmpfs: counters n/a, with the reason"
else
	bad "tmpfs: exit $rc"; sed 's/^/     /' "$out" "$work/tmpfs.err"
fi

# A failing command's status is passed on, and the counters are still printed.
"$probe" "$shm" -- false >"$work/false.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -qx "status=1" "$work/false.out"; then
	ok "the probe passes the command's exit status on"
else
	bad "probe -- false: exit $rc"; sed 's/^/     /' "$work/false.out"
fi
summary
