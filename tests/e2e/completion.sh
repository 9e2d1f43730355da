#!/usr/bin/env bash
# The bash completion (completion/fsmix.bash) completes subcommands, options, profile and result
# files, the installed profiles by name, key names, and for --set / --sweep every key of the
# right section as SECTION.KEY= — the keys checked against `fsmix keys --markdown`, so a
# completion that lost or invented a key fails. It is called as bash calls it: COMP_WORDS and
# COMP_CWORD set, the function `complete -p fsmix` names.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/completion/fsmix.bash"
func=$(complete -p fsmix 2>/dev/null | sed -nE 's/.*-F ([^ ]+) .*/\1/p')
if [ -z "$func" ]; then
	bad "completion/fsmix.bash registers no completion function for fsmix"
	summary
fi

# comp WORD... : complete the last WORD of the command line; the candidates, one a line, sorted.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$func" fsmix "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}
# has WHAT EXPECTED GOT: every line of EXPECTED is a line of GOT.
has() {
	local missing
	missing=$(comm -23 <(sort -u <<<"$2") <(sort -u <<<"$3"))
	if [ -z "$missing" ]; then ok "$1"; else bad "$1: missing $(echo $missing)"; fi
}
# keys_of HEADING: the keys of one section of `fsmix keys --markdown` ("the top level",
# "[filesystemN]", ...), one a line.
keys_of() {
	"$bin" keys --markdown | awk -v h="### Keys of $1" '
		$0 == h { on = 1; next } /^### / { on = 0 }
		on && /^\| `/ { split($0, f, "`"); print f[2] }' | sort
}
fs_keys=$(keys_of "[filesystemN]") tg_keys=$(keys_of "[threadgroupN]")
stats_keys=$(keys_of "[stats]") top_keys=$(keys_of "the top level")
if [ "$(wc -l <<<"$fs_keys")" -lt 10 ] || ! grep -qx num_threads <<<"$tg_keys" ||
	! grep -qx msec_range <<<"$stats_keys" || ! grep -qx time <<<"$top_keys"; then
	bad "fsmix keys --markdown: could not read the key sections"
	summary
fi
prof=$src/profiles/ext4-barrier-2010.ffsb two=$src/examples/two-groups.ffsb
mkdir "$work/empty" && cd "$work/empty" # the first word also completes local files

has "subcommands" "$(printf '%s\n' run check clean compare plot keys)" "$(comp "$bin" "")"
subs=$(comp "$bin" "" | grep -vE '[./]')
[ "$(printf '%s\n' "$subs" | sort | uniq -d)" = "" ] && ok "each subcommand once" ||
	bad "a subcommand completes twice: $(printf '%s\n' "$subs" | sort | uniq -d | tr '\n' ' ')"
[ "$(comp "$bin" co)" = compare ] && ok "a subcommand's prefix" || bad "'co' does not complete to compare: $(comp "$bin" co)"
has "options" "$(printf '%s\n' --set --threads --location --time --json --csv --sweep --plot --help --version)" \
	"$(comp "$bin" run "$prof" --)"

# --set SECTION.: exactly that section's keys, each with '='.
want=$(sed 's/^/filesystem0./; s/$/=/' <<<"$fs_keys"; echo filesystem0.threadgroup.)
got=$(comp "$bin" run "$prof" --set filesystem0.)
[ "$got" = "$(sort <<<"$want")" ] && ok "--set filesystem0.: the $(wc -l <<<"$fs_keys") [filesystemN] keys" ||
	bad "--set filesystem0.: $(diff <(sort <<<"$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
[ "$(comp "$bin" run "$prof" --set filesystem0.num_f)" = filesystem0.num_files= ] &&
	ok "--set filesystem0.num_f completes to filesystem0.num_files=" || bad "--set filesystem0.num_f"
# --set=KEY: readline hands over '--set' '=' 'filesystem0.num_f'.
[ "$(comp "$bin" run "$prof" --set = filesystem0.num_f)" = filesystem0.num_files= ] &&
	ok "--set=filesystem0.num_f" || bad "--set=filesystem0.num_f: $(comp "$bin" run "$prof" --set = filesystem0.num_f)"
# [stats] keys given for a thread group go to its [stats] (src/profile/overrides.c).
want=$(printf '%s\n' "$tg_keys" "$stats_keys" | sed 's/^/threadgroup1./; s/$/=/' | sort)
[ "$(comp "$bin" check "$two" --sweep threadgroup1.)" = "$want" ] &&
	ok "--sweep threadgroup1.: the [threadgroupN] and [stats] keys" || bad "--sweep threadgroup1."
# Without a dot: the top-level keys and the profile's sections.
want=$(sed 's/$/=/' <<<"$top_keys"; printf '%s\n' filesystem0. filesystem1. threadgroup0. threadgroup1.)
[ "$(comp "$bin" run "$two" -s "")" = "$(sort <<<"$want")" ] &&
	ok "-s '': top-level keys and the profile's two filesystems and two groups" ||
	bad "-s '': $(comp "$bin" run "$two" -s "" | tr '\n' ' ')"
[ "$(comp "$bin" keys msec_r)" = msec_range ] && ok "keys KEY" || bad "keys msec_r: $(comp "$bin" keys msec_r)"

# Files: profiles for run/check/clean, JSON results for compare/plot, directories for both.
mkdir -p "$work/files/sub"
touch "$work/files/a.ffsb" "$work/files/b.json" "$work/files/c.txt"
want=$(printf '%s\n' "$work/files/a.ffsb" "$work/files/sub")
[ "$(comp "$bin" check "$work/files/")" = "$want" ] && ok "check: *.ffsb and directories" ||
	bad "check: $(comp "$bin" check "$work/files/" | tr '\n' ' ')"
want=$(printf '%s\n' "$work/files/b.json" "$work/files/sub")
[ "$(comp "$bin" compare "$work/files/a.json" "$work/files/")" = "$want" ] && ok "compare: *.json and directories" ||
	bad "compare: $(comp "$bin" compare "$work/files/a.json" "$work/files/" | tr '\n' ' ')"
[ -z "$(comp "$bin" run "$prof" "$work/files/")" ] && ok "run takes one profile" || bad "run: a second profile offered"
# verify takes a profile as run does; an option's value (--durability-log FILE) is not the
# profile; --model and --fidelity offer their words.
want=$(printf '%s\n' "$work/files/a.ffsb" "$work/files/sub")
[ "$(comp "$bin" verify "$work/files/")" = "$want" ] && ok "verify: *.ffsb and directories" ||
	bad "verify: $(comp "$bin" verify "$work/files/" | tr '\n' ' ')"
[ "$(comp "$bin" verify --durability-log "$work/files/c.txt" "$work/files/")" = "$want" ] &&
	ok "verify --durability-log FILE: FILE is not the profile, the profile is still offered" ||
	bad "verify --durability-log FILE: $(comp "$bin" verify --durability-log "$work/files/c.txt" "$work/files/" | tr '\n' ' ')"
[ "$(comp "$bin" verify "$prof" --durability-log "$work/files/c")" = "$work/files/c.txt" ] &&
	ok "--durability-log: any file" || bad "--durability-log: $(comp "$bin" verify "$prof" --durability-log "$work/files/c")"
[ "$(comp "$bin" verify "$prof" --model "" | tr '\n' ' ')" = "linux posix " ] && ok "--model: linux posix" ||
	bad "--model: $(comp "$bin" verify "$prof" --model "" | tr '\n' ' ')"
[ "$(comp "$bin" run "$prof" --fidelity "" | tr '\n' ' ')" = "exact ffsb6 " ] && ok "--fidelity: exact ffsb6" ||
	bad "--fidelity: $(comp "$bin" run "$prof" --fidelity "" | tr '\n' ' ')"
# The installed profiles by name: <prefix>/share/fsmix/profiles beside <prefix>/bin/fsmix.
mkdir -p "$work/prefix/bin" "$work/prefix/share/fsmix/profiles"
ln -s "$bin" "$work/prefix/bin/fsmix"
touch "$work/prefix/share/fsmix/profiles/ext4-test.ffsb" "$work/prefix/share/fsmix/profiles/zz.ffsb"
(cd "$work/files" && comp "$work/prefix/bin/fsmix" run ext) >"$work/shipped"
[ "$(cat "$work/shipped")" = "$work/prefix/share/fsmix/profiles/ext4-test.ffsb" ] &&
	ok "run ext<TAB>: the installed profile by its full path" || bad "run ext: $(tr '\n' ' ' <"$work/shipped")"
summary
