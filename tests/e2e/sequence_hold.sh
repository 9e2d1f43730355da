#!/usr/bin/env bash
# sequence_hold=1 (issue 28, item 1: filebench's oltp): a sequence's file stays open across its
# loops, as filebench keeps a flowop's file open. `fsmix check` prints the hold; --strict-ffsb
# and bad values are refused at their line (exit 2); a counted run makes, per thread, one
# openat of its file (O_DSYNC for a writer with open_sync=dsync), every loop's lseek + write
# (or read) on that descriptor with no close between loops, and one close when the thread ends
# (strace); a thread of a phase closes its file before the next phase starts; writers and
# readers held on one pool keep their content (verify=1) and their promises (fsmix verify); under
# engine=io_uring at depth 1 (bench_depth.sh's data loop: open, write, fdatasync, close) every
# call goes through the ring, one io_uring_enter per write and per fdatasync, no close per loop.
# Fails on a binary without sequence_hold (fsmix refuses the unknown key).
set -u
. "$(dirname "$0")/lib.bash"

# profile LOCATION GROUPS...: a filesystem of 4 files of 64 KiB; each GROUP is the lines of a
# [threadgroupN] (tabs as \t, lines as \n).
profile() {
	printf 'time=0\n[filesystem0]\n\tlocation=%s\n\tnum_files=4\n\tnum_dirs=0\n' "$1"
	printf '\tmin_filesize=64k\n\tmax_filesize=64k\n\tcreate_blocksize=1m\n[end0]\n'
	shift
	local i=0 g
	for g in "$@"; do
		printf '[threadgroup%d]\n%b\t[stats]\n\t\tenable_stats=1\n\t[end]\n[end%d]\n' "$i" "$g" "$i"
		i=$((i + 1))
	done
}
writer='\tnum_threads=2\n\tnum_ops=5\n\tsequence=open,write*3,close\n\tsequence_hold=1\n\topen_sync=dsync\n\twrite_size=2k\n\twrite_blocksize=2k\n'
reader='\tnum_threads=3\n\tnum_ops=7\n\tsequence=open,read,close\n\tsequence_hold=1\n\tread_size=2k\n\tread_blocksize=2k\n'
jq_() { # JSON PYTHON-EXPRESSION-OF-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}
run_() { timeout 120 "$bin" "$@"; }

# ---- 1. check prints the hold; --strict-ffsb refuses it at its line -------------------------
profile "$(shmdir)" "$writer" >"$work/w.ffsb"
run_ check "$work/w.ffsb" >"$work/check.out" 2>&1
rc=$?
if [ $rc -eq 0 ] &&
	grep -q 'sequence: 3 steps, one transaction, in this order (sequence_hold: its file kept open across loops):' "$work/check.out" &&
	grep -qE '^ +1 open +openat\(O_RDWR\|O_DSYNC\) of a random file, held alone \(a step writes\); once per thread: later loops take it back, no call$' "$work/check.out" &&
	grep -qE '^ +3 close +no call: the file given back to the pool, kept open; close\(\) when the thread ends$' "$work/check.out"; then
	ok "check prints the hold: one openat(O_RDWR|O_DSYNC) per thread, close() when it ends"
else
	bad "check: exit $rc"; grep -A4 'sequence:' "$work/check.out"
fi
run_ check --strict-ffsb "$work/w.ffsb" >/dev/null 2>"$work/strict.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'w.ffsb:14: error: \[threadgroup0\] sequence_hold: fsmix extension, rejected by --strict-ffsb' "$work/strict.err"; then
	ok "--strict-ffsb refuses sequence_hold at its line (exit 2)"
else
	bad "--strict-ffsb: exit $rc"; cat "$work/strict.err"
fi

# ---- 2. bad values and conflicts: exit 2, file:line, the key, what is wrong -----------------
refused() { # PATTERN LABEL GROUPS...
	local pat=$1 label=$2
	shift 2
	profile /tmp "$@" >"$work/bad.ffsb"
	"$bin" check "$work/bad.ffsb" >/dev/null 2>"$work/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$pat" "$work/bad.err"; then
		ok "refused: $label"
	else
		bad "$label: exit $rc"; cat "$work/bad.err"
	fi
}
refused "bad.ffsb:14: error: \[threadgroup0\] sequence_hold: '2' is not a boolean" 'sequence_hold=2' "${writer/sequence_hold=1/sequence_hold=2}"
refused "bad.ffsb:14: error: \[threadgroup0\] sequence_hold: needs a sequence (line 13) of one open, steps on its file and a close" \
	'a sequence of two opens' "${writer/open,write\*3,close/open,write,close,open,write,close}"
refused "bad.ffsb:12: error: \[threadgroup0\] sequence_hold: needs sequence=" 'no sequence' \
	'\tnum_threads=1\n\tsequence_hold=1\n\tread_weight=1\n\tread_size=2k\n\tread_blocksize=2k\n'
refused "bad.ffsb:14: error: \[threadgroup0\] sequence_hold: cannot keep files open while \[threadgroup1\] (line 22) may delete them (its delete)" \
	'a deleter beside it' "$writer" '\tnum_threads=1\n\tdelete_weight=1\n'

# ---- 3. the calls (strace): per thread one openat, no close between loops, one at the end ----
if ! command -v strace >/dev/null; then
	skip_env strace "the calls of a held sequence by strace: strace not installed"
else
	profile "$(shmdir)" "$writer" "$reader" >"$work/run.ffsb"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -y -e trace=openat,lseek,read,write,close -o "$work/t.trace" \
		"$bin" run --seed 5 "$work/run.ffsb" --json "$work/t.json" >"$work/t.out" 2>&1
	rc=$?
	# per thread that opened a data file f<id>: its calls on that descriptor, in order, as
	# words (open flags, lseek, read/write sizes, close), runs of a repeated word as word*N
	calls=$(python3 - "$work/t.trace" <<'PY'
import re, sys
pend, per = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) +(.*)", line.rstrip("\n"))
    if not m:
        continue
    tid, rest = m.groups()
    if rest.endswith("<unfinished ...>"):
        pend[tid] = rest[: -len("<unfinished ...>")]
        continue
    r = re.match(r"<\.\.\. \w+ resumed>(.*)", rest)
    if r:
        rest = pend.pop(tid, "") + r.group(1)
    c = re.match(r"(\w+)\((.*)\) += (-?\d+)", rest)
    if not c:
        continue
    call, args, ret = c.groups()
    if call == "openat" and re.search(r'/data>, "f\d+"', args) and "O_CREAT" not in args:
        flags = "+".join(f for f in ("RDONLY", "RDWR", "DSYNC") if "O_" + f in args)
        per.setdefault(tid, []).append("open:" + flags)
        continue
    if tid in per and re.match(r"\d+</[^>]*/data/f\d+>", args):
        per[tid].append({"read": "read:" + ret, "write": "write:" + ret}.get(call, call))
out, io = [], {}
for ws in per.values():  # runs of "lseek read:2048" or "lseek write:2048" pairs as IO
    s = re.sub(r"(?:lseek (?:read|write):2048 )+", "IO ", " ".join(ws) + " ").strip()
    out.append(s)
    io[ws[0]] = io.get(ws[0], 0) + sum(w.startswith(("read:", "write:")) for w in ws)
print("\n".join(sorted(out)))
print(" ".join("%s=%d" % kv for kv in sorted(io.items())))
PY
)
	want=$(printf '%s\n' 'open:RDONLY IO close' 'open:RDONLY IO close' 'open:RDONLY IO close' \
		'open:RDWR+DSYNC IO close' 'open:RDWR+DSYNC IO close')
	# (a reader's loop that found its file drained by a writer counts busy: the counts come
	# from the report, whose busy loops made no call)
	g=$(jq_ "$work/t.json" '" ".join("%s=%d" % k for k in [("open:RDONLY", [o for o in d["groups"][1]["ops"] if o["name"] == "seq_read"][0]["count"]), ("open:RDWR+DSYNC", 3 * [o for o in d["groups"][0]["ops"] if o["name"] == "seq_write"][0]["count"])])')
	if [ $rc -eq 0 ] && [ "$(echo "$calls" | head -n -1)" = "$want" ] && [ "$(echo "$calls" | tail -1)" = "$g" ]; then
		ok "per thread: one openat (writers O_DSYNC), every loop's lseek + write/read, one close at the end ($g)"
	else
		bad "held calls: exit $rc"; echo "got:"; echo "$calls" | head -8; echo "want:"; echo "$want"; echo "$g"
	fi
	rows=$(jq_ "$work/t.json" '" ".join("g%d:%s=%d/%d" % (g["index"], o["name"], o["count"], o["busy"]) for g in d["groups"] for o in g["ops"])')
	# (a busy loop: its file, or a writer's first pick, held by others; counted, no call)
	a=$(jq_ "$work/t.json" 'd["groups"][0]["ops"][0]["busy"]')
	b=$(jq_ "$work/t.json" 'd["groups"][1]["ops"][0]["busy"]')
	want_rows="g0:sequence=$((10 - a))/$a g0:seq_open=2/$a g0:seq_write=$((10 - a))/0 g0:seq_close=0/0 g1:sequence=$((21 - b))/$b g1:seq_open=3/$b g1:seq_read=$((21 - b))/0 g1:seq_close=0/0"
	if [ "$rows" = "$want_rows" ] && [ "$(jq_ "$work/t.json" 'd["total"]["errors"]')" = 0 ]; then
		ok "rows (done/busy): a sequence per loop, one open per thread, no close row ($rows)"
	else
		bad "rows: '$rows', want '$want_rows'"
	fi

	# ---- 4. phases: a held file is closed at its phase's end, before the next phase ------
	profile "$(shmdir)" "${writer}\tphase=0\n" "${reader}\tphase=1\n" >"$work/p.ffsb"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -y -e trace=openat,close -o "$work/p.trace" \
		"$bin" run --seed 5 "$work/p.ffsb" >"$work/p.out" 2>&1
	rc=$?
	# the workers' calls only: the tree's builder (the thread that created the files) closes
	# them one by one where its descriptor table is shared (sanitizer builds), or in batches
	order=$(awk '/openat\(.*"f[0-9]+", O_[A-Z_|]*O_CREAT/ { b[$1] = 1 } { l[NR] = $0; p[NR] = $1 }
		END { for (i = 1; i <= NR; i++) if (!b[p[i]]) print l[i] }' "$work/p.trace" |
		grep -E 'openat\([^"]*/data>, "f[0-9]+", O_(RDONLY|RDWR)|close\([0-9]+</[^>]*/data/f[0-9]+>' |
		sed -E 's/.*O_RDONLY.*/r/; s/.*O_RDWR.*/w/; s/.*close.*/c/' | tr -d '\n')
	if [ $rc -eq 0 ] && [[ $order =~ ^[wc]{4}[rc]{6}$ ]] && [ "${order:0:4}" != wwww ] &&
		[ "$(echo "${order:0:4}" | tr -cd c | wc -c)" -eq 2 ]; then
		ok "phases: both writers' files closed before the readers' phase opened any ($order)"
	else
		bad "phases: exit $rc, order of opens (w, r) and closes (c): '$order'"
	fi
fi

# ---- 5. bytes: every repetition of write*N and read*N counts (held or not) ------------------
for hold in 1 0; do # (0: no sequence_hold line, so that a binary without the key runs it too)
	profile "$(shmdir)" "${writer/sequence_hold=1/sequence_hold=$hold}" \
		"$(printf '%s' "${reader/sequence_hold=1/sequence_hold=$hold}" | sed 's/open,read,close/open,read*4,close/')" |
		sed '/sequence_hold=0/d' >"$work/b.ffsb"
	run_ run --seed 5 "$work/b.ffsb" --json "$work/b.json" >"$work/b.out" 2>&1
	rc=$?
	got=$(jq_ "$work/b.json" '" ".join("%s=%d" % (o["name"], (o["bytes_read"] + o["bytes_written"]) // max(o["count"], 1)) for g in d["groups"] for o in g["ops"] if o["name"] in ("seq_write", "seq_read"))')
	if [ $rc -eq 0 ] && [ "$got" = "seq_write=6144 seq_read=8192" ]; then
		ok "sequence_hold=$hold: write*3 counts 3 x 2 KiB a loop, read*4 4 x 2 KiB ($got)"
	else
		bad "sequence_hold=$hold: bytes per step: exit $rc, '$got' (want seq_write=6144 seq_read=8192)"
	fi
done

# ---- 6. writers and readers held on one pool: content and promises kept ---------------------
loc=$(shmdir)
profile "$loc" "${writer/num_ops=5/num_ops=40}" "${reader/num_ops=7/num_ops=200}" |
	sed '1s/^/verify=1\n/' >"$work/v.ffsb"
run_ run --seed 9 "$work/v.ffsb" --durability-log "$work/v.log" --json "$work/v.json" >"$work/v.out" 2>&1
rc=$?
run_ verify "$work/v.ffsb" --durability-log "$work/v.log" >"$work/vv.out" 2>&1
vrc=$?
if [ $rc -eq 0 ] && [ $vrc -eq 0 ] && grep -q "verify: 0 content mismatches" "$work/v.out" &&
	grep -q "every promise kept" "$work/vv.out" && [ "$(jq_ "$work/v.json" 'd["total"]["errors"]')" = 0 ]; then
	ok "held writers and readers on one pool: every read checked, every promise kept"
else
	bad "verify=1 with holds: run exit $rc, verify exit $vrc"; tail -4 "$work/v.out"; head -8 "$work/vv.out"
fi

# ---- 7. engine=io_uring at depth 1: fio's data loop, every call through the ring ------------
# (open once, then per loop one write and one fdatasync, one io_uring_enter each: submitted and
# waited for in one call; the close when the thread ends; docs/engines.md, "Measured")
loc=$(shmdir)
uring='\tnum_threads=1\n\tnum_ops=50\n\tengine=io_uring\n\tiodepth=1\n\tsequence=open,write,fdatasync,close\n\tsequence_hold=1\n\twrite_size=4k\n\twrite_blocksize=4k\n'
profile "$loc" "$uring" >"$work/u.ffsb"
if ! command -v strace >/dev/null; then
	skip_env strace "a held sequence through io_uring by strace: strace not installed"
elif "$bin" run "$work/u.ffsb" --set threadgroup0.num_ops=1 >"$work/probe.out" 2>&1; [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'io_uring' "$work/probe.out")"
else
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$work/u.trace" \
		-e trace=io_uring_enter,openat,lseek,read,write,pwrite64,fsync,fdatasync,close \
		"$bin" run --seed 3 "$work/u.ffsb" --durability-log "$work/u.log" --json "$work/u.json" >"$work/u.out" 2>&1
	rc=$?
	workers=$(awk '$2 ~ /^io_uring_enter\(/ { print $1 }' "$work/u.trace" | sort -u)
	calls=$(awk 'NR == FNR { w[$1] = 1; next } ($1 in w) && $2 !~ /^(\+\+\+|---|<\.\.\.)/ { sub(/\(.*/, "", $2); n[$2]++ }
		END { for (c in n) printf "%s=%d ", c, n[c] }' <(echo "$workers") "$work/u.trace")
	rows=$(jq_ "$work/u.json" '" ".join("%s=%d" % (o["name"], o["count"]) for o in d["groups"][0]["ops"])')
	run_ verify "$work/u.ffsb" --durability-log "$work/u.log" >"$work/uv.out" 2>&1
	vrc=$?
	# 102 enters: the open, 50 writes, 50 fdatasyncs, the close at the thread's end
	if [ $rc -eq 0 ] && [ "$(echo "$workers" | grep -c .)" -eq 1 ] && [ "$calls" = "io_uring_enter=102 " ] &&
		[ "$rows" = "sequence=50 seq_open=1 seq_write=50 seq_fdatasync=50 seq_close=0" ] &&
		[ $vrc -eq 0 ] && grep -q "50 fdatasync" "$work/uv.out"; then
		ok "engine=io_uring iodepth=1: one open, one enter per write and per fdatasync, no close per loop; 50 fdatasyncs acknowledged and kept"
	else
		bad "held io_uring: exit $rc, verify exit $vrc, worker calls '$calls' (want io_uring_enter=102), rows '$rows'"
		tail -3 "$work/u.out"; head -4 "$work/uv.out"
	fi
fi

summary
