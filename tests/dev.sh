#!/usr/bin/env bash
# tests/dev.sh - set up a Debian 12 machine for fsmix, build it, and run it or its tests.
#
#   bash tests/dev.sh demo   install what is missing, build, run profiles/default.ffsb on a
#                            fresh temporary directory and print its report
#   bash tests/dev.sh test   install what is missing, build, run the whole test suite: the
#                            normal build, clang's static analyzer, ASan+UBSan,
#                            ThreadSanitizer, and the fuzzers; and the unit tests of a Release
#                            build and of a clang build
#
# Needs root for apt-get (only when something is missing). Build trees go to build/,
# build-release/, build-clang/, build-asan/, build-tsan/ and build-fuzz/ beside this
# checkout's CMakeLists.txt. Every build is warning-free: warnings are errors here
# (-DFSMIX_WERROR=ON; a plain cmake build only shows them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

packages=(cmake ninja-build gcc clang libclang-rt-14-dev pkg-config libinih-dev libjansson-dev liburing-dev
	  libopenmpi-dev openmpi-bin
	  gnuplot-nox strace e2fsprogs util-linux python3 clang-format dpkg-dev man-db lintian
	  xfsprogs btrfs-progs fuse3 libfuse3-dev jq universal-ctags zlib1g-dev time)

setup() {
	local missing=()
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "dev.sh: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

# build DIR [cmake args...]: RelWithDebInfo with gcc (cc) unless the args say otherwise.
build() {
	local dir=$1
	shift
	# one command: called as a condition (start_later_builds), a function runs without set -e
	cmake -S "$top" -B "$top/$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFSMIX_WERROR=ON \
		"$@" >/dev/null && cmake --build "$top/$dir" -j"$(nproc)"
}

demo() {
	setup
	build build
	local dir
	dir=$(mktemp -d /tmp/fsmix-demo.XXXXXX)
	echo "dev.sh: running profiles/default.ffsb in $dir (its tree is removed afterwards)"
	local rc=0
	"$top/build/src/fsmix" run "$top/profiles/default.ffsb" --location "$dir" --cleanup || rc=$?
	rmdir "$dir" 2>/dev/null
	return $rc
}

# ctest_in DIR LABEL [ctest args...]: run the suite of one build tree (or the part the args
# select); failures are collected, not fatal yet.
failed=()
ctest_in() {
	local dir=$1 label=$2
	shift 2
	echo "=== tests: $label ($dir)"
	if ! ctest --test-dir "$top/$dir" --output-on-failure -j2 --timeout 900 "$@"; then
		failed+=("$label")
	fi
}

# The later builds (Release, clang, ASan+UBSan, TSan, the fuzzers') are made one after another
# in the background at the lowest CPU priority (nice 19) while the default suite and the
# analyzer run: the e2e tests leave about a third of the 2 CPUs idle (they wait on sleeps,
# fsync, loop devices and timed runs), and at nice 19 a build takes only that idle time, not
# the tests'.
# later_args DIR: the cmake args of one later build.
later_builds=(build-release build-clang build-asan build-tsan build-fuzz)
later_args() {
	case $1 in
	build-release) echo -DCMAKE_BUILD_TYPE=Release ;;
	build-clang) echo -DCMAKE_C_COMPILER=clang ;;
	build-asan) echo "-DFSMIX_SANITIZE=address;undefined" ;;
	build-tsan) echo -DFSMIX_SANITIZE=thread ;;
	esac
}
# start_later_builds: the background job; DIR's output goes to $bg/DIR.log, then its exit
# status to $bg/DIR.rc.
bg= bg_pid=
start_later_builds() {
	bg=$(mktemp -d /tmp/fsmix-dev.XXXXXX)
	(
		renice -n 19 -p "$BASHPID" >/dev/null
		for d in "${later_builds[@]}"; do
			if [ "$d" = build-fuzz ]; then # the fuzzers' clang build, as run_fuzzer.sh makes it
				cmd=(env FUZZ_BUILD_DIR="$top/$d" FUZZ_BUILD_ONLY=1 bash "$top/tests/fuzz/run_fuzzer.sh" 1)
			else
				# shellcheck disable=SC2046 # later_args: words without blanks or globs
				cmd=(build "$d" $(later_args "$d"))
			fi
			if "${cmd[@]}" >"$bg/$d.log" 2>&1; then rc=0; else rc=1; fi
			echo $rc >"$bg/$d.rc.tmp" && mv "$bg/$d.rc.tmp" "$bg/$d.rc"
		done
	) &
	bg_pid=$!
	trap 'kill "$bg_pid" 2>/dev/null || true; rm -rf "$bg"' EXIT
}
# built_later DIR LABEL: waits for the background job to have made DIR and prints its output.
# Every build must succeed warning-free, or it is a failure of its own: returns 1, and the
# later suites still run.
built_later() {
	local dir=$1 label=$2
	echo "=== build: $label ($dir, built in the background)"
	while [ ! -e "$bg/$dir.rc" ] && kill -0 "$bg_pid" 2>/dev/null; do
		sleep 1
	done
	cat "$bg/$dir.log" 2>/dev/null || true
	if [ "$(cat "$bg/$dir.rc" 2>/dev/null)" != 0 ]; then
		failed+=("$label build")
		return 1
	fi
}

test_all() {
	setup
	local t0=$SECONDS
	build build
	start_later_builds
	ctest_in build "default build"
	# clang's static analyzer over src/, with the default build's flags: no report allowed
	echo "=== static analysis: clang --analyze (tests/analyze.sh)"
	if ! bash "$top/tests/analyze.sh" "$top/build"; then
		failed+=("static analysis")
	fi
	# What a distribution builds (cmake -DCMAKE_BUILD_TYPE=Release: -O3, other warnings) and
	# Debian's clang: built warning-free, with their unit tests (the rest is the default
	# build's).
	built_later build-release "Release" &&
		ctest_in build-release "Release unit tests" -L unit
	built_later build-clang "clang" &&
		ctest_in build-clang "clang unit tests" -L unit
	built_later build-asan "ASan+UBSan" &&
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest_in build-asan "ASan+UBSan" -LE source
	built_later build-tsan "TSan" &&
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest_in build-tsan "ThreadSanitizer" -LE source
	# Every fuzz target (profile, results, latlog) for FSMIX_FUZZ_SECONDS each, nproc at once:
	# 2 x 30 s on 2 CPUs by default.
	if built_later build-fuzz "fuzzers"; then
		echo "=== fuzzing every input reader for ${FSMIX_FUZZ_SECONDS:-30} s each"
		if ! FUZZ_BUILD_DIR=$top/build-fuzz bash "$top/tests/fuzz/run_fuzzer.sh" \
			"${FSMIX_FUZZ_SECONDS:-30}"; then
			failed+=("fuzzer")
		fi
	fi
	echo "=== dev.sh test took $((SECONDS - t0)) s"
	if [ ${#failed[@]} -gt 0 ]; then
		echo "FAILED: ${failed[*]}"
		exit 1
	fi
	echo "all test suites passed"
}

case "${1:-}" in
demo) demo ;;
test) test_all ;;
setup) setup ;;
*)
	echo "usage: bash tests/dev.sh demo|test|setup" >&2
	exit 2
	;;
esac
