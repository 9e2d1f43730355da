#!/usr/bin/env bash
# bench_verify.sh - what `fsmix verify` costs as its log grows (prints figures; asserts nothing;
# not in CI).
#
#   bash tests/bench/bench_verify.sh [BUILD_DIR] [--big]
#
# 1. Logs of N, 2N and 4N records: runs of BENCH_SECONDS (default "1 2 4") seconds of one thread
#    writing 4 KiB in 512-byte write() calls at random places, then fsync, into ONE 16 MiB file
#    on tmpfs, with --durability-log; then verify each, timed. Printed: records, verify seconds,
#    microseconds per record, and the growth per doubling of the log beyond linear ((t2/r2) /
#    (t1/r1): 1.0 is linear; issue 26's target: at most 1.2). fsmix fc73ac9 copied the file's
#    range list on every settled write: quadratic (logs of 1, 2 and 4 s runs took 8-37 s, 29-96 s
#    and more than 300 s). Each op is one generation (write_random=0: with write_random=1 every
#    block is one, and a few seconds pass 65,536 generations, which fc73ac9's content check
#    cannot tell apart: issue 26, item 2). Verify reads the 16 MiB file once: a fixed cost that
#    short logs show; tests/bench/bench_durmodel.c times the replay alone, up to millions of
#    records.
# 2. With --big: the scaled 2010 profile (2000 files, 100 dirs), 16 threads, BIG_SECONDS
#    (default 60) on /dev/shm with --durability-log, and its verify timed: it should take less
#    than the run did.
# The machine is shared and noisy: the per-record figures matter, not the seconds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
big=0
[ "${2:-}" = --big ] && big=1
[ "${1:-}" = --big ] && { big=1; build=$top/build; }
bin=$build/src/fsmix
[ -x "$bin" ] || { echo "no fsmix: $bin" >&2; exit 2; }
work=$(mktemp -d /dev/shm/fsmix-bench-verify.XXXXXX)
logdir=$(mktemp -d /tmp/fsmix-bench-verify.XXXXXX)
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$work" "$logdir"' EXIT

cat >"$work/one.ffsb" <<'EOF'
content=random
[filesystem0]
location=/unused
num_files=1
num_dirs=1
min_filesize=16MB
max_filesize=16MB
[end0]
[threadgroup0]
num_threads=1
write_fsync_weight=1
write_random=0
write_size=4KB
write_blocksize=512
[end0]
EOF

now() { date +%s.%N; }
printf '%-8s %10s %10s %12s %10s\n' seconds records verify_s us_per_rec growth
prev=
for s in ${BENCH_SECONDS:-1 2 4}; do
	loc=$work/loc$s
	mkdir -p "$loc"
	log=$logdir/one$s.durlog
	"$bin" run "$work/one.ffsb" --location "$loc" --time "$s" --durability-log "$log" \
		>"$work/run$s.out" 2>&1 || { echo "run of $s s failed" >&2; tail -3 "$work/run$s.out" >&2; exit 1; }
	t0=$(now)
	"$bin" verify "$work/one.ffsb" --location "$loc" --durability-log "$log" \
		--json "$work/v$s.json" >"$work/v$s.out" 2>&1
	rc=$?
	t1=$(now)
	[ $rc -eq 0 ] || echo "verify of the $s s log: exit $rc" >&2
	rec=$(jq -r .records "$work/v$s.json")
	secs=$(echo "$t1 - $t0" | bc -l)
	per=$(echo "$secs * 1000000 / $rec" | bc -l)
	growth=-
	[ -n "$prev" ] && growth=$(echo "$per / $prev" | bc -l)
	printf '%-8s %10s %10.3f %12.3f %10s\n' "$s" "$rec" "$secs" "$per" \
		"$([ "$growth" = - ] && echo - || printf '%.2fx' "$growth")"
	prev=$per
	rm -rf "$loc"
done

[ $big -eq 1 ] || exit 0
secs=${BIG_SECONDS:-60}
loc=$work/big
mkdir -p "$loc"
log=$logdir/big.durlog
t0=$(now)
"$bin" run "$top/profiles/ext4-barrier-2010.ffsb" --location "$loc" --time "$secs" --threads 16 \
	--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100 --set directio=0 --durability-log "$log" \
	>"$work/big.out" 2>&1 || { echo "the big run failed" >&2; tail -3 "$work/big.out" >&2; exit 1; }
t1=$(now)
"$bin" verify "$top/profiles/ext4-barrier-2010.ffsb" --location "$loc" \
	--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100 --set directio=0 --durability-log "$log" \
	--json "$work/big.json" >"$work/bigv.out" 2>&1
rc=$?
t2=$(now)
printf 'scaled 2010 profile, 16 threads, %s s: the run took %.1f s (with setup), %s records; verify %.1f s (exit %s), %.3f us/record\n' \
	"$secs" "$(echo "$t1 - $t0" | bc -l)" "$(jq -r .records "$work/big.json")" \
	"$(echo "$t2 - $t1" | bc -l)" "$rc" "$(echo "($t2 - $t1) * 1000000 / $(jq -r .records "$work/big.json")" | bc -l)"
