#!/usr/bin/env bash
# Blind spots and false alarms of `fsmix verify` found by a review (issue 26), on tmpfs, each
# checked against the second reader of the log (tests/tools/durlog_reader.py) too:
#   1. A run that links and unlinks but neither deletes nor renames (header flags: 4 "no group
#      deletes, renames or replaces files" set, 16 "no group links" clear), its log's end
#      record cut off: a file whose name an fsync promised, removed, is broken (missing), not
#      "lost tail" (no link or unlink removes f<id>; fsmix f014b87 cleared flag 4 for links).
#   2. A directory meta/m<id> whose rmdir a syncfs covered, back as a regular file of that
#      name: resurrected (the name back, whatever it names), not absent.
#   3. replace_fsync: its rename is durable once a sync or syncfs started after it, not only
#      its directory's fsync (the reader knew only the latter), and a directory fsync that
#      started before the replace returned does not cover it (the reader took its end): with
#      the old content put back, (a) the replace's directory fsync turned into a syncfs: stale
#      for both; (b) that fsync's start moved before the replace's end: kept by both.
#   4. --model posix: a file created and fsynced (its data promised, its name not) whose lookup
#      fails (EIO, through tests/tools/fsfault) tells nothing: kept by both (verify said
#      unreadable); under --model linux (its name promised) unreadable.
#   5. An id deleted (its second name l<id> unlinked first) and created anew, a syncfs after the
#      unlink: l<id> put back is resurrected (the re-create wiped the unlink's promise).
#   6. A run that makes directories of meta/ but removes none (header flag 32 set), its log's
#      end record cut off: a directory whose mkdir a syncfs covered, removed, is broken
#      (missing), not "lost tail" (only an rmdir after the last record could explain it).
set -u
. "$(dirname "$0")/lib.bash"
reader=$src/tests/tools/durlog_reader.py
command -v python3 >/dev/null || { skip_env tool "the reader needs python3"; summary; }

profile() { # profile OPS-LINES
	cat <<EOF
time=0
[filesystem0]
location=/unused
num_files=12
num_dirs=2
min_filesize=8KB
max_filesize=8KB
reuse=1
[end0]
[threadgroup0]
num_threads=1
num_ops=${ops:-60}
$1
write_size=4KB
write_blocksize=4KB
[end0]
EOF
}

# check NAME PROFILE LOG LOC [VERIFY-ARGS..]: verify (exit in $vrc, JSON $work/NAME.v.json) and
# the reader (exit $rrc, $work/NAME.r.json) of LOG against LOC
check() {
	local name=$1 p=$2 log=$3 loc=$4
	shift 4
	"$bin" verify "$p" --location "$loc" --durability-log "$log" --json "$work/$name.v.json" "$@" \
		>"$work/$name.v.out" 2>&1
	vrc=$?
	python3 "$reader" --durability-log "$log" --location "$loc" --json "$@" >"$work/$name.r.json"
	rrc=$?
}
# verdict JSON ID: "verdict kind" of file ID
verdict() { jq -r --argjson id "$2" '.files[] | select(.[1] == $id) | "\(.[2]) \(.[3])"' "$1"; }
# dverdict JSON ID: "verdict kind" of directory meta/m<ID>
dverdict() { jq -r --argjson id "$2" '.directories[] | select(.[1] == "meta" and .[2] == $id) | "\(.[3]) \(.[4])"' "$1"; }
# recs LOG: every record as "kind worker seq t0 t1 file dir" (durlog.h's layout)
recs() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
for o in range(2120, len(d) - 79, 80):
    k, _, _, w, seq, t0, t1, f, dr = struct.unpack_from('<BBHIQQQII', d, o)
    print(k, w, seq, t0, t1, f, dr)
EOF
}
# fpath LOC ID DIR [LETTER]: the path of f<ID> (or l<ID>) in data directory DIR (4294967295: data/)
fpath() {
	[ "$3" = 4294967295 ] && echo "$1/fsmix.fs0/data/${4:-f}$2" ||
		printf '%s/fsmix.fs0/data/d%03d/%s%s\n' "$1" "$3" "${4:-f}" "$2"
}
# run_log N: $work/pN.ffsb run (seed 1N) on a fresh tmpfs directory, $loc, its durability log
# $work/N.log
run_log() {
	loc=$(shmdir)
	"$bin" run "$work/p$1.ffsb" --location "$loc" --seed "1$1" --durability-log "$work/$1.log" \
		>"$work/$1.run" 2>&1 || bad "$1: the run failed: $(tail -2 "$work/$1.run")"
}
# cut_tail N: $work/Ncut.log, $work/N.log without its end record; the header's flags in $flags
cut_tail() {
	flags=$(od -An -tu4 -j20 -N4 "$work/$1.log" | tr -d ' ')
	cp "$work/$1.log" "$work/$1cut.log"
	truncate -s -80 "$work/$1cut.log"
}

# 1. Links without deletes, the log's tail lost.
profile "write_fsync_weight=3
link_weight=2
unlink_weight=1" >"$work/p1.ffsb"
run_log 1
cut_tail 1
id=$(recs "$work/1.log" | awk '$1 == 4 {print $6}' | sort -n | tail -1) # an fsynced file
dir=$(recs "$work/1.log" | awk -v id="$id" '$1 == 1 && $6 == id {print $7}' | tail -1)
nlinks=$(recs "$work/1.log" | awk '$1 == 16' | wc -l)
if [ -n "$id" ] && [ -f "$(fpath "$loc" "$id" "$dir")" ]; then
	rm "$(fpath "$loc" "$id" "$dir")"
	check 1 "$work/p1.ffsb" "$work/1cut.log" "$loc"
	[ $((flags & 4)) = 4 ] && [ $((flags & 16)) = 0 ] && [ "$nlinks" -gt 0 ] && [ $vrc = 1 ] &&
		[ $rrc = 1 ] && [ "$(verdict "$work/1.v.json" "$id")" = "broken missing" ] &&
		[ "$(verdict "$work/1.r.json" "$id")" = "broken missing" ] &&
		ok "1: links without deletes, tail lost: f$id removed is broken (missing) for verify and the reader (flags $flags, $nlinks links)" ||
		bad "1: flags $flags, links $nlinks, verify exit $vrc ($(verdict "$work/1.v.json" "$id")), reader exit $rrc ($(verdict "$work/1.r.json" "$id"))"
else
	bad "1: no fsynced file to remove (id '${id:-}', dir '${dir:-}')"
fi

# 2. A removed directory back as a file.
ops=150 profile "mkdir_weight=3
rmdir_weight=3
syncfs_weight=4
write_weight=1" >"$work/p2.ffsb"
run_log 2
check 2a "$work/p2.ffsb" "$work/2.log" "$loc"
mid=$(jq -r '.directories[] | select(.[1] == "meta" and .[3] == "kept") | .[2]' "$work/2a.v.json" |
	while read -r d; do [ -e "$loc/fsmix.fs0/meta/m$d" ] || echo "$d"; done | head -1)
if [ $vrc = 0 ] && [ -n "$mid" ]; then
	echo planted >"$loc/fsmix.fs0/meta/m$mid"
	check 2 "$work/p2.ffsb" "$work/2.log" "$loc"
	[ $vrc = 1 ] && [ $rrc = 1 ] && [ "$(dverdict "$work/2.v.json" "$mid")" = "broken resurrected" ] &&
		[ "$(dverdict "$work/2.r.json" "$mid")" = "broken resurrected" ] &&
		ok "2: meta/m$mid removed (covered), back as a regular file: resurrected for verify and the reader" ||
		bad "2: verify exit $vrc ($(dverdict "$work/2.v.json" "$mid")), reader exit $rrc ($(dverdict "$work/2.r.json" "$mid"))"
else
	bad "2: verify of the run exit $vrc, no removed directory with a promise (${mid:-none})"
fi

# 3. replace_fsync: the old content put back; the log changed at the replace's directory fsync.
profile "replace_fsync_weight=1" >"$work/p3.ffsb"
loc=$(shmdir)
"$bin" run "$work/p3.ffsb" --location "$loc" --seed 13 --set threadgroup0.num_ops=0 \
	--durability-log "$work/3old.log" >"$work/3a.run" 2>&1 &&
	cp -a "$loc/fsmix.fs0/data" "$work/old" &&
	"$bin" run "$work/p3.ffsb" --location "$loc" --seed 13 --set threadgroup0.num_ops=8 \
		--durability-log "$work/3.log" >"$work/3.run" 2>&1 || bad "3: the runs failed: $(tail -2 "$work/3.run")"
grep -q "reused" "$work/3.run" || bad "3: the second run did not reuse the tree: $(grep -i reus "$work/3.run")"
# the replaced file (replaced once) whose directory fsync is the last of its directory:
# "id dir index-of-that-fsync-record"
pick=$(python3 - "$work/3.log" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
recs = [struct.unpack_from('<BBHIQQQII', d, o) for o in range(2120, len(d) - 79, 80)]
n = {}
for r in recs:
    if r[0] == 13:
        n[r[7]] = n.get(r[7], 0) + 1
last = {}
for i, r in enumerate(recs):
    if r[0] == 8:
        last[r[8]] = i
for i, r in enumerate(recs):
    if r[0] == 13 and n[r[7]] == 1 and i + 1 < len(recs) and recs[i + 1][0] == 8 and \
            last.get(r[8]) == i + 1:
        print(r[7], r[8], i + 1)
        break
EOF
)
# craft IN OUT INDEX HOW: record INDEX made a syncfs (kind 9), or its start moved before the end
# of the record before it ("early"); its check word redone
craft() {
	python3 - "$@" <<'EOF'
import struct, sys
src, dst, i, how = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = bytearray(open(src, 'rb').read())
o = 2120 + 80 * i
if how == 'syncfs':
    d[o] = 9
else:
    prev_t1 = struct.unpack_from('<Q', d, o - 80 + 24)[0]
    struct.pack_into('<Q', d, o + 16, prev_t1 - 1)
h = 0xcbf29ce484222325
for x in d[o:o + 72]:
    h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into('<Q', d, o + 72, h)
open(dst, 'wb').write(bytes(d))
EOF
}
if [ -n "$pick" ]; then
	read -r id dir idx <<<"$pick"
	rel=${dir/4294967295/}
	[ -n "$rel" ] && rel=$(printf 'd%03d/' "$rel")
	cp "$work/old/${rel}f$id" "$(fpath "$loc" "$id" "$dir")"
	craft "$work/3.log" "$work/3a.log" "$idx" syncfs
	craft "$work/3.log" "$work/3b.log" "$idx" early
	check 3a "$work/p3.ffsb" "$work/3a.log" "$loc"
	va=$(verdict "$work/3a.v.json" "$id") ra=$(verdict "$work/3a.r.json" "$id")
	[ $vrc = 1 ] && [ "$va" = "broken stale" ] && [ "$ra" = "broken stale" ] &&
		ok "3a: f$id's replace covered by a syncfs, its old content back: stale for verify and the reader" ||
		bad "3a: verify exit $vrc ($va), reader exit $rrc ($ra)"
	check 3b "$work/p3.ffsb" "$work/3b.log" "$loc"
	vb=$(verdict "$work/3b.v.json" "$id") rb=$(verdict "$work/3b.r.json" "$id")
	[ $vrc = 0 ] && [ $rrc = 0 ] && [ "$vb" = "kept null" ] && [ "$rb" = "kept null" ] &&
		ok "3b: f$id's directory fsync started before its replace returned, its old content back: kept by verify and the reader" ||
		bad "3b: verify exit $vrc ($vb), reader exit $rrc ($rb)"
else
	bad "3: no file replaced once with the last directory fsync of its directory"
fi

# 4. A lookup that fails (EIO) of a file whose name is not promised.
if ! fsfault_ready; then
	skipped "4: $fsfault_why"
else
	ops=4 profile "create_fsync_weight=1" >"$work/p4.ffsb"
	run_log 4
	read -r id dir <<<"$(recs "$work/4.log" | awk '$1 == 6 {print $6, $7}' | tail -1)"
	rel=${dir/4294967295/}
	[ -n "$rel" ] && rel=$(printf 'd%03d/' "$rel")
	mnt=$work/mnt4
	if fsfault_mount "$mnt" "$loc" -f "getattr:0:EIO:data/${rel}f$id"; then
		check 4p "$work/p4.ffsb" "$work/4.log" "$mnt" --model posix
		vp=$(verdict "$work/4p.v.json" "$id") rp=$(verdict "$work/4p.r.json" "$id")
		vprc=$vrc rprc=$rrc
		check 4l "$work/p4.ffsb" "$work/4.log" "$mnt" --model linux
		vl=$(verdict "$work/4l.v.json" "$id")
		fusermount3 -u "$mnt" 2>/dev/null
		wait "$fuse_pid" 2>/dev/null
		[ -n "$id" ] && [ $vprc = 0 ] && [ $rprc = 0 ] && [ "$vp" != "broken unreadable" ] &&
			[ "$rp" != "broken unreadable" ] && [ "$vl" = "broken unreadable" ] && [ $vrc = 1 ] &&
			ok "4: f$id's lookup fails (EIO): posix (name not promised) kept by verify and the reader, linux unreadable" ||
			bad "4: f${id:-?}: posix verify exit $vprc ($vp), reader exit $rprc ($rp); linux verify exit $vrc ($vl)"
	else
		bad "4: fsfault did not mount"
	fi
fi

# 5. An id deleted and made anew, its second name's unlink covered.
ops=200 profile "write_fsync_weight=2
link_weight=3
unlink_weight=1
delete_weight=2
create_weight=2
syncfs_weight=1" >"$work/p5.ffsb"
run_log 5
# an id whose last second-name record is an unlink (its delete's), created anew after, with a
# syncfs started after the unlink: "id dir-of-l<id>"
pick=$(recs "$work/5.log" | sort -k5,5n | awk '
	$1 == 16 || $1 == 17 { last[$6] = $1; ldir[$6] = $7; t[$6] = $5; made[$6] = 0 }
	$1 == 6 && last[$6] == 17 { made[$6] = 1 }
	$1 == 9 { for (f in last) if (last[f] == 17 && made[f] && t[f] < $4) cov[f] = ldir[f] }
	END { for (f in cov) { print f, cov[f]; exit } }')
if [ -n "$pick" ]; then
	read -r id ldir <<<"$pick"
	lp=$(fpath "$loc" "$id" "$ldir" l)
	check 5a "$work/p5.ffsb" "$work/5.log" "$loc"
	v0=$vrc
	[ -e "$lp" ] || echo planted >"$lp"
	check 5 "$work/p5.ffsb" "$work/5.log" "$loc"
	[ $v0 = 0 ] && [ $vrc = 1 ] && [ $rrc = 1 ] &&
		[ "$(verdict "$work/5.v.json" "$id" | grep -c 'broken resurrected')" = 1 ] &&
		[ "$(verdict "$work/5.r.json" "$id" | grep -c 'broken resurrected')" = 1 ] &&
		ok "5: f$id deleted and made anew, its l$id's unlink covered, l$id back: resurrected for verify and the reader" ||
		bad "5: before: verify exit $v0; with l$id back: verify exit $vrc ($(verdict "$work/5.v.json" "$id")), reader exit $rrc ($(verdict "$work/5.r.json" "$id"))"
else
	bad "5: no id deleted, made anew and its unlink covered in the run"
fi

# 6. Directories made, none removed, the log's tail lost.
profile "mkdir_weight=2
syncfs_weight=1
write_weight=1" >"$work/p6.ffsb"
run_log 6
cut_tail 6
check 6a "$work/p6.ffsb" "$work/6.log" "$loc"
mid=$(jq -r '.directories[] | select(.[1] == "meta" and .[3] == "kept") | .[2]' "$work/6a.v.json" | head -1)
if [ $vrc = 0 ] && [ -n "$mid" ] && rmdir "$loc/fsmix.fs0/meta/m$mid"; then
	check 6 "$work/p6.ffsb" "$work/6cut.log" "$loc"
	[ $((flags & 32)) = 32 ] && [ $vrc = 1 ] && [ $rrc = 1 ] &&
		[ "$(dverdict "$work/6.v.json" "$mid")" = "broken missing" ] &&
		[ "$(dverdict "$work/6.r.json" "$mid")" = "broken missing" ] &&
		ok "6: directories made, none removed, tail lost: meta/m$mid removed is broken (missing) for verify and the reader (flags $flags)" ||
		bad "6: flags $flags, verify exit $vrc ($(dverdict "$work/6.v.json" "$mid")), reader exit $rrc ($(dverdict "$work/6.r.json" "$mid"))"
else
	bad "6: verify of the run exit $vrc, no directory made with a promise (${mid:-none})"
fi
summary
