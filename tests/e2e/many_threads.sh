#!/usr/bin/env bash
# 256 threads running every operation on a tiny tree, so that they contend on the same files,
# directories and pools; in the ThreadSanitizer build (and the others) no data race is reported
# and the run ends cleanly, by time and by SIGINT. The checks do not depend on speed: how many
# operations are done in the time does not matter.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
many=(run "$src/examples/every-op.ffsb" --location "$loc" --threads 256 --seed 256
	--set filesystem0.num_files=64 --set filesystem0.num_dirs=4 --set filesystem0.max_filesize=16KB)

# no_reports ERR: no sanitizer report in fsmix's stderr.
no_reports() { ! grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|runtime error:" "$1"; }

# Counted (40 operations a thread), not timed: what the tree grows to does not depend on how
# fast the machine is.
"$bin" "${many[@]}" --time 0 --set threadgroup0.num_ops=40 --interval 0.5 --json "$work/many.json" \
	>"$work/many.out" 2>"$work/many.err"
rc=$?
if [ $rc -eq 0 ] && no_reports "$work/many.err" && grep -q "running 256 threads" "$work/many.err" &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['stop_reason'] == 'count' and d['groups'][0]['threads'] == 256" "$work/many.json"; then
	ok "256 threads, every operation, 40 each: exit 0, no sanitizer report (${FSMIX_SANITIZERS:-no sanitizer})"
else
	bad "256 threads: exit $rc"; grep -m3 -A3 -E "WARNING|ERROR|runtime error|^fsmix" "$work/many.err" | sed 's/^/     /'
fi

# Stopped by SIGINT while all 256 run: reads, stats and opens only, so that a run a broken
# fsmix fails to stop cannot fill the tmpfs (memory).
readonly_mix=()
for op in write create append delete metaop createdir writeall writeall_fsync write_fsync create_fsync append_fsync; do
	readonly_mix+=(--set "threadgroup0.${op}_weight=0")
done
"$bin" "${many[@]}" "${readonly_mix[@]}" --time 600 >"$work/int.out" 2>"$work/int.err" &
pid=$!
if wait_for "$work/int.err" "^fsmix: running 256 threads" 120; then
	kill -INT $pid
	for ((i = 0; i < 1200; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -KILL $pid 2>/dev/null && echo "     still running 120 s after SIGINT: killed"
	wait $pid
	rc=$?
	[ $rc -eq 130 ] && no_reports "$work/int.err" && grep -q "^Interrupted" "$work/int.out" &&
		ok "256 threads stopped by SIGINT: exit 130, no sanitizer report" ||
		{ bad "256 threads, SIGINT: exit $rc"; grep -m3 -A3 -E "WARNING|ERROR|runtime error" "$work/int.err" | sed 's/^/     /'; }
else
	bad "256 threads: the run did not start"; kill -KILL $pid; wait $pid
fi
summary
