#!/usr/bin/env bash
# Runs across several processes with MPI (docs/distributed.md): 3 ranks on tmpfs, one merged
# report, per-rank trees that clean removes, failures that end every rank with the documented
# status (never a hang), and a sweep with repeats. Skipped without mpirun or MPI support, and in
# sanitizer builds (OpenMPI's own leaks and races would drown fsmix's).
set -u
. "$(dirname "$0")/lib.bash"

if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "mpi: MPI runs are tested in the default build only (this one has sanitizers: $FSMIX_SANITIZERS; OpenMPI reports its own leaks and races)"
	summary
fi
if ! command -v mpirun >/dev/null; then
	skip_env mpi "mpi: no mpirun (apt-get install openmpi-bin libopenmpi-dev)"
	summary
fi
if ! ldd "$bin" 2>/dev/null | grep -q libmpi; then
	skip_env mpi "mpi: this fsmix was built without MPI support (cmake -DFSMIX_MPI=ON)"
	summary
fi

# mpirun as root, more ranks than CPUs; a hang is caught by timeout (generous: it is no speed
# bound, the runs take about a second).
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$bin" "$@"; }
tiny=(--set filesystem0.num_files=50 --set filesystem0.num_dirs=5 --threads 1)
cd "$work" || exit 1

# 1. One merged report: op counts add up, percentiles are those of every rank's samples.
loc=$(shmdir)
# Timed runs of default.ffsb are paced (lib.bash): at full speed, three ranks would write as
# fast as the machine can into /dev/shm, for 60 s where a test's event does not come.
mpi run "$src/profiles/default.ffsb" --location "$loc" "${tiny[@]}" --time 1 "${paced[@]}" \
	--json "$work/r.json" --csv "$work/r.csv" --lat-log "$work/lat" >"$work/r.out" 2>"$work/r.err"
rc=$?
[ $rc -eq 0 ] && ok "3 ranks: exit 0" || bad "3 ranks: exit $rc: $(tail -3 "$work/r.err")"
n_reports=$(grep -c "^Distributed run: 3 ranks on 1 host" "$work/r.out")
n_results=$(grep -c "^Results:" "$work/r.out")
[ "$n_reports" -eq 1 ] && [ "$n_results" -eq 1 ] && ok "one report, by rank 0" ||
	bad "$n_results 'Results:' and $n_reports 'Distributed run' lines"
[ -d "$loc/fsmix.fs0.r0" ] && [ -d "$loc/fsmix.fs0.r1" ] && [ -d "$loc/fsmix.fs0.r2" ] &&
	[ ! -e "$loc/fsmix.fs0" ] && ok "a tree per rank: fsmix.fs0.r0, .r1, .r2" || bad "trees: $(ls "$loc")"
[ -f lat.r0 ] && [ -f lat.r1 ] && [ -f lat.r2 ] && [ ! -e lat ] && ok "--lat-log FILE: FILE.r0 .. FILE.r2" ||
	bad "latency logs: $(ls)"
python3 - "$work/r.json" "$work/r.csv" lat.r0 lat.r1 lat.r2 <<'PY' && ok "merged counts are the sum of the ranks' and of their latency logs; p50..p99.9 within 1/128 of the union's" || bad "merged figures"
import collections, csv, json, math, sys
d = json.load(open(sys.argv[1]))
m = d["mpi"]
assert d["exit_status"] == 0 and m["ranks"] == 3 and m["n_hosts"] == 1, m
total_ops = sum(o["count"] for o in d["total"]["ops"])
assert sum(r["ops"] for r in m["per_rank"]) == total_ops, (total_ops, m["per_rank"])
assert sum(r["trans"] for r in m["per_rank"]) == sum(o["transactions"] for o in d["total"]["ops"])
assert [r["rank"] for r in m["per_rank"]] == [0, 1, 2]
for k in ("min", "mean", "max", "stddev", "job", "stonewall"):
    assert m["ops_per_s"][k] >= 0 and m["trans_per_s"][k] >= 0
assert m["ops_per_s"]["min"] <= m["ops_per_s"]["mean"] <= m["ops_per_s"]["max"]
assert len(m["devices"]) == 1 and m["devices"][0]["host"] == m["hosts"][0]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["kind"] == "rank"]
assert [r["group"] for r in rows] == ["rank0", "rank1", "rank2"], rows
assert sum(int(r["count"]) for r in rows) == total_ops
lat = collections.defaultdict(list)
for path in sys.argv[3:]:
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.split()
        lat[f[3]].append(int(f[4]))
for o in d["total"]["ops"]:
    v = sorted(lat[o["name"]])
    assert len(v) == o["count"], (o["name"], len(v), o["count"])
    if not v:
        continue
    for p, key in ((50, "p50_ns"), (90, "p90_ns"), (99, "p99_ns"), (99.9, "p99_9_ns")):
        exact = v[max(1, math.ceil(p / 100 * len(v))) - 1]
        got = o["latency"][key]
        assert abs(got - exact) <= exact / 128 + 1, (o["name"], p, got, exact)
PY

# 1b. The stonewall of a count-limited run is measured: the first rank's end is told to the
# others, which snapshot what they had done by then. Every rank runs the same plan (3b), so which
# rank ends first is up to the machine; the checks hold whichever does (structural facts, no
# speed assumed).
loc9=$(shmdir)
mpi run "$src/profiles/default.ffsb" --location "$loc9" "${tiny[@]}" --time 0 --json "$work/w.json" \
	--csv "$work/w.csv" --set threadgroup0.num_ops=20000 >"$work/w.out" 2>"$work/w.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^Stonewall (every rank running: .*ops/sec, .*trans/sec, [0-9]* ops by then" "$work/w.out" &&
	ok "count-limited, 3 ranks of 20000 ops: exit 0, the stonewall line" ||
	bad "count-limited stonewall run: exit $rc: $(tail -3 "$work/w.err")"
python3 - "$work/w.json" "$work/w.csv" <<'PY' && ok "stonewall: the first rank's snapshot is its end, the others' within their runs; ops and rates are the snapshots' sums" || bad "stonewall figures"
import csv, json, sys
d = json.load(open(sys.argv[1]))
m = d["mpi"]
ranks = m["per_rank"]
assert [r["ops"] for r in ranks] == [20000, 20000, 20000], ranks
first = min(ranks, key=lambda r: r["runtime_s"])
# the first to end did not hear of another's end: its snapshot is its final count at its end
assert first["stonewall_ops"] == first["ops"] and first["stonewall_s"] == first["runtime_s"], first
assert first["stonewall_trans"] == first["trans"], first
for r in ranks:
    assert 0 < r["stonewall_s"] <= r["runtime_s"], r
    assert r["stonewall_ops"] <= r["ops"] and r["stonewall_trans"] <= r["trans"], r
longest = max(r["runtime_s"] for r in ranks)
assert m["stonewall_s"] <= longest and abs(m["stonewall_s"] - first["runtime_s"]) <= 0.2, m["stonewall_s"]
total = sum(o["count"] for o in d["total"]["ops"])
assert m["stonewall_ops"] == sum(r["stonewall_ops"] for r in ranks) <= total, m["stonewall_ops"]
assert m["stonewall_trans"] == sum(r["stonewall_trans"] for r in ranks)
rate = sum(r["stonewall_ops"] / r["stonewall_s"] for r in ranks)
trate = sum(r["stonewall_trans"] / r["stonewall_s"] for r in ranks)
assert abs(m["ops_per_s"]["stonewall"] - rate) <= 1e-6 * rate, (m["ops_per_s"], rate)
assert abs(m["trans_per_s"]["stonewall"] - trate) <= 1e-6 * trate, (m["trans_per_s"], trate)
row = [r for r in csv.DictReader(open(sys.argv[2])) if r["kind"] == "stonewall"]
assert len(row) == 1 and int(row[0]["count"]) == m["stonewall_ops"], row
assert abs(float(row[0]["ops_per_s"]) - rate) <= 1e-3 + 1e-6 * rate, row
assert abs(float(row[0]["length_s"]) - m["stonewall_s"]) <= 1e-3, row
PY

# 2. clean (a single process) removes every rank's tree, and nothing else.
mkdir "$loc/keep" "$loc/fsmix.fs0.rx"
"$bin" clean "$src/profiles/default.ffsb" --location "$loc" >"$work/c.out" 2>&1
rc=$?
left=$(ls "$loc" | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$left" = "fsmix.fs0.rx keep " ] && ok "clean removes fsmix.fs0.r0..r2, keeps the rest" ||
	bad "clean: exit $rc, left: $left"
# ... and a job's clean removes its ranks' trees.
mpi run "$src/profiles/default.ffsb" --location "$loc" "${tiny[@]}" --time 0 >/dev/null 2>&1
mpi clean "$src/profiles/default.ffsb" --location "$loc" >"$work/c.out" 2>&1
rc=$?
left=$(ls "$loc" | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$left" = "fsmix.fs0.rx keep " ] && ok "mpirun ... clean: every rank removes its tree" ||
	bad "mpi clean: exit $rc, left: $left"
# A single process still works in fsmix.fs0 (no MPI_Init without a launcher).
"$bin" run "$src/profiles/default.ffsb" --location "$loc" "${tiny[@]}" --time 0 >"$work/s.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -d "$loc/fsmix.fs0" ] && ! grep -q "Distributed run" "$work/s.out" &&
	ok "without mpirun: one process in fsmix.fs0" || bad "single process: exit $rc, $(ls "$loc")"

# --cleanup: every rank removes its own tree.
loc8=$(shmdir)
mpi run "$src/profiles/default.ffsb" --location "$loc8" "${tiny[@]}" --time 1 "${paced[@]}" --cleanup >"$work/u.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -z "$(ls "$loc8")" ] && ok "--cleanup: every rank's tree removed" ||
	bad "--cleanup: exit $rc, left: $(ls "$loc8")"

# 3. A missing location and a bad profile: exit 2 on every rank, the message once.
mpi run "$src/profiles/default.ffsb" --location "$work/missing" "${tiny[@]}" --time 1 >"$work/m.out" 2>&1
rc=$?
n=$(grep -c "location '$work/missing'" "$work/m.out")
[ $rc -eq 2 ] && [ "$n" -eq 1 ] && ok "missing location: exit 2, said once" || bad "missing location: exit $rc, said $n times"
mpi run "$src/profiles/default.ffsb" --location "$loc" "${tiny[@]}" --set threadgroup0.no_such_key=1 >"$work/p.out" 2>&1
rc=$?
n=$(grep -c "unknown key 'no_such_key'" "$work/p.out")
[ $rc -eq 2 ] && [ "$n" -eq 1 ] && ok "bad profile: exit 2, said once" || bad "bad profile: exit $rc, said $n times"

# 3b. Every rank must be given the same plan (MPMD: a command line per group of ranks). Ranks
# that disagree (another --time and num_threads, another option, another sweep, a command line
# that does not parse) are refused at start-up: exit 2 on every rank, rank 0 names the ranks and the first differing key once,
# nothing is created and no JSON written. The same plan written otherwise (--threads 1 and --set
# threadgroup0.num_threads=1) agrees, and so does a given --seed, which rank R runs as seed + R.
mpmd() { # mpmd ARGS_OF_RANKS_0_1 -- ARGS_OF_RANK_2
	local a=() b=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" "${a[@]}" : -np 1 "$bin" "${b[@]}"
}
loc10=$(shmdir)
same=(run "$src/profiles/default.ffsb" --location "$loc10" "${tiny[@]}")
mpmd "${same[@]}" --time 1 --json "$work/d.json" -- "${same[@]}" --json "$work/d.json" --time 3 \
	--set threadgroup0.num_threads=3 >"$work/d.out" 2>"$work/d.err"
rc=$?
n=$(grep -c "^fsmix: the ranks were not given the same profile and options: rank 2 of 3 differs from rank 0: global.time is '1' on rank 0 and '3' on rank 2" "$work/d.err")
[ $rc -eq 2 ] && [ "$n" -eq 1 ] && [ -z "$(ls "$loc10")" ] && [ ! -e "$work/d.json" ] &&
	! grep -q "^Results:" "$work/d.out" &&
	ok "ranks given another --time and num_threads: exit 2, rank 0 names rank 2 and global.time once, nothing run" ||
	bad "disagreeing ranks: exit $rc, said $n times: $(grep -v '^--' "$work/d.err" | head -3); $(ls "$loc10")"
mpmd "${same[@]}" --time 1 -- "${same[@]}" --time 1 --set threadgroup0.num_threads=3 >"$work/d.out" 2>"$work/d.err"
rc=$?
[ $rc -eq 2 ] && grep -q "rank 2 of 3 differs from rank 0: threadgroup0.num_threads is '1' on rank 0 and '3' on rank 2" "$work/d.err" &&
	ok "another num_threads alone: exit 2, the key named" || bad "num_threads differs: exit $rc: $(head -2 "$work/d.err")"
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$bin" "${same[@]}" --time 1 : -np 2 "$bin" \
	"${same[@]}" --time 1 --cleanup >"$work/d.out" 2>"$work/d.err"
rc=$?
[ $rc -eq 2 ] && grep -q "ranks 1, 2 of 3 differ from rank 0: --cleanup is not given on rank 0 and 'on' on rank 1" "$work/d.err" &&
	[ -z "$(ls "$loc10")" ] && ok "ranks 1 and 2 given --cleanup: exit 2, both ranks and the option named" ||
	bad "an option on two ranks: exit $rc: $(head -2 "$work/d.err")"
mpmd "${same[@]}" --time 1 --threads 1,2 -- "${same[@]}" --time 1 --threads 1,3 >"$work/d.out" 2>"$work/d.err"
rc=$?
[ $rc -eq 2 ] && grep -q "rank 2 of 3 differs from rank 0: sweep threads is '1,2' on rank 0 and '1,3' on rank 2" "$work/d.err" &&
	ok "sweeps of other thread counts: exit 2" || bad "sweeps differ: exit $rc: $(head -2 "$work/d.err")"
# A rank whose command line does not parse must not leave the others waiting for it (d1b203d
# hung until mpirun was killed): every rank exits 2, rank 0 says which rank and why.
mpmd "${same[@]}" --time 1 -- "${same[@]}" --time 1 --no-such-option >"$work/d.out" 2>"$work/d.err"
rc=$?
[ $rc -eq 2 ] && grep -q "^fsmix: rank 2 on $(hostname): unknown option '--no-such-option'; nothing was run" "$work/d.err" &&
	ok "rank 2's command line does not parse: exit 2 on every rank, no hang, rank 0 names rank 2 and the option" ||
	bad "a rank's bad option: exit $rc: $(grep -v '^--' "$work/d.err" | head -2)"
mpmd "${same[@]}" --time 1 "${paced[@]}" --seed 5 --json "$work/e.json" -- run "$src/profiles/default.ffsb" \
	--location "$loc10" --set filesystem0.num_files=50 --set filesystem0.num_dirs=5 \
	--set threadgroup0.num_threads=1 --seed 5 --time 1 "${paced[@]}" --json "$work/e.json" >"$work/e.out" 2>"$work/e.err"
rc=$?
[ $rc -eq 0 ] && [ "$(python3 -c 'import json, sys; print(*[r["seed"] for r in json.load(open(sys.argv[1]))["mpi"]["per_rank"]])' "$work/e.json")" = "5 6 7" ] &&
	ok "the same plan written otherwise, --seed 5: exit 0, ranks run seeds 5, 6, 7" ||
	bad "agreeing ranks: exit $rc: $(grep -v '^--' "$work/e.err" | head -3)"

# A rank whose setup fails (its tree's name taken by a directory fsmix did not make): no rank
# starts; exit 2 everywhere, rank 0 names rank 1 and why; the stranger's directory stays.
loc6=$(shmdir)
mkdir "$loc6/fsmix.fs0.r1"
mpi run "$src/profiles/default.ffsb" --location "$loc6" "${tiny[@]}" --time 60 "${paced[@]}" --json "$work/s6.json" \
	>"$work/s6.out" 2>"$work/s6.err"
rc=$?
[ $rc -eq 2 ] && grep -q "^fsmix: rank 1 on $(hostname): filesystem0: .*fsmix.fs0.r1' exists but has no valid" "$work/s6.err" &&
	[ -d "$loc6/fsmix.fs0.r1" ] && ! grep -q "^fsmix: running" "$work/s6.err" &&
	ok "a rank's setup fails: nobody runs, exit 2, 'rank 1 on HOST: ...'" ||
	bad "failed setup on rank 1: exit $rc: $(grep -v '^--' "$work/s6.err" | head -3)"

# 4. A rank that fails mid-run (its tree's data/ removed under it) stops the whole job at once,
# long before its 60 s: exit 1, rank 0 names the rank and host.
loc2=$(shmdir)
mpi run "$src/profiles/default.ffsb" --location "$loc2" "${tiny[@]}" --time 60 "${paced[@]}" --json "$work/f.json" \
	>"$work/f.out" 2>"$work/f.err" &
pid=$!
if wait_for "$work/f.err" "running 1 threads" 60; then
	sleep 0.3
	rm -rf "$loc2/fsmix.fs0.r1/data" 2>/dev/null
fi
wait $pid
rc=$?
[ $rc -eq 1 ] && grep -q "^fsmix: rank 1 on $(hostname): worker 0 (threadgroup0): .*No such file or directory" "$work/f.err" &&
	ok "a rank fails mid-run: every rank stops, exit 1, 'rank 1 on HOST: ...'" ||
	bad "failed rank: exit $rc: $(grep 'rank 1' "$work/f.err")"
python3 - "$work/f.json" <<'PY' && ok "its JSON: exit_status 1, the error, rank 1's own outcome io" || bad "failed rank's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 1 and d["error"].startswith("rank 1 on "), d["error"]
assert [r["outcome"] for r in d["mpi"]["per_rank"]] == ["ok", "io", "ok"], d["mpi"]["per_rank"]
PY

# A rank that dies (SIGKILL) cannot take part in anything: mpirun aborts the whole job (it
# terminates the other ranks) and exits non-zero; no hang. No report is written then, and the
# previous job's report at --json (exit_status 0) was emptied when the run started: it never
# passes for this job's result (docs/output.md).
loc4=$(shmdir)
cp "$work/r.json" "$work/k.json"
mpi run "$src/profiles/default.ffsb" --location "$loc4" "${tiny[@]}" --time 60 "${paced[@]}" \
	--json "$work/k.json" >"$work/k.out" 2>"$work/k.err" &
pid=$!
victim=
if wait_for "$work/k.err" "running 1 threads" 60; then
	victim=$(pgrep -f "^$bin run .*--location $loc4" | sort -n | sed -n 2p) # a rank, any
	[ -n "$victim" ] && kill -KILL "$victim"
fi
wait $pid
rc=$?
[ -n "$victim" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && ok "a rank killed: mpirun ends the job (exit $rc), no hang" ||
	bad "killed rank: victim '$victim', exit $rc"
[ -n "$victim" ] && [ -f "$work/k.json" ] && [ ! -s "$work/k.json" ] &&
	ok "a rank killed: the previous job's --json was emptied, no report passes for this one" ||
	bad "killed rank: --json holds $(head -c 300 "$work/k.json" 2>&1)"

# A rank whose worker threads cannot be made (a pids cgroup on rank 1 only, as thread_limits.sh
# does) after the barrier: it tells the others, every rank stops at once (never a hang in the
# run phase's end), exit 1 naming rank 1 and the limit; the report has the others' figures.
cg=
pids_cgroup() {
	[ "$(id -u)" = 0 ] || return 1
	if [ -w /sys/fs/cgroup/pids/cgroup.procs ]; then
		cg=/sys/fs/cgroup/pids/fsmix-e2e-mpi-$$
	elif grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
		grep -qw pids /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		cg=/sys/fs/cgroup/fsmix-e2e-mpi-$$
	else
		return 1
	fi
	mkdir "$cg" 2>/dev/null && [ -w "$cg/pids.max" ] || { cg=; return 1; }
}
if pids_cgroup; then
	trap '[ -n "$cg" ] && rmdir "$cg" 2>/dev/null; cleanup' EXIT
	echo 30 >"$cg/pids.max"
	loc7=$(shmdir)
	timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np 3 sh -c \
		'[ "$OMPI_COMM_WORLD_RANK" != 1 ] || echo $$ >"$0/cgroup.procs"; exec "$@"' "$cg" \
		"$bin" run "$src/profiles/default.ffsb" --location "$loc7" --set filesystem0.num_files=50 \
		--threads 50 --time 60 "${paced[@]}" --json "$work/t.json" >"$work/t.out" 2>"$work/t.err"
	rc=$?
	python3 - "$work/t.json" <<'PY' && [ $rc -eq 1 ] && grep -q "^fsmix: rank 1 on .*: cannot start worker thread .*pids.max" "$work/t.err" &&
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 1 and d["stop_reason"] == "error", (d["exit_status"], d["stop_reason"])
assert [r["outcome"] for r in d["mpi"]["per_rank"]] == ["ok", "io", "ok"]
assert d["mpi"]["per_rank"][1]["ops"] == 0 and d["groups"][0]["threads"] == 100
assert sum(r["ops"] for r in d["mpi"]["per_rank"]) == sum(o["count"] for o in d["total"]["ops"])
PY
		ok "rank 1's threads cannot be made: every rank stops at once, exit 1, the others' figures" ||
		bad "thread limit on rank 1: exit $rc: $(grep -v '^--' "$work/t.err" | head -3)"
else
	if [ "$(id -u)" != 0 ]; then
		skip_env root "thread limit on one rank: a pids cgroup needs root"
	else
		skipped "thread limit on one rank: no writable pids cgroup here (the pids controller)"
	fi
fi

# Ctrl-C to mpirun: OpenMPI sends SIGTERM to every rank; they stop and rank 0 writes the
# partial merged report (interrupted, exit_status 130).
loc5=$(shmdir)
mpi run "$src/profiles/default.ffsb" --location "$loc5" "${tiny[@]}" --time 60 "${paced[@]}" --json "$work/i.json" \
	>"$work/i.out" 2>"$work/i.err" &
pid=$!
launcher=
if wait_for "$work/i.err" "running 1 threads" 60; then
	sleep 0.3
	launcher=$(pgrep -f "^mpirun .*--location $loc5" | head -1)
	[ -n "$launcher" ] && kill -INT "$launcher"
fi
wait $pid
rc=$?
python3 - "$work/i.json" <<'PY' && [ -n "$launcher" ] && [ $rc -ne 124 ] &&
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] and d["exit_status"] == 130 and d["mpi"]["ranks"] == 3, d["exit_status"]
assert sum(r["ops"] for r in d["mpi"]["per_rank"]) == sum(o["count"] for o in d["total"]["ops"])
PY
	ok "Ctrl-C to mpirun: a partial merged report (interrupted, exit_status 130; mpirun exit $rc)" ||
	bad "Ctrl-C to mpirun: launcher '$launcher', exit $rc"

# 5. A sweep with repeats: every point's runs are merged over the ranks.
loc3=$(shmdir)
mpi run "$src/profiles/default.ffsb" --location "$loc3" --set filesystem0.num_files=50 \
	--set filesystem0.num_dirs=5 --time 1 "${paced[@]}" --threads 1,2 --repeat 2 --json "$work/s.json" \
	>"$work/s.out" 2>"$work/s.err"
rc=$?
python3 - "$work/s.json" <<'PY' && [ $rc -eq 0 ] && ok "--threads 1,2 --repeat 2 under MPI: 4 merged runs" || bad "MPI sweep: exit $rc"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 0 and len(d["points"]) == 2
for p in d["points"]:
    assert len(p["runs"]) == 2
    for r in p["runs"]:
        assert r["mpi"]["ranks"] == 3
        assert sum(x["ops"] for x in r["mpi"]["per_rank"]) == sum(o["count"] for o in r["total"]["ops"])
PY
# compare and plot read MPI results (the JSON keeps every field they use).
"$bin" compare "$work/r.json" "$work/r.json" >"$work/cmp.out" 2>&1 && grep -q "^run  *ops/s .*(0)" "$work/cmp.out" &&
	ok "compare reads an MPI run's JSON" || bad "compare of MPI results: $(tail -3 "$work/cmp.out")"
if command -v gnuplot >/dev/null; then
	"$bin" plot "$work/s.json" -o "$work/s.svg" >/dev/null 2>&1 && [ -s "$work/s.svg" ] &&
		ok "plot draws an MPI sweep" || bad "plot of an MPI sweep"
else
	skip_env gnuplot "plot: no gnuplot"
fi

# More locations than rank 0's lock table holds (TREE_MAX_LOCKS, 64): a checked error before any
# rank creates anything, never a location that rank 0 silently leaves unlocked while the other
# ranks build their trees in it.
loc65=$(shmdir)
{
	echo "time=1"
	for i in $(seq 0 64); do
		mkdir -p "$loc65/l$i"
		printf '[filesystem%d]\n\tlocation=%s\n\tnum_files=2\n\tnum_dirs=1\n[end%d]\n' "$i" "$loc65/l$i" "$i"
	done
	printf '[threadgroup0]\n\tnum_threads=1\n\tstat_weight=1\n[end0]\n'
} >"$work/65.ffsb"
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" run "$work/65.ffsb" >"$work/65.out" 2>"$work/65.err"
rc=$?
made=$(find "$loc65" -mindepth 2 -maxdepth 2 | head -3)
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z "$made" ] && grep -q "more than 64 locations" "$work/65.err" &&
	ok "65 locations under MPI: refused before any rank creates a tree" ||
	bad "65 locations: exit $rc, created: ${made:-nothing}, $(grep fsmix: "$work/65.err" | tail -2)"

summary
