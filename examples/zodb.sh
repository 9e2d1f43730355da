#!/usr/bin/env bash
# zodb.sh - ZODB commit rates (seed 003): 10 000 transactions with no, one and two fsyncs each
# (profiles/zodb-fsync{0,1,2}.ffsb) on a fresh loop-mounted ext4, RUNS runs each; prints
# seconds and transactions/sec as the seed did, then AVG and STDDEV of txn/sec.
#   sudo bash examples/zodb.sh               # RUNS=3 TXNS=10000
. "$(dirname "$0")/seed-lib.bash"
runs=${RUNS:-3} txns=${TXNS:-10000}
names=("No fsyncs" "One fsync" "Two fsyncs")
for k in 0 1 2; do
	r=()
	for ((i = 1; i <= runs; i++)); do
		fresh_ext4 zodb 512 barrier=1
		"$fsmix" run "$profiles/zodb-fsync$k.ffsb" --location "$mnt" \
			--set threadgroup0.num_ops="$txns" >"$work/run.out" 2>"$work/run.err" ||
			{ cat "$work/run.err" >&2; exit 1; }
		r+=("$(opsps "$work/run.out")")
		printf '%-11s run %s: %s seconds, %s txn/sec\n' "${names[$k]}:" "$i" "$(took "$work/run.out")" "${r[-1]}"
		drop_ext4 "$mnt"
	done
	read -r m sd < <(avg_sd "${r[@]}")
	printf '%-11s AVG %.1f txn/sec, STDDEV %.1f\n' "${names[$k]}:" "$m" "$sd"
done
