#!/usr/bin/env bash
# The peers' workloads of profiles/ (filebench's varmail, fileserver, webserver and oltp,
# postmark, mdtest-easy, mdtest-hard): each passes `fsmix check`, `--strict-ffsb` accepts or rejects it as its
# header says, and a small counted run under `strace -f` issues exactly the system calls its
# header documents. strace is the independent witness: every open..close of a benchmark file is
# cut into one operation's call sequence (open flags, read/write sizes, lseek, fsync, close;
# unlink and stat stand alone), every sequence must be one the header lists, the number of
# sequences of each kind must equal the op counts of fsmix's JSON report (exact), and those
# counts must follow the loop's proportions (within 5 binomial standard deviations of the
# counted ops: deterministic at the fixed seed, and it cannot flake for another seed either).
# filebench's varmail, fileserver and webserver run as sequences (sequence=): each loop is one
# transaction whose open..close spans are the documented kinds, counted from the step rows;
# oltp's sequences and webserver's log appends keep their files open (sequence_hold=1): one
# span a thread.
set -u
. "$(dirname "$0")/lib.bash"
p=$src/profiles
peers="filebench-varmail filebench-fileserver filebench-webserver filebench-oltp postmark mdtest-easy mdtest-hard"

# check and --strict-ffsb: the header's "# --strict-ffsb: accepted (exit 0)" or
# "rejected (exit 2)" line is the promise.
for name in $peers; do
	prof=$p/$name.ffsb
	if [ ! -f "$prof" ]; then
		bad "$name.ffsb is missing"
		continue
	fi
	"$bin" check "$prof" >"$work/$name.check" 2>&1 && ok "$name: fsmix check passes" ||
		bad "$name: fsmix check: $(tail -2 "$work/$name.check")"
	want=$(sed -n 's/^# --strict-ffsb: [a-z]* (exit \([0-9]\)).*/\1/p' "$prof")
	"$bin" check "$prof" --strict-ffsb >/dev/null 2>"$work/$name.strict"
	rc=$?
	[ -n "$want" ] && [ "$rc" = "$want" ] && ok "$name: --strict-ffsb exits $rc as its header says" ||
		bad "$name: --strict-ffsb exits $rc, header says '${want:-nothing}'"
done

if ! command -v strace >/dev/null || ! command -v python3 >/dev/null; then
	skip_env strace "strace or python3 not installed: system-call mixes not checked"
	summary
fi

# The witness: an `strace -f -y` log cut into per-operation call sequences after the callout's
# /bin/sh (the run starts after the callout; the tree is built before it), checked against the
# spec of the profile (see `specs` below) and the counts of fsmix's JSON report.
cat >"$work/calls.py" <<'EOF'
import json, math, re, sys
name, log, report, specfile = sys.argv[1:5]
per = int(sys.argv[5]) if len(sys.argv) > 5 else 1  # ops of one loop
rep = json.load(open(report))
class Counts(dict):  # g0_readall, g0_readall_skipped, ..., bytes_read, bytes_written
    def __missing__(self, key):  # an op the report does not list was not done
        if re.fullmatch(r"g\d+_\w+", key):
            return 0
        raise KeyError(key)
n = Counts()
for g in rep["groups"]:
    for o in g["ops"]:
        n["g%d_%s" % (g["index"], o["name"])] = o["count"]
        n["g%d_%s_skipped" % (g["index"], o["name"])] = o["skipped"]
        n["g%d_%s_busy" % (g["index"], o["name"])] = o.get("busy", 0)
n["errors"] = rep["total"]["errors"]
n["bytes_read"], n["bytes_written"] = rep["total"]["bytes_read"], rep["total"]["bytes_written"]
n["ops"] = rep["total"]["operations"]

FILE = re.compile(r"/fsmix\.fs(\d+)/data/(?:d\d+/)?f\d+>")
DIRARG = re.compile(r'^\d+</[^>]*/fsmix\.fs(\d+)/data(?:/d\d+)?>, "(?:d\d+/)?f\d+"')
FLAGS = ["RDONLY", "WRONLY", "RDWR", "CREAT", "EXCL", "TRUNC", "APPEND", "DSYNC", "SYNC", "DIRECT"]
pending, open_seq, seqs = {}, {}, []
started = False
for line in open(log):
    line = line.rstrip("\n")
    m = re.match(r"(\d+) +(.*)", line)
    if not m:
        continue
    pid, rest = m.group(1), m.group(2)
    if rest.endswith("<unfinished ...>"):
        pending[pid] = rest[: -len("<unfinished ...>")]
        continue
    r = re.match(r"<\.\.\. \w+ resumed>(.*)", rest)
    if r:
        rest = pending.pop(pid, "") + r.group(1)
    c = re.match(r"(\w+)\((.*)\) += (-?\d+)", rest)
    if not c:
        continue
    call, args, ret = c.group(1), c.group(2), int(c.group(3))
    if call == "execve" and args.startswith('"/bin/sh"'):
        started = True
        continue
    if not started or ret < 0:
        continue
    if call in ("openat", "unlinkat", "newfstatat", "statx"):
        d = DIRARG.match(args)
        if not d:
            continue
        fs = d.group(1)
        if call == "openat":
            fl = [f for f in FLAGS if re.search(r"\bO_%s\b" % f, args)]
            open_seq[pid] = [fs, "open:" + "|".join(fl)]
        else:
            seqs.append((fs, "unlink" if call == "unlinkat" else "stat"))
        continue
    f = FILE.search(args.split(",")[0])
    if not f or pid not in open_seq:
        continue
    s = open_seq[pid]
    if call in ("read", "write"):
        s.append("%s:%d" % (call, ret))
    elif call in ("lseek", "fsync", "fdatasync"):
        s.append(call)
    elif call == "close":
        s.append("close")
        seqs.append((s[0], " ".join(s[1:])))
        del open_seq[pid]

out = []
def check(ok, what):
    out.append(("ok   " if ok else "FAIL ") + name + ": " + what)

exec(open(specfile).read())
spec = specs[name]
kinds = {}  # kind -> sequences of it
unknown = []
for fs, s in seqs:
    for kind, (kfs, rx, _) in spec["seq"].items():
        if kfs == fs and re.fullmatch(rx, s):
            kinds[kind] = kinds.get(kind, 0) + 1
            break
    else:
        unknown.append("fs%s: %s" % (fs, s))
check(not unknown, "every call sequence is a documented one" +
      ("" if not unknown else " (%d are not, e.g. %s)" % (len(unknown), unknown[:3])))
for kind, (_, rx, expr) in spec["seq"].items():
    got, want = kinds.get(kind, 0), eval(expr, {}, n)
    check(got == want, "%d %s sequences (strace) = %s = %d (report)" % (got, kind, expr, want))
for expr in spec.get("exact", []):
    names = re.findall(r"[a-z_][a-z0-9_]*", expr)
    check(eval(expr, {"kinds": kinds}, n), expr + "  " + str({k: n[k] for k in names if k in n}))
# The loop's proportions: op x of a loop of L ops with weight w is Binomial(N, w/L).
for x, share, total in spec.get("mix", []):
    N, got = eval(total, {}, n), eval(x, {"kinds": kinds}, n)
    mean, sd = N * share, math.sqrt(N * share * (1 - share))
    check(abs(got - mean) <= 5 * sd + 1e-9,
          "%s = %d of %d ops: %.2f per loop of %d ops (documented %.2f, 5 sd: +-%.2f)"
          % (x, got, N, got / N * per, per, share * per, 5 * sd / N * per))
print("\n".join(out))
EOF

# Per profile: "seq": the call sequences a run may issue, each (filesystem, regex over its
# tokens, how many there must be from the report's counts); "exact": further equalities;
# "mix": (count, documented share of the ops, ops) for the loop's proportions.
cat >"$work/specs.py" <<'EOF'
W = r"write:\d+"
R = r"read:\d+"
specs = {
  # one sequence a loop: delete; create, append, fsync, close; open (read-write), readall,
  # append, fsync, close; open (read-only), readall, close. A busy open ends its sequence, so
  # the two opens are told apart by the fsyncs: one after the create, one after the first open.
  "filebench-varmail": {
    "seq": {
      "create": ("0", r"open:RDWR\|CREAT\|EXCL lseek write:\d+ fsync close", "g0_seq_create"),
      "open rw": ("0", r"open:RDWR lseek (%s )*read:0 lseek write:\d+ fsync close" % R,
                  "g0_seq_fsync - g0_seq_create"),
      "open ro": ("0", r"open:RDONLY lseek (%s )*read:0 close" % R,
                  "g0_seq_open - (g0_seq_fsync - g0_seq_create)"),
      "delete": ("0", r"unlink", "g0_seq_delete"),
    },
    "exact": ["errors == 0", "g0_sequence > 0", "ops == g0_sequence",
              "g0_seq_close == g0_seq_create + g0_seq_open", "g0_seq_readall == g0_seq_open"],
  },
  # one sequence a loop: create, writeall, close; open, append, close; open, readall, close;
  # delete; stat
  "filebench-fileserver": {
    "seq": {
      "create": ("0", r"open:RDWR\|CREAT\|EXCL (%s )*close" % W, "g0_seq_create"),
      "append": ("0", r"open:RDWR lseek write:\d+ close", "g0_seq_append"),
      "readall": ("0", r"open:RDONLY lseek (%s )*read:0 close" % R, "g0_seq_readall"),
      "delete": ("0", r"unlink", "g0_seq_delete"),
      "stat": ("0", r"stat", "g0_seq_stat"),
    },
    "exact": ["errors == 0", "g0_sequence > 0", "ops == g0_sequence",
              "g0_seq_open == g0_seq_append + g0_seq_readall"],
  },
  # one sequence of 10 x (open, readall, close) a loop; the log kept open (sequence_hold, as
  # filebench's fd=2): one span a log writer, an lseek and a write a loop
  "filebench-webserver": {
    "seq": {
      "readall": ("0", r"open:RDONLY lseek (%s )*read:0 close" % R, "g0_seq_readall"),
      "log append": ("1", r"open:RDWR (lseek write:\d+ ){40}close", "g1_seq_open"),
    },
    "exact": ["g0_sequence == 40", "g0_seq_readall == 400", "g1_sequence == 40",
              "g1_seq_open == 1", "g1_seq_close == 0",
              "g0_seq_readall == 10 * g1_seq_append", "errors == 0",
              "g1_sequence_skipped == 0"],
  },
  # sequence_hold: each thread opens its file once and closes it when it ends, so a thread's
  # whole run is one span: shadow reads 2k; dbwr loops of 100 x random 2k O_SYNC; lgwr 256k
  # O_SYNC (a loop that found its file held by others is busy, and made no call)
  "filebench-oltp": {
    "seq": {
      "shadow": ("0", r"open:RDONLY (lseek read:2048 )+close", "g0_seq_open"),
      "dbwr": ("0", r"open:RDWR\|SYNC (lseek write:2048 )+close", "g1_seq_open"),
      "lgwr": ("1", r"open:RDWR\|SYNC (lseek write:262144 )+close", "g2_seq_open"),
    },
    "exact": ["g0_sequence + g0_sequence_busy == 200", "g1_sequence + g1_sequence_busy == 10",
              "g2_sequence == 5", "g0_seq_read == g0_sequence", "g1_seq_write == g1_sequence",
              "g2_seq_open == 1", "errors == 0", "bytes_read == 2048 * g0_seq_read",
              "bytes_written == 100 * 2048 * g1_seq_write + 262144 * g2_seq_write"],
  },
  # transaction: (readall | append) + (create | delete), 4 KiB calls
  "postmark": {
    "seq": {
      "readall": ("0", r"open:RDONLY (read:4096 )*read:\d+ close", "g0_readall"),
      "append": ("0", r"open:WRONLY\|APPEND write:2048 close", "g0_append"),
      "create": ("0", r"open:RDWR\|CREAT\|EXCL (write:4096 )*write:\d+ close", "g0_create"),
      "delete": ("0", r"unlink", "g0_delete"),
    },
    "exact": ["ops == 400", "errors == 0"],
    "mix": [("g0_readall + g0_append", 1 / 2, "ops"), ("g0_create + g0_delete", 1 / 2, "ops"),
            ("g0_readall", 1 / 4, "ops"), ("g0_delete", 1 / 4, "ops")],
  },
  # one run of four phases (phase=N), 4 threads x 200 items each: every phase's calls on the
  # files the create phase made (stat, open and remove skip none)
  "mdtest-easy": {
    "seq": {
      "create": ("0", r"open:RDWR\|CREAT\|EXCL close", "g0_create"),
      "stat": ("0", r"stat", "g1_stat"),
      "read": ("0", r"open:RDONLY close", "g2_open_close"),
      "remove": ("0", r"unlink", "g3_delete"),
    },
    "exact": ["ops == 3200", "g0_create == 800", "g1_stat == 800", "g2_open_close == 800",
              "g3_delete == 800", "bytes_written == 0", "bytes_read == 0", "errors == 0",
              "g1_stat_skipped + g2_open_close_skipped + g3_delete_skipped == 0"],
  },
  # the same with 3901-byte files written at create and read back whole, one directory
  "mdtest-hard": {
    "seq": {
      "write": ("0", r"open:RDWR\|CREAT\|EXCL write:3901 close", "g0_create"),
      "stat": ("0", r"stat", "g1_stat"),
      "read": ("0", r"open:RDONLY read:3901 close", "g2_readall"),
      "delete": ("0", r"unlink", "g3_delete"),
    },
    "exact": ["ops == 3200", "g0_create == 800", "g1_stat == 800", "g2_readall == 800",
              "g3_delete == 800", "bytes_written == 3901 * 800", "bytes_read == 3901 * 800",
              "errors == 0", "g1_stat_skipped + g2_readall_skipped + g3_delete_skipped == 0"],
  },
}
EOF

# traced NAME LOOP_OPS PROFILE ARGS...: a counted run at a fixed seed under strace, then the
# checks of specs[NAME]. LOOP_OPS is the ops of one loop (for the per-loop figures; '' = none).
traced() {
	local name=$1 per=$2 prof=$3 d
	shift 3
	d=$(shmdir)
	# LeakSanitizer cannot run under ptrace: the ASan build's leak check is off here only.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 \
		strace -f -y -qq -o "$work/$name.strace" \
		-e trace=execve,openat,read,write,lseek,fsync,fdatasync,close,unlinkat,newfstatat,statx \
		"$bin" run "$p/$prof.ffsb" --location "$d" --seed 7 --set callout=true \
		--json "$work/$name.json" "$@" >"$work/$name.out" 2>"$work/$name.err"
	local rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name: exit $rc: $(tail -2 "$work/$name.err")"
		return
	fi
	while IFS= read -r line; do
		case $line in
		"ok   "*) ok "${line#ok   }" ;;
		*) bad "${line#FAIL }" ;;
		esac
	done < <(python3 "$work/calls.py" "$name" "$work/$name.strace" "$work/$name.json" "$work/specs.py" ${per:+"$per"} 2>&1 ||
		echo "FAIL $name: the strace log or the report could not be read")
	rm -rf "$d"
}

traced filebench-varmail '' filebench-varmail --time 0 --threads 4 \
	--set threadgroup0.num_ops=100 --set filesystem0.num_files=200
# (Its gamma sizes capped at 1 MiB here: one read() and one write() per file, as the sequences
# below expect; 2 in 100 000 draws are larger.)
traced filebench-fileserver '' filebench-fileserver --time 0 --threads 4 \
	--set threadgroup0.num_ops=100 --set filesystem0.num_files=200 --set filesystem0.num_dirs=10 \
	--set filesystem0.size_dist=gamma:128K:1.5:1M
# One log writer, so that no append finds the log busy: 40 loops of 10 reads and 1 append.
traced filebench-webserver '' filebench-webserver --time 0 --threads 0=4 --threads 1=1 \
	--set threadgroup0.num_ops=10 --set threadgroup1.num_ops=40 \
	--set filesystem0.num_files=100 --set filesystem0.num_dirs=5
traced filebench-oltp '' filebench-oltp --time 0 --threads 0=4 --threads 1=2 --threads 2=1 \
	--set threadgroup0.num_ops=50 --set threadgroup1.num_ops=5 --set threadgroup2.num_ops=5 \
	--set filesystem0.min_filesize=1MB --set filesystem0.max_filesize=1MB \
	--set filesystem1.min_filesize=1MB --set filesystem1.max_filesize=1MB
traced postmark 2 postmark --set threadgroup0.num_ops=400 --set filesystem0.num_files=100
# mdtest-easy and mdtest-hard: one run of four phases each, 4 threads x 200 items a phase.
phases200=(--set threadgroup0.num_ops=200 --set threadgroup1.num_ops=200
	--set threadgroup2.num_ops=200 --set threadgroup3.num_ops=200)
traced mdtest-easy '' mdtest-easy "${phases200[@]}"
traced mdtest-hard '' mdtest-hard "${phases200[@]}"
# mdtest-easy's creates, each thread in its own directory (-u): thread k's files in data/d<k>
if python3 - "$work/mdtest-easy.strace" <<'PY'; then
import re, sys
dirs = {}  # pid -> directories its creates went to
for line in open(sys.argv[1]):
    m = re.match(r'(\d+) +openat\(\d+</[^>]*/fsmix\.fs0/data/(d\d+)>, "f\d+", [^)]*O_CREAT', line)
    if m:
        dirs.setdefault(m.group(1), set()).add(m.group(2))
assert len(dirs) == 4 and all(len(d) == 1 for d in dirs.values()), dirs
assert len(set.union(*dirs.values())) == 4, dirs
PY
	ok "mdtest-easy: each of the 4 create threads creates in a directory of its own (-u)"
else
	bad "mdtest-easy: the creates are not one directory per thread"
fi
summary
