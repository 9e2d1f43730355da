# package.cmake - `cmake --build build --target package` makes build/fsmix_<version>_<arch>.deb
# with CPack's DEB generator. The package holds exactly what the install rules install
# (CMakeLists.txt, src/CMakeLists.txt), relocated from the install prefix to /usr.
#
# Depends is computed by dpkg-shlibdeps (package dpkg-dev) from the libraries the binary links
# (libc6, libinih1, libjansson4, and whatever else a build adds, e.g. a sanitizer runtime), so it
# cannot drift from the build. gnuplot only draws plots: a Recommends.

set(FSMIX_PACKAGE_MAINTAINER "fsmix maintainers <fsmix@localhost>"
    CACHE STRING "Maintainer field of the Debian package")

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
