#!/usr/bin/env bash
# content=auto, the default (docs/output.md, "Content modes"): a run that checks nothing writes
# content=fixed (one 512-byte pattern, no header: what a write sends is one read-only copy);
# a run with --verify or --durability-log writes header content, which it can check.
#   - default run: every file built and written is the one pattern (period 512, the same block
#     in every file, no header of file id / offset)
#   - default run with --verify: header content (word 0 the file id, word 1 the offset), 0
#     mismatches; with --durability-log: header content, and fsmix verify keeps every promise
#   - reuse=1: a fixed tree is rebuilt, not reused, by a run with --verify (whose reads then
#     check), and that header tree is reused by the next --verify run
#   - content=fixed with --verify, or with --durability-log: exit 2, the key at its line
#   - directio=1 (on /tmp): fixed content all the same
# Fails on a binary whose default writes headers (or without the fixed mode).
set -u
. "$(dirname "$0")/lib.bash"

run_() { timeout 180 "$bin" "$@"; }
profile() { # LOCATION [REUSE [CONTENT]]
	printf 'seed=31\n'
	[ -n "${3:-}" ] && printf 'content=%s\n' "$3"
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=40\n\tnum_dirs=2\n\treuse=%s\n' "$1" "${2:-0}"
	printf '\tmin_filesize=8k\n\tmax_filesize=40k\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=120\n\twrite_weight=2\n'
	printf '\tappend_weight=1\n\twriteall_weight=1\n\tcreate_weight=1\n\tread_weight=2\n'
	printf '\twrite_size=5000\n\twrite_blocksize=4096\n\tread_size=8192\n'
	printf '\tread_blocksize=4096\n[end0]\n'
}

# kind DIR: "fixed" when every byte of every file, its last partial block too, is byte
# (offset mod 512) of one 512-byte block, the same in every file; "header" when every whole
# block starts with its file's id and its own offset and has the payload (words 3..63) of every
# other block of the tree (content=random's payload differs from block to block); else what was
# found.
kind() {
	python3 - "$1" <<'EOF'
import os, struct, sys
files = []
for root, _, names in os.walk(sys.argv[1]):
    files += [os.path.join(root, n) for n in names if n.startswith("f")]
ref, fixed, header, payloads, blocks = None, True, True, set(), 0
for p in sorted(files):
    d = open(p, "rb").read()
    fid = int(os.path.basename(p)[1:])
    if ref is None and len(d) >= 512:
        ref = d[:512]
    if ref is not None:
        fixed = fixed and d == (ref * (len(d) // 512 + 1))[:len(d)]
    for o in range(0, len(d) - 511, 512):
        b = d[o:o + 512]
        blocks += 1
        payloads.add(b[24:])
        w0, w1 = struct.unpack_from("<QQ", b)
        header = header and (w0 & 0xffffffff) == fid and w1 == o
if not blocks or ref is None:
    print("no-data")
elif fixed:
    print("fixed")
elif header and len(payloads) == 1:
    print("header")
else:
    print("mixed(%d blocks, %d distinct payloads)" % (blocks, len(payloads)))
EOF
}

# expect_run NAME KIND PATTERN PREFIX WHAT [ARGS...]: the default profile (after the line PREFIX)
# in a fresh location, run with ARGS; passes when it exits 0, its files are KIND and its output
# has a line matching PATTERN. Sets $loc.
expect_run() {
	local name=$1 want=$2 pattern=$3 prefix=$4 what=$5
	shift 5
	loc=$(shmdir)
	{ printf '%s' "$prefix"; profile "$loc"; } >"$work/$name.ffsb"
	run_ run "$work/$name.ffsb" "$@" >"$work/$name.out" 2>&1
	local rc=$? k
	k=$(kind "$loc/fsmix.fs0/data")
	if [ $rc = 0 ] && [ "$k" = "$want" ] && grep -q "$pattern" "$work/$name.out"; then
		ok "$what"
	else
		bad "$what: exit $rc, content '$k'"
		head -5 "$work/$name.out"
	fi
}

# 1. the default, nothing checked: fixed, and said so
expect_run d fixed "files in .* s, content fixed$" "" \
	"default run (no verify, no log): every file is the one 512-byte pattern, no header; said"
# 2. the default with --verify, or verify=1 in the profile: header, checked
expect_run v header 'verify: 0 content mismatches' "" \
	"default run with --verify: header content, 0 mismatches" --verify
expect_run vp header 'verify: 0 content mismatches' $'verify=1\n' \
	"default run with verify=1 in the profile: header content, 0 mismatches"

# 3. the default with --durability-log: header, and fsmix verify checks it
loc=$(shmdir)
profile "$loc" >"$work/l.ffsb"
run_ run "$work/l.ffsb" --durability-log "$work/l.log" >"$work/l.out" 2>&1
rc=$?
k=$(kind "$loc/fsmix.fs0/data")
run_ verify "$work/l.ffsb" --location "$loc" --durability-log "$work/l.log" >"$work/lv.out" 2>&1
rc2=$?
if [ $rc = 0 ] && [ "$k" = header ] && [ $rc2 = 0 ]; then
	ok "default run with --durability-log: header content; fsmix verify: every promise kept"
else
	bad "default run with --durability-log: exit $rc, content '$k', verify exit $rc2"
	head -5 "$work/l.out" "$work/lv.out"
fi

# 4. reuse=1: the fixed tree of a default run is rebuilt for --verify, then reused by it
loc=$(shmdir)
profile "$loc" 1 >"$work/r.ffsb"
run_ run "$work/r.ffsb" >"$work/r1.out" 2>&1
rc1=$?
k1=$(kind "$loc/fsmix.fs0/data")
run_ run "$work/r.ffsb" --verify >"$work/r2.out" 2>&1
rc2=$?
k2=$(kind "$loc/fsmix.fs0/data")
run_ run "$work/r.ffsb" --verify >"$work/r3.out" 2>&1
rc3=$?
if [ "$rc1$rc2$rc3" = 000 ] && [ "$k1" = fixed ] && [ "$k2" = header ] &&
	! grep -q reused "$work/r2.out" && grep -q reused "$work/r3.out" &&
	grep -q 'verify: 0 content mismatches' "$work/r2.out" &&
	grep -q 'verify: 0 content mismatches' "$work/r3.out"; then
	ok "reuse=1: a fixed tree is rebuilt (header) by --verify, which then reuses it, 0 mismatches"
else
	bad "reuse=1 across auto: exits $rc1 $rc2 $rc3, content '$k1' then '$k2'"
	grep -i "reuse\|rebuil\|verify:" "$work/r2.out" "$work/r3.out" | head -6
fi

# 5. content=fixed where something checks: refused at its line
loc=$(shmdir)
profile "$loc" 0 fixed >"$work/f.ffsb"
run_ run "$work/f.ffsb" --verify >"$work/f1.out" 2>&1
rc1=$?
run_ run "$work/f.ffsb" --durability-log "$work/f.log" >"$work/f2.out" 2>&1
rc2=$?
if [ $rc1 = 2 ] && grep -q "f.ffsb:2: .*content.*verify=1 has nothing to check" "$work/f1.out" &&
	[ $rc2 = 2 ] && grep -q "f.ffsb:2: .*content.*durability log has nothing to check" "$work/f2.out" &&
	[ ! -e "$loc/fsmix.fs0" ] && [ ! -s "$work/f.log" ]; then
	ok "content=fixed with --verify or --durability-log: exit 2 at its line, nothing built"
else
	bad "content=fixed checked: exits $rc1 $rc2"
	head -3 "$work/f1.out" "$work/f2.out"
fi
run_ run "$work/f.ffsb" >"$work/f3.out" 2>&1
rc=$?
k=$(kind "$loc/fsmix.fs0/data")
if [ $rc = 0 ] && [ "$k" = fixed ]; then
	ok "content=fixed given: fixed content"
else
	bad "content=fixed: exit $rc, content '$k'"
fi

# 6. direct I/O (on the disk under /tmp: tmpfs may refuse O_DIRECT): fixed content sent from the
# shared copy, which is page-aligned where a write at a multiple of 512 starts
loc=$(mktemp -d "$work/dio.XXXXXX")
{
	printf 'seed=3\ndirectio=1\n[filesystem0]\n\tlocation=%s\n\tnum_files=20\n' "$loc"
	printf '\tnum_dirs=2\n\tsize_weight 8KB 1\n\tsize_weight 16KB 1\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=100\n\twrite_weight=2\n\tappend_weight=1\n'
	printf '\twriteall_weight=1\n\tcreate_weight=1\n\twrite_size=8192\n\twrite_blocksize=4096\n[end0]\n'
} >"$work/dio.ffsb"
run_ run "$work/dio.ffsb" >"$work/dio.out" 2>&1
rc=$?
k=$(kind "$loc/fsmix.fs0/data")
if [ $rc = 0 ] && [ "$k" = fixed ]; then
	ok "directio=1: fixed content in every file (direct writes at multiples of 512 come from the shared copy)"
elif grep -q "O_DIRECT\|Invalid argument" "$work/dio.out"; then
	skipped "directio=1: this filesystem refuses O_DIRECT"
else
	bad "directio=1: exit $rc, content '$k'"
	head -5 "$work/dio.out"
fi

summary
