#!/usr/bin/env bash
# The compatibility corpus (tests/compat): published FFSB profiles, kept verbatim. For each
# line of tests/compat/MANIFEST, `fsmix check` and `fsmix check --strict-ffsb` must exit with
# the statuses given there, and the profile, scaled down by the line's overrides, must run
# for 2 s on tmpfs and exit 0. Every profile of tests/compat must have a manifest line. The
# runs are started together and then waited for (op_delay keeps each one mostly asleep), so
# the test takes about as long as one run.
source "$FSMIX_SOURCE_DIR/tests/e2e/lib.bash"
corpus=$src/tests/compat
manifest=$corpus/MANIFEST
declare -A listed=()
runs=()

while IFS= read -r line || [ -n "$line" ]; do
	case $line in '#'* | '') continue ;; esac
	read -r name want_check want_strict rest <<<"$line"
	listed[$name]=1
	f=$corpus/$name
	if [ ! -f "$f" ]; then
		bad "$name: listed in MANIFEST but missing"
		continue
	fi
	first=$(head -n1 "$f")
	case $first in
	"# source: "*) ;;
	*) bad "$name: the first line does not name the source ('# source: ...')" ;;
	esac
	"$bin" check "$f" >/dev/null 2>"$work/err"
	got=$?
	if [ "$got" -eq "$want_check" ]; then ok "$name: check exits $got"; else
		bad "$name: check exits $got, expected $want_check"
		sed 's/^/     /' "$work/err"
	fi
	"$bin" check --strict-ffsb "$f" >/dev/null 2>"$work/err"
	got=$?
	if [ "$got" -eq "$want_strict" ]; then ok "$name: check --strict-ffsb exits $got"; else
		bad "$name: check --strict-ffsb exits $got, expected $want_strict"
		sed 's/^/     /' "$work/err"
	fi
	[ "$rest" = "-" ] && continue
	# The overrides may quote values with blanks ('filesystem0.size_weight=4k 1').
	mapfile -t args < <(printf '%s' "$rest" | xargs -n1 printf '%s\n')
	loc=$(shmdir)
	# @tmpfs=SIZE: the run gets a private tmpfs of SIZE (a profile that ages to a share of its
	# filesystem must not fill the shared /dev/shm).
	if [[ ${args[0]:-} == @tmpfs=* ]]; then
		if ! mount_tmpfs "$loc" "size=${args[0]#@tmpfs=}"; then
			skip_env mount "$name: scaled run (cannot mount a tmpfs)"
			continue
		fi
		args=("${args[@]:1}")
	fi
	i=${#runs[@]}
	printf '%s\n' "$bin run $f --location $loc --time 2 $rest" >"$work/cmd.$i"
	"$bin" run "$f" --location "$loc" --time 2 "${args[@]}" >"$work/out.$i" 2>"$work/err.$i" &
	runs+=("$!:$name")
done <"$manifest"

for i in "${!runs[@]}"; do
	pid=${runs[$i]%%:*} name=${runs[$i]#*:}
	wait "$pid"
	got=$?
	if [ "$got" -eq 0 ] && grep -q "Transactions per Second" "$work/out.$i"; then
		ok "$name: scaled run"
	else
		bad "$name: scaled run exits $got: $(cat "$work/cmd.$i")"
		tail -n 5 "$work/err.$i" | sed 's/^/     /'
	fi
done

for f in "$corpus"/*.ffsb; do
	name=$(basename "$f")
	[ -n "${listed[$name]:-}" ] || bad "$name: in tests/compat but not in MANIFEST"
done
n=$(ls "$corpus"/*.ffsb | wc -l)
if [ "$n" -ge 11 ]; then ok "corpus: $n profiles"; else bad "corpus: only $n profiles"; fi
summary
