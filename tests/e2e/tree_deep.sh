#!/usr/bin/env bash
# Deep directory trees (issue 28, item 3: dir_depth, dir_fanout, dir_files, dir_per_thread), on
# tmpfs:
# 1. `fsmix keys` lists the four keys as fsmix extensions; --strict-ffsb refuses dir_depth
#    (exit 2).
# 2. num_dirs=4, dir_depth=3, dir_fanout=4: exactly 4 + 16 + 64 = 84 directories under data/,
#    the 64 of the last level at depth 3, and every one of the 300 files in one of them.
# 3. A run of create, delete, rename, stat and link over it with --durability-log and dirsync=1:
#    exit 0, no error; still 84 directories and every file in a leaf; `fsmix verify` keeps
#    every promise (exit 0).
# 4. reuse=1 reuses the deep tree it built (its manifest keeps the layout), and rebuilds it when
#    dir_fanout changes.
# 5. `fsmix clean` removes it all: the location is empty again.
# 6. dir_per_thread=1: two groups of one thread each, 10 and 30 creates on an empty tree of 4
#    leaves (num_dirs=2, dir_depth=2, dir_fanout=2): thread 0 owns leaves 0 and 2
#    (d000/d000, d001/d000), thread 1 leaves 1 and 3: exactly 10 and 30 files there.
# 7. dir_files=gamma:0.3 spreads the files unevenly (the fullest of 16 directories holds more
#    than twice the mean), uniform does not.
# 8. Bad values and combinations are refused at their line (exit 2): dir_depth without
#    dir_fanout, without num_dirs, out of range; too many directories (the limit said);
#    dir_files not a distribution; dir_per_thread with fewer directories than threads.
# Fails on main (the keys are unknown: exit 2 at the profile).
set -u
. "$(dirname "$0")/lib.bash"
run_() { timeout 180 "$bin" "$@"; }

# 1. The keys.
keys=$("$bin" keys 2>&1)
n=0
for k in dir_depth dir_fanout dir_files dir_per_thread; do
	grep -q "^  $k .*\[fsmix extension\]$" <<<"$keys" && n=$((n + 1))
done
[ $n -eq 4 ] && ok "fsmix keys lists dir_depth, dir_fanout, dir_files, dir_per_thread as extensions" ||
	bad "fsmix keys lists $n of the 4 tree keys as extensions"

deep() { # LOCATION [EXTRA-FS-LINES [GROUP-LINES, or "none": build only]]
	printf 'seed=11\n[filesystem0]\n\tlocation=%s\n\tnum_files=300\n\tnum_dirs=4\n' "$1"
	printf '\tdir_depth=3\n\tdir_fanout=4\n\tmin_filesize=1k\n\tmax_filesize=8k\n%s\n[end0]\n' "${2:-}"
	[ "${3:-}" = none ] && return
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=400\n\tcreate_weight=2\n\tdelete_weight=1\n'
	printf '\trename_weight=2\n\tstat_weight=1\n\tlink_weight=1\n\twrite_size=4k\n'
	printf '\twrite_blocksize=4k\n%s\n[end0]\n' "${3:-}"
}
loc=$(shmdir)
deep "$loc" "" none >"$work/deep.ffsb"
run_ run "$work/deep.ffsb" --strict-ffsb >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "dir_depth: fsmix extension, rejected by --strict-ffsb" "$work/strict.out" &&
	ok "--strict-ffsb refuses dir_depth (exit 2)" ||
	{ bad "--strict-ffsb with dir_depth: exit $rc"; tail -3 "$work/strict.out" | sed 's/^/     /'; }

# Files outside the last level's directories, and directories, under DATA.
strays() { find "$1" -type f ! -path "$1/d*/d*/d*/f*" ! -path "$1/d*/d*/d*/l*" 2>/dev/null | wc -l; }
ndirs() { find "$1" -mindepth 1 -type d 2>/dev/null | wc -l; }

# 2. The build alone.
run_ run "$work/deep.ffsb" >"$work/build.out" 2>&1
rc=$?
data=$loc/fsmix.fs0/data
d=$(ndirs "$data") leaves=$(find "$data" -mindepth 3 -maxdepth 3 -type d 2>/dev/null | wc -l)
f=$(find "$data" -type f 2>/dev/null | wc -l) s=$(strays "$data")
deeper=$(find "$data" -mindepth 4 -type d 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && [ "$d" -eq 84 ] && [ "$leaves" -eq 64 ] && [ "$deeper" -eq 0 ] &&
	[ "$f" -eq 300 ] && [ "$s" -eq 0 ]; then
	ok "depth 3, fanout 4: 84 directories (64 leaves), 300 files, all in leaves"
else
	bad "build: exit $rc, $d directories ($leaves at level 3, $deeper deeper), $f files, $s outside leaves"
	tail -3 "$work/build.out" | sed 's/^/     /'
fi

# 3. A run over it with the log, then verify.
deep "$loc" "" "dirsync=1" >"$work/run.ffsb"
run_ run "$work/run.ffsb" --json "$work/run.json" --durability-log "$work/run.durlog" \
	>"$work/run.out" 2>&1
rc=$?
errs=$(jq -r '.total.errors // 0 | if type == "array" then length else . end' "$work/run.json" 2>/dev/null)
ren=$(jq -r '[.total.ops[] | select(.name == "rename") | .count] | add // 0' "$work/run.json" 2>/dev/null)
d=$(ndirs "$data") s=$(strays "$data")
if [ $rc -eq 0 ] && [ "${errs:-1}" = 0 ] && [ "${ren:-0}" -gt 0 ] && [ "$d" -eq 84 ] && [ "$s" -eq 0 ]; then
	ok "create/delete/rename/stat/link over the deep tree: exit 0, $ren renames, no error, files stay in leaves"
else
	bad "run: exit $rc, errors ${errs:-?}, renames ${ren:-?}, $d directories, $s files outside leaves"
	tail -5 "$work/run.out" | sed 's/^/     /'
fi
run_ verify "$work/run.ffsb" --durability-log "$work/run.durlog" >"$work/verify.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "fsmix verify of the deep tree's log: every promise kept (exit 0)" ||
	{ bad "verify: exit $rc"; tail -5 "$work/verify.out" | sed 's/^/     /'; }

# 4. reuse=1 keeps the layout in the manifest.
deep "$loc" "reuse=1" none >"$work/reuse.ffsb"
run_ run "$work/reuse.ffsb" >"$work/reuse1.out" 2>&1
run_ run "$work/reuse.ffsb" >"$work/reuse2.out" 2>&1
rc=$?
sed 's/dir_fanout=4/dir_fanout=3/' "$work/reuse.ffsb" >"$work/reuse3.ffsb"
run_ run "$work/reuse3.ffsb" >"$work/reuse3.out" 2>&1
rc3=$?
d3=$(ndirs "$data")
if [ $rc -eq 0 ] && ! grep -q "rebuilding\|built " "$work/reuse2.out" && [ $rc3 -eq 0 ] &&
	grep -q "cannot reuse.*rebuilding" "$work/reuse3.out" && [ "$d3" -eq $((4 + 12 + 36)) ] &&
	[ "$(strays "$data")" -eq 0 ]; then
	ok "reuse=1 reuses the deep tree, and rebuilds it (52 directories) for another dir_fanout"
else
	bad "reuse: exit $rc/$rc3, $d3 directories after the fanout change"
	cat "$work/reuse2.out" "$work/reuse3.out" | tail -6 | sed 's/^/     /'
fi

# 5. clean.
run_ clean "$work/deep.ffsb" >"$work/clean.out" 2>&1
rc=$?
left=$(find "$loc" -mindepth 1 | wc -l)
[ $rc -eq 0 ] && [ "$left" -eq 0 ] && grep -q "removed" "$work/clean.out" && ok "fsmix clean removes the whole deep tree" ||
	{ bad "clean: exit $rc, $left entries left"; tail -3 "$work/clean.out" | sed 's/^/     /'; }

# 6. A directory per thread.
loc=$(shmdir)
cat >"$work/own.ffsb" <<EOF2
seed=3
[filesystem0]
	location=$loc
	num_files=0
	num_dirs=2
	dir_depth=2
	dir_fanout=2
	dir_per_thread=1
	min_filesize=512
	max_filesize=512
[end0]
[threadgroup0]
	num_threads=1
	num_ops=10
	create_weight=1
	write_size=512
	write_blocksize=512
[end0]
[threadgroup1]
	num_threads=1
	num_ops=30
	create_weight=1
	write_size=512
	write_blocksize=512
[end1]
EOF2
run_ run "$work/own.ffsb" >"$work/own.out" 2>&1
rc=$?
data=$loc/fsmix.fs0/data
cnt() { find "$data/$1" -maxdepth 1 -type f 2>/dev/null | wc -l; }
a=$(($(cnt d000/d000) + $(cnt d001/d000))) b=$(($(cnt d000/d001) + $(cnt d001/d001)))
if [ $rc -eq 0 ] && [ $a -eq 10 ] && [ $b -eq 30 ] && [ "$(find "$data" -maxdepth 1 -type f 2>/dev/null | wc -l)" -eq 0 ]; then
	ok "dir_per_thread: thread 0's 10 creates in its leaves 0 and 2, thread 1's 30 in 1 and 3"
else
	bad "dir_per_thread: exit $rc, $a files in leaves 0+2 (want 10), $b in 1+3 (want 30)"
	tail -3 "$work/own.out" | sed 's/^/     /'
fi

# 7. dir_files: gamma shares against uniform ones.
spread() { # DIST -> "MAX MIN" files per directory of 16
	local l
	l=$(shmdir)
	printf 'seed=5\n[filesystem0]\n\tlocation=%s\n\tnum_files=1600\n\tnum_dirs=16\n\tdir_files=%s\n' "$l" "$1" >"$work/sp.ffsb"
	printf '\tmin_filesize=0\n\tmax_filesize=0\n[end0]\n' >>"$work/sp.ffsb"
	run_ run "$work/sp.ffsb" >"$work/sp.out" 2>&1 || { echo "0 0"; return; }
	for x in "$l"/fsmix.fs0/data/d*; do find "$x" -type f | wc -l; done | sort -n | sed -n '1p;$p' | tr '\n' ' '
}
read -r umin umax <<<"$(spread uniform)"
read -r gmin gmax <<<"$(spread gamma:0.3)"
if [ "${umax:-0}" -lt 200 ] && [ "${umin:-0}" -gt 50 ] && [ "${gmax:-0}" -gt 200 ]; then
	ok "dir_files: uniform keeps 16 directories at $umin..$umax files, gamma:0.3 puts $gmax in one"
else
	bad "dir_files: uniform ${umin:-?}..${umax:-?}, gamma:0.3 ${gmin:-?}..${gmax:-?} files per directory"
fi

# 8. Bad values at their lines.
refused() { # WHAT LINE KEY TEXT FS-LINES...
	local what=$1 line=$2 key=$3 text=$4
	shift 4
	{
		printf 'time=1\n[filesystem0]\n\tlocation=%s\n' "$work"
		printf '\t%s\n' "$@"
		printf '[end0]\n[threadgroup0]\n\tnum_threads=4\n\tstat_weight=1\n[end0]\n'
	} >"$work/bad.ffsb"
	run_ check "$work/bad.ffsb" >"$work/bad.out" 2>&1
	local rc=$?
	if [ $rc -eq 2 ] && grep -q "bad.ffsb:$line: error: \[filesystem0\] $key: .*$text" "$work/bad.out"; then
		ok "refused at line $line ($key): $what"
	else
		bad "$what: exit $rc, want bad.ffsb:$line: error: [filesystem0] $key: ...$text"
		sed 's/^/     /' "$work/bad.out" | tail -3
	fi
}
refused "dir_depth without dir_fanout" 5 dir_depth "needs dir_fanout" num_dirs=2 dir_depth=3
refused "dir_depth without num_dirs" 4 dir_depth "needs num_dirs" dir_depth=2 dir_fanout=2
refused "dir_depth 17" 5 dir_depth "" num_dirs=2 dir_depth=17 dir_fanout=2
refused "too many directories" 6 dir_fanout "limit is 1048576" num_dirs=64 dir_depth=4 dir_fanout=128
refused "dir_files zipf" 5 dir_files "uniform or gamma" num_dirs=4 dir_files=zipf:1
refused "dir_files gamma:0" 5 dir_files "0.01 to 1000" num_dirs=4 dir_files=gamma:0
refused "dir_per_thread, 4 threads, 2 directories" 5 dir_per_thread "at least 4" num_dirs=2 dir_per_thread=1
refused "dir_per_thread without directories" 4 dir_per_thread "needs directories" dir_per_thread=1

summary
