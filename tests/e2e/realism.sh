#!/usr/bin/env bash
# Realistic workloads (issue 21, items 1-3): size_dist, file_popularity, op_rate and arrival are
# accepted, refused under --strict-ffsb and checked for bad values; `fsmix check` prints the
# size distribution's figures; a built tree's sizes follow the distribution (quantiles at a
# fixed seed); popular files get their share of the picks (strace, where installed); a rate
# run gives target vs achieved in the JSON, and an unreachable rate is reported as such.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
profile() { # FS-EXTRA TG-EXTRA [NUM_FILES] [OPS]
	printf 'time=0\n[filesystem0]\n\tlocation=%s\n\tnum_files=%s\n%b[end0]\n' "$loc" "${3:-100}" "$1"
	printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=%s\n%b\tstat_weight=1\n[end0]\n' "${4:-10}" "$2"
}

# ---- 1. accepted; check's figures -------------------------------------------------------
profile '\tsize_dist=lognormal:16k:1.5:4m\n' '\tfile_popularity=zipf:1.2\n\top_rate=100/group\n\tarrival=poisson\n' 2000 >"$work/all.ffsb"
"$bin" check "$work/all.ffsb" >"$work/all.out" 2>"$work/all.err"
rc=$?
if [ $rc -eq 0 ] &&
	grep -q 'file size: mean 49.0 KiB, median 16.0 KiB, 99th percentile 524.3 KiB' "$work/all.out" &&
	grep -q 'expected tree size: 2000 files x 49.0 KiB = 95.8 MiB' "$work/all.out" &&
	grep -q 'file_popularity zipf:1.2' "$work/all.out" &&
	grep -q 'schedule: 100 ops/s in all (100 per thread), poisson arrivals' "$work/all.out"; then
	ok "check: every key accepted, size figures and schedule printed"
else
	bad "check: exit $rc"; cat "$work/all.err"; sed -n '/^Summary/,$p' "$work/all.out"
fi
profile '\tsize_dist=exponential:8k\n' '' 10 >"$work/exp.ffsb"
"$bin" check "$work/exp.ffsb" >"$work/exp.out" 2>&1
if grep -q 'file size: mean 8.0 KiB, median 5.5 KiB, 99th percentile 36.8 KiB' "$work/exp.out" &&
	grep -q 'expected tree size: 10 files x 8.0 KiB = 80.0 KiB' "$work/exp.out"; then
	ok "check: exponential figures"
else
	bad "check: exponential figures"; grep 'file size\|expected' "$work/exp.out"
fi

# ---- 2. --strict-ffsb refuses each key --------------------------------------------------
"$bin" check --strict-ffsb "$work/all.ffsb" >/dev/null 2>"$work/strict.err"
rc=$?
n=$(grep -c 'fsmix extension, rejected by --strict-ffsb' "$work/strict.err")
if [ $rc -eq 2 ] && [ "$n" -ge 4 ] && grep -q ':5: error: \[filesystem0\] size_dist' "$work/strict.err" &&
	grep -q '\] file_popularity' "$work/strict.err" && grep -q '\] op_rate' "$work/strict.err" &&
	grep -q '\] arrival' "$work/strict.err"; then
	ok "--strict-ffsb: the four keys refused (exit 2)"
else
	bad "--strict-ffsb: exit $rc, $n refusals"; cat "$work/strict.err"
fi

# ---- 3. bad values: exit 2, file:line, key, what is wrong ---------------------------------
bad_value() { # FS-EXTRA TG-EXTRA PATTERN LABEL
	profile "$1" "$2" >"$work/bad.ffsb"
	"$bin" check "$work/bad.ffsb" >/dev/null 2>"$work/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$3" "$work/bad.err"; then
		ok "bad value refused: $4"
	else
		bad "bad value $4: exit $rc"; cat "$work/bad.err"
	fi
}
bad_value '' '\tfile_popularity=zipf:0\n' 'bad.ffsb:9: error: \[threadgroup0\] file_popularity: zipf THETA .0. is out of range' 'zipf:0'
bad_value '' '\tfile_popularity=pareto:1.2\n' 'pareto H .1.2. is out of range' 'pareto:1.2'
bad_value '' '\tfile_popularity=hotset:0:50\n' 'hotset PCT_FILES .0. is out of range' 'hotset:0:50'
bad_value '' '\tfile_popularity=lru\n' "'lru' is not a popularity" 'lru'
bad_value '' '\top_rate=0\n' 'op_rate .0. is out of range' 'op_rate=0'
bad_value '' '\top_rate=5/min\n' 'the suffix is /thread or /group' 'op_rate=5/min'
bad_value '' '\top_rate=5\n\top_period=10\n' 'op_rate: cannot be combined with op_period' 'op_rate with op_period'
bad_value '' '\tarrival=burst\n' "'burst' is not one of fixed, poisson" 'arrival=burst'
bad_value '\tsize_dist=lognormal:16k\n' '' "not a size distribution" 'lognormal without sigma'
bad_value '\tsize_dist=uniform:8k:4k\n' '' "MIN 8k is larger than MAX 4k" 'uniform min > max'
bad_value '\tsize_dist=gamma:1x:2\n' '' "MEAN: '1x' has an unknown unit" 'gamma mean unit'
# a shape whose distribution cannot be computed (it printed "mean -26 B, median 1.0 PiB")
bad_value '\tsize_dist=gamma:16K:1e-300\n' '' "bad.ffsb:5: error: \[filesystem0\] size_dist: SHAPE '1e-300' is out of range (at least 0.001, at most 1000)" 'gamma:16K:1e-300'
bad_value '\tsize_dist=gamma:16K:0\n' '' "SHAPE '0' is out of range" 'gamma:16K:0'
bad_value '\tsize_dist=exponential:4k\n\tsize_weight 4k 1\n' '' "size_dist: cannot be combined with size_weight" 'with size_weight'

# ---- 4. the built tree's sizes follow the distribution ------------------------------------
profile '\tsize_dist=lognormal:16k:1.5\n\tcreate_method=sparse\n' '' 2000 >"$work/tree.ffsb"
tloc=$(shmdir)
"$bin" run --seed 11 --location "$tloc" "$work/tree.ffsb" >"$work/tree.out" 2>&1
rc=$?
find "$tloc" -type f -name 'f*' -printf '%s\n' >"$work/sizes"
if [ $rc -eq 0 ] && python3 - "$work/sizes" <<'PY'; then
import math, statistics, sys
v = sorted(int(x) for x in open(sys.argv[1]))
assert len(v) == 2000, len(v)
inv = statistics.NormalDist().inv_cdf
for q in (0.1, 0.25, 0.5, 0.75, 0.9):
    want = 16384 * math.exp(1.5 * inv(q))
    got = v[int(q * len(v))]
    # 2000 draws: a quantile's relative standard error is under 6 % here; 20 % is > 3 sigma
    assert abs(got / want - 1) < 0.2, (q, got, want)
PY
	ok "built tree: 2000 sizes, quantiles 10..90 % within 20 % of lognormal:16k:1.5"
else
	bad "built tree: exit $rc"; tail -3 "$work/tree.out"
fi

# ---- 5. popularity: the hot files get the picks (strace counts the stat calls by name) -----
if command -v strace >/dev/null; then
	hot_share() { # POPULARITY
		local ploc
		ploc=$(shmdir)
		profile '\tmin_filesize=1k\n\tmax_filesize=1k\n' "\tfile_popularity=$1\n" 100 4000 >"$work/pop.ffsb"
		# LeakSanitizer cannot run under ptrace: no leak check in the traced run
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -qq -e trace=newfstatat,statx,stat,lstat -o "$work/pop.trace" \
				"$bin" run --seed 5 --location "$ploc" "$work/pop.ffsb" >/dev/null 2>&1 || return 1
		grep -o '"f[0-9]*"' "$work/pop.trace" | sort | uniq -c | sort -rn |
			awk 'NR <= 10 { hot += $1 } { all += $1 } END { if (all < 4000) print -1; else printf "%.3f\n", hot / all }'
	}
	hs=$(hot_share hotset:10:90) us=$(hot_share uniform)
	if awk -v h="$hs" -v u="$us" 'BEGIN { exit !(h > 0.85 && h < 0.95 && u > 0 && u < 0.3) }'; then
		ok "hotset:10:90: the 10 hottest of 100 files got $hs of the stats (uniform: $us)"
	else
		bad "hotset:10:90: hottest 10 files got $hs of the stats (uniform: $us)"
	fi
else
	skip_env strace "popularity by strace: strace not installed"
fi

# ---- 5b. ranked picks next to creates and deletes, several threads (also under TSan) --------
mloc=$(shmdir)
cat >"$work/churn.ffsb" <<EOT
time=0
[filesystem0]
	location=$mloc
	num_files=200
	num_dirs=4
	size_dist=exponential:2k:16k
[end0]
[threadgroup0]
	num_threads=4
	num_ops=300
	file_popularity=zipf:1.1
	read_weight=2
	append_weight=1
	delete_weight=1
	create_weight=1
	stat_weight=2
	read_size=1k
	read_blocksize=1k
	write_size=1k
	write_blocksize=1k
[end0]
EOT
"$bin" run --seed 9 "$work/churn.ffsb" --json "$work/churn.json" >"$work/churn.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
assert g["errors"] == 0, g["errors"]
assert g["operations"] + g["skipped"] == 1200, (g["operations"], g["skipped"])' "$work/churn.json"; then
	ok "zipf picks with creates, deletes and appends in 4 threads: 1200 attempts, no error"
else
	bad "zipf with churn: exit $rc"; tail -5 "$work/churn.out"
fi

# ---- 6. rates: the schedule and target vs achieved in the JSON ----------------------------
rloc=$(shmdir)
profile '\tmin_filesize=1k\n\tmax_filesize=1k\n' '\top_rate=20\n' 10 20 >"$work/rate.ffsb"
"$bin" run --seed 3 --location "$rloc" "$work/rate.ffsb" --json "$work/rate.json" >"$work/rate.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && python3 - "$work/rate.json" <<'PY'; then
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
r = g["rate"]
assert g["operations"] == 20, g["operations"]
assert r["target"] == 20, r
# 20 starts 50 ms apart: any machine keeps up; the margin is wide (achieved 10..40/s)
assert 10 < r["achieved"] < 40, r
assert g["missed_starts"] == 0 or r["achieved"] > 10, g["missed_starts"]
PY
	ok "op_rate=20: 20 starts, target 20/s and achieved in the JSON"
else
	bad "op_rate=20: exit $rc"; cat "$work/rate.out" | tail -5
fi
# A rate no machine reaches (10^9 starts per second): short, warned, missed starts counted.
profile '\tmin_filesize=1k\n\tmax_filesize=1k\n' '\top_rate=1000000000\n' 10 200 >"$work/fast.ffsb"
"$bin" run --seed 3 --location "$rloc" "$work/fast.ffsb" --json "$work/fast.json" >"$work/fast.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^warning: threadgroup0 fell .* short of its target rate' "$work/fast.out" &&
	python3 - "$work/fast.json" "$work/fast.out" <<'PY'; then
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
r = g["rate"]
assert g["operations"] == 200 and r["target"] == 1e9, r
assert r["reached"] is False and r["short_pct"] > 5, r
# every op takes far more than 1 ns: starts pass while each runs
assert g["missed_starts"] >= 199, g["missed_starts"]
# the text report gives the same count
text = open(sys.argv[2]).read()
assert ("%d missed starts" % g["missed_starts"]) in text, g["missed_starts"]
PY
	ok "op_rate=10^9: reported short (warning, reached false), missed starts counted"
else
	bad "op_rate=10^9: exit $rc"; grep -i 'rate\|warn' "$work/fast.out"
fi
# Poisson arrivals of a counted group: every start scheduled is done or counted missed.
profile '\tmin_filesize=1k\n\tmax_filesize=1k\n' '\top_rate=50\n\tarrival=poisson\n' 10 25 >"$work/poi.ffsb"
"$bin" run --seed 3 --location "$rloc" "$work/poi.ffsb" --json "$work/poi.json" >"$work/poi.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
assert g["operations"] == 25 and g["rate"]["target"] == 50, g["rate"]' "$work/poi.json"; then
	ok "arrival=poisson: a counted run of 25 starts"
else
	bad "arrival=poisson: exit $rc"
fi

summary
