# lib.bash - shared helpers of the end-to-end tests, sourced by tests/e2e/*.sh.
src=${FSMIX_SOURCE_DIR:?FSMIX_SOURCE_DIR must point at the source tree}
bin=${FSMIX_BIN:?FSMIX_BIN must point at the fsmix binary}
pass=0 fail=0 skip=0
skips=() # the reasons of the skipped checks, for the summary
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# Two kinds of skip. skipped REASON: a check that cannot run for a reason any machine may
# legitimately have, CI's too: a kernel feature (O_DIRECT on tmpfs, kcmp), a build option
# (sanitizers), a filesystem's refusal, a precondition the test will not force (a package
# already installed). skip_env KIND REASON: a check that needs something of the environment
# that the CI machine has -- tests/dev.sh installs its packages and CI runs as root -- so under
# CI (CI=true, as CI services set it) it FAILS instead of passing unseen. KIND, one of:
#   root    root privileges              loop     loop devices (losetup, mkfs.ext4, mounting)
#   mount   mounting tmpfs/ramfs/overlay fuse     /dev/fuse, fusermount3, tests/tools/fsfault
#   mpi     mpirun and fsmix built with MPI       xfs, btrfs   their mkfs and tools
#   strace  strace that can trace        gnuplot  gnuplot
#   tool    another program tests/dev.sh provides (python3, script, fsfreeze, a test tool...)
skipped() {
	skip=$((skip + 1))
	skips+=("$*")
	echo "skip $*"
}
skip_env() {
	local kind=$1
	shift
	case $kind in
	root | loop | mount | fuse | mpi | xfs | btrfs | strace | gnuplot | tool) ;;
	*) bad "skip_env: unknown kind '$kind' ($*)"; return ;;
	esac
	if [ "${CI:-}" = true ]; then
		bad "$* [skipped: needs $kind, which the CI machine has]"
	else
		skipped "$* [needs $kind]"
	fi
}

# Everything a test creates goes below one temp dir; mounts are recorded and undone on exit,
# whatever happens.
work=$(mktemp -d /tmp/fsmix-e2e.XXXXXX)
mounts=()
loops=()
cleanup() {
	local m
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[$i]}" 2>/dev/null
	done
	for m in "${loops[@]}"; do
		losetup -d "$m" 2>/dev/null
	done
	rm -rf "$work" "$shm_root"
}
# tmpfs directories live below one root made here, in the test's own shell: shmdir runs in a
# command substitution (a subshell), so it could not record what it makes in a variable.
shm_root=$(mktemp -d /dev/shm/fsmix-e2e.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM

# shmdir: a fresh directory on tmpfs (/dev/shm), removed at exit.
shmdir() {
	mktemp -d "$shm_root/loc.XXXXXX"
}

# mount_tmpfs DIR OPTIONS: a private tmpfs (root only); returns 1 when it cannot be mounted.
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "$2" fsmix-e2e "$1" 2>/dev/null || return 1
	mounts+=("$1")
}

# mount_ext4 DIR SIZE_MB [OPTIONS]: a loop-mounted ext4 image; returns 1 when unavailable.
mount_ext4() {
	local dir=$1 size=$2 opts=${3:-} img dev
	command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null || return 1
	[ "$(id -u)" = 0 ] || return 1
	img="$work/ext4-$(basename "$dir").img"
	truncate -s "${size}M" "$img" || return 1
	mkfs.ext4 -q -F "$img" >/dev/null 2>&1 || return 1
	dev=$(losetup -f --show "$img" 2>/dev/null) || return 1
	loops+=("$dev")
	mkdir -p "$dir"
	mount -t ext4 ${opts:+-o "$opts"} "$dev" "$dir" 2>/dev/null || return 1
	mounts+=("$dir")
}

# paced: overrides for a timed run (--time T) of a profile that writes in threadgroup0 (such as
# profiles/default.ffsb), when the test needs the run to last T: a timed run at full speed writes
# as much as the machine can (default.ffsb, 4 threads on /dev/shm: 4.8 GB written, 1.9 GB left
# on the tmpfs after 2 s on a loaded 2-core machine; a fast one fills a small /dev/shm or disk).
# At most 500 starts a second per thread: default.ffsb writes about 15 KB per operation, so
# 4 threads write at most ~30 MB/s whatever the machine. Where the length does not matter,
# count instead (--time 0 --set threadgroup0.num_ops=N).
paced=(--set threadgroup0.op_rate=500)

# wait_for FILE REGEX [SECONDS]: until a line of FILE matches (a background run has got that
# far), at most SECONDS (default 10); returns 1 on time-out.
wait_for() {
	local tenths=$((${3:-10} * 10))
	for ((i = 0; i < tenths; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# crash_profile SECONDS: the small profile the crash tests (crash_shutdown.sh, crash_powercut.sh)
# run for SECONDS: 60 files of 4 to 32 KiB in 3 directories, 3 threads creating, appending and
# rewriting files with fsync, reading, deleting and stat'ing them. Its location is a
# placeholder: give --location. Paced (op_rate=200 a thread): the run is cut at a moment, so it
# is timed, and at full speed a fast disk filled the tests' 96-128 MB images before the cut
# (ENOSPC, exit 1); 3 x 200 starts a second grow the tree by at most ~4 MB/s.
crash_profile() {
	cat <<EOF
time=$1
[filesystem0]
location=/unused
num_files=60
num_dirs=3
min_filesize=4KB
max_filesize=32KB
[end0]
[threadgroup0]
num_threads=3
op_rate=200
create_fsync_weight=4
append_fsync_weight=2
writeall_fsync_weight=1
readall_weight=2
delete_weight=1
stat_weight=1
write_size=4KB
write_blocksize=4KB
read_size=4KB
read_blocksize=4KB
[end0]
EOF
}

# crash_cycle PROFILE FSTYPE DEV MNT SEED: one `--crash-after random:3` cut of PROFILE on the
# filesystem DEV mounted at MNT, its remount (the journal replayed) and `fsmix verify` of the
# run's durability log (crash_links.sh, crash_nsops.sh). Sets crash_rc (the run's exit status,
# its JSON in $crash_j, its output in $work/cutSEED.out) and crash_vrc (verify's, its JSON in
# $crash_v, its output in $work/verifySEED.out); returns 1 when DEV cannot be mounted again
# (said with bad).
crash_cycle() {
	local p=$1 fstype=$2 dev=$3 mnt=$4 seed=$5 log=$work/cut$5.durlog
	crash_j=$work/cut$seed.json crash_v=$work/verify$seed.json
	timeout 120 "$bin" run "$p" --location "$mnt" --seed "$seed" --crash-after random:3 \
		--json "$crash_j" --durability-log "$log" >"$work/cut$seed.out" 2>&1
	crash_rc=$?
	if ! umount "$mnt" || ! mount -t "$fstype" "$dev" "$mnt"; then
		bad "$fstype cut (seed $seed): cannot unmount and mount $dev again"
		return 1
	fi
	timeout 120 "$bin" verify "$p" --location "$mnt" --durability-log "$log" \
		--json "$crash_v" >"$work/verify$seed.out" 2>&1
	crash_vrc=$?
}

# fsfault_ready: whether tests/tools/fsfault (a FUSE passthrough that fails or holds chosen
# calls) can mount here: root, /dev/fuse, fusermount3 and the tool (built when pkg-config finds
# fuse3). What it needs is in $fsfault_why, for the skip.
fsfault_ready() {
	fsfault_bin=${FSMIX_TOOLS:-}/fsfault
	fsfault_why="needs root, /dev/fuse, fusermount3 and tests/tools/fsfault (libfuse3-dev)"
	[ -x "$fsfault_bin" ] && [ -c /dev/fuse ] && command -v fusermount3 >/dev/null &&
		[ "$(id -u)" = 0 ]
}
# fsfault_mount MNT BACK ARGS...: fsfault (ARGS: its options, -f RULE...) over BACK at MNT, the
# daemon's PID in $fuse_pid, its log in $fuse_log (MNT.log). Unmounted at exit whatever happens,
# a held call released first (the EXIT trap becomes fsfault_cleanup, which ends with cleanup: a
# test with a trap of its own sets it again after). Returns 1, after the log's end, when it has
# not mounted within 60 s (a sanitizer build's daemon on a loaded machine starts slowly) or the
# daemon ended.
fsfault_pids=() fsfault_mnts=()
fsfault_mount() {
	local mnt=$1 back=$2 i
	shift 2
	mkdir -p "$mnt"
	fuse_log=$mnt.log
	"$fsfault_bin" "$@" "$back" "$mnt" 2>"$fuse_log" &
	fuse_pid=$!
	fsfault_pids+=("$fuse_pid") fsfault_mnts+=("$mnt") mounts+=("$mnt")
	trap fsfault_cleanup EXIT
	for ((i = 0; i < 600; i++)); do
		[ "$(findmnt -n -o FSTYPE --mountpoint "$mnt" 2>/dev/null)" = fuse.fsfault ] && return 0
		kill -0 "$fuse_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "     fsfault did not mount:"
	tail -n 4 "$fuse_log" | sed 's/^/     /'
	return 1
}
fsfault_cleanup() {
	local p m
	for p in "${fsfault_pids[@]}"; do kill -USR2 "$p" 2>/dev/null; done
	for m in "${fsfault_mnts[@]}"; do fusermount3 -u "$m" 2>/dev/null; done
	for p in "${fsfault_pids[@]}"; do kill "$p" 2>/dev/null; done
	cleanup
}
# fsfault_held DIR PID SECONDS: once fsfault holds the first open below MNT/DIR/fsmix.fs0/data/
# (rule open:N:PAUSE:/DIR/fsmix.fs0/data/) of the run PID, SECONDS more, then releases it
# (SIGUSR2). Returns 1, with bad, when the run ended first (e.g. refused its profile) or 240 s
# passed; the call is released then too.
fsfault_held() {
	local i
	for ((i = 0; i < 2400; i++)); do
		if grep -q "open(/$1/fsmix.fs0/data/.*): paused" "$fuse_log"; then
			sleep "$3"
			kill -USR2 "$fuse_pid"
			return 0
		fi
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	bad "$1: the run's first open was not held: $(tail -3 "$fuse_log")"
	kill -USR2 "$fuse_pid"
	return 1
}

# summary: the closing lines ctest logs read -- the counts, then each skipped check's reason --
# and the exit status: 1 on any failure, 77 if every check skipped, else 0.
summary() {
	local r
	echo "e2e $(basename "$0" .sh): $pass passed, $fail failed, $skip skipped"
	for r in "${skips[@]}"; do
		echo "  skipped: $r"
	done
	[ "$fail" -eq 0 ] || exit 1
	[ "$pass" -gt 0 ] || exit 77
	exit 0
}
