# package.cmake - `cmake --build build --target package` makes build/fsmix_<version>_<arch>.deb
# with CPack's DEB generator. The package holds exactly what the install rules install
# (CMakeLists.txt, src/CMakeLists.txt), relocated from the install prefix to /usr.
#
# Depends is computed by dpkg-shlibdeps (package dpkg-dev) from the libraries the binary links
# (libc6, libinih1, libjansson4, and whatever else a build adds, e.g. a sanitizer runtime), so it
# cannot drift from the build. gnuplot only draws plots: a Recommends.
#
# Debian policy's files of every package, installed by CMakeLists.txt like the rest:
# /usr/share/doc/fsmix/copyright (cmake/debian/copyright, machine-readable format) and
# changelog.gz (cmake/debian/changelog, Debian's changelog format: its newest entry is
# PROJECT_VERSION, which tests/e2e/package.sh checks). The binary is built with Debian's
# hardening flags (FSMIX_HARDENING, CMakeLists.txt); tests/e2e/package.sh runs lintian.

# The maintainer: the project's address in a reserved domain (RFC 2606's .example: no stranger's
# mailbox; lintian accepts any well-formed domain, not localhost). Who builds a package to pass
# on sets their own: -DFSMIX_PACKAGE_MAINTAINER="Name <address>".
set(_fsmix_maintainer "fsmix maintainers <fsmix-maintainers@fsmix.example>")
set(FSMIX_PACKAGE_MAINTAINER "${_fsmix_maintainer}" CACHE STRING "Maintainer field of the Debian package")
# A build tree configured before keeps the old default, which lintian refuses: replace it.
if(FSMIX_PACKAGE_MAINTAINER STREQUAL "fsmix maintainers <fsmix@localhost>")
  set_property(CACHE FSMIX_PACKAGE_MAINTAINER PROPERTY VALUE "${_fsmix_maintainer}")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fsmix)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${FSMIX_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "filesystem workload engine that runs FFSB profiles")
# The extended description, one line per line of `dpkg -s` (CPack indents them).
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "fsmix builds a file tree and runs weighted mixes of file operations (create,"
  "append, read, write, delete, stat, fsync, fdatasync, sync, ...) with many"
  "threads, and reports transactions per second, throughput, latency percentiles"
  "and the device's flush requests. It reads FFSB 6.0 profiles unchanged,"
  "validates profiles with file, line and key in every message, sweeps thread"
  "counts and keys, compares runs and draws plots with gnuplot. Ready profiles of"
  "classic fsync and barrier experiments are in /usr/share/fsmix/profiles."
  "fsmix-powercut, where built, is a FUSE disk with a volatile write cache for"
  "power-cut experiments (fsmix verify checks what the syncs promised).")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # fsmix_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
# fsmix-powercut (where it is built) mounts with fusermount3 and its scripts use losetup/e2fsck
if(FSMIX_BUILD_POWERCUT)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${CPACK_DEBIAN_PACKAGE_RECOMMENDS}, fuse3")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")

# `package_source` would otherwise archive build trees and .git too.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/_CPack_Packages/")

include(CPack)
