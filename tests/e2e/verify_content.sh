#!/usr/bin/env bash
# verify=1 (--verify) on a reused tree (docs/output.md, "Verifiable content"): a run that writes
# (odd sizes, overwrites, appends, whole rewrites) checks its own reads and leaves a manifest
# with every file's generation; later read-only runs with --verify pass on the untouched tree,
# and report a byte flipped behind fsmix's back (file, offset, exit 1, the JSON and CSV counts)
# and a file truncated behind its back. On tmpfs, and on a loop ext4 where one can be mounted.
# Fails on a binary without --verify.
set -u
. "$(dirname "$0")/lib.bash"

fs_block() { # LOCATION
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=12\n\tnum_dirs=2\n\treuse=1\n' "$1"
	printf '\tmin_filesize=6000\n\tmax_filesize=40000\n[end0]\n'
}
writer() { # LOCATION
	fs_block "$1"
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=150\n\tread_weight=2\n\treadall_weight=1\n'
	printf '\twrite_weight=2\n\tappend_weight=1\n\twriteall_weight=1\n\twrite_size=3001\n'
	printf '\twrite_blocksize=999\n\tread_size=5000\n\tread_blocksize=1777\n[end0]\n'
}
reader() { # LOCATION
	fs_block "$1"
	printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=300\n\treadall_weight=1\n'
	printf '\tread_blocksize=4096\n[end0]\n'
}
jq_() { # JSON PYTHON-EXPRESSION-OF-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}
# A file of the tree at least 4 KiB long: its path.
a_file() { # TREE [SKIP]
	find "$1/data" -type f -name 'f*' -size +4k | sort | sed -n "$((${2:-0} + 1))p"
}

check_location() { # NAME LOCATION
	local name=$1 loc=$2 tree=$2/fsmix.fs0 f g rc
	writer "$loc" >"$work/$name-w.ffsb"
	reader "$loc" >"$work/$name-r.ffsb"

	"$bin" run "$work/$name-w.ffsb" --verify --json "$work/$name-w.json" >"$work/$name-w.out" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ "$(jq_ "$work/$name-w.json" 'd["verify"]')" = 0 ]; then
		ok "$name: a run that writes checks its own reads (0 mismatches)"
	else
		bad "$name: writing run with --verify: exit $rc"
		sed -n '/Errors/,$p' "$work/$name-w.out" | head -5
		return
	fi

	# (3) untouched: the tree is reused with the generations the writer left
	"$bin" run "$work/$name-r.ffsb" --verify --json "$work/$name-r0.json" \
		--csv "$work/$name-r0.csv" >"$work/$name-r0.out" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "reused" "$work/$name-r0.out" &&
		[ "$(jq_ "$work/$name-r0.json" 'd["verify"]')" = 0 ] &&
		grep -q '^verify,total,mismatches,0,' "$work/$name-r0.csv" &&
		grep -q 'verify: 0 content mismatches' "$work/$name-r0.out"; then
		ok "$name: the untouched tree is reused and passes (0 mismatches in text, JSON, CSV)"
	else
		bad "$name: untouched tree: exit $rc"
		head -5 "$work/$name-r0.out"
	fi

	# (1) one byte flipped behind fsmix's back: in a block's offset word (the same in every
	# generation, so no generation explains the flip)
	f=$(a_file "$tree")
	local at=$((512 * 3 + 9)) orig
	orig=$(od -An -tx1 -j $at -N 1 "$f" | tr -d ' ')
	printf "\\x$(printf %02x $((0x$orig ^ 0x5a)))" | dd of="$f" bs=1 seek=$at conv=notrunc status=none
	"$bin" run "$work/$name-r.ffsb" --verify --json "$work/$name-r1.json" >"$work/$name-r1.out" 2>&1
	rc=$?
	if [ $rc = 1 ] && [ "$(jq_ "$work/$name-r1.json" 'd["verify"]')" = 1 ] &&
		[ "$(jq_ "$work/$name-r1.json" 'd["errors"][0]["kind"]')" = verify ] &&
		[ "$(jq_ "$work/$name-r1.json" 'd["errors"][0]["path"]')" = "$f" ] &&
		[ "$(jq_ "$work/$name-r1.json" 'd["errors"][0]["verify"]["offset"]')" = $at ] &&
		grep -q "verify: read($f): content check: .* at offset $at" "$work/$name-r1.out"; then
		ok "$name: a flipped byte is reported (file, offset $at, exit 1, count 1)"
	else
		bad "$name: flipped byte in $f at $at: exit $rc"
		grep -A2 "Errors" "$work/$name-r1.out" | head -4
	fi
	# --continue-on-error: the run goes on and counts every mismatching read
	"$bin" run "$work/$name-r.ffsb" --verify --continue-on-error \
		--json "$work/$name-r1c.json" >"$work/$name-r1c.out" 2>&1
	rc=$?
	g=$(jq_ "$work/$name-r1c.json" 'd["verify"]')
	if [ $rc = 1 ] && [ "${g:-0}" -gt 1 ] &&
		[ "$(jq_ "$work/$name-r1c.json" 'd["total"]["operations"] + d["total"]["errors"]')" = 300 ] &&
		[ "$(jq_ "$work/$name-r1c.json" 'd["total"]["errors"]')" = "$g" ]; then
		ok "$name: --continue-on-error goes on and counts $g mismatches"
	else
		bad "$name: --continue-on-error: exit $rc, count ${g:-none}"
	fi
	printf "\\x$orig" | dd of="$f" bs=1 seek=$at conv=notrunc status=none

	# (2) a file truncated behind fsmix's back (not a rebuild: verify=1 keeps the tree)
	f=$(a_file "$tree" 1)
	local size
	size=$(stat -c %s "$f")
	truncate -s $((size / 2)) "$f"
	"$bin" run "$work/$name-r.ffsb" --verify --json "$work/$name-r2.json" >"$work/$name-r2.out" 2>&1
	rc=$?
	if [ $rc = 1 ] && [ "$(jq_ "$work/$name-r2.json" 'd["errors"][0]["verify"]["verdict"]')" = short ] &&
		[ "$(jq_ "$work/$name-r2.json" 'd["errors"][0]["path"]')" = "$f" ] &&
		[ "$(jq_ "$work/$name-r2.json" 'd["errors"][0]["verify"]["offset"]')" = $((size / 2)) ]; then
		ok "$name: a truncated file is reported (short at $((size / 2)), exit 1)"
	else
		bad "$name: truncated $f: exit $rc"
		grep -A2 "Errors" "$work/$name-r2.out" | head -4
	fi
}

# directio=1: the content is filled into the aligned buffer; writes and checked reads of
# whole 4 KiB blocks pass
check_directio() { # LOCATION
	local p=$work/content-dio.ffsb rc
	printf 'directio=1\n[filesystem0]\n\tlocation=%s\n\tnum_files=8\n\treuse=1\n' "$1" >"$p"
	printf '\tsize_weight 16KB 1\n\tsize_weight 64KB 1\n[end0]\n' >>"$p"
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=100\n\treadall_weight=2\n\tread_weight=1\n' >>"$p"
	printf '\twrite_weight=2\n\tappend_weight=1\n\twrite_size=8192\n\twrite_blocksize=4096\n' >>"$p"
	printf '\tread_size=8192\n\tread_blocksize=4096\n[end0]\n' >>"$p"
	"$bin" run "$p" --verify --json "$work/content-dio.json" >"$work/content-dio.out" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ "$(jq_ "$work/content-dio.json" 'd["verify"]')" = 0 ]; then
		ok "ext4: directio=1 writes and checked reads pass"
	else
		bad "ext4: directio=1 with --verify: exit $rc"
		grep -A2 "Errors\|fsmix:" "$work/content-dio.out" | head -4
	fi
}

# A mix of every writing pattern (random blocks of odd sizes, sequential, appends, two-commit
# appends, rewrites, creates of 1 byte up, deletes) next to random, skipping and whole reads,
# in two groups sharing the files: no false mismatch, run after run on the reused tree.
check_mix() { # LOCATION
	local p=$work/content-mix.ffsb rc n
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=30\n\tnum_dirs=3\n\treuse=1\n' "$1" >"$p"
	printf '\tmin_filesize=1\n\tmax_filesize=90000\n[end0]\n' >>"$p"
	printf '[threadgroup0]\n\tnum_threads=3\n\tnum_ops=3000\n\tread_weight=3\n\treadall_weight=2\n' >>"$p"
	printf '\twrite_weight=2\n\tappend_weight=1\n\twriteall_weight=1\n\tcreate_weight=1\n' >>"$p"
	printf '\tdelete_weight=1\n\tappend_fsync2_weight=1\n\twrite_size=2049\n' >>"$p"
	printf '\twrite_blocksize=333\n\tread_size=7001\n\tread_blocksize=1111\n' >>"$p"
	printf '\twrite_random=1\n\tread_random=1\n[end0]\n' >>"$p"
	printf '[threadgroup1]\n\tnum_threads=2\n\tnum_ops=3000\n\tread_weight=1\n\twrite_weight=1\n' >>"$p"
	printf '\treadall_weight=1\n\twrite_size=10000\n\twrite_blocksize=4096\n\tread_size=3000\n' >>"$p"
	printf '\tread_blocksize=700\n\tread_skip=1\n\tread_skipsize=500\n[end0]\n' >>"$p"
	for n in 1 2 3; do
		"$bin" run "$p" --verify --seed $n --json "$work/content-mix$n.json" \
			>"$work/content-mix$n.out" 2>&1
		rc=$?
		if [ $rc != 0 ] || [ "$(jq_ "$work/content-mix$n.json" 'd["verify"]')" != 0 ]; then
			bad "mixed writers and readers, run $n: exit $rc"
			grep "verify:" "$work/content-mix$n.out" | head -2
			return
		fi
	done
	if grep -q reused "$work/content-mix3.out"; then
		ok "mixed writers and readers: 3 runs on one reused tree, 0 mismatches"
	else
		bad "mixed writers and readers: the tree was not reused"
	fi
}

# an fsmix extension: refused under --strict-ffsb
reader /tmp >"$work/strict.ffsb"
if "$bin" check "$work/strict.ffsb" --verify --strict-ffsb >"$work/strict.out" 2>&1; then
	bad "--verify is accepted under --strict-ffsb"
elif [ $? = 2 ] && grep -q "verify: fsmix extension" "$work/strict.out"; then
	ok "--verify is an error under --strict-ffsb (exit 2)"
else
	bad "--verify --strict-ffsb: $(head -1 "$work/strict.out")"
fi

check_location tmpfs "$(shmdir)"
check_mix "$(shmdir)"
if mount_ext4 "$work/content-ext4" 64; then
	check_location ext4 "$work/content-ext4"
	check_directio "$work/content-ext4"
else
	skip_env loop "ext4: no loop ext4 here (needs root, losetup and mkfs.ext4)"
fi
summary
