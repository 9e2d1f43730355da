#!/usr/bin/env bash
# End-to-end checks that fsmix's tree never leads outside itself and survives crashes (issue 10,
# cases 3-6, 13, 14): hard links and bind mounts into the tree, two processes on one location,
# SIGKILL at many points of build, run and clean, a filesystem without free inodes, I/O errors
# reading the marker, and a small address-space limit. A victim directory beside (or mounted
# into) the tree must keep its checksums throughout.
set -u
. "$(dirname "$0")/lib.bash"

# A tiny tree (10 files of 4 KB in 2 directories) and a workload that writes, appends, creates
# and deletes.
prof=$work/small.ffsb
cat >"$prof" <<'EOF'
time=1
[filesystem0]
	location=/tmp
	num_files=10
	num_dirs=2
	reuse=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=2
	append_weight=1
	writeall_weight=1
	write_weight=1
	create_weight=1
	delete_weight=1
	write_size=4KB
	write_blocksize=4KB
[end0]
EOF
# Only creates: every operation makes a new file.
creates=$work/creates.ffsb
sed -e 's/^\tappend_weight=1/\tcreate_weight=4/' -e '/writeall_weight\|write_weight\|delete_weight\|^\tcreate_weight=1/d' "$prof" >"$creates"

# sums DIR: the checksums of everything below DIR (names, sizes and contents).
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }

# victim DIR: a directory of user files beside the tree.
victim() {
	mkdir -p "$1/sub"
	head -c 4096 /dev/urandom >"$1/same-size"
	echo "user data" >"$1/notes.txt"
	echo "more" >"$1/sub/deep.txt"
}

# ---- 3. Hard links and mount points ---------------------------------------------------------

# A reused tree whose generated file was replaced by a hard link to a user's file of the same
# size: the reuse is refused (exit 2, the file named), the user's file is untouched.
loc=$(shmdir)
victim "$loc/victim"
"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
f=$(find "$loc/fsmix.fs0/data" -type f -name 'f*' | sort | head -1)
rm -f "$f" && ln "$loc/victim/same-size" "$f"
before=$(sums "$loc/victim")
"$bin" run "$prof" -l "$loc" --time 1 >"$work/hl.out" 2>"$work/hl.err"
rc=$?
[ $rc -eq 2 ] && grep -q "'$f' has 2 hard links" "$work/hl.err" && [ "$(sums "$loc/victim")" = "$before" ] &&
	ok "3: a hard-linked file refuses the reuse (exit 2, named), the linked file is untouched" ||
	bad "3: hard link: exit $rc, $(tail -1 "$work/hl.err")"
# clean removes only the tree's name: the user's file keeps its contents.
"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && [ ! -e "$loc/fsmix.fs0" ] && [ "$(sums "$loc/victim")" = "$before" ] &&
	ok "3: clean of a hard-linked tree drops only its own names" || bad "3: clean after hard link: exit $rc"

# New files are created with O_EXCL: names planted where creates will go (hard links to a user's
# file) make the run fail (exit 1) instead of truncating and writing the user's file.
loc=$(shmdir)
victim "$loc/victim"
"$bin" run "$creates" -l "$loc" --time 0 >/dev/null 2>&1
for d in "$loc/fsmix.fs0/data" "$loc/fsmix.fs0/data/d000" "$loc/fsmix.fs0/data/d001"; do
	for id in $(seq 10 60); do ln "$loc/victim/same-size" "$d/f$id"; done
done
before=$(sums "$loc/victim")
"$bin" run "$creates" -l "$loc" --time 1 >"$work/excl.out" 2>"$work/excl.err"
rc=$?
[ $rc -eq 1 ] && grep -q "File exists" "$work/excl.err" && [ "$(sums "$loc/victim")" = "$before" ] &&
	ok "3: creates use O_EXCL: a planted name fails the run (exit 1), the linked file is untouched" ||
	bad "3: O_EXCL: exit $rc, $(tail -1 "$work/excl.err")"

# A directory bind-mounted onto data/d000: clean does not enter it, a run does not write into
# it, a reuse is refused; all leave the mounted directory's files alone.
loc=$(shmdir)
victim "$loc/victim"
echo "file mounted over a generated one" >"$loc/victim-file"
"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
before=$(sums "$loc/victim")
vf=$(sha256sum <"$loc/victim-file")
if mount --bind "$loc/victim" "$loc/fsmix.fs0/data/d000" 2>/dev/null; then
	mounts+=("$loc/fsmix.fs0/data/d000")
	"$bin" run "$prof" -l "$loc" --time 1 >/dev/null 2>"$work/bm-reuse.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "data/d000' is a mount point" "$work/bm-reuse.err" &&
		ok "3: a bind mount on data/d000 refuses the reuse (exit 2)" ||
		bad "3: bind mount, reuse: exit $rc, $(tail -1 "$work/bm-reuse.err")"
	"$bin" clean "$prof" -l "$loc" >/dev/null 2>"$work/bm-clean.err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "first: data/d000)" "$work/bm-clean.err" && [ "$(sums "$loc/victim")" = "$before" ] &&
		ok "3: clean does not cross the bind mount on data/d000 (kept, reported, files intact)" ||
		bad "3: bind mount, clean: exit $rc, $(tail -1 "$work/bm-clean.err")"
	"$bin" run "$prof" -l "$loc" --time 1 >/dev/null 2>"$work/bm-run.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "data/d000' is a mount point" "$work/bm-run.err" && [ "$(sums "$loc/victim")" = "$before" ] &&
		ok "3: a rebuild does not write into the bind mount (exit 2)" ||
		bad "3: bind mount, rebuild: exit $rc, $(tail -1 "$work/bm-run.err")"
	umount "$loc/fsmix.fs0/data/d000" && unset 'mounts[${#mounts[@]}-1]'
	# A file mounted over a generated file of a reused tree.
	"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1
	"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
	g=$(find "$loc/fsmix.fs0/data" -type f -name 'f*' | sort | head -1)
	if mount --bind "$loc/victim-file" "$g" 2>/dev/null; then
		mounts+=("$g")
		"$bin" run "$prof" -l "$loc" --time 1 >/dev/null 2>"$work/fm.err"
		rc=$?
		"$bin" clean "$prof" -l "$loc" >/dev/null 2>"$work/fm-clean.err"
		rc2=$?
		[ $rc -eq 2 ] && grep -q "is on another mount" "$work/fm.err" && [ $rc2 -eq 1 ] &&
			[ "$(sha256sum <"$loc/victim-file")" = "$vf" ] &&
			ok "3: a file mounted over a generated one: reuse refused, clean leaves it" ||
			bad "3: file bind mount: run exit $rc, clean exit $rc2"
		umount "$g" && unset 'mounts[${#mounts[@]}-1]'
	fi
	"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1
	[ $? -eq 0 ] && [ ! -e "$loc/fsmix.fs0" ] && [ "$(sums "$loc/victim")" = "$before" ] &&
		ok "3: once unmounted, clean removes the tree" || bad "3: clean after unmount"
else
	skip_env mount "3: bind mounts: cannot mount here"
fi

# ---- 4. One process per location -----------------------------------------------------------

# until_exists FILE: wait (at most 30 s) for a file a background fsmix's callout makes.
until_exists() {
	for ((i = 0; i < 300; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# The first run holds the location from its setup to its end; its callout (run after the build,
# before the run phase) waits for a go-ahead, so the checks below happen while it holds the
# lock, whatever the machine's speed.
loc=$(shmdir)
hold="touch $work/ready; while [ ! -e $work/go ]; do sleep 0.05; done"
"$bin" run "$prof" -l "$loc" --time 1 --set filesystem0.reuse=0 --set "callout=$hold" \
	>"$work/first.out" 2>"$work/first.err" &
first=$!
if until_exists "$work/ready"; then
	"$bin" run "$prof" -l "$loc" --time 1 >/dev/null 2>"$work/second.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "in use by another process (PID $first)" "$work/second.err" &&
		ok "4: a second run on a location in use exits 2 naming PID $first" ||
		bad "4: second run: exit $rc, $(tail -1 "$work/second.err")"
	"$bin" clean "$prof" -l "$loc" >/dev/null 2>"$work/second-clean.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "(PID $first)" "$work/second-clean.err" && [ -f "$loc/fsmix.fs0/.fsmix-tree" ] &&
		ok "4: clean of a location in use exits 2 and removes nothing" ||
		bad "4: clean while running: exit $rc, $(tail -1 "$work/second-clean.err")"
	"$bin" run "$prof" -l "$loc" --time 1 -n 1,2 >/dev/null 2>"$work/second-sweep.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "(PID $first)" "$work/second-sweep.err" &&
		ok "4: a sweep on a location in use exits 2" || bad "4: sweep while running: exit $rc"
	touch "$work/go"
	wait "$first"
	rc=$?
	[ $rc -eq 0 ] && grep -q "Transactions per Second" "$work/first.out" &&
		ok "4: the first run completes undisturbed (exit 0, its report)" ||
		bad "4: first run: exit $rc, $(tail -1 "$work/first.err")"
else
	bad "4: the first run's callout did not start"
	kill "$first" 2>/dev/null
fi
# A sweep holds its location too: a run is refused while it is at work.
rm -f "$work/ready" "$work/go"
"$bin" run "$prof" -l "$loc" --time 1 -n 1,2 --set "callout=$hold" >/dev/null 2>"$work/sweep.err" &
sweeper=$!
if until_exists "$work/ready"; then
	"$bin" run "$prof" -l "$loc" --time 1 >/dev/null 2>"$work/during-sweep.err"
	rc=$?
	touch "$work/go"
	wait "$sweeper"
	rc2=$?
	[ $rc -eq 2 ] && grep -q "(PID $sweeper)" "$work/during-sweep.err" && [ $rc2 -eq 0 ] &&
		ok "4: a run during a sweep exits 2 naming the sweep's PID; the sweep completes" ||
		bad "4: run during a sweep: exit $rc, sweep exit $rc2"
else
	bad "4: the sweep's callout did not start"
	kill "$sweeper" 2>/dev/null
fi
# The lock vanishes with its process: after a SIGKILL the next run goes ahead.
"$bin" run "$prof" -l "$loc" --time 60 >/dev/null 2>"$work/killed.err" &
p=$!
wait_for "$work/killed.err" "running" 30
kill -KILL "$p"
wait "$p" 2>/dev/null
"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1 && "$bin" clean "$prof" -l "$loc" >/dev/null 2>&1 &&
	ok "4: a killed holder's lock is gone: run and clean go ahead" || bad "4: stale lock after SIGKILL"

# ---- 5. SIGKILL anywhere: always recoverable ----------------------------------------------------

# recover LOC BEFORE WHAT: a run and a clean succeed after a kill, nothing of fsmix's is left, and
# the victim beside the tree keeps its checksums.
recover() {
	local out
	out=$("$bin" run "$prof" -l "$1" --time 0 2>&1 >/dev/null) || {
		bad "5: $3: the next run fails: $(echo "$out" | tail -1)"
		return
	}
	out=$("$bin" clean "$prof" -l "$1" 2>&1) || {
		bad "5: $3: the next clean fails: $(echo "$out" | tail -1)"
		return
	}
	if [ -n "$(cd "$1" && ls -A | grep -v '^victim$')" ] || [ "$(sums "$1/victim")" != "$2" ]; then
		bad "5: $3: left $(cd "$1" && ls -A | tr '\n' ' ')"
		return
	fi
	kills_ok=$((kills_ok + 1))
}

# kill_at LOC SYSCALL K CMD...: SIGKILL fsmix when its main thread enters the K-th SYSCALL (before
# the call takes effect). Returns 0 when the kill happened.
kill_at() {
	local loc=$1 sc=$2 k=$3
	shift 3
	# (The braces keep bash's "Killed" notice out of the log.)
	{ strace -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$k" "$@" -l "$loc" >/dev/null 2>&1; } 2>/dev/null
	[ $? -eq 137 ]
}

if ! command -v strace >/dev/null || ! strace -qq -o /dev/null true 2>/dev/null; then
	skip_env strace "5: kill points: strace is unavailable or cannot trace here"
else
	kills_ok=0 kills=0
	loc=$(shmdir)
	victim "$loc/victim"
	before=$(sums "$loc/victim")
	# Creation: every mkdir, rename, fsync and write of a fresh build.
	for sc in mkdirat renameat renameat2 fsync openat; do
		for k in 1 2 3 4 5 6; do
			kill_at "$loc" "$sc" "$k" "$bin" run "$prof" --time 0 || continue
			kills=$((kills + 1))
			recover "$loc" "$before" "build killed at $sc #$k"
		done
	done
	# Removal: every unlink and rmdir of clean (all of them, until clean completes), and the
	# rename aside.
	# Under sanitizers every other one (the same unlink path each time; the default build
	# kills at each), which keeps the kills above 30.
	step=1
	[ -n "${FSMIX_SANITIZERS:-}" ] && step=2
	for sc in unlinkat renameat2; do
		for k in $(seq 1 "$step" 40); do
			"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
			if ! kill_at "$loc" "$sc" "$k" "$bin" clean "$prof"; then
				"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1
				break
			fi
			kills=$((kills + 1))
			recover "$loc" "$before" "clean killed at $sc #$k"
		done
	done
	# A rebuild empties the old tree first: kill it there, and in --cleanup.
	for k in 1 3 7 12; do
		"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
		kill_at "$loc" unlinkat "$k" "$bin" run "$prof" --time 1 --set filesystem0.reuse=0 || continue
		kills=$((kills + 1))
		recover "$loc" "$before" "rebuild killed at unlinkat #$k"
		"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
		kill_at "$loc" unlinkat "$k" "$bin" run "$prof" --time 1 --cleanup || continue
		kills=$((kills + 1))
		recover "$loc" "$before" "--cleanup killed at unlinkat #$k"
	done
	# During the run itself, and at arbitrary moments (different delays).
	for delay in 0 0.01 0.03 0.1 0.3; do
		"$bin" run "$prof" -l "$loc" --time 2 --set filesystem0.reuse=0 >/dev/null 2>&1 &
		p=$!
		sleep "$delay"
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		kills=$((kills + 1))
		recover "$loc" "$before" "run killed after ${delay}s"
	done
	[ "$kills" -ge 30 ] && [ "$kills_ok" -eq "$kills" ] &&
		ok "5: $kills SIGKILLs during build, run, rebuild and clean: every one recovered, victim intact" ||
		bad "5: $kills_ok of $kills kills recovered"
	# EMFILE right after the root's mkdir (ulimit -n), and injected into each open (every
	# other one under sanitizers).
	loc=$(shmdir)
	victim "$loc/victim"
	before=$(sums "$loc/victim")
	n_ok=0 n=0
	for lim in 4 5 6 7 8 9 10; do
		(ulimit -n "$lim" && exec "$bin" run "$prof" -l "$loc" --time 0) >/dev/null 2>&1
		n=$((n + 1))
		kills_ok=0
		recover "$loc" "$before" "ulimit -n $lim"
		n_ok=$((n_ok + kills_ok))
	done
	for k in $(seq 1 "$step" 12); do
		strace -qq -o /dev/null -e trace=openat -e inject=openat:error=EMFILE:when="$k" \
			"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
		n=$((n + 1))
		kills_ok=0
		recover "$loc" "$before" "EMFILE at openat #$k"
		n_ok=$((n_ok + kills_ok))
	done
	[ "$n_ok" -eq "$n" ] && ok "5: EMFILE at every step of the build ($n cases): always recoverable" ||
		bad "5: EMFILE: $n_ok of $n recovered"
fi

# ---- 6. Removing needs no free inode --------------------------------------------------------

if mount_tmpfs "$work/noinodes" "nr_inodes=64,size=8m"; then
	loc=$work/noinodes
	"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
	i=0
	while touch "$loc/fill$i" 2>/dev/null; do i=$((i + 1)); done
	"$bin" clean "$prof" -l "$loc" >/dev/null 2>"$work/noin.err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -e "$loc/fsmix.fs0" ] && ok "6: clean works with no free inode" ||
		bad "6: clean without inodes: exit $rc, $(tail -1 "$work/noin.err")"
	rm -f "$loc"/fill*
	"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
	i=0
	while touch "$loc/fill$i" 2>/dev/null; do i=$((i + 1)); done
	"$bin" run "$prof" -l "$loc" --time 1 --cleanup >/dev/null 2>"$work/noin2.err"
	[ ! -e "$loc/fsmix.fs0" ] && ok "6: --cleanup removes the tree with no free inode" ||
		bad "6: --cleanup without inodes: $(tail -1 "$work/noin2.err")"
else
	skip_env mount "6: cannot mount a tmpfs with nr_inodes"
fi

# ---- 13. An I/O error reading the marker is an I/O error ----------------------------------------

loc=$(shmdir)
"$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	for cmd in clean run; do
		strace -qq -o /dev/null -P "$loc/fsmix.fs0/.fsmix-tree" -e trace=read -e inject=read:error=EIO \
			"$bin" $cmd "$prof" -l "$loc" --time 1 >/dev/null 2>"$work/eio.err"
		rc=$?
		[ $rc -eq 1 ] && grep -q "Input/output error" "$work/eio.err" && ! grep -q "not created by fsmix" "$work/eio.err" &&
			[ -f "$loc/fsmix.fs0/.fsmix-tree" ] &&
			ok "13: EIO reading the marker ($cmd): exit 1 with the errno, tree kept" ||
			bad "13: EIO ($cmd): exit $rc, $(tail -1 "$work/eio.err")"
	done
else
	skip_env strace "13: EIO: strace is unavailable"
fi
bad_emfile=
for lim in 4 5 6 7 8 9 10 11 12; do
	(ulimit -n "$lim" && exec "$bin" clean "$prof" -l "$loc") >/dev/null 2>"$work/emfile.err"
	rc=$?
	if [ $rc -eq 2 ] || grep -q "not created by fsmix\|no longer has" "$work/emfile.err"; then
		bad_emfile="$bad_emfile $lim:$rc"
	fi
	[ -d "$loc/fsmix.fs0" ] || "$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
done
[ -z "$bad_emfile" ] && ok "13: EMFILE (ulimit -n 4..12) in clean: never 'not created by fsmix', never exit 2" ||
	bad "13: EMFILE: limit:exit$bad_emfile"

# ---- 14. Address space by the tree's size ---------------------------------------------------

if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "14: ulimit -v under sanitizers (their shadow memory needs terabytes)"
else
	loc=$(shmdir)
	(ulimit -v 600000 && exec "$bin" run "$prof" -l "$loc" --time 1) >/dev/null 2>"$work/as.err"
	rc=$?
	[ $rc -eq 0 ] && ok "14: a 10-file run works under ulimit -v 600000" ||
		bad "14: ulimit -v 600000: exit $rc, $(tail -1 "$work/as.err")"
	(ulimit -v 600000 && exec "$bin" run "$prof" -l "$loc" --time 1 --set threadgroup0.create_weight=0 \
		--set threadgroup0.num_ops=50) >/dev/null 2>"$work/as2.err"
	rc=$?
	[ $rc -eq 0 ] && ok "14: and a counted run without creates" ||
		bad "14: counted run: exit $rc, $(tail -1 "$work/as2.err")"
fi
# A counted run reserves exactly its reach: 10 files + 2 threads x 50 creates all fit.
loc=$(shmdir)
"$bin" run "$creates" -l "$loc" --set threadgroup0.num_ops=50 --set time=0 >/dev/null 2>"$work/reach.err"
rc=$?
n=$(find "$loc/fsmix.fs0/data" -type f | wc -l)
[ $rc -eq 0 ] && [ "$n" -eq 110 ] && ok "14: a counted create run fills exactly its reserved reach (110 files)" ||
	bad "14: counted creates: exit $rc, $n files, $(tail -1 "$work/reach.err")"

summary
