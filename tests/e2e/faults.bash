# faults.bash - helpers of the fault-injection tests (faults_*.sh), sourced after lib.bash.
#
# Every fault case runs fsmix under `timeout` (a hang is a failure, exit 124), then checks the
# promises: the documented exit status, a whole JSON document that names the error, error counts,
# and that a victim directory beside the tree (files fsmix did not create) is unchanged.

# A tiny steady workload: 20 files of $fp_size (default 4KB) in 2 directories, 2 threads,
# weights given by the caller ("readall=2 writeall_fsync=1 ..."). time=30 only bounds a run
# whose fault never comes (the case then fails); every fault ends the run at once (a run stops
# at its first error).
# fault_profile FILE WEIGHTS...
fault_profile() {
	local file=$1 w
	shift
	{
		printf 'time=30\n[filesystem0]\n\tlocation=/tmp\n\tnum_files=20\n\tnum_dirs=2\n'
		printf '\tsize_weight %s 1\n\tcreate_blocksize=4KB\n[end0]\n[threadgroup0]\n' "${fp_size:-4KB}"
		printf '\tnum_threads=2\n\twrite_size=4KB\n\twrite_blocksize=4KB\n'
		printf '\tread_size=4KB\n\tread_blocksize=4KB\n'
		for w in "$@"; do
			printf '\t%s_weight=%s\n' "${w%%=*}" "${w#*=}"
		done
		printf '[end0]\n'
	} >"$file"
}
steady="$work/steady.ffsb"
fault_profile "$steady" readall=2 writeall_fsync=1 stat=1 open_close=1 create_fsync=1 delete=1

# victim_make DIR: files fsmix did not create, beside its tree (DIR/victim), and their
# checksums; victim_check DIR: are they unchanged (read through DIR, which may be another view
# of the same files, e.g. a FUSE mount's backing directory)?
victim_make() {
	mkdir -p "$1/victim/sub"
	head -c 65536 /dev/urandom >"$1/victim/data.bin"
	echo "keep me" >"$1/victim/sub/note.txt"
	(cd "$1/victim" && find . -print0 | sort -z | xargs -0 sha256sum 2>/dev/null) >"$work/victim.sums"
}
victim_check() {
	(cd "$1/victim" 2>/dev/null && find . -print0 | sort -z | xargs -0 sha256sum 2>/dev/null) |
		cmp -s - "$work/victim.sums"
}

# json_ok FILE JQ-EXPR: FILE is one valid JSON document (python3 -m json.tool) and the jq
# expression (or, without jq, nothing more) holds.
have_jq=0
command -v jq >/dev/null && have_jq=1
json_ok() {
	python3 -m json.tool "$1" >/dev/null 2>&1 || return 1
	[ $have_jq -eq 1 ] || return 0
	[ "$(jq -r "$2" "$1" 2>/dev/null)" = true ]
}

# The JSON of a run that one I/O error stopped: exit_status 1, stop_reason "error", every
# reported error has an errno named ERRNO from a system call SYSCALL (both regexes), an op, a
# path and a message, and the counts agree: the total's errors >= the number of workers that
# reported one, the op rows add up to the total, and each failed op counts its errors.
# json_has_error FILE SYSCALL-REGEX ERRNO-NAME-REGEX
json_has_error() {
	json_ok "$1" "(.exit_status == 1) and (.stop_reason == \"error\") and (.interrupted == false)
		and (.errors | length) >= 1
		and all(.errors[]; (.syscall | test(\"^($2)\$\")) and (.errno_name | test(\"^($3)\$\"))
			and (.op | length) > 0 and (.path | length) > 0 and (.message | length) > 0)
		and .total.errors >= (.errors | length)
		and ([.total.ops[].errors] | add) == .total.errors
		and all(.errors[] as \$e | .total.ops[] | select(.name == \$e.op); .errors >= 1)"
}

# run_bg OUT ARGS...: fsmix in the background under timeout (its PID in $run_pid); stdout to
# OUT.out, stderr to OUT.err.
run_bg() {
	local out=$1
	shift
	timeout -k 5 60 "$bin" "$@" >"$out.out" 2>"$out.err" &
	run_pid=$!
}

# run_wait: the background run's exit status in $rc (124/137: it hung and was killed). Not in
# a command substitution: a subshell cannot wait for its parent's child.
run_wait() {
	rc=0
	wait "$run_pid" || rc=$?
}

# show FILE: the last lines of a log, indented, after a FAIL.
show() {
	tail -n "${2:-4}" "$1" 2>/dev/null | sed 's/^/     /'
}

# show_run OUT: after a FAIL, the run's last stderr lines and what its JSON (OUT.json) says.
show_run() {
	show "$1.err"
	[ $have_jq -eq 1 ] && [ -f "$1.json" ] &&
		jq -c '{exit_status, stop_reason, errors: [.errors[] | [.op, .syscall, .errno_name]],
			total_errors: .total.errors}' "$1.json" 2>&1 | head -c 800 | sed 's/^/     /'
}

# no_stale_json FILE LABEL: a run whose setup failed left no older JSON claiming success in FILE
# (the test wrote one with exit_status 0 first): FILE now says exit_status 1, or is gone.
no_stale_json() {
	if [ ! -e "$1" ] || json_ok "$1" '.exit_status == 1'; then
		ok "$2: no stale JSON claiming success"
	else
		bad "$2: the old JSON (exit_status 0) is left in place (issue 10 case 10)"
	fi
}
