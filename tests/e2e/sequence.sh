#!/usr/bin/env bash
# Sequences (issue 28, item 1): sequence= runs a thread group's steps in order on one file kept
# open between them, as filebench's flowops. `fsmix check` prints the sequence as it will run;
# --strict-ffsb refuses the key; bad sequences are refused at their line (exit 2); a counted
# run of filebench's varmail sequence makes exactly filebench's calls per transaction (strace:
# 1 unlink, 1 open with O_CREAT and 2 without, 2 lseek(SEEK_END) + write, 2 fsync, 2 lseek(0)
# + read until 0, 3 close); each step's row counts as many as the sequence has such steps per
# transaction, in text, JSON and CSV; and a sequence run under --durability-log verifies.
# Fails on a binary without sequence= (fsmix refuses the unknown key).
set -u
. "$(dirname "$0")/lib.bash"

varmail='delete,create,append,fsync,close,open,readall,append,fsync,close,open,readall,close'
profile() { # LOCATION SEQUENCE [EXTRA-GROUP-LINES] [OPS] [FILES]
	printf 'time=0\n[filesystem0]\n\tlocation=%s\n\tnum_files=%s\n\tnum_dirs=0\n' "$1" "${5:-40}"
	printf '\tmin_filesize=3000\n\tmax_filesize=24000\n\tcreate_blocksize=1m\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=%s\n\tsequence=%s\n' "${4:-30}" "$2"
	printf '\twrite_bsrange=1-16k\n\twrite_blocksize=1m\n\tread_blocksize=1m\n%b' "${3:-}"
	printf '\t[stats]\n\t\tenable_stats=1\n\t[end]\n[end0]\n'
}
jq_() { # JSON PYTHON-EXPRESSION-OF-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}
run_() { timeout 120 "$bin" "$@"; }

# ---- 1. check prints the sequence as it will run; --strict-ffsb refuses it -----------------
profile "$(shmdir)" "$varmail" >"$work/v.ffsb"
run_ check "$work/v.ffsb" >"$work/check.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'sequence: 13 steps, one transaction, in this order:' "$work/check.out" &&
	grep -qE '^ +1 delete +unlinkat\(\) of a random file$' "$work/check.out" &&
	grep -qE '^ +2 create +openat\(O_CREAT\|O_EXCL\|O_RDWR\) of a new file$' "$work/check.out" &&
	grep -qE '^ +3 append +lseek\(0, SEEK_END\), write\(\); a size drawn from 1-16k$' "$work/check.out" &&
	grep -qE '^ +6 open +openat\(O_RDWR\) of a random file, held alone \(a step writes\)$' "$work/check.out" &&
	grep -qE '^ +11 open +openat\(O_RDONLY\) of a random file, shared \(its steps read\)$' "$work/check.out" &&
	grep -qE '^ +12 readall +lseek\(0\), read\(\) until it returns 0; read\(\) of 1MB$' "$work/check.out" &&
	grep -qE '^ +13 close +close\(\)$' "$work/check.out"; then
	ok "check prints the sequence: 13 steps with their calls and sizes"
else
	bad "check: exit $rc"; cat "$work/check.out"
fi
run_ check --strict-ffsb "$work/v.ffsb" >/dev/null 2>"$work/strict.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'v.ffsb:13: error: \[threadgroup0\] sequence: fsmix extension, rejected by --strict-ffsb' "$work/strict.err"; then
	ok "--strict-ffsb refuses sequence at its line (exit 2)"
else
	bad "--strict-ffsb: exit $rc"; cat "$work/strict.err"
fi

# ---- 2. bad sequences: exit 2, file:line, the key, what is wrong ---------------------------
bad_seq() { # SEQUENCE EXTRA PATTERN LABEL
	profile /tmp "$1" "$2" >"$work/bad.ffsb"
	"$bin" check "$work/bad.ffsb" >/dev/null 2>"$work/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$3" "$work/bad.err"; then
		ok "refused: $4"
	else
		bad "$4: exit $rc"; cat "$work/bad.err"
	fi
}
bad_seq 'open,wrte,close' '' "bad.ffsb:13: error: \[threadgroup0\] sequence: 'open,wrte,close': step 2 'wrte' is no step" 'an unknown step'
bad_seq 'write,close' '' "step 1 'write' needs an open file: put create or open before it" 'write with no file open'
bad_seq 'open,open,close' '' "step 2 'open' with a file open (step 1 'open'): close it first" 'open with a file open'
bad_seq 'create,append' '' "ends with the file of step 1 'create' open: end it with close" 'a file left open'
bad_seq 'open,fsync*2,close' '' "only write, append, read and readall take \*N" '*N on fsync'
bad_seq 'open,write*0,close' '' 'N of \*N must be 1..1000000' 'write*0'
bad_seq 'open,readall,close' '\tread_weight=1\n' "bad.ffsb:17: error: \[threadgroup0\] read_weight: cannot be combined with sequence (line 13)" 'a weight beside it'
bad_seq 'open,read,close' '' "bad.ffsb:13: error: \[threadgroup0\] read_size: missing: sequence step 'read' (line 13) needs it" 'read without read_size'

# ---- 3. a counted varmail run: filebench's calls, exactly (strace) -------------------------
n=30
loc=$(shmdir)
profile "$loc" "$varmail" '' "$n" >"$work/run.ffsb"
if ! command -v strace >/dev/null; then
	skip_env strace "the calls of a sequence by strace: strace not installed"
else
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat,lseek,read,write,fsync,fdatasync,close,unlinkat \
		-o "$work/t.trace" "$bin" run --seed 5 "$work/run.ffsb" >"$work/t.out" 2>&1
	rc=$?
	# the worker: the thread that unlinks f<id> (only a run's delete does); its calls on the
	# descriptors of the f<id> it opened
	calls=$(python3 - "$work/t.trace" <<'PY'
import re, sys
from collections import Counter
lines = open(sys.argv[1]).read().splitlines()
tid = next((l.split()[0] for l in lines if re.search(r' unlinkat\(\d+, "f\d+", 0\) += 0', l)), None)
fds, c = set(), Counter()
for l in lines:
	if l.split()[0] != tid:
		continue
	m = re.search(r' openat\(\d+, "f\d+", ([^,)]*).*\) += (\d+)$', l)
	if m:
		fds.add(m[2])
		c["create" if "O_CREAT" in m[1] else "open"] += 1
		continue
	m = re.search(r' (lseek|read|write|fsync|fdatasync|close)\((\d+)(?:, [^,]*)?(?:, (\d+|SEEK_\w+))?.*\) += (-?\d+)', l)
	if m and m[2] in fds:
		k = m[1]
		if k == "lseek":
			k += "_end" if "SEEK_END" in l else "_set"
		if k == "read" and m[4] == "0":
			k = "read_eof"
		c[k] += 1
		if m[1] == "close":
			fds.discard(m[2])
	elif re.search(r' unlinkat\(\d+, "f\d+", 0\) += 0', l):
		c["unlink"] += 1
print(" ".join(f"{k}={c[k]}" for k in sorted(c)))
PY
)
	want="close=$((3 * n)) create=$n fsync=$((2 * n)) lseek_end=$((2 * n)) lseek_set=$((2 * n)) open=$((2 * n)) read=$((2 * n)) read_eof=$((2 * n)) unlink=$n write=$((2 * n))"
	if [ $rc -eq 0 ] && [ "$calls" = "$want" ]; then
		ok "varmail, $n transactions: filebench's calls exactly ($calls)"
	else
		bad "varmail calls: exit $rc: got '$calls', want '$want'"; tail -3 "$work/t.out"
	fi
fi

# ---- 4. the rows: each step as many as the sequence has, per transaction -------------------
run_ run --seed 5 "$work/run.ffsb" --json "$work/r.json" --csv "$work/r.csv" >"$work/r.out" 2>&1
rc=$?
rows=$(jq_ "$work/r.json" '" ".join("%s=%d" % (o["name"], o["count"]) for o in d["total"]["ops"])')
want="sequence=$n seq_create=$n seq_open=$((2 * n)) seq_append=$((2 * n)) seq_readall=$((2 * n)) seq_fsync=$((2 * n)) seq_close=$((3 * n)) seq_delete=$n"
trans=$(jq_ "$work/r.json" 'd["total"]["transactions"]')
if [ $rc -eq 0 ] && [ "$rows" = "$want" ] && [ "$trans" = "$n" ] &&
	[ "$(jq_ "$work/r.json" 'all(o["latency"]["count"] == o["count"] for o in d["total"]["ops"])')" = True ]; then
	ok "JSON: every step's row counts it per transaction, with its latency; $n transactions"
else
	bad "JSON rows: exit $rc, '$rows' (want '$want'), transactions '$trans'"
fi
if grep -q "^op,total,seq_readall,$((2 * n))," "$work/r.csv" && grep -q "^op,total,sequence,$n,$n," "$work/r.csv"; then
	ok "CSV: the step rows (seq_readall $((2 * n))) and the sequence's ($n transactions)"
else
	bad "CSV rows"; grep '^op,' "$work/r.csv" | head
fi
if grep -qE "^ +sequence : +$n\b" "$work/r.out" && grep -qE "^ +seq_append +$((2 * n)) " "$work/r.out"; then
	ok "text: the sequence's transactions, and each step's latency row"
else
	bad "text report"; sed -n '/Total Results/,/Transactions per/p;/Operation latency/,/^$/p' "$work/r.out"
fi

# ---- 5. with --durability-log: every acknowledged fsync kept (fsmix verify) ----------------
loc=$(shmdir)
profile "$loc" "$varmail" '' 40 >"$work/d.ffsb"
run_ run --seed 9 "$work/d.ffsb" --durability-log "$work/d.log" >"$work/d.out" 2>&1
rc=$?
run_ verify "$work/d.ffsb" --durability-log "$work/d.log" --json "$work/v.json" >"$work/v.out" 2>&1
vrc=$?
if [ $rc -eq 0 ] && [ $vrc -eq 0 ] && grep -q "every promise kept" "$work/v.out" &&
	[ "$(jq_ "$work/v.json" 'd["acknowledged"]["fsync"]')" = 80 ]; then
	ok "a sequence under --durability-log verifies: 80 fsyncs acknowledged, every promise kept"
else
	bad "durability log: run exit $rc, verify exit $vrc"; tail -3 "$work/d.out"; head -12 "$work/v.out"
fi

# ---- 6. every step, verify=1 and the durability log: content and promises kept -------------
all='create,writeall,append,fdatasync,write,close,open,read*2,readall,close,open,write*2,writeall,fsync,close,stat,rename,delete'
loc=$(shmdir)
profile "$loc" "$all" '\twrite_size=4k\n\tread_size=4k\n' 60 |
	sed 's/^\twrite_bsrange=.*//; s/^\tnum_dirs=0/\tnum_dirs=4/; 1s/^/verify=1\n/' >"$work/a.ffsb"
run_ run --seed 3 "$work/a.ffsb" --durability-log "$work/a.log" --json "$work/a.json" >"$work/a.out" 2>&1
rc=$?
run_ verify "$work/a.ffsb" --durability-log "$work/a.log" >"$work/av.out" 2>&1
vrc=$?
if [ $rc -eq 0 ] && [ $vrc -eq 0 ] && grep -q "verify: 0 content mismatches" "$work/a.out" &&
	[ "$(jq_ "$work/a.json" 'd["total"]["transactions"]')" = 60 ] && grep -q "every promise kept" "$work/av.out"; then
	ok "every step (write on a created file, reads after reads, rename, stat): 60 transactions, content and promises kept"
else
	bad "every step with verify=1: run exit $rc, verify exit $vrc"; tail -4 "$work/a.out"; head -8 "$work/av.out"
fi

# ---- 7. engine=io_uring: every call of the steps goes through the ring (the engine seam) ----
loc=$(shmdir)
profile "$loc" "$all" '\twrite_size=4k\n\tread_size=4k\n\tengine=io_uring\n' 20 |
	sed 's/^\twrite_bsrange=.*//; s/^\tnum_dirs=0/\tnum_dirs=4/' >"$work/u.ffsb"
if ! command -v strace >/dev/null; then
	skip_env strace "a sequence through io_uring by strace: strace not installed"
elif "$bin" run "$work/u.ffsb" --set threadgroup0.num_ops=1 >"$work/probe.out" 2>&1; [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'io_uring' "$work/probe.out")"
else
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$work/u.trace" \
		-e trace=io_uring_enter,openat,read,write,lseek,fsync,fdatasync,close,newfstatat,statx,unlinkat,renameat2 \
		"$bin" run --seed 3 "$work/u.ffsb" --json "$work/u.json" >"$work/u.out" 2>&1
	rc=$?
	workers=$(awk '$2 ~ /^io_uring_enter\(/ { print $1 }' "$work/u.trace" | sort -u)
	# (the engine keeps the positions of its files: lseek(SEEK_END), which needs the file's
	# size, is the one call it makes itself, through the same seam: engine_uring.c)
	stray=$(awk 'NR == FNR { w[$1] = 1; next } ($1 in w) && $2 !~ /^io_uring_enter\(/ &&
		$2 !~ /^(\+\+\+|---|<\.\.\.)/ && !($2 ~ /^lseek\(/ && $0 ~ /SEEK_END/)' \
		<(echo "$workers") "$work/u.trace" | head -3)
	if [ $rc -eq 0 ] && [ "$(echo "$workers" | grep -c .)" -eq 1 ] && [ -z "$stray" ] &&
		[ "$(jq_ "$work/u.json" 'd["total"]["transactions"]')" = 20 ]; then
		ok "engine=io_uring: every step's call went through the ring (but lseek(SEEK_END), as the engine does)"
	else
		bad "io_uring sequence: exit $rc, stray calls: $stray"; tail -3 "$work/u.out"
	fi
fi

summary
