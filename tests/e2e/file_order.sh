#!/usr/bin/env bash
# file_order=sequential (docs/profile.md; mdtest's phases, docs/peers.md): each thread takes the
# existing files in turn by file number from its own share of them, as an mdtest task takes its
# items in order; with dir_per_thread=1 only the files of its own directories while any is left
# (mdtest -u). Checked by strace -ff -y on a phased run (create, then delete): every delete
# thread unlinks only in one directory of its own and in increasing file numbers (easy:
# dir_per_thread), or in increasing numbers with at most one wrap (hard: one shared
# directory); every file is removed once. Bad combinations fail at their line (exit 2);
# --strict-ffsb refuses the key. Counts only: nothing depends on the machine's speed.
set -u
. "$(dirname "$0")/lib.bash"

# profile DIRS PER_THREAD: 3 threads create 30 files each (phase 0), 3 threads delete them all
# in turn (phase 1).
profile() {
	cat <<PROFILE
[filesystem0]
	location=/unused
	num_files=0
	num_dirs=$1
	dir_per_thread=$2
	min_filesize=0
	max_filesize=0
[end0]
[threadgroup0]
	phase=0
	num_threads=3
	num_ops=30
	create_weight=1
	write_blocksize=4KB
[end0]
[threadgroup1]
	phase=1
	num_threads=3
	num_ops=30
	delete_weight=1
	file_order=sequential
[end1]
PROFILE
}

# check TRACE OWN: the deletes of the trace, per thread (OWN 1: one directory each, a different
# one per thread, numbers increasing; 0: numbers increasing but for one wrap); all 90 once.
check() {
	python3 - "$1" "$2" <<'PY'
import glob, re, sys
from collections import defaultdict
own = sys.argv[2] == "1"
per = defaultdict(list)
for f in glob.glob(sys.argv[1] + ".*"):  # strace -ff: one file per thread, no split lines
    for l in open(f):
        m = re.match(r'unlinkat\(\d+<([^>]*)>, "f(\d+)", 0\) += 0', l)
        if m:
            per[f].append((m[1], int(m[2])))
ids = [i for v in per.values() for _, i in v]
err = []
if len(ids) != 90 or len(set(ids)) != 90:
    err.append(f"{len(ids)} deletes of {len(set(ids))} files, not 90 once each")
dirs = []
for t, v in per.items():
    ds = {d for d, _ in v}
    nums = [i for _, i in v]
    drops = sum(1 for a, b in zip(nums, nums[1:]) if b < a)
    if own and len(ds) != 1:
        err.append(f"thread {t} unlinked in {len(ds)} directories: {sorted(ds)}")
    dirs += ds
    if drops > (0 if own else 1):
        err.append(f"thread {t}: numbers not in turn ({drops} drops): {nums}")
if own and len(dirs) != len(set(dirs)):
    err.append(f"threads shared directories: {dirs}")
print("; ".join(err) or f"{len(per)} threads, {len(ids)} deletes in turn")
sys.exit(1 if err else 0)
PY
}

if ! command -v strace >/dev/null; then
	skip_env strace "file_order's picks by strace: strace not installed"
else
	for kind in easy hard; do
		[ $kind = easy ] && set -- 3 1 || set -- 0 0
		profile "$@" >"$work/$kind.ffsb"
		loc=$(shmdir)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -ff -qq -y -e trace=unlinkat -o "$work/$kind.trace" \
			"$bin" run "$work/$kind.ffsb" --location "$loc" >"$work/$kind.out" 2>&1
		rc=$?
		if [ "$rc" = 0 ] && res=$(check "$work/$kind.trace" "$2"); then
			ok "$kind (num_dirs=$1 dir_per_thread=$2): $res"
		else
			bad "$kind: exit $rc: ${res:-}"
			tail -3 "$work/$kind.out"
		fi
	done
fi

# ---- bad input: exit 2 at the line; --strict-ffsb refuses the key ---------------------------
profile 3 1 | sed 's/^\tfile_order=sequential$/\tfile_order=backwards/' >"$work/bad.ffsb"
"$bin" check "$work/bad.ffsb" >"$work/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q ':21: .*file_order' "$work/bad.out" &&
	ok "file_order=backwards: exit 2 at line 21" || { bad "backwards: exit $rc"; cat "$work/bad.out"; }
profile 3 1 | sed 's/^\tfile_order=sequential$/&\n\tfile_popularity=zipf:1.2/' >"$work/zipf.ffsb"
"$bin" check "$work/zipf.ffsb" >"$work/zipf.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q ':21: .*file_order: sequential cannot be combined with file_popularity' "$work/zipf.out" &&
	ok "file_order=sequential with file_popularity=zipf: exit 2" || { bad "zipf: exit $rc"; cat "$work/zipf.out"; }
profile 3 0 | sed '/phase=\|dir_per_thread/d' >"$work/strict.ffsb"
"$bin" check --strict-ffsb "$work/strict.ffsb" >"$work/strict.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q 'file_order' "$work/strict.out" &&
	ok "--strict-ffsb refuses file_order: exit 2" || { bad "strict: exit $rc"; cat "$work/strict.out"; }

summary
