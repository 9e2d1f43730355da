#!/usr/bin/env bash
# --shared-tree (docs/distributed.md, issue 21 item 6): 3 MPI ranks on one tree. Rank 0 builds
# it (the others, started with no tree, never build: checked with strace), each rank creates
# and deletes only its own ids (f<id> with id % 3 == rank, checked by name in each rank's
# strace), the merged counts add up, a create-only run leaves every rank's files in the shared
# directories, and clean under mpirun removes the tree once (rank 0 alone). Skipped as mpi.sh
# is: without mpirun, MPI support or strace, and in sanitizer builds.
set -u
. "$(dirname "$0")/lib.bash"

if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "mpi_sharedtree: MPI runs are tested in the default build only (sanitizers: $FSMIX_SANITIZERS)"
	summary
fi
if ! command -v mpirun >/dev/null || ! command -v strace >/dev/null; then
	skip_env mpi "mpi_sharedtree: needs mpirun (openmpi-bin) and strace"
	summary
fi
if ! ldd "$bin" 2>/dev/null | grep -q libmpi; then
	skip_env mpi "mpi_sharedtree: this fsmix was built without MPI support (cmake -DFSMIX_MPI=ON)"
	summary
fi
cd "$work" || exit 1

# Each rank under its own strace (sharedtree-st.R): the file calls it makes.
mpi_traced() {
	rm -f "$work"/sharedtree-st.*
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np 3 sh -c \
		'exec strace -f -qq -e trace=openat,unlinkat,mkdirat,renameat,renameat2 -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
		"$work/sharedtree-st" "$bin" "$@"
}

cat >"$work/sharedtree.ffsb" <<'EOF'
time=0
[filesystem0]
	location=/tmp
	num_files=60
	num_dirs=4
	size_weight 1KB 1
	size_weight 8KB 1
[end0]
[threadgroup0]
	num_threads=2
	num_ops=400
	create_weight=3
	delete_weight=3
	readall_weight=2
	stat_weight=2
	append_weight=1
	write_size=1KB
	write_blocksize=1KB
	read_blocksize=4KB
[end0]
EOF
loc=$(shmdir)

# 1. Started with no tree: rank 0 builds, ranks 1 and 2 attach; deletes and creates by name.
mpi_traced run "$work/sharedtree.ffsb" --location "$loc" --shared-tree --json "$work/st.json" \
	>"$work/st.out" 2>"$work/st.err"
rc=$?
[ $rc -eq 0 ] && ok "3 ranks on a shared tree: exit 0" || bad "shared tree: exit $rc: $(head -3 "$work/st.err")"
left=$(ls "$loc" | tr '\n' ' ')
[ "$left" = "fsmix.fs0 " ] && ok "one tree, fsmix.fs0, no fsmix.fs0.rR" || bad "trees: $left"
python3 - "$work/st.json" "$work"/sharedtree-st.0 "$work"/sharedtree-st.1 "$work"/sharedtree-st.2 <<'PY' && ok "merged counts add up; each rank deleted and created only f<id> with id % 3 == rank; ranks 1, 2 never built" || bad "shared tree: per-rank names"
import json, re, sys
d = json.load(open(sys.argv[1]))
m = d["mpi"]
ops = {o["name"]: o["count"] for o in d["total"]["ops"]}
assert sum(r["ops"] for r in m["per_rank"]) == sum(ops.values()), (m["per_rank"], ops)
assert d["total"]["operations"] + d["total"]["skipped"] + d["total"]["busy"] == 3 * 2 * 400, d["total"]  # skips and busy picks count in num_ops
assert ops.get("delete", 0) > 0 and ops.get("create", 0) > 0, ops
for rank, path in enumerate(sys.argv[2:]):
    deleted = created = 0
    for line in open(path):
        if "= -1" in line:
            continue
        m1 = re.search(r'unlinkat\(\d+, "(?:d\d+/)?f(\d+)", 0\)', line)
        if m1:
            assert int(m1.group(1)) % 3 == rank, (rank, line)
            deleted += 1
        m2 = re.search(r'openat\(\d+, "(?:d\d+/)?f(\d+)", [^)]*O_CREAT', line)
        if m2:
            assert int(m2.group(1)) % 3 == rank or rank == 0 and int(m2.group(1)) < 60, (rank, line)
            created += 1
        if rank:
            # attach-only: no tree, directory, marker or manifest made or removed
            assert "mkdirat" not in line, (rank, line)
            assert "fsmix-tree" not in line or not re.search(r"O_CREAT|unlinkat|rename", line), (rank, line)
            assert not re.search(r'(unlinkat|renameat2?)\(\d+, "\.fsmix-manifest', line), (rank, line)
            assert not re.search(r'"fsmix\.fs0[".]', line) or "O_CREAT" not in line, (rank, line)
    assert deleted > 0 and created > 0, (rank, deleted, created)
PY

# 2. Create-only: the shared directories hold every rank's new files.
sed -e 's/delete_weight=3/delete_weight=0/' -e 's/readall_weight=2/readall_weight=0/' \
	-e 's/stat_weight=2/stat_weight=0/' -e 's/append_weight=1/append_weight=0/' \
	"$work/sharedtree.ffsb" >"$work/create.ffsb"
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$bin" run "$work/create.ffsb" \
	--location "$loc" --shared-tree --set threadgroup0.num_ops=30 --json "$work/cr.json" \
	>"$work/cr.out" 2>"$work/cr.err"
rc=$?
python3 - "$loc/fsmix.fs0/data" "$work/cr.json" <<'PY' && [ $rc -eq 0 ] && ok "create-only: 3 x 2 x 30 new files, 60 of each rank, in the shared directories" || bad "create-only: exit $rc, $(head -2 "$work/cr.err")"
import collections, json, os, sys
ids = [int(n[1:]) for _, _, fs in os.walk(sys.argv[1]) for n in fs if n[0] == "f"]
new = collections.Counter(i % 3 for i in ids if i >= 60)
assert len([i for i in ids if i < 60]) == 60, sorted(ids)
assert new == {0: 60, 1: 60, 2: 60}, new
dirs = collections.defaultdict(set)
for dp, _, fs in os.walk(sys.argv[1]):
    for n in fs:
        if int(n[1:]) >= 60:
            dirs[dp].add(int(n[1:]) % 3)
assert sum(len(v) == 3 for v in dirs.values()) >= 1, dirs  # a directory shared by all ranks
d = json.load(open(sys.argv[2]))
assert sum(o["count"] for o in d["total"]["ops"]) == 180
PY

# 3. A refused combination: exit 3 on every rank, nothing built.
loc2=$(shmdir)
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$bin" run "$work/sharedtree.ffsb" \
	--location "$loc2" --shared-tree --set threadgroup0.createdir_weight=1 >/dev/null 2>"$work/rf.err"
rc=$?
[ $rc -eq 3 ] && grep -q "shared-tree does not support createdir" "$work/rf.err" && [ -z "$(ls "$loc2")" ] &&
	ok "createdir under --shared-tree: exit 3, nothing built" || bad "refusal: exit $rc, $(head -2 "$work/rf.err"), $(ls "$loc2")"

# 4. clean under mpirun removes the shared tree once: rank 0 alone unlinks.
echo keep >"$loc/keep"
mpi_traced clean "$work/sharedtree.ffsb" --location "$loc" --shared-tree >"$work/cl.out" 2>&1
rc=$?
left=$(ls "$loc" | tr '\n' ' ')
n0=$(grep -c 'unlinkat.* = 0' "$work/sharedtree-st.0")
n12=$(cat "$work/sharedtree-st.1" "$work/sharedtree-st.2" | grep -c 'unlinkat\|renameat')
[ $rc -eq 0 ] && [ "$left" = "keep " ] && [ "$n0" -gt 0 ] && [ "$n12" -eq 0 ] &&
	ok "mpirun ... clean --shared-tree: rank 0 removed fsmix.fs0 ($n0 unlinks), ranks 1, 2 nothing" ||
	bad "clean: exit $rc, left: $left, rank 0 unlinks $n0, ranks 1-2 $n12: $(head -3 "$work/cl.out")"
summary
