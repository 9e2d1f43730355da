#!/usr/bin/env bash
# bench_uring_cpu.sh - where the CPU of the fsync bench goes (issue 29; docs/engines.md, "Where
# the CPU goes"): the scaled 2010 profile on a loop ext4 image on the disk, as bench_depth.sh's
# fsync mode, once with BENCH_SYNC_THREADS (32) threads of engine=sync and once with one thread
# of engine=io_uring at iodepth BENCH_FSYNC_DEPTH (32). perf records BENCH_SECONDS (4) s of each
# timed run (from 1 s after its "fsmix: running" line; cpu-clock at 4000 Hz, call graphs, io-wq's
# threads inherited) and the samples are sorted by where they are:
#
#   wq:CALL          an io-wq worker (iou-wrk-*) doing the call (write, fsync, openat, ...);
#                    "(sched)": asleep inside it (a direct write's I/O, fsync's journal commit)
#   wq:sched/idle    an io-wq worker outside a call: going to sleep, being woken for the next
#   enter:submit:inline:CALL  io_uring_enter submitting a call the kernel completes inline
#   enter:submit:punt         io_uring_enter handing a call to io-wq (waking a worker)
#   enter:wait:taskwork       io_uring_enter waiting, running task work (completions, io-wq's
#                             requests for another worker)
#   enter:wait:sched          io_uring_enter waiting: the worker's thread asleep and woken
#   enter:other               the rest of io_uring_enter
#   syscall:NAME     a system call other than io_uring_enter (every call of engine=sync)
#   user             user space
#
# Prints each arm's transactions/s, CPU per transaction (the JSON's, the whole run) and the
# sample counts per place, and the samples per transaction. Needs root, perf (Debian:
# linux-perf), mkfs.ext4, losetup, jq; the image goes in BENCH_IMG_DIR (default /tmp). One run
# per arm: a picture, not a ratio (bench_depth.sh measures the ratios). Asserts nothing.
#
#   bash tests/bench/bench_uring_cpu.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
fsmix=$build/src/fsmix
secs=${BENCH_SECONDS:-4}
depth=${BENCH_FSYNC_DEPTH:-32}
st=${BENCH_SYNC_THREADS:-32}
prof=$top/profiles/ext4-barrier-2010.ffsb
scaled=(--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100)
[ -x "$fsmix" ] || { echo "bench_uring_cpu.sh: no fsmix in $build/src" >&2; exit 2; }
for t in perf jq mkfs.ext4 losetup; do
	command -v $t >/dev/null || { echo "bench_uring_cpu.sh: needs $t: skipped"; exit 0; }
done
[ "$(id -u)" = 0 ] || { echo "bench_uring_cpu.sh: needs root (a loop ext4): skipped"; exit 0; }

# the scratch filesystems, unmounted and removed on exit (bench-fs.bash): the image on the disk
# (BENCH_IMG_DIR, default /tmp), the runs' outputs and perf's data on tmpfs
bench_tag=cpu bench_ext4_mb=2048
. "$top/tests/bench/bench-fs.bash"
ext4_mount || { echo "bench_uring_cpu.sh: cannot make the loop ext4"; exit 3; }

# sort_samples: perf script's samples (comm, then the call chain, innermost first) on stdin;
# "COUNT PLACE" lines, most first.
sort_samples() {
	awk '
	function call(s) {
		if (s ~ / io_fsync/) return "fsync"; if (s ~ / io_write/) return "write"
		if (s ~ / io_openat/) return "openat"; if (s ~ / io_read/) return "read"
		if (s ~ / io_unlinkat/) return "unlinkat"; if (s ~ / io_statx/) return "statx"
		if (s ~ / io_close/) return "close"; return "other"
	}
	function flush(   c, s, p) {
		if (!n) return
		c = comm; s = stack
		if (c ~ /^iou-wrk/) {
			if (s ~ /io_issue_sqe/) p = "wq:" call(s) (s ~ / schedule/ ? "(sched)" : "")
			else p = "wq:sched/idle"
		} else if (s !~ /do_syscall_64/) p = "user"
		else if (s ~ /io_uring_enter/) {
			if (s ~ /io_cqring_wait/) p = s ~ /task_work_run/ ? "enter:wait:taskwork" : "enter:wait:sched"
			else if (s ~ /io_wq_enqueue|io_queue_iowq/) p = "enter:submit:punt"
			else if (s ~ /io_issue_sqe/) p = "enter:submit:inline:" call(s)
			else p = "enter:other"
		} else if (match(s, / __(x64|do)_sys_[a-z0-9_]+| ksys_[a-z0-9_]+/)) {
			p = substr(s, RSTART + 1, RLENGTH - 1); sub(/^(__x64_sys_|__do_sys_|ksys_)/, "", p)
			p = "syscall:" p
		} else p = "syscall:other"
		cnt[p]++; n = 0; stack = ""
	}
	/^[^ \t]/ { flush(); comm = $1; n = 1; next }
	/^[ \t]+[0-9a-f]+ / { stack = stack " " $2; next }
	END { flush(); for (k in cnt) print cnt[k], k }' | sort -rn
}

# arm NAME ARGS...: one run, perf on its timed part; prints the figures.
arm() {
	local name=$1 pid
	shift
	"$fsmix" run "$prof" --location "$mnt" --time $((secs + 3)) "${scaled[@]}" --build-threads 1 \
		--json "$work/$name.json" "$@" >/dev/null 2>"$work/$name.err" &
	pid=$!
	until grep -q '^fsmix: running' "$work/$name.err" 2>/dev/null; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	sleep 1
	perf record -q -g -F 4000 -p $pid -o "$work/$name.data" -- sleep "$secs" >/dev/null 2>&1
	wait $pid || { echo "  $name: the run failed"; tail -3 "$work/$name.err"; return; }
	"$fsmix" clean "$prof" --location "$mnt" >/dev/null 2>&1
	local tps cpt
	read -r tps cpt < <(jq -r '"\(.total.trans_per_s) \((.cpu.user_s + .cpu.sys_s) / .total.transactions * 1e6)"' "$work/$name.json")
	perf script -i "$work/$name.data" -F comm,ip,sym 2>/dev/null | sort_samples >"$work/$name.places"
	local total
	total=$(awk '{ t += $1 } END { print t }' "$work/$name.places")
	printf '%s: %.0f transactions/s, %.1f us CPU per transaction (whole run); %d samples in %s s (%.3f per transaction)\n' \
		"$name" "$tps" "$cpt" "$total" "$secs" "$(echo "$total / ($tps * $secs)" | bc -l)"
	awk -v t="$total" '{ printf "  %6d %5.1f%%  %s\n", $1, 100 * $1 / t, $2 }' "$work/$name.places"
	# the hand-offs: what a call costs for going through the ring and io-wq, not for its work
	awk -v t="$total" -v tx="$(echo "$tps * $secs" | bc -l)" '
		$2 ~ /^(wq:sched\/idle|enter:wait:|enter:submit:punt|enter:other)/ { h += $1 }
		END { if (h) printf "  hand-offs %d samples (%.1f%%, %.3f per transaction); the rest %.3f per transaction\n", h, 100 * h / t, h / tx, (t - h) / tx }' \
		"$work/$name.places"
}

echo "bench_uring_cpu: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); fsmix $fsmix"
arm "sync-${st}thr" --threads "$st"
arm "uring-d$depth" --threads 1 --set threadgroup0.engine=io_uring --set "threadgroup0.iodepth=$depth"
exit 0
