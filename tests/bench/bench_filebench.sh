#!/usr/bin/env bash
# bench_filebench.sh - fsmix side by side with filebench (issue 28): the same workload, file
# counts, threads and run time, on tmpfs and on a loop-mounted ext4 image; prints figures and
# ratios, asserts nothing (not a test).
#
#   bash tests/bench/bench_filebench.sh [rates|strace|all] [BUILD_DIR]
#
#   rates   for each workload (BENCH_WORKLOADS, default "varmail fileserver"; webserver and oltp too) and
#           filesystem (BENCH_FS, default "tmpfs ext4"): BENCH_ROUNDS (default 3) ABBA rounds --
#           round 1 filebench then fsmix, round 2 fsmix then filebench, ... -- of BENCH_SECONDS
#           (default 5) each, every run on a fresh tree. Prints per run filebench's IO Summary
#           ops/s and its loops/s, fsmix's ops/s and loops/s, and the pair's ratio fsmix /
#           filebench in loops/s; then the median ratio. Also the CPU time (user + system) a
#           loop costs each -- filebench: its worker process's (/proc/PID/stat, all its
#           threads, read at "Running..." and every 0.1 s until it ends); fsmix: its JSON's cpu
#           (the run phase) -- over the loops each made, and their ratio filebench / fsmix
#           (above 1: fsmix does a loop with less CPU), which the machine's load moves much
#           less than the rates.
#   strace  a short run of each on tmpfs (BENCH_STRACE_SECONDS, default 3, traced after both
#           have built their files; BENCH_STRACE_THREADS threads, default 4, so that the loops
#           still in flight when tracing stops are few beside those traced) under strace -f -c
#           attached to the running workers; system calls per loop side by side (varmail and
#           fileserver: one unlink per loop in both, so per loop = calls / unlink calls).
#
# filebench: $FILEBENCH (default $PEERS_DIR/inst/bin/filebench, PEERS_DIR default /work/peers;
# tests/bench/peers_build.sh builds it), run under setarch -R (ASLR off for it alone, which
# 1.5-alpha3 needs) from a generated copy of its workloads/NAME.f with $dir, $nfiles, $nthreads
# and the run time replaced. Counts: BENCH_NFILES fileset entries (default 10000; filebench needs
# >= 10000 to not run out of files); BENCH_THREADS (default the workload's: 16, 50, 100).
# fsmix: the profile of FSMIX_PROFILE_VARMAIL, FSMIX_PROFILE_FILESERVER, FSMIX_PROFILE_WEBSERVER
# (default profiles/filebench-NAME.ffsb) with filesystem0.num_files = the preallocated entries
# (80 % for varmail and fileserver, 100 % for webserver), filesystem0.num_dirs = entries /
# meandirwidth (0 for varmail), threadgroup0.num_threads (and threadgroup1's for webserver), plus
# any FSMIX_ARGS_NAME (words). oltp runs as its files say on both sides (10 data files and a log,
# 200 shadows, 10 database writers, 1 log writer; BENCH_NFILES and BENCH_THREADS do not apply),
# and its loops/s are the shadows' reads/s (filebench's shadowread, fsmix's group 0 sequences):
# filebench paces its writers by the shadows' semaphores, fsmix's run free, so its total ops/s
# are not comparable.
# Loops/s: filebench's is the ops/s of the loop's last flowop (closefile4, statfile1,
# appendlog): a loop is done when its last flowop is. fsmix's: with a profile that declares a
# `sequence` the transactions/s (one sequence = one filebench loop; webserver: group 0's, the 10
# page reads, as its log appends are a group of their own); else the ops/s divided by
# the ops per loop of the weighted profile (varmail 5, fileserver 5, webserver 11; override:
# BENCH_OPS_PER_LOOP). That division is an approximation: the weighted ops come in random order
# and do more opens per loop than filebench (docs/peers.md).
# ext4: a sparse image of BENCH_EXT4_MB (default 4096) in BENCH_IMG_DIR (default /tmp),
# loop-mounted and unmounted on exit, whatever happens. Root needed for it (and for filebench).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-all}
build=${2:-$top/build}
fsmix=$build/src/fsmix
peers=${PEERS_DIR:-/work/peers}
filebench=${FILEBENCH:-$peers/inst/bin/filebench}
workloads=${BENCH_WORKLOADS:-varmail fileserver}
filesystems=${BENCH_FS:-tmpfs ext4}
rounds=${BENCH_ROUNDS:-3} secs=${BENCH_SECONDS:-5} nfiles=${BENCH_NFILES:-10000}
strace_secs=${BENCH_STRACE_SECONDS:-3} strace_threads=${BENCH_STRACE_THREADS:-4}
[ -x "$fsmix" ] || { echo "bench_filebench: no fsmix at $fsmix" >&2; exit 2; }
[ -x "$filebench" ] || { echo "bench_filebench: no filebench at $filebench (tests/bench/peers_build.sh builds it)"; exit 77; }
fbwl=$(dirname "$filebench")/../share/filebench/workloads
bench_tag=fb bench_ext4_mb=4096
. "$top/tests/bench/bench-fs.bash"

# Per workload: filebench's loop-ending flowop, default threads, prealloc %, meandirwidth,
# fsmix ops per loop of the weighted profile.
wl() {
	case $1 in
	varmail) echo "closefile4 16 80 1000000 5" ;;
	fileserver) echo "statfile1 50 80 20 5" ;;
	webserver) echo "appendlog 100 100 20 11" ;;
	oltp) echo "shadowread 200 100 1024 seq" ;; # its own file counts (10 + 1 log) and threads
	*) echo "bench_filebench: unknown workload $1" >&2; exit 2 ;;
	esac
}
profile_of() {
	local var=FSMIX_PROFILE_${1^^}
	echo "${!var:-$top/profiles/filebench-$1.ffsb}"
}


# fb_script NAME DIR SECONDS THREADS: the generated .f on stdout.
fb_script() {
	[ "$1" = oltp ] && { sed -e "s|^set \$dir=.*|set \$dir=$2|" -e "s|^set \$runtime=.*|set \$runtime=$3|" \
		-e "s|^run [0-9]*\$|run $3|" "$fbwl/$1.f"; return; }
	sed -e "s|^set \$dir=.*|set \$dir=$2|" -e "s|^set \$nfiles=.*|set \$nfiles=$nfiles|" \
		-e "s|^set \$nthreads=.*|set \$nthreads=$4|" -e "s|^set \$runtime=.*|set \$runtime=$3|" \
		-e "s|^run [0-9]*\$|run $3|" "$fbwl/$1.f"
}
# fsmix_args NAME DIR SECONDS THREADS: the fsmix command's arguments, one a line.
fsmix_args() {
	local last thr pre width opl prof files dirs extra
	read -r last _ pre width opl <<<"$(wl "$1")"
	prof=$(profile_of "$1")
	files=$((nfiles * pre / 100)) dirs=$((nfiles / width))
	if [ "$1" = oltp ]; then # filebench's oltp.f as it is: 10 data files, 200 shadows, ...
		printf '%s\n' run "$prof" --location "$2" --time "$3"
		return
	fi
	printf '%s\n' run "$prof" --location "$2" --time "$3" --set "filesystem0.num_files=$files" \
		--set "filesystem0.num_dirs=$dirs" --set "threadgroup0.num_threads=$4"
	[ "$1" = webserver ] && printf '%s\n' --set "threadgroup1.num_threads=$4"
	extra=FSMIX_ARGS_${1^^}
	[ -n "${!extra:-}" ] && printf '%s\n' ${!extra}
}
threads_of() { local t; t=$(wl "$1" | cut -d' ' -f2); echo "${BENCH_THREADS:-$t}"; }

# ticks PID: user + system CPU of process PID, all its threads, in clock ticks; empty once it
# has ended (a zombie too).
ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '$1 != "Z" && $1 != "X" { print $12 + $13 }'; }
# run_fb NAME FS: "ops/s loops/s CPU-ms/loop" of one filebench run (CPU "-": not measured).
run_fb() {
	local d last pid child='' i t0='' t t1='' cpu=''
	d=$(dir_for "$2") || return 1
	last=$(wl "$1" | cut -d' ' -f1)
	fb_script "$1" "$d" "$secs" "$(threads_of "$1")" >"$work/w.f"
	rm -f "$work/fb.out" # not the last run's "Running..."
	setarch "$(uname -m)" -R "$filebench" -f "$work/w.f" >"$work/fb.out" 2>&1 &
	pid=$!
	if wait_line "$work/fb.out" 'Running'; then
		# the worker process: filebench re-executes itself as "NAME -a NAME ..." per process
		for ((i = 0; i < 50; i++)); do
			child=$(pgrep -P "$pid" -f -- " -a " | head -1)
			[ -n "$child" ] && break
			sleep 0.1
		done
		[ -n "$child" ] && t0=$(ticks "$child")
		# its last reading before it ends: the shutdown after it, 0.1 s at most, is lost
		while [ -n "$t0" ] && t=$(ticks "$child") && [ -n "$t" ]; do
			t1=$t
			sleep 0.1
		done
	fi
	wait "$pid"
	[ -n "$t0" ] && [ -n "$t1" ] && cpu=$(((t1 - t0) * 1000 / $(getconf CLK_TCK)))
	awk -v last="$last" -v secs="$secs" -v cpu="$cpu" \
		'/IO Summary:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/s") ops = $i }
		$1 == last { sub("ops/s", "", $3); loops = $3 }
		END { if (ops == "" || loops == "") exit 1; print ops, loops, (cpu == "" || loops == 0) ? "-" : cpu / (loops * secs) }' "$work/fb.out" ||
		{ echo "bench_filebench: filebench $1 on $2 gave no result:" >&2; tail -3 "$work/fb.out" >&2; return 1; }
}
# run_fsmix NAME FS: "ops/s loops/s CPU-ms/loop" of one fsmix run.
run_fsmix() {
	local d opl prof
	d=$(dir_for "$2") || return 1
	prof=$(profile_of "$1")
	opl=${BENCH_OPS_PER_LOOP:-$(wl "$1" | cut -d' ' -f5)}
	grep -Eq '^[[:space:]]*sequence[[:space:]]*=' "$prof" && opl=seq
	mapfile -t args < <(fsmix_args "$1" "$d" "$secs" "$(threads_of "$1")")
	"$fsmix" "${args[@]}" --json "$work/r.json" >"$work/fsmix.out" 2>&1 ||
		{ echo "bench_filebench: fsmix $1 on $2 failed:" >&2; tail -3 "$work/fsmix.out" >&2; return 1; }
	# oltp: its loops are the shadows' (group 0's sequences), as filebench's shadowread;
	# webserver (sequences): the pages' (group 0's: 10 reads each), not the sum of both groups'
	# sequences: its log appends are a group of their own that runs free, far more often
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
t, opl = r["total"], sys.argv[2]
if sys.argv[3] == "oltp" or (sys.argv[3] == "webserver" and opl == "seq"):
    loops = [o for o in r["groups"][0]["ops"] if o["name"] == "sequence"][0]["ops_per_s"]
else:
    loops = t["trans_per_s"] if opl == "seq" else t["ops_per_s"] / float(opl)
c = r.get("cpu") or {}
n = loops * r["runtime_s"]
cpu = "-" if c.get("user_s") is None or not n else (c["user_s"] + c["sys_s"]) * 1000 / n
print(t["ops_per_s"], loops, cpu)' "$work/r.json" "$opl" "$1"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rates() {
	local name fs r a b
	for fs in $filesystems; do
		[ "$fs" = ext4 ] && { ext4_mount || continue; }
		for name in $workloads; do
			echo "== $name on $fs: $nfiles entries, $(threads_of "$name") threads, $secs s, $rounds ABBA rounds; fsmix profile $(profile_of "$name")"
			: >"$work/ratios"
			: >"$work/cpuratios"
			for ((r = 1; r <= rounds; r++)); do
				if ((r % 2)); then
					a=$(run_fb "$name" "$fs") b=$(run_fsmix "$name" "$fs")
				else
					b=$(run_fsmix "$name" "$fs") a=$(run_fb "$name" "$fs")
				fi
				[ -n "$a" ] && [ -n "$b" ] || { echo "round $r: no pair"; continue; }
				read -r fo fl fc <<<"$a"
				read -r so sl sc <<<"$b"
				printf 'round %d (%s): filebench %9.0f ops/s %8.0f loops/s | fsmix %9.0f ops/s %8.0f loops/s | ratio %.3f  [load %s]\n' \
					"$r" "$( ((r % 2)) && echo AB || echo BA)" "$fo" "$fl" "$so" "$sl" "$(echo "$sl/$fl" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
				echo "$sl/$fl" | bc -l >>"$work/ratios"
				if [ "$fc" != - ] && [ "$sc" != - ]; then
					printf '          CPU a loop: filebench %.3f ms | fsmix %.3f ms | ratio %.3f\n' "$fc" "$sc" "$(echo "$fc/$sc" | bc -l)"
					echo "$fc/$sc" | bc -l >>"$work/cpuratios"
				fi
			done
			[ -s "$work/ratios" ] && printf '%s on %s: median ratio fsmix/filebench (loops/s) %.3f over %d rounds\n' "$name" "$fs" \
				"$(median <"$work/ratios")" "$(wc -l <"$work/ratios")"
			[ -s "$work/cpuratios" ] && printf '%s on %s: median ratio of the CPU a loop costs, filebench/fsmix, %.3f over %d rounds\n' "$name" "$fs" \
				"$(median <"$work/cpuratios")" "$(wc -l <"$work/cpuratios")"
		done
	done
}

# trace PID OUT: strace -f -c attached to PID (and its threads) for strace_secs.
trace() {
	strace -f -c -o "$2" -p "$1" 2>/dev/null &
	local sp=$!
	sleep "$strace_secs"
	kill -INT "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
}
# wait_line FILE REGEX: until FILE has a line matching (at most 120 s).
wait_line() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
strace_one() {
	local name=$1 d run=$((strace_secs + 30)) pid child='' i
	d=$(dir_for tmpfs)
	fb_script "$name" "$d" "$run" "$strace_threads" >"$work/s.f"
	setarch "$(uname -m)" -R "$filebench" -f "$work/s.f" >"$work/fbs-$name.out" 2>&1 &
	pid=$!
	wait_line "$work/fbs-$name.out" 'Running' || echo "bench_filebench: filebench $name did not start" >&2
	# the worker process: filebench re-executes itself as "NAME -a NAME ..." per process
	for ((i = 0; i < 100; i++)); do
		child=$(pgrep -P "$pid" -f -- " -a " | head -1)
		[ -n "$child" ] && break
		sleep 0.1
	done
	[ -n "$child" ] || echo "bench_filebench: no filebench worker process found; tracing the master" >&2
	trace "${child:-$pid}" "$work/fb.strace"
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# the worker outlives an interrupted master for a while: wait for it to be gone
	for ((i = 0; i < 300; i++)); do
		[ -n "$child" ] && kill -0 "$child" 2>/dev/null || break
		sleep 0.1
	done
	d=$(dir_for tmpfs)
	mapfile -t args < <(fsmix_args "$name" "$d" "$run" "$strace_threads")
	"$fsmix" "${args[@]}" >"$work/fss.out" 2>&1 &
	pid=$!
	wait_line "$work/fss.out" '^fsmix: running' || echo "fsmix $name did not start" >&2
	trace "$pid" "$work/fs.strace"
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "== $name on tmpfs: system calls per loop (calls / unlink calls), $strace_threads threads, strace -f -c attached for $strace_secs s after the setup; fsmix profile $(profile_of "$name")"
	python3 - "$work/fb.strace" "$work/fs.strace" <<-'EOF'
		import sys
		def load(p):
		    c = {}
		    for line in open(p):
		        f = line.split()
		        if len(f) >= 5 and f[3].isdigit() and f[-1] != "total":
		            n = {"unlinkat": "unlink", "open": "openat", "pread64": "read", "pwrite64": "write",
		                 "statx": "newfstatat", "stat": "newfstatat", "lstat": "newfstatat"}.get(f[-1], f[-1])
		            c[n] = c.get(n, 0) + int(f[3])
		    return c
		fb, fs = load(sys.argv[1]), load(sys.argv[2])
		lf, ls = fb.get("unlink", 0), fs.get("unlink", 0)
		if not lf or not ls:
		    sys.exit("no unlink traced (filebench %d, fsmix %d)" % (lf, ls))
		print("%-16s %12s %12s   (loops traced: filebench %d, fsmix %d)" % ("syscall", "filebench", "fsmix", lf, ls))
		for n in sorted(set(fb) | set(fs), key=lambda n: -(fb.get(n, 0) / lf + fs.get(n, 0) / ls)):
		    a, b = fb.get(n, 0) / lf, fs.get(n, 0) / ls
		    if a >= 0.01 or b >= 0.01:
		        print("%-16s %12.2f %12.2f%s" % (n, a, b, "" if abs(a - b) < 0.1 else "   <- differs"))
	EOF
}
straces() {
	command -v strace >/dev/null || { echo "bench_filebench: no strace: skipped"; return 0; }
	local name
	for name in $workloads; do
		case $name in webserver | oltp) echo "== $name: no unlink to count loops by: not traced"; continue ;; esac
		strace_one "$name"
	done
}

echo "bench_filebench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); filebench $filebench; fsmix $fsmix"
case $mode in
rates) rates ;;
strace) straces ;;
all) straces && rates ;;
*) echo "usage: $0 [rates|strace|all] [BUILD_DIR]" >&2; exit 2 ;;
esac
