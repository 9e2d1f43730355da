#!/usr/bin/env bash
# mutate.sh - how many one-line changes of the code do the tests catch? (docs/design.md, "How
# well the tests catch a changed line"). Run by hand, not in CI: it rebuilds once per mutant.
#
#   tests/tools/mutate.sh [-B BUILD] [-A ASAN_BUILD] [-n PER_LAYER] [-s SEED] [-k REGEX] [-l]
#                         [LAYER...]
#
# For each layer (default: base profile tree measure engine report study cli), it lists the
# one-line mutants of the layer's src/LAYER/*.c -- a comparison flipped (< <= > >= == !=), a
# constant 0, 1 or 2 changed, a statement line dropped -- draws PER_LAYER of them (default 5)
# with SEED (default 1: the same sample every time; see draw below), and for each: applies it,
# rebuilds fsmix and the layer's unit tests, runs the layer's tests (LAYER_TESTS below, a ctest -R
# regex) and puts the file back. A mutant is caught when a test fails (or times out), survives
# when all pass, and is not viable when it does not compile (-Werror: e.g. a comparison that is
# always true). A survivor listed in tests/tools/mutate_equivalent.txt (its id and why no test
# can tell it from the original) is equivalent; the score is caught / (caught + survived -
# equivalent).
# With -A, a mutant that drops a release (free, json_decref, *_free) is built and tested in
# ASAN_BUILD, a configured FSMIX_SANITIZE=address build of this checkout, where LeakSanitizer
# fails a test that leaks. The file is restored whatever happens (trap), and the builds are
# brought back to the unchanged sources at the end. -l lists the sample only; -k runs only the
# mutants of the sample whose id matches REGEX (grep -E), e.g. the survivors of a run again
# once tests are added.
#
# A mutant's id is "FILE (FUNCTION) OP: ORIGINAL LINE" (the line without its indentation),
# as printed after each result; it does not change when lines above it move, and it alone
# decides whether the mutant is drawn (draw, below).
# BUILD must be a configured build directory of this checkout (default: build). Files that other
# work owns at the time can be left out with MUTATE_SKIP (a grep -E regex of paths).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build asan= per=5 seed=1 list=0 only=
while getopts "A:B:k:n:s:lh" o; do
	case $o in
	A) asan=$(cd "$OPTARG" && pwd) || exit 2 ;;
	B) build=$(cd "$OPTARG" && pwd) || exit 2 ;;
	k) only=$OPTARG ;;
	n) per=$OPTARG ;;
	s) seed=$OPTARG ;;
	l) list=1 ;;
	*)
		sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
layers=("$@")
((${#layers[@]})) || layers=(base profile tree measure engine report study cli)
[ -f "$build/CTestTestfile.cmake" ] || { echo "mutate.sh: $build is not a configured build" >&2; exit 2; }
if [ -n "$asan" ] && ! grep -q '^FSMIX_SANITIZE:STRING=.*address' "$asan/CMakeCache.txt" 2>/dev/null; then
	echo "mutate.sh: $asan is not a configured FSMIX_SANITIZE=address build" >&2
	exit 2
fi
# The equivalent mutants: "ID :: REASON" lines (# starts a comment).
equivalent_list=$src/tests/tools/mutate_equivalent.txt
is_equivalent() {
	[ -f "$equivalent_list" ] && grep -v '^#' "$equivalent_list" | sed 's/ :: .*//' | grep -qxF -- "$1"
}

# The tests of each layer: its unit tests (and those of a higher layer that test its modules:
# test_dist packs measure's statistics), and for the layers with few of them the quickest
# end-to-end tests that exercise it (each e2e test takes seconds to a minute).
declare -A LAYER_TESTS=(
	[base]='unit_test_(content|fdio|ops|outfile|pick|popdist|sizedist|threads)$'
	[profile]='unit_test_(keys|lexer|overrides|profile|value|sizedist)$|e2e_bad_profiles$'
	[tree]='unit_test_(pool|tree)$'
	[measure]='unit_test_(chist|devstat|dist|hist|interval|latlog|results|settle|stats|stats_lazy|tstat|report_data|durmodel|durmodel_ns|content_durmodel)$'
	[engine]='unit_test_(aging|arrival|progress)$|e2e_(run_engine|semantics)$'
	[report]='unit_test_(report_golden|report_data)$|e2e_reports$'
	[study]='unit_test_(study|tstat)$|e2e_sweep_compare$'
	[cli]='unit_test_cli$|e2e_(cli_check|output_status)$'
	[mpi]='unit_test_(dist|jobpolicy)$'
)
skip=${MUTATE_SKIP:-'src/measure/dur(model|log)\.c|src/engine/(verify|crash)\.c|src/cli/cmd_verify\.c'}

# candidates LAYER: "FILE<TAB>LINE<TAB>OP<TAB>ID" for every mutant of the layer's sources (ID as
# below). Only lines in function bodies (indented), without strings or comments, so a mutant
# changes code, not text.
candidates() {
	local f
	for f in "$src"/src/"$1"/*.c; do
		[[ ${f#"$src"/} =~ $skip ]] && continue
		MUT_REL=${f#"$src"/} perl -ne '
			BEGIN { $prev = ""; $fn = "" }
			chomp; my $l = $_;
			# the function the line is in: the last definition above it
			if ($l =~ /^[a-z].*[a-z_0-9]+\(/) { ($fn = $l) =~ s/\(.*//; $fn =~ s/.*[ *]//; }
			if ($l =~ /^\t/ && $l !~ /["#]|\/\/|\/\*|^\s*\*/) {
				my @ops;
				push @ops, "lt" if $l =~ /(?<![<>=!-])<(?![<=])/;
				push @ops, "le" if $l =~ /(?<![<>])<=/;
				push @ops, "gt" if $l =~ /(?<![->=<])>(?![>=])/;
				push @ops, "ge" if $l =~ /(?<![<>])>=/;
				push @ops, "eq" if $l =~ /==/;
				push @ops, "ne" if $l =~ /!=/;
				push @ops, "c0" if $l =~ /(?<![\w.])0(?![\w.])/;
				push @ops, "c1" if $l =~ /(?<![\w.])1(?![\w.])/;
				push @ops, "c2" if $l =~ /(?<![\w.])2(?![\w.])/;
				# a whole statement (the line before ends one), not a declaration or return
				push @ops, "drop" if $l =~ /^\t+[a-z_*(].*;\s*$/ && $l !~ /\breturn\b|[{}]/ &&
				    $l !~ /^\t+(const |static |struct |enum |unsigned |signed |bool |char |int |long |double |float |void |FILE |json_t |[a-z_0-9]+_t )/ &&
				    $prev =~ /[;{}]\s*$/;
				(my $text = $l) =~ s/^\s+//;
				print "$ARGV\t$.\t$_\t$ENV{MUT_REL} ($fn) $_: $text\n" for @ops;
			}
			$prev = $l;
		' "$f"
	done
}

# draw: the PER_LAYER candidates whose ids rank lowest by MD5(SEED, id). A mutant's rank depends
# on its own id only, so editing other lines leaves the rest of the sample as it was (a mutant
# leaves it only when its own line changes, and a new one enters only when it ranks lower), and
# two seeds -- however alike -- draw independent samples. Equal ids (the same line twice in one
# function) are told apart by their line numbers.
draw() {
	MUT_SEED=$seed perl -MDigest::MD5=md5_hex -F'\t' -lane '
		push @m, [md5_hex("$ENV{MUT_SEED}\t$F[3]"), $F[1], $_];
		END { print $_->[2] for sort { $a->[0] cmp $b->[0] || $a->[1] <=> $b->[1] } @m }
	' | head -n "$per"
}

# mutate FILE LINE OP: the line changed in place; fails when it did not change.
mutate() {
	MUT_LINE=$2 MUT_OP=$3 perl -i -pe '
		if ($. == $ENV{MUT_LINE}) {
			my $op = $ENV{MUT_OP};
			if    ($op eq "lt") { s/(?<![<>=!-])<(?![<=])/<=/ }
			elsif ($op eq "le") { s/(?<![<>])<=/</ }
			elsif ($op eq "gt") { s/(?<![->=<])>(?![>=])/>=/ }
			elsif ($op eq "ge") { s/(?<![<>])>=/>/ }
			elsif ($op eq "eq") { s/==/!=/ }
			elsif ($op eq "ne") { s/!=/==/ }
			elsif ($op eq "c0") { s/(?<![\w.])0(?![\w.])/1/ }
			elsif ($op eq "c1") { s/(?<![\w.])1(?![\w.])/0/ }
			elsif ($op eq "c2") { s/(?<![\w.])2(?![\w.])/1/ }
			elsif ($op eq "drop") { s/^(\t+).*$/$1;/ }
		}' "$1"
	! cmp -s "$1" "$backup"
}

backup=$(mktemp)
current=
restore() {
	if [ -n "$current" ]; then
		cp "$backup" "$current" # a new mtime: the build sees the change back
		current=
	fi
}
cleanup() {
	restore
	rm -f "$backup"
}
trap cleanup EXIT
trap 'restore; echo "mutate.sh: interrupted, the file is restored" >&2; exit 130' INT TERM HUP

# targets REGEX: fsmix and the unit test executables the regex names.
targets() {
	local t=(fsmix) u
	for u in $(ctest --test-dir "$build" -N -R "$1" | sed -nE 's/.*Test +#[0-9]+: unit_(test_[a-z_]+).*/\1/p'); do
		t+=("$u")
	done
	printf '%s\n' "${t[@]}"
}

declare -A caught survived unviable equivalent
survivors=() asan_tg=()
for layer in "${layers[@]}"; do
	re=${LAYER_TESTS[$layer]:-}
	[ -n "$re" ] || { echo "mutate.sh: no tests known for layer '$layer'" >&2; exit 2; }
	mapfile -t tg < <(targets "$re")
	caught[$layer]=0 survived[$layer]=0 unviable[$layer]=0 equivalent[$layer]=0
	mapfile -t sample < <(candidates "$layer" | draw)
	for m in "${sample[@]}"; do
		IFS=$'\t' read -r file line op id <<<"$m"
		rel=${file#"$src"/}
		before=$(sed -n "${line}p" "$file" | sed 's/^[[:space:]]*//')
		[ -z "$only" ] || grep -qE -- "$only" <<<"$id" || continue
		fn=${id#* (} fn=${fn%%) *}
		what="$layer $rel:$line ($fn) $op"
		if ((list)); then
			echo "$what: $before"
			continue
		fi
		cp -p "$file" "$backup"
		current=$file
		if ! mutate "$file" "$line" "$op"; then
			restore
			continue
		fi
		after=$(sed -n "${line}p" "$file" | sed 's/^\t*//')
		b=$build
		if [ -n "$asan" ] && [ "$op" = drop ] &&
		    [[ $before =~ (^|[^a-z_])(free|json_decref|[a-z_]+_free)\( ]]; then
			b=$asan # a release dropped: a leak, which LeakSanitizer reports
			asan_tg+=("${tg[@]}")
		fi
		if ! cmake --build "$b" -j2 --target "${tg[@]}" >/dev/null 2>&1; then
			result="not viable"
			unviable[$layer]=$((unviable[$layer] + 1))
		elif ctest --test-dir "$b" -R "$re" --timeout 300 >/dev/null 2>&1; then
			if is_equivalent "$id"; then
				result=equivalent
				equivalent[$layer]=$((equivalent[$layer] + 1))
			else
				result=SURVIVED
				survived[$layer]=$((survived[$layer] + 1))
				survivors+=("$what: $after")
			fi
		else
			result=caught
			caught[$layer]=$((caught[$layer] + 1))
			is_equivalent "$id" && echo "mutate.sh: caught, yet listed as equivalent: $id" >&2
		fi
		restore
		echo "$result  $what: $after"
		echo "    id: $id"
	done
done
((list)) && exit 0
echo "mutate.sh: restoring the build"
cmake --build "$build" -j2 >/dev/null 2>&1 || echo "mutate.sh: the final rebuild failed" >&2
if ((${#asan_tg[@]})); then
	cmake --build "$asan" -j2 --target "${asan_tg[@]}" >/dev/null 2>&1 || echo "mutate.sh: the final ASan rebuild failed" >&2
fi
echo
printf '%-8s %7s %8s %10s %10s %6s\n' layer caught survived equivalent "not viable" score
for layer in "${layers[@]}"; do
	c=${caught[$layer]} s=${survived[$layer]}
	pct=n/a
	((c + s)) && pct="$((100 * c / (c + s)))%"
	printf '%-8s %7d %8d %10d %10d %6s\n' "$layer" "$c" "$s" "${equivalent[$layer]}" \
	    "${unviable[$layer]}" "$pct"
done
if ((${#survivors[@]})); then
	echo
	echo "Survivors (no test failed):"
	printf '  %s\n' "${survivors[@]}"
fi
