#!/usr/bin/env bash
# The global key content (docs/output.md, "Content modes"): a real run (tree build, then writes,
# appends and whole rewrites with --verify) in each mode, then tests/tools/content_ratio reads
# the tree: zlib's compressed size (deflate level 6, per file) and the duplicate 4 KiB blocks.
#   random           >= 95 % (incompressible but for the headers), no duplicate block
#   header           <= 6 % (the payload repeats every 512 bytes), no duplicate block
#   fixed            <= 2 %, >= 99 % duplicate blocks (one pattern, no header; run without
#                    --verify, which it cannot pass)
#   zero             <= 5 % (a 24-byte header a 512-byte block), no duplicate block
#   compressible:50  50 +- 4 %; compressible:80  20 +- 4 %
#   dedupe:30        30 +- 4 % duplicate blocks; dedupe:0 none
# (tolerances: docs/output.md). Every mode's run checks its own reads (0 mismatches), and
# fsmix verify checks a durability log of a dedupe:30, a zero and a header run; the same profile and
# seed in a second tree gives the same compression (within 0.5 %: the bytes differ, the tree's
# own id is the content seed) and again 30 +- 4 % duplicates; a reused tree of another mode is
# rebuilt, not reused, and read back with verify, which finds a byte flipped in its zeros;
# --strict-ffsb refuses the key (exit 2); a bad value is exit 2 with its line. Fails on a
# binary without the key.
set -u
. "$(dirname "$0")/lib.bash"

ratio_tool=${FSMIX_TOOLS:-}/content_ratio
if [ ! -x "$ratio_tool" ]; then
	skip_env tool "tests/tools/content_ratio was not built (zlib1g-dev missing)"
	summary
fi
run_() { timeout 180 "$bin" "$@"; }
profile() { # LOCATION MODE [REUSE]
	printf 'seed=21\ncontent=%s\n' "$2"
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=96\n\tnum_dirs=2\n\treuse=%s\n' "$1" "${3:-0}"
	printf '\tmin_filesize=64k\n\tmax_filesize=192k\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=160\n\twrite_weight=2\n'
	printf '\tappend_weight=1\n\twriteall_weight=1\n\tread_weight=2\n\treadall_weight=1\n'
	printf '\twrite_size=20000\n\twrite_blocksize=4096\n\tread_size=8192\n'
	printf '\tread_blocksize=4096\n[end0]\n'
}
field() { # LINE NAME: the value after NAME in content_ratio's line
	awk -v n="$2" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }' <<<"$1"
}
within() { # VALUE LO HI
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'
}

# run_mode NAME MODE [noverify]: runs the profile in a fresh tmpfs location (with --verify, but
# for fixed, which has nothing to check); sets $line (the ratios).
run_mode() {
	local loc
	loc=$(shmdir)
	profile "$loc" "$2" >"$work/$1.ffsb"
	if [ "${3:-}" = noverify ]; then
		run_ run "$work/$1.ffsb" >"$work/$1.out" 2>&1
	else
		run_ run "$work/$1.ffsb" --verify >"$work/$1.out" 2>&1
	fi
	local rc=$?
	line=$("$ratio_tool" "$loc/fsmix.fs0/data")
	if [ $rc = 0 ] && [ "${3:-}" = noverify ]; then
		ok "content=$2: the run (nothing to check)"
	elif [ $rc = 0 ] && grep -q 'verify: 0 content mismatches' "$work/$1.out"; then
		ok "content=$2: the run checks its own reads (0 mismatches)"
	else
		bad "content=$2: run with --verify: exit $rc"
		grep -A3 -i 'error' "$work/$1.out" | head -6
	fi
	echo "     content=$2: $line"
}

expect() { # MODE NAME LO HI
	local v
	v=$(field "$line" "$2")
	if within "$v" "$3" "$4"; then
		ok "content=$1: $2 $v in [$3, $4]"
	else
		bad "content=$1: $2 '$v' not in [$3, $4]"
	fi
}

run_mode random random
expect random ratio 95 101
expect random dup_pct 0 0
run_mode header header
expect header ratio 0 6
expect header dup_pct 0 0
run_mode fixed fixed noverify
expect fixed ratio 0 2
expect fixed dup_pct 99 100
run_mode zero zero
expect zero ratio 0 5
expect zero dup_pct 0 0
run_mode c50 compressible:50
expect compressible:50 ratio 46 54
expect compressible:50 dup_pct 0 0
c50=$(field "$line" ratio)
run_mode c80 compressible:80
expect compressible:80 ratio 16 24
run_mode d30 dedupe:30
expect dedupe:30 dup_pct 26 34
d30=$(field "$line" dup_pct)
run_mode d0 dedupe:0
expect dedupe:0 dup_pct 0 0

# the same profile and seed in another tree: the same ratios
run_mode c50b compressible:50
c50b=$(field "$line" ratio)
if within "$c50b" "$(awk -v x="$c50" 'BEGIN { print x - 0.5 }')" "$(awk -v x="$c50" 'BEGIN { print x + 0.5 }')"; then
	ok "compressible:50 again at seed 21: $c50b % as $c50 %"
else
	bad "compressible:50 again at seed 21: $c50b % vs $c50 %"
fi
run_mode d30b dedupe:30
d30b=$(field "$line" dup_pct)
# (which blocks are duplicates follows the tree's own id, its content seed: the two trees differ
# by about a point, binomially; 3 400 blocks make the band 5 standard deviations wide)
if within "$d30b" 26 34; then
	ok "dedupe:30 again at seed 21: $d30b % (the first tree: $d30 %)"
else
	bad "dedupe:30 again at seed 21: $d30b % (the first tree: $d30 %)"
fi

# fsmix verify of a dedupe:30 run's durability log, and of a zero one
for m in dedupe:30 zero header; do
	loc=$(shmdir)
	profile "$loc" "$m" >"$work/dl.ffsb"
	run_ run "$work/dl.ffsb" --durability-log "$work/dl-$m.log" >"$work/dl-run.out" 2>&1
	rc=$?
	run_ verify "$work/dl.ffsb" --durability-log "$work/dl-$m.log" >"$work/dl-v.out" 2>&1
	rc2=$?
	if [ $rc = 0 ] && [ $rc2 = 0 ] && grep -q "every promise kept" "$work/dl-v.out"; then
		ok "content=$m: fsmix verify after the run: every promise kept"
	else
		bad "content=$m: run exit $rc, verify exit $rc2"
		head -8 "$work/dl-v.out"
	fi
	# the same log with the profile in another mode: refused
	profile "$loc" random >"$work/dl-other.ffsb"
	run_ verify "$work/dl-other.ffsb" --durability-log "$work/dl-$m.log" >"$work/dl-o.out" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q "content) differ from those of the run" "$work/dl-o.out"; then
		ok "content=$m: verify with a profile of another content mode is refused (exit 2)"
	else
		bad "content=$m: verify with content=random: exit $rc"
		head -4 "$work/dl-o.out"
	fi
done

# a reused tree is reused in its own mode only
loc=$(shmdir)
profile "$loc" zero 1 >"$work/r1.ffsb"
profile "$loc" compressible:50 1 >"$work/r2.ffsb"
run_ run "$work/r1.ffsb" --verify >"$work/r1.out" 2>&1
rc1=$?
run_ run "$work/r1.ffsb" --verify >"$work/r1b.out" 2>&1
rc1b=$?
run_ run "$work/r2.ffsb" --verify >"$work/r2.out" 2>&1
rc2=$?
line=$("$ratio_tool" "$loc/fsmix.fs0/data")
if [ $rc1 = 0 ] && [ $rc1b = 0 ] && [ $rc2 = 0 ] && grep -q reused "$work/r1b.out" &&
	! grep -q reused "$work/r2.out" && within "$(field "$line" ratio)" 46 54; then
	ok "reuse=1: a zero tree is reused by zero, rebuilt for compressible:50 ($(field "$line" ratio) %)"
else
	bad "reuse across modes: exits $rc1 $rc1b $rc2; $line"
	grep -i "reuse\|rebuil" "$work/r1b.out" "$work/r2.out" | head -4
fi

# verify=1 on that reused compressible:50 tree, read only: passes; then a byte flipped behind
# fsmix's back in the zeros of a block (word 50 of 64: compressible:50 keeps 32 random) is
# reported at its offset, torn (the block's header is good)
reader() { # LOCATION MODE
	printf 'seed=22\ncontent=%s\n' "$2"
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=96\n\tnum_dirs=2\n\treuse=1\n' "$1"
	printf '\tmin_filesize=64k\n\tmax_filesize=192k\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=2000\n\treadall_weight=1\n'
	printf '\tread_blocksize=65536\n[end0]\n'
}
reader "$loc" compressible:50 >"$work/rd.ffsb"
run_ run "$work/rd.ffsb" --verify --json "$work/rd0.json" >"$work/rd0.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q reused "$work/rd0.out" && grep -q 'verify: 0 content mismatches' "$work/rd0.out"; then
	ok "compressible:50: the reused tree reads back with verify (0 mismatches)"
else
	bad "compressible:50 reader: exit $rc"
	head -5 "$work/rd0.out"
fi
f=$(find "$loc/fsmix.fs0/data" -type f -name 'f*' -size +8k | sort | head -1)
at=$((512 * 5 + 8 * 50 + 3))
printf '\x5a' | dd of="$f" bs=1 seek=$at conv=notrunc status=none
run_ run "$work/rd.ffsb" --verify --json "$work/rd1.json" >"$work/rd1.out" 2>&1
rc=$?
got=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["errors"][0]; print(e["path"], e["verify"]["offset"], e["verify"]["verdict"])' "$work/rd1.json" 2>/dev/null)
if [ $rc = 1 ] && [ "$got" = "$f $at torn" ]; then
	ok "compressible:50: a byte flipped in a block's zeros is reported (offset $at, torn)"
else
	bad "compressible:50: flipped zero byte in $f at $at: exit $rc, '$got'"
	grep -A2 Errors "$work/rd1.out" | head -3
fi

# --strict-ffsb, a bad value
profile "$(shmdir)" zero >"$work/s.ffsb"
run_ check "$work/s.ffsb" --strict-ffsb >"$work/s.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "s.ffsb:2: .*content.*strict-ffsb" "$work/s.out"; then
	ok "--strict-ffsb refuses content (exit 2, at its line)"
else
	bad "--strict-ffsb with content: exit $rc"
	head -3 "$work/s.out"
fi
profile "$(shmdir)" compressible:150 >"$work/b.ffsb"
run_ check "$work/b.ffsb" >"$work/b.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "b.ffsb:2: .*content.*percentage 0..100" "$work/b.out"; then
	ok "content=compressible:150 is bad input (exit 2, at its line)"
else
	bad "content=compressible:150: exit $rc"
	head -3 "$work/b.out"
fi

summary
