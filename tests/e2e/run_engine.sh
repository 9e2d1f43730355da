#!/usr/bin/env bash
# End-to-end runs of the engine on tmpfs (/dev/shm) and on the disk (/tmp): real profiles,
# scaled down by overrides; safety of the location; reuse; signals; bad locations; full disks.
set -u
. "$(dirname "$0")/lib.bash"

scaled=(--set filesystem0.num_files=300 --set filesystem0.num_dirs=10 --set directio=0
	--threads 4 --time 2 --seed 2010)
# Counted runs where every operation must have run: no number of operations in a time is
# assumed (250 a thread: an op of weight 1/15 is missed with probability (14/15)^1000).
counted=(--time 0 --set threadgroup0.num_ops=250)

# run_ok NAME OUTFILE -- fsmix args: exit 0 expected.
run_status() {
	local want=$1 name=$2 out=$3
	shift 4
	"$bin" "$@" >"$out" 2>"$out.err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name: exit $rc, expected $want"
		sed 's/^/     /' "$out.err" | tail -5
		return 1
	fi
	return 0
}

# ops_ran OUT OPS...: every named op has a non-zero count in the "Total Results" table.
ops_ran() {
	local out=$1 missing=()
	shift
	for op in "$@"; do
		awk -v op="$op" '$1 == op && $2 == ":" && $3 > 0 { found = 1 } END { exit !found }' \
			"$out" || missing+=("$op")
	done
	[ ${#missing[@]} -eq 0 ] || { echo "     ops without transactions: ${missing[*]}"; return 1; }
}

for where in shm disk; do
	if [ "$where" = shm ]; then loc=$(shmdir); else loc=$(mktemp -d "$work/disk.XXXX"); fi
	# A canary: fsmix must leave everything it did not create alone, byte for byte.
	mkdir -p "$loc/data" "$loc/meta" "$loc/fsmix.fs1"
	echo "precious" >"$loc/data/important.txt"
	echo "notes" >"$loc/meta/notes.txt"
	head -c 4096 /dev/urandom >"$loc/canary.bin"
	( cd "$loc" && find . -path ./fsmix.fs0 -prune -o -type f -print0 | sort -z | xargs -0 sha256sum ) >"$work/canary.$where"

	out="$work/2010.$where"
	if run_status 0 "$where: 2010 profile" "$out" -- run "$src/profiles/ext4-barrier-2010.ffsb" \
		--location "$loc" "${scaled[@]}" "${counted[@]}"; then
		if ops_ran "$out" readall create append delete stat writeall writeall_fsync open_close \
			create_fsync append_fsync && grep -q "Transactions per Second" "$out"; then
			ok "$where: 2010 profile ran every weighted op"
		else
			bad "$where: 2010 profile report"
		fi
	fi
	# The achieved op mix ("% Op Weight") follows the configured weights: one thread and one
	# builder, so that a fixed seed gives the same 8000 operations on any machine.
	if [ "$where" = shm ]; then
		run_status 0 "op mix" "$work/mix" -- run "$src/profiles/ext4-barrier-2010.ffsb" --location "$loc" \
			"${scaled[@]}" --threads 1 --build-threads 1 --set filesystem0.reuse=0 --time 0 \
			--set threadgroup0.num_ops=8000
		awk 'BEGIN { w["readall"] = 4; w["create_fsync"] = 2
			split("create append delete stat writeall writeall_fsync open_close append_fsync", o, " ")
			for (i in o) w[o[i]] = 1 }
		$2 == ":" && ($1 in w) { got = $6 + 0; want = 100 * w[$1] / 14; seen++
			if (got < want - 1.5 || got > want + 1.5) { print "     " $1 ": " got "% vs " want "%"; bad = 1 } }
		END { exit bad || seen != 10 }' "$work/mix" &&
			ok "op mix within 1.5 points of the weights" || bad "op mix off the weights"
	fi
	out="$work/every.$where"
	if run_status 0 "$where: every op" "$out" -- run "$src/examples/every-op.ffsb" --location "$loc" "${counted[@]}"; then
		ops_ran "$out" read readall write create append delete metaop createdir stat writeall \
			writeall_fsync open_close write_fsync create_fsync append_fsync &&
			ok "$where: all 15 operations ran" || bad "$where: some operation did not run"
	fi
	if (cd "$loc" && find . -path ./fsmix.fs0 -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) |
		cmp -s - "$work/canary.$where"; then
		ok "$where: files fsmix did not create are untouched"
	else
		bad "$where: canary files changed"
	fi
	[ -z "$(ls -A "$loc/fsmix.fs1")" ] && ok "$where: a foreign fsmix.fs1 directory is untouched" ||
		bad "$where: fsmix.fs1 changed"

	# reuse=1 with a read-only workload: the second and third runs reuse the tree.
	out="$work/reuse.$where"
	reuse_args=(run "$src/profiles/ext4-barrier-2010.ffsb" --location "$loc" "${scaled[@]}"
		--set threadgroup0.create_fsync_weight=0 --set threadgroup0.delete_weight=0
		--set threadgroup0.append_weight=0 --set threadgroup0.append_fsync_weight=0
		--set threadgroup0.create_weight=0 --set threadgroup0.writeall_weight=0
		--set threadgroup0.writeall_fsync_weight=0 --time 1)
	run_status 0 "$where: reuse run 1" "$out.1" -- "${reuse_args[@]}" &&
		run_status 0 "$where: reuse run 2" "$out.2" -- "${reuse_args[@]}" &&
		run_status 0 "$where: reuse run 3" "$out.3" -- "${reuse_args[@]}" &&
		if grep -q "reused .*: 300 files" "$out.2.err" && grep -q "reused .*: 300 files" "$out.3.err"; then
			ok "$where: reuse=1 reuses the tree twice in a row"
		else
			bad "$where: reuse did not happen"; cat "$out.2.err" "$out.3.err" | sed 's/^/     /'
		fi
	# After a run that changes the tree, reuse=1 rebuilds it.
	# (Counted: a timed run of this mix writes as fast as the machine can.)
	run_status 0 "$where: changing run" "$out.4" -- run "$src/profiles/ext4-barrier-2010.ffsb" \
		--location "$loc" "${scaled[@]}" "${counted[@]}" &&
		run_status 0 "$where: run after change" "$out.5" -- "${reuse_args[@]}" &&
		if grep -q "built .*: 300 files" "$out.5.err"; then
			ok "$where: a tree changed by a run is rebuilt, not reused"
		else
			bad "$where: changed tree was reused"; sed 's/^/     /' "$out.5.err"
		fi

	# fsmix clean removes its own tree and nothing else.
	run_status 0 "$where: clean" "$work/clean.$where" -- clean "$src/profiles/default.ffsb" --location "$loc" &&
		[ ! -e "$loc/fsmix.fs0" ] && [ -f "$loc/data/important.txt" ] && [ -d "$loc/fsmix.fs1" ] &&
		ok "$where: clean removed fsmix.fs0 only" || bad "$where: clean"
done

# SIGINT in the middle of a run: exit 130, the report is still printed, marked interrupted.
loc=$(shmdir)
# (Read-only: a run that does not stop cannot fill the tmpfs.)
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 60 --set threadgroup0.create_weight=0 \
	--set threadgroup0.create_fsync_weight=0 --set threadgroup0.delete_weight=0 \
	--set threadgroup0.append_weight=0 --set threadgroup0.append_fsync_weight=0 \
	--set threadgroup0.writeall_weight=0 --set threadgroup0.writeall_fsync_weight=0 \
	>"$work/int.out" 2>"$work/int.err" &
pid=$!
wait_for "$work/int.err" "running" 60 || bad "SIGINT: the run did not start in 60 s"
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ] && grep -q "^Interrupted" "$work/int.out" && grep -q "Transactions per Second" "$work/int.out" &&
	grep -q "interrupted" "$work/int.out"; then
	ok "SIGINT: exit 130 with a partial report"
else
	bad "SIGINT: exit $rc"; tail -5 "$work/int.out" "$work/int.err" | sed 's/^/     /'
fi
# SIGTERM during setup: exit 130, nothing measured. The setup is an aging phase that cannot
# end before the signal: one thread creating a 4 KB file at most every 10 ms (op_delay, a
# minimum whatever the machine) needs hours to fill the tmpfs to desired_util=0.99, and a run
# that is not stopped grows it by at most 400 KB/s.
age=(run "$src/examples/aging.ffsb" --location "$loc" --set filesystem0.desired_util=0.99
	--set filesystem0.min_filesize=4KB --set filesystem0.max_filesize=4KB
	--set filesystem0.threadgroup.num_threads=1 --set filesystem0.threadgroup.op_delay=10
	--set filesystem0.threadgroup.append_weight=0 --set filesystem0.threadgroup.delete_weight=0)
"$bin" "${age[@]}" >"$work/term.out" 2>"$work/term.err" &
pid=$!
if wait_for "$work/term.err" "aging from" 60; then
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 130 ] && grep -q "interrupted during setup" "$work/term.err" &&
		ok "SIGTERM during setup (aging): exit 130" || { bad "SIGTERM during setup: exit $rc"; tail -3 "$work/term.err"; }
else
	bad "SIGTERM during setup: aging did not start"; tail -3 "$work/term.err"; kill -KILL "$pid"; wait "$pid"
fi

# Bad locations: exit 2 before anything starts.
run_status 2 "missing location" "$work/missing" -- run "$src/profiles/default.ffsb" --location "$work/does-not-exist" &&
	grep -q "No such file or directory" "$work/missing.err" && ok "missing location: exit 2" || bad "missing location message"
touch "$work/a-file"
run_status 2 "file as location" "$work/afile" -- run "$src/profiles/default.ffsb" --location "$work/a-file" &&
	grep -q "is not a directory" "$work/afile.err" && ok "location is a file: exit 2" || bad "file location message"
if mount_tmpfs "$work/ro" "ro,size=1m"; then
	run_status 2 "read-only location" "$work/ro.out" -- run "$src/profiles/default.ffsb" --location "$work/ro" &&
		grep -q "read-only" "$work/ro.out.err" && ok "read-only location: exit 2" || bad "read-only message"
else
	skip_env mount "read-only location: cannot mount a read-only tmpfs here"
fi

# A full filesystem: a clean error naming the file, exit 1, no crash.
if mount_tmpfs "$work/full" "size=2m"; then
	run_status 1 "full filesystem" "$work/full.out" -- run "$src/profiles/default.ffsb" --location "$work/full" --time 5 &&
		grep -q "No space left on device" "$work/full.out.err" && ok "full filesystem: exit 1 with ENOSPC named" ||
		bad "full filesystem message"
	sed 's/^/     /' "$work/full.out.err" | tail -2
	# Counted, not timed: the creates fill 2 MB long before 4 x 100000 operations are done.
	run_status 1 "full during the run" "$work/full2.out" -- run "$src/profiles/default.ffsb" --location "$work/full" \
		--time 0 --set threadgroup0.num_ops=100000 --set filesystem0.num_files=20 &&
		grep -q "worker .*No space left on device" "$work/full2.out.err" && grep -q "Transactions per Second" "$work/full2.out" &&
		ok "filesystem full during the run: exit 1, report printed, worker error named" || bad "full during the run"
	sed 's/^/     /' "$work/full2.out.err" | tail -2
else
	skip_env mount "full filesystem: cannot mount a small tmpfs here"
fi

# The tree depends on the seed only, not on how many builders made it or in which order:
# one builder and three (which build directory by directory, in parallel) make the same files.
loc=$(shmdir)
small_tree=(run "$src/profiles/default.ffsb" --location "$loc" --set filesystem0.num_files=2000
	--set filesystem0.num_dirs=40 --seed 11 --time 0 --set filesystem0.reuse=0)
for bt in 1 3; do
	run_status 0 "--build-threads $bt" "$work/bt$bt" -- "${small_tree[@]}" --build-threads $bt &&
		(cd "$loc/fsmix.fs0/data" && find . -type f -printf '%p %s\n' | sort) >"$work/bt$bt.list"
done
[ "$(wc -l <"$work/bt1.list")" -eq 2000 ] && cmp -s "$work/bt1.list" "$work/bt3.list" &&
	ok "1 and 3 builders make the same 2000 files (names, directories, sizes)" ||
	bad "trees built by 1 and 3 builders differ"

# directio=1 (tmpfs takes O_DIRECT since Linux 6.6): the O_DIRECT probe before the build must
# leave the file pool alone, so every file is built and the next run reuses the tree (the probe
# used to take pool id 0: one builder stopped silently and reuse never happened).
loc=$(shmdir)
dio=(run "$src/profiles/ext4-barrier-2010.ffsb" --location "$loc" --set filesystem0.num_files=2000
	--set filesystem0.num_dirs=20 --set directio=1 --time 1
	--threads 2 --set threadgroup0.create_fsync_weight=0 --set threadgroup0.delete_weight=0
	--set threadgroup0.append_weight=0 --set threadgroup0.append_fsync_weight=0
	--set threadgroup0.create_weight=0 --set threadgroup0.writeall_weight=0
	--set threadgroup0.writeall_fsync_weight=0)
"$bin" "${dio[@]}" >"$work/dio1" 2>"$work/dio1.err"
rc=$?
if [ $rc -eq 3 ]; then
	skipped "directio=1 on tmpfs: O_DIRECT refused here (Linux < 6.6)"
else
	"$bin" "${dio[@]}" >"$work/dio2" 2>"$work/dio2.err"
	files=$(find "$loc/fsmix.fs0/data" -type f | wc -l)
	[ $rc -eq 0 ] && grep -q "built .*: 2000 files" "$work/dio1.err" && [ "$files" -eq 2000 ] &&
		ok "directio=1: all 2000 files built" || { bad "directio=1 build: exit $rc, $files files"; tail -3 "$work/dio1.err"; }
	grep -q "reused .*: 2000 files" "$work/dio2.err" && ok "directio=1: the next run reuses the tree" ||
		{ bad "directio=1: no reuse"; tail -3 "$work/dio2.err"; }
fi

# A small descriptor limit: builders batch their closes, and must not run out of descriptors.
out="$work/nofile"
if (ulimit -n 64 && "$bin" "${small_tree[@]}" --set filesystem0.num_dirs=100 "${counted[@]}" \
	--set threadgroup0.num_threads=2 >"$out" 2>"$out.err"); then
	grep -q "built .*: 2000 files" "$out.err" && grep -q "Transactions per Second" "$out" &&
		ok "ulimit -n 64: the tree is built and the run works" || bad "ulimit -n 64: output"
else
	bad "ulimit -n 64: exit $?"; sed 's/^/     /' "$out.err" | tail -3
fi

# How builders close files: with close_range() in batches on local filesystems (tmpfs), with
# one close() per file elsewhere (overlay stands in for NFS and FUSE, whose close() can fail).
# A tree of one directory is still built by several builders.
if command -v strace >/dev/null; then
	traced_build() { # LOCATION NAME
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -y -qq -e trace=openat,close,close_range -o "$work/$2.strace" \
			"$bin" run "$src/profiles/default.ffsb" --location "$1" --set filesystem0.num_files=1000 \
			--set filesystem0.num_dirs=0 --time 0 --set filesystem0.reuse=0 --build-threads 4 \
			>"$work/$2.out" 2>"$work/$2.err"
	}
	traced_build "$(shmdir)" close-tmpfs
	creators=$(grep -E 'openat\([0-9]+<[^>]*/data>, "f[0-9]+", .*O_CREAT' "$work/close-tmpfs.strace" |
		awk '{ print $1 }' | sort -u | wc -l)
	[ "$creators" -ge 2 ] && ok "1000 files in one directory: $creators builders made them" ||
		bad "1000 files in one directory: $creators builder(s)"
	ranges=$(grep -c 'close_range(' "$work/close-tmpfs.strace")
	if [[ ${FSMIX_SANITIZERS:-} == *thread* ]]; then
		skipped "batched closes: the ThreadSanitizer build closes every file alone"
	else
		[ "$ranges" -ge 1 ] && ok "tmpfs: builders close files in batches ($ranges close_range calls)" ||
			bad "tmpfs: no close_range"
	fi
	ov=$work/overlay
	mkdir -p "$ov/lower" "$ov/merged"
	if mount_tmpfs "$ov/t" size=256m && mkdir -p "$ov/t/upper" "$ov/t/work" &&
		mount -t overlay overlay -o "lowerdir=$ov/lower,upperdir=$ov/t/upper,workdir=$ov/t/work" \
			"$ov/merged" 2>/dev/null; then
		mounts+=("$ov/merged")
		traced_build "$ov/merged" close-overlay
		ranges=$(grep -c 'close_range(' "$work/close-overlay.strace")
		closes=$(grep -cE '^[0-9]+ +close\([0-9]+<[^>]*/data/f[0-9]+>' "$work/close-overlay.strace")
		[ "$ranges" -eq 0 ] && [ "$closes" -eq 1000 ] &&
			ok "overlay: one checked close() per file, no batches" ||
			bad "overlay: $ranges close_range calls, $closes file closes"
	else
		skip_env mount "overlay: cannot mount an overlay filesystem here"
	fi
	# A create_fsync of an empty file (no block to write, no transaction) still syncs it.
	cat >"$work/empty.ffsb" <<PROFILE
time=1
[filesystem0]
	location=$(shmdir)
	num_files=0
	num_dirs=1
	min_filesize=0
	max_filesize=0
[end0]
[threadgroup0]
	num_threads=1
	create_fsync_weight=1
	write_blocksize=4KB
	op_delay=20
[end0]
PROFILE
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -y -qq -e trace=fsync -o "$work/empty.strace" "$bin" run "$work/empty.ffsb" \
		--json "$work/empty.json" >"$work/empty.out" 2>"$work/empty.err"
	creates=$(grep -o '"operations": *[0-9]*' "$work/empty.json" | head -1 | grep -o '[0-9]*$')
	syncs=$(grep -cE '^[0-9]+ +fsync\([0-9]+<[^>]*/data/[^>]*>' "$work/empty.strace")
	[ "${creates:-0}" -ge 1 ] && [ "$syncs" -eq "$creates" ] &&
		ok "empty files made by create_fsync: each synced ($syncs)" ||
		bad "empty files made by create_fsync: ${creates:-no} creates, $syncs file syncs"
else
	skip_env strace "build closes: strace is not installed"
fi

# agefs=1: the nested thread group fills the filesystem to desired_util before the run.
if mount_tmpfs "$work/age" "size=256m"; then
	run_status 0 "aging" "$work/age.out" -- run "$src/examples/aging.ffsb" --location "$work/age" \
		--set filesystem0.desired_util=0.4 --time 1 &&
		used=$(df --output=pcent "$work/age" | tail -1 | tr -dc 0-9) &&
		grep -q "aged to" "$work/age.out.err" && [ "$used" -ge 40 ] &&
		ok "agefs=1 ages the filesystem to desired_util (now ${used}% used)" || bad "aging"
else
	skip_env mount "aging: cannot mount a small tmpfs here"
fi

summary
