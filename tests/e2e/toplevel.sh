#!/usr/bin/env bash
# The top level of the repository holds only what README.md's "Layout" section lists: every
# entry git tracks there (a file, or the first folder of a path) is listed, and every listed one
# exists, so a stray file (an error log a sweep left, committed by mistake) fails here, and so
# does a new folder nobody documented. And no tracked file cites the reference documents
# (FFSB's behaviour, the design notes) by one machine's absolute path: they are
# ../shared/reference/ beside the checkout. Needs the git checkout (skipped in an unpacked
# source archive); untracked files of a working tree are not looked at.
set -u
. "$(dirname "$0")/lib.bash"
if ! command -v git >/dev/null ||
	! git -c safe.directory="$src" -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
	skipped "toplevel: $src is not a git checkout"
	summary
fi
# The section's entries: lines "- `NAME` — ..." between "## Layout" and the next heading.
awk '/^## / { on = ($0 == "## Layout") ; next }
	on && /^- `[^`]+`/ { sub(/^- `/, ""); sub(/`.*/, ""); print }' "$src/README.md" | sort -u >"$work/listed"
# What git tracks at the top: files as they are, folders with a '/'.
git -c safe.directory="$src" -C "$src" ls-files -z | tr '\0' '\n' |
	sed -E 's|^([^/]*)/.*|\1/|' | sort -u >"$work/tracked"
if [ ! -s "$work/listed" ]; then
	bad "README.md has no '## Layout' section listing the top level"
	summary
fi
stray=$(comm -13 "$work/listed" "$work/tracked")
gone=$(comm -23 "$work/listed" "$work/tracked")
[ -z "$stray" ] && ok "every top-level entry is in README.md's layout ($(wc -l <"$work/tracked") entries)" ||
	bad "top-level entries README.md's layout does not list: $(echo $stray)"
[ -z "$gone" ] && ok "every entry of README.md's layout exists" ||
	bad "README.md's layout lists what the repository does not hold: $(echo $gone)"
absolute=$(git -c safe.directory="$src" -C "$src" grep -nE '(^|[^.])/[^ ]*shared/reference/' -- . ':!tests/e2e/toplevel.sh')
[ -z "$absolute" ] && ok "the reference documents are cited as ../shared/reference/, by no absolute path" ||
	bad "cited by an absolute path (write ../shared/reference/...): $absolute"
summary
