#!/usr/bin/env bash
# bench_depth.sh - engine=io_uring at a depth above 1 against engine=sync and against fio (issue
# 29, item 4; docs/engines.md, "Measured"). Prints figures and whether each target is met;
# asserts nothing (exit 0 unless the usage is wrong).
#
#   bash tests/bench/bench_depth.sh [fsync|mixes|data|calls|versus|all] [BUILD_DIR]
#
#   fsync   the 2010 profile (profiles/ext4-barrier-2010.ffsb) scaled to 2000 files / 100 dirs,
#           on a loop-mounted ext4 image in a directory on the disk (BENCH_DISK_DIR, default
#           /tmp; never tmpfs), unmounted on exit: one thread of engine=io_uring at iodepth
#           BENCH_FSYNC_DEPTH (32) against BENCH_SYNC_THREADS (32) threads of engine=sync.
#           Targets (io_uring/sync): transactions/s >= 0.9, CPU seconds per transaction
#           <= 0.5 (the JSON's cpu: user + system of the whole process during the timed run,
#           io_uring's kernel threads included), private memory above the floor <= 0.25 (private:
#           the largest sampled every 50 ms during the timed run, its report left out, of the
#           anonymous mappings' and io_uring rings' RSS without the per-CPU read sinks, which
#           the scheduler decides, and without file pages: smaps_rss.awk; the floor: that of one
#           sync thread, what the process holds whatever its threads, the mean of a run before
#           the rounds and one after; also shown: the largest VmRSS sampled alike and
#           /usr/bin/time's %M, the whole process's peak, which the tree's build dominates).
#   mixes   stat-only (tests/bench/stat-only.ffsb) and read-only (random 4 KiB reads of 1000
#           files of 64 KiB, bench_uring.sh's) on tmpfs, one thread: io_uring at iodepth
#           BENCH_MIX_DEPTH (16) against sync: ops/s and ops per CPU-second (no target: issue
#           29 asks for the figure, "honestly even where io_uring loses").
#   data    4 KiB random writes, each followed by fdatasync, to one file of BENCH_DATA_MB (64)
#           MiB, on the loop ext4 and on tmpfs: fsmix (engine=io_uring) against fio
#           (--ioengine=io_uring --rw=randwrite --bs=4k --fdatasync=1) at each depth of
#           BENCH_DATA_DEPTHS ("1 16"), same file size, same run length. Target: fsmix IOPS
#           >= 0.95 x fio's. Skipped without fio (not needed by any test: apt-get install fio).
#           At depth 1 fsmix runs fio's loop: sequence=open,write,fdatasync,close with
#           sequence_hold=1 (where the build has the key), its file opened once and kept open,
#           each op one write at a random 4 KiB-aligned offset and its fdatasync: fio's
#           requests (through io_uring fsmix enters the kernel twice per op, submitting and
#           waiting in one call, fio four times: see calls); then, as an extra line, the per-op
#           write_fdatasync,
#           which opens and closes its file every op (FFSB's write op: not fio's calls). At a
#           depth above 1 the per-op arm only (sequence_hold refuses iodepth above 1: the held
#           file is the thread's, one operation at a time), with shared_writes=1 where the build
#           has the key (its writes in flight share the file), and also over as many files as
#           the depth, sharing the size.
#   calls   strace -f -c of the data job, 2 s each: fsmix's held sequence and per-op arm (sync
#           and io_uring each) and fio (psync and io_uring): the system calls per operation.
#   versus  the sync engine against the baseline binary (BENCH_OLD_BUILD, default
#           /work/old-build): bench_engine.sh versus, with its rounds and noise.
#   all     fsync, mixes, data, calls.
#
# Every comparison runs in BENCH_REPS rounds (default 4) of four runs of BENCH_SECONDS (default 4)
# each: A-B-B-A, then B-A-A-B (a drift of the shared machine weighs on both arms alike). Per
# round the ratio B/A of the two runs' sums; printed: each arm's median, the median ratio with its
# distribution-free confidence interval (order statistics; with 5 rounds or fewer, the whole
# range of the rounds), the A/A noise (median |second run / first run - 1| of one arm within a
# round), the rounds, the target and whether the median ratio meets it.
#
# Depth: the profile key iodepth (threadgroup0.iodepth=N). A build without it refuses the key;
# then a comparison at a depth above 1 prints "skipped" and one at depth 1 runs without the key.
# So BENCH_FSYNC_DEPTH=1 BENCH_MIX_DEPTH=1 measure io_uring at depth 1 on any build.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-all}
build=${2:-$top/build}
fsmix=$build/src/fsmix
reps=${BENCH_REPS:-4}
secs=${BENCH_SECONDS:-4}
diskdir=${BENCH_DISK_DIR:-/tmp}
prof2010=$top/profiles/ext4-barrier-2010.ffsb
scaled=(--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100)

case $mode in fsync | mixes | data | calls | versus | all) ;; *)
	echo "usage: bench_depth.sh [fsync|mixes|data|calls|versus|all] [BUILD_DIR]" >&2
	exit 2 ;;
esac
[ -x "$fsmix" ] || { echo "bench_depth.sh: no fsmix in $build/src" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench_depth.sh: needs jq" >&2; exit 2; }

work=$(mktemp -d "$diskdir/fsmix-bench-depth.XXXXXX")
shm=$(mktemp -d /dev/shm/fsmix-bench-depth.XXXXXX)
mnt=$work/mnt
loopdev=
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" || umount -l "$mnt"; fi
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	rm -rf "$work" "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the loop ext4 (mounted once, for fsync and data) ----

# ext4_up: $mnt is an ext4 on a loop device over an image in $work (on the disk: a fsync
# reaches the disk's cache flush). Returns 1 with a message when it cannot be made.
ext4_up() {
	mountpoint -q "$mnt" && return 0
	if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null || ! command -v losetup >/dev/null; then
		echo "  skipped: a loop ext4 needs root, mkfs.ext4 and losetup"
		return 1
	fi
	if [ "$(stat -f -c %T "$work")" = tmpfs ]; then
		echo "  skipped: $diskdir is tmpfs (BENCH_DISK_DIR: a directory on the disk)"
		return 1
	fi
	truncate -s "${BENCH_IMG_MB:-2048}M" "$work/ext4.img" &&
		mkfs.ext4 -q -F "$work/ext4.img" >/dev/null 2>&1 &&
		loopdev=$(losetup -f --show "$work/ext4.img") && mkdir -p "$mnt" &&
		mount -t ext4 "$loopdev" "$mnt" || { echo "  skipped: cannot make the loop ext4"; return 1; }
}

# ---- depth ----

has_key() { "$fsmix" keys 2>/dev/null | grep -qE "^[[:space:]]+$1[[:space:]]"; }
has_iodepth() { has_key iodepth; }

# depth_args N: the --set for depth N on stdout; 1 (and a message) when this build cannot run it.
depth_args() {
	if has_iodepth; then
		echo "--set threadgroup0.iodepth=$1"
	elif [ "$1" -ne 1 ]; then
		echo "  skipped: this fsmix has no key iodepth (depth $1); BENCH_*_DEPTH=1 measures depth 1" >&2
		return 1
	fi
}

# ---- ABBA rounds and their statistics ----

# abba A B NMETRIC: BENCH_REPS rounds of A-B-B-A / B-A-A-B; A and B are commands (shell
# functions) printing one run's NMETRIC figures on one line, or nothing when the run failed.
# Leaves, per metric k, $work/p.k: one line per round "a1 b1 b2 a2" (A's runs first and last,
# whatever the order they ran in: paired's layout). Returns 1 when a run failed.
abba() {
	local a=$1 b=$2 n=$3 i k x
	for ((k = 1; k <= n; k++)); do : >"$work/p.$k"; done
	for ((i = 0; i < reps; i++)); do
		local order=(A B B A) ra=() rb=() line
		((i % 2)) && order=(B A A B)
		for x in "${order[@]}"; do
			if [ "$x" = A ]; then line=$($a); else line=$($b); fi
			[ -n "$line" ] || return 1
			if [ "$x" = A ]; then ra+=("$line"); else rb+=("$line"); fi
		done
		for ((k = 1; k <= n; k++)); do
			echo "$(echo "${ra[0]}" | cut -d' ' -f$k) $(echo "${rb[0]}" | cut -d' ' -f$k)" \
				"$(echo "${rb[1]}" | cut -d' ' -f$k) $(echo "${ra[1]}" | cut -d' ' -f$k)" >>"$work/p.$k"
		done
	done
}

# paired: stdin one line per round "a1 b1 b2 a2"; the round's ratio is (b1 + b2) / (a1 + a2).
# Prints: median A, median B (of the rounds' means), the median ratio, the distribution-free
# confidence interval of the median ratio [r(k), r(n+1-k)] (k the largest with
# P(Binomial(n, 1/2) < k) <= 2.5 %; for n <= 5 the whole range), its confidence in %, and the
# A/A noise (median over rounds and arms of |second run / first run - 1|). As bench_engine.sh's.
paired() {
	awk '{ r[NR] = ($2 + $3) / ($1 + $4); oa[NR] = ($1 + $4) / 2; na[NR] = ($2 + $3) / 2
	       a1 = $1 ? $4 / $1 - 1 : 0; a2 = $2 ? $3 / $2 - 1 : 0
	       aa[2 * NR - 1] = a1 < 0 ? -a1 : a1; aa[2 * NR] = a2 < 0 ? -a2 : a2 }
	function sortv(v, m,   i, j, t) { for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t } }
	function med(v, m) { return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
	END {
		m = NR; if (!m) { print "0 0 0 0 0 0 0"; exit }
		sortv(r, m); sortv(oa, m); sortv(na, m); sortv(aa, 2 * m)
		k = 1; cum = 0; p = 0.5 ^ m; conf = 1 - 2 * p
		for (j = 0; j < m; j++) {
			cum += p; if (cum > 0.025) break
			k = j + 1; conf = 1 - 2 * cum; p = p * (m - j) / (j + 1)
		}
		printf "%.6g %.6g %.4f %.4f %.4f %.1f %.4f\n", med(oa, m), med(na, m), med(r, m), r[k], r[m + 1 - k], 100 * conf, med(aa, 2 * m)
	}'
}

# header A_NAME B_NAME: the table's head.
header() {
	printf '  %-26s %14s %14s %7s %22s %8s %6s  %s\n' metric "$1" "$2" B/A "CI of B/A" "A/A" rounds target
}

# row LABEL K TARGET: one metric's line from $work/p.K; TARGET ">=0.9", "<=0.5" or "-".
row() {
	local a b r lo hi conf aa verdict=""
	read -r a b r lo hi conf aa <<<"$(paired <"$work/p.$2")"
	case $3 in
	">="*) awk -v r="$r" -v t="${3#>=}" 'BEGIN { exit !(r >= t) }' && verdict="met" || verdict="NOT met" ;;
	"<="*) awk -v r="$r" -v t="${3#<=}" 'BEGIN { exit !(r <= t) }' && verdict="met" || verdict="NOT met" ;;
	esac
	printf '  %-26s %14.6g %14.6g %7.3f %4.0f%% [%6.3f, %6.3f] %7.1f%% %6d  %s %s\n' "$1" "$a" "$b" "$r" \
		"$conf" "$lo" "$hi" "$(echo "100 * $aa" | bc -l)" "$reps" "$3" "$verdict"
}

# ---- fsync: the scaled 2010 profile on the loop ext4 ----

# stamp: stdin's lines, each after the time it was read (µs since the epoch, bash's
# EPOCHREALTIME: no process per line), so that a line's time is when fsmix wrote it, however
# late a sampler looks at the file.
stamp() {
	local l
	while IFS= read -r l; do printf '%s %s\n' "${EPOCHREALTIME/[.,]/}" "$l"; done
}

# run_2010 ARGS...: one run; "trans/s cpu_s/trans vmrss_kB peak_rss_kB private_kB", nothing on
# failure. Sampled every 50 ms during the timed run, from its "fsmix: running" line (the time
# fsmix wrote it) until BENCH_SECONDS - 0.3 s after it, a sample counting only when it ended
# before that (the report, which follows the run at once, mallocs some 800 kB of statistics
# copies that a sample taken after the run's end would count): vmrss, the largest VmRSS;
# private, the largest private memory (smaps_rss.awk: the anonymous mappings without the read
# sinks, no file pages), what the threads or the operations in flight hold. peak_rss:
# /usr/bin/time's, the whole process's maximum, the tree's build and report included.
run_2010() {
	: >"$work/err"
	/usr/bin/time -f %M -o "$work/rss" "$fsmix" run "$prof2010" --location "$mnt" --time "$secs" \
		"${scaled[@]}" --build-threads 1 --json "$work/j" "$@" >"$work/out" 2> >(stamp >"$work/err") &
	# times in µs
	local tpid=$! pid="" peak=0 priv=0 r p l t0="" stop=$((secs * 1000000 - 300000))
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$pid" ] || pid=$(pgrep -P "$tpid" -x fsmix)
		if [ -z "$t0" ] && [ -n "$pid" ] && l=$(grep -m1 '^[0-9]* fsmix: running' "$work/err"); then
			t0=${l%% *}
		fi
		if [ -n "$t0" ]; then
			r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
			p=$(awk -f "$top/tests/bench/smaps_rss.awk" "/proc/$pid/smaps" 2>/dev/null | cut -d' ' -f1)
			if ((${EPOCHREALTIME/[.,]/} - t0 < stop)); then
				[ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
				[ -n "$p" ] && [ "$p" -gt "$priv" ] && priv=$p
			fi
		fi
		sleep 0.05
	done
	wait "$tpid" || {
		echo "  run failed: fsmix run ... $*" >&2
		tail -3 "$work/err" | cut -d' ' -f2- >&2
		return
	}
	"$fsmix" clean "$prof2010" --location "$mnt" >/dev/null 2>&1
	echo "$(jq -r '"\(.total.trans_per_s) \((.cpu.user_s + .cpu.sys_s) / .total.transactions)"' "$work/j") $peak $(tail -1 "$work/rss") $priv"
}

fsync_bench() {
	local depth=${BENCH_FSYNC_DEPTH:-32} st=${BENCH_SYNC_THREADS:-32} dargs
	echo "fsync: 2010 profile, 2000 files / 100 dirs, loop ext4 on $diskdir, $secs s runs:" \
		"A = $st threads engine=sync, B = 1 thread engine=io_uring iodepth=$depth"
	/usr/bin/time true 2>/dev/null || { echo "  skipped: needs /usr/bin/time (apt-get install time)"; return; }
	ext4_up || return
	dargs=$(depth_args "$depth") || return
	arm_a() { run_2010 --threads "$st"; }
	# shellcheck disable=SC2086 # dargs: zero or two words
	arm_b() { run_2010 --threads 1 --set threadgroup0.engine=io_uring $dargs; }
	# The floor: what the process holds whatever its threads (binary, libraries, the tree's pool):
	# the timed run's private memory of one sync thread, a run before the rounds and one after,
	# averaged (measured as the arms are: run_2010's private).
	local f1 f2 floor
	f1=$(run_2010 --threads 1 | cut -d' ' -f5)
	abba arm_a arm_b 5 || { echo "  stopped: a run failed"; return; }
	f2=$(run_2010 --threads 1 | cut -d' ' -f5)
	[ -n "$f1" ] && [ -n "$f2" ] || { echo "  stopped: a floor run failed"; return; }
	floor=$(((f1 + f2) / 2))
	# metric 6: the private memory above the floor, i.e. what the threads or the operations in
	# flight cost (the process's own floor is the same in both arms and is no per-operation cost)
	awk -v f="$floor" '{ for (i = 1; i <= 4; i++) { $i -= f; if ($i < 1) $i = 1 } print }' \
		"$work/p.5" >"$work/p.6"
	header "sync ${st}thr" "uring d$depth"
	row "transactions/s" 1 ">=0.9"
	row "CPU s per transaction" 2 "<=0.5"
	row "VmRSS of the timed run" 3 "-"
	row "peak RSS, whole process" 4 "-"
	row "private mem. (kB)" 5 "-"
	row "private above floor (kB)" 6 "<=0.25"
	echo "  the floor, one sync thread's private memory in the timed run: $f1 kB before the rounds, $f2 kB after"
	echo "  (private: anonymous memory and io_uring's rings, the read sinks and file pages left out:"
	echo "  tests/bench/smaps_rss.awk; VmRSS counts both, which move by some 0.5 MB between runs)"
}

# ---- mixes: stat-only and read-only on tmpfs ----

# run_mix PROFILE ARGS...: "ops/s ops_per_cpu_s", nothing on failure.
run_mix() {
	local p=$1
	shift
	"$fsmix" run "$p" --location "$shm" --time "$secs" --json "$work/j" "$@" >/dev/null 2>"$work/err" ||
		{ echo "  run failed: fsmix run $p $*" >&2; tail -3 "$work/err" >&2; return; }
	jq -r '"\(.total.ops_per_s) \(.total.operations / ((.cpu.user_s + .cpu.sys_s) | if . > 0 then . else 1e-9 end))"' "$work/j"
}

mixes_bench() {
	local depth=${BENCH_MIX_DEPTH:-16} dargs p
	echo "mixes: one thread on tmpfs, $secs s runs: A = engine=sync, B = engine=io_uring iodepth=$depth"
	dargs=$(depth_args "$depth") || return
	for p in "$top/tests/bench/stat-only.ffsb" "$top/tests/bench/read-only.ffsb"; do
		"$fsmix" run "$p" --location "$shm" --time 0 >/dev/null 2>&1 # build once (reuse=1)
		arm_a() { run_mix "$p"; }
		# shellcheck disable=SC2086
		arm_b() { run_mix "$p" --set threadgroup0.engine=io_uring $dargs; }
		echo " $(basename "$p" .ffsb):"
		abba arm_a arm_b 2 || { echo "  stopped: a run failed"; continue; }
		header sync "uring d$depth"
		row "ops/s" 1 "-"
		row "ops per CPU-second" 2 "-"
		"$fsmix" clean "$p" --location "$shm" >/dev/null 2>&1
	done
}

# ---- data: 4 KiB random writes with fdatasync, fsmix against fio ----

# write_data_profile FILE_SIZE FILES [held]: the fsmix side. Default, the per-op arm:
# write_fdatasync only (open, lseek, one 4 KiB write at a random 4 KiB-aligned offset,
# fdatasync, close, every op), with shared_writes=1 where the build has the key. "held": fio's
# loop, a sequence open,write,fdatasync,close with sequence_hold=1 (the file opened once per
# thread and kept open; each op one 4 KiB write at a random 4 KiB-aligned offset and its
# fdatasync), depth 1 only (sequence_hold refuses iodepth above 1).
write_data_profile() {
	local ops
	ops="	$(has_key shared_writes && echo shared_writes=1)
	write_fdatasync_weight=1
	write_random=1"
	[ "${3:-}" = held ] && ops="	sequence=open,write,fdatasync,close
	sequence_hold=1"
	cat >"$work/data.ffsb" <<EOF
time=3
alignio=1
[filesystem0]
	location=/dev/shm
	num_files=$2
	num_dirs=1
	min_filesize=$1
	max_filesize=$1
	reuse=1
[end0]
[threadgroup0]
	num_threads=1
$ops
	write_size=4KB
	write_blocksize=4KB
	[stats]
		enable_stats=0
	[end]
[end0]
EOF
}

# run_fsmix_data DIR DEPTH_ARGS...: "ops/s", nothing on failure.
run_fsmix_data() {
	local d=$1
	shift
	"$fsmix" run "$work/data.ffsb" --location "$d" --time "$secs" --json "$work/j" \
		--set threadgroup0.engine=io_uring "$@" >/dev/null 2>"$work/err" ||
		{ echo "  run failed: fsmix run data.ffsb $*" >&2; tail -3 "$work/err" >&2; return; }
	jq -r '.total.ops_per_s' "$work/j"
}

# fio_args DIR DEPTH [ENGINE [FILES]]: fio's job, the same as the fsmix profile's: one file of
# $size, or FILES files sharing it (fio's size is the total).
fio_args() {
	local where="--filename=$1/fio.dat"
	[ "${4:-1}" -gt 1 ] && where="--directory=$1 --nrfiles=$4 --filename_format=fio.\$filenum"
	echo --name=data $where --size="$size" --rw=randwrite --bs=4k \
		--ioengine="${3:-io_uring}" --iodepth="$2" --fdatasync=1 --overwrite=1 --time_based --runtime="$secs" \
		--norandommap --randrepeat=0 --output-format=json
}

# run_fio DIR DEPTH [FILES]: "IOPS" (writes per second), nothing on failure.
run_fio() {
	# shellcheck disable=SC2046
	fio $(fio_args "$1" "$2" io_uring "${3:-1}") >"$work/fio.json" 2>"$work/err" ||
		{ echo "  fio failed" >&2; tail -3 "$work/err" >&2; return; }
	jq -r '.jobs[0].write.iops' "$work/fio.json"
}

size=${BENCH_DATA_MB:-64}MB

data_bench() {
	local d fs depth dargs
	echo "data: 4 KiB random writes + fdatasync, $size in all, $secs s runs:" \
		"A = fio 3 --ioengine=io_uring --fdatasync=1, B = fsmix engine=io_uring: at depth 1 the held" \
		"sequence (fio's calls), then the per-op write_fdatasync (an extra line); above 1 per-op"
	command -v fio >/dev/null || { echo "  skipped: no fio (apt-get install fio)"; return; }
	for fs in ext4 tmpfs; do
		if [ $fs = ext4 ]; then
			echo " loop ext4:"
			ext4_up || continue
			d=$mnt/data
		else
			echo " tmpfs:"
			d=$shm/data
		fi
		mkdir -p "$d"
		local nf cases=()
		for depth in ${BENCH_DATA_DEPTHS:-1 16}; do
			# At depth 1 fio's loop first (held: the file opened once, one write and one
			# fdatasync per op, as fio's), where the build has sequence_hold; then the per-op
			# write_fdatasync, which opens and closes the file every op (extra: not fio's calls).
			[ "$depth" -eq 1 ] && has_key sequence_hold && cases+=("1 1 held")
			cases+=("$depth 1 perop")
			# An fsmix operation holds its file until it ends (the pool's lock: a pick of a file
			# in use is "busy"); with shared_writes=1 (where the build has it) the writes in
			# flight of the worker share it. At a depth above 1 also as many files as the
			# depth, the size shared (fio: --nrfiles).
			[ "$depth" -gt 1 ] && cases+=("$depth $depth perop")
		done
		local arm what
		for c in "${cases[@]}"; do
			read -r depth nf arm <<<"$c"
			write_data_profile "$((${BENCH_DATA_MB:-64} / nf))MB" "$nf" "$arm"
			what="per-op write_fdatasync (open + write + fdatasync + close each op)"
			[ "$arm" = held ] && what="held sequence (file opened once; write + fdatasync each op)"
			[ "$depth" -gt 1 ] && has_key shared_writes && what="$what, shared_writes=1"
			run_fio "$d" 1 "$nf" >/dev/null # lays fio's files out
			if ! dargs=$(depth_args "$depth" 2>/dev/null); then
				# fsmix cannot run this depth yet: fio's figure alone, for the record
				local i v=()
				for ((i = 0; i < reps; i++)); do v+=("$(run_fio "$d" "$depth" "$nf")"); done
				printf '  depth %-3s files %-3s fio IOPS %.0f (runs: %s); fsmix: skipped (no key iodepth)\n' "$depth" "$nf" \
					"$(printf '%s\n' "${v[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')" \
					"$(printf '%.0f ' "${v[@]}")"
				rm -f "$d"/fio.*
				continue
			fi
			arm_a() { run_fio "$d" "$depth" "$nf"; }
			# shellcheck disable=SC2086
			arm_b() { run_fsmix_data "$d" $dargs; }
			echo "  depth $depth, $nf file(s) of $((${BENCH_DATA_MB:-64} / nf)) MB, fsmix $what:"
			abba arm_a arm_b 1 || { echo "  stopped: a run failed"; rm -f "$d"/fio.*; continue; }
			header "fio" "fsmix"
			row "IOPS" 1 ">=0.95"
			"$fsmix" clean "$work/data.ffsb" --location "$d" >/dev/null 2>&1
			rm -f "$d"/fio.*
		done
	done
}

# ---- calls: what each side of data does, per operation ----

# strace_calls COMMAND...: "NAME COUNT" lines of the calls a data run makes (strace -f -c).
strace_calls() {
	strace -f -c -o "$work/strace" -e trace=openat,lseek,read,write,pwrite64,pwritev,fdatasync,fsync,close,io_uring_enter \
		"$@" >"$work/out" 2>/dev/null
	# strace's table: % time, seconds, usecs/call, calls, [errors,] syscall
	awk '$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { print $NF, $4 }' "$work/strace" | sort
}

calls_bench() {
	local d=$shm/calls n
	echo "calls: strace -f -c of the data job on tmpfs, depth 1, 2 s each (the whole process: fsmix's build"
	echo "  of its file and its report, fio's setup included); per operation = count / the run's operations"
	command -v strace >/dev/null || { echo "  skipped: no strace"; return; }
	command -v fio >/dev/null || { echo "  skipped: no fio"; return; }
	mkdir -p "$d"
	local e arm arms=(perop)
	has_key sequence_hold && arms=(held perop)
	for arm in "${arms[@]}"; do
		# held: fio's loop (the file opened once); perop: write_fdatasync, open to close each op
		write_data_profile 16MB 1 "$arm"
		for e in sync io_uring; do
			strace_calls "$fsmix" run "$work/data.ffsb" --location "$d" --time 2 --json "$work/j" \
				--set "threadgroup0.engine=$e" >"$work/c"
			n=$(jq -r .total.operations "$work/j")
			printf '  fsmix %-5s engine=%-9s %8s ops:' "$arm" "$e" "$n"
			awk -v n="$n" '{ printf " %s %.2f", $1, $2 / n }' "$work/c"
			echo
		done
	done
	"$fsmix" clean "$work/data.ffsb" --location "$d" >/dev/null 2>&1
	size=16MB
	# shellcheck disable=SC2046 # fio's file laid out first: the traced runs only write into it
	fio $(fio_args "$d" 1 psync | sed 's/--runtime=[0-9]*/--runtime=1/') >/dev/null 2>&1
	for e in psync io_uring; do
		# shellcheck disable=SC2046
		strace_calls fio $(fio_args "$d" 1 "$e" | sed 's/--runtime=[0-9]*/--runtime=2/') >"$work/c"
		n=$(jq -r '.jobs[0].write.total_ios' "$work/out" 2>/dev/null)
		printf '  fio --ioengine=%-7s %8s ops:' "$e" "$n"
		awk -v n="$n" '{ printf " %s %.2f", $1, $2 / n }' "$work/c"
		echo
	done
	size=${BENCH_DATA_MB:-64}MB
	rm -rf "$d"
}

versus_bench() {
	local old=${BENCH_OLD_BUILD:-/work/old-build}
	echo "versus: engine=sync against the baseline $old (bench_engine.sh versus)"
	[ -x "$old/src/fsmix" ] || { echo "  skipped: no $old/src/fsmix"; return; }
	BENCH_MIX_SECONDS=${BENCH_MIX_SECONDS:-$secs} BENCH_REPS=${BENCH_VERSUS_REPS:-8} \
		bash "$top/tests/bench/bench_engine.sh" versus "$old" "$build"
}

echo "bench_depth: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); fsmix $fsmix;" \
	"key iodepth: $(has_iodepth && echo yes || echo "no (depth 1 only)")"
case $mode in
fsync) fsync_bench ;;
mixes) mixes_bench ;;
data) data_bench ;;
calls) calls_bench ;;
versus) versus_bench ;;
all) fsync_bench; mixes_bench; data_bench; calls_bench ;;
esac
exit 0
