#!/usr/bin/env bash
# Directories made and removed under the durability model (docs/durability.md, "Directories"),
# on tmpfs:
# 1. `fsmix keys` lists mkdir_weight and rmdir_weight as fsmix extensions; --strict-ffsb refuses
#    them (exit 2).
# 2. metaop, whose directory renames no record says, is refused with --durability-log (exit 2
#    at its weight, run and verify alike); the old binary accepted it and checked none of its
#    directories.
# 3. A mix of mkdir, rmdir, createdir, create_fsync, write and delete with dirsync=1 and the log
#    (one thread: its ops follow the seed, so the tree left holds both directories made and
#    directories removed, whatever the machine's speed):
#    exit 0, each op counted and its mkdir(2)/rmdir(2) timed; the log holds a mkdir record
#    (kind 18) per mkdir and per createdir (those with data/ as their parent) and an rmdir
#    record (kind 19) per rmdir; `fsmix verify` keeps every promise, counting the directories.
# 4. A doctored tree: a directory whose mkdir was covered removed: missing (exit 1, its path
#    meta/m<id> named); a directory whose rmdir was covered made again: resurrected; a
#    directory createdir made, covered, removed with its files: missing.
#    The whole tree gone: each covered mkdir's directory missing, none unreadable.
# 5. `fsmix clean` removes a tree whose meta/ holds mkdir's directories.
# 6. --model posix: a file whose name only a fsync of its new directory (createdir's) promised,
#    lost with that directory whose own entry nothing promised, broke nothing (the log of such
#    a run made by rewriting data/'s fsync records); the old binary called each file missing.
# 7. A mkdir record whose parent is neither meta/ nor data/ makes a bad log (exit 2).
# Fails on the old binary (no mkdir or rmdir op: exit 2 at the profile; metaop accepted).
set -u
. "$(dirname "$0")/lib.bash"

# 1. The keys.
keys=$("$bin" keys 2>&1)
if grep -q "^  mkdir_weight .*(fsmix extension)" <<<"$keys" &&
	grep -q "^  rmdir_weight .*(fsmix extension)" <<<"$keys"; then
	ok "fsmix keys lists mkdir_weight and rmdir_weight as fsmix extensions"
else
	bad "fsmix keys: no mkdir_weight / rmdir_weight"
fi

profile() { # profile OPS-LINES
	cat <<EOF2
time=0
[filesystem0]
location=/unused
num_files=16
num_dirs=2
min_filesize=4KB
max_filesize=12KB
[end0]
[threadgroup0]
num_threads=1
num_ops=300
dirsync=1
$1
write_size=4KB
write_blocksize=4KB
read_blocksize=4KB
[stats]
enable_stats=1
[end]
[end0]
EOF2
}
mix="mkdir_weight=3
rmdir_weight=3
createdir_weight=1
create_fsync_weight=2
write_weight=1
delete_weight=1"
profile "$mix" >"$work/mix.ffsb"
loc=$(shmdir)
"$bin" run "$work/mix.ffsb" --location "$loc" --strict-ffsb >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "mkdir_weight" "$work/strict.out" &&
	ok "--strict-ffsb refuses mkdir_weight (exit 2)" ||
	{ bad "--strict-ffsb with mkdir: exit $rc"; tail -3 "$work/strict.out" | sed 's/^/     /'; }

# 2. metaop with the log.
profile "metaop_weight=1
create_weight=1" >"$work/meta.ffsb"
loc=$(shmdir)
timeout 60 "$bin" run "$work/meta.ffsb" --location "$loc" --durability-log "$work/meta.durlog" \
	>"$work/meta.out" 2>&1
rc=$?
"$bin" verify "$work/meta.ffsb" --location "$loc" --durability-log "$work/meta.durlog" \
	>"$work/meta-v.out" 2>&1
vrc=$?
[ $rc -eq 2 ] && grep -q "metaop_weight: .*durability log" "$work/meta.out" && [ $vrc -eq 2 ] &&
	[ ! -e "$work/meta.durlog" ] &&
	ok "metaop with --durability-log: run and verify exit 2 at its weight, no log written" ||
	{ bad "metaop with --durability-log: run exit $rc, verify exit $vrc"; tail -3 "$work/meta.out" | sed 's/^/     /'; }

# 3. The mix, with the log, then verify.
loc=$(shmdir)
timeout 120 "$bin" run "$work/mix.ffsb" --location "$loc" --seed 5 --json "$work/mix.json" \
	--durability-log "$work/mix.durlog" >"$work/mix.out" 2>&1
rc=$?
count() { jq -r --arg n "$2" '[.total.ops[] | select(.name == $n) | .count] | add // 0' "$1"; }
syscall() { jq -r --arg n "$2" '[.total.syscalls[] | select(.name == $n) | .latency.count] | add // 0' "$1"; }
mk=$(count "$work/mix.json" mkdir) rm_=$(count "$work/mix.json" rmdir) cd_=$(count "$work/mix.json" createdir)
if [ $rc -eq 0 ] && [ "${mk:-0}" -gt 0 ] && [ "${rm_:-0}" -gt 0 ] && [ "${cd_:-0}" -gt 0 ] &&
	[ "$(syscall "$work/mix.json" mkdir)" = $((mk + cd_)) ] &&
	[ "$(syscall "$work/mix.json" rmdir)" = "$rm_" ]; then
	ok "mix: exit 0, $mk mkdir, $rm_ rmdir, $cd_ createdir counted, each call timed"
else
	bad "mix: exit $rc, mkdir ${mk:-?}, rmdir ${rm_:-?}, createdir ${cd_:-?}"
	tail -5 "$work/mix.out" | sed 's/^/     /'
fi
# the log's directory records (docs/output.md: kind at 0, dir at 36): mkdir of meta/ and of data/
recs=$(python3 - "$work/mix.durlog" <<'EOF2'
import struct, sys
d = open(sys.argv[1], 'rb').read()
n = {'meta': 0, 'data': 0, 'rmdir': 0}
for o in range(2120, len(d) - 79, 80):
    parent = struct.unpack_from('<I', d, o + 36)[0]
    if d[o] == 18:
        n['data' if parent == 0xffffffff else 'meta'] += 1
    elif d[o] == 19:
        n['rmdir'] += 1
print(n['meta'], n['data'], n['rmdir'])
EOF2
)
[ "$recs" = "$mk $cd_ $rm_" ] && ok "mix: the log holds a mkdir record per mkdir and per createdir, an rmdir record per rmdir ($recs)" ||
	bad "mix: log records (meta mkdir, data mkdir, rmdir) '$recs', ops '$mk $cd_ $rm_'"
timeout 120 "$bin" verify "$work/mix.ffsb" --location "$loc" --durability-log "$work/mix.durlog" \
	--json "$work/v.json" >"$work/v.out" 2>&1
vrc=$?
if [ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/v.json")" = 0 ] &&
	[ "$(jq -r .dir_promises "$work/v.json")" -gt 0 ] &&
	[ "$(jq -r .acknowledged.mkdir "$work/v.json")" = $((mk + cd_)) ] &&
	[ "$(jq -r .acknowledged.rmdir "$work/v.json")" = "$rm_" ] &&
	grep -q "directories: $((mk + cd_)) made, $rm_ removed" "$work/v.out"; then
	ok "mix: fsmix verify: $(jq -r .checked "$work/v.json") promises kept, $(jq -r .dir_promises "$work/v.json") of them directories"
else
	bad "mix: fsmix verify exit $vrc, dir_promises $(jq -r .dir_promises "$work/v.json" 2>/dev/null)"
	tail -8 "$work/v.out" | sed 's/^/     /'
fi

# 4. Doctored trees. The checked directories of meta/ that are there were made (covered), those
# that are not were removed (covered).
root=$loc/fsmix.fs0
made= gone=
for id in $(jq -r '.directories[] | select(.[1] == "meta") | .[2]' "$work/v.json"); do
	if [ -d "$root/meta/m$id" ]; then made=${made:-$id}; else gone=${gone:-$id}; fi
done
verify_doctored() { # NAME
	timeout 120 "$bin" verify "$work/mix.ffsb" --location "$loc" --durability-log "$work/mix.durlog" \
		--json "$work/$1.json" >"$work/$1.out" 2>&1
}
if [ -n "$made" ]; then
	rmdir "$root/meta/m$made"
	verify_doctored missing
	vrc=$?
	[ $vrc -eq 1 ] && [ "$(jq -r .broken_by_kind.missing "$work/missing.json")" = 1 ] &&
		grep -q "missing: $root/meta/m$made; promised by" "$work/missing.out" &&
		[ "$(jq -c --argjson i "$made" '.directories[] | select(.[1] == "meta" and .[2] == $i)' "$work/missing.json")" = "[0,\"meta\",$made,\"broken\",\"missing\"]" ] &&
		ok "a covered mkdir's directory removed: verify exit 1, missing: meta/m$made" ||
		{ bad "covered mkdir removed: verify exit $vrc"; tail -6 "$work/missing.out" | sed 's/^/     /'; }
	mkdir "$root/meta/m$made"
else
	bad "no directory of meta/ made and checked"
fi
if [ -n "$gone" ]; then
	mkdir "$root/meta/m$gone"
	verify_doctored resurrected
	vrc=$?
	[ $vrc -eq 1 ] && [ "$(jq -r .broken_by_kind.resurrected "$work/resurrected.json")" = 1 ] &&
		grep -q "resurrected: $root/meta/m$gone; promised by" "$work/resurrected.out" &&
		ok "a covered rmdir's directory made again: verify exit 1, resurrected: meta/m$gone" ||
		{ bad "covered rmdir undone: verify exit $vrc"; tail -6 "$work/resurrected.out" | sed 's/^/     /'; }
	rmdir "$root/meta/m$gone"
else
	bad "no directory of meta/ removed and checked"
fi
data=$(jq -r '[.directories[] | select(.[1] == "data") | .[2]] | min // empty' "$work/v.json")
if [ -n "$data" ]; then
	d=$(printf 'd%03u' "$data")
	n=$(find "$root/data/$d" -type f | wc -l)
	rm -rf "${root:?}/data/$d"
	verify_doctored datadir
	vrc=$?
	[ $vrc -eq 1 ] && grep -q "missing: $root/data/$d; promised by" "$work/datadir.out" &&
		[ "$(jq -r .broken_by_kind.missing "$work/datadir.json")" -ge 1 ] &&
		ok "a covered createdir's directory removed with its $n files: verify exit 1, missing: data/$d" ||
		{ bad "covered createdir removed: verify exit $vrc"; tail -6 "$work/datadir.out" | sed 's/^/     /'; }
else
	bad "no directory createdir made was checked"
fi

# A lost tree (its root gone: tree_gone): each covered mkdir's directory is missing, as each
# file is -- not unreadable (verify looked it up under no root: EBADF).
mv "$root" "$loc/aside"
verify_doctored treegone
vrc=$?
unr=$(jq -r '[.directories[] | select(.[4] == "unreadable")] | length' "$work/treegone.json" 2>/dev/null)
mis=$(jq -r '[.directories[] | select(.[1] == "meta" and .[4] == "missing")] | length' "$work/treegone.json" 2>/dev/null)
[ $vrc -eq 1 ] && [ "$unr" = 0 ] && [ "${mis:-0}" -gt 0 ] &&
	! grep -q "Bad file descriptor" "$work/treegone.out" &&
	ok "the tree gone: verify exit 1, $mis directories of meta/ missing, none unreadable" ||
	{ bad "the tree gone: verify exit $vrc, $unr directories unreadable, ${mis:-?} missing"; grep -m3 "unreadable" "$work/treegone.out" | sed 's/^/     /'; }
mv "$loc/aside" "$root"

# 5. clean.
"$bin" clean "$work/mix.ffsb" --location "$loc" >"$work/clean.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ ! -e "$root" ] && ok "fsmix clean removes a tree whose meta/ holds mkdir's directories" ||
	{ bad "clean: exit $rc"; tail -3 "$work/clean.out" | sed 's/^/     /'; }

# 6. --model posix: a name made in a directory createdir made is promised only with the
# directory's own entry. One thread, dirsync=1, createdir and creates; then every fsync of
# data/ in the log is made one of d000 (its record's dir rewritten, its check recomputed: the
# log of a run whose createdir group had no dirsync), so no entry of data/ made in the run is
# promised, while the names in the new directories are (their directories' fsyncs). A new
# directory removed with its files: kept, the files lost with it (the old binary: missing).
cat >"$work/posix.ffsb" <<EOF2
$(profile "createdir_weight=1
create_weight=3
delete_weight=1")
EOF2
loc=$(shmdir)
timeout 120 "$bin" run "$work/posix.ffsb" --location "$loc" --seed 9 \
	--durability-log "$work/posix.durlog" >"$work/posix.out" 2>&1 || bad "posix: the run failed: $(tail -1 "$work/posix.out")"
python3 - "$work/posix.durlog" <<'EOF2'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & ((1 << 64) - 1)
    return h
for o in range(2120, len(d) - 79, 80):
    if d[o] == 8 and struct.unpack_from('<I', d, o + 36)[0] == 0xffffffff:
        d[o + 1] &= ~2 & 0xff
        struct.pack_into('<I', d, o + 36, 0)
        struct.pack_into('<Q', d, o + 72, fnv(d[o:o + 72]))
open(p, 'wb').write(d)
EOF2
nd=
for p in "$loc"/fsmix.fs0/data/d*; do
	n=${p##*/d}
	[ "$((10#$n))" -ge 2 ] && [ -n "$(find "$p" -type f)" ] && { nd=$p; break; }
done
if [ -n "$nd" ]; then
	nf=$(find "$nd" -type f | wc -l)
	rm -rf "$nd"
	timeout 120 "$bin" verify "$work/posix.ffsb" --location "$loc" --durability-log "$work/posix.durlog" \
		--model posix --json "$work/posix.json" >"$work/posix-v.out" 2>&1
	vrc=$?
	[ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/posix.json")" = 0 ] &&
		[ "$(jq -r .absent_unpromised "$work/posix.json")" -ge "$nf" ] &&
		ok "posix: ${nd##*/} lost with its $nf files, whose names only its own fsync promised: no promise broken" ||
		{ bad "posix: ${nd##*/} lost with its files: verify exit $vrc, broken $(jq -r .broken "$work/posix.json" 2>/dev/null)"; tail -5 "$work/posix-v.out" | sed 's/^/     /'; }
else
	bad "posix: no directory createdir made holds a file"
fi
# 7. A mkdir record whose parent is neither meta/ nor data/: a bad log (exit 2), named.
python3 - "$work/posix.durlog" <<'EOF2'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & ((1 << 64) - 1)
    return h
o = next(o for o in range(2120, len(d) - 79, 80) if d[o] == 18)
struct.pack_into('<I', d, o + 36, 7)
struct.pack_into('<Q', d, o + 72, fnv(d[o:o + 72]))
open(p, 'wb').write(d)
EOF2
timeout 60 "$bin" verify "$work/posix.ffsb" --location "$loc" --durability-log "$work/posix.durlog" \
	>"$work/badparent.out" 2>&1
vrc=$?
[ $vrc -eq 2 ] && grep -q "bad log: record .*(.*mkdir): parent directory 7 is neither meta/" "$work/badparent.out" &&
	ok "a mkdir record with parent 7: a bad log, exit 2, the record named" ||
	{ bad "mkdir with parent 7: verify exit $vrc"; tail -2 "$work/badparent.out" | sed 's/^/     /'; }
summary
