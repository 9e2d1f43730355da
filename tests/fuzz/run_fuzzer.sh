#!/usr/bin/env bash
# run_fuzzer.sh SECONDS [JOBS] - fuzz every reader of untrusted input with libFuzzer, SECONDS each.
#
# Targets (tests/fuzz/CMakeLists.txt): profile (the profile language), results (compare's and
# plot's JSON), latlog (plot --lat-log's log). FUZZ_TARGETS="profile results" picks some; the
# whole run takes about SECONDS x targets / nproc (rounded up) plus the build.
#
# Configures a clang build with -DFSMIX_FUZZ=ON in a temporary directory (in FUZZ_BUILD_DIR if
# set, which is kept: tests/dev.sh makes it beforehand with FUZZ_BUILD_ONLY=1, which stops after
# the build), copies each target's
# committed corpus there (the committed corpus never grows), runs
#   fuzz_T -max_total_time=SECONDS -max_len=N [-dict=T.dict] CORPUS_COPY
# for each target T and removes the temporary directory. Without JOBS a target stops at its first
# crash; with JOBS (even 1) it runs that many fuzzing processes (libFuzzer -fork) that keep going
# after crashes, leaks and timeouts, then reports each distinct one.
# Exit status: 0 when no crash, leak or timeout was found; 1 otherwise, after printing every
# crashing input as a C string; 2 on bad usage or a failed build. Set KEEP_DIR=DIR to keep the
# crashing inputs. To minimise one, build as above and run
#   fuzz_T -minimize_crash=1 -runs=100000 CRASHFILE
set -u
secs=${1:-}
jobs=${2:-1}
if ! [[ $secs =~ ^[0-9]+$ ]] || ! [[ $jobs =~ ^[0-9]+$ ]]; then
	echo "usage: $0 SECONDS [JOBS]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsmix-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# Prints file $1 as a C string literal ("\x00" escapes for bytes outside printable ASCII).
c_escape() {
	od -An -v -tu1 "$1" | tr -s ' \n' '\n\n' | awk '
		BEGIN { printf "\"" }
		NF {
			b = $1 + 0
			if (b == 10) printf "\\n"
			else if (b == 13) printf "\\r"
			else if (b == 9) printf "\\t"
			else if (b == 34) printf "\\\""
			else if (b == 92) printf "\\\\"
			else if (b < 32 || b > 126) printf "\\x%02x\"\"", b
			else printf "%c", b
		}
		END { printf "\"\n" }'
}

fbuild=${FUZZ_BUILD_DIR:-$tmp/build}
echo "== configuring a clang FSMIX_FUZZ build in $fbuild"
# No MPI in the fuzzers: the readers they drive never use it (docs/distributed.md).
if ! CC=clang cmake -S "$src" -B "$fbuild" -G Ninja -DFSMIX_FUZZ=ON -DFSMIX_MPI=OFF -DFSMIX_WERROR=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$tmp/cmake.log" 2>&1; then
	cat "$tmp/cmake.log" >&2
	exit 2
fi
targets=(${FUZZ_TARGETS:-profile results latlog})
if ! ninja -C "$fbuild" "${targets[@]/#/fuzz_}" >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log" >&2
	exit 2
fi
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# fuzz_target T: fuzz one target; adds to failed_targets on a crash.
failed_targets=()
fuzz_target() {
	local t=$1 corpus max_len dict=()
	case $t in
	profile) corpus=$here/corpus max_len=4096 dict=(-dict="$here/profile.dict") ;;
	results) corpus=$here/corpus-results max_len=65536 dict=(-dict="$here/results.dict") ;;
	latlog) corpus=$here/corpus-latlog max_len=4096 ;;
	*)
		echo "run_fuzzer.sh: unknown target '$t'" >&2
		exit 2
		;;
	esac
	local dir=$tmp/$t
	mkdir -p "$dir/corpus" "$dir/artifacts"
	cp "$corpus"/* "$dir/corpus/"
	echo "== fuzz_$t for $secs s ($jobs job(s)); corpus copy: $(ls "$dir/corpus" | wc -l) files"
	local args=(-max_total_time="$secs" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048
		"${dict[@]}" -artifact_prefix="$dir/artifacts/" -print_final_stats=1)
	if [ -n "${jobs_given:-}" ]; then
		args+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
	fi
	local fuzzer=$fbuild/tests/fuzz/fuzz_$t
	(cd "$dir" && "$fuzzer" "${args[@]}" "$dir/corpus") 2>&1 |
		tee "$dir/fuzz.log" | grep -v -e '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)' -e NEW_FUNC
	local rc=${PIPESTATUS[0]}

	# Every artifact is replayed to get its sanitizer summary; inputs are grouped by that
	# summary and the smallest input of each group is printed with its stack.
	local found=0 f sum
	declare -A best=()
	for f in "$dir"/artifacts/*; do
		[ -e "$f" ] || continue
		found=$((found + 1))
		if [ -n "${KEEP_DIR:-}" ]; then
			mkdir -p "$KEEP_DIR/$t" && cp "$f" "$KEEP_DIR/$t/"
		fi
		"$fuzzer" "$f" >"$f.log" 2>&1
		sum=$(grep -m1 '^SUMMARY' "$f.log" || echo "$(basename "$f" | cut -d- -f1) (no sanitizer summary)")
		if [ -z "${best[$sum]:-}" ] || [ "$(wc -c <"$f")" -lt "$(wc -c <"${best[$sum]}")" ]; then
			best[$sum]=$f
		fi
	done
	for sum in "${!best[@]}"; do
		f=${best[$sum]}
		echo "== fuzz_$t: $sum"
		echo "   smallest input ($(wc -c <"$f") bytes), $(basename "$f"):"
		c_escape "$f"
		grep -E -m1 'runtime error|ERROR: (Address|Leak)Sanitizer|deadly signal|timeout' "$f.log"
		grep -E '^ +#[0-9]+ ' "$f.log" | grep -v -E 'fuzzer::|libc_start|_start ' | head -12
	done
	grep -E '^stat::number_of_executed_units' "$dir/fuzz.log" | sed "s/^/== fuzz_$t: /"
	echo "== fuzz_$t: corpus grew to $(ls "$dir/corpus" | wc -l) files (in $dir, removed now)"
	if [ "$found" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "== fuzz_$t FAILED: libFuzzer exit status $rc; $found crashing input(s), ${#best[@]} distinct" >&2
		failed_targets+=("$t")
	fi
}

[ -n "${2:-}" ] && jobs_given=1
# Without JOBS each target is one process on one CPU: nproc targets fuzz at once, each for its
# SECONDS of wall time (-max_total_time) on a CPU of its own, as alone (3 targets on 2 CPUs:
# 60 s instead of 90). Each one's output is kept and printed in the targets' order. With JOBS
# (libFuzzer -fork: JOBS processes each) they run one after another.
par=1
[ -n "${jobs_given:-}" ] || par=$(nproc)
running=0
for t in "${targets[@]}"; do
	if [ "$running" -ge "$par" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	(
		fuzz_target "$t"
		[ ${#failed_targets[@]} -eq 0 ]
		echo $? >"$tmp/$t.rc"
	) >"$tmp/$t.out" 2>&1 &
	running=$((running + 1))
done
wait
for t in "${targets[@]}"; do
	cat "$tmp/$t.out"
	[ "$(cat "$tmp/$t.rc" 2>/dev/null)" = 0 ] || failed_targets+=("$t")
done
if [ ${#failed_targets[@]} -ne 0 ]; then
	echo "== FAILED: ${failed_targets[*]}" >&2
	exit 1
fi
echo "== no crash (${targets[*]})"
exit 0
