#!/usr/bin/env bash
# End-to-end checks of profile features: time=0, init_size growth, two filesystems with bindfs,
# clone and op_delay, --continue-on-error, seeds, --cleanup.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
# time=0 builds the tree and stops, exit 0, no results.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 0 >"$work/t0.out" 2>"$work/t0.err"
rc=$?
n=$(find "$loc/fsmix.fs0/data" -type f | wc -l)
[ $rc -eq 0 ] && [ "$n" -eq 500 ] && grep -q "Setup complete" "$work/t0.out" &&
	! grep -q "Transactions per Second" "$work/t0.out" &&
	ok "time=0: 500 files built, nothing run" || bad "time=0: exit $rc, $n files"

# num_files=0 with init_size: the tree grows to at least init_size bytes.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 0 --set filesystem0.num_files=0 \
	--set filesystem0.init_size=8MB >"$work/grow.out" 2>"$work/grow.err"
rc=$?
bytes=$(find "$loc/fsmix.fs0/data" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
[ $rc -eq 0 ] && [ "$bytes" -ge 8388608 ] && [ "$bytes" -lt 16777216 ] &&
	ok "init_size=8MB grows the tree to $bytes bytes" || bad "init_size: exit $rc, $bytes bytes"

# Two filesystems, bindfs, clone and op_delay (examples/two-groups.ffsb, locations moved).
a=$(shmdir) b=$(shmdir)
"$bin" run "$src/examples/two-groups.ffsb" --location "0=$a" --location "1=$b" --time 2 \
	>"$work/two.out" 2>"$work/two.err"
rc=$?
na=$(find "$a/fsmix.fs0/data" -type f | wc -l)
nb=$(find "$b/fsmix.fs1/data" -type f | wc -l)
appends=$(awk '/^ThreadGroup 1/ { g = 1 } g && $1 == "append_fsync" && $2 == ":" { print $3; exit }' "$work/two.out")
took=$(sed -n 's/^Benchmark took \([0-9.]*\) sec/\1/p' "$work/two.out")
# op_delay=10: at most one append per 10 ms of the run as measured (+1 for the first, +1 for
# the rounding of "took"); how many it gets done is up to the machine.
if [ $rc -eq 0 ] && [ "$na" -eq 100 ] && [ "$nb" -eq 50 ] && [ -n "$appends" ] && [ -n "$took" ] &&
	[ "$appends" -ge 1 ] && awk -v n="$appends" -v t="$took" 'BEGIN { exit !(n <= t * 100 + 2) }'; then
	ok "two filesystems: bindfs keeps each group on its tree; op_delay=10 paces the writer ($appends appends in $took s)"
else
	bad "two filesystems: exit $rc, files $na/$nb, appends '$appends' in '$took' s"; tail -3 "$work/two.err"
fi
# The readers' tree was not written: bindfs keeps the writer on filesystem1.
[ "$(find "$a/fsmix.fs0/data" -type f -newer "$work/two.err" | wc -l)" -eq 0 ] 2>/dev/null
grep -q "ThreadGroup 0" "$work/two.out" && grep -q "^Total Results" "$work/two.out" &&
	ok "two groups: per-group tables and a total" || bad "two groups: report layout"

# The same seed gives the same tree layout (sizes and directories).
s1=$(shmdir) s2=$(shmdir)
for d in "$s1" "$s2"; do
	"$bin" run "$src/profiles/ext4-barrier-2010.ffsb" --location "$d" --time 0 --seed 77 \
		--set filesystem0.num_files=500 --set filesystem0.num_dirs=10 >/dev/null 2>&1
done
if diff <(cd "$s1" && find . -type f -printf '%p %s\n' | sort) <(cd "$s2" && find . -type f -printf '%p %s\n' | grep -v fsmix-tree | sort) |
	grep -v "fsmix-tree\|fsmix-manifest" | grep -q '^[<>]'; then
	bad "same seed, different trees"
else
	ok "--seed 77 twice gives the same tree (names, directories and sizes)"
fi
grep -q "seed 77" <("$bin" run "$src/profiles/default.ffsb" --location "$s1" --time 1 "${paced[@]}" --seed 77 2>&1) &&
	ok "the seed used is reported" || bad "seed not reported"

# --continue-on-error: on a full filesystem the run goes on, errors are counted, exit 1. A
# counted run (500 ops a thread fill 3 MB many times over), so it ends by its count, not by an
# error, and no number of operations in a time is assumed.
if mount_tmpfs "$work/full" "size=3m"; then
	"$bin" run "$src/profiles/default.ffsb" --location "$work/full" --time 0 --continue-on-error \
		--set filesystem0.num_files=20 --set threadgroup0.num_ops=500 --seed 3 \
		--json "$work/coe.json" >"$work/coe.out" 2>"$work/coe.err"
	rc=$?
	errs=$(sed -n 's/.* skipped (no file[^)]*), \([0-9]*\) errors.*/\1/p' "$work/coe.out")
	[ $rc -eq 1 ] && [ "${errs:-0}" -gt 1 ] && grep -q '"stop_reason": "count"' "$work/coe.json" &&
		ok "--continue-on-error: ran all its operations (stop_reason count), counted $errs errors, exit 1" ||
		bad "--continue-on-error: exit $rc, errors '$errs', $(grep -o '"stop_reason": "[a-z]*"' "$work/coe.json")"
else
	skip_env mount "--continue-on-error: cannot mount a small tmpfs"
fi

# --cleanup removes the tree after the run.
c=$(shmdir)
"$bin" run "$src/profiles/default.ffsb" --location "$c" --time 1 "${paced[@]}" --cleanup >/dev/null 2>&1
[ $? -eq 0 ] && [ ! -e "$c/fsmix.fs0" ] && ok "--cleanup removes fsmix.fs0 after the run" || bad "--cleanup"
summary
