#!/usr/bin/env bash
# The namespace operations rename, replace_fsync, truncate and fallocate's modes (docs/ops.md,
# docs/durability.md "Namespace operations"), on tmpfs:
# 1. `fsmix keys` lists their weight keys as fsmix extensions; --strict-ffsb refuses them
#    (exit 2).
# 2. A profile mixing buffered writes, create_fsync, delete, rename and replace_fsync, verify=1,
#    syscalls timed, with --durability-log: exit 0, no content mismatch, each op counted in the
#    JSON, the rename syscall timed; the renames take files into several directories; `fsmix verify`
#    finds every promise kept (exit 0) and counts every replace acknowledged.
#    truncate (shrink, extend) with verify=1 is refused (exit 2); without, its runs verify clean
#    and each ftruncate is timed. punch_hole with verify=1 is refused (exit 2), fallocate (keep
#    size) is not; a logged run with both verifies clean, each fallocate(2) timed; zero_range,
#    which tmpfs lacks, fails the run (exit 1) naming the op and the call.
# 3. A doctored tree: a replaced file whose first 4 KiB are put back from before the replace
#    (a mix of old and new content) is broken of kind "mixed"; replaced files emptied are broken
#    of kind "emptied" (exit 1 both).
# 4. A temporary file f<id>.tmp a crash left is removed by `fsmix clean` with the tree.
# Fails on the old binary (no such operations: exit 2 at the profile).
set -u
. "$(dirname "$0")/lib.bash"

# 1. The keys.
keys=$("$bin" keys 2>&1)
if grep -q "^  rename_weight .*(fsmix extension)" <<<"$keys" &&
	grep -q "^  replace_fsync_weight .*(fsmix extension)" <<<"$keys"; then
	ok "fsmix keys lists rename_weight and replace_fsync_weight as fsmix extensions"
else
	bad "fsmix keys: no rename_weight / replace_fsync_weight"
fi

profile() { # profile OPS-LINES [TOP-LINES]
	cat <<EOF
time=0
${2:-}
[filesystem0]
location=/unused
num_files=24
num_dirs=3
min_filesize=8KB
max_filesize=24KB
reuse=1
[end0]
[threadgroup0]
num_threads=3
num_ops=150
$1
write_size=4KB
write_blocksize=4KB
read_blocksize=4KB
[stats]
enable_stats=1
[end]
[end0]
EOF
}
mix="write_weight=3
create_fsync_weight=1
delete_weight=1
rename_weight=2
replace_fsync_weight=2
readall_weight=1"
profile "$mix" "verify=1" >"$work/mix.ffsb"

loc=$(shmdir)
"$bin" run "$work/mix.ffsb" --location "$loc" --strict-ffsb >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "rename_weight" "$work/strict.out" &&
	ok "--strict-ffsb refuses rename_weight (exit 2)" ||
	{ bad "--strict-ffsb with rename: exit $rc"; tail -3 "$work/strict.out" | sed 's/^/     /'; }

# 2. The mix, with the log, then verify.
timeout 120 "$bin" run "$work/mix.ffsb" --location "$loc" --seed 5 --json "$work/mix.json" \
	--durability-log "$work/mix.durlog" >"$work/mix.out" 2>&1
rc=$?
count() { jq -r --arg n "$2" '[.total.ops[] | select(.name == $n) | .count] | add // 0' "$1"; }
syscall() { jq -r --arg n "$2" '[.total.syscalls[] | select(.name == $n) | .latency.count] | add // 0' "$1"; }
if [ $rc -eq 0 ] && [ "$(count "$work/mix.json" rename)" -gt 0 ] &&
	[ "$(count "$work/mix.json" replace_fsync)" -gt 0 ] && [ "$(count "$work/mix.json" delete)" -gt 0 ] &&
	[ "$(syscall "$work/mix.json" rename)" -gt 0 ] && [ "$(jq -r .verify "$work/mix.json")" = 0 ] &&
	grep -q "0 content mismatches" "$work/mix.out"; then
	ok "mix: exit 0, $(count "$work/mix.json" rename) renames and $(count "$work/mix.json" replace_fsync) replaces counted, $(syscall "$work/mix.json" rename) rename calls timed, no mismatch"
else
	bad "mix: exit $rc, rename $(count "$work/mix.json" rename 2>/dev/null), replace_fsync $(count "$work/mix.json" replace_fsync 2>/dev/null)"
	tail -5 "$work/mix.out" | sed 's/^/     /'
fi
# where the renames took files (the log's rename records, kind 12: dir), not where the files
# ended up: deletes and creates of 3 threads leave anywhere from a few files to dozens
dirs=$(python3 - "$work/mix.durlog" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
print(len({struct.unpack_from('<I', d, o + 36)[0] for o in range(2120, len(d) - 79, 80)
           if d[o] == 12}))
EOF
)
[ "${dirs:-0}" -ge 3 ] && ok "mix: the renames took files into $dirs directories" ||
	bad "mix: the renames took files into ${dirs:-0} directories"
timeout 120 "$bin" verify "$work/mix.ffsb" --location "$loc" --durability-log "$work/mix.durlog" \
	--json "$work/mix-verify.json" >"$work/mix-verify.out" 2>&1
vrc=$?
if [ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/mix-verify.json")" = 0 ] &&
	[ "$(jq -r .checked "$work/mix-verify.json")" -gt 0 ] &&
	[ "$(jq -r .acknowledged.replace "$work/mix-verify.json")" = "$(count "$work/mix.json" replace_fsync)" ]; then
	ok "mix: fsmix verify: $(jq -r .checked "$work/mix-verify.json") promises kept, $(jq -r .acknowledged.replace "$work/mix-verify.json") replaces acknowledged"
else
	bad "mix: fsmix verify exit $vrc"
	tail -8 "$work/mix-verify.out" | sed 's/^/     /'
fi

# 2b. truncate: refused with verify=1 (its holes are no generation), checked by the log.
profile "$mix
truncate_weight=2" "verify=1" >"$work/trunc-v.ffsb"
"$bin" check "$work/trunc-v.ffsb" >"$work/trunc-v.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "truncate_weight.*verify=1" "$work/trunc-v.out" &&
	ok "truncate with verify=1: exit 2 at its weight" ||
	{ bad "truncate with verify=1: exit $rc"; tail -3 "$work/trunc-v.out" | sed 's/^/     /'; }
profile "$mix
truncate_weight=2" >"$work/trunc.ffsb"
loc=$(shmdir)
timeout 120 "$bin" run "$work/trunc.ffsb" --location "$loc" --seed 8 --json "$work/trunc.json" \
	--durability-log "$work/trunc.durlog" >"$work/trunc.out" 2>&1
rc=$?
timeout 120 "$bin" verify "$work/trunc.ffsb" --location "$loc" --durability-log "$work/trunc.durlog" \
	--json "$work/trunc-verify.json" >"$work/trunc-verify.out" 2>&1
vrc=$?
if [ $rc -eq 0 ] && [ "$(count "$work/trunc.json" truncate)" -gt 0 ] &&
	[ "$(syscall "$work/trunc.json" ftruncate)" = "$(count "$work/trunc.json" truncate)" ] &&
	[ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/trunc-verify.json")" = 0 ]; then
	ok "truncate: $(count "$work/trunc.json" truncate) ftruncate calls timed; verify: $(jq -r .checked "$work/trunc-verify.json") promises kept"
else
	bad "truncate: run exit $rc, $(count "$work/trunc.json" truncate 2>/dev/null) truncates, verify exit $vrc"
	tail -8 "$work/trunc-verify.out" | sed 's/^/     /'
fi

# 2c. fallocate's modes: punch_hole and zero_range refused with verify=1 (zeroes are no
# generation), fallocate (keep size) allowed; punches checked by the log; zero_range on tmpfs
# (no such mode there) fails the run naming the call.
profile "$mix
punch_hole_weight=2" "verify=1" >"$work/punch-v.ffsb"
"$bin" check "$work/punch-v.ffsb" >"$work/punch-v.out" 2>&1
rc=$?
profile "$mix
fallocate_weight=2" "verify=1" >"$work/falloc-v.ffsb"
loc=$(shmdir)
timeout 120 "$bin" run "$work/falloc-v.ffsb" --location "$loc" --seed 9 --json "$work/falloc-v.json" \
	>"$work/falloc-v.out" 2>&1
frc=$?
[ $rc -eq 2 ] && grep -q "punch_hole_weight.*verify=1" "$work/punch-v.out" && [ $frc -eq 0 ] &&
	[ "$(count "$work/falloc-v.json" fallocate 2>/dev/null)" -gt 0 ] 2>/dev/null &&
	ok "punch_hole with verify=1: exit 2 at its weight; fallocate (keep size) with verify=1: exit 0, $(count "$work/falloc-v.json" fallocate) ops" ||
	{ bad "verify=1: punch_hole exit $rc, fallocate run exit $frc"; tail -3 "$work/punch-v.out" "$work/falloc-v.out" | sed 's/^/     /'; }
profile "$mix
fallocate_weight=1
punch_hole_weight=3" >"$work/punch.ffsb"
loc=$(shmdir)
timeout 120 "$bin" run "$work/punch.ffsb" --location "$loc" --seed 10 --json "$work/punch.json" \
	--durability-log "$work/punch.durlog" >"$work/punch.out" 2>&1
rc=$?
timeout 120 "$bin" verify "$work/punch.ffsb" --location "$loc" --durability-log "$work/punch.durlog" \
	--json "$work/punch-verify.json" >"$work/punch-verify.out" 2>&1
vrc=$?
fa=$(count "$work/punch.json" fallocate 2>/dev/null)
ph=$(count "$work/punch.json" punch_hole 2>/dev/null)
n_fa=$((${fa:-0} + ${ph:-0}))
if [ $rc -eq 0 ] && [ "${ph:-0}" -gt 0 ] &&
	[ "$(syscall "$work/punch.json" fallocate)" = "$n_fa" ] &&
	[ $vrc -eq 0 ] && [ "$(jq -r .broken "$work/punch-verify.json")" = 0 ]; then
	ok "punch_hole: $n_fa fallocate calls timed; verify: $(jq -r .checked "$work/punch-verify.json") promises kept"
else
	bad "punch_hole: run exit $rc, $n_fa fallocate calls, verify exit $vrc"
	tail -8 "$work/punch-verify.out" | sed 's/^/     /'
fi
profile "zero_range_weight=1" >"$work/zero.ffsb"
loc=$(shmdir)
timeout 120 "$bin" run "$work/zero.ffsb" --location "$loc" --seed 11 >"$work/zero.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "zero_range: fallocate(.*Operation not supported" "$work/zero.out" &&
	ok "zero_range on tmpfs: exit 1, the op and its call named" ||
	{ bad "zero_range on tmpfs: exit $rc"; tail -3 "$work/zero.out" | sed 's/^/     /'; }

# 3. Doctored: replaces only, on a reused tree whose files were copied before.
loc=$(shmdir)
profile "replace_fsync_weight=1" "verify=1" >"$work/rep.ffsb"
"$bin" run "$work/rep.ffsb" --location "$loc" --seed 6 --set threadgroup0.num_ops=0 \
	>"$work/build.out" 2>&1 || bad "replace: cannot build the tree: $(tail -1 "$work/build.out")"
cp -a "$loc/fsmix.fs0/data" "$work/before"
timeout 120 "$bin" run "$work/rep.ffsb" --location "$loc" --seed 7 --set threadgroup0.num_ops=8 \
	--durability-log "$work/rep.durlog" >"$work/rep.out" 2>&1 || bad "replace: run failed"
grep -q "reused" "$work/rep.out" || bad "replace: the tree was not reused: $(grep -m1 fs0 "$work/rep.out")"
mixed=
for f in "$loc"/fsmix.fs0/data/f* "$loc"/fsmix.fs0/data/d*/f*; do
	old=$work/before/${f#"$loc"/fsmix.fs0/data/}
	if [ -f "$old" ] && ! cmp -s "$f" "$old"; then
		dd if="$old" of="$f" bs=4096 count=1 conv=notrunc status=none
		mixed=$f
		break
	fi
done
timeout 120 "$bin" verify "$work/rep.ffsb" --location "$loc" --durability-log "$work/rep.durlog" \
	--json "$work/mixed.json" >"$work/mixed.out" 2>&1
vrc=$?
if [ -n "$mixed" ] && [ $vrc -eq 1 ] && [ "$(jq -r .broken_by_kind.mixed "$work/mixed.json")" = 1 ] &&
	grep -q "mixed: " "$work/mixed.out"; then
	ok "a replaced file with its old first 4 KiB put back: verify exit 1, kind mixed"
else
	bad "mixed: verify exit $vrc, mixed $(jq -r .broken_by_kind.mixed "$work/mixed.json" 2>/dev/null) (${mixed:-no replaced file found})"
	tail -8 "$work/mixed.out" | sed 's/^/     /'
fi
find "$loc/fsmix.fs0/data" -name 'f*' -type f -exec truncate -s 0 {} +
timeout 120 "$bin" verify "$work/rep.ffsb" --location "$loc" --durability-log "$work/rep.durlog" \
	--json "$work/emptied.json" >"$work/emptied.out" 2>&1
vrc=$?
e=$(jq -r .broken_by_kind.emptied "$work/emptied.json" 2>/dev/null)
[ $vrc -eq 1 ] && [ "${e:-0}" -gt 0 ] && ok "replaced files emptied: verify exit 1, $e of kind emptied" ||
	{ bad "emptied: verify exit $vrc, emptied ${e:-none}"; tail -6 "$work/emptied.out" | sed 's/^/     /'; }

# 4. A leftover temporary file is fsmix's: `fsmix clean` takes it with the tree.
echo leftover >"$loc/fsmix.fs0/data/f3.tmp"
"$bin" clean "$work/rep.ffsb" --location "$loc" >"$work/clean.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ ! -e "$loc/fsmix.fs0" ] && ok "fsmix clean removes a tree holding f3.tmp" ||
	{ bad "clean with f3.tmp: exit $rc"; tail -3 "$work/clean.out" | sed 's/^/     /'; }
summary
