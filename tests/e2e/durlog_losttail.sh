#!/usr/bin/env bash
# A lost tail of the durability log invents no broken promise (docs/output.md, "fsmix verify";
# docs/durability.md, "A real power cut"): a clean run (deletes, creates, rewrites, appends),
# then fsmix verify against the tree it left with prefixes of its log cut at record boundaries
# (every fifth, and the last few): each is exactly "the tail was lost" (the tree is the run's own), so no prefix may
# report a broken promise (exit 0; what a later delete or create may explain is counted apart,
# "lost tail"); a prefix cut before its setup records are whole is a bad log (exit 2). Then a block of foreign bytes in a file is still broken with the tail lost, and
# a promised file removed behind fsmix's back is broken (missing) with the complete log, while
# with the tail lost it is counted apart. Fails on main before the fix (prefixes reported
# missing, short, stale, torn and wrong files that the run had deleted or rewritten).
set -u
. "$(dirname "$0")/lib.bash"

HDR=2120 REC=80 # durlog.h: DURLOG_HEADER_LEN, DURLOG_REC_LEN
loc=$(shmdir)
cat >"$work/p.ffsb" <<PROFILE
content=random
[filesystem0]
	location=$loc
	num_files=16
	num_dirs=2
	min_filesize=3000
	max_filesize=24000
[end0]
[threadgroup0]
	num_threads=2
	num_ops=150
	create_fsync_weight=3
	write_fsync_weight=3
	append_fdatasync_weight=2
	writeall_fsync_weight=2
	delete_weight=2
	read_weight=1
	write_size=3001
	write_blocksize=999
	read_size=4096
	read_blocksize=4096
[end0]
PROFILE
# jq_ for the checks made once; the loop over prefixes below uses jq (one python start per prefix
# was most of this test's time)
jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
verify_() { timeout 60 "$bin" verify "$work/p.ffsb" --durability-log "$1" --json "$work/v.json" >"$work/v.out" 2>&1; }

timeout 120 "$bin" run "$work/p.ffsb" --durability-log "$work/d.log" >"$work/run.out" 2>&1
rc=$?
size=$(stat -c %s "$work/d.log" 2>/dev/null || echo 0)
n=$(((size - HDR) / REC))
if [ $rc = 0 ] && [ $(((size - HDR) % REC)) = 0 ] && [ "$n" -gt 100 ]; then
	ok "a clean run with --durability-log: $n records"
else
	bad "run: exit $rc, log of $size bytes"
	tail -3 "$work/run.out"
	summary
fi
verify_ "$work/d.log"
if [ $? = 0 ] && [ "$(jq_ "$work/v.json" 'd["lost_tail"] + d["broken"]')" = 0 ]; then
	ok "the complete log: every promise kept, nothing counted as lost tail"
else
	bad "verify of the complete log"
	head -12 "$work/v.out"
fi

# 1. every prefix: no broken promise. One that ends before the setup records are whole (the
# main thread's, worker 0xffffffff, before any worker's) holds no promise: a bad log, exit 2.
setup=$(python3 -c 'import sys; b = open(sys.argv[1], "rb").read()[2120:]
print(next(i for i in range(0, len(b), 80) if b[i + 4:i + 8] != b"\xff" * 4) // 80)' "$work/d.log")
failed=() lost=0
checked=0
# Every fifth prefix; every fifteenth under sanitizers, whose verify runs the same code on each
# (a third of the 150 verify starts, each some 0.3 s of CPU there): the default build checks
# them all.
step=5
[ -n "${FSMIX_SANITIZERS:-}" ] && step=15
for ((k = 0; k < n; k += (k < n - 4 ? step : 1))); do
	checked=$((checked + 1))
	head -c $((HDR + REC * k)) "$work/d.log" >"$work/pre.log"
	verify_ "$work/pre.log"
	rc=$?
	if [ $k -lt "$setup" ]; then
		[ $rc = 2 ] && grep -qE "is a bad log: (it holds no record after its header|its setup records end before the syncfs)" "$work/v.out" ||
			failed+=("$k:exit-$rc-not-a-bad-log")
	elif [ $rc != 0 ]; then
		[ ${#failed[@]} = 0 ] && cp "$work/v.out" "$work/first.out"
		failed+=("$k:$(jq -r '[.broken_by_kind | to_entries[] | select(.value > 0) | .key] | join(",")' "$work/v.json" 2>/dev/null)")
	fi
	[ "$(jq '.lost_tail > 0' "$work/v.json" 2>/dev/null)" = true ] && lost=$((lost + 1))
done
if [ ${#failed[@]} = 0 ] && [ $lost -gt 0 ]; then
	ok "$checked prefixes of the log's $n records (a lost tail): no broken promise ($lost with findings counted as lost tail)"
else
	bad "${#failed[@]} of $checked prefixes report broken promises (k:kinds): ${failed[*]:0:12}"
	head -20 "$work/first.out" 2>/dev/null
fi

# 2. the tail lost (the log without its end record): foreign bytes are still broken
head -c $((HDR + REC * (n - 1))) "$work/d.log" >"$work/noend.log"
victim=$(find "$loc/fsmix.fs0/data" -type f -name 'f*' -size +8k | sort | head -1)
other=$(find "$loc/fsmix.fs0/data" -type f -name 'f*' -size +8k | sort | sed -n 2p)
if [ -n "$victim" ] && [ -n "$other" ]; then
	dd if="$other" of="$victim" bs=4096 skip=1 seek=1 count=1 conv=notrunc status=none
	verify_ "$work/noend.log"
	rc=$?
	if [ $rc = 1 ] && grep -q "wrong: $victim at offset" "$work/v.out" &&
		[ "$(jq_ "$work/v.json" 'd["broken_by_kind"]["wrong"]')" = 1 ]; then
		ok "tail lost: another file's block in $(basename "$victim") is still a broken promise (wrong)"
	else
		bad "tail lost, foreign block: exit $rc"
		head -12 "$work/v.out"
	fi
	# 3. a promised file removed: missing with the complete log; lost tail without its end
	rm -f "$victim"
	verify_ "$work/d.log"
	rc=$?
	verify_ "$work/noend.log"
	rc2=$?
	if [ $rc = 1 ] && [ $rc2 = 0 ] &&
		[ "$(jq_ "$work/v.json" 'd["lost_tail_by_kind"]["missing"]')" = 1 ] &&
		grep -q "lost tail: .* not counted as broken" "$work/v.out"; then
		ok "a promised file removed: missing with the complete log (exit 1); counted as lost tail without the end record"
	else
		bad "removed file: complete log exit $rc, without end exit $rc2"
		head -12 "$work/v.out"
	fi
else
	bad "no two files of 8 KiB in the tree"
fi
summary
