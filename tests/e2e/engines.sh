#!/usr/bin/env bash
# The I/O engines (docs/engines.md):
# 1. The key engine: `fsmix keys` lists it as an fsmix extension; a bad value is an error at
#    its file:line naming the key (exit 2); --strict-ffsb refuses it (exit 2).
# 2. engine=io_uring with every operation fsmix has weighted (but zero_range, which tmpfs lacks),
#    under strace -f: each worker thread enters io_uring and makes none of the calls the ring
#    does (openat, read, write, close, fsync, fdatasync, statx/newfstatat, unlinkat, mkdirat,
#    renameat(2), linkat, ftruncate, fallocate, lseek); the completions (one io_uring_enter per
#    call at iodepth 1) equal the calls the report counts; the run warns once for sync and
#    syncfs, which have no opcode, and for no other call. With read and fsync hidden from the
#    probe (tests/tools/preload/uring_hide.c), they are made directly, with one warning each
#    naming the operations that make them. A submission refused with -EAGAIN is made again.
# 3. A logged run under io_uring (--durability-log, verify=1): exit 0, no mismatch, and
#    `fsmix verify` finds every promise kept, every fsync acknowledged.
#    read_skip's SEEK_CUR moves the engine's kept position (verify=1 checks every read); each
#    fdatasync reaches ext4 as a datasync (its tracepoint ext4_sync_file_enter, in a tracefs
#    instance of the test's own), each fsync as a full sync.
# 4. The reports say which engine ran, at which depth (text, JSON, CSV).
# Fails on the old binary (no key engine: exit 2 at the profile).
set -u
. "$(dirname "$0")/lib.bash"

# 1. The key.
"$bin" keys 2>&1 | grep -q "^  engine .*\[fsmix extension\]" &&
	ok "fsmix keys lists engine as an fsmix extension" || bad "fsmix keys: no engine key"

profile() { # profile ENGINE OPS-LINES [TOP-LINES]
	cat <<EOF
time=0
${3:-}
[filesystem0]
location=/unused
num_files=40
num_dirs=3
min_filesize=8KB
max_filesize=24KB
[end0]
[threadgroup0]
num_threads=2
num_ops=150
engine=$1
$2
read_size=8KB
read_blocksize=4KB
read_random=1
write_size=4KB
write_blocksize=4KB
[stats]
enable_stats=1
[end]
[end0]
EOF
}
# (a sequence and its steps have no weight key: sequence.sh runs them through the ring)
all=$(grep '^OP(' "$src/src/base/ops.def" | grep -v 'OPF_STEP\|OPF_SEQ' | sed 's/^OP(\([a-z_0-9]*\),.*/\1/' |
	grep -vx 'zero_range' | while read -r o; do
		case $o in sync) echo "${o}_weight=1" ;; *) echo "${o}_weight=10" ;; esac
	done)

profile aio "read_weight=1" >"$work/bad.ffsb"
"$bin" check "$work/bad.ffsb" >"$work/bad.out" 2>&1
rc=$?
line=$(grep -n '^engine=' "$work/bad.ffsb" | cut -d: -f1)
[ $rc -eq 2 ] && grep -q "bad.ffsb:$line: error: \[threadgroup0\] engine: 'aio' is not one of sync, io_uring" "$work/bad.out" &&
	ok "engine=aio: an error at bad.ffsb:$line naming the key (exit 2)" ||
	{ bad "engine=aio: exit $rc"; sed 's/^/     /' "$work/bad.out"; }
profile io_uring "read_weight=1" >"$work/strict.ffsb"
"$bin" check "$work/strict.ffsb" --strict-ffsb >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "engine: fsmix extension, rejected by --strict-ffsb" "$work/strict.out" &&
	ok "--strict-ffsb refuses engine (exit 2)" ||
	{ bad "--strict-ffsb with engine: exit $rc"; sed 's/^/     /' "$work/strict.out"; }

# Is the io_uring engine built in, and is io_uring available here?
loc=$(shmdir)
profile io_uring "$all" >"$work/all.ffsb"
"$bin" check "$work/all.ffsb" >/dev/null 2>&1 || bad "the all-operations profile does not check"
probe=$(profile io_uring "stat_weight=1" | sed 's/^num_ops=.*/num_ops=1/')
"$bin" run <(echo "$probe") --location "$(shmdir)" >"$work/probe.out" 2>&1
rc=$?
if [ $rc -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'engine=io_uring' "$work/probe.out")"
	summary
fi

# 2. Every operation through the ring, under strace.
# LeakSanitizer cannot run under ptrace (an ASan build): the traced runs go without it.
traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
calls=openat,read,write,close,fsync,fdatasync,statx,newfstatat,unlinkat,mkdirat,renameat,renameat2,linkat,ftruncate,fallocate,lseek,pread64,pwrite64
if ! command -v strace >/dev/null; then
	skipped "no strace"
else
	ASAN_OPTIONS=$traced_asan timeout 300 strace -f -qq -o "$work/trace" -e trace="io_uring_enter,$calls" \
		"$bin" run "$work/all.ffsb" --location "$loc" --seed 7 --json "$work/all.json" \
		>"$work/all.out" 2>&1
	rc=$?
	# the workers: the threads that entered io_uring
	awk '$2 ~ /^io_uring_enter\(/ { n[$1]++ } END { for (t in n) print t, n[t] }' "$work/trace" \
		>"$work/enters"
	workers=$(wc -l <"$work/enters")
	enters=$(awk '{ s += $2 } END { print s + 0 }' "$work/enters")
	# (strace pads the thread ids to one width: fields, not columns; "<... X resumed>" is the
	# end of a call already seen)
	stray=$(awk 'NR == FNR { w[$1] = 1; next }
		($1 in w) && $2 !~ /^io_uring_enter\(/ && $2 !~ /^(\+\+\+|---|<\.\.\.)/' \
		"$work/enters" "$work/trace" | head -5)
	ops=$(jq -r '[.total.ops[] | select(.count > 0)] | length' "$work/all.json" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$workers" -eq 2 ] && [ -z "$stray" ] && [ "${ops:-0}" -ge 25 ]; then
		ok "io_uring: $ops operations ran; the 2 workers made no $calls call, $enters io_uring_enter"
	else
		bad "io_uring: exit $rc, $workers threads entered io_uring, $ops operations ran; stray calls: $stray"
		tail -5 "$work/all.out" | sed 's/^/     /'
	fi
	# Every call is timed but the open and close of a directory createdir made, which
	# replace_fsync's fsync of it needs (durhook_dirsync): without createdir, one completion
	# (one submission at iodepth 1) per call the report counts.
	profile io_uring "$(grep -v '^createdir_weight' <<<"$all")" >"$work/nodir.ffsb"
	ASAN_OPTIONS=$traced_asan timeout 300 strace -f -qq -o "$work/trace2" -e trace=io_uring_enter \
		"$bin" run "$work/nodir.ffsb" --location "$(shmdir)" --seed 7 --json "$work/nodir.json" \
		>"$work/nodir.out" 2>&1
	rc=$?
	# submissions: io_uring_enter's second argument (an enter that only waits again after a
	# signal submits 0)
	enters=$(awk '$2 ~ /^io_uring_enter\(/ { s += $3 } END { print s + 0 }' "$work/trace2")
	counted=$(jq -r '[.total.syscalls[] | select(.name != "lseek" and .name != "sync" and .name != "syncfs") | .latency.count] | add // 0' "$work/nodir.json" 2>/dev/null)
	errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/nodir.json" 2>/dev/null)
	[ $rc -eq 0 ] && [ "$errs" = 0 ] && [ "$enters" = "$counted" ] &&
		ok "io_uring: the submissions ($enters) equal the calls the report counts" ||
		bad "io_uring: exit $rc, $errs errors, $enters submissions, but the report counts $counted calls"
	for c in sync syncfs; do
		n=$(grep -c "warning: engine=io_uring: $c cannot go through io_uring" "$work/all.out")
		[ "$n" = 1 ] && ok "io_uring: one warning names $c" || bad "io_uring: $n warnings for $c"
	done
	n=$(grep -c "warning: engine=io_uring: .* cannot go through" "$work/all.out")
	[ "$n" = 2 ] && ok "io_uring: no other call is made synchronously (the probe)" ||
		bad "io_uring: $n calls made synchronously: $(grep "cannot go through" "$work/all.out")"
fi

# 2b. The probe's fallback, on any kernel: uring_hide.so makes the probes report read (opcode
# 22) and fsync (3) unsupported, as an older kernel would. The worker then reads with pread64
# at the position it keeps and syncs with fsync(2) and fdatasync(2), every read's content
# checked (verify=1), and one warning each names the operations that make the call.
hide=${FSMIX_TOOLS:-}/uring_hide.so
if [ ! -f "$hide" ] || ! command -v strace >/dev/null; then
	skipped "the probe's fallback: no $hide or no strace"
else
	profile io_uring "read_weight=2
write_fsync_weight=1
write_fdatasync_weight=1" "verify=1" >"$work/hide.ffsb"
	ASAN_OPTIONS="$traced_asan:verify_asan_link_order=0" URING_HIDE_OPS=22,3 LD_PRELOAD=$hide \
		timeout 300 strace -f -qq -o "$work/hide.trace" -e trace=pread64,fsync,fdatasync \
		"$bin" run "$work/hide.ffsb" --location "$(shmdir)" --seed 4 >"$work/hide.out" 2>&1
	rc=$?
	n() { grep -c "^[0-9]* *$1(" "$work/hide.trace"; }
	w="warning: engine=io_uring:"
	if [ $rc -eq 0 ] && grep -q " 0 content mismatches" "$work/hide.out" &&
		[ "$(n pread64)" -gt 0 ] && [ "$(n fsync)" -gt 0 ] && [ "$(n fdatasync)" -gt 0 ] &&
		grep -q "$w read cannot go through io_uring on this kernel; operation read makes it synchronously" "$work/hide.out" &&
		grep -q "$w fsync cannot .*; operation write_fsync makes it" "$work/hide.out" &&
		grep -q "$w fdatasync cannot .*; operation write_fdatasync makes it" "$work/hide.out" &&
		[ "$(grep -c "$w" "$work/hide.out")" = 3 ]; then
		ok "io_uring: read, fsync, fdatasync hidden from the probe: made directly ($(n pread64) pread64), one warning each naming its operations"
	else
		bad "io_uring with read and fsync hidden: exit $rc, $(n pread64) pread64, $(n fsync) fsync, $(n fdatasync) fdatasync"
		grep "warning\|mismatch" "$work/hide.out" | sed 's/^/     /'
	fi
fi

# 2c. A submission refused for a while (-EAGAIN: the kernel has no memory for the request
# yet) is submitted again, not the call's error, and no completion is taken for another
# call's: uring_hide.so refuses every third submission of each thread before it reaches the
# kernel. Before: the run failed with errors (the refused entry's completion came later, as
# the result of the call after it).
if [ -f "$hide" ]; then
	profile io_uring "read_weight=2
write_fsync_weight=1
create_fdatasync_weight=1
stat_weight=1" "verify=1" >"$work/eagain.ffsb"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" URING_EAGAIN_EVERY=3 \
		LD_PRELOAD=$hide timeout 120 "$bin" run "$work/eagain.ffsb" --location "$(shmdir)" \
		--seed 4 --json "$work/eagain.json" >"$work/eagain.out" 2>&1
	rc=$?
	errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/eagain.json" 2>/dev/null)
	[ $rc -eq 0 ] && [ "$errs" = 0 ] && grep -q " 0 content mismatches" "$work/eagain.out" &&
		ok "io_uring: every third submission refused (-EAGAIN): submitted again, 0 errors, no mismatch" ||
		{ bad "io_uring with refused submissions: exit $rc, $errs errors"; tail -3 "$work/eagain.out" | sed 's/^/     /'; }
fi

# 2d. A ring that refuses a submission for good (any error but EINTR, EAGAIN, EBUSY: a broken
# ring) fails that one call, and the worker makes every later call synchronously, never
# entering the ring again (its refused entry, still queued, would go with the next call's):
# uring_hide.so fails each thread's 20th submission and every later one with EFAULT. One
# error per worker, then the run goes on (--continue-on-error) with no mismatch. Before: every
# call after the 20th failed.
if [ -f "$hide" ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" URING_FAIL_FROM=20 \
		LD_PRELOAD=$hide timeout 120 "$bin" run "$work/eagain.ffsb" --location "$(shmdir)" \
		--seed 4 --continue-on-error --json "$work/broken.json" >"$work/broken.out" 2>&1
	rc=$?
	errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/broken.json" 2>/dev/null)
	ran=$(jq -r '[.total.ops[] | .count] | add' "$work/broken.json" 2>/dev/null)
	[ "$errs" = 2 ] && [ "${ran:-0}" -ge 250 ] && grep -q " 0 content mismatches" "$work/broken.out" &&
		ok "io_uring: a broken ring: one failed call per worker (exit $rc), $ran ops then made directly" ||
		{ bad "io_uring with a broken ring: exit $rc, ${errs:-?} errors, ${ran:-?} ops"; tail -3 "$work/broken.out" | sed 's/^/     /'; }
fi

# 3. The durability log under io_uring, then fsmix verify.
dur="create_fsync_weight=2
write_fsync_weight=3
write_fdatasync_weight=2
append_fsync_weight=2
replace_fsync_weight=2
rename_weight=1
delete_weight=1
readall_weight=2"
loc2=$(shmdir)
profile io_uring "$dur" "verify=1" >"$work/dur.ffsb"
timeout 120 "$bin" run "$work/dur.ffsb" --location "$loc2" --seed 9 --json "$work/dur.json" \
	--csv "$work/dur.csv" --durability-log "$work/dur.durlog" >"$work/dur.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "0 content mismatches" "$work/dur.out" &&
	ok "io_uring with --durability-log and verify=1: exit 0, no mismatch" ||
	{ bad "io_uring logged run: exit $rc"; tail -5 "$work/dur.out" | sed 's/^/     /'; }
timeout 120 "$bin" verify "$work/dur.ffsb" --location "$loc2" --durability-log "$work/dur.durlog" \
	--json "$work/dur-verify.json" >"$work/dur-verify.out" 2>&1
vrc=$?
fsyncs=$(jq -r '[.total.syscalls[] | select(.name == "fsync" or .name == "fdatasync") | .latency.count] | add // 0' "$work/dur.json")
if [ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/dur-verify.json")" = 0 ] &&
	[ "$(jq -r .checked "$work/dur-verify.json")" -gt 0 ] && [ "$fsyncs" -gt 0 ]; then
	ok "io_uring: fsmix verify: $(jq -r .checked "$work/dur-verify.json") promises kept after $fsyncs syncs through the ring"
else
	bad "io_uring: fsmix verify exit $vrc"
	tail -8 "$work/dur-verify.out" | sed 's/^/     /'
fi

# 3b. read_skip's lseek(SEEK_CUR) moves the kept position from where the reads left it (the
# engine makes no lseek call): every read checked against the content (verify=1).
profile io_uring "read_weight=1" "verify=1" |
	sed 's/^read_random=1/read_random=0\nread_skip=1\nread_skipsize=4KB/' >"$work/skip.ffsb"
timeout 120 "$bin" run "$work/skip.ffsb" --location "$(shmdir)" --seed 3 --json "$work/skip.json" \
	>"$work/skip.out" 2>&1
rc=$?
seeks=$(jq -r '[.total.syscalls[] | select(.name == "lseek") | .latency.count] | add // 0' "$work/skip.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "${seeks:-0}" -gt 0 ] && grep -q " 0 content mismatches" "$work/skip.out" &&
	ok "io_uring: read_skip: $seeks kept seeks (SEEK_SET, SEEK_CUR), no content mismatch" ||
	{ bad "io_uring read_skip: exit $rc, $seeks seeks"; grep -m2 "mismatch\|error" "$work/skip.out" | sed 's/^/     /'; }

# 3c. fdatasync goes to the kernel as a datasync (IORING_FSYNC_DATASYNC), fsync as a full one:
# strace sees neither, ext4's tracepoint ext4_sync_file_enter does (its datasync field), in a
# tracefs instance of this test's own, for its own loop-mounted ext4 only.
trc=$work/tracefs
inst=$trc/instances/fsmix-e2e-$$
if ! mount_ext4 "$work/ext4" 64 || ! mkdir -p "$trc" || ! mount -t tracefs nodev "$trc" 2>/dev/null; then
	skipped "datasync check: needs root, a loop-mounted ext4 and tracefs"
elif mounts+=("$trc") && ! [ -d "$trc/events/ext4/ext4_sync_file_enter" ] || ! mkdir "$inst" 2>/dev/null; then
	skipped "datasync check: no ext4_sync_file_enter tracepoint or tracefs instance"
else
	dev=$(mountpoint -d "$work/ext4" | tr : ,)
	echo 1 >"$inst/events/ext4/ext4_sync_file_enter/enable"
	profile io_uring "write_fsync_weight=1
write_fdatasync_weight=1" >"$work/ds.ffsb"
	timeout 120 "$bin" run "$work/ds.ffsb" --location "$work/ext4" --seed 5 --json "$work/ds.json" \
		>"$work/ds.out" 2>&1
	rc=$?
	echo 0 >"$inst/events/ext4/ext4_sync_file_enter/enable"
	grep "ext4_sync_file_enter: dev $dev " "$inst/trace" >"$work/ds.trace"
	rmdir "$inst"
	umount "$trc" # now: cleanup's rm -rf "$work" must never reach into a tracefs
	count() { jq -r "[.total.syscalls[] | select(.name == \"$1\") | .latency.count] | add // 0" "$work/ds.json"; }
	fds=$(count fdatasync) fss=$(count fsync)
	ds1=$(grep -c " datasync 1" "$work/ds.trace") ds0=$(grep -c " datasync 0" "$work/ds.trace")
	[ $rc -eq 0 ] && [ "$fds" -gt 0 ] && [ "$fss" -gt 0 ] && [ "$ds1" = "$fds" ] && [ "$ds0" -ge "$fss" ] &&
		ok "io_uring: $fds fdatasync reach ext4 as datasyncs, $fss fsync as full ones" ||
		bad "io_uring: exit $rc; the report counts $fds fdatasync and $fss fsync, ext4 saw $ds1 datasyncs and $ds0 full syncs"
fi

# 4. The reports name the engine.
[ "$(jq -r '.groups[0].engine' "$work/dur.json")" = io_uring ] &&
	[ "$(jq -r '.groups[0].iodepth' "$work/dur.json")" = 1 ] &&
	ok "JSON: groups[0].engine io_uring, iodepth 1" || bad "JSON: no engine in groups[0]"
grep -q "engine *= io_uring, iodepth 1" "$work/dur.out" &&
	ok "text: the group's engine and depth" || bad "text: no engine line"
grep -q "^engine,threadgroup0,io_uring,1," "$work/dur.csv" &&
	ok "CSV: the group's engine row (io_uring, depth 1)" || bad "CSV: no engine row"
summary
