#!/usr/bin/env bash
# bench_mdtest.sh - fsmix side by side with mdtest (hpc/ior; issue 28): mdtest-easy and
# mdtest-hard as IO500 runs them, the same tasks and items, per phase creates/s, stats/s,
# reads/s, removes/s and the ratio fsmix / mdtest; prints figures, asserts nothing (not a test).
#
#   bash tests/bench/bench_mdtest.sh [easy|hard|all] [BUILD_DIR]
#
#   easy  mdtest -n N -u -L -F -P -N 1 -C -T -E -r -d DIR   (IO500's mdtest-easy: empty files, a
#         directory per task; IO500 adds -W (stonewall) and -x to the create phase and has no
#         -E; -E here: the read phase (open, close) that profiles/mdtest-easy.ffsb also runs)
#   hard  mdtest -n N -t -w 3901 -e 3901 -F -P -N 1 -C -T -E -r -d DIR   (IO500's mdtest-hard:
#         3901-byte files written, then read back, all tasks in one shared directory)
# both under mpirun --allow-run-as-root --oversubscribe -np BENCH_TASKS (default 4), N =
# BENCH_ITEMS per task (default 10000), on each of BENCH_FS (default "tmpfs ext4"; ext4: a loop
# image of BENCH_EXT4_MB, default 2048, in BENCH_IMG_DIR, default /tmp, unmounted on exit).
# BENCH_ROUNDS (default 8) ABBA rounds (round 1 mdtest then fsmix, round 2 fsmix then mdtest,
# ...), every run in a fresh directory. The rate of a phase is items / the phase's time, as
# mdtest's SUMMARY rate (its mean; one iteration). Per phase the summary gives the median ratio
# and its range, the Hodges-Lehmann estimate with its 95 % Wilcoxon interval (the verdict) and
# the geometric mean with its t interval: on a shared machine a 1 s phase's rate moves by 2x
# from round to round with the other load, so a median of 3 or 5 rounds says little; the
# interval says whether the rounds tell the two apart (summary() says why that one). Each
# round also prints how long the machine stalled (PSI, /proc/pressure: some task waiting for a
# CPU, for I/O) during each tool's run, and the summary names every run below half its tool's
# median rate with those stalls: the slow rounds stay in, seen and explained.
# CPU: the user + system seconds of each whole run (mdtest: mpirun and its ranks; fsmix: the
# process), from bash's `times`, less those of a run of 1 item per task made once before the
# rounds (MPI's start, fsmix's setup and report: what does not grow with the items); items per
# CPU-second = tasks x items x 4 phases / those seconds, and its ratio fsmix / mdtest per
# round. On a shared machine the rates move with the load while the CPU an item costs does not
# (much): that ratio says which tool does more work per item.
#
# mdtest: $MDTEST (default $PEERS_DIR/ior/src/mdtest, PEERS_DIR default /work/peers; built by
# tests/bench/peers_build.sh).
# fsmix: FSMIX_MDTEST_EASY (default profiles/mdtest-easy.ffsb) and FSMIX_MDTEST_HARD (default
# profiles/mdtest-hard.ffsb when it exists, else the easy profile with 3901-byte files), with
# BENCH_TASKS threads (FSMIX_MPI=1: BENCH_TASKS ranks of 1 thread under mpirun, as mdtest;
# needs an fsmix built with MPI) and any FSMIX_ARGS (words) added to every fsmix command.
#  - A profile with phases (a `phase=` or `stonewall=` key) runs once; each of its thread groups
#    gets num_threads and num_ops, and a phase's rate is the JSON's "phases"[i].ops[].ops_per_s
#    of its op (create, stat, readall, delete): its count over the phase's runtime.
#  - A profile without (the shipped mdtest-easy.ffsb today) runs once per phase, as its header
#    says: create on an empty tree (num_ops N per thread), then stat, read (hard) and delete on
#    a tree of tasks x N files that the untimed setup builds (easy: num_dirs = tasks and
#    dir_per_thread=1, as -u; hard: one directory); a phase's rate is that run's ops/s.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-all}
build=${2:-$top/build}
fsmix=$build/src/fsmix
peers=${PEERS_DIR:-/work/peers}
mdtest=${MDTEST:-$peers/ior/src/mdtest}
tasks=${BENCH_TASKS:-4} items=${BENCH_ITEMS:-10000} rounds=${BENCH_ROUNDS:-8}
filesystems=${BENCH_FS:-tmpfs ext4}
easy_prof=${FSMIX_MDTEST_EASY:-$top/profiles/mdtest-easy.ffsb}
hard_prof=${FSMIX_MDTEST_HARD:-}
if [ -z "$hard_prof" ]; then
	hard_prof=$top/profiles/mdtest-easy.ffsb
	[ -f "$top/profiles/mdtest-hard.ffsb" ] && hard_prof=$top/profiles/mdtest-hard.ffsb
fi
[ -x "$fsmix" ] || { echo "bench_mdtest: no fsmix at $fsmix" >&2; exit 2; }
[ -x "$mdtest" ] || { echo "bench_mdtest: no mdtest at $mdtest (tests/bench/peers_build.sh builds it)"; exit 77; }
command -v mpirun >/dev/null || { echo "bench_mdtest: no mpirun"; exit 77; }
bench_tag=md bench_ext4_mb=2048
. "$top/tests/bench/bench-fs.bash"
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$tasks" "$@"; }
# cpu_s: user + system CPU seconds of the children this shell has waited for (bash's `times`;
# call it as `cpu_s >FILE`: inside $(...) it would be a new process, which has no children).
cpu_s() {
	times >"$work/times.$BASHPID"
	awk 'function s(t) { split(t, a, /[ms]/); return a[1] * 60 + a[2] }
		NR == 2 { printf "%.3f\n", s($1) + s($2) }' "$work/times.$BASHPID"
}
# psi_snap: the machine's CPU and I/O pressure stall totals (/proc/pressure/{cpu,io}, "some"
# line, microseconds; 0 0 without PSI) and the time (ns), as `psi_snap >FILE`; psi_ms F0 F1:
# the three deltas in ms: how long some task of the machine waited for a CPU, for I/O, and the
# time between the snapshots (the run's).
psi_snap() {
	local f t=()
	for f in cpu io; do
		t+=("$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' "/proc/pressure/$f" 2>/dev/null || true)")
	done
	echo "${t[0]:-0} ${t[1]:-0} $(date +%s%N)"
}
psi_ms() {
	awk 'NR == 1 { c = $1; i = $2; w = $3 }
		NR == 2 { printf "%d %d %d\n", ($1 - c) / 1000, ($2 - i) / 1000, ($3 - w) / 1000000 }' "$1" "$2"
}


# run_mdtest KIND FS: "create stat read remove" rates and the run's CPU seconds.
run_mdtest() {
	local d opts c0 c1
	d=$(dir_for "$2") || return 1
	case $1 in
	easy) opts=(-n "$items" -u -L -F -P -N 1 -C -T -E -r) ;;
	hard) opts=(-n "$items" -t -w 3901 -e 3901 -F -P -N 1 -C -T -E -r) ;;
	esac
	cpu_s >"$work/c0"
	psi_snap >"$work/p0"
	mpi "$mdtest" "${opts[@]}" -d "$d/md" >"$work/md.out" 2>&1
	psi_snap >"$work/p1"
	cpu_s >"$work/c1"
	awk -v cpu="$(echo "$(cat "$work/c1") - $(cat "$work/c0")" | bc -l)" -v psi="$(psi_ms "$work/p0" "$work/p1")" '/^SUMMARY time/ { exit } /^ *File (creation|stat|read|removal) / { r[$2] = $5 }
		END { if (r["creation"] == "") exit 1; printf "%s %s %s %s %s %s\n", r["creation"], r["stat"], r["read"] + 0, r["removal"], cpu, psi }' "$work/md.out" ||
		{ echo "bench_mdtest: mdtest $1 on $2 gave no result:" >&2; tail -5 "$work/md.out" >&2; return 1; }
}

# fsmix_cmd ARGS...: fsmix with ARGS, alone with BENCH_TASKS threads or under mpirun.
fsmix_cmd() {
	if [ "${FSMIX_MPI:-0}" = 1 ]; then
		mpi "$fsmix" "$@" --set threadgroup0.num_threads=1 ${FSMIX_ARGS:-}
	else
		"$fsmix" "$@" ${FSMIX_ARGS:-}
	fi
}
# ops_rate JSON OP: that op's ops/s of the whole run.
ops_rate() {
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["total"]
print(next((o["ops_per_s"] for o in t["ops"] if o["name"] == sys.argv[2]), 0))' "$1" "$2"
}
is_phased() { grep -Eq '^[[:space:]]*(phase|stonewall)[[:space:]]*=' "$1"; }

# run_fsmix KIND FS: "create stat read remove" rates and the CPU seconds of the runs.
run_fsmix() {
	local kind=$1 fs=$2 prof d n=$((tasks * items)) base rates=() ph w op
	[ "$kind" = easy ] && prof=$easy_prof || prof=$hard_prof
	if is_phased "$prof"; then
		run_fsmix_phased "$kind" "$fs" "$prof"
		return
	fi
	# under mpirun every rank has a tree of its own (docs/distributed.md), as mdtest -u
	[ "${FSMIX_MPI:-0}" = 1 ] && n=$items
	base=(--set "threadgroup0.num_threads=$tasks" --set "threadgroup0.num_ops=$items"
		--set threadgroup0.create_weight=0 --set filesystem0.create_blocksize=4KB)
	if [ "$kind" = hard ] && [ "$prof" = "$top/profiles/mdtest-easy.ffsb" ]; then
		base+=(--set filesystem0.min_filesize=3901 --set filesystem0.max_filesize=3901
			--set threadgroup0.read_blocksize=4KB --set filesystem0.num_dirs=0)
	fi
	cpu_s >"$work/c0"
	psi_snap >"$work/p0"
	for ph in create stat read remove; do
		case $ph in
		create) w=create_weight op=create ;;
		stat) w=stat_weight op=stat ;;
		read) w=readall_weight op=readall ;;&
		read) [ "$kind" = easy ] && w=open_close_weight op=open_close ;; # -e 0: open, close
		remove) w=delete_weight op=delete ;;
		esac
		d=$(dir_for "$fs") || return 1
		local files=(--set "filesystem0.num_files=$n")
		[ "$ph" = create ] && files=(--set filesystem0.num_files=0)
		# -u: a directory per task (creates in the thread's own; the others pick anywhere)
		[ "$kind" = easy ] && [ "${FSMIX_MPI:-0}" != 1 ] &&
			files+=(--set "filesystem0.num_dirs=$tasks" --set filesystem0.dir_per_thread=1)
		fsmix_cmd run "$prof" --location "$d" --time 0 "${base[@]}" "${files[@]}" \
			--set "threadgroup0.$w=1" --json "$work/f.json" >"$work/fsmix.out" 2>&1 ||
			{ echo "bench_mdtest: fsmix $kind $ph on $fs failed:" >&2; tail -3 "$work/fsmix.out" >&2; return 1; }
		rates+=("$(ops_rate "$work/f.json" "$op")")
	done
	psi_snap >"$work/p1"
	cpu_s >"$work/c1"
	echo "${rates[*]} $(echo "$(cat "$work/c1") - $(cat "$work/c0")" | bc -l) $(psi_ms "$work/p0" "$work/p1")"
}
# A profile with phases: one run; every group gets the tasks and items.
run_fsmix_phased() {
	local d g args=()
	d=$(dir_for "$2") || return 1
	for g in $(sed -n 's/^\[threadgroup\([0-9]*\)\].*/\1/p' "$3"); do
		args+=(--set "threadgroup$g.num_threads=$tasks" --set "threadgroup$g.num_ops=$items")
	done
	cpu_s >"$work/c0"
	psi_snap >"$work/p0"
	fsmix_cmd run "$3" --location "$d" --time 0 "${args[@]}" --json "$work/f.json" >"$work/fsmix.out" 2>&1 ||
		{ echo "bench_mdtest: fsmix $3 on $2 failed:" >&2; tail -3 "$work/fsmix.out" >&2; return 1; }
	psi_snap >"$work/p1"
	cpu_s >"$work/c1"
	python3 - "$work/f.json" "$(echo "$(cat "$work/c1") - $(cat "$work/c0")" | bc -l) $(psi_ms "$work/p0" "$work/p1")" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		phases = d.get("phases")
		if not phases:
		    sys.exit("bench_mdtest: the JSON has no phases")
		def rate(name):
		    # the phase that did this op: its own rate (its ops over its runtime)
		    for i, ph in enumerate(phases):
		        if "ops" in ph:
		            n = sum(o["ops_per_s"] for o in ph["ops"] if o["name"] == name and o["count"])
		        else:
		            n = sum(o["count"] for g in d["groups"] if g.get("phase", 0) == ph.get("phase", i)
		                    for o in g["ops"] if o["name"] == name) / ph["runtime_s"]
		        if n:
		            return n
		    return 0
		print(rate("create"), rate("stat"), rate("readall") or rate("open_close"), rate("delete"), sys.argv[2])
	EOF
}

# summary LABEL RATES < "name ratio" lines: per name, the median ratio fsmix/mdtest with its
# range; the Hodges-Lehmann estimate of the ratio with its 95 % interval (Wilcoxon's signed
# ranks over the logs of the per-round ratios: the rounds are pairs, each ratio taken within
# one round; it assumes a symmetric spread, not a normal one); the geometric mean with a 95 %
# confidence interval (Student's t over the same logs); how many rounds fsmix was ahead. The
# VERDICT is the Wilcoxon interval's: above 1, below 1, or across it (the rounds do not tell
# the two apart: run more). On this shared machine a run now and then loses half its rate or
# more to the other load (the CPU or disk stall of the moment hits whichever tool runs then;
# docs/peers.md), and one such round moves the geometric mean and widens its t interval far
# more than the rank-based estimate: the mean is printed for comparison, not as the verdict.
# No round is left out: from RATES ("name round tool rate cpu_stall_ms io_stall_ms run_ms"
# lines, every run) the summary names each run below half its tool's median rate for that phase, with the
# machine's stalls during it, so a slow round is seen and explained.
summary() {
	python3 -c 'import math, statistics as st, sys
t975 = [12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
def hl_ci(v):
    # Hodges-Lehmann: the median of the Walsh averages (pairwise means, each with itself) of the
    # log ratios, and their C-th smallest and largest as the 95 % interval, C - 1 the largest
    # signed-rank statistic with P(T <= C - 1) <= 2.5 % (exact: the subset sums of 1..n)
    n = len(v)
    lg = [math.log(x) for x in v]
    w = sorted((lg[i] + lg[j]) / 2 for i in range(n) for j in range(i, n))
    ways = [1] + [0] * (n * (n + 1) // 2)
    for k in range(1, n + 1):
        for t in range(len(ways) - 1, k - 1, -1):
            ways[t] += ways[t - k]
    c, tail = 0, 0.0
    while tail + ways[c] / 2.0 ** n <= 0.025:
        tail += ways[c] / 2.0 ** n
        c += 1
    est = math.exp(st.median(w))
    return est, ((math.exp(w[c - 1]), math.exp(w[len(w) - c])) if c else None)
def verdict(lo, hi):
    return "fsmix ahead" if lo > 1 else "fsmix behind" if hi < 1 else "parity not excluded"
r = {}
for line in sys.stdin:
    n, v = line.split()
    if float(v) > 0:
        r.setdefault(n, []).append(float(v))
rates = {}
for line in open(sys.argv[2]):
    n, rnd, tool, v, cs, io, ms = line.split()
    rates.setdefault((n, tool), []).append((int(rnd), float(v), cs, io, ms))
for n in ("create", "stat", "read", "remove", "cpu"):
    v = r.get(n)
    if not v:
        continue
    lg = [math.log(x) for x in v]
    m = st.mean(lg)
    out = "%s, %-7s median ratio fsmix/mdtest %.3f (%.3f-%.3f)" % (sys.argv[1], n, st.median(v), min(v), max(v))
    est, ci = hl_ci(v)
    out += ", Hodges-Lehmann %.3f" % est
    out += (", 95%% CI %.3f-%.3f (Wilcoxon): VERDICT %s" % (ci + (verdict(*ci),)) if ci
            else ", VERDICT none (a 95 % Wilcoxon interval needs 6 rounds)")
    out += "; geometric mean %.3f" % math.exp(m)
    if len(v) > 1:
        h = t975[min(len(v) - 2, len(t975) - 1)] * st.stdev(lg) / math.sqrt(len(v))
        lo, hi = math.exp(m - h), math.exp(m + h)
        out += ", 95%% CI %.3f-%.3f (t): %s" % (lo, hi, verdict(lo, hi))
    print(out + "; ahead in %d of %d rounds" % (sum(x > 1 for x in v), len(v)))
    for tool in ("mdtest", "fsmix"):
        runs = rates.get((n, tool), [])
        med = st.median([x[1] for x in runs]) if runs else 0
        for rnd, x, cs, io, ms in runs:
            if x < med / 2:
                print("  slow run: round %d %s %.0f /s, %.2fx its median %.0f /s; the machine stalled"
                      " %s ms on CPU, %s ms on I/O during the run of %s ms" % (rnd, tool, x, x / med, med, cs, io, ms))' "$1" "$2"
}

one() {
	local kind=$1 fs=$2 r a b i n=$((tasks * items * 4)) names=(create stat read remove cpu)
	echo "== mdtest-$kind on $fs: $tasks tasks x $items items, $rounds ABBA rounds; fsmix profile $([ "$kind" = easy ] && echo "$easy_prof" || echo "$hard_prof")$([ "${FSMIX_MPI:-0}" = 1 ] && echo " under mpirun" || echo ", $tasks threads")"
	: >"$work/ratios"
	: >"$work/rates"
	local mb fb
	mb=$(items=1 && run_mdtest "$kind" "$fs" | cut -d' ' -f5) fb=$(items=1 && run_fsmix "$kind" "$fs" | cut -d' ' -f5)
	echo "CPU of a run of 1 item per task, taken off below: mdtest ${mb:-?} s, fsmix ${fb:-?} s"
	for ((r = 1; r <= rounds; r++)); do
		if ((r % 2)); then
			a=$(run_mdtest "$kind" "$fs") b=$(run_fsmix "$kind" "$fs")
		else
			b=$(run_fsmix "$kind" "$fs") a=$(run_mdtest "$kind" "$fs")
		fi
		[ -n "$a" ] && [ -n "$b" ] || { echo "round $r: no pair"; continue; }
		read -r -a ma <<<"$a"
		read -r -a fa <<<"$b"
		ma[4]=$(echo "${ma[4]} - ${mb:-0}" | bc -l) fa[4]=$(echo "${fa[4]} - ${fb:-0}" | bc -l)
		for i in 0 1 2 3; do
			printf 'round %d (%s) %-7s mdtest %10.0f /s | fsmix %10.0f /s | ratio %.3f\n' "$r" "$( ((r % 2)) && echo AB || echo BA)" \
				"${names[$i]}" "${ma[$i]}" "${fa[$i]}" "$(echo "${fa[$i]}/${ma[$i]}" | bc -l)"
			echo "${names[$i]} $(echo "${fa[$i]}/${ma[$i]}" | bc -l)" >>"$work/ratios"
			printf '%s %d mdtest %s %s %s %s\n%s %d fsmix %s %s %s %s\n' "${names[$i]}" "$r" "${ma[$i]}" \
				"${ma[5]:-0}" "${ma[6]:-0}" "${ma[7]:-0}" "${names[$i]}" "$r" "${fa[$i]}" "${fa[5]:-0}" \
				"${fa[6]:-0}" "${fa[7]:-0}" >>"$work/rates"
		done
		# items per CPU-second, fsmix / mdtest: the CPU seconds the other way round
		printf 'round %d (%s) CPU     mdtest %8.2f s, %8.0f items/CPU-s | fsmix %8.2f s, %8.0f items/CPU-s | ratio %.3f\n' \
			"$r" "$( ((r % 2)) && echo AB || echo BA)" "${ma[4]}" "$(echo "$n/${ma[4]}" | bc -l)" \
			"${fa[4]}" "$(echo "$n/${fa[4]}" | bc -l)" "$(echo "${ma[4]}/${fa[4]}" | bc -l)"
		echo "cpu $(echo "${ma[4]}/${fa[4]}" | bc -l)" >>"$work/ratios"
		echo "  [load $(cut -d' ' -f1 /proc/loadavg); the machine stalled on CPU ${ma[5]:-?} ms of mdtest's ${ma[7]:-?} ms run, ${fa[5]:-?} ms of fsmix's ${fa[7]:-?} ms; on I/O ${ma[6]:-?} ms, ${fa[6]:-?} ms]"
	done
	summary "mdtest-$kind on $fs" "$work/rates" <"$work/ratios"
}

echo "bench_mdtest: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); mdtest $mdtest; fsmix $fsmix"
case $mode in
easy | hard) kinds=$mode ;;
all) kinds="easy hard" ;;
*) echo "usage: $0 [easy|hard|all] [BUILD_DIR]" >&2; exit 2 ;;
esac
for fs in $filesystems; do
	[ "$fs" = ext4 ] && { ext4_mount || continue; }
	for kind in $kinds; do one "$kind" "$fs"; done
done
