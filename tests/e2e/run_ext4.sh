#!/usr/bin/env bash
# End-to-end runs on a loop-mounted ext4 image (root and loop devices needed; otherwise the
# test is skipped with a message), plus O_DIRECT refusal on ramfs (exit 3, nothing run).
set -u
. "$(dirname "$0")/lib.bash"

if mount_ext4 "$work/ext4" 512; then
	out="$work/ext4.out"
	# Counted (8 x 50 operations): a create_fsync (weight 2/14) among them however slow the disk.
	"$bin" run "$src/profiles/ext4-barrier-2010.ffsb" --location "$work/ext4" --time 0 \
		--set threadgroup0.num_ops=50 --set filesystem0.num_files=300 --set filesystem0.num_dirs=10 \
		--threads 8 >"$out" 2>"$out.err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q "Transactions per Second" "$out" &&
		awk '$1 == "create_fsync" && $3 > 0 { f = 1 } END { exit !f }' "$out"; then
		ok "ext4 (loop, directio=1): the 2010 profile runs"
	else
		bad "ext4 run: exit $rc"; tail -5 "$out.err" | sed 's/^/     /'
	fi
	grep -q "\[  fsync\]" "$out" && ok "ext4: fsync latency is reported" || bad "ext4: no fsync row"
else
	skip_env loop "ext4: no loop device or mkfs.ext4 here (needs root)"
fi

mkdir -p "$work/ramfs"
if mount -t ramfs fsmix-e2e "$work/ramfs" 2>/dev/null; then
	mounts+=("$work/ramfs")
	"$bin" run "$src/profiles/default.ffsb" --location "$work/ramfs" --set directio=1 --time 1 \
		>"$work/ramfs.out" 2>"$work/ramfs.err"
	rc=$?
	if [ $rc -eq 3 ] && grep -q "O_DIRECT (directio=1) is refused" "$work/ramfs.err" &&
		! grep -q "Transactions per Second" "$work/ramfs.out" && [ -z "$(ls -A "$work/ramfs/fsmix.fs0/data" 2>/dev/null)" ]; then
		ok "O_DIRECT refused (ramfs): exit 3 before building anything"
	else
		bad "O_DIRECT refusal: exit $rc"; sed 's/^/     /' "$work/ramfs.err"
	fi
else
	skip_env mount "O_DIRECT refusal: cannot mount ramfs here"
fi
summary
