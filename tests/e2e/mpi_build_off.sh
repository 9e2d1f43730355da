#!/usr/bin/env bash
# The build without MPI (cmake -DFSMIX_MPI=OFF) keeps working: configured and built (the fsmix
# target only) in a temporary directory, it runs as one process, and refuses --mpi and an MPI
# launcher's environment with exit 3 and the reason. Default build only: it builds fsmix again.
set -u
. "$(dirname "$0")/lib.bash"

if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "mpi_build_off: built once, in the default build (this one has sanitizers: $FSMIX_SANITIZERS)"
	summary
fi
off="$work/build-off"
if cmake -S "$src" -B "$off" -G Ninja -DFSMIX_MPI=OFF -DFSMIX_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/cmake.log" 2>&1 &&
	cmake --build "$off" --target fsmix >>"$work/cmake.log" 2>&1; then
	ok "cmake -DFSMIX_MPI=OFF: configured and built"
else
	bad "cmake -DFSMIX_MPI=OFF: $(tail -5 "$work/cmake.log")"
	summary
fi
grep -q "MPI support: no (FSMIX_MPI=OFF)" "$work/cmake.log" && ok "cmake says: MPI support: no" || bad "no 'MPI support: no' line"
fsmix="$off/src/fsmix"
ldd "$fsmix" | grep -q libmpi && bad "the OFF build links libmpi" || ok "the OFF build does not link libmpi"
loc=$(shmdir)
"$fsmix" run "$src/profiles/default.ffsb" --location "$loc" --time 1 "${paced[@]}" --threads 1 \
	--set filesystem0.num_files=50 --json "$work/r.json" >"$work/r.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -d "$loc/fsmix.fs0" ] && ok "it runs as one process" || bad "OFF build run: exit $rc"
"$fsmix" run "$src/profiles/default.ffsb" --location "$loc" --mpi >"$work/m.out" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "built without MPI support" "$work/m.out" && ok "--mpi: exit 3, 'built without MPI support'" ||
	bad "--mpi: exit $rc: $(cat "$work/m.out")"
OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$fsmix" run "$src/profiles/default.ffsb" --location "$loc" >"$work/l.out" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "built without MPI support" "$work/l.out" &&
	ok "started by a launcher: exit 3 (not N colliding copies)" || bad "launcher env: exit $rc"
summary
