# seed-lib.bash - helpers of the seed experiment scripts (sourced): a loop-mounted ext4 image
# per run, fsmix's figures from its text report, AVG and STDDEV. Needs root, mkfs.ext4, losetup.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fsmix=${FSMIX:-$here/build/src/fsmix}
[ -x "$fsmix" ] || fsmix=$(command -v fsmix) || { echo "fsmix not found: build it or set FSMIX" >&2; exit 2; }
# The profiles: the source tree's, or, for the installed copy of these scripts
# (/usr/share/doc/fsmix/examples), the ones installed beside the binary (<prefix>/share/fsmix).
profiles=${FSMIX_PROFILES:-$here/profiles}
[ -d "$profiles" ] || profiles=$(cd "$(dirname "$fsmix")/../share/fsmix/profiles" 2>/dev/null && pwd) ||
	{ echo "profiles not found beside $fsmix: set FSMIX_PROFILES" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "run as root (loop devices and mounts)" >&2; exit 2; }
work=$(mktemp -d /tmp/fsmix-seed.XXXXXX)
mnts=() devs=()
cleanup() {
	local i
	for ((i = ${#mnts[@]} - 1; i >= 0; i--)); do umount "${mnts[$i]}" 2>/dev/null || umount -l "${mnts[$i]}"; done
	for i in "${devs[@]}"; do losetup -d "$i" 2>/dev/null || { sleep 1; losetup -d "$i" 2>/dev/null; } || true; done
	rm -rf "$work"
}
trap cleanup EXIT

# fresh_ext4 NAME SIZE_MB MOUNT_OPTIONS: mkfs a new image and mount it at $mnt.
fresh_ext4() {
	local img=$work/$1.img dir=$work/$1 dev
	rm -f "$img"
	truncate -s "${2}M" "$img"
	dev=$(losetup -f --show "$img")
	devs+=("$dev")
	mkfs.ext4 -q -F "$dev" >/dev/null # the device, so it cannot be an old image's
	mkdir -p "$dir"
	mount -t ext4 -o "$3" "$dev" "$dir"
	mnts+=("$dir")
	mnt=$dir
}
# drop_ext4 DIR: unmount the last image again (keeps /tmp small).
drop_ext4() {
	umount "$1"
	losetup -d "${devs[-1]}"
	unset 'mnts[-1]' 'devs[-1]'
	rm -f "$1.img"
}

# From a text report: flush requests, Total Results tps, benchmark time, ops/sec, and the
# average of a sync-family call (ms).
flushes() { sed -n 's/^  flush requests \([0-9]*\) .*/\1/p' "$1" | head -1; }
tps() { awk '/^Total Results/ { t = 1 } t && /Transactions per Second/ { print $1; exit }' "$1"; }
took() { sed -n 's/^Benchmark took \([0-9.]*\) sec/\1/p' "$1"; }
opsps() { sed -n 's/^fsmix: [0-9]* operations (\([0-9.]*\) ops\/sec).*/\1/p' "$1"; }
sync_avg_ms() { awk -v c="$2" '/^Sync latency/ { s = 1; next } s && $1 == c { print $4; exit } s && /^$/ { s = 0 }' "$1"; }

# avg_sd V...: "AVG STDDEV" (sample standard deviation, n - 1).
avg_sd() { printf '%s\n' "$@" | awk '{ x[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2; printf "%.3f %.3f\n", m, (NR > 1 ? sqrt(v / (NR - 1)) : 0) }'; }
