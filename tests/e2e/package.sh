#!/usr/bin/env bash
# The Debian package: `cmake --build BUILD --target package` makes fsmix_<version>_<arch>.deb
# holding what `cmake --install` installs (under /usr), with Depends from dpkg-shlibdeps and
# gnuplot as a Recommends; `apt-get install ./fsmix_*.deb` installs it offline (dev.sh has
# installed the dependencies); the installed fsmix runs, checks a shipped profile, has its man
# page and bash completion; the package is purged again, also when a check fails. lintian finds
# no error and no warning in it (Debian policy's copyright file and changelog, a maintainer
# address lintian accepts, the hardening flags: no hardening-* tag at any level), whatever the
# package holds; every ELF file in it is hardened (stack protector, relro, bind now).
#
# Only in the default build (a sanitizer build's package would depend on the sanitizer
# runtimes), as root, on a dpkg system; RUN_SERIAL (tests/CMakeLists.txt) since it builds in
# the build tree and installs system-wide. It never replaces an installed fsmix package nor
# overwrites a file the package did not put there: it skips instead.
set -u
. "$(dirname "$0")/lib.bash"
build=${FSMIX_BUILD_DIR:?FSMIX_BUILD_DIR must point at the build tree}
if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "package: built and installed only in the default build (this one has sanitizers: $FSMIX_SANITIZERS)"
	summary
fi
if [ "$(id -u)" != 0 ]; then
	skip_env root "package: needs root to install the package"
	summary
fi
for tool in apt-get dpkg dpkg-deb dpkg-shlibdeps cpack man flock lintian readelf; do
	if ! command -v "$tool" >/dev/null; then
		skip_env tool "package: no $tool (Debian with dpkg-dev, man-db and lintian: bash tests/dev.sh setup)"
		summary
	fi
done
# Two builds' tests (other checkouts) must not install and purge the package at once.
exec 9>/run/lock/fsmix-e2e-package.lock
flock -w 900 9 || { bad "package: another package test holds /run/lock/fsmix-e2e-package.lock"; summary; }
if dpkg-query -W -f='${Status}' fsmix 2>/dev/null | grep -q "ok installed"; then
	skipped "package: an fsmix package is installed already; the test will not replace or remove it"
	summary
fi
# A fsmix installed otherwise (cmake --install --prefix /usr, a copy): leave it alone. Every
# file of the package is checked again before installing.
for f in /usr/bin/fsmix /usr/share/fsmix /usr/share/man/man1/fsmix.1.gz /usr/share/doc/fsmix \
	/usr/share/bash-completion/completions/fsmix; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		skipped "package: $f exists and is not from an fsmix package; not overwriting it"
		summary
	fi
done
export DEBIAN_FRONTEND=noninteractive
# Offline: with no package sources apt-get can only use the .deb and what is installed (a
# missing dependency is an error, never a download), and it skips parsing the archive's lists.
# It writes no package cache built from this reduced view.
apt_opts=(-y -q -o Dpkg::Lock::Timeout=300 -o Dir::Etc::SourceList=/dev/null
	-o Dir::Etc::SourceParts=/dev/null -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)

# Purge the package whatever happens once the test has installed it.
installed=0
purge() {
	[ $installed = 1 ] || return 0
	apt-get purge "${apt_opts[@]}" fsmix >"$work/purge.log" 2>&1 || dpkg --purge fsmix >>"$work/purge.log" 2>&1
}
trap 'purge; cleanup' EXIT

# 1. Build it. The version is the project's, as the built binary reports it.
version=$("$bin" --version | sed -n 's/^fsmix //p')
deb=$build/fsmix_${version}_$(dpkg --print-architecture).deb
if ! cmake --build "$build" --target package >"$work/build.log" 2>&1 ||
	! grep -qF "package: $deb generated" "$work/build.log" || [ ! -f "$deb" ]; then
	bad "cmake --build --target package made no $(basename "$deb")"
	tail -15 "$work/build.log" | sed 's/^/     /'
	summary
fi
ok "cmake --build --target package: $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# 2. Its control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = fsmix ] && [ "$(field Version)" = "$version" ] &&
	ok "Package fsmix, Version $version" || bad "Package/Version: $(field Package) $(field Version)"
depends=$(field Depends)
missing=
for lib in libc6 libinih1 libjansson4; do
	grep -qE "(^|, )$lib( |,|$)" <<<"$depends" || missing+=" $lib"
done
[ -z "$missing" ] && ! grep -q "libasan\|libubsan\|libtsan" <<<"$depends" &&
	ok "Depends from the binary's libraries: $depends" || bad "Depends '$depends' lacks$missing"
grep -q "gnuplot-nox" <<<"$(field Recommends)" && ok "Recommends: $(field Recommends)" ||
	bad "Recommends '$(field Recommends)' lacks gnuplot-nox"
[ -n "$(field Maintainer)" ] && [ "$(field Description | wc -l)" -gt 1 ] &&
	ok "Maintainer and a description" || bad "Maintainer or extended description missing"

# 3. Its contents: exactly what `cmake --install` installs with the prefix /usr.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort >"$work/deb.files"
if DESTDIR="$work/stage" cmake --install "$build" --prefix /usr >"$work/install.log" 2>&1; then
	(cd "$work/stage" && find . ! -type d | sed 's/^\.//' | sort) >"$work/install.files"
	if diff "$work/install.files" "$work/deb.files" >"$work/files.diff"; then
		ok "the package holds what cmake --install installs ($(wc -l <"$work/deb.files") files)"
	else
		bad "package and cmake --install differ:"
		sed 's/^/     /' "$work/files.diff"
	fi
else
	bad "cmake --install failed"
	tail -5 "$work/install.log" | sed 's/^/     /'
fi
want="/usr/bin/fsmix /usr/share/man/man1/fsmix.1.gz /usr/share/fsmix/profiles/ext4-barrier-2010.ffsb
/usr/share/bash-completion/completions/fsmix /usr/share/doc/fsmix/README.md
/usr/share/doc/fsmix/examples/barrier-2010.sh /usr/share/doc/fsmix/copyright
/usr/share/doc/fsmix/changelog.gz /usr/share/doc/fsmix/durability.md
/usr/share/doc/fsmix/examples/powercut-lib.bash /usr/share/doc/fsmix/examples/powercut-2010.sh"
# fsmix-powercut and its man page, where this build has it (built where fuse3 is found)
[ -x "$build/src/fsmix-powercut" ] &&
	want+=" /usr/bin/fsmix-powercut /usr/share/man/man1/fsmix-powercut.1.gz"
missing=$(comm -23 <(tr ' ' '\n' <<<"$want" | sort) "$work/deb.files")
[ -z "$missing" ] && ok "binary, man page, profiles, completion, docs, examples, copyright and changelog" ||
	bad "the package lacks $(echo $missing)"

# 3b. lintian: no error, no warning; the other tags are shown, and none of them may be a
# hardening-* one (fortify functions, bind now, relro, PIE). Exit status 0 or 1 (tags at
# error level): it checked; 2: it could not.
lintian --info --pedantic --display-level '>=pedantic' "$deb" >"$work/lintian.out" 2>"$work/lintian.err"
lrc=$?
grep -E '^[EWIPXO]: ' "$work/lintian.out" | sort -u >"$work/lintian.tags"
errors=$(grep -cE '^[EW]: ' "$work/lintian.tags")
hardening=$(grep -c ': hardening-' "$work/lintian.tags")
if [ $lrc -gt 1 ]; then
	bad "lintian could not check the package (exit $lrc):"
	sed 's/^/     /' "$work/lintian.err" | head -10
elif [ "$errors" = 0 ] && [ "$hardening" = 0 ]; then
	ok "lintian: no error, no warning, no hardening tag ($(wc -l <"$work/lintian.tags") other tags)"
	sed 's/^/     lintian: /' "$work/lintian.tags"
else
	bad "lintian: $errors errors and warnings, $hardening hardening tags:"
	sed 's/^/     /' "$work/lintian.tags"
fi
# The changelog's newest entry is this version.
if [ "$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/fsmix/changelog.gz | gzip -dc | head -1)" = \
	"fsmix ($version) unstable; urgency=medium" ]; then
	ok "changelog.gz: its newest entry is $version"
else
	bad "changelog.gz does not start with 'fsmix ($version) unstable; urgency=medium' (cmake/debian/changelog)"
fi
# Every ELF file of the package: stack protector, read-only relocations, all bound at start.
mkdir "$work/unpacked" && dpkg-deb -x "$deb" "$work/unpacked"
n_elf=0 weak=
while IFS= read -r -d '' f; do
	[ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
	n_elf=$((n_elf + 1))
	name=${f#"$work/unpacked"}
	readelf --dyn-syms -W "$f" | grep -q " __stack_chk_fail" || weak+=" $name: no stack protector (no __stack_chk_fail);"
	readelf -lW "$f" | grep -q "GNU_RELRO" || weak+=" $name: no relro;"
	readelf -dW "$f" | grep -qE "BIND_NOW|FLAGS_1.* NOW" || weak+=" $name: not bound at start (-z now);"
done < <(find "$work/unpacked" -type f -print0)
[ $n_elf -gt 0 ] && [ -z "$weak" ] && ok "its $n_elf ELF files: stack protector, relro, bind now" ||
	bad "hardening of the package's $n_elf ELF files:$weak"

# 4. Install it, offline.
while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		skipped "package: $f exists and is not from an fsmix package; not overwriting it"
		summary
	fi
done <"$work/deb.files"
cd "$(dirname "$deb")" || exit 1
installed=1
if ! apt-get install "${apt_opts[@]}" "./$(basename "$deb")" >"$work/apt.log" 2>&1; then
	bad "apt-get install ./$(basename "$deb") (offline; dependencies missing? bash tests/dev.sh setup)"
	tail -10 "$work/apt.log" | sed 's/^/     /'
	summary
fi
cd "$work" || exit 1
dpkg-query -W -f='${Status}' fsmix | grep -q "ok installed" && ok "apt-get install ./$(basename "$deb")" ||
	bad "apt-get install: fsmix is not installed"

# 5. The installed fsmix.
[ "$(/usr/bin/fsmix --version)" = "fsmix $version" ] && ok "/usr/bin/fsmix --version: fsmix $version" ||
	bad "/usr/bin/fsmix --version: $(/usr/bin/fsmix --version 2>&1)"
if /usr/bin/fsmix check /usr/share/fsmix/profiles/ext4-barrier-2010.ffsb >"$work/check.out" 2>&1 &&
	grep -q "ext4-barrier-2010.ffsb: OK" "$work/check.out"; then
	ok "fsmix check /usr/share/fsmix/profiles/ext4-barrier-2010.ffsb"
else
	bad "fsmix check of the installed 2010 profile"
	tail -5 "$work/check.out" | sed 's/^/     /'
fi
# excluded DIR: dpkg is configured not to install files below DIR (e.g. slim Docker images).
excluded() { cat /etc/dpkg/dpkg.cfg.d/* 2>/dev/null | grep -qE "^path-exclude[= ]+$1/"; }
if excluded /usr/share/man; then
	skipped "man fsmix: dpkg excludes /usr/share/man on this machine (/etc/dpkg/dpkg.cfg.d)"
elif man -aw fsmix 2>/dev/null | grep -qx /usr/share/man/man1/fsmix.1.gz &&
	MANWIDTH=80 man -P cat fsmix 2>/dev/null | grep -q "^NAME"; then
	ok "man -w fsmix: /usr/share/man/man1/fsmix.1.gz, and it renders"
else
	bad "man fsmix: $(man -aw fsmix 2>&1 | tr '\n' ' ')"
fi
# fsmix-powercut, where this build has it: runs, and its man page renders.
if [ -x "$build/src/fsmix-powercut" ]; then
	if [ "$(/usr/bin/fsmix-powercut --version 2>&1)" = "fsmix-powercut $version" ] &&
		{ excluded /usr/share/man || MANWIDTH=80 man -P cat fsmix-powercut 2>/dev/null | grep -q "^NAME"; }; then
		ok "/usr/bin/fsmix-powercut --version, and man fsmix-powercut renders"
	else
		bad "fsmix-powercut installed: $(/usr/bin/fsmix-powercut --version 2>&1)"
	fi
fi
# The completion, as bash-completion loads it, for the fsmix found in PATH.
comp() {
	PATH=/usr/bin:/bin bash -c '. /usr/share/bash-completion/completions/fsmix
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_fsmix fsmix "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' comp "$@"
}
mkdir "$work/empty" && cd "$work/empty" || exit 1
got=$(comp fsmix "")
[ "$(grep -cxE 'run|check|clean|compare|plot|keys' <<<"$got")" = 6 ] && ok "completion: the subcommands" ||
	bad "completion of subcommands: $(echo $got)"
got=$(comp fsmix run ext4)
[ "$got" = /usr/share/fsmix/profiles/ext4-barrier-2010.ffsb ] && ok "completion: run ext4 -> $got" ||
	bad "completion of 'run ext4': $(echo $got)"
got=$(comp fsmix run /usr/share/fsmix/profiles/ext4-barrier-2010.ffsb --set filesystem0.)
grep -qx filesystem0.num_files= <<<"$got" && ! grep -q num_threads <<<"$got" &&
	ok "completion: --set filesystem0. -> $(wc -l <<<"$got") keys" || bad "completion of --set filesystem0.: $(echo $got)"
# The seed scripts installed as examples find the installed profiles.
if excluded /usr/share/doc; then
	skipped "installed examples: dpkg excludes /usr/share/doc on this machine (/etc/dpkg/dpkg.cfg.d)"
else
	got=$(cd /tmp && PATH=/usr/bin:/bin bash -c '. /usr/share/doc/fsmix/examples/seed-lib.bash
		echo "$fsmix $profiles"' 2>&1)
	[ "$got" = "/usr/bin/fsmix /usr/share/fsmix/profiles" ] &&
		ok "the installed examples use /usr/bin/fsmix and /usr/share/fsmix/profiles" ||
		bad "installed seed-lib.bash: $got"
fi

# 6. Remove it: nothing of it stays.
installed=0
if apt-get purge "${apt_opts[@]}" fsmix >"$work/purge.log" 2>&1 &&
	! dpkg-query -W -f='${Status}' fsmix 2>/dev/null | grep -q "ok installed" &&
	[ ! -e /usr/bin/fsmix ] && [ ! -e /usr/share/fsmix ]; then
	ok "apt-get purge fsmix: /usr/bin/fsmix and /usr/share/fsmix are gone"
else
	bad "apt-get purge fsmix"
	tail -5 "$work/purge.log" | sed 's/^/     /'
	installed=1 # the EXIT trap tries dpkg --purge
fi
summary
