#!/usr/bin/env bash
# Nested locations (issue 19, item 12): a filesystem whose location is inside another
# filesystem's tree (<location0>/fsmix.fs0, its .new/.del/.rR names, or below) is refused at
# check time -- by `fsmix check`, `run` (also with --cleanup), `clean` and a sweep -- with the
# file, line and key, exit 2, before anything is created. Through "..", a symbolic link, or
# a location that does not exist yet, and either way round. The same location twice, and a
# location beside or above another's tree, stay fine.
set -u
. "$(dirname "$0")/lib.bash"
cd "$work" || exit 1

loc=$(shmdir)
prof=$work/nested.ffsb
cat >"$prof" <<EOF
time=1
[filesystem0]
	location=$loc
	num_files=4
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[filesystem1]
	location=$loc/fsmix.fs0/data
	num_files=4
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end1]
[threadgroup0]
	num_threads=1
	read_weight=1
	read_size=4KB
	read_blocksize=4KB
[end0]
EOF
line1=$(grep -n "location=$loc/fsmix.fs0/data" "$prof" | cut -d: -f1)

# refused NAME WHERE ARGS...: exit 2, the error at WHERE ("FILE:LINE", or the option, which
# messages shorten), "[filesystemN] location: ... is inside", nothing in the location.
refused() {
	local name=$1 where=$2 rc
	shift 2
	"$@" >/dev/null 2>"$work/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$where" "$work/err" && grep -qF ": error: [filesystem" "$work/err" &&
		grep -q "] location: .* is inside filesystem[01]'s tree" "$work/err" &&
		[ -z "$(ls -A "$loc")" ]; then
		ok "$name: exit 2 at $where, nothing created"
	else
		bad "$name: exit $rc: $(head -c 400 "$work/err"); in $loc: $(ls -A "$loc")"
	fi
}
refused "check" "$prof:$line1" "$bin" check "$prof"
"$bin" check "$prof" --json >"$work/check.json" 2>/dev/null
rc=$?
if [ "$rc" = 2 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["messages"] if "is inside filesystem0" in json.dumps(x)]
assert not d["valid"] and m and str(sys.argv[2]) in json.dumps(m[0]), d["messages"]' \
	"$work/check.json" "$line1" 2>"$work/err"; then
	ok "check --json: exit 2, the message with line $line1"
else
	bad "check --json: exit $rc: $(head -c 300 "$work/err")"
fi
refused "run" "$prof:$line1" "$bin" run "$prof"
refused "run --cleanup" "$prof:$line1" "$bin" run "$prof" --cleanup
refused "clean" "$prof:$line1" "$bin" clean "$prof"
refused "a sweep" "$prof:$line1" "$bin" run "$prof" --threads 1,2
set1="--set filesystem1.location"
refused "the tree's .del, through '..'" "$set1=" \
	"$bin" check "$prof" --set "filesystem1.location=$loc/sub/../fsmix.fs0.del/x"
refused "an MPI rank's tree" "$set1=" \
	"$bin" check "$prof" --set "filesystem1.location=$loc/fsmix.fs0.r3"
ln -s "$loc" "$work/alias"
refused "through a symbolic link to the location" "$set1=" \
	"$bin" check "$prof" --set "filesystem1.location=$work/alias/fsmix.fs0"
outer=$(shmdir)
refused "filesystem0 inside filesystem1's tree" "--set filesystem0.location" \
	"$bin" check "$prof" --set "filesystem1.location=$outer" \
	--set "filesystem0.location=$outer/fsmix.fs1/meta"

# Fine: the same location twice, a location beside the tree, a location above it.
mkdir -p "$loc/sub"
for l in "$loc" "$loc/sub" "$(dirname "$loc")"; do
	if "$bin" run "$prof" --time 0 --set "filesystem1.location=$l" >/dev/null 2>"$work/err" &&
		"$bin" clean "$prof" --set "filesystem1.location=$l" >/dev/null 2>>"$work/err"; then
		ok "filesystem1 at $l: run and clean, exit 0"
	else
		bad "filesystem1 at $l: $(head -c 400 "$work/err")"
	fi
done
summary
