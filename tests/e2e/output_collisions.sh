#!/usr/bin/env bash
# Two outputs on one file (issue 19, item 2).
#  Two outputs on one file (the same path, through a symbolic link, a hard link, "dir/..",
#     a dangling link naming the other's new file), or an output that is the profile or another
#     input: exit 2 before anything runs, the input untouched; a terminal or /dev/null taking two
#     outputs is no collision.
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
sum0=$(sha256sum <"$prof")
loc=$(shmdir)
o=$work/o
mkdir -p "$o/sub"

# ---- 2. two outputs on one file ----------------------------------------------------------------

# refused NAME ARGS...: exit 2 with a message, nothing created in the location, the profile and
# every file in $o unchanged.
refused() {
	local name=$1
	shift
	local before rc
	before=$(cd "$o" && find . -printf '%p %s %i\n' | sort)
	"$@" >/dev/null 2>"$work/err"
	rc=$?
	if [ "$rc" = 2 ] && [ -z "$(ls "$loc")" ] && [ "$(sha256sum <"$prof")" = "$sum0" ] &&
		[ "$before" = "$(cd "$o" && find . -printf '%p %s %i\n' | sort)" ] &&
		grep -qE "are the same file|is (the profile|the input|the latency log)" "$work/err"; then
		ok "$name: exit 2 before anything runs"
	else
		bad "$name: exit $rc: $(head -c 400 "$work/err")"
	fi
}
run() { "$bin" run "$prof" -l "$loc" "$@"; }

refused "--json X --csv X" run --json "$o/x" --csv "$o/x"
refused "--json X --lat-log X" run --json "$o/x" --lat-log "$o/x"
refused "--csv X --lat-log X" run --csv "$o/x" --lat-log "$o/x"
refused "--json X --plot X (a run over time)" run --interval 1 --json "$o/x.png" --plot "$o/x.png"
refused "--csv X --plot X (a sweep)" run --threads 1,2 --csv "$o/x.svg" --plot "$o/x.svg"
refused "--json X --csv dir/../X" run --json "$o/x" --csv "$o/sub/../x"
echo old >"$o/e.json"
ln -s e.json "$o/link"
refused "--json X --csv LINK-TO-X (existing)" run --json "$o/e.json" --csv "$o/link"
ln -s new.json "$o/dangling"
refused "--json DANGLING-LINK --csv ITS-TARGET" run --json "$o/dangling" --csv "$o/new.json"
ln "$o/e.json" "$o/hard"
refused "--json X --csv HARD-LINK-OF-X" run --json "$o/e.json" --csv "$o/hard"
refused "--json - --csv FILE-THAT-IS-STDOUT" sh -c "exec \"\$@\" >\"$work/stdout\"" sh \
	"$bin" run "$prof" -l "$loc" --json - --csv "$work/stdout"
refused "--json PROFILE" run --json "$prof"
ln -s "$prof" "$o/plink"
refused "--lat-log LINK-TO-PROFILE" run --lat-log "$o/plink"
refused "--csv PROFILE (a sweep)" run --threads 1,2 --csv "$prof"
refused "--json PROFILE (through ./)" "$bin" run "./$(basename "$prof")" -l "$loc" --json "$prof"

# compare and plot: an output on an input, or two outputs on one file.
"$bin" run "$prof" -l "$loc" --time 1 --json "$o/a.json" >/dev/null 2>&1
"$bin" run "$prof" -l "$loc" --time 1 --json "$o/b.json" >/dev/null 2>&1
"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1
if [ -s "$o/a.json" ] && [ -s "$o/b.json" ]; then
	refused "compare A B --json A" "$bin" compare "$o/a.json" "$o/b.json" --json "$o/a.json"
	refused "compare A B --csv C --json C" "$bin" compare "$o/a.json" "$o/b.json" --csv "$o/c" \
		--json "$o/c"
	cp "$o/a.json" "$o/a.svg"
	refused "plot A -o A" "$bin" plot "$o/a.svg" -o "$o/a.svg"
else
	bad "the runs for compare and plot wrote no JSON"
fi
"$bin" run "$prof" -l "$loc" --time 1 --lat-log "$o/log.svg" >/dev/null 2>&1
"$bin" clean "$prof" -l "$loc" >/dev/null 2>&1
refused "plot --lat-log LOG -o LOG" "$bin" plot --lat-log "$o/log.svg" -o "$o/log.svg"

# Not collisions: two outputs on /dev/null, and two different files.
if run --json /dev/null --csv /dev/null >/dev/null 2>"$work/err"; then
	ok "--json /dev/null --csv /dev/null: exit 0 (a device takes both)"
else
	bad "--json /dev/null --csv /dev/null: $(head -c 300 "$work/err")"
fi
if run --json "$o/j1" --csv "$o/c1" >/dev/null 2>"$work/err" && [ -s "$o/j1" ] && [ -s "$o/c1" ]; then
	ok "--json J --csv C: both written"
else
	bad "--json J --csv C: $(head -c 300 "$work/err")"
fi


[ -z "$(find "$o" -name '*.tmp-*')" ] && ok "no temporary file left" ||
	bad "temporary files left: $(find "$o" -name '*.tmp-*')"
summary
