#!/usr/bin/env bash
# iodepth (docs/engines.md, "Depth above 1"):
# 1. The key: `fsmix keys` lists it as an fsmix extension, --strict-ffsb refuses it; iodepth=0,
#    iodepth=1025 and iodepth=2 with engine=sync are errors at the key's file:line naming it
#    and why (exit 2). (op_rate, op_period and op_delay at depth: depth_arrivals.sh.)
# 2. engine=io_uring iodepth=16 with every operation fsmix has weighted (but zero_range, which
#    tmpfs lacks), under strace -f: the workers make none of the calls the ring does, only
#    io_uring_enter; more than one call goes in one io_uring_enter, and the report's
#    max_in_flight is above 1 (at most 16); every started operation is counted once (ops +
#    skipped + errors = threads x num_ops), and the submissions (each one completion) equal
#    the calls the report counts.
# 3. A logged run at depth 16 (--durability-log, verify=1): exit 0, no mismatch; `fsmix
#    verify` finds every promise kept.
# 4. The reports say the depth (text, JSON, CSV).
# 5. A file set smaller than the depth (busy picks among a worker's own fibers), a ramp and a
#    time limit, refused and broken submissions (tests/tools/preload/uring_hide.c): no hang,
#    no error, no mismatch.
# 6. --iodepth N overrides the key; --iodepth LIST sweeps it (JSON, plot); refused with
#    engine=sync (exit 2).
# Fails on the old binary (no key iodepth: exit 2 at the profile).
set -u
. "$(dirname "$0")/lib.bash"

"$bin" keys 2>&1 | grep -q "^  iodepth .*\[fsmix extension\]" &&
	ok "fsmix keys lists iodepth as an fsmix extension" || bad "fsmix keys: no iodepth key"

profile() { # profile ENGINE DEPTH OPS-LINES [TOP-LINES] [GROUP-LINES]
	cat <<EOF
time=0
${4:-}
[filesystem0]
location=/unused
num_files=40
num_dirs=3
min_filesize=8KB
max_filesize=24KB
[end0]
[threadgroup0]
num_threads=2
num_ops=200
engine=$1
iodepth=$2
${5:-}
$3
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

# 1. The key and its bad values.
profile io_uring 4 "read_weight=1" >"$work/strict.ffsb"
"$bin" check "$work/strict.ffsb" --strict-ffsb >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "iodepth: fsmix extension, rejected by --strict-ffsb" "$work/strict.out" &&
	ok "--strict-ffsb refuses iodepth (exit 2)" ||
	{ bad "--strict-ffsb with iodepth: exit $rc"; sed 's/^/     /' "$work/strict.out"; }
badval() { # badval NAME ENGINE DEPTH MESSAGE-REGEX [GROUP-LINES]
	profile "$2" "$3" "read_weight=1" "" "${5:-}" >"$work/$1.ffsb"
	"$bin" check "$work/$1.ffsb" >"$work/$1.out" 2>&1
	local rc=$? line
	line=$(grep -n '^iodepth=' "$work/$1.ffsb" | cut -d: -f1)
	[ $rc -eq 2 ] && grep -q "$1.ffsb:$line: error: \[threadgroup0\] iodepth: $4" "$work/$1.out" &&
		ok "engine=$2 iodepth=$3 ${5:-}: an error at $1.ffsb:$line naming the key (exit 2)" ||
		{ bad "engine=$2 iodepth=$3 ${5:-}: exit $rc"; sed 's/^/     /' "$work/$1.out"; }
}
badval zero io_uring 0 ".*0.*1"
badval huge io_uring 1025 ".*1024"
badval sync sync 2 "2 needs engine=io_uring: engine=sync makes each call itself"
profile sync 1 "read_weight=1" >"$work/one.ffsb"
"$bin" check "$work/one.ffsb" >/dev/null 2>&1 && ok "engine=sync iodepth=1 checks" ||
	bad "engine=sync iodepth=1 refused"

# Is the io_uring engine built in, and is io_uring available here?
probe=$(profile io_uring 2 "stat_weight=1" | sed 's/^num_ops=.*/num_ops=1/')
"$bin" run <(echo "$probe") --location "$(shmdir)" >"$work/probe.out" 2>&1
if [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'engine=io_uring' "$work/probe.out")"
	summary
fi

# (a sequence and its steps have no weight key: sequence.sh runs them through the ring)
all=$(grep '^OP(' "$src/src/base/ops.def" | grep -v 'OPF_STEP\|OPF_SEQ' | sed 's/^OP(\([a-z_0-9]*\),.*/\1/' |
	grep -vx 'zero_range' | while read -r o; do
		case $o in sync) echo "${o}_weight=1" ;; *) echo "${o}_weight=10" ;; esac
	done)
# ops + skipped + errors of a JSON report: every started operation, once
started() { jq -r '[.total.ops[] | .count + .skipped + .errors] | add' "$1" 2>/dev/null; }

# 2. Every operation at depth 16 through the ring, under strace.
traced_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
calls=openat,read,write,close,fsync,fdatasync,statx,newfstatat,unlinkat,mkdirat,renameat,renameat2,linkat,ftruncate,fallocate,lseek,pread64,pwrite64
if ! command -v strace >/dev/null; then
	skipped "no strace"
else
	profile io_uring 16 "$all" >"$work/all.ffsb"
	ASAN_OPTIONS=$traced_asan timeout 300 strace -f -qq -o "$work/trace" -e trace="io_uring_enter,$calls" \
		"$bin" run "$work/all.ffsb" --location "$(shmdir)" --seed 7 --json "$work/all.json" \
		>"$work/all.out" 2>&1
	rc=$?
	awk '$2 ~ /^io_uring_enter\(/ { n[$1]++ } END { for (t in n) print t, n[t] }' "$work/trace" \
		>"$work/enters"
	workers=$(wc -l <"$work/enters")
	stray=$(awk 'NR == FNR { w[$1] = 1; next }
		($1 in w) && $2 !~ /^io_uring_enter\(/ && $2 !~ /^(\+\+\+|---|<\.\.\.)/' \
		"$work/enters" "$work/trace" | head -5)
	ops=$(jq -r '[.total.ops[] | select(.count > 0)] | length' "$work/all.json" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$workers" -eq 2 ] && [ -z "$stray" ] && [ "${ops:-0}" -ge 25 ]; then
		ok "iodepth=16: $ops operations ran; the 2 workers made no $calls call, only io_uring_enter"
	else
		bad "iodepth=16: exit $rc, $workers threads entered io_uring, $ops operations ran; stray calls: $stray"
		tail -5 "$work/all.out" | sed 's/^/     /'
	fi
	# submissions per io_uring_enter (its second argument): more than one call in one
	batch=$(awk '$2 ~ /^io_uring_enter\(/ { n = $3 + 0; if (n > m) m = n } END { print m + 0 }' "$work/trace")
	mif=$(jq -r '.groups[0].max_in_flight' "$work/all.json" 2>/dev/null)
	[ "$batch" -gt 1 ] && [ "${mif:-0}" -gt 1 ] && [ "$mif" -le 16 ] &&
		ok "iodepth=16: up to $batch calls submitted by one io_uring_enter; max_in_flight $mif" ||
		bad "iodepth=16: at most $batch calls per io_uring_enter, max_in_flight ${mif:-?}"
	n=$(started "$work/all.json")
	[ "$n" = 400 ] && ok "iodepth=16: ops + skipped + errors = 2 threads x num_ops 200" ||
		bad "iodepth=16: $n operations started and counted, not 400"
	# Every call is timed but the open and close of a directory createdir made (engines.sh):
	# without createdir, one submission, and one completion, per call the report counts.
	profile io_uring 16 "$(grep -v '^createdir_weight' <<<"$all")" >"$work/nodir.ffsb"
	ASAN_OPTIONS=$traced_asan timeout 300 strace -f -qq -o "$work/trace2" -e trace=io_uring_enter \
		"$bin" run "$work/nodir.ffsb" --location "$(shmdir)" --seed 7 --json "$work/nodir.json" \
		>"$work/nodir.out" 2>&1
	rc=$?
	subs=$(awk '$2 ~ /^io_uring_enter\(/ { s += $3 } END { print s + 0 }' "$work/trace2")
	counted=$(jq -r '[.total.syscalls[] | select(.name != "lseek" and .name != "sync" and .name != "syncfs") | .latency.count] | add // 0' "$work/nodir.json" 2>/dev/null)
	errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/nodir.json" 2>/dev/null)
	[ $rc -eq 0 ] && [ "$errs" = 0 ] && [ "$subs" = "$counted" ] &&
		[ "$(started "$work/nodir.json")" = 400 ] &&
		ok "iodepth=16: the submissions ($subs) equal the calls the report counts" ||
		bad "iodepth=16: exit $rc, $errs errors, $subs submissions, but the report counts $counted calls"
fi

# 2b. io-wq's workers for calls on regular files: as many as the depth (the kernel's default,
# min(ring entries, 4 per CPU), would serve 16 fsyncs in flight a few at a time).
if command -v strace >/dev/null; then
	profile io_uring 16 "stat_weight=1" >"$work/iowq.ffsb"
	ASAN_OPTIONS=$traced_asan timeout 120 strace -f -qq -e trace=io_uring_register -o "$work/iowq.trace" \
		"$bin" run "$work/iowq.ffsb" --location "$(shmdir)" >"$work/iowq.out" 2>&1
	grep -q 'IORING_REGISTER_IOWQ_MAX_WORKERS, \[\[IO_WQ_BOUND\]=16, \[IO_WQ_UNBOUND\]=0\]' "$work/iowq.trace" &&
		ok "iodepth=16: io-wq's bounded workers raised to 16 (IORING_REGISTER_IOWQ_MAX_WORKERS)" ||
		{ bad "iodepth=16: no IORING_REGISTER_IOWQ_MAX_WORKERS of 16"; grep -v PROBE "$work/iowq.trace" | head -3; }
fi

# 3. The durability log at depth 16, then fsmix verify.
dur="create_fsync_weight=2
write_fsync_weight=3
write_fdatasync_weight=2
append_fsync_weight=2
replace_fsync_weight=2
rename_weight=1
delete_weight=1
readall_weight=2
read_weight=2"
loc2=$(shmdir)
profile io_uring 16 "$dur" "verify=1" >"$work/dur.ffsb"
timeout 120 "$bin" run "$work/dur.ffsb" --location "$loc2" --seed 9 --json "$work/dur.json" \
	--csv "$work/dur.csv" --durability-log "$work/dur.durlog" >"$work/dur.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q " 0 content mismatches" "$work/dur.out" &&
	[ "$(jq -r '.groups[0].max_in_flight' "$work/dur.json")" -gt 1 ] &&
	ok "iodepth=16 with --durability-log and verify=1: exit 0, no mismatch" ||
	{ bad "iodepth=16 logged run: exit $rc"; tail -5 "$work/dur.out" | sed 's/^/     /'; }
timeout 120 "$bin" verify "$work/dur.ffsb" --location "$loc2" --durability-log "$work/dur.durlog" \
	--json "$work/dur-verify.json" >"$work/dur-verify.out" 2>&1
vrc=$?
if [ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/dur-verify.json")" = 0 ] &&
	[ "$(jq -r .checked "$work/dur-verify.json")" -gt 0 ]; then
	ok "iodepth=16: fsmix verify: $(jq -r .checked "$work/dur-verify.json") promises kept"
else
	bad "iodepth=16: fsmix verify exit $vrc"
	tail -8 "$work/dur-verify.out" | sed 's/^/     /'
fi

# 3b. A sequence (sequence=, a file kept open between steps) at depth 8: each fiber keeps its
# own sequence's file (before, the fibers shared the worker's: a step found another's file, or
# none, and failed), with verify=1 and the durability log, then fsmix verify.
loc3=$(shmdir)
cat >"$work/seq.ffsb" <<EOF
time=0
verify=1
[filesystem0]
location=/unused
num_files=60
num_dirs=2
min_filesize=4KB
max_filesize=16KB
[end0]
[threadgroup0]
num_threads=2
num_ops=150
engine=io_uring
iodepth=8
sequence=delete,create,append,fsync,close,open,readall,append,fdatasync,close
write_size=4KB
write_blocksize=4KB
read_blocksize=4KB
[end0]
EOF
timeout 120 "$bin" run "$work/seq.ffsb" --location "$loc3" --seed 5 --json "$work/seq.json" \
	--durability-log "$work/seq.durlog" >"$work/seq.out" 2>&1
rc=$?
seqs=$(jq -r '[.total.ops[] | select(.name == "sequence") | .count] | add' "$work/seq.json" 2>/dev/null)
errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/seq.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "$seqs" = 300 ] && [ "$errs" = 0 ] &&
	[ "$(jq -r '.groups[0].max_in_flight' "$work/seq.json")" -gt 1 ] &&
	grep -q " 0 content mismatches" "$work/seq.out" &&
	ok "iodepth=8 with a sequence: 300 sequences, no error, no mismatch" ||
	{ bad "iodepth=8 sequence: exit $rc, sequences '$seqs', errors '$errs'"; tail -4 "$work/seq.out" | sed 's/^/     /'; }
timeout 120 "$bin" verify "$work/seq.ffsb" --location "$loc3" --durability-log "$work/seq.durlog" \
	>"$work/seq-verify.out" 2>&1 &&
	ok "iodepth=8 sequence: fsmix verify: every promise kept" ||
	{ bad "iodepth=8 sequence: fsmix verify failed"; tail -4 "$work/seq-verify.out" | sed 's/^/     /'; }

# 4. The reports.
grep -q "engine  *= io_uring, iodepth 16" "$work/dur.out" && ok "text report: engine = io_uring, iodepth 16" ||
	bad "text report: $(grep 'engine  *=' "$work/dur.out")"
[ "$(jq -r '.groups[0].iodepth' "$work/dur.json")" = 16 ] && ok "JSON: groups[0].iodepth 16" ||
	bad "JSON: iodepth $(jq -r '.groups[0].iodepth' "$work/dur.json")"
grep -q '^engine,threadgroup0,io_uring,16,' "$work/dur.csv" && ok "CSV: the engine row counts depth 16" ||
	bad "CSV: $(grep engine "$work/dur.csv")"

# 5a. Two files, depth 16: most picks find the file held by another fiber of the same worker
# (busy, as for another thread); no hang, every started operation counted once (ops, skipped,
# errors or busy).
profile io_uring 16 "write_fsync_weight=1
read_weight=1" "verify=1" | sed 's/^num_files=.*/num_files=2/' >"$work/few.ffsb"
timeout 120 "$bin" run "$work/few.ffsb" --location "$(shmdir)" --seed 5 --json "$work/few.json" \
	>"$work/few.out" 2>&1
rc=$?
busy=$(jq -r '[.total.ops[] | .busy] | add' "$work/few.json" 2>/dev/null)
all_started=$(jq -r '[.total.ops[] | .count + .skipped + .errors + .busy] | add' "$work/few.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "$all_started" = 400 ] && [ "${busy:-0}" -gt 0 ] && grep -q " 0 content mismatches" "$work/few.out" &&
	[ "$(jq -r '[.total.ops[] | .errors] | add' "$work/few.json")" = 0 ] &&
	ok "iodepth=16 on 2 files: exit 0, no error, no mismatch ($busy busy picks)" ||
	{ bad "iodepth=16 on 2 files: exit $rc"; tail -3 "$work/few.out" | sed 's/^/     /'; }

# 5b. A ramp and a time limit at depth 8: the operations in flight at the end complete; those
# counted are those logged (--lat-log): one started in the ramp counts nowhere.
profile io_uring 8 "read_weight=2
create_fsync_weight=1
delete_weight=1" "ramp_time=1" | sed 's/^time=0/time=2/; /^num_ops=/d' >"$work/timed.ffsb"
timeout 60 "$bin" run "$work/timed.ffsb" --location "$(shmdir)" --seed 6 --json "$work/timed.json" \
	--lat-log "$work/timed.lat" --interval 1 >"$work/timed.out" 2>&1
rc=$?
n=$(jq -r '[.total.ops[] | .count] | add' "$work/timed.json" 2>/dev/null)
lines=$(grep -vc '^#' "$work/timed.lat")
[ $rc -eq 0 ] && [ "${n:-0}" -gt 0 ] && [ "$(jq -r '[.total.ops[] | .errors] | add' "$work/timed.json")" = 0 ] &&
	[ "$lines" = "$n" ] &&
	ok "iodepth=8, ramp_time=1, time=2: exit 0, $n operations, as many --lat-log lines, no error" ||
	{ bad "iodepth=8 timed: exit $rc, ${n:-?} ops, $lines log lines"; tail -3 "$work/timed.out" | sed 's/^/     /'; }

# 6. --iodepth: one value sets every group's (or group G's); a list is a sweep, one point per
# depth, each run at its depth (its JSON's groups[].iodepth), drawn as a threads sweep is.
profile io_uring 1 "read_weight=1
stat_weight=1" >"$work/sweep.ffsb"
"$bin" run "$work/sweep.ffsb" --location "$(shmdir)" --seed 2 --iodepth 0=4 --json "$work/one.json" \
	>"$work/one.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(jq -r '.groups[0].iodepth' "$work/one.json")" = 4 ] &&
	ok "--iodepth 0=4: group 0 runs at depth 4" || bad "--iodepth 0=4: exit $rc"
plot=""
command -v gnuplot >/dev/null && plot="--plot $work/sweep.svg"
# shellcheck disable=SC2086
timeout 120 "$bin" run "$work/sweep.ffsb" --location "$(shmdir)" --seed 2 --iodepth 1-16:x4 \
	--json "$work/sweep.json" $plot >"$work/sweep.out" 2>&1
rc=$?
depths=$(jq -r '[.points[] | .runs[0].groups[0].iodepth | tostring] | join(",")' "$work/sweep.json" 2>/dev/null)
label=$(jq -r '.dimensions[0].label' "$work/sweep.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "$depths" = "1,4,16" ] && [ "$label" = iodepth ] &&
	{ [ -z "$plot" ] || [ -s "$work/sweep.svg" ]; } &&
	ok "--iodepth 1-16:x4: a sweep of 3 points at depths $depths${plot:+, plotted}" ||
	{ bad "--iodepth sweep: exit $rc, depths ${depths:-?}, label ${label:-?}"; tail -3 "$work/sweep.out" | sed 's/^/     /'; }
sed 's/^engine=io_uring/engine=sync/' "$work/sweep.ffsb" >"$work/sweep-sync.ffsb"
"$bin" run "$work/sweep-sync.ffsb" --location "$(shmdir)" --iodepth 1,4 >"$work/sweep-sync.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "^--iodepth 4: error: \[threadgroup0\] iodepth: 4 needs engine=io_uring" "$work/sweep-sync.out" &&
	ok "--iodepth 1,4 with engine=sync: refused before anything runs (exit 2)" ||
	{ bad "--iodepth sweep with engine=sync: exit $rc"; tail -3 "$work/sweep-sync.out" | sed 's/^/     /'; }

# 5c. Refused submissions at depth 16: every third io_uring_submit_and_wait -EAGAIN (submitted
# again), then a broken ring (the 20th and later -EFAULT): the calls not submitted fail, the
# worker goes on making its calls directly.
hide=${FSMIX_TOOLS:-}/uring_hide.so
if [ -f "$hide" ]; then
	profile io_uring 16 "read_weight=2
write_fsync_weight=1
create_fdatasync_weight=1
stat_weight=1" "verify=1" >"$work/eagain.ffsb"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" URING_EAGAIN_EVERY=3 \
		LD_PRELOAD=$hide timeout 120 "$bin" run "$work/eagain.ffsb" --location "$(shmdir)" \
		--seed 4 --json "$work/eagain.json" >"$work/eagain.out" 2>&1
	rc=$?
	errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/eagain.json" 2>/dev/null)
	[ $rc -eq 0 ] && [ "$errs" = 0 ] && grep -q " 0 content mismatches" "$work/eagain.out" &&
		ok "iodepth=16: every third submission refused (-EAGAIN): submitted again, 0 errors" ||
		{ bad "iodepth=16 with refused submissions: exit $rc, $errs errors"; tail -3 "$work/eagain.out" | sed 's/^/     /'; }
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" URING_FAIL_FROM=20 \
		LD_PRELOAD=$hide timeout 120 "$bin" run "$work/eagain.ffsb" --location "$(shmdir)" \
		--seed 4 --continue-on-error --json "$work/broken.json" >"$work/broken.out" 2>&1
	rc=$?
	errs=$(jq -r '[.total.ops[] | .errors] | add' "$work/broken.json" 2>/dev/null)
	[ "${errs:-0}" -ge 2 ] && [ "$errs" -le 32 ] && [ "$(started "$work/broken.json")" = 400 ] &&
		grep -q " 0 content mismatches" "$work/broken.out" &&
		ok "iodepth=16: a broken ring: $errs calls not submitted failed (exit $rc), the rest made directly" ||
		{ bad "iodepth=16 with a broken ring: exit $rc, ${errs:-?} errors, $(started "$work/broken.json") started"; tail -3 "$work/broken.out" | sed 's/^/     /'; }
else
	skipped "refused submissions: no $hide"
fi

summary
