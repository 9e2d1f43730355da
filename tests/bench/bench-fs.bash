# bench-fs.bash - the scratch filesystems of the side-by-side benches (bench_filebench.sh,
# bench_mdtest.sh): a work directory on tmpfs ($work) and, on demand (ext4_mount), an ext4
# image loop-mounted from the disk ($mnt); on exit, also after a failure or Ctrl-C, it is
# unmounted, detached and removed with the work directory.
# Source it after setting bench_tag (in the names: fsmix-bench-TAG.*) and bench_ext4_mb (the
# image's size in MiB unless BENCH_EXT4_MB says otherwise).
work=$(mktemp -d "/dev/shm/fsmix-bench-$bench_tag.XXXXXX")
mnt='' loopdev='' img=''
bench_fs_cleanup() {
	[ -n "$mnt" ] && umount -l "$mnt" 2>/dev/null
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	rm -rf "$work" "$img"
}
trap bench_fs_cleanup EXIT
trap 'exit 130' INT TERM

# dir_for FS (tmpfs or ext4): a fresh empty directory on that filesystem.
dir_for() {
	local d
	case $1 in
	tmpfs) d=$work/t ;;
	ext4) d=$mnt/t ;;
	esac
	rm -rf "$d" && mkdir -p "$d" && sync -f "$d" && echo "$d"
}

# ext4_mount: the ext4 image made and mounted at $mnt (once); 1 where it cannot be. The inode
# tables and the journal are written at mkfs (lazy_*_init=0): with mkfs's defaults the kernel's
# ext4lazyinit thread zeroes them in the background after the mount, writing to the shared disk
# during the first runs (the first tool's), not the later ones.
ext4_mount() {
	[ -n "$mnt" ] && return 0
	[ "$(id -u)" = 0 ] || { echo "$(basename "$0" .sh): ext4 needs root: skipped"; return 1; }
	img=$(mktemp "${BENCH_IMG_DIR:-/tmp}/fsmix-bench-$bench_tag.XXXXXX.img")
	truncate -s "${BENCH_EXT4_MB:-$bench_ext4_mb}M" "$img" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img" >/dev/null 2>&1 &&
		loopdev=$(losetup -f --show "$img") && mkdir -p "$work/ext4" &&
		mount -t ext4 "$loopdev" "$work/ext4" && mnt=$work/ext4
}
