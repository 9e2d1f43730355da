#!/usr/bin/env bash
# fsmix plot never lets gnuplot interpret text it read (issue 10 case 2): hostile strings in every
# field that reaches a chart (sweep dimension labels, point labels, profile path, group and
# syscall names, compare labels, latency-log operation names, the log's path, the output file's
# name) are drawn as text, never run. Each string tries quotes, backslashes, newlines, system(),
# backticks and @macros; any command that runs touches a file $work/pwned-*.
set -u
. "$(dirname "$0")/lib.bash"
command -v gnuplot >/dev/null || { skip_env gnuplot "gnuplot is not installed"; summary; }
command -v python3 >/dev/null || { skip_env tool "python3 is not installed"; summary; }

# The documents are made from scratch (no run needed): the smallest documents of the schema
# (docs/output.md) that plot reads.
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def evil(tag):
    m = f"{w}/pwned-{tag}"
    return [f"x'; system('touch {m}-q'); print '",
            f"x\\'; system('touch {m}-b'); print '\\",
            f"a\nsystem('touch {m}-n')\nprint 'b",
            f"a\r\nsystem('touch {m}-r')",
            f"`touch {m}-t`",
            f"@m \"; system(\"touch {m}-d\"); \"",
            f"{{^_@&}} \t tab"]
def run(names, intervals=True, ranges=False):
    rows = lambda k: [{"t_s": t / 2, "length_s": 0.5, "ops": 10 * k, "ops_per_s": 20.0 * k,
                       "transactions": 10, "trans_per_s": 20.0, "bytes": 4096,
                       "mb_per_s": 0.5 * k, "p99_op_ns": 1000 * t, "p99_op_ms": 0.001 * t}
                      for t in range(1, 5)]
    groups = []
    for i, n in enumerate(names):
        g = {"name": n, "index": i, "syscalls": []}
        if intervals:
            g["intervals"] = rows(i + 1)
        if ranges:
            g["syscalls"] = [{"name": s, "sync": False,
                              "msec_ranges": [{"lo_ms": 0, "hi_ms": 1, "count": 5},
                                              {"lo_ms": 1, "hi_ms": 10, "count": 2}],
                              "outside": 1} for s in names[:2]]
        groups.append(g)
    total = {"name": "total", "trans_per_s": 20.0, "ops_per_s": 20.0, "mb_per_s": 1.0,
             "op_latency": {"p50_ms": 0.1, "p99_ms": 0.5}, "syscalls": []}
    return {"schema": "fsmix-report", "schema_version": 1, "exit_status": 0, "interrupted": False, "measured": True, "runtime_s": 2.0, "profile_path": names[0], "groups": groups,
            "total": total, "intervals": rows(3) if intervals else []}
json.dump(run(evil("run")), open(f"{w}/run.json", "w"))
json.dump(run(evil("one")[:1]), open(f"{w}/one.json", "w"))
json.dump(run(evil("hist"), intervals=False, ranges=True), open(f"{w}/hist.json", "w"))
labels = evil("pt")
def sweep(dim):
    return {"schema": "fsmix-sweep", "schema_version": 1, "profile_path": evil("prof")[0],
            "dimensions": [{"label": dim, "threads": True}],
            "points": [{"label": l, "params": {dim: str(i + 1)}, "runs": [run(["g"], False)]}
                       for i, l in enumerate(labels)]}
json.dump(sweep(evil("dim")[0]), open(f"{w}/sweep-num.json", "w"))
s = sweep(evil("dim2")[1])
for p in s["points"]:
    p["params"] = {"other": "x"}   # not numeric: the labels become the x tics
json.dump(s, open(f"{w}/sweep-lab.json", "w"))
with open(f"{w}/lat.log", "w") as f:
    f.write("# t_s group thread op lat_ns bytes sync_ns\n")
    ops = [o.replace(" ", "_").replace("\t", "_").replace("\n", "_").replace("\r", "_")
           for o in evil("op")]
    for i in range(2000):
        f.write(f"{i / 1000:.6f} 0 0 {ops[i % len(ops)]} {1000 + i * 37 % 5000} 4096 "
                f"{(i * 11) % 900 if i % 50 == 0 else 0}\n")
PY

# svg_check FILE SERIES [TEXT...]: a well-formed SVG with SERIES plot elements whose text
# shows every TEXT (control characters as spaces).
svg_check() {
	python3 - "$@" <<'PY'
import re, sys, xml.etree.ElementTree as ET
path, want = sys.argv[1], int(sys.argv[2])
root = ET.parse(path).getroot()
ids = [e.get("id") for e in root.iter() if re.fullmatch(r"gnuplot_plot_\d+[a-z]?", e.get("id") or "")]
text = " ".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))
missing = [t for t in sys.argv[3:] if re.sub(r"[\x00-\x1f]", " ", t) not in text]
if len(ids) != want or missing:
    sys.exit(f"{path}: {len(ids)} series (want {want}); not shown: {missing!r}")
PY
}
png_check() {
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(d[:8] != b"\x89PNG\r\n\x1a\n" or b"IEND" not in d[-16:])' "$1"
}
pwned() {
	ls "$work"/pwned-* 2>/dev/null
}
evil_names() { # the strings of one tag, NUL-separated, for svg_check's arguments
	python3 - "$work" "$1" <<'PY'
import sys
w, tag = sys.argv[1], sys.argv[2]
m = f"{w}/pwned-{tag}"
for s in [f"x'; system('touch {m}-q'); print '", f"`touch {m}-t`", "{^_@&}"]:
    sys.stdout.write(s + "\0")
PY
}
mapfile -d '' run_names < <(evil_names run)

for ext in svg png; do
	"$bin" plot "$work/run.json" -o "$work/run.$ext" 2>"$work/run.err"
	rc=$?
	if [ $ext = svg ]; then
		# 7 groups and the total in each of the 3 panels
		[ $rc -eq 0 ] && svg_check "$work/run.svg" 24 "${run_names[@]}" && [ -z "$(pwned)" ] &&
			ok "over time: hostile group names and profile path are shown, not run" ||
			bad "over time svg: exit $rc $(pwned) $(cat "$work/run.err")"
	else
		[ $rc -eq 0 ] && png_check "$work/run.png" && [ -z "$(pwned)" ] &&
			ok "over time: PNG" || bad "over time png: exit $rc $(pwned)"
	fi
done
"$bin" plot "$work/one.json" -o "$work/one.svg" 2>/dev/null && svg_check "$work/one.svg" 3 &&
	ok "over time, one group: one series per panel (no total)" || bad "one group"
"$bin" plot "$work/hist.json" -o "$work/hist.svg" 2>"$work/hist.err" &&
	svg_check "$work/hist.svg" 14 "${run_names[0]/run/hist}" && [ -z "$(pwned)" ] &&
	ok "msec_range histogram: hostile group and syscall names are shown, not run" ||
	bad "histogram: $(pwned) $(cat "$work/hist.err")"
# (4 series: trans/s, ops/s, op p50, op p99; the runs have no sync calls, so no sync p99 series)
for s in num lab; do
	"$bin" plot "$work/sweep-$s.json" -o "$work/sweep-$s.svg" 2>"$work/sweep.err" &&
		svg_check "$work/sweep-$s.svg" 4 && [ -z "$(pwned)" ] &&
		ok "sweep ($s x axis): hostile dimension, point labels and profile are not run" ||
		bad "sweep $s: $(pwned) $(cat "$work/sweep.err")"
done
mapfile -d '' pt_names < <(evil_names pt)
"$bin" compare "$work/sweep-lab.json" "$work/sweep-lab.json" --force --plot "$work/cmp.svg" \
	>/dev/null 2>"$work/cmp.err" && svg_check "$work/cmp.svg" 4 "${pt_names[@]}" && [ -z "$(pwned)" ] &&
	ok "compare --plot: hostile point labels are the tics, not commands" ||
	bad "compare: $(pwned) $(cat "$work/cmp.err")"

# The latency log: hostile operation names, a hostile log path and a hostile output name.
# (operation names are cut at 47 bytes: LATPLOT_NAME_MAX)
mapfile -d '' op_names < <(evil_names op | tr ' ' '_' | python3 -c 'import sys; sys.stdout.write("".join(s[:47] + "\0" for s in sys.stdin.read().split("\0")[:-1]))')
"$bin" plot --lat-log "$work/lat.log" -o "$work/lat.svg" 2>"$work/lat.err"
rc=$?
# 7 operation kinds (points and key entry each) and the sync calls
[ $rc -eq 0 ] && svg_check "$work/lat.svg" 15 "${op_names[@]}" && [ -z "$(pwned)" ] &&
	grep -q "2000 operations, every one drawn" "$work/lat.err" &&
	ok "latency log: hostile operation names are not run; says it drew every point" ||
	bad "lat-log: exit $rc $(pwned) $(cat "$work/lat.err")"
# A latency log is read in chunks with bounded memory: input without line ends (/dev/zero)
# and a line over the documented maximum (4096 bytes) are refused with the line's number, not
# read until memory runs out; a log through a pipe is drawn like a file (issue 19 item 9).
# Under a 1 GB address-space limit (not with sanitizers, which reserve far more).
limit="ulimit -v 1000000;"
[ -n "${FSMIX_SANITIZERS:-}" ] && limit=""
timeout 300 bash -c "$limit exec \"\$0\" plot --lat-log /dev/zero -o \"\$1\"" "$bin" "$work/zero.png" 2>"$work/zero.err"
rc=$?
[ $rc -eq 2 ] && grep -q "/dev/zero:1: not a latency log line: longer than 4096 bytes" "$work/zero.err" && [ ! -e "$work/zero.png" ] &&
	ok "plot --lat-log /dev/zero: exit 2 at line 1 (longer than the maximum), memory bounded" ||
	bad "plot --lat-log /dev/zero: exit $rc $(tail -1 "$work/zero.err")"
{ head -5 "$work/lat.log"; head -c 5000 /dev/zero | tr '\0' 'x'; echo; } >"$work/longline.log"
"$bin" plot --lat-log "$work/longline.log" -o "$work/longline.png" 2>"$work/longline.err"
rc=$?
[ $rc -eq 2 ] && grep -q "longline.log:6: not a latency log line: longer than 4096 bytes" "$work/longline.err" &&
	ok "plot --lat-log: a 5000-byte line 6 is refused with its number (exit 2)" ||
	bad "long line: exit $rc $(tail -1 "$work/longline.err")"
cat "$work/lat.log" | "$bin" plot --lat-log /dev/stdin -o "$work/pipe.svg" 2>"$work/pipe.err" &&
	grep -q "2000 operations, every one drawn" "$work/pipe.err" && svg_check "$work/pipe.svg" 15 &&
	ok "plot --lat-log /dev/stdin from a pipe: streamed, every operation drawn" ||
	bad "lat-log through a pipe: $(tail -1 "$work/pipe.err")"

# Quotes twice in a row ('' is gnuplot 5.4's own escape, which it misreads when doubled), '%'
# (a tic label is a format), backslashes and bytes above 127 in every kind of name: each one is
# shown exactly as it is (issue 19 item 7).
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
names = ["a''b", "q''''r'", "50% %s %d", "back\\slash \\n", "caf\u00e9 \u00b5s", "\"\"dq"]
def run(gnames):
    rows = [{"t_s": t / 2, "length_s": 0.5, "ops": 10, "ops_per_s": 20.0, "transactions": 10,
             "trans_per_s": 20.0, "bytes": 4096, "mb_per_s": 0.5, "p99_op_ns": 1000 * t,
             "p99_op_ms": 0.001 * t} for t in range(1, 5)]
    return {"schema": "fsmix-report", "schema_version": 1, "exit_status": 0, "interrupted": False, "measured": True, "runtime_s": 2.0, "profile_path": "dir/a''b.ffsb",
            "groups": [{"name": n, "index": i, "syscalls": [], "intervals": rows}
                       for i, n in enumerate(gnames)],
            "total": {"name": "total", "trans_per_s": 20.0, "ops_per_s": 20.0, "mb_per_s": 1.0,
                      "op_latency": {"p50_ms": 0.1, "p99_ms": 0.5}, "syscalls": []},
            "intervals": rows}
json.dump(run(names), open(f"{w}/q-run.json", "w"))
json.dump({"schema": "fsmix-sweep", "schema_version": 1, "profile_path": "a''b.ffsb",
           "dimensions": [{"label": "k''v", "threads": False}],
           "points": [{"label": l, "params": {"k''v": "x"}, "runs": [run(["g"])]} for l in names]},
          open(f"{w}/q-sweep.json", "w"))
with open(f"{w}/q.log", "w") as f:
    for i in range(60):
        op = ["a''b", "o%d''", "caf\u00e9"][i % 3]
        f.write(f"{i / 100:.6f} 0 0 {op} {1000 + i} 4096 0\n")
with open(f"{w}/q-names", "w") as f:
    f.write("\0".join(names) + "\0")
PY
mapfile -d '' q_names <"$work/q-names"
"$bin" plot "$work/q-run.json" -o "$work/q-run.svg" 2>"$work/q.err" &&
	svg_check "$work/q-run.svg" 21 "${q_names[@]}" "a''b.ffsb" &&
	ok "quotes twice in a row, %, backslashes, UTF-8 in group names and the profile: shown as they are" ||
	bad "quoting in a run's chart: $(tail -3 "$work/q.err")"
"$bin" plot "$work/q-sweep.json" -o "$work/q-sweep.svg" 2>"$work/q.err" &&
	svg_check "$work/q-sweep.svg" 4 "${q_names[@]}" "k''v" &&
	ok "quotes twice in a row and % in a sweep's tic labels and dimension: shown as they are" ||
	bad "quoting in a sweep's tics: $(tail -3 "$work/q.err")"
"$bin" plot --lat-log "$work/q.log" -o "$work/q-lat.svg" 2>"$work/q.err" &&
	svg_check "$work/q-lat.svg" 6 "a''b (20)" "o%d'' (20)" "café (20)" &&
	ok "quotes twice in a row and % in a latency log's operation names: shown as they are" ||
	bad "quoting in a latency log's names: $(tail -3 "$work/q.err")"

# Paths are relative to $work (a '/' cannot be part of a file name), so commands would run there.
cd "$work" || exit 1
odd="o'\`touch pwned-path-t\`'; system('touch pwned-path-q') \\
@x \"q\""
log="$odd/l'\`touch pwned-log\`.log" out="$odd/out'\`touch pwned-out\`'.png"
mkdir -p "$odd" && cp lat.log "$log" && cp run.json "$odd/r.json"
"$bin" plot --lat-log "$log" -o "$out" 2>odd.err
rc=$?
[ $rc -eq 0 ] && png_check "$out" && [ -z "$(pwned)" ] &&
	ok "hostile log and output paths (quotes, newline, backslash, backticks, system())" ||
	bad "hostile paths: exit $rc $(pwned) $(cat odd.err)"
"$bin" plot "$odd/r.json" -o "$odd/r'.svg" 2>odd.err && svg_check "$odd/r'.svg" 24 && [ -z "$(pwned)" ] &&
	ok "hostile JSON path and output name" || bad "hostile json path $(pwned) $(cat odd.err)"
# gnuplot draws in a private directory below $TMPDIR (not always /tmp); a hostile TMPDIR is a
# path like any other, and one that does not exist is named in the message.
mkdir -p "$odd/tmp"
TMPDIR="$work/$odd/tmp" "$bin" plot "$odd/r.json" -o "$odd/t.png" 2>odd.err && png_check "$odd/t.png" &&
	[ -z "$(pwned)" ] && [ -z "$(ls -A "$odd/tmp")" ] &&
	ok "TMPDIR: gnuplot's private directory is made there (hostile name) and removed" ||
	bad "TMPDIR: $(pwned) $(cat odd.err)"
TMPDIR="$work/no-such-dir" "$bin" plot "$odd/r.json" -o "$odd/t2.png" 2>odd.err
rc=$?
[ $rc -ne 0 ] && grep -q "no-such-dir" odd.err && [ ! -e "$odd/t2.png" ] &&
	ok "TMPDIR that does not exist: exit $rc, named" || bad "missing TMPDIR: exit $rc $(cat odd.err)"
summary
