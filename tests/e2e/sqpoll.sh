#!/usr/bin/env bash
# sqpoll=1 (docs/engines.md, "sqpoll"): the io_uring engine's ring with a kernel polling thread.
# 1. The key: `fsmix keys` lists it as an fsmix extension; with engine=sync it is an error at
#    its file:line naming the key (exit 2); --strict-ffsb refuses it (exit 2).
# 2. A run with engine=io_uring sqpoll=1 (stat, open_close, read, write_fsync, create, delete)
#    works: exit 0, no error; the polling threads' CPU is reported and above 0 (JSON
#    cpu.sqpoll_s, the text's line); without sqpoll the JSON has null and the text no line.
# 3. Under strace -f, a stat-only run (one call per operation) enters the kernel (io_uring_enter)
#    fewer times than it ran operations: the polling thread takes the submissions, and a
#    completion that is there by then needs no system call.
# Fails on the old binary (no key sqpoll: exit 2 at the profile).
set -u
. "$(dirname "$0")/lib.bash"

"$bin" keys 2>&1 | grep -q "^  sqpoll .*\[fsmix extension\]" &&
	ok "fsmix keys lists sqpoll as an fsmix extension" || bad "fsmix keys: no sqpoll key"

profile() { # profile ENGINE OPS-LINES
	cat <<EOF
time=2
[filesystem0]
location=/unused
num_files=50
num_dirs=3
min_filesize=8KB
max_filesize=8KB
[end0]
[threadgroup0]
num_threads=1
engine=$1
sqpoll=1
$2
read_size=4KB
read_blocksize=4KB
read_random=1
write_size=4KB
write_blocksize=4KB
[end0]
EOF
}

profile sync "stat_weight=1" >"$work/bad.ffsb"
"$bin" check "$work/bad.ffsb" >"$work/bad.out" 2>&1
rc=$?
line=$(grep -n '^sqpoll=' "$work/bad.ffsb" | cut -d: -f1)
[ $rc -eq 2 ] && grep -q "bad.ffsb:$line: error: \[threadgroup0\] sqpoll: needs engine=io_uring (engine is sync)" "$work/bad.out" &&
	ok "sqpoll=1 with engine=sync: an error at bad.ffsb:$line naming the key (exit 2)" ||
	{ bad "sqpoll=1 with engine=sync: exit $rc"; sed 's/^/     /' "$work/bad.out"; }
profile io_uring "stat_weight=1" >"$work/stat.ffsb"
"$bin" check "$work/stat.ffsb" --strict-ffsb >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "sqpoll: fsmix extension, rejected by --strict-ffsb" "$work/strict.out" &&
	ok "--strict-ffsb refuses sqpoll (exit 2)" ||
	{ bad "--strict-ffsb with sqpoll: exit $rc"; sed 's/^/     /' "$work/strict.out"; }

# 2. A mixed run.
profile io_uring "stat_weight=4
open_close_weight=1
read_weight=2
write_fsync_weight=1
create_weight=1
delete_weight=1" >"$work/mix.ffsb"
"$bin" run "$work/mix.ffsb" --location "$(shmdir)" --json "$work/mix.json" >"$work/mix.out" 2>&1
rc=$?
if [ $rc -eq 3 ] || { [ $rc -eq 1 ] && grep -q 'io_uring_queue_init' "$work/mix.out"; }; then
	skipped "engine=io_uring sqpoll=1 cannot run here: $(grep -m1 'io_uring' "$work/mix.out")"
	summary
fi
ops=$(jq -r '.total.operations' "$work/mix.json" 2>/dev/null)
errs=$(jq -r '.total.errors' "$work/mix.json" 2>/dev/null)
sq=$(jq -r '.cpu.sqpoll_s' "$work/mix.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "${ops:-0}" -gt 0 ] && [ "$errs" = 0 ] &&
	ok "engine=io_uring sqpoll=1: $ops operations of six kinds, no error" ||
	{ bad "engine=io_uring sqpoll=1: exit $rc, $ops operations, $errs errors"; sed 's/^/     /' "$work/mix.out" | tail -5; }
awk -v s="$sq" 'BEGIN { exit !(s + 0 > 0) }' &&
	ok "JSON: cpu.sqpoll_s = $sq s (the polling thread's CPU)" || bad "JSON: cpu.sqpoll_s = $sq"
grep -q "^CPU of io_uring's polling threads (sqpoll): [0-9.]* s" "$work/mix.out" &&
	ok "text: the polling threads' CPU line" || bad "text: no sqpoll CPU line"
sed 's/^sqpoll=1/sqpoll=0/' "$work/mix.ffsb" >"$work/nosq.ffsb"
"$bin" run "$work/nosq.ffsb" --location "$(shmdir)" --time 1 --json "$work/nosq.json" >"$work/nosq.out" 2>&1
[ "$(jq -r '.cpu.sqpoll_s' "$work/nosq.json" 2>/dev/null)" = null ] && ! grep -q "polling threads" "$work/nosq.out" &&
	ok "sqpoll=0: JSON cpu.sqpoll_s null, no text line" || bad "sqpoll=0: a sqpoll figure"

# 2b. The same mix at iodepth 8: the polling thread moves the ring's head only after a batch, so
# a fiber's next call may find the ring full although its last call completed (before: an
# assertion, exit 134); every operation completes, with the content checked.
"$bin" run "$work/mix.ffsb" --location "$(shmdir)" --set threadgroup0.iodepth=8 --set verify=1 \
	--json "$work/mix8.json" >"$work/mix8.out" 2>&1
rc=$?
ops=$(jq -r '.total.operations' "$work/mix8.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "${ops:-0}" -gt 0 ] && [ "$(jq -r .total.errors "$work/mix8.json")" = 0 ] &&
	[ "$(jq -r '.groups[0].max_in_flight' "$work/mix8.json")" -gt 1 ] &&
	grep -q " 0 content mismatches" "$work/mix8.out" &&
	ok "sqpoll=1 iodepth=8: $ops operations, no error, no mismatch" ||
	{ bad "sqpoll=1 iodepth=8: exit $rc, $ops operations"; tail -3 "$work/mix8.out" | sed 's/^/     /'; }

# 3. Fewer io_uring_enter than operations.
if ! command -v strace >/dev/null; then
	skip_env strace "strace: no strace"
else
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 \
		strace -f -qq -c -o "$work/strace" -e trace=io_uring_enter \
		"$bin" run "$work/stat.ffsb" --location "$(shmdir)" --json "$work/stat.json" >"$work/stat.out" 2>&1
	rc=$?
	enters=$(awk '$NF == "io_uring_enter" { print $4 }' "$work/strace")
	ops=$(jq -r '.total.operations' "$work/stat.json" 2>/dev/null)
	[ $rc -eq 0 ] && [ "${ops:-0}" -gt 0 ] && [ "${enters:-0}" -lt "$ops" ] &&
		ok "strace: ${enters:-0} io_uring_enter for $ops stat operations (one call each)" ||
		{ bad "strace: exit $rc, ${enters:-?} io_uring_enter for ${ops:-?} operations"; cat "$work/strace"; }
fi
summary
