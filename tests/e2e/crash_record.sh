#!/usr/bin/env bash
# fsmix-powercut --record and serve (docs/durability.md, "Record and replay"; issue 27):
#   1. --record refuses a file that exists (left as it was), one inside MOUNTPOINT, and one on
#      the filesystem a recording disk serves: exit 2, nothing mounted.
#   2. A short fsmix run on ext4 (barrier=1) on a recording fsmix-powercut disk; unmounted
#      cleanly, so the backing image is every write applied: state "last" + all, rebuilt from
#      the record over zeroes, is that image byte for byte.
#   3. State K + none (what flush K made durable) at several K, served over FUSE copy-on-write
#      and attached to a loop device: it mounts (journal replay, kept in memory), unmounts,
#      and e2fsck -fn finds it clean; the record and the base are untouched.
#   4. Same inputs, same bytes: a random subset with a torn last write, materialized twice
#      and served once, three identical images; another seed gives another; switched to
#      through the control file of a served state, the attached loop device reads the same.
#   5. A record that began on an existing image (not made by --size): serve needs --base; with
#      a copy of the image as it was, the last state is the final image.
#   6. Bad input: a truncated record, a corrupt byte (data, entry head, header), an empty file,
#      a state past the last flush, a prefix longer than the writes, --torn with none applied,
#      --materialize onto an existing file, a base of the wrong size: exit 2 with a message.
# Needs root, /dev/fuse, loop devices and fsmix-powercut; skipped with a message otherwise.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "record and serve: $pc_why"
	summary
fi
trap 'pc_cleanup; cleanup' EXIT
P=$pc_powercut

# serve_fuse DIR ARGS..: serve a state at DIR (foreground daemon, recorded for cleanup).
serve_fuse() {
	local dir=$1 i
	shift
	mkdir -p "$dir"
	"$P" serve -f "$@" "$dir" 2>"$dir.log" &
	pc_pids+=($!)
	for ((i = 0; i < 100; i++)); do
		[ -e "$dir/disk.img" ] && mountpoint -q "$dir" && break
		sleep 0.1
	done
	mountpoint -q "$dir" && pc_fuses+=("$dir")
}

unserve() {
	fusermount3 -u "$1" 2>/dev/null && _pc_forget pc_fuses "$1"
}

# 1. Refusals.
r1=$pc_dir/refuse
mkdir -p "$r1/m"
echo "someone's file" >"$r1/exists"
"$P" --size 16M --record "$r1/exists" "$r1/b.img" "$r1/m" 2>"$r1/e1"
rc=$?
[ $rc = 2 ] && ! mountpoint -q "$r1/m" && [ "$(cat "$r1/exists")" = "someone's file" ] &&
	[ ! -e "$r1/b.img" ] && grep -q "exists: a record is never written over" "$r1/e1" &&
	ok "--record onto an existing file: exit 2, the file untouched, nothing mounted or left" ||
	{ bad "--record onto an existing file: exit $rc"; sed 's/^/     /' "$r1/e1"; }
mountpoint -q "$r1/m" && fusermount3 -u "$r1/m"
"$P" --size 16M --record "$r1/m/rec" "$r1/b.img" "$r1/m" 2>"$r1/e2"
rc=$?
[ $rc = 2 ] && ! mountpoint -q "$r1/m" && grep -q "inside MOUNTPOINT" "$r1/e2" &&
	ok "--record inside MOUNTPOINT: exit 2" || { bad "--record inside MOUNTPOINT: exit $rc"; sed 's/^/     /' "$r1/e2"; }
mountpoint -q "$r1/m" && fusermount3 -u "$r1/m"

# 2. Record a short run.
rec=$work/run.rec
crash_profile 3 >"$work/r.ffsb"
if ! pc_disk rec 64 --seed 3 --destage-delay 300 --record "$rec" || ! pc_mkfs barrier=1; then
	bad "cannot set up a recording disk"
	summary
fi
# the states before mkfs.ext4 had finished hold no filesystem yet: the states checked below
# come after the flushes it and the mount sent
made=$(awk '$1 == "flushes" { print $2 }' "$pc_fuse/stats")
"$P" --size 16M --record "$pc_mnt/rec" "$r1/b.img" "$r1/m" 2>"$r1/e3"
rc=$?
[ $rc = 2 ] && ! mountpoint -q "$r1/m" && grep -q "on a loop device over a disk of fsmix-powercut" "$r1/e3" &&
	ok "--record on the filesystem a recording disk serves: exit 2" ||
	{ bad "--record on the served filesystem: exit $rc"; sed 's/^/     /' "$r1/e3"; }
mountpoint -q "$r1/m" && fusermount3 -u "$r1/m"
timeout 120 "$bin" run "$work/r.ffsb" --location "$pc_mnt" --seed 4 >"$work/run.out" 2>&1 ||
	{ bad "fsmix run on the recording disk failed"; tail -5 "$work/run.out"; }
pc_detach
"$P" inspect --states "$rec" >"$work/inspect" 2>&1 || { bad "inspect fails on the record"; cat "$work/inspect"; }
flushes=$(awk '$1 == "flushes" { print $2 }' "$work/inspect")
wbytes=$(awk '$1 == "write_bytes" { print $2 }' "$work/inspect")
rbytes=$(stat -c %s "$rec")
[ "${flushes:-0}" -gt 10 ] && [ "$(pc_stat record_failed)" = 0 ] &&
	ok "recorded: $flushes flushes, $wbytes bytes written, a record of $rbytes bytes" ||
	bad "the record: flushes '$flushes', record_failed '$(pc_stat record_failed)'"
"$P" serve --record "$rec" --state last --subset all --materialize "$work/last.img" 2>"$work/last.err" &&
	cmp -s "$work/last.img" "$pc_img" &&
	ok "state last + all is the final image byte for byte" ||
	{ bad "state last + all differs from the final image"; cat "$work/last.err"; }

# 3. State K + none mounts and checks clean, at several K.
sum_before=$(md5sum <"$rec")
clean=0 tried=0
for k in $made $(((made + flushes) / 3)) $(((made + flushes) / 2)) $((flushes - 1)); do
	tried=$((tried + 1))
	d=$pc_dir/state$k
	serve_fuse "$d" --record "$rec" --state $k --subset none || { bad "state $k: not served"; continue; }
	dev=$(losetup -f --show --direct-io=on "$d/disk.img") || { bad "state $k: losetup"; unserve "$d"; continue; }
	pc_loops+=("$dev")
	mkdir -p "$d.mnt"
	if mount -t ext4 "$dev" "$d.mnt" 2>"$d.mount"; then
		umount "$d.mnt"
		e2fsck -fn "$dev" >"$d.fsck" 2>&1 && clean=$((clean + 1)) ||
			{ bad "state $k + none: e2fsck -fn after the replay: exit $?"; grep '? no$' "$d.fsck" | head -3; }
	else
		bad "state $k + none does not mount: $(tail -1 "$d.mount")"
	fi
	losetup -d "$dev" && _pc_forget pc_loops "$dev"
	unserve "$d"
done
[ $clean = $tried ] && ok "states K + none at $tried flush points from $made (mkfs done) to $((flushes - 1)) of $flushes: each mounts, e2fsck -fn finds it clean"
[ "$(md5sum <"$rec")" = "$sum_before" ] && ok "serving and mounting states leaves the record as it was" ||
	bad "the record changed while states were served"

# 4. Determinism.
# the first state from the middle on with 4 writes or more after its flush (inspect --states:
# "state K at T s: W writes (B bytes) after it")
k=$(awk -v from=$((flushes / 2)) '$1 == "state" && $2 >= from && $6 >= 4 { print $2; exit }' "$work/inspect")
k=${k:-$((flushes / 2))}
spec=(--record "$rec" --state $k --subset random:7 --torn 9)
"$P" serve "${spec[@]}" --materialize "$work/d1.img" 2>"$work/d1.err"
"$P" serve "${spec[@]}" --materialize "$work/d2.img" 2>/dev/null
"$P" serve --record "$rec" --state $k --subset random:8 --torn 9 --materialize "$work/d3.img" 2>/dev/null
serve_fuse "$pc_dir/det" "${spec[@]}"
cmp -s "$work/d1.img" "$work/d2.img" && cmp -s "$work/d1.img" "$pc_dir/det/disk.img" &&
	ok "state $k random:7 --torn 9: materialized twice and served, byte-identical ($(cat "$work/d1.err" | sed 's/.*: //'))" ||
	{ bad "state $k random:7 --torn 9 differs between runs"; cat "$work/d1.err"; }
unserve "$pc_dir/det"
cmp -s "$work/d1.img" "$work/d3.img" && echo "note another seed gave the same state (few writes after flush $k)" ||
	ok "another seed gives another state"

# 4b. Another state through the control file, the loop device attached all along (what a
# driver does state after state): it then reads as that state materialized; a bad line (a
# number with a tail: torn 9x, lose 1x) and a state the record lacks are refused (EINVAL) and
# the state stays.
sw=$pc_dir/switch
if serve_fuse "$sw" --record "$rec" --state 0 && dev=$(losetup -f --show --direct-io=on "$sw/disk.img"); then
	pc_loops+=("$dev")
	echo "state $k random:7 torn 9" >"$sw/control" &&
		dd if="$dev" of="$work/sw.img" bs=1M iflag=direct status=none && cmp -s "$work/sw.img" "$work/d1.img" &&
		ok "state $k random:7 torn 9 through control: the attached loop device reads as the materialized state" ||
		bad "the state switched through control differs from the materialized one"
	! echo "state $((flushes + 1))" 2>/dev/null >"$sw/control" && ! echo "nonsense" 2>/dev/null >"$sw/control" &&
		! echo "state $k random:7 torn 9x" 2>/dev/null >"$sw/control" &&
		! echo "state $k lose 1x" 2>/dev/null >"$sw/control" &&
		dd if="$dev" of="$work/sw.img" bs=1M iflag=direct status=none && cmp -s "$work/sw.img" "$work/d1.img" &&
		ok "control refuses a state the record lacks and a bad line; the state served stays" ||
		bad "control accepted a bad line, or the state changed"
	losetup -d "$dev" && _pc_forget pc_loops "$dev"
	unserve "$sw"
else
	bad "cannot serve a state and attach it for the switch"
fi
rm -f "$work"/d?.img "$work/last.img" "$work/sw.img"

# 5. A record that began on an existing image.
e=$pc_dir/exist
mkdir -p "$e.fuse" "$e.mnt"
truncate -s 32M "$e.img" && mkfs.ext4 -q -F "$e.img" && cp "$e.img" "$e.base"
"$P" -f --destage-delay off --record "$e.rec" "$e.img" "$e.fuse" 2>"$e.log" &
pc_pids+=($!)
for ((i = 0; i < 100; i++)); do [ -e "$e.fuse/disk.img" ] && break; sleep 0.1; done
pc_fuses+=("$e.fuse")
dev=$(losetup -f --show --direct-io=on "$e.fuse/disk.img") && pc_loops+=("$dev") &&
	mount -o barrier=1 "$dev" "$e.mnt" && pc_mounts+=("$e.mnt") &&
	head -c 200000 /dev/urandom >"$e.mnt/f" && sync && umount "$e.mnt" && _pc_forget pc_mounts "$e.mnt" &&
	losetup -d "$dev" && _pc_forget pc_loops "$dev" || bad "cannot write to the existing image"
unserve "$e.fuse"
wait "${pc_pids[-1]}"
"$P" serve --record "$e.rec" --state last --subset all --materialize "$e.x" 2>"$e.err1"
rc=$?
[ $rc = 2 ] && grep -q "give --base IMAGE" "$e.err1" && ok "a record over an existing image: serve without --base: exit 2" ||
	{ bad "serve without --base: exit $rc"; cat "$e.err1"; }
rm -f "$e.x"
"$P" serve --record "$e.rec" --base "$e.base" --state last --subset all --materialize "$e.x" 2>/dev/null &&
	cmp -s "$e.x" "$e.img" && ok "... with --base, the last state is the final image byte for byte" ||
	bad "the last state over --base differs from the final image"

# 6. Bad input.
bad_input() { # NAME EXPECTED-MESSAGE ARGS..
	local name=$1 msg=$2 rc
	shift 2
	"$P" "$@" >"$work/bad.out" 2>"$work/bad.err"
	rc=$?
	[ $rc = 2 ] && grep -q -- "$msg" "$work/bad.err" && ok "$name: exit 2: $(head -1 "$work/bad.err")" ||
		{ bad "$name: exit $rc, expected 2 and '$msg'"; sed 's/^/     /' "$work/bad.err"; }
}
head -c $((rbytes - 100)) "$rec" >"$work/trunc.rec"
bad_input "a truncated record" "truncated at byte" serve --record "$work/trunc.rec" --state 0 --materialize "$work/x"
head -c 64 "$rec" >"$work/hdr.rec"
bad_input "a record of its header alone" "truncated at byte 64" inspect "$work/hdr.rec"
cp "$rec" "$work/data.rec" && printf '\x5a' | dd of="$work/data.rec" bs=1 seek=$((rbytes / 2)) conv=notrunc status=none
bad_input "a corrupt byte mid-record" "corrupt" serve --record "$work/data.rec" --state 0 --materialize "$work/x"
cp "$rec" "$work/head.rec" && printf '\x09' | dd of="$work/head.rec" bs=1 seek=64 conv=notrunc status=none
bad_input "a corrupt entry head" "corrupt entry 0 at byte 64" inspect "$work/head.rec"
cp "$rec" "$work/hdr2.rec" && printf '\x02' | dd of="$work/hdr2.rec" bs=1 seek=8 conv=notrunc status=none
bad_input "a changed header (version)" "corrupt header" inspect "$work/hdr2.rec"
: >"$work/empty.rec"
bad_input "an empty file" "not a record" serve --record "$work/empty.rec" --state 0 --materialize "$work/x"
bad_input "a state past the last flush" "states 0 to $flushes" serve --record "$rec" --state $((flushes + 1)) --materialize "$work/x"
bad_input "a prefix longer than the writes" "asks for more writes" serve --record "$rec" --state last --subset prefix:999999 --materialize "$work/x"
bad_input "--torn with no write applied" "needs a write to tear" serve --record "$rec" --state 1 --torn 3 --materialize "$work/x"
bad_input "--subset of no kind" "bad value" serve --record "$rec" --state 1 --subset some --materialize "$work/x"
echo "mine" >"$work/taken.img"
bad_input "--materialize onto an existing file" "never written over" serve --record "$rec" --state 1 --materialize "$work/taken.img"
[ "$(cat "$work/taken.img")" = mine ] && ok "... and the existing file is untouched" || bad "--materialize overwrote an existing file"
bad_input "a base of the wrong size" "not a file of the disk's size" serve --record "$rec" --base "$work/taken.img" --state 1 --materialize "$work/x"
[ ! -e "$work/x" ] && ok "no state image left by the refused commands" || bad "a refused command left $work/x"

summary
