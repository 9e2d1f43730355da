#!/usr/bin/env bash
# The JSON's exit_status (issue 19, item 6).
# The JSON is written last, so its exit_status is the process's when another output fails:
# --csv /dev/full, a failing --plot (a stand-in gnuplot), a full standard output, for a run and a
# sweep, and with the JSON on standard output too.
set -u
. "$(dirname "$0")/lib.bash"
cd "$work" || exit 1

prof=$work/pairs.ffsb
cat >"$prof" <<'EOF'
time=1
[filesystem0]
	location=/tmp
	num_files=10
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=1
	op_delay=5
	read_weight=1
	read_size=4KB
	read_blocksize=4KB
[end0]
EOF
loc=$(shmdir)
o=$work/o
mkdir -p "$o"
run() { "$bin" run "$prof" -l "$loc" "$@"; }

# ---- 6. the JSON's exit_status when a later output fails -----------------------------------

# status_is NAME WANT JSON RC: the process exited WANT and the JSON says so.
status_is() {
	local name=$1 want=$2 json=$3 rc=$4 got
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["exit_status"])' \
		"$json" 2>/dev/null)
	if [ "$rc" = "$want" ] && [ "$got" = "$want" ]; then
		ok "$name: exit $rc, and the JSON says exit_status $got"
	else
		bad "$name: exit $rc, JSON exit_status '${got:-none}' (want $want): $(head -c 300 "$work/err")"
	fi
}
fake=$work/fakebin
mkdir -p "$fake"
printf '#!/bin/sh\necho "gnuplot: broken" >&2\nexit 1\n' >"$fake/gnuplot"
chmod +x "$fake/gnuplot"

if [ -c /dev/full ]; then
	run --csv /dev/full --json "$o/s1.json" >/dev/null 2>"$work/err"
	status_is "run --csv /dev/full --json J" 1 "$o/s1.json" $?
	run --json "$o/s2.json" >/dev/full 2>"$work/err"
	status_is "run --json J, the text report to a full stdout" 1 "$o/s2.json" $?
	run --csv /dev/full --json - 2>"$work/err" >"$o/s3.json"
	status_is "run --csv /dev/full --json -" 1 "$o/s3.json" $?
	run --threads 1,2 --csv /dev/full --json "$o/s4.json" >/dev/null 2>"$work/err"
	status_is "sweep --csv /dev/full --json J" 1 "$o/s4.json" $?
	run --threads 1,2 --json "$o/s5.json" >/dev/full 2>"$work/err"
	status_is "sweep --json J, the text report to a full stdout" 1 "$o/s5.json" $?
else
	skipped "no /dev/full"
fi
PATH="$fake:$PATH" "$bin" run "$prof" -l "$loc" --interval 1 --plot "$o/p.png" \
	--json "$o/s6.json" >/dev/null 2>"$work/err"
status_is "run --interval 1 --plot P (gnuplot fails) --json J" 1 "$o/s6.json" $?
PATH="$fake:$PATH" "$bin" run "$prof" -l "$loc" --threads 1,2 --plot "$o/p.png" \
	--json "$o/s7.json" >/dev/null 2>"$work/err"
status_is "sweep --plot P (gnuplot fails) --json J" 1 "$o/s7.json" $?
run --csv "$o/c8" --json "$o/s8.json" >/dev/null 2>"$work/err"
status_is "run --csv C --json J (nothing fails)" 0 "$o/s8.json" $?
"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1

[ -z "$(find "$o" -name '*.tmp-*')" ] && ok "no temporary file left" ||
	bad "temporary files left: $(find "$o" -name '*.tmp-*')"
summary
