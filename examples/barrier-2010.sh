#!/usr/bin/env bash
# barrier-2010.sh - the 2010 ext4 barrier experiment (seed 001), scaled to about a minute:
# profiles/ext4-barrier-2010.ffsb, verbatim, on a fresh loop-mounted ext4 (mkfs before every
# run, as the seed did) with barrier=1 and with barrier=0, RUNS runs each; prints flushes
# (the seed's blktrace barriers) and transactions/sec per run, then AVG and STDDEV.
#   sudo bash examples/barrier-2010.sh            # RUNS=3 TIME=5 THREADS=16 FILES=2000
# OPS=N: each thread does N operations instead of running TIME seconds (the tests use it, so
# that the flushes counted do not depend on the disk's speed).
. "$(dirname "$0")/seed-lib.bash"
runs=${RUNS:-3} time=${TIME:-5} threads=${THREADS:-16} files=${FILES:-2000} ops=${OPS:-}
length=(--time "$time")
[ -n "$ops" ] && length=(--time 0 --set threadgroup0.num_ops="$ops")
prof=$profiles/ext4-barrier-2010.ffsb
echo "ext4-barrier-2010.ffsb: ${length[*]} --threads $threads num_files=$files num_dirs=100, 4 GB loop ext4"
for opt in barrier=1 barrier=0; do
	echo
	echo "$opt"
	printf '%-6s %10s %18s\n' run flushes transactions/sec
	f=() t=()
	for ((i = 1; i <= runs; i++)); do
		fresh_ext4 barrier 4096 "$opt"
		d=$mnt
		"$fsmix" run "$prof" --location "$d" "${length[@]}" --threads "$threads" \
			--set filesystem0.num_files="$files" --set filesystem0.num_dirs=100 \
			>"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
		f+=("$(flushes "$work/run.out")") t+=("$(tps "$work/run.out")")
		printf '%-6s %10s %18s\n' "$i" "${f[-1]}" "${t[-1]}"
		drop_ext4 "$d"
	done
	read -r fa fs < <(avg_sd "${f[@]}")
	read -r ta ts < <(avg_sd "${t[@]}")
	printf '%-6s %10.1f %18.2f\n' AVG "$fa" "$ta"
	printf '%-6s %10.1f %18.2f\n' STDDEV "$fs" "$ts"
done
