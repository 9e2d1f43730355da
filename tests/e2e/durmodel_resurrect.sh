#!/usr/bin/env bash
# Issue 26: a file whose unlink a later syncfs covered (the syncfs started after the unlink
# completed) must stay gone. A run on tmpfs that creates, deletes and syncfs()es files, with
# --durability-log; then the tree is doctored: one such file made again by hand, under its old
# name. `fsmix verify` reports it as a broken promise of kind resurrected (exit 1; text and
# JSON); the tree as the run left it verifies clean (exit 0). fsmix fc73ac9 dropped deletes from
# its model and said every promise kept. Renames: a file renamed from A to B, deleted from B,
# then a syncfs: made again under A (the syncfs covered the rename's removal from A too), it is
# resurrected as well (fc73ac9 has no rename: exit 2 at the profile; a model that checked only
# the directory of the unlink said every promise kept).
set -u
. "$(dirname "$0")/lib.bash"

cat >"$work/res.ffsb" <<'EOF'
time=0
[filesystem0]
location=/unused
num_files=20
num_dirs=2
min_filesize=4KB
max_filesize=8KB
[end0]
[threadgroup0]
num_threads=1
num_ops=300
create_weight=2
delete_weight=2
syncfs_weight=1
write_size=4KB
write_blocksize=4KB
[end0]
EOF
loc=$(shmdir)
log=$work/res.durlog
if ! timeout 120 "$bin" run "$work/res.ffsb" --location "$loc" --seed 5 --durability-log "$log" \
	>"$work/run.out" 2>&1; then
	bad "run with --durability-log failed"
	tail -5 "$work/run.out" | sed 's/^/     /'
	summary
fi
timeout 120 "$bin" verify "$work/res.ffsb" --location "$loc" --durability-log "$log" \
	--json "$work/clean.json" >"$work/clean.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(jq -r .broken "$work/clean.json")" = 0 ] &&
	ok "the tree as the run left it: every promise kept ($(jq -r .unlink_promises "$work/clean.json") unlinks promised)" ||
	bad "the tree as the run left it: verify exit $rc"

# A delete that a later syncfs covered, and no later create of its id: from the log's records
# (docs/output.md, "Durability log": 80-byte records after a 2120-byte header).
pick=$(python3 - "$log" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
recs = []
for o in range(2120, len(d) - 79, 80):
    kind, flags, fs, worker, seq, t0, t1, file, dr = struct.unpack_from('<BBHIQQQII', d, o)
    recs.append((kind, t0, t1, file, dr))
for k, t0, t1, f, dr in recs:
    if k != 7:
        continue
    later = [r for r in recs if r[3] == f and r[0] in (1, 6) and r[2] > t1]
    cover = [r for r in recs if r[0] == 9 and r[1] > t1]
    if cover and not later:
        print(f, 'data' if dr == 0xffffffff else 'data/d%03u' % dr)
        break
EOF
)
if [ -z "$pick" ]; then
	bad "no delete covered by a later syncfs in the log (the profile should make some)"
	summary
fi
read -r id dir <<<"$pick"
printf 'back from the dead' >"$loc/fsmix.fs0/$dir/f$id"
timeout 120 "$bin" verify "$work/res.ffsb" --location "$loc" --durability-log "$log" \
	--json "$work/res.json" >"$work/res.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && [ "$(jq -r .broken_by_kind.resurrected "$work/res.json")" = 1 ] &&
	[ "$(jq -r .broken "$work/res.json")" = 1 ] &&
	[ "$(jq -r '.examples.resurrected[0].promise.kind' "$work/res.json")" = syncfs ] &&
	grep -q "^    resurrected: .*/$dir/f$id; promised by syncfs" "$work/res.out"; then
	ok "$dir/f$id made again after its covered unlink: resurrected, exit 1"
else
	bad "$dir/f$id made again after its covered unlink: verify exit $rc"
	tail -6 "$work/res.out" | sed 's/^/     /'
fi

# Renames: a rename (kind 12: aux the directory left) of a file later deleted (7), a syncfs (9)
# started after the delete completed, no other rename of it between, and no later create (ids
# are reused: creates are kept rare).
cat >"$work/ren.ffsb" <<'EOF'
time=0
[filesystem0]
location=/unused
num_files=20
num_dirs=3
min_filesize=4KB
max_filesize=8KB
[end0]
[threadgroup0]
num_threads=1
num_ops=200
create_weight=1
delete_weight=2
rename_weight=3
syncfs_weight=1
write_size=4KB
write_blocksize=4KB
[end0]
EOF
loc2=$(shmdir)
log2=$work/ren.durlog
if ! timeout 120 "$bin" run "$work/ren.ffsb" --location "$loc2" --seed 7 --durability-log "$log2" \
	>"$work/ren-run.out" 2>&1; then
	bad "run with renames and --durability-log failed"
	tail -5 "$work/ren-run.out" | sed 's/^/     /'
	summary
fi
pick=$(python3 - "$log2" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
recs = []
for o in range(2120, len(d) - 79, 80):
    kind, flags, fs, worker, seq, t0, t1, file, dr, off, ln, size, gen, aux = \
        struct.unpack_from('<BBHIQQQIIQQQII', d, o)
    recs.append((kind, t0, t1, file, dr, aux))
name = lambda dr: 'data' if dr == 0xffffffff else 'data/d%03u' % dr
for k, t0, t1, f, dr, aux in recs:
    if k != 12:
        continue
    dels = [r for r in recs if r[3] == f and r[0] == 7 and r[1] > t1]
    if not dels:
        continue
    dl = dels[0]
    moves = [r for r in recs if r[3] == f and r[0] == 12 and t1 < r[1] < dl[1]]
    later = [r for r in recs if r[3] == f and r[0] in (1, 6) and r[2] > t1]
    cover = [r for r in recs if r[0] == 9 and r[1] > dl[2]]
    if cover and not later and not moves and aux != dl[4]:
        print(f, name(aux), name(dl[4]))
        break
EOF
)
if [ -z "$pick" ]; then
	bad "no rename, delete and covering syncfs in the log (the profile should make some)"
	summary
fi
read -r id from to <<<"$pick"
timeout 120 "$bin" verify "$work/ren.ffsb" --location "$loc2" --durability-log "$log2" \
	--json "$work/ren-clean.json" >"$work/ren-clean.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(jq -r .broken "$work/ren-clean.json")" = 0 ] &&
	ok "renames: the tree as the run left it: every promise kept ($(jq -r .unlink_promises "$work/ren-clean.json") unlinks promised)" ||
	bad "renames: the tree as the run left it: verify exit $rc"
printf 'back from the dead' >"$loc2/fsmix.fs0/$from/f$id"
timeout 120 "$bin" verify "$work/ren.ffsb" --location "$loc2" --durability-log "$log2" \
	--json "$work/ren.json" >"$work/ren.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && [ "$(jq -r .broken_by_kind.resurrected "$work/ren.json")" = 1 ] &&
	[ "$(jq -r .broken "$work/ren.json")" = 1 ] &&
	grep -q "^    resurrected: .*/$from/f$id; promised by syncfs" "$work/ren.out"; then
	ok "f$id renamed from $from to $to, deleted, syncfs; made again under $from: resurrected, exit 1"
else
	bad "f$id renamed from $from to $to, deleted, syncfs; made again under $from: verify exit $rc"
	tail -6 "$work/ren.out" | sed 's/^/     /'
fi
summary
