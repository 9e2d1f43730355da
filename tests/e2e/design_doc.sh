#!/usr/bin/env bash
# docs/design.md keeps up with src/ (issue 20, item 8): every file it names exists (a path with a
# folder from the top of the tree, a bare name somewhere under src/ or tests/), every .c file of
# src/ has a row in its module table, and each row's layer is the folder its files are in.
set -u
cd "${FSMIX_SOURCE_DIR:?}" || exit 1
doc=docs/design.md
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

missing=0
while read -r p; do
	p=${p##*[-(]} # "--overrides.c" in the diagram, "(exitcode.c" in a sentence
	case $p in *'*'* | '' | .*) continue ;; esac
	if [[ $p == */* ]]; then
		[ -e "$p" ] && continue
	else
		[ -n "$(find src tests -name "$p" -print -quit)" ] && continue
	fi
	missing=$((missing + 1))
	bad "$doc names $p, which does not exist"
done < <(grep -oE '[*A-Za-z0-9_./()-]+\.(c|h|def|md|sh|bash|txt|py)\b' "$doc" | sort -u)
[ "$missing" -eq 0 ] && ok "every file $doc names exists"

norow=0
while IFS= read -r f; do
	grep -qF "\`$(basename "$f")\`" "$doc" && continue
	norow=$((norow + 1))
	bad "$f has no row in $doc"
done < <(find src -name '*.c' | sort)
[ "$norow" -eq 0 ] && ok "every .c file of src/ has a row in $doc"

# Module rows: "| layer | `file`, `file` | job |".
wrong=0
while IFS='|' read -r _ layer files _; do
	layer=$(echo "$layer" | tr -d ' ')
	for f in $(grep -oE '`[^`]+\.(c|h|def)`' <<<"$files" | tr -d '`'); do
		[ -e "src/$layer/$f" ] || [ -e "src/$layer/internal/$f" ] && continue
		wrong=$((wrong + 1))
		bad "$doc puts $f in $layer, but it is not in src/$layer/"
	done
done < <(grep -E '^\| [a-z]+ \| `' "$doc")
[ "$wrong" -eq 0 ] && ok "every module row's layer is its files' folder"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
