#!/usr/bin/env bash
# A worker's io_uring ring that the kernel will not make, although the run's probe passed
# (docs/engines.md): each worker's ring takes a descriptor, so 64 threads under a descriptor
# limit of 24 (prlimit --nofile) run out of them after the tree is built. That is the
# environment's failure: exit 3, before the run starts, the message naming the group, the
# worker, the call and the errno; the JSON says so; --cleanup still removes the tree (the rings
# made so far are closed first, so their descriptors are free for it). The same at iodepth 4.
# The limit is the test's own process's (prlimit on the command): nothing global is changed,
# so no sysctl (kernel.io_uring_disabled, which the probe already reports with exit 3 before
# anything is built) is toggled under the other tests.
# Fails before the fix (45fe137): exit 1, the message without the group or the errno's name,
# and --cleanup fails for want of descriptors (the tree is left).
set -u
. "$(dirname "$0")/lib.bash"

profile() { # profile DEPTH
	cat <<EOF
time=1
[filesystem0]
location=/unused
num_files=20
num_dirs=2
min_filesize=4KB
max_filesize=4KB
[end0]
[threadgroup0]
num_threads=64
engine=io_uring
iodepth=$1
stat_weight=1
[end0]
EOF
}

if ! command -v prlimit >/dev/null; then
	skip_env tool "no prlimit (util-linux)"
	summary
fi
# Is the io_uring engine built in, and is io_uring available here (no limit)?
profile 1 | sed 's/^num_threads=.*/num_threads=1/' >"$work/probe.ffsb"
"$bin" run "$work/probe.ffsb" --location "$(shmdir)" >"$work/probe.out" 2>&1
if [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'engine=io_uring' "$work/probe.out")"
	summary
fi

for depth in 1 4; do
	profile $depth >"$work/p$depth.ffsb"
	loc=$(shmdir)
	timeout 120 prlimit --nofile=24 "$bin" run "$work/p$depth.ffsb" --location "$loc" --cleanup \
		--json "$work/p$depth.json" >"$work/p$depth.out" 2>&1
	rc=$?
	msg=$(grep -m1 "io_uring_queue_init" "$work/p$depth.out")
	[ $rc -eq 3 ] && ok "iodepth=$depth: a ring the kernel refuses (descriptors): exit 3" ||
		{ bad "iodepth=$depth: exit $rc, not 3"; sed 's/^/     /' "$work/p$depth.out" | head -5; }
	echo "$msg" | grep -q "^fsmix: threadgroup0: worker [0-9]*: engine=io_uring: io_uring_queue_init: .*(EMFILE)$" &&
		ok "iodepth=$depth: the message names the group, the worker and the errno: $msg" ||
		bad "iodepth=$depth: message: '$msg'"
	st=$(jq -r '.exit_status' "$work/p$depth.json" 2>/dev/null)
	jq -r '.error' "$work/p$depth.json" 2>/dev/null | grep -q "threadgroup0: worker .*EMFILE" && [ "$st" = 3 ] &&
		ok "iodepth=$depth: the JSON has the error and exit_status 3" ||
		bad "iodepth=$depth: JSON exit_status '$st', error '$(jq -r '.error' "$work/p$depth.json" 2>/dev/null)'"
	grep -q "running 64 threads" "$work/p$depth.out" &&
		bad "iodepth=$depth: the run started" || ok "iodepth=$depth: the run did not start"
	[ -z "$(ls -A "$loc")" ] && ok "iodepth=$depth: --cleanup removed the tree" ||
		{ bad "iodepth=$depth: left in $loc: $(ls -A "$loc")"; grep -m2 cleanup "$work/p$depth.out" | sed 's/^/     /'; }
done

summary
