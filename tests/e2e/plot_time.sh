#!/usr/bin/env bash
# Pictures of a run over time (issue 14): `run --interval S --plot FILE` and `plot RUN.json -o FILE`
# draw ops/s, MB/s and op p99 per group on a shared time axis; `plot --lat-log LOG -o FILE` draws
# every operation's latency, one series per operation kind plus the sync calls, and says how it
# thinned. Files are checked to be valid PNG/SVG with the expected number of series.
set -u
. "$(dirname "$0")/lib.bash"
command -v gnuplot >/dev/null || { skip_env gnuplot "gnuplot is not installed"; summary; }
command -v python3 >/dev/null || { skip_env tool "python3 is not installed"; summary; }

# Counted groups (num_ops), so what is drawn does not depend on the machine's speed.
cat >"$work/two.ffsb" <<'P'
time=60
[filesystem0]
	num_files=8
	min_filesize=4KB
	max_filesize=8KB
[end0]
[threadgroup0]
	num_threads=2
	num_ops=300
	read_weight=1
	write_weight=1
	read_size=4KB
	read_blocksize=4KB
	write_size=4KB
	write_blocksize=4KB
	[stats]
		enable_stats=1
	[end]
[end0]
[threadgroup1]
	num_threads=1
	num_ops=20
	write_fsync_weight=1
	write_size=4KB
	write_blocksize=4KB
	[stats]
		enable_stats=1
	[end]
[end1]
P
# svg_series FILE: the number of plot elements (gnuplot_plot_N...) of a well-formed SVG.
svg_series() {
	python3 - "$1" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print(sum(1 for e in root.iter() if re.fullmatch(r"gnuplot_plot_\d+[a-z]?", e.get("id") or "")))
PY
}
png_ok() {
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(d[:8] != b"\x89PNG\r\n\x1a\n" or b"IEND" not in d[-16:])' "$1"
}

loc=$(shmdir)
"$bin" run "$work/two.ffsb" --location "$loc" --seed 7 --interval 0.2 --json "$work/run.json" \
	--lat-log "$work/lat.log" --plot "$work/run.svg" --cleanup >/dev/null 2>"$work/run.err"
rc=$?
n=$(svg_series "$work/run.svg" 2>/dev/null)
# two groups and the total, in each of the three panels
[ $rc -eq 0 ] && [ "$n" = 9 ] && grep -q "plot written to $work/run.svg" "$work/run.err" &&
	ok "run --interval --plot: a single run over time, 3 panels x (2 groups + total)" ||
	bad "run --plot: exit $rc, ${n:-no} series; $(tail -3 "$work/run.err")"
python3 - "$work/run.json" <<'PY' && ok "JSON: groups[].intervals line up with the total's" || bad "per-group intervals"
import json, sys
d = json.load(open(sys.argv[1]))
tot = d["intervals"]
assert tot and all(len(g["intervals"]) == len(tot) for g in d["groups"])
for i, r in enumerate(tot):
    assert sum(g["intervals"][i]["ops"] for g in d["groups"]) == r["ops"]
    assert all(g["intervals"][i]["t_s"] == r["t_s"] for g in d["groups"])
assert sum(r["ops"] for r in d["groups"][1]["intervals"]) == 20
PY
"$bin" plot "$work/run.json" -o "$work/run.png" 2>/dev/null && png_ok "$work/run.png" &&
	ok "plot RUN.json -o FILE.png: over time, valid PNG" || bad "plot run png"

# The latency log: read, write, write_fsync and the sync calls.
"$bin" plot --lat-log "$work/lat.log" -o "$work/lat.svg" 2>"$work/lat.err"
rc=$?
n=$(svg_series "$work/lat.svg" 2>/dev/null)
# 3 operation kinds (points and a key entry each) and the sync calls; fewer than 1000 operations
# of a kind: no median/p99 lines
[ $rc -eq 0 ] && [ "$n" = 7 ] && grep -q "620 operations, every one drawn" "$work/lat.err" &&
	ok "plot --lat-log: 3 operation kinds + sync calls; says every point is drawn" ||
	bad "lat-log: exit $rc, ${n:-no} series; $(cat "$work/lat.err")"
"$bin" plot --lat-log "$work/lat.log" -o "$work/lat.png" 2>/dev/null && png_ok "$work/lat.png" &&
	ok "plot --lat-log: valid PNG" || bad "lat-log png"

# A log longer than the raw limit (100000 points) is thinned, and says how.
awk 'BEGIN { print "# t_s group thread op lat_ns bytes sync_ns"
	for (i = 0; i < 150000; i++)
		printf "%.6f 0 %d %s %d 4096 %d\n", i / 10000, i % 4, (i % 3 ? "read" : "write_fsync"),
			1000 + (i * 7919) % 100000, (i % 3 ? 0 : 5000 + i % 777) }' >"$work/big.log"
"$bin" plot --lat-log "$work/big.log" -o "$work/big.svg" 2>"$work/big.err"
rc=$?
n=$(svg_series "$work/big.svg" 2>/dev/null)
pts=$(sed -n 's/.*operations thinned to \([0-9]*\) points.*/\1/p' "$work/big.err")
# read and write_fsync (points and key entry each), the sync calls, a median and a p99 line per
# kind and their key entry
[ $rc -eq 0 ] && [ "$n" = 10 ] && [ -n "$pts" ] && [ "$pts" -lt 100000 ] &&
	grep -q "150000 operations thinned to .* the slowest one per cell of 800 time columns" "$work/big.err" &&
	ok "plot --lat-log: 150000 operations thinned to $pts points, and it says so" ||
	bad "thinning: exit $rc, ${n:-no} series; $(cat "$work/big.err")"

# Bad input: a clear message, exit 2, nothing written.
printf '# t_s group thread op lat_ns bytes sync_ns\n0.1 0 0 read 100 0 0\n0.2 0 0 read x 0 0\n' >"$work/badlog"
"$bin" plot --lat-log "$work/badlog" -o "$work/bad.png" 2>"$work/bad.err"
[ $? -eq 2 ] && grep -q "badlog:3: not a latency log line: bad latency" "$work/bad.err" && [ ! -e "$work/bad.png" ] &&
	ok "malformed log line: exit 2 naming file and line" || bad "bad log: $(cat "$work/bad.err")"
"$bin" plot --lat-log "$work/nonexistent" -o "$work/bad.png" 2>/dev/null
[ $? -eq 2 ] && ok "missing log: exit 2" || bad "missing log"
"$bin" plot --lat-log "$work/lat.log" -o "$work/bad.gif" 2>/dev/null
[ $? -eq 2 ] && ok "plot --lat-log: a bad extension, exit 2" || bad "bad extension"
"$bin" run "$work/two.ffsb" --location "$loc" --plot "$work/x.svg" >/dev/null 2>"$work/noint.err"
[ $? -eq 2 ] && grep -q "interval" "$work/noint.err" && [ ! -e "$loc/fsmix.fs0" ] &&
	ok "run --plot on a single run without --interval: exit 2 before anything is built" ||
	bad "run --plot without interval"
"$bin" run "$work/two.ffsb" --location "$loc" --interval 1 --plot "$work/x.gif" >/dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$loc/fsmix.fs0" ] && ok "run --plot x.gif: exit 2 before anything is built" ||
	bad "run --plot bad extension"
summary
