#!/usr/bin/env bash
# Every worker of a run has a descriptor table of its own (worker.c, worker_own_fds: the kernel
# then takes no reference on a directory's file per *at() call), while the main thread and the
# signal watcher share theirs. Checked with kcmp(KCMP_FILES) on the threads of a running fsmix.
# Not under ThreadSanitizer, where the workers keep the shared table on purpose.
set -u
. "$(dirname "$0")/lib.bash"

case ${FSMIX_SANITIZERS:-} in *thread*)
	skipped "ThreadSanitizer build: workers keep the process's descriptor table"
	summary ;;
esac

# Prints how many threads of PID have a descriptor table other than PID's own, or "?" when
# kcmp is not available (not x86-64 or arm64, or refused: ptrace rules, seccomp).
private_tables() { # PID
	python3 - "$1" <<'PY' 2>/dev/null || echo "?"
import ctypes, os, platform, sys
nr = {"x86_64": 312, "aarch64": 272}.get(platform.machine())
if nr is None:
    print("?"); sys.exit(0)
pid = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
n = 0
for t in os.listdir(f"/proc/{pid}/task"):
    r = libc.syscall(nr, pid, int(t), 2, 0, 0)  # KCMP_FILES = 2
    if r < 0:
        print("?"); sys.exit(0)
    n += r != 0
print(n)
PY
}

loc=$(shmdir)
"$bin" run "$src/tests/bench/stat-only.ffsb" --location "$loc" --set filesystem0.num_files=100 \
	--set filesystem0.num_dirs=2 --set threadgroup0.num_threads=3 --time 60 \
	>"$work/run.out" 2>"$work/run.err" &
pid=$!
if wait_for "$work/run.err" "^fsmix: running 3 threads" 60; then
	# The workers make their tables before the start gate opens, just after that line.
	n=?
	for ((i = 0; i < 100; i++)); do
		n=$(private_tables $pid)
		[ "$n" = 3 ] || [ "$n" = "?" ] && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid
	rc=$?
	if [ "$n" = "?" ]; then
		skipped "kcmp(KCMP_FILES) is not available here"
	elif [ "$n" = 3 ] && [ $rc -eq 130 ]; then
		ok "3 workers, 3 descriptor tables of their own; the main thread and the watcher share one"
	else
		bad "threads with a table of their own: $n (want 3), exit $rc"
	fi
else
	bad "the run did not start"; tail -3 "$work/run.err" | sed 's/^/     /'
	kill -KILL $pid; wait $pid
fi
summary
