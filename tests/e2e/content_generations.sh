#!/usr/bin/env bash
# Generations have no ceiling (docs/output.md, "Verifiable content"; issue 26 item 2): one 64
# KiB file on tmpfs rewritten by 9,000 random 4 KiB writes in 512-byte blocks (each block its
# own generation: 72,000 of them), with reads between them, in a counted run. `run --verify`
# ends with 0 mismatches (exit 0) and `fsmix verify` of its --durability-log finds every
# promise kept (exit 0), with content=header (what the run writes by default when it checks)
# and content=random. Fails on fc73ac9: "foreign data at offset 16 ... expected 1..65537" in the
# run (exit 1), and verify's "wrong" (exit 1), once the file passes 65,536 generations.
set -u
. "$(dirname "$0")/lib.bash"

profile() { # LOCATION CONTENT
	printf 'verify=1\ncontent=%s\n' "$2"
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=1\n\tnum_dirs=1\n' "$1"
	printf '\tmin_filesize=65536\n\tmax_filesize=65536\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=9200\n\twrite_weight=29\n'
	printf '\treadall_weight=1\n\twrite_random=1\n\twrite_size=4096\n\twrite_blocksize=512\n'
	printf '\tread_blocksize=65536\n[end0]\n'
}
jq_() { # JSON PYTHON-EXPRESSION-OF-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

for content in header random; do
	loc=$(shmdir)
	profile "$loc" $content >"$work/$content.ffsb"
	"$bin" run "$work/$content.ffsb" --seed 1 --json "$work/$content.json" \
		--durability-log "$work/$content.log" >"$work/$content.out" 2>&1
	rc=$?
	writes=$(jq_ "$work/$content.json" \
		'[o["transactions"] for o in d["total"]["ops"] if o["name"] == "write"][0]')
	if [ $rc = 0 ] && [ "$(jq_ "$work/$content.json" 'd["verify"]')" = 0 ] &&
		grep -q 'verify: 0 content mismatches' "$work/$content.out" &&
		[ "${writes:-0}" -gt 65536 ]; then
		ok "$content: run --verify over $writes generations of one file: 0 mismatches"
	else
		bad "$content: run --verify over ${writes:-?} generations: exit $rc"
		grep -m2 'content check' "$work/$content.out"
	fi
	"$bin" verify "$work/$content.ffsb" --location "$loc" \
		--durability-log "$work/$content.log" >"$work/$content.v" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q 'every promise kept' "$work/$content.v" &&
		grep -q 'broken 0' "$work/$content.v"; then
		ok "$content: fsmix verify of its log: every promise kept"
	else
		bad "$content: fsmix verify of its log: exit $rc"
		grep -m2 -E 'wrong|stale|torn|foreign' "$work/$content.v"
	fi
done
summary
