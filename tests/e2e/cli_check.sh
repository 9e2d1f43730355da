#!/usr/bin/env bash
# Command line and `fsmix check`: the 2010 profile is understood as the seed describes it,
# every shipped profile and example validates, and CLI mistakes exit 2 with a clear message.
set -u
src=${FSMIX_SOURCE_DIR:?} bin=${FSMIX_BIN:?}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect STATUS DESCRIPTION STDERR-SUBSTRING -- command...
expect() {
	local want=$1 what=$2 text=$3
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ "$got" -ne "$want" ]; then
		bad "$what: exit $got, expected $want"; sed 's/^/     /' "$tmp/err" | head -5; return
	fi
	if [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/err" "$tmp/out"; then
		bad "$what: output lacks '$text'"; sed 's/^/     /' "$tmp/err" | head -5; return
	fi
	ok "$what"
}

# The 2010 ext4 barrier profile, verbatim from the seed.
"$bin" check --json "$src/profiles/ext4-barrier-2010.ffsb" >"$tmp/2010.json" 2>/dev/null
if python3 - "$tmp/2010.json" <<'PY'; then ok "2010 profile: 100000 files, 1000 dirs, 64 threads, 11 size weights, 19 msec ranges"; else bad "2010 profile summary"; fi
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
fs, tg = s["filesystems"][0], s["threadgroups"][0]
assert d["valid"] is True, d["messages"]
assert s["time"] == 300
assert (fs["num_files"], fs["num_dirs"], fs["size_weights"]) == (100000, 1000, 11), fs
assert (tg["num_threads"], tg["msec_ranges"], tg["total_weight"]) == (64, 19, 14), tg
k = d["threadgroups"][0]["keys"]
assert k["readall_weight"]["value"] == 4 and k["read_blocksize"]["value"] == 524288
assert d["threadgroups"][0]["stats"]["keys"]["msec_range"]["value"][0]["hi_ms"] == 0.01
PY
"$bin" check "$src/profiles/ext4-barrier-2010.ffsb" >"$tmp/2010.txt" 2>&1
grep -q "threadgroup0: 64 threads, 10 weighted ops, 19 msec ranges" "$tmp/2010.txt" &&
	grep -q "num_files            = 100000 .*ext4-barrier-2010.ffsb:7" "$tmp/2010.txt" &&
	ok "check text shows values with their lines" || bad "check text output"

for f in "$src"/profiles/*.ffsb "$src"/examples/*.ffsb; do
	[ -e "$f" ] || continue
	expect 0 "check $(basename "$f")" "" -- "$bin" check "$f"
done

expect 0 "--help" "usage: fsmix run PROFILE" -- "$bin" --help
expect 0 "--version" "fsmix " -- "$bin" --version
expect 2 "no arguments" "usage:" -- "$bin"
expect 2 "unknown option" "unknown option '--bogus'" -- "$bin" check --bogus "$src/profiles/default.ffsb"
expect 2 "option without value" "option '--time' needs a value" -- "$bin" check "$src/profiles/default.ffsb" --time
expect 2 "missing profile file" "cannot open: No such file or directory" -- "$bin" check "$tmp/nope.ffsb"
# ... and that one error alone, overrides or not (before: "--location ...: nothing to change:
# the profile has no [filesystem]" followed it).
expect 2 "missing profile file, with --location" "1 error in" -- "$bin" run "$tmp/nope.ffsb" --location "$tmp"
expect 2 "directory as profile" "is a directory, not a profile" -- "$bin" check "$tmp"
expect 2 "two profiles" "unexpected argument" -- "$bin" check "$src/profiles/default.ffsb" "$src/profiles/default.ffsb"
expect 2 "bad --time" "--time abc: error: [global] time: 'abc' is not a whole number" -- "$bin" check "$src/profiles/default.ffsb" --time abc
expect 2 "bad --threads group" "no thread group '7'" -- "$bin" check "$src/profiles/default.ffsb" --threads 7=4
expect 2 "bad --set key" "did you mean 'num_files'" -- "$bin" check "$src/profiles/default.ffsb" --set filesystem0.numfiles=3
expect 2 "bad --set section" "no section 'filesystem9'" -- "$bin" check "$src/profiles/default.ffsb" --set filesystem9.num_files=3
expect 0 "--set shows its origin" "--set filesystem0.num_files=7" -- "$bin" check "$src/profiles/default.ffsb" --set filesystem0.num_files=7
expect 2 "--strict-ffsb rejects seed" "fsmix extension, rejected by --strict-ffsb" -- "$bin" check "$src/profiles/default.ffsb" --seed 5 --strict-ffsb
expect 2 "run --json needs a file" "run --json needs a file" -- "$bin" run "$src/profiles/default.ffsb" --json
expect 2 "--build-threads 0" "--build-threads takes a count from 1 to 256, not '0'" -- "$bin" run "$src/profiles/default.ffsb" --build-threads 0
expect 2 "--build-threads x" "--build-threads takes a count from 1 to 256, not '4x'" -- "$bin" run "$src/profiles/default.ffsb" --build-threads 4x
expect 2 "--build-threads on check" "--build-threads are options of 'run' only" -- "$bin" check "$src/profiles/default.ffsb" --build-threads 2
expect 0 "keys" "num_threads" -- "$bin" keys
expect 0 "keys KEY" "worker threads in this group" -- "$bin" keys num_threads
expect 2 "keys unknown" "did you mean 'num_threads'" -- "$bin" keys num_thread

# The option table (src/cli/options.c) says which commands take each option; every other
# command refuses it with the table's message (issue 12). The messages fsmix always printed:
def=$src/profiles/default.ffsb none=$tmp/no-such-dir
expect 2 "--cleanup on clean" "--continue-on-error, --cleanup and --build-threads are options of 'run' only" -- "$bin" clean "$def" --cleanup
expect 2 "thread list on check" "thread lists, --sweep and --repeat are options of 'run' only" -- "$bin" check "$def" --threads 1,2
expect 2 "--plot on check" "--plot is an option of 'run' and 'compare', not 'check'" -- "$bin" check "$def" --plot "$tmp/p.png"
expect 2 "--lat-log on check" "--lat-log is an option of 'run' only" -- "$bin" check "$def" --lat-log "$tmp/l"
expect 2 "--interval on check" "--csv, --format and --interval are options of 'run' only" -- "$bin" check "$def" --interval 1
expect 2 "--json on clean" "--json is an option of 'run', 'check', 'verify' and 'crashtest', not 'clean'" -- "$bin" clean "$def" --json "$tmp/j"
expect 2 "check --json FILE" "check --json prints to stdout and takes no file (got '$tmp/j')" -- "$bin" check "$def" --json="$tmp/j"
expect 2 "--interval in a sweep" "--interval is not available in sweeps" -- "$bin" run "$def" -l "$none" --threads 1,2 --interval 1
expect 2 "--lat-log in a sweep" "--lat-log is not available in sweeps" -- "$bin" run "$def" -l "$none" --repeat 2 --lat-log "$tmp/l"
expect 2 "run --plot, one run" "run --plot draws a sweep or a run over time" -- "$bin" run "$def" -l "$none" --plot "$tmp/p.png"
expect 2 "plot --lat-log and a result" "plot --lat-log LOG takes no RESULT.json (got '$tmp/r.json')" -- "$bin" plot --lat-log "$tmp/l" "$tmp/r.json" -o "$tmp/p.png"
# Options that compare, plot, keys (and run) used to ignore are refused as well.
expect 2 "keys --json" "--json is an option of 'run', 'check', 'verify' and 'crashtest', not 'keys'" -- "$bin" keys --json
expect 2 "--force on run" "--force is an option of 'compare' only" -- "$bin" run "$def" -l "$none" --force
expect 2 "--threads on compare" "--threads (-n) is an option of 'run', 'check', 'clean', 'verify' and 'crashtest', not 'compare'" -- "$bin" compare "$tmp/a.json" "$tmp/b.json" --threads 4
expect 2 "--markdown on plot" "--markdown is an option of 'keys' only" -- "$bin" plot "$tmp/a.json" -o "$tmp/a.png" --markdown
expect 2 "-o on check" "--output (-o) is an option of 'plot' only" -- "$bin" check "$def" -o "$tmp/p.png"
expect 2 "--repeat 1 on check" "thread lists, --sweep and --repeat are options of 'run' only" -- "$bin" check "$def" --repeat 1
expect 2 "compare --json without a file" "compare --json needs a file: --json FILE, or --json - for stdout" -- "$bin" compare "$tmp/a.json" "$tmp/b.json" --json
# --help documents every option of the table (the man page's are tests/e2e/man_current.sh's).
expect 0 "--help: plot's -o" "-o, --output FILE" -- "$bin" --help
expect 0 "--help: --force" "--force               compare results" -- "$bin" --help
expect 0 "--help-man" ".SH OPTIONS" -- "$bin" --help-man

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
