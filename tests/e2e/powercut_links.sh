#!/usr/bin/env bash
# Second names under a power cut (crash mode (b), docs/durability.md): tests/e2e/crash_links.sh's
# mix (link, unlink, delete, rename, replace_fsync, writes, syncfs; dirsync=1) on ext4 on
# fsmix-powercut's disk, cut 1.5 s into a 4 s run, the persisted image mounted (its journal
# replayed), `fsmix verify` and the second reader (tests/tools/durlog_reader.py):
#   1. barrier=1: verify exit 0, promises of second names checked, none broken.
#   2. barrier=0, two cuts: verify exit 1 with broken promises (the checker is checked), and the
#      reader agrees with it file by file (kept, broken or lost tail; a kind may differ where the
#      reader sees less of a block, as in durlog_reader.sh). How many findings name a second
#      name l<id> (missing, resurrected, split) is reported, not required: which names the cache
#      loses depends on timing.
# Fails on the old binary (no link or unlink: exit 2 at the profile). Needs root, /dev/fuse,
# loop devices and fsmix-powercut; skipped with a message otherwise.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "power cut of second names: $pc_why"
	summary
fi
trap 'pc_cleanup; cleanup' EXIT
reader=$src/tests/tools/durlog_reader.py

cat >"$work/links.ffsb" <<'EOF'
time=4
[filesystem0]
location=/unused
num_files=40
num_dirs=3
min_filesize=4KB
max_filesize=24KB
[end0]
[threadgroup0]
num_threads=3
op_rate=150
dirsync=1
write_weight=3
write_fdatasync_weight=1
create_fsync_weight=2
delete_weight=1
rename_weight=1
replace_fsync_weight=1
link_weight=3
unlink_weight=1
syncfs_weight=1
readall_weight=1
write_size=4KB
write_blocksize=4KB
read_blocksize=4KB
[end0]
EOF

# cut SEED BARRIER: one cut; sets j (verify's JSON) and r (the reader's), or returns 1.
cut() {
	local seed=$1 log=$work/pc$1.durlog
	if ! pc_disk links-$seed 128 --seed "$seed" --destage-delay 1000 || ! pc_mkfs "$2"; then
		bad "seed $seed: cannot set up the disk"
		return 1
	fi
	sleep 1.5 # mkfs destaged: the cut takes what the run wrote, not the filesystem
	pc_run_cut "$work/links.ffsb" 1.5 "$log" --seed "$seed"
	pc_detach
	if ! pc_attach; then
		skipped "seed $seed: the persisted image does not mount"
		return 1
	fi
	pc_verify "$work/links.ffsb" "$log"
	j=$pc_dir/$pc_name.verify.json r=$pc_dir/$pc_name.reader.json
	python3 "$reader" --durability-log "$log" --location "$pc_mnt" ${pc_cut_at:+--cut-at "$pc_cut_at"} --json >"$r"
	rrc=$?
}

second=$(printf '%s' '[.examples[][] | .path | select(test("/l[0-9]+$"))] | length')
if cut 91 barrier=1; then
	[ "$pc_verify_rc" = 0 ] && [ "$pc_broken" = 0 ] && [ "$(jq -r .second_name_promises "$j")" -gt 0 ] &&
		ok "barrier=1: verify: $pc_checked promises kept, $(jq -r .second_name_promises "$j") of second names" ||
		{ bad "barrier=1: verify exit $pc_verify_rc, $pc_broken of $pc_checked broken"; tail -8 "$pc_dir/$pc_name.verify"; }
	pc_release
fi
for seed in 92 93; do
	cut $seed barrier=0 || { pc_cleanup; continue; }
	diff=$(python3 - "$j" "$r" <<'EOF'
import json, sys
v = {(a, b): (c, d) for a, b, c, d in json.load(open(sys.argv[1]))["files"]}
r = {(a, b): (c, d) for a, b, c, d in json.load(open(sys.argv[2]))["files"] if c != "not_promised"}
keys = sorted(set(v) | set(r))
bad = [k for k in keys if v.get(k, ("absent",))[0] != r.get(k, ("absent",))[0]]
kinds = sum(1 for k in keys if k not in bad and v.get(k) != r.get(k))
print(len(keys), len(bad), kinds, " ".join("f%d:%s/%s" % (k[1], v.get(k), r.get(k)) for k in bad[:5]))
EOF
)
	read -r n ndiff nkind rest <<<"$diff"
	[ "$pc_verify_rc" = 1 ] && [ "$pc_broken" -gt 0 ] && [ "$rrc" = 1 ] && [ "$ndiff" = 0 ] &&
		ok "barrier=0 (seed $seed): verify: $pc_broken of $pc_checked promises broken ($(jq -c '.broken_by_kind | with_entries(select(.value > 0))' "$j"); $(jq -r "$second" "$j") examples name a second name); the reader agrees on all $n files ($nkind broken by both with another kind: the reader sees less of a block)" ||
		{ bad "barrier=0 (seed $seed): verify exit $pc_verify_rc, $pc_broken broken, reader exit $rrc, $ndiff files differ: $rest"; tail -4 "$pc_dir/$pc_name.verify"; }
	pc_release
done
summary
