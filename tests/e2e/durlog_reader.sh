#!/usr/bin/env bash
# A second reader of the durability log (tests/tools/durlog_reader.py, written from
# docs/output.md and docs/durability.md alone) must agree with `fsmix verify` file by file
# (issue 26): verify's JSON lists every checked file's verdict ("files"), the reader prints its
# own, and every file either lists is compared (verdict and kind).
# The mix adds mkdir, rmdir, createdir and syncfs (which covers the directories) to
# profiles/crash-mix.ffsb, and the directories' verdicts ("directories") are compared too.
#   a. profiles/crash-mix.ffsb, 2 s on tmpfs, a run that ended: every file kept by both.
#   b. the same tree doctored: a promised file truncated, one with a zeroed block, one removed,
#      and a second name l<id> whose link a syncfs covered removed: both report exactly those
#      four broken (short, zeroed, missing, missing), the rest kept; and a directory of meta/
#      whose mkdir was covered removed: both report it missing.
#   Every run adds link, unlink, mkdir, rmdir, createdir and syncfs to the mix (second names
#   and directories: docs/durability.md).
#   c. a power cut (fsmix-powercut) under ext4 mounted barrier=0, the cut mid-run, remounted:
#      the verdicts agree file by file, broken or kept (three cuts, the last in content=random,
#      where a file verify finds broken by its payload alone is one the reader cannot see: agree).
#   d. a cut as the run starts, nothing destaged: the tree lost; verify counts every promised
#      file missing (exit 1) and the reader agrees.
set -u
. "$(dirname "$0")/lib.bash"
reader=$src/tests/tools/durlog_reader.py
command -v python3 >/dev/null || { skip_env tool "the reader needs python3"; summary; }

# agree NAME VERIFY_JSON READER_JSON [random]: compare the verdicts (kept, broken, lost tail) file
# by file; prints the counts, then one line per disagreement and per file broken by both with
# another kind (the reader sees less of a block: its kind may differ). Status 0 when the verdicts
# agree. With "random" (a run in content=random), a file verify finds broken by its payload
# (wrong, torn, stale) and the reader keeps is listed apart, not a disagreement: the reader does
# not recompute the random payload stream (its docstring: "a torn or stale random payload under a
# good header is not seen"), so only verify can see it.
agree() {
	python3 - "$2" "$3" "${4:-}" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["files"]
r = json.load(open(sys.argv[2]))["files"]
vf = {(a, b): (c, d) for a, b, c, d in v}
rf = {(a, b): (c, d) for a, b, c, d in r if c != "not_promised"}
# the directories: keyed (fs, "dir", parent, id) beside the files' (fs, id)
vd = json.load(open(sys.argv[1])).get("directories")
rd = json.load(open(sys.argv[2])).get("directories")
if vd is None or rd is None:
    print("no directories in %s" % ("verify's JSON" if vd is None else "the reader's"))
    sys.exit(1)
vf.update({(a, "dir", b, c): (d, e) for a, b, c, d, e in vd})
rf.update({(a, "dir", b, c): (d, e) for a, b, c, d, e in rd if d != "not_promised"})
keys = sorted(set(vf) | set(rf), key=str)
verdict = lambda m, k: m.get(k, ("absent", None))[0]
bad = [k for k in keys if verdict(vf, k) != verdict(rf, k)]
payload = [k for k in bad if sys.argv[3] == "random" and verdict(vf, k) == "broken" and
           vf[k][1] in ("wrong", "torn", "stale") and verdict(rf, k) == "kept"]
bad = [k for k in bad if k not in payload]
kinds = [k for k in keys if k not in bad and k not in payload and vf.get(k) != rf.get(k)]
broken = sum(1 for k in keys if verdict(vf, k) == "broken")
ndirs = sum(1 for k in keys if len(k) == 4)
print("compared %d (%d directories) agree %d disagree %d (broken %d; of the agreeing, %d of "
      "another kind)" % (len(keys), ndirs, len(keys) - len(bad) - len(payload), len(bad), broken,
                         len(kinds)))
if payload:
    print("  random payload only verify reads: %d broken files the reader keeps" % len(payload))
for k in bad + payload + kinds:
    print("  %s: verify %s, reader %s" % (k, vf.get(k), rf.get(k)))
sys.exit(1 if bad else 0)
EOF
}

# broken_set JSON: the "fsN fID kind" of every broken file, sorted.
broken_set() {
	python3 -c 'import json, sys
for a, b, c, d in json.load(open(sys.argv[1]))["files"]:
    if c == "broken": print("fs%d f%d %s" % (a, b, d))' "$1" | sort
}

# profiles/crash-mix.ffsb as shipped, truncate, fallocate, punch_hole and zero_range included
# (the reader once took an O_DSYNC write's new length, which a zero range had set, for its
# promise: 1 file in about 120 after a barrier=0 cut disagreed, the reader wrong), plus link,
# unlink, mkdir, rmdir, createdir and syncfs; on tmpfs without zero_range, which tmpfs does not
# have (the op would fail the run)
mix=(--set threadgroup0.mkdir_weight=2 --set threadgroup0.rmdir_weight=1
	--set threadgroup0.createdir_weight=1 --set threadgroup0.syncfs_weight=1
	--set threadgroup0.link_weight=2 --set threadgroup0.unlink_weight=1)
shm=("${mix[@]}" --set threadgroup0.zero_range_weight=0)

# a. A run that ended: everything kept by both.
loc=$(shmdir)
log=$work/a.durlog
"$bin" run "$src/profiles/crash-mix.ffsb" --location "$loc" --set time=2 --seed 7 "${shm[@]}" \
	--durability-log "$log" >"$work/a.run" 2>&1 || { bad "a: the run failed"; tail -3 "$work/a.run"; }
"$bin" verify "$src/profiles/crash-mix.ffsb" --location "$loc" --durability-log "$log" "${shm[@]}" \
	--json "$work/a.verify.json" >"$work/a.verify" 2>&1
vrc=$?
python3 "$reader" --durability-log "$log" --location "$loc" --json >"$work/a.reader.json"
rrc=$?
res=$(agree a "$work/a.verify.json" "$work/a.reader.json")
arc=$?
[ $vrc = 0 ] && [ $rrc = 0 ] && [ $arc = 0 ] && [ "$(jq '.files | length' "$work/a.verify.json")" -gt 50 ] &&
	[ "$(jq '.directories | length' "$work/a.verify.json")" -gt 0 ] &&
	ok "a: a run that ended: verify and the reader keep every file: $(head -1 <<<"$res")" ||
	{ bad "a: verify exit $vrc, reader exit $rrc: $res"; tail -3 "$work/a.verify"; }

# b. The tree doctored: three files of the tree as built that are still there and kept.
pick=$(jq -r '.files[] | select(.[2] == "kept" and .[1] < 60) | .[1]' "$work/a.verify.json" |
	while read -r id; do
		p=$(find "$loc/fsmix.fs0/data" -name "f$id" -type f -size +2k | head -1)
		[ -n "$p" ] && echo "$id $p"
	done | head -3)
# and a second name whose last change is its link, covered by a later syncfs (kind 9), still
# there, of a file none of the three
ids3=$(awk '{print $1}' <<<"$pick" | tr '\n' ' ')
lpick=$(python3 - "$log" "$loc/fsmix.fs0/data" $ids3 <<'EOF'
import os, struct, sys
d = open(sys.argv[1], 'rb').read()
recs = sorted((struct.unpack_from('<Q', d, o + 24)[0], struct.unpack_from('<Q', d, o + 16)[0], d[o],
               struct.unpack_from('<I', d, o + 32)[0], struct.unpack_from('<I', d, o + 36)[0])
              for o in range(2120, len(d) - 79, 80))
last = {}
for t1, t0, k, f, dr in recs:
    if k in (6, 7, 16, 17):
        last[f] = (k, dr, t1)
    if k == 9:
        last = {f: v + (True,) if v[0] == 16 and len(v) == 3 and v[2] < t0 else v
                for f, v in last.items()}
for f, v in sorted(last.items()):
    if v[0] == 16 and len(v) == 4 and str(f) not in sys.argv[3:]:
        p = os.path.join(sys.argv[2], 'l%u' % f if v[1] == 0xffffffff else 'd%03u/l%u' % (v[1], f))
        if os.path.exists(p):
            print(f, p)
            break
EOF
)
if [ "$(wc -l <<<"$pick")" = 3 ] && [ -n "$lpick" ]; then
	read -r id4 p4 <<<"$lpick"
	rm "$p4"
	read -r id1 p1 <<<"$(sed -n 1p <<<"$pick")"
	read -r id2 p2 <<<"$(sed -n 2p <<<"$pick")"
	read -r id3 p3 <<<"$(sed -n 3p <<<"$pick")"
	truncate -s 1000 "$p1"
	dd if=/dev/zero of="$p2" bs=512 seek=2 count=1 conv=notrunc status=none
	rm "$p3"
	mdir=$(jq -r '.directories[] | select(.[1] == "meta" and .[3] == "kept") | .[2]' "$work/a.verify.json" |
		while read -r id; do [ -d "$loc/fsmix.fs0/meta/m$id" ] && echo "$id"; done | head -1)
	[ -n "$mdir" ] && rmdir "$loc/fsmix.fs0/meta/m$mdir"
	"$bin" verify "$src/profiles/crash-mix.ffsb" --location "$loc" --durability-log "$log" "${shm[@]}" \
		--json "$work/b.verify.json" >"$work/b.verify" 2>&1
	vrc=$?
	python3 "$reader" --durability-log "$log" --location "$loc" --json >"$work/b.reader.json"
	rrc=$?
	res=$(agree b "$work/b.verify.json" "$work/b.reader.json")
	arc=$?
	want=$(printf 'fs0 f%s short\nfs0 f%s zeroed\nfs0 f%s missing\nfs0 f%s missing\n' "$id1" "$id2" "$id3" "$id4" | sort)
	[ $vrc = 1 ] && [ $rrc = 1 ] && [ $arc = 0 ] && [ "$(broken_set "$work/b.verify.json")" = "$want" ] &&
		[ "$(broken_set "$work/b.reader.json")" = "$want" ] && [ -n "$mdir" ] &&
		[ "$(jq -c '[.directories[] | select(.[3] == "broken")]' "$work/b.verify.json")" = "[[0,\"meta\",$mdir,\"broken\",\"missing\"]]" ] &&
		ok "b: a truncated, a zeroed and a removed file, a removed second name, a removed directory meta/m$mdir: both report exactly those broken: $(head -1 <<<"$res")" ||
		{ bad "b: verify exit $vrc, reader exit $rrc: $res"; echo "   want: $want" | tr '\n' ' '; echo;
			echo "   verify: $(broken_set "$work/b.verify.json" | tr '\n' ';')"; echo "   reader: $(broken_set "$work/b.reader.json" | tr '\n' ';')"; }
else
	bad "b: fewer than three files of the built tree and a covered second name to doctor: $pick / ${lpick:-none}"
fi

# c. A power cut with barrier=0 (ext4 on fsmix-powercut's disk): the verdicts agree.
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "c: a power cut under barrier=0: $pc_why"
	summary
fi
trap 'pc_cleanup; cleanup' EXIT
for seed in 21 22 23; do
	name=reader-cut-$seed log=$work/c$seed.durlog
	content=() # the default (header); the last cut in content=random, every payload byte checked
	mode=header
	[ $seed = 23 ] && content=(--set content=random) mode=random
	if ! pc_disk $name 128 --seed $seed --destage-delay 1000 || ! pc_mkfs barrier=0; then
		bad "c: cannot set up the disk"
		pc_cleanup
		continue
	fi
	sleep 1.5 # mkfs destaged: the cut takes what the run wrote, not the filesystem
	pc_run_cut "$src/profiles/crash-mix.ffsb" 1.5 "$log" --set time=4 --seed $seed "${mix[@]}" "${content[@]}"
	pc_detach
	if ! pc_attach; then
		skipped "c: seed $seed: the persisted image does not mount: $(tail -1 "$pc_dir/$name.mount.err")"
		pc_cleanup
		continue
	fi
	pc_verify "$src/profiles/crash-mix.ffsb" "$log" "${mix[@]}" "${content[@]}"
	python3 "$reader" --durability-log "$log" --location "$pc_mnt" ${pc_cut_at:+--cut-at "$pc_cut_at"} --json >"$pc_dir/$name.reader.json"
	rrc=$?
	if [ "$pc_verify_rc" = 2 ]; then
		skipped "c: seed $seed: verify exit 2 (nothing to check: $(tail -1 "$pc_dir/$name.verify"))"
	else
		res=$(agree c "$pc_dir/$name.verify.json" "$pc_dir/$name.reader.json" "$mode")
		[ $? = 0 ] && [ "$rrc" = "$pc_verify_rc" ] &&
			ok "c: seed $seed: barrier=0, cut 1.5 s in: verify (exit $pc_verify_rc, $pc_broken of $pc_checked promises broken) and the reader agree: $(head -1 <<<"$res")" ||
			{ bad "c: seed $seed: verify exit $pc_verify_rc, reader exit $rrc: $res"; }
		sed -n '2,$p' <<<"$res"
	fi
	pc_release
done

# d. The whole tree lost: the cut as the run phase starts, nothing destaged (delay 60 s), so the
# tree built and syncfs()ed under barrier=0 never reached the disk. The log's promises stand:
# verify counts every promised file missing (exit 1, not 2 "bad input"; fc73ac9 said exit 2,
# nothing verified) and the reader agrees file by file.
name=reader-lost log=$work/d.durlog
if pc_disk $name 128 --seed 24 --destage-delay 60000 && pc_mkfs barrier=0; then
	pc_run_cut "$src/profiles/crash-mix.ffsb" 0 "$log" --set time=4 --seed 24
	pc_detach
	if ! pc_attach; then
		skipped "d: the persisted image does not mount: $(tail -1 "$pc_dir/$name.mount.err")"
	elif [ -e "$pc_mnt/fsmix.fs0" ]; then
		skipped "d: the cut left the tree's directory on the disk (nothing to show)"
	else
		pc_verify "$src/profiles/crash-mix.ffsb" "$log"
		python3 "$reader" --durability-log "$log" --location "$pc_mnt" ${pc_cut_at:+--cut-at "$pc_cut_at"} --json >"$pc_dir/$name.reader.json"
		rrc=$?
		res=$(agree d "$pc_dir/$name.verify.json" "$pc_dir/$name.reader.json")
		arc=$?
		missing=$(jq -r '.broken_by_kind.missing // 0' "$pc_dir/$name.verify.json" 2>/dev/null)
		others=$(jq -r '[.broken_by_kind | to_entries[] | select(.key != "missing") | .value] | add // 0' \
			"$pc_dir/$name.verify.json" 2>/dev/null)
		[ "$pc_verify_rc" = 1 ] && [ "$rrc" = 1 ] && [ $arc = 0 ] && [ "${missing:-0}" -gt 50 ] &&
			[ "$others" = 0 ] && grep -q "fsmix.fs0 is missing): the crash lost it" "$pc_dir/$name.verify" &&
			ok "d: the tree lost by the cut: verify exit 1, $missing promised files missing, the reader agrees: $(head -1 <<<"$res")" ||
			{ bad "d: the tree lost: verify exit $pc_verify_rc (missing ${missing:-none}, other kinds ${others:-?}), reader exit $rrc: $res"
				head -3 "$pc_dir/$name.verify"; }
	fi
	pc_release
else
	bad "d: cannot set up the disk"
fi
summary
