#!/usr/bin/env bash
# The ready profiles of profiles/ (the seed experiments, docs/experiments.md, and the peers'
# workloads, docs/peers.md, whose calls tests/e2e/peer_profiles.sh checks) run scaled down on
# tmpfs and on /tmp, and their sync calls are counted by an independent witness, strace:
# synctest issues exactly 1000 fsync (or fdatasync) calls on its file, sync-idle exactly 200
# sync(), the ZODB profiles 0, 1 and 2 fsync per transaction. Also: counted runs end by
# themselves, start_delay and op_period timing, write_stride offsets, open_sync flags,
# create_method, --lat-log, and --strict-ffsb rejecting the extensions.
set -u
. "$(dirname "$0")/lib.bash"
p=$src/profiles
have_strace=1
command -v strace >/dev/null || have_strace=0

# Every profile in profiles/ runs, scaled down, on tmpfs and on /tmp.
counted_writers() { # FIRST LAST N: num_ops=N for threadgroups FIRST..LAST
	local g
	for ((g = $1; g <= $2; g++)); do printf -- '--set threadgroup%d.num_ops=%d ' "$g" "$3"; done
}
scale_args() { # PROFILE -> overrides that make it take about a second
	case $(basename "$1") in
	# Timed ones are counted too (200 ops a thread, time=1 the bound): at full speed each wrote
	# 0.3-1.9 GB in its second on a loaded 2-core machine (dirty data on /tmp, memory on tmpfs).
	ext4-barrier-2010.ffsb) echo "--time 1 $(counted_writers 0 0 200) --threads 4 --set filesystem0.num_files=200 --set filesystem0.num_dirs=10 --set directio=0 --set alignio=1" ;;
	default.ffsb) echo "--time 1 $(counted_writers 0 0 200)" ;;
	synctest.ffsb) echo "--set threadgroup0.num_ops=200" ;;
	sync-idle.ffsb) echo "--set threadgroup0.num_ops=20" ;;
	# The writers of the sync-after profiles are counted (50 x 1 MB appends, 500 x 40 KB creates
	# each): uncounted, they write until the sync returns, which on /tmp flushes the whole
	# machine's dirty data (214 MB in the first 0.23 s on tmpfs here; a slow disk's sync lets
	# them write for the whole 30 s).
	sync-after-bigwrite.ffsb) echo "--set threadgroup2.start_delay=200 --time 30 $(counted_writers 0 1 50)" ;;
	sync-after-create.ffsb) echo "--set threadgroup2.start_delay=200 --time 30 $(counted_writers 0 1 500)" ;;
	sync-after-bigwrite-1fs.ffsb) echo "--set threadgroup1.start_delay=200 --time 30 $(counted_writers 0 0 50)" ;;
	sync-after-create-1fs.ffsb) echo "--set threadgroup1.start_delay=200 --time 30 $(counted_writers 0 0 500)" ;;
	sync-after-bigwrite-4fs.ffsb) echo "--set threadgroup4.start_delay=200 --time 30 $(counted_writers 0 3 50)" ;;
	sync-after-create-4fs.ffsb) echo "--set threadgroup4.start_delay=200 --time 30 $(counted_writers 0 3 500)" ;;
	zodb-*.ffsb) echo "--set threadgroup0.num_ops=300" ;;
	fsync-tester.ffsb) echo "--set filesystem0.min_filesize=32MB --set filesystem0.max_filesize=32MB --set threadgroup1.op_period=100 --set threadgroup1.num_ops=4" ;;
	filebench-varmail.ffsb) echo "--time 1 $(counted_writers 0 0 200) --threads 4 --set filesystem0.num_files=200" ;;
	filebench-fileserver.ffsb) echo "--time 1 $(counted_writers 0 0 200) --threads 4 --set filesystem0.num_files=200 --set filesystem0.num_dirs=10" ;;
	filebench-webserver.ffsb) echo "--time 1 $(counted_writers 0 1 200) --threads 4 --set filesystem0.num_files=100 --set filesystem0.num_dirs=5" ;;
	filebench-oltp.ffsb) echo "--time 1 $(counted_writers 0 2 200) --threads 0=4 --threads 1=2 --set filesystem0.min_filesize=1MB --set filesystem0.max_filesize=1MB --set filesystem1.min_filesize=1MB --set filesystem1.max_filesize=1MB" ;;
	postmark.ffsb) echo "--set threadgroup0.num_ops=200 --set filesystem0.num_files=100" ;;
	mdtest-*.ffsb) echo "--set threadgroup0.num_ops=200 --set threadgroup1.num_ops=200 --set threadgroup2.num_ops=200 --set threadgroup3.num_ops=200" ;;
	*) echo "--time 1" ;;
	esac
}
for kind in tmpfs tmp; do
	for prof in "$p"/*.ffsb; do
		name=$(basename "$prof" .ffsb)
		if [ $kind = tmpfs ]; then d=$(shmdir); else d=$(mktemp -d "$work/tmp.XXXXXX"); fi
		# tmpfs has no FALLOC_FL_ZERO_RANGE: crash-mix's zero_range would fail there, as its
		# header says (docs/ops.md), so that one op is left out on tmpfs
		extra=()
		[ $kind = tmpfs ] && [ "$name" = crash-mix ] && extra=(--set threadgroup0.zero_range_weight=0)
		# shellcheck disable=SC2046
		timeout 120 "$bin" run "$prof" --location "$d" $(scale_args "$prof") "${extra[@]}" \
			>"$work/$name.$kind.out" 2>"$work/$name.$kind.err"
		rc=$?
		if [ $rc -eq 0 ] && grep -q "Transactions per Second" "$work/$name.$kind.out"; then
			ok "$name runs on $kind"
		else
			bad "$name on $kind: exit $rc"; tail -3 "$work/$name.$kind.err"
		fi
		rm -rf "$d"/fsmix.fs[0-9]
	done
done

# strace_count LOG PATTERN: calls in an `strace -f -y` log matching the extended regex.
strace_count() { grep -cE "$2" "$1"; }
# run_traced NAME CALLS ARGS...: fsmix under strace -f -y, tracing CALLS.
run_traced() {
	local name=$1 calls=$2
	shift 2
	# LeakSanitizer cannot run under ptrace: the ASan build's leak check is off here only.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -y -qq -e trace="$calls" -o "$work/$name.strace" "$bin" run "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
}

if [ $have_strace = 1 ]; then
	d=$(shmdir)
	# synctest: 1000 fsync calls on its one file, 1000 lseeks stepping 10 KB through it.
	run_traced synctest fsync,fdatasync,lseek "$p/synctest.ffsb" --location "$d"
	rc=$?
	n=$(strace_count "$work/synctest.strace" 'fsync\([0-9]+</.*/fsmix\.fs0/data/f0>')
	nd=$(strace_count "$work/synctest.strace" 'fdatasync\(')
	offs=$(grep -E 'lseek\([0-9]+</.*/data/f0>' "$work/synctest.strace" | sed -n 's/.*, \([0-9]*\), SEEK_SET.*/\1/p' | awk 'NR <= 3 || NR == 1000' | tr '\n' ' ')
	[ $rc -eq 0 ] && [ "$n" -eq 1000 ] && [ "$nd" -eq 0 ] && [ "$offs" = "0 10240 20480 10229760 " ] &&
		ok "synctest: exactly 1000 fsync on the file (strace), offsets 0, 10240, 20480 ... 10229760" ||
		bad "synctest: exit $rc, $n fsync, $nd fdatasync, offsets '$offs'"
	run_traced synctest-fdatasync fsync,fdatasync "$p/synctest.ffsb" --location "$d" \
		--set threadgroup0.write_fsync_weight=0 --set threadgroup0.write_fdatasync_weight=1
	rc=$?
	n=$(strace_count "$work/synctest-fdatasync.strace" 'fdatasync\([0-9]+</.*/data/f0>')
	nf=$(strace_count "$work/synctest-fdatasync.strace" 'fsync\([0-9]+</.*/data/')
	[ $rc -eq 0 ] && [ "$n" -eq 1000 ] && [ "$nf" -eq 0 ] &&
		ok "synctest with write_fdatasync: exactly 1000 fdatasync, no fsync on data files" ||
		bad "synctest fdatasync: exit $rc, $n fdatasync, $nf fsync"
	# The report counts them too.
	grep -qE '^ +fdatasync +1000 ' "$work/synctest-fdatasync.out" &&
		ok "the sync latency section reports the 1000 fdatasync calls" || bad "fdatasync not reported"

	# sync-idle: exactly 200 sync(), nothing else syncs the machine.
	run_traced sync-idle sync,syncfs "$p/sync-idle.ffsb" --location "$d"
	rc=$?
	n=$(strace_count "$work/sync-idle.strace" '[0-9] +sync\(\)')
	[ $rc -eq 0 ] && [ "$n" -eq 200 ] && grep -qE '^ +sync +200 ' "$work/sync-idle.out" &&
		ok "sync-idle: exactly 200 sync() (strace and the report)" || bad "sync-idle: exit $rc, $n sync()"
	# syncfs instead: 200 on the tree (plus the one after building it).
	run_traced syncfs-idle sync,syncfs "$p/sync-idle.ffsb" --location "$d" \
		--set threadgroup0.sync_weight=0 --set threadgroup0.syncfs_weight=1
	rc=$?
	n=$(strace_count "$work/syncfs-idle.strace" 'syncfs\([0-9]+</.*/fsmix\.fs0/data>')
	ns=$(strace_count "$work/syncfs-idle.strace" '[0-9] +sync\(\)')
	[ $rc -eq 0 ] && [ "$n" -eq 201 ] && [ "$ns" -eq 0 ] &&
		ok "syncfs: 200 syncfs() on the tree's filesystem (+1 after the build), no sync()" ||
		bad "syncfs: exit $rc, $n syncfs, $ns sync"

	# ZODB: 0, 1 and 2 fsync per transaction (300 transactions).
	for k in 0 1 2; do
		run_traced zodb$k fsync,fdatasync "$p/zodb-fsync$k.ffsb" --location "$d" \
			--set threadgroup0.num_ops=300
		rc=$?
		n=$(strace_count "$work/zodb$k.strace" 'fsync\([0-9]+</.*/data/f0>')
		ops=$(sed -n 's/^fsmix: \([0-9]*\) operations.*/\1/p' "$work/zodb$k.out")
		[ $rc -eq 0 ] && [ "$n" -eq $((300 * k)) ] && [ "$ops" = 300 ] &&
			ok "zodb-fsync$k: 300 transactions, exactly $((300 * k)) fsync (strace)" ||
			bad "zodb-fsync$k: exit $rc, $n fsync, $ops ops"
	done

	# open_sync: written files are opened with O_SYNC / O_DSYNC; reads are not.
	for w in sync dsync; do
		flag=O_SYNC
		[ $w = dsync ] && flag=O_DSYNC
		run_traced open$w openat "$p/zodb-fsync0.ffsb" --location "$d" --set threadgroup0.num_ops=20 \
			--set threadgroup0.open_sync=$w
		n=$(grep -E '"f0", O_WRONLY\|O_APPEND\|' "$work/open$w.strace" | grep -c "$flag")
		[ "$n" -eq 20 ] && ok "open_sync=$w: 20 appends opened with $flag" || bad "open_sync=$w: $n opens with $flag"
	done
else
	skip_env strace "strace witness: strace is not installed"
fi

# Counted runs end by themselves; time is an upper bound. The count cannot be reached in the
# time whatever the machine: one syncfs() every 100 ms (op_period) makes 1,000,000 of them take
# 28 hours, so only the time can end this run (a time-out of 120 s catches a run it does not end).
d=$(shmdir)
timeout -s KILL 120 "$bin" run "$p/sync-idle.ffsb" --location "$d" --set threadgroup0.num_ops=1000000 --time 1 \
	--set threadgroup0.op_period=100 --set threadgroup0.sync_weight=0 --set threadgroup0.syncfs_weight=1 \
	--json "$work/upper.json" >"$work/upper.out" 2>&1
rc=$?
ops=$(sed -n 's/^fsmix: \([0-9]*\) operations.*/\1/p' "$work/upper.out")
[ $rc -eq 0 ] && grep -q '"stop_reason": "time"' "$work/upper.json" && [ -n "$ops" ] && [ "$ops" -lt 1000000 ] &&
	ok "time=1 bounds a run whose count cannot be reached (stop_reason time, $ops of 1000000 ops)" ||
	bad "time as upper bound: exit $rc (137: not ended by the time), $ops ops"
"$bin" run "$p/sync-idle.ffsb" --location "$d" --set threadgroup0.num_ops=5 --json "$work/count.json" \
	>/dev/null 2>&1
grep -q '"stop_reason": "count"' "$work/count.json" && ok "a counted run stops with stop_reason count" ||
	bad "stop_reason count"

# start_delay and op_period, from the latency log: 5 ops, none before its slot (300 ms, then
# every 100 ms), while a background group runs beside them (paced: at full speed its lines
# made the latency log 31 MB in the run's 0.7 s on a loaded 2-core machine).
cat >"$work/period.ffsb" <<'P'
[filesystem0]
	location=/tmp
	num_files=2
	min_filesize=64KB
	max_filesize=64KB
[end0]
[threadgroup0]
	num_threads=1
	stat_weight=1
	op_rate=2000
[end0]
[threadgroup1]
	num_threads=1
	num_ops=5
	start_delay=300
	op_period=100
	syncfs_weight=1
[end1]
P
"$bin" run "$work/period.ffsb" --location "$d" --lat-log "$work/period.log" >"$work/period.out" 2>&1
rc=$?
times=$(awk '$2 == 1 { printf "%s ", $1 }' "$work/period.log")
# Only lower bounds: an op is never early (op i at or after 0.3 + 0.1 (i - 1) s); how late it is
# depends on the machine's load, which a test must not assume.
if [ $rc -eq 0 ] && echo "$times" | awk '{ if (NF != 5) exit 1; for (i = 1; i <= 5; i++) { want = 0.3 + 0.1 * (i - 1); if ($i < want - 0.001) exit 1 } }'; then
	ok "start_delay=300, op_period=100: no op early, ops at $times s"
else
	bad "start_delay/op_period: exit $rc, times '$times'"
fi
# --lat-log: one line per operation of every group, header first, the columns documented.
lines=$(grep -vc '^#' "$work/period.log")
ops=$(sed -n 's/^fsmix: \([0-9]*\) operations.*/\1/p' "$work/period.out")
head -1 "$work/period.log" | grep -q '^# t_s group thread op lat_ns bytes sync_ns resp_ns$' && [ "$lines" = "$ops" ] &&
	awk '!/^#/ && NF != 8 { exit 1 } !/^#/ && $4 == "syncfs" && $7 == 0 { exit 1 }' "$work/period.log" &&
	ok "--lat-log: $lines lines for $ops operations, 8 columns, syncfs lines carry their sync time" ||
	bad "--lat-log: $lines lines, $ops operations"
"$bin" run "$work/period.ffsb" --location "$d" --lat-log /nonexistent/dir/x.log >/dev/null 2>"$work/ll.err"
[ $? -eq 2 ] && grep -q "lat-log /nonexistent/dir/x.log: No such file" "$work/ll.err" &&
	ok "--lat-log to an impossible path: exit 2 with the reason" || bad "--lat-log bad path"
"$bin" check "$work/period.ffsb" --lat-log x >/dev/null 2>&1
[ $? -eq 2 ] && ok "--lat-log is a run option only" || bad "check --lat-log accepted"

# fsync-tester's fsync time column comes out of the log directly. The background writer is
# counted too (2 writes), so that the run waits for it however slow it is.
"$bin" run "$p/fsync-tester.ffsb" --location "$d" --set filesystem0.min_filesize=16MB \
	--set filesystem0.max_filesize=16MB --set threadgroup1.op_period=50 --set threadgroup1.num_ops=3 \
	--set threadgroup0.num_ops=2 --lat-log "$work/ft.log" >"$work/ft.out" 2>&1
n=$(awk '$4 == "write_fsync" && $7 > 0 && $6 == 1048576' "$work/ft.log" | wc -l)
bg=$(awk '$2 == 0 && $4 == "write"' "$work/ft.log" | wc -l)
[ "$n" -eq 3 ] && [ "$bg" -eq 2 ] && ok "fsync-tester: 3 fsync times in the log beside $bg background writes" ||
	bad "fsync-tester log: $n fsync lines, $bg writes"

# create_method: fallocate and sparse make full-size files quickly; sparse ones take no blocks.
for m in fallocate sparse write; do
	e=$(shmdir)
	"$bin" run "$p/synctest.ffsb" --location "$e" --time 0 --set threadgroup0.num_ops=0 \
		--set filesystem0.create_method=$m >/dev/null 2>&1
	rc=$?
	f=$e/fsmix.fs0/data/f0
	size=$(stat -c %s "$f" 2>/dev/null) blocks=$(stat -c %b "$f" 2>/dev/null)
	case $m in sparse) want_blocks='[ "$blocks" -eq 0 ]' ;; *) want_blocks='[ "$blocks" -ge 20000 ]' ;; esac
	[ $rc -eq 0 ] && [ "$size" = 10240000 ] && eval "$want_blocks" &&
		ok "create_method=$m: 10240000 bytes, $blocks blocks" || bad "create_method=$m: exit $rc, size $size, blocks $blocks"
done

# --strict-ffsb rejects every extension: keys and the weights of fsmix's operations.
"$bin" check "$p/synctest.ffsb" --strict-ffsb >/dev/null 2>"$work/strict.err"
rc=$?
grep -q "num_ops: fsmix extension, rejected by --strict-ffsb" "$work/strict.err" &&
	grep -q "write_stride: fsmix extension" "$work/strict.err" &&
	grep -q "create_method: fsmix extension" "$work/strict.err" && [ $rc -eq 2 ] &&
	ok "--strict-ffsb rejects num_ops, write_stride, create_method" || bad "--strict-ffsb keys: exit $rc"
"$bin" check "$p/sync-idle.ffsb" --strict-ffsb --set threadgroup0.num_ops=0 >/dev/null 2>"$work/strict2.err"
grep -q "sync_weight: fsmix extension, rejected by --strict-ffsb" "$work/strict2.err" &&
	ok "--strict-ffsb rejects the weight of an fsmix operation (sync)" || bad "--strict-ffsb sync_weight"
"$bin" check "$p/ext4-barrier-2010.ffsb" --strict-ffsb >/dev/null 2>&1 &&
	ok "--strict-ffsb still accepts the 2010 FFSB profile" || bad "--strict-ffsb rejects the 2010 profile"
summary
