#!/usr/bin/env bash
# run_fuzzer.sh SECONDS [JOBS] - fuzz the profile parser with libFuzzer for SECONDS.
#
# Configures a clang build with -DFSMIX_FUZZ=ON in a temporary directory, copies
# tests/fuzz/corpus/ there (the committed corpus never grows), runs
#   fuzz_profile -max_total_time=SECONDS -max_len=4096 -dict=profile.dict CORPUS_COPY
# and removes the temporary directory. Without JOBS it stops at the first crash; with JOBS
# (even 1) it runs that many fuzzing processes (libFuzzer -fork) that keep going after crashes,
# leaks and timeouts, then reports each distinct one.
# Exit status: 0 when no crash, leak or timeout was found; 1 otherwise, after printing every
# crashing input as a C string; 2 on bad usage or a failed build. Set KEEP_DIR=DIR to keep the
# crashing inputs. To minimise one, build as above and run
#   fuzz_profile -minimize_crash=1 -runs=100000 CRASHFILE
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

echo "== configuring a clang FSMIX_FUZZ build in $tmp/build"
if ! CC=clang cmake -S "$src" -B "$tmp/build" -G Ninja -DFSMIX_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$tmp/cmake.log" 2>&1; then
	cat "$tmp/cmake.log" >&2
	exit 2
fi
if ! ninja -C "$tmp/build" fuzz_profile >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log" >&2
	exit 2
fi
mkdir -p "$tmp/corpus" "$tmp/artifacts"
cp "$here"/corpus/* "$tmp/corpus/"

echo "== fuzzing for $secs s ($jobs job(s)); corpus copy: $(ls "$tmp/corpus" | wc -l) files"
args=(-max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048
	-dict="$here/profile.dict" -artifact_prefix="$tmp/artifacts/" -print_final_stats=1)
if [ -n "${2:-}" ]; then
	args+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
fuzzer=$tmp/build/tests/fuzz/fuzz_profile
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$tmp" && "$fuzzer" "${args[@]}" "$tmp/corpus") 2>&1 |
	tee "$tmp/fuzz.log" | grep -v -e '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)' -e NEW_FUNC
rc=${PIPESTATUS[0]}

# Every artifact is replayed to get its sanitizer summary; inputs are grouped by that summary
# and the smallest input of each group is printed with its stack.
found=0
declare -A best=()
for f in "$tmp"/artifacts/*; do
	[ -e "$f" ] || continue
	found=$((found + 1))
	if [ -n "${KEEP_DIR:-}" ]; then
		mkdir -p "$KEEP_DIR" && cp "$f" "$KEEP_DIR/"
	fi
	"$fuzzer" "$f" >"$f.log" 2>&1
	sum=$(grep -m1 '^SUMMARY' "$f.log" || echo "$(basename "$f" | cut -d- -f1) (no sanitizer summary)")
	if [ -z "${best[$sum]:-}" ] || [ "$(wc -c <"$f")" -lt "$(wc -c <"${best[$sum]}")" ]; then
		best[$sum]=$f
	fi
done
for sum in "${!best[@]}"; do
	f=${best[$sum]}
	echo "== $sum"
	echo "   smallest input ($(wc -c <"$f") bytes), $(basename "$f"):"
	c_escape "$f"
	grep -E -m1 'runtime error|ERROR: (Address|Leak)Sanitizer|deadly signal|timeout' "$f.log"
	grep -E '^ +#[0-9]+ ' "$f.log" | grep -v -E 'fuzzer::|libc_start|_start ' | head -12
done
echo "== corpus grew to $(ls "$tmp/corpus" | wc -l) files (in $tmp, removed now)"
if [ "$found" -ne 0 ] || [ "$rc" -ne 0 ]; then
	echo "== FAILED: libFuzzer exit status $rc; $found crashing input(s), ${#best[@]} distinct" >&2
	exit 1
fi
echo "== no crash"
exit 0
