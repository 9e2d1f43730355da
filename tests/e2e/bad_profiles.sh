#!/usr/bin/env bash
# The bad-profile corpus: every tests/bad/*.ffsb states its oracle in its header comments
#   # expect-exit: 2
#   # expect: @FILE@:7: error: [threadgroup0] num_threads: 0 is out of range (1..65536)
# (or in a sidecar NAME.expect when the profile cannot hold comments, e.g. the empty one), and
# optionally the options to check it with ("# args: --strict-ffsb").
# For each file, `fsmix check FILE` must exit with that status and print exactly the expect
# lines on stderr (@FILE@ is the path passed), followed by the summary line, which is checked
# too: "fsmix: N errors in FILE; nothing was run" with N = the expected errors, or
# "FILE: OK (N warnings)". Exit-2 profiles must give the same through `fsmix run`. Both run in
# an empty working directory holding the profiles' locations (loc, loc2), and nothing may
# appear there: a bad profile touches nothing on disk.
set -u
src=${FSMIX_SOURCE_DIR:?} bin=${FSMIX_BIN:?}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/work
mkdir -p "$work/loc" "$work/loc2"
listing() { (cd "$work" && find . -printf '%p %y %s\n' | LC_ALL=C sort); }
before=$(listing)

# check_one FILE ORACLE COMMAND: 0 if the output matches, else prints why and returns 1. Sets
# expected_exit to the oracle's exit status.
check_one() {
	local f=$1 oracle=$2 cmd=$3 want="" errors=0 warnings=0 summary line args=()
	: >"$tmp/want"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		case $line in
		"# expect-exit: "*) [ -n "$want" ] || want=${line#"# expect-exit: "} ;;
		"# args: "*) read -ra args <<<"${line#"# args: "}" ;;
		"# expect: "*)
			line=${line#"# expect: "}
			line=${line//@FILE@/$f}
			case $line in *": error: "*) errors=$((errors + 1)) ;; esac
			case $line in *": warning: "*) warnings=$((warnings + 1)) ;; esac
			printf '%s\n' "$line" >>"$tmp/want"
			;;
		esac
	done < <(LC_ALL=C tr -d '\000' <"$oracle" | LC_ALL=C grep -a '^#')
	expected_exit=${want:-none}
	if [ -z "$want" ]; then
		echo "     no '# expect-exit:' line in $oracle"
		return 1
	fi
	if [ "$want" -eq 0 ]; then
		summary="$f: OK ($warnings warning$([ "$warnings" -eq 1 ] || echo s))"
	else
		summary="fsmix: $errors error$([ "$errors" -eq 1 ] || echo s) in $f; nothing was run"
	fi
	echo "$summary" >>"$tmp/want"
	(cd "$work" && "$bin" "$cmd" "${args[@]}" "$f" >"$tmp/out" 2>"$tmp/err")
	local got=$? ok=0
	if [ "$got" -ne "$want" ]; then
		echo "     $cmd: exit $got, expected $want"
		ok=1
	fi
	if ! diff -u "$tmp/want" "$tmp/err" >"$tmp/diff"; then
		echo "     $cmd: stderr differs (- expected, + got):"
		sed -n '3,$s/^/       /p' "$tmp/diff"
		ok=1
	fi
	return $ok
}

shopt -s nullglob
files=("$src"/tests/bad/*.ffsb)
if [ "${#files[@]}" -lt 45 ]; then
	echo "FAIL only ${#files[@]} profiles in tests/bad (at least 45 expected)"
	fail=$((fail + 1))
fi
for f in "${files[@]}"; do
	name=$(basename "$f" .ffsb)
	oracle=$f
	[ -e "${f%.ffsb}.expect" ] && oracle=${f%.ffsb}.expect
	if check_one "$f" "$oracle" check >"$tmp/why"; then
		status=0
		if [ "$expected_exit" -eq 2 ] && ! check_one "$f" "$oracle" run >"$tmp/why"; then
			status=1
		fi
	else
		status=1
	fi
	now=$(listing)
	if [ "$now" != "$before" ]; then
		echo "     the working directory changed:" >>"$tmp/why"
		diff <(echo "$before") <(echo "$now") | sed 's/^/       /' >>"$tmp/why"
		rm -rf "$work" && mkdir -p "$work/loc" "$work/loc2"
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
		cat "$tmp/why"
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
