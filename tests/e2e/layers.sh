#!/usr/bin/env bash
# The layers of src/ (src/CMakeLists.txt, docs/design.md) call only downwards: no object of a
# layer may need a symbol that a higher layer defines. The build already refuses upward
# #includes (a layer sees only its own and lower layers' headers) and the link order refuses
# most upward calls; this checks every symbol, whatever the linker happened to pull in first.
# Also: no source file over 800 lines (a .c file with its private headers' function bodies), no
# function over 120 lines (ctags), where ctags exists.
set -u
cd "${FSMIX_SOURCE_DIR:?}" || exit 1
build=${FSMIX_BUILD_DIR:?}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

layers=($(sed -n 's/^set(FSMIX_LAYERS \(.*\))$/\1/p' src/CMakeLists.txt))
[ ${#layers[@]} -ge 5 ] && ok "layers: ${layers[*]}" || bad "cannot read FSMIX_LAYERS"

# Every folder of src/ is a layer, the command line, or a program of its own outside the layers
# (FSMIX_PROGRAMS: fsmix-powercut).
programs=($(sed -n 's/^set(FSMIX_PROGRAMS \(.*\))$/\1/p' src/CMakeLists.txt))
for d in src/*/; do
	d=${d%/}
	d=${d#src/}
	[[ " ${layers[*]} cli ${programs[*]} " == *" $d "* ]] ||
		bad "src/$d is not a layer (or a program, FSMIX_PROGRAMS) in src/CMakeLists.txt"
done

# Which layer defines each global symbol.
declare -A owner rank
for i in "${!layers[@]}"; do
	l=${layers[$i]}
	rank[$l]=$i
	lib=$(find "$build/src" -name "libfsmix_$l.a" | head -1)
	[ -n "$lib" ] || { bad "libfsmix_$l.a not built"; continue; }
	while read -r sym; do
		owner[$sym]=$l
	done < <(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }')
done
for l in "${layers[@]}"; do
	lib=$(find "$build/src" -name "libfsmix_$l.a" | head -1)
	[ -n "$lib" ] || continue
	up=0
	while read -r sym; do
		o=${owner[$sym]:-}
		[ -n "$o" ] || continue
		if [ "${rank[$o]}" -gt "${rank[$l]}" ]; then
			up=$((up + 1))
			bad "layer $l needs $sym from the higher layer $o"
		fi
	done < <(nm -u "$lib" 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u)
	[ "$up" -eq 0 ] && ok "layer $l calls only itself and lower layers"
done

# No call circle between the files of a layer (issue 20): a file's undefined symbols point at the
# files that define them; any circle fails (commands.c <-> parse.c, tree.c -> tree_leftover.c ->
# tree_purge.c -> tree.c were two; the engine's durjournal.c -> finish.c -> worker.c -> opexec.c
# -> durjournal.c and aging.c <-> run.c were cut by durhook.c and worker_pick_ops): within a
# layer too, the calls go one way.
circles=$(python3 - "$build" <<'PY'
import glob, os, subprocess, sys
build = sys.argv[1]
defs, needs = {}, {}
objs = sorted(glob.glob(build + "/src/CMakeFiles/fsmix_*.dir/**/*.c.o", recursive=True))
names = {o: os.path.relpath(o, build + "/src/CMakeFiles").split("/", 1)[1][:-2] for o in objs}
for o in objs:
    needs[names[o]] = set()
# one nm for all the objects (one each was most of this test's time): -A starts each line
# with the object's path and a colon
out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True).stdout if objs else ""
for line in out.splitlines():
    o, _, rest = line.partition(":")
    name, f = names[o], rest.split()
    if len(f) == 3 and f[1] in "TDBRC":
        defs[f[2]] = name
    elif len(f) == 2 and f[0] == "U":
        needs[name].add(f[1])
edges = {n: sorted({defs[s] for s in needs[n] if s in defs and defs[s] != n}) for n in needs}
index, low, stack, on, count = {}, {}, [], set(), [0]
def visit(v):
    index[v] = low[v] = count[0]
    count[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            print(" ".join(sorted(comp)))
sys.setrecursionlimit(100000)
for v in sorted(edges):
    if v not in index:
        visit(v)
PY
)
n_circles=0
while IFS= read -r c; do
	[ -n "$c" ] || continue
	n_circles=$((n_circles + 1))
	bad "call circle between the files of a layer: $c"
done <<<"$circles"
[ "$n_circles" -eq 0 ] && ok "no call circle within a layer"

# A layer's private headers (*_int.h, *_impl.h, and any header that includes one) are in its
# internal/ folder, which only its own library has on its include path (src/CMakeLists.txt): no
# layer above can include them.
misplaced=$( (find src -maxdepth 2 \( -name '*_int.h' -o -name '*_impl.h' \)
	grep -lE '#include "[^"]*_(int|impl)\.h"' src/*/*.h) 2>/dev/null | sort -u)
[ -z "$misplaced" ] && ok "private headers are in internal/ folders" ||
	bad "private headers on a public include path: $misplaced"
leaks=$(grep -rlE '#include "[^"]*internal/' src 2>/dev/null | sort)
[ -z "$leaks" ] && ok "no source reaches into a layer's internal/ folder by path" ||
	bad "includes of another layer's internal/ by path: $leaks"

# Each external library is linked by the lowest layer whose objects use it, and by no other
# (the layers above get it through that one): inih's ini_*, jansson's json_*.
for pair in INIH:ini_ JANSSON:json_; do
	pkg=${pair%%:*} prefix=${pair#*:}
	lowest=""
	for l in "${layers[@]}"; do
		lib=$(find "$build/src" -name "libfsmix_$l.a" | head -1)
		if nm -u "$lib" 2>/dev/null | awk '$1 == "U" { print $2 }' | grep -q "^$prefix"; then
			lowest=$l
			break
		fi
	done
	linking=$(grep -E "^target_link_libraries\(fsmix_[a-z]+ .*PkgConfig::$pkg" src/CMakeLists.txt |
		sed 's/^target_link_libraries(fsmix_\([a-z]*\) .*/\1/' | sort -u | tr '\n' ' ')
	[ "$linking" = "$lowest " ] && ok "$pkg is linked by $lowest alone, the lowest layer using it" ||
		bad "$pkg: linked by '${linking% }', but the lowest layer using it is '$lowest'"
done

# The failure-to-exit-status table is in base, where every layer can read it (a sweep's JSON
# records the status), so nothing reaches up to the command line for it.
[ "${owner[exit_status_of]:-}" = base ] && ok "exit_status_of is in base" ||
	bad "exit_status_of is defined in '${owner[exit_status_of]:-nowhere}', not base"
if grep -rn 'exit_status_of)(' src >/dev/null; then bad "a function pointer to exit_status_of: $(grep -rln 'exit_status_of)(' src)"; else ok "no function pointer stands in for exit_status_of"; fi

# No dead global function: each one a layer defines is needed by another object (of src/, the
# tests or the tools) or called in its own file.
used=$(find "$build" -name '*.o' -exec nm -u {} + 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u)
dead=0
for l in "${layers[@]}"; do
	lib=$(find "$build/src" -name "libfsmix_$l.a" | head -1)
	while read -r sym; do
		grep -qxF "$sym" <<<"$used" && continue
		# called in its own sources: a line naming it that is not a definition (column 0)
		calls=$(grep -rhwE "$sym" src --include='*.c' | grep -cvE "^[A-Za-z_].*\b$sym\(")
		[ "$calls" -gt 0 ] && continue
		dead=$((dead + 1))
		bad "layer $l defines $sym, which nothing calls"
	done < <(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 == "T" { print $3 }')
done
[ "$dead" -eq 0 ] && ok "no dead global function in the layers"

# The MPI layer is src/mpi (build tools take a dist/ folder for their output), and the job's
# policy is its alone: the tree layer keeps no process-wide rank or lock switch, and the command
# line takes no location lock itself (rank 0's are jobpolicy_lock's, src/mpi/jobpolicy.c).
[ ! -e src/dist ] && [ -d src/mpi ] && ok "the MPI layer is src/mpi" || bad "src/dist exists or src/mpi does not"
tree_lib=$(find "$build/src" -name libfsmix_tree.a | head -1)
globals=$(nm -g --defined-only "$tree_lib" 2>/dev/null | awk 'NF == 3 && $3 ~ /instance_(set|rank|size|takes)/ { print $3 }')
[ -z "$globals" ] && ok "the tree layer has no process-wide rank" || bad "the tree layer keeps a rank: $globals"
cli_lib=$(find "$build/src" -name libfsmix_cli.a | head -1)
if nm -u "$cli_lib" 2>/dev/null | grep -qw tree_lock_location; then
	bad "the command line locks locations itself (the MPI layer's jobpolicy_lock does)"
else
	ok "the command line takes no location lock itself"
fi

# The engine is opaque (issue 20, item 1): engine.h declares struct engine, the state (the
# engine's, its workers' and filesystems') and the operations are in engine_int.h.
layout=$(grep -nE '^struct (engine|worker|engine_fs) \{|op_execute|op_probe_directio' src/engine/engine.h)
[ -z "$layout" ] && ok "engine.h exposes no engine, worker or filesystem layout and no operation" ||
	bad "engine.h exposes the engine's insides: $layout"

# One phase sequence (issue 20, item 2): engine_run is the only caller of the engine's phases
# outside src/engine (the run command observes it, sweeps and MPI call it).
phases=$(grep -rnE '\bengine_(open|setup|measure|finish|close|job_ready|job_done)\(' src --include='*.c' | grep -v '^src/engine/')
[ -z "$phases" ] && ok "the engine's phases are called in one sequence (engine_run)" ||
	bad "phases called outside engine_run: $phases"

# The thread limit is written once (KEYS_MAX_THREADS, keys.h): keys.def and plan.c use the name.
limits=$(grep -rn '65536\|65 536' src/profile src/engine src/cli --include='*.c' --include='*.def' | grep -v '^[^:]*:[0-9]*:\s*/\?\*' | grep -v 'value.c:.*/\*')
[ -z "$limits" ] && ok "the thread limit is written once (keys.h)" || bad "the thread limit written again: $limits"

# Sizes: no file over 800 lines, counting with a .c file the function bodies of the private
# headers (a layer's internal/*.h) it includes, directly or through another: a static inline
# function in such a header is code of every file that includes it, so moving bodies into one
# cannot make a file smaller. Declarations and types do not count (they are the interface).
# sizes ROOT prints "FILE N" for each file of ROOT/src over the limit, N its lines so counted.
sizes() {
	python3 - "$1" <<'PY'
import glob, os, re, subprocess, sys
root = sys.argv[1]
os.chdir(root)
def bodies(h):  # lines of the function bodies in header h (Universal Ctags)
    out = subprocess.run(["ctags", "--language-force=C", "--c-kinds=f", "--fields=+ne", "-f", "-", h],
                         capture_output=True, text=True).stdout
    n = 0
    for line in out.splitlines():
        f = dict(x.split(":", 1) for x in line.split("\t")[3:] if ":" in x)
        if "line" in f and "end" in f:
            n += int(f["end"]) - int(f["line"]) + 1
    return n
def includes(f):
    d = os.path.join(os.path.dirname(f), "internal") if "/internal/" not in f else os.path.dirname(f)
    for name in re.findall(r'^#include "([^"]+)"', open(f).read(), re.M):
        h = os.path.join(d, name)
        if os.path.exists(h):
            yield h
memo = {}
def private(f, seen):  # the internal headers f includes, directly or not
    for h in includes(f):
        if h not in seen:
            seen.add(h)
            private(h, seen)
    return seen
for f in sorted(glob.glob("src/**/*.[ch]", recursive=True)):
    n = sum(1 for _ in open(f))
    if f.endswith(".c"):
        for h in private(f, set()):
            memo.setdefault(h, bodies(h))
            n += memo[h]
    if n > 800:
        print(f, n)
PY
}
# The rule itself catches a header's bodies: a 700-line file and a 121-line function in a
# private header it includes (through another) are over the limit.
synth=$(mktemp -d)
mkdir -p "$synth/src/x/internal"
{ echo '#include "a.h"'; for i in $(seq 699); do echo "int v$i;"; done; } >"$synth/src/x/x.c"
echo '#include "b.h"' >"$synth/src/x/internal/a.h"
{ echo 'static inline int big(void)'; echo '{'; for i in $(seq 118); do echo "	(void)0;"; done
	echo '}'; } >"$synth/src/x/internal/b.h"
if command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q Universal; then
	[ "$(sizes "$synth")" = "src/x/x.c 821" ] && ok "a private header's bodies count with its includer" ||
		bad "the size rule misses a private header's bodies: '$(sizes "$synth")'"
	over=$(sizes .)
	[ -z "$over" ] && ok "no file over 800 lines (with its private headers' bodies)"
	while read -r f n; do
		[ -n "$f" ] && bad "$f has $n lines with its private headers' function bodies (at most 800)"
	done <<<"$over"
else
	while IFS= read -r f; do
		n=$(wc -l <"$f")
		[ "$n" -le 800 ] || bad "$f has $n lines (at most 800)"
	done < <(find src -name '*.[ch]' | sort)
	echo "skip private headers' bodies in file sizes: Universal Ctags is not installed"
fi
rm -rf "$synth"
if command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q Universal; then
	long=$(find src -name '*.c' -print0 | xargs -0 ctags --c-kinds=f --fields=+ne -f - 2>/dev/null |
		awk -F'\t' '{ l = e = 0; for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) } if (e - l + 1 > 120) print $2 ":" l " " $1 "() " e - l + 1 " lines" }')
	if [ -z "$long" ]; then ok "no function over 120 lines"; else
		while IFS= read -r x; do bad "function too long: $x"; done <<<"$long"
	fi
else
	echo "skip function lengths: Universal Ctags is not installed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
