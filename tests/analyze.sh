#!/usr/bin/env bash
# tests/analyze.sh - clang's static analyzer (clang --analyze) over every source of src/, with
# the flags and include paths the build uses (BUILD_DIR/compile_commands.json). Prints each
# report with its path (file:line: warning: ..., then the notes of how the analyzer got there)
# and exits 1 when there is any, 0 when there is none. tests/dev.sh test runs it on the
# default build; a report is fixed, or silenced at its line with a comment that says why the
# analyzer is wrong there.
#
#   bash tests/analyze.sh [BUILD_DIR [SOURCE...]]
#
# BUILD_DIR defaults to build/ beside this checkout; SOURCEs (paths ending as they do, e.g.
# tree/pool.c) restrict it to those sources.
#
# Needs clang (the analyzer of the clang that CI installs: Debian 12's clang 14) and python3.
# Cost: about a minute of CPU per 10 sources; run on nproc cores.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
shift $(($# > 0 ? 1 : 0))
db=$build/compile_commands.json
[ -r "$db" ] || { echo "analyze.sh: no $db (configure with cmake; it exports one)" >&2; exit 2; }
command -v clang >/dev/null || { echo "analyze.sh: clang is not installed" >&2; exit 3; }
out=$(mktemp -d /tmp/fsmix-analyze.XXXXXX)
trap 'rm -rf "$out"' EXIT

# One line per source of src/: the directory to run in, then the compiler's arguments without
# the compiler, the output and gcc's own flags (clang would warn about them), separated by the
# ASCII unit separator (0x1f), which no argument holds.
python3 - "$db" "$top/src/" "$@" >"$out/jobs" <<'PY'
import json, shlex, sys
db, srcdir, only = sys.argv[1], sys.argv[2], sys.argv[3:]
for e in json.load(open(db)):
    if not e["file"].startswith(srcdir) or not e["file"].endswith(".c"):
        continue
    if only and not any(e["file"].endswith("/" + o.lstrip("/")) for o in only):
        continue
    args = e.get("arguments") or shlex.split(e["command"])
    keep, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-Werror", "-MD", "-MMD") or a.startswith("-Wno-format-truncation"):
            continue
        keep.append(a)
    sys.stdout.write("\x1f".join([e["directory"]] + keep) + "\n")
PY

n=$(wc -l <"$out/jobs")
# analyze LINE_NO: one source; its reports (if any) into $out/LINE_NO.txt
analyze() {
	local i=$1 a
	IFS=$'\x1f' read -r -a a < <(sed -n "${i}p" "$out/jobs")
	(cd "${a[0]}" && clang --analyze --analyzer-output text -o /dev/null "${a[@]:1}") \
		>"$out/$i.txt" 2>&1 || echo "analyze.sh: clang failed on this source" >>"$out/$i.txt"
}
export -f analyze
export out
seq 1 "$n" | xargs -P "$(nproc)" -I{} bash -c 'analyze {}'

reports=0
for ((i = 1; i <= n; i++)); do
	if [ -s "$out/$i.txt" ]; then
		cat "$out/$i.txt"
		reports=$((reports + $(grep -c ': warning: \|analyze.sh: clang failed' "$out/$i.txt" || true)))
	fi
done
echo "analyze.sh: $n sources of src/ analyzed, $reports reports"
[ "$reports" -eq 0 ]
