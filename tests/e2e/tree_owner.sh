#!/usr/bin/env bash
# End-to-end checks that a forged marker does not make a tree fsmix's (issue 19, item 1): a
# tree, its marker, a leftover fsmix.fs0.del or .new and every directory fsmix removes from or
# builds in must belong to the user running fsmix and be writable by nobody else. Another real
# user (uid 65534, nobody) makes the forgeries; fsmix (root) must refuse them with exit 2,
# naming the owner and the path, and leave every file in place. The normal cases still work:
# root on its own tree, and a user on a tree of their own.
set -u
. "$(dirname "$0")/lib.bash"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip_env root "tree_owner: needs root and setpriv (to act as uid 65534)"
	summary
fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! as_nobody "$bin" --version >/dev/null 2>&1; then
	skipped "tree_owner: uid 65534 cannot run $bin"
	summary
fi
chmod 755 "$shm_root" # uid 65534 works in locations below it

prof=$shm_root/owner.ffsb # uid 65534 reads it too
cat >"$prof" <<'EOF'
time=1
[filesystem0]
	location=/tmp
	num_files=6
	num_dirs=2
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=1
	read_weight=1
	create_weight=1
	delete_weight=1
	read_size=4KB
	read_blocksize=4KB
	write_size=4KB
	write_blocksize=4KB
[end0]
EOF
chmod 644 "$prof"

# newloc: a location anyone may create in (like /tmp: world-writable, sticky).
newloc() {
	local l
	l=$(shmdir)
	chmod 1777 "$l"
	echo "$l"
}

# forge DIR: uid 65534 makes DIR/data/d000/f0 and a hand-written marker in DIR.
forge() {
	as_nobody sh -c "mkdir -p '$1/data/d000' '$1/meta' && echo precious >'$1/data/d000/f0' &&
		printf 'fsmix-tree\nversion 1\nid 0123456789abcdef\n' >'$1/.fsmix-tree'"
}

# refused NAME RC ERRFILE PATH WHO: exit 2, and the message names PATH and WHO.
refused() {
	local name=$1 rc=$2 errf=$3 path=$4 who=$5
	if [ "$rc" = 2 ] && grep -qF "'$path'" "$errf" && grep -qF "$who" "$errf"; then
		ok "$name: exit 2, naming '$path' and $who"
	else
		bad "$name: exit $rc (want 2 naming '$path' and $who): $(head -c 600 "$errf")"
	fi
}

# intact NAME FILE: FILE is still there with its content.
intact() {
	if [ "$(cat "$2" 2>/dev/null)" = precious ]; then
		ok "$1: $(basename "$2") kept"
	else
		bad "$1: $2 was removed or changed"
	fi
}

# ---- a tree forged by another user -----------------------------------------------------------
loc=$(newloc)
forge "$loc/fsmix.fs0"
"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "forged tree, clean" $? "$work/e" "$loc/fsmix.fs0" "nobody (uid 65534)"
intact "forged tree, clean" "$loc/fsmix.fs0/data/d000/f0"
"$bin" run "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "forged tree, run" $? "$work/e" "$loc/fsmix.fs0" "nobody (uid 65534)"
intact "forged tree, run" "$loc/fsmix.fs0/data/d000/f0"
if [ "$(find "$loc/fsmix.fs0" | wc -l)" = 6 ]; then
	ok "forged tree, run: nothing built in it"
else
	bad "forged tree, run: built in it: $(find "$loc/fsmix.fs0" | head)"
fi

# ---- a planted fsmix.fs0.del and fsmix.fs0.new -----------------------------------------------
for suffix in .del .new; do
	loc=$(newloc)
	forge "$loc/fsmix.fs0$suffix"
	"$bin" run "$prof" -l "$loc" >"$work/o" 2>"$work/e"
	refused "planted fsmix.fs0$suffix, run" $? "$work/e" "$loc/fsmix.fs0$suffix" \
		"nobody (uid 65534)"
	intact "planted fsmix.fs0$suffix, run" "$loc/fsmix.fs0$suffix/data/d000/f0"
	"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
	refused "planted fsmix.fs0$suffix, clean" $? "$work/e" "$loc/fsmix.fs0$suffix" \
		"nobody (uid 65534)"
	intact "planted fsmix.fs0$suffix, clean" "$loc/fsmix.fs0$suffix/data/d000/f0"
done

# ---- root's own tree with a part that is not root's ------------------------------------------
# build LOC: root's tree of 6 files in data/d000 and d001.
build() {
	"$bin" run "$prof" -l "$1" --time 0 >/dev/null 2>&1 && [ -d "$1/fsmix.fs0/data/d001" ]
}

# The marker belongs to another user.
loc=$(shmdir)
build "$loc" || bad "building a tree in $loc"
chown 65534:65534 "$loc/fsmix.fs0/.fsmix-tree"
"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "marker of another user, clean" $? "$work/e" "$loc/fsmix.fs0/.fsmix-tree" \
	"nobody (uid 65534)"
[ -d "$loc/fsmix.fs0/data/d000" ] && ok "marker of another user, clean: tree kept" ||
	bad "marker of another user, clean: tree removed"

# A group-writable root, a world-writable marker.
loc=$(shmdir)
build "$loc" || bad "building a tree in $loc"
chmod g+w "$loc/fsmix.fs0"
"$bin" run "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "group-writable tree, run" $? "$work/e" "$loc/fsmix.fs0" "root (uid 0)"
grep -q "writable by its group" "$work/e" && ok "group-writable tree: says so" ||
	bad "group-writable tree: $(cat "$work/e")"
chmod g-w "$loc/fsmix.fs0"
chmod o+w "$loc/fsmix.fs0/.fsmix-tree"
"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "world-writable marker, clean" $? "$work/e" "$loc/fsmix.fs0/.fsmix-tree" "root (uid 0)"
grep -q "writable by every user" "$work/e" && ok "world-writable marker: says so" ||
	bad "world-writable marker: $(cat "$work/e")"
[ -f "$loc/fsmix.fs0/.fsmix-tree" ] && ok "world-writable marker: tree kept" ||
	bad "world-writable marker: tree removed"

# data/d001 belongs to another user, who keeps a file in it: neither clean nor run empties or
# fills it.
loc=$(shmdir)
build "$loc" || bad "building a tree in $loc"
d1=$loc/fsmix.fs0/data/d001
echo precious >"$d1/f999"
chown -R 65534:65534 "$d1"
"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "data/d001 of another user, clean" $? "$work/e" "$d1" "nobody (uid 65534)"
intact "data/d001 of another user, clean" "$d1/f999"
[ -d "$loc/fsmix.fs0" ] && ok "data/d001 of another user, clean: tree kept under its name" ||
	bad "data/d001 of another user, clean: $(ls "$loc")"
before=$(ls "$d1" | sort | tr '\n' ' ')
"$bin" run "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "data/d001 of another user, run" $? "$work/e" "$d1" "nobody (uid 65534)"
intact "data/d001 of another user, run" "$d1/f999"
after=$(ls "$d1" | sort | tr '\n' ' ')
[ "$before" = "$after" ] && ok "data/d001 of another user, run: nothing built in it" ||
	bad "data/d001 of another user, run: '$before' became '$after'"
chown -R 0:0 "$d1"
rm "$d1/f999"
"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
rc=$?
[ "$rc" = 0 ] && [ ! -e "$loc/fsmix.fs0" ] && ok "given back to root: clean removes the tree" ||
	bad "given back to root: clean exit $rc: $(cat "$work/e")"

# ---- the normal cases ------------------------------------------------------------------------
loc=$(shmdir)
if "$bin" run "$prof" -l "$loc" >"$work/o" 2>"$work/e" &&
	"$bin" run "$prof" -l "$loc" >>"$work/o" 2>>"$work/e" &&
	"$bin" clean "$prof" -l "$loc" >>"$work/o" 2>>"$work/e" && [ ! -e "$loc/fsmix.fs0" ]; then
	ok "root on its own tree: run, run again, clean: exit 0"
else
	bad "root on its own tree: $(cat "$work/e")"
fi
loc=$(shmdir)
chown 65534:65534 "$loc"
if as_nobody "$bin" run "$prof" -l "$loc" >"$work/o" 2>"$work/e" &&
	as_nobody "$bin" run "$prof" -l "$loc" >>"$work/o" 2>>"$work/e" &&
	[ "$(stat -c %u "$loc/fsmix.fs0")" = 65534 ] &&
	as_nobody "$bin" clean "$prof" -l "$loc" >>"$work/o" 2>>"$work/e" &&
	[ ! -e "$loc/fsmix.fs0" ]; then
	ok "uid 65534 on its own tree: run, run again, clean: exit 0"
else
	bad "uid 65534 on its own tree: $(cat "$work/e")"
fi
# ... and root on that user's tree: refused.
as_nobody "$bin" run "$prof" -l "$loc" --time 0 >/dev/null 2>&1
"$bin" clean "$prof" -l "$loc" >"$work/o" 2>"$work/e"
refused "root on uid 65534's real tree, clean" $? "$work/e" "$loc/fsmix.fs0" "nobody (uid 65534)"

summary
