#!/usr/bin/env bash
# A durability log that cannot lie by omission, and outputs that cannot pass for others (issue
# 26, items 4, 5 and 7; issue 30's verify cases; docs/output.md, "Durability log" and "fsmix
# verify", docs/durability.md, "A log fsmix can have written"):
#   1. logs crafted from a real one (every record re-encoded with its own check): a gap in a
#      worker's sequence, a log of its header only, of torn records only, cut inside its setup
#      records, with a record after its end, with a record removed before its end, a bad slot
#      that is no worker's last record: exit 2, "bad log", naming the worker and the range or
#      the record. A prefix cut at a record boundary and a torn last record of one worker
#      before another's later records (the log's own crash) still verify. Fails on fc73ac9
#      (exit 0, "every promise kept"; the torn record refused as damage).
#   2. fields beyond what the profile's trees allow: a file id of 2^31 (fc73ac9 spins for
#      ever) or 2^24 (fc73ac9 runs out of memory, exit 1), a directory, a filesystem, a worker
#      and an extent past 2^63: exit 2 at once (a timeout guards the hang).
#   3. --durability-log: a dangling symbolic link into the tested filesystem, an empty file of
#      another user, an empty file others may write: refused (exit 2) before anything is built.
#      fc73ac9 accepted all three.
#   4. verify --json: a verify that fails (a bad log, a bad profile) replaces an older report
#      with a document naming the failure (exit_status 2, every verdict key null); one killed
#      mid-way leaves a document saying it has not finished. fc73ac9 left the older report.
#   5. verify without a profile gives verify's usage; a directory given as the log is named
#      as one (fc73ac9: `fsmix run PROFILE`, "too short for a durability log").
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
o=$work/o
mkdir -p "$o"
cat >"$work/p.ffsb" <<EOF
verify=1
[filesystem0]
	location=$loc
	num_files=12
	num_dirs=2
	min_filesize=4096
	max_filesize=16384
[end0]
[threadgroup0]
	num_threads=2
	num_ops=120
	create_fsync_weight=2
	write_fsync_weight=3
	delete_weight=1
	read_weight=1
	write_size=4096
	write_blocksize=4096
	read_size=4096
	read_blocksize=4096
[end0]
EOF
timeout 120 "$bin" run "$work/p.ffsb" --durability-log "$o/run.log" >/dev/null 2>"$work/run.err" ||
	bad "the run that writes the log: $(tail -3 "$work/run.err")"

# craft.py IN OUT OP [ARGS] (craft NAME OP [ARGS]: $o/NAME.log): a log made from IN (durlog.h's format, each record's check redone)
cat >"$work/craft.py" <<'PY'
import struct, sys
F = '<BBHIQQQIIQQQII'
FIELDS = 'kind flags fs worker seq t_start t_end file dir off len size gen aux'.split()
MAIN = 0xffffffff
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h
def dec(b):
    return dict(zip(FIELDS, struct.unpack(F, b[:72])))
def enc(r):
    b = struct.pack(F, *[r[k] for k in FIELDS])
    return b + struct.pack('<Q', fnv(b))
src, dst, op, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
data = open(src, 'rb').read()
head, body = data[:2120], data[2120:]
recs = [body[i:i + 80] for i in range(0, len(body), 80)]
end = recs.pop()                     # the end record
assert dec(end)['kind'] == 11
def worker_idx(w):
    return [i for i, b in enumerate(recs) if dec(b)['worker'] == w]
first_worker = min(i for i, b in enumerate(recs) if dec(b)['worker'] != MAIN)
out = None
if op == 'gap':                      # worker W loses 3 records from the middle of its run
    idx = worker_idx(int(args[0]))
    k = len(idx) // 2
    gone = set(idx[k:k + 3])
    print(dec(recs[idx[k]])['seq'], dec(recs[idx[k + 2]])['seq'])
    out = [b for i, b in enumerate(recs) if i not in gone] + [end]
elif op == 'header':
    out = []
elif op == 'torn':                   # nothing but torn records after the header
    out = [bytes(80)] * 3 + [recs[0][:30]]
elif op == 'setup':                  # cut inside the setup records (before the syncfs)
    out = recs[:3]
elif op == 'after-end':
    out = recs + [end, recs[first_worker]]
elif op == 'drop-last':              # worker W's last record removed, the end record kept
    idx = worker_idx(int(args[0]))
    out = [b for i, b in enumerate(recs) if i != idx[-1]] + [end]
elif op == 'prefix':                 # the first part, cut at a record boundary, no end record
    out = recs[:first_worker + (len(recs) - first_worker) * int(args[0]) // 100]
elif op == 'torn-last':              # no end record; the last record of the worker that ended
    i = min(worker_idx(0)[-1], worker_idx(1)[-1])   # first torn (zeroed) before the other
    out = recs[:]                    # worker's later ones: the log's own crash
    out[i] = bytes(80)
elif op == 'zero-slot':              # a bad slot that is no worker's last: every one has later
    out = recs[:first_worker + 2] + [bytes(80)] + recs[first_worker + 2:]
elif op == 'field':                  # FIELD=VALUE in worker 0's first write record
    i = next(i for i in worker_idx(0) if dec(recs[i])['kind'] == 3)
    r = dec(recs[i])
    for a in args:
        k, v = a.split('=')
        r[k] = int(v, 0)
    out = recs[:]
    out[i] = enc(r)
    out.append(end)
open(dst, 'wb').write(head + b''.join(out))
PY
craft() { python3 "$work/craft.py" "$o/run.log" "$o/$1.log" "${@:2}"; } # NAME OP [ARGS]

# v NAME: verify of the crafted log NAME (output in $work/NAME.out, status in $vrc)
v() {
	timeout 60 "$bin" verify "$work/p.ffsb" --durability-log "$o/$1.log" >"$work/$1.out" 2>&1
	vrc=$?
}
# badlog NAME WHAT REGEX: exit 2, "is a bad log", the reason matching REGEX
badlog() {
	v "$1"
	if [ $vrc = 2 ] && grep -q "$o/$1.log is a bad log: .*$3.*; nothing was verified" "$work/$1.out" &&
		! grep -q "every promise kept" "$work/$1.out"; then
		ok "$2: bad log (exit 2)"
	else
		bad "$2: exit $vrc, $(tail -c 400 "$work/$1.out")"
	fi
}
# goodlog NAME WHAT: verified (exit 0), no promise broken
goodlog() {
	v "$1"
	[ $vrc = 0 ] && grep -qE "every promise kept|no promise broken" "$work/$1.out" &&
		ok "$2: verified (exit 0)" || bad "$2: exit $vrc, $(tail -c 400 "$work/$1.out")"
}

# ---- 1. a log that cannot lie by omission ------------------------------------------------------

cp "$o/run.log" "$o/whole.log"
goodlog whole "the run's log as written"
range=$(craft gap gap 1)
set -- $range
badlog gap "worker 1 without 3 records in the middle" "worker 1: records $1-$(($1 + 2)) missing (record [0-9]*, its next in the log, has seq $(($1 + 3)))"
craft header header
badlog header "a log of its header only" "it holds no record after its header"
craft torn torn
badlog torn "a log of torn records only" "it holds no good record, only 4 torn ones"
craft setup setup
badlog setup "a log cut inside its setup records" "its setup records end before the syncfs of every filesystem"
craft after-end after-end
badlog after-end "a record after the end record" "1 record after its end record (the first: record [0-9]*)"
craft drop-last drop-last 0
badlog drop-last "worker 0's last record removed, the end record kept" "its end record counts [0-9]* records before it, but [0-9]* are there"
craft zero-slot zero-slot
badlog zero-slot "a bad slot where every worker has a later record" "record [0-9]* fails its check, and every worker has a later record"
craft prefix prefix 60
goodlog prefix "a prefix cut at a record boundary (the log's lost tail)"
craft torn-last torn-last
goodlog torn-last "a worker's last record torn before the other's later ones (the log's own crash)"
grep -q "1 torn record ignored" "$work/torn-last.out" || bad "torn-last: the torn record not counted: $(tail -c 300 "$work/torn-last.out")"

# ---- 2. fields beyond what the profile's trees allow --------------------------------------------

craft id31 field file=0x80000000
badlog id31 "file id 2^31" "file id 2147483648 is beyond the file ids filesystem 0 can have (below [0-9]*: its base files' ids and what the log's records can have made since)"
craft id24 field file=0x1000000
badlog id24 "file id 2^24" "file id 16777216 is beyond the file ids filesystem 0 can have"
craft dir field dir=0x40000000
badlog dir "directory 2^30" "directory 1073741824 is beyond the directories of filesystem 0"
craft fs field fs=3
badlog fs "filesystem 3 of 1" "filesystem 3, but the log has 1"
craft off field off=0xffffffffffffff00 len=4096
badlog off "an extent past 2^63" "extent \[18446744073709551360, +4096)"
craft worker field worker=7
badlog worker "worker 7 of 2" "record [0-9]*: worker 7, but its header has 2 workers"
# (each verify above is under `timeout 60`: a hang fails, exit 124)

# ---- 3. --durability-log: where it lands and whose it is ----------------------------------------

refused() { # NAME LOG REGEX: run refuses LOG (exit 2) before anything is built
	local l2 rc
	l2=$(shmdir)
	timeout 120 "$bin" run "$work/p.ffsb" -l "$l2" --durability-log "$2" >/dev/null 2>"$work/r.err"
	rc=$?
	[ $rc = 2 ] && [ -z "$(ls -A "$l2")" ] && grep -qF -e "$3" "$work/r.err" &&
		ok "$1: refused (exit 2), nothing built" || bad "$1: exit $rc, $(head -c 300 "$work/r.err")"
}
l3=$(shmdir)
ln -s "$l3/x.log" "$o/dangling.log"
refused "a dangling symbolic link into the tested filesystem" "$o/dangling.log" \
	"--durability-log '$o/dangling.log' (a symbolic link to $l3/x.log) is on the filesystem under test"
# (the run's location is another shmdir, on the same tmpfs as $l3)
[ ! -e "$l3/x.log" ] && ok "the link's target not created" || bad "the link's target was created"
if [ "$(id -u)" = 0 ]; then
	: >"$o/theirs.log"
	chown 65534 "$o/theirs.log"
	chmod 644 "$o/theirs.log"
	refused "an empty file of another user" "$o/theirs.log" "belongs to another user (uid 65534)"
else
	skipped "another user's file: not root (cannot chown)"
fi
: >"$o/open.log"
chmod 666 "$o/open.log"
refused "an empty file others may write (0666)" "$o/open.log" "is writable by other users (mode 0666)"
chmod 620 "$o/open.log"
refused "an empty file its group may write (0620)" "$o/open.log" "is writable by other users (mode 0620)"
f=$(mktemp "$o/mine.XXXXXX")
l4=$(shmdir)
timeout 120 "$bin" run "$work/p.ffsb" -l "$l4" --durability-log "$f" >/dev/null 2>&1 && [ -s "$f" ] &&
	ok "an empty file of mktemp's (0600): written" || bad "an empty file of mktemp's: not written"
timeout 120 "$bin" run "$work/p.ffsb" -l "$l4" --durability-log "$o/new.log" >/dev/null 2>&1
m=$(stat -c %a "$o/new.log" 2>/dev/null)
[ "$m" = 644 ] || [ "$m" = 600 ] || [ "$m" = 640 ] && ok "a new log: mode $m (writable by its owner alone)" ||
	bad "a new log: mode '$m'"

# ---- 4. verify --json never passes for another verify's report -------------------------------

vj() { # LOG [ARGS]: verify with --json $o/v.json
	timeout 60 "$bin" verify "$work/p.ffsb" --durability-log "$@" --json "$o/v.json" >/dev/null 2>"$work/vj.err"
	vrc=$?
}
vj "$o/whole.log"
[ $vrc = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["broken"] == 0 and d["exit_status"] == 0 and d["error"] is None))' "$o/v.json" &&
	ok "verify --json: the report, exit_status 0" || bad "verify --json: exit $vrc, $(head -c 300 "$o/v.json")"
noreport() { # WHAT STATUS ERROR-REGEX: $o/v.json is a document without a verdict
	python3 - "$o/v.json" "$2" "$3" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
st = None if sys.argv[2] == 'null' else int(sys.argv[2])
assert d['fsmix_verify'] == 1 and d['exit_status'] == st, d
assert re.search(sys.argv[3], d['error']), d['error']
for k in ('broken', 'kept', 'checked', 'records', 'log_complete'):
    assert d[k] is None, k
PY
}
vj "$o/gap.log"
[ $vrc = 2 ] && noreport "bad log" 2 "is a bad log: worker 1: records" &&
	ok "verify --json of a bad log: the older report replaced (exit_status 2, broken null)" ||
	bad "verify --json of a bad log: exit $vrc, $(head -c 300 "$o/v.json")"
vj "$o/whole.log"
timeout 60 "$bin" verify "$work/p.ffsb" --set filesystem0.num_files=x --durability-log "$o/whole.log" --json "$o/v.json" >/dev/null 2>&1
vrc=$?
[ $vrc = 2 ] && noreport "bad profile" 2 "error.* in .*p.ffsb; nothing was verified" &&
	ok "verify --json with a bad profile: the older report replaced" ||
	bad "verify --json with a bad profile: exit $vrc, $(head -c 300 "$o/v.json")"
# killed mid-way: its log a FIFO nobody writes, so verify waits in open(2)
vj "$o/whole.log"
mkfifo "$o/fifo.log"
# (no timeout(1) around it: killing that would leave verify waiting in open(2) for ever)
"$bin" verify "$work/p.ffsb" --durability-log "$o/fifo.log" --json "$o/v.json" >/dev/null 2>&1 &
pid=$!
if wait_for "$o/v.json" '"exit_status": null' 20; then
	kill -KILL $pid
	wait $pid 2>/dev/null
	noreport "killed" null "verify has not finished" &&
		ok "verify --json killed mid-way: a document saying it has not finished, not the older report" ||
		bad "verify --json killed mid-way: $(head -c 300 "$o/v.json")"
else
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	bad "verify --json killed mid-way: the older report stayed: $(head -c 300 "$o/v.json")"
fi

# ---- 5. verify's own usage; a directory as the log ----------------------------------------------

"$bin" verify >/dev/null 2>"$work/u.err"
rc=$?
[ $rc = 2 ] && grep -q "verify needs a profile: fsmix verify PROFILE --location L --durability-log FILE" "$work/u.err" &&
	! grep -q "fsmix run PROFILE" "$work/u.err" &&
	ok "verify without a profile: verify's usage (exit 2)" || bad "verify without a profile: exit $rc, $(cat "$work/u.err")"
"$bin" verify "$work/p.ffsb" --durability-log "$o" >/dev/null 2>"$work/d.err"
rc=$?
[ $rc = 2 ] && grep -q "durability-log '$o' is a directory, not a durability log" "$work/d.err" &&
	ok "verify of a directory as the log: named a directory (exit 2)" || bad "a directory as the log: exit $rc, $(cat "$work/d.err")"

summary
