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
	# one command: called as a condition (start_later), a function runs without set -e
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
# select); failures are collected, not fatal yet. Three tests at a time on the 2 CPUs: the e2e
# tests spend much of their time waiting (sleeps, fsync, loop devices, timed runs), and the
# TSan suite took 545 s at -j3 against 627 s at -j2 (the tests depend on no machine speed).
failed=()
ctest_in() {
	local dir=$1 label=$2
	shift 2
	echo "=== tests: $label ($dir) [+$SECONDS s]"
	if ! ctest --test-dir "$top/$dir" --output-on-failure -j3 --timeout 900 "$@"; then
		failed+=("$label")
	fi
}

# The later work -- clang's static analyzer over the default build, then the Release, clang,
# ASan+UBSan, TSan and fuzzer builds -- is done one job after another in the background at the
# lowest CPU priority (nice 19), while the default suite (and then the other suites) run: the
# e2e tests leave about a third of the 2 CPUs idle (they wait on sleeps, fsync, loop devices
# and timed runs), and at nice 19 the jobs take only that idle time, not the tests'. Each job
# is waited for where its result is needed, and its output printed there.
later_jobs=(analyze build-release build-clang build-asan build-tsan build-fuzz)
# later_cmd JOB: the command of one later job (the array cmd).
later_cmd() {
	case $1 in
	analyze) cmd=(bash "$top/tests/analyze.sh" "$top/build") ;;
	build-release) cmd=(build "$1" -DCMAKE_BUILD_TYPE=Release) ;;
	build-clang) cmd=(build "$1" -DCMAKE_C_COMPILER=clang) ;;
	build-asan) cmd=(build "$1" "-DFSMIX_SANITIZE=address;undefined") ;;
	build-tsan) cmd=(build "$1" -DFSMIX_SANITIZE=thread) ;;
	# the fuzzers' clang build, as run_fuzzer.sh makes it
	build-fuzz)
		cmd=(env FUZZ_BUILD_DIR="$top/$1" FUZZ_BUILD_ONLY=1 bash "$top/tests/fuzz/run_fuzzer.sh" 1)
		;;
	esac
}
# start_later: the background job; JOB's output goes to $bg/JOB.log, then its exit status to
# $bg/JOB.rc.
bg= bg_pid=
start_later() {
	bg=$(mktemp -d /tmp/fsmix-dev.XXXXXX)
	(
		renice -n 19 -p "$BASHPID" >/dev/null
		for j in "${later_jobs[@]}"; do
			later_cmd "$j"
			if "${cmd[@]}" >"$bg/$j.log" 2>&1; then rc=0; else rc=1; fi
			echo $rc >"$bg/$j.rc.tmp" && mv "$bg/$j.rc.tmp" "$bg/$j.rc"
		done
	) &
	bg_pid=$!
	trap 'kill "$bg_pid" 2>/dev/null || true; rm -rf "$bg"' EXIT
}
# done_later JOB TITLE FAILURE: waits for the background job to have done JOB, prints TITLE and
# JOB's output. A failure (a build must succeed warning-free, the analyzer find nothing) is
# recorded as FAILURE and returns 1; the later suites still run.
done_later() {
	echo "=== $2 (done in the background) [+$SECONDS s]"
	local since=$SECONDS
	while [ ! -e "$bg/$1.rc" ] && kill -0 "$bg_pid" 2>/dev/null; do
		sleep 1
	done
	echo "=== (waited $((SECONDS - since)) s for it)"
	cat "$bg/$1.log" 2>/dev/null || true
	if [ "$(cat "$bg/$1.rc" 2>/dev/null)" != 0 ]; then
		failed+=("$3")
		return 1
	fi
}

test_all() {
	setup
	local t0=$SECONDS
	build build
	start_later
	ctest_in build "default build"
	# clang's static analyzer over src/, with the default build's flags: no report allowed
	done_later analyze "static analysis: clang --analyze (tests/analyze.sh)" "static analysis" ||
		true
	# What a distribution builds (cmake -DCMAKE_BUILD_TYPE=Release: -O3, other warnings) and
	# Debian's clang: built warning-free, with their unit tests (the rest is the default
	# build's).
	done_later build-release "build: Release (build-release)" "Release build" &&
		ctest_in build-release "Release unit tests" -L unit
	done_later build-clang "build: clang (build-clang)" "clang build" &&
		ctest_in build-clang "clang unit tests" -L unit
	done_later build-asan "build: ASan+UBSan (build-asan)" "ASan+UBSan build" &&
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest_in build-asan "ASan+UBSan" -LE source
	done_later build-tsan "build: TSan (build-tsan)" "TSan build" &&
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest_in build-tsan "ThreadSanitizer" -LE "source|notsan"
	# Every fuzz target (profile, results, latlog) for FSMIX_FUZZ_SECONDS each, nproc at once:
	# 2 x 30 s on 2 CPUs by default.
	if done_later build-fuzz "build: fuzzers (build-fuzz)" "fuzzers build"; then
		echo "=== fuzzing every input reader for ${FSMIX_FUZZ_SECONDS:-30} s each [+$SECONDS s]"
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
