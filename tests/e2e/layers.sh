#!/usr/bin/env bash
# The layers of src/ (src/CMakeLists.txt, docs/design.md) call only downwards: no object of a
# layer may need a symbol that a higher layer defines. The build already refuses upward
# #includes (a layer sees only its own and lower layers' headers) and the link order refuses
# most upward calls; this checks every symbol, whatever the linker happened to pull in first.
# Also: no source file over 800 lines, no function over 120 lines (ctags), where ctags exists.
set -u
cd "${FSMIX_SOURCE_DIR:?}" || exit 1
build=${FSMIX_BUILD_DIR:?}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

layers=($(sed -n 's/^set(FSMIX_LAYERS \(.*\))$/\1/p' src/CMakeLists.txt))
[ ${#layers[@]} -ge 5 ] && ok "layers: ${layers[*]}" || bad "cannot read FSMIX_LAYERS"

# Every folder of src/ is a layer, the command line, or a program of its own outside the layers
# (FSMIX_PROGRAMS: fsmix-powercut).
programs=($(sed -n 's/^set(FSMIX_PROGRAMS \(.*\))$/\1/p' src/CMakeLists.txt))
for d in src/*/; do
	d=${d%/}
	d=${d#src/}
	[[ " ${layers[*]} cli ${programs[*]} " == *" $d "* ]] ||
		bad "src/$d is not a layer (or a program, FSMIX_PROGRAMS) in src/CMakeLists.txt"
done

# Which layer defines each global symbol.
declare -A owner rank
for i in "${!layers[@]}"; do
	l=${layers[$i]}
	rank[$l]=$i
	lib=$(find "$build/src" -name "libfsmix_$l.a" | head -1)
	[ -n "$lib" ] || { bad "libfsmix_$l.a not built"; continue; }
	while read -r sym; do
		owner[$sym]=$l
	done < <(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }')
done
for l in "${layers[@]}"; do
	lib=$(find "$build/src" -name "libfsmix_$l.a" | head -1)
	[ -n "$lib" ] || continue
	up=0
	while read -r sym; do
		o=${owner[$sym]:-}
		[ -n "$o" ] || continue
		if [ "${rank[$o]}" -gt "${rank[$l]}" ]; then
			up=$((up + 1))
			bad "layer $l needs $sym from the higher layer $o"
		fi
	done < <(nm -u "$lib" 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u)
	[ "$up" -eq 0 ] && ok "layer $l calls only itself and lower layers"
done

# Sizes.
while IFS= read -r f; do
	n=$(wc -l <"$f")
	[ "$n" -le 800 ] || bad "$f has $n lines (at most 800)"
done < <(find src -name '*.[ch]' | sort)
ok "file sizes checked"
if command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q Universal; then
	long=$(find src -name '*.c' -print0 | xargs -0 ctags --c-kinds=f --fields=+ne -f - 2>/dev/null |
		awk -F'\t' '{ l = e = 0; for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) } if (e - l + 1 > 120) print $2 ":" l " " $1 "() " e - l + 1 " lines" }')
	if [ -z "$long" ]; then ok "no function over 120 lines"; else
		while IFS= read -r x; do bad "function too long: $x"; done <<<"$long"
	fi
else
	echo "skip function lengths: Universal Ctags is not installed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
