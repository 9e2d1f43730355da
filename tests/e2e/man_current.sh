#!/usr/bin/env bash
# The man page's SYNOPSIS and OPTIONS (docs/fsmix.1, between the "fsmix --help-man: ... begin"
# and "end" lines) must equal `fsmix --help-man`, which prints them from the command and option
# tables (src/cli/commands.c, src/cli/options.c), as --help does: an option added, removed or
# reworded in the table without regenerating the page fails here.
# Regenerate: FSMIX_SOURCE_DIR=. FSMIX_BIN=build/src/fsmix bash tests/e2e/man_current.sh --write
set -u
doc="$FSMIX_SOURCE_DIR/docs/fsmix.1"
gen=$(mktemp)
trap 'rm -f "$gen" "$gen.new"' EXIT
if ! "$FSMIX_BIN" --help-man >"$gen" || ! grep -q '^\.SH OPTIONS$' "$gen"; then
	echo "fsmix --help-man failed"
	echo "0 passed, 1 failed"
	exit 1
fi
# blocks FILE: the generated blocks of FILE, markers included.
blocks() {
	awk '/^\.\\" fsmix --help-man: [A-Z]+ begin/ { on = 1 } on { print }
		/^\.\\" fsmix --help-man: [A-Z]+ end/ { on = 0 }' "$1"
}
if [ "${1:-}" = --write ]; then
	# Each block of the page is replaced by the block of the same name from fsmix.
	awk -v gen="$gen" '
		BEGIN { while ((getline l < gen) > 0) {
			if (match(l, /fsmix --help-man: [A-Z]+ begin/)) { split(substr(l, RSTART), w, " "); name = w[3] }
			block[name] = block[name] l "\n" } }
		/^\.\\" fsmix --help-man: [A-Z]+ begin/ { split($0, w, " "); printf "%s", block[w[4]]; skip = 1; next }
		skip && /^\.\\" fsmix --help-man: [A-Z]+ end/ { skip = 0; next }
		!skip { print }' "$doc" >"$gen.new" && mv "$gen.new" "$doc"
	echo "regenerated the SYNOPSIS and OPTIONS of $doc"
	exit 0
fi
pass=0 fail=0
if diff -u <(blocks "$doc") "$gen"; then
	pass=$((pass + 1))
	echo "ok   docs/fsmix.1's SYNOPSIS and OPTIONS are fsmix --help-man's"
else
	fail=$((fail + 1))
	echo "FAIL docs/fsmix.1 is stale: regenerate it (see the head of tests/e2e/man_current.sh)"
fi
# Every option that --help lists is in the page's OPTIONS, and every subcommand in its SYNOPSIS.
for opt in $("$FSMIX_BIN" --help | grep -oE -- '(^|[ ,[(])--[a-z][a-z-]*' | sed 's/^[ ,[(]//' | sort -u); do
	if grep -qF -- "\\fB$(sed 's/-/\\-/g' <<<"$opt")\\fR" <(blocks "$doc" | sed -n '/SH OPTIONS/,$p'); then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $opt is in --help but not in the man page's OPTIONS"
	fi
done
for cmd in run check clean compare plot keys; do
	if blocks "$doc" | grep -q "^\\\\fBfsmix\\\\fR \\\\fB$cmd\\\\fR"; then pass=$((pass + 1)); else
		fail=$((fail + 1))
		echo "FAIL no 'fsmix $cmd' in the man page's SYNOPSIS"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
