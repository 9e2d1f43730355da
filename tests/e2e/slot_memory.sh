#!/usr/bin/env bash
# slot_memory (docs/engines.md, "Memory"; tests/bench/bench_depth.sh's private memory):
# 1. tests/bench/smaps_rss.awk on a made-up /proc/PID/smaps: the anonymous mappings (heap,
#    stacks, [anon:...]) and io_uring's rings count as private; an anonymous mapping marked
#    MADV_DONTDUMP (VmFlags dd) counts as the read sinks, file mappings as file pages; [vdso]
#    and [vvar] nowhere.
# 2. A run of engine=io_uring at iodepth 8, every operation weighted, 64 KB blocks, sampled
#    halfway: the read sinks are one mapping of their own marked dd, of one 64 KiB sink per
#    CPU (so the bench can leave them out; in sanitizer builds, whose own mappings are dd too
#    and may merge with it, a dd mapping at least that large); smaps_rss.awk's line agrees
#    with the smaps.
# 3. The same run, but not in sanitizer builds (whose fibers have 256 KiB stacks and frames several
#    times larger): the fibers' stacks (64 KiB mappings above a guard page) hold at most 2 pages
#    each after operations of every kind (1 page measured, docs/engines.md): an operation body
#    that put a large buffer on its stack would cost every slot its pages.
# Fails on the old binary and on this tree before the sinks were marked (no dd mapping), and
# without smaps_rss.awk.
set -u
. "$(dirname "$0")/lib.bash"

awkf=$src/tests/bench/smaps_rss.awk
[ -f "$awkf" ] || { bad "no $awkf"; summary; }

# 1. The parser.
cat >"$work/smaps" <<'EOF'
55d0c0000000-55d0c0010000 r-xp 00000000 fd:01 1234                       /usr/bin/fsmix
Rss:                  40 kB
VmFlags: rd ex mr mw me
55d0c1000000-55d0c1100000 rw-p 00000000 00:00 0                          [heap]
Rss:                 100 kB
VmFlags: rd wr mr mw me ac
7f0000000000-7f0000100000 rw-p 00000000 00:00 0 
Rss:                  20 kB
VmFlags: rd wr mr mw me nr
7f0000100000-7f0000300000 rw-p 00000000 00:00 0 
Rss:                 512 kB
VmFlags: rd wr mr mw me nr dd
7f0000300000-7f0000301000 ---p 00000000 00:00 0 
Rss:                   0 kB
VmFlags: mr mw me nr
7f0000400000-7f0000410000 rw-p 00000000 00:00 0                          [anon:x y]
Rss:                   4 kB
VmFlags: rd wr mr mw me
7f0000500000-7f0000502000 rw-s 00000000 00:0e 77                         anon_inode:[io_uring]
Rss:                   8 kB
VmFlags: rd wr sh mr mw me ms dd
7f0000600000-7f0000700000 r--p 00000000 fd:01 99                         /usr/lib/libc.so.6
Rss:                 300 kB
VmFlags: rd mr mw me
7ffd00000000-7ffd00100000 rw-p 00000000 00:00 0                          [stack]
Rss:                  60 kB
VmFlags: rd wr mr mw me gd ac
7ffd00200000-7ffd00204000 r--p 00000000 00:00 0                          [vvar]
Rss:                   0 kB
VmFlags: rd mr pf io de dd
7ffd00204000-7ffd00206000 r-xp 00000000 00:00 0                          [vdso]
Rss:                   8 kB
VmFlags: rd ex mr mw me de
EOF
got=$(awk -f "$awkf" "$work/smaps")
[ "$got" = "192 512 340" ] && ok "smaps_rss.awk: private 192 kB, sinks 512 kB, file 340 kB" ||
	bad "smaps_rss.awk: '$got', not '192 512 340'"

# 2. and 3. A run at depth 8, sampled halfway.
cat >"$work/mix.ffsb" <<EOF
time=4
[filesystem0]
location=/unused
num_files=60
num_dirs=4
min_filesize=8KB
max_filesize=128KB
[end0]
[threadgroup0]
num_threads=1
engine=io_uring
iodepth=8
$(grep '^OP(' "$src/src/base/ops.def" | grep -v 'OPF_STEP\|OPF_SEQ' |
	sed 's/^OP(\([a-z_0-9]*\),.*/\1_weight=1/' | grep -vx 'zero_range_weight=1\|sync_weight=1')
read_size=64KB
read_blocksize=64KB
write_size=64KB
write_blocksize=64KB
[stats]
enable_stats=1
[end]
[end0]
EOF
"$bin" run "$work/mix.ffsb" --location "$(shmdir)" --time 0 >"$work/probe.out" 2>&1
if [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'io_uring' "$work/probe.out")"
	summary
fi
: >"$work/run.err" # before the job opens it: the loop below reads it at once
"$bin" run "$work/mix.ffsb" --location "$(shmdir)" >"$work/run.out" 2>"$work/run.err" &
pid=$!
for _ in $(seq 600); do # until the timed run starts (a guard against a hang, not a speed)
	grep -q '^fsmix: running' "$work/run.err" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
sleep 2
cp "/proc/$pid/smaps" "$work/live" 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 0 ] && [ -s "$work/live" ] && ok "the depth-8 run: exit 0, sampled" ||
	{ bad "the depth-8 run: exit $rc"; tail -3 "$work/run.err" | sed 's/^/     /'; summary; }

# the mappings as "start size_kB perms path rss_kB dd", dd 1 when VmFlags has it, in address
# order (start in bytes: bash's arithmetic reads the hex)
while read -r range perms _ _ _ path; do
	[ -n "${range:-}" ] || continue
	s=$((16#${range%-*})) e=$((16#${range#*-}))
	echo "$s $(((e - s) / 1024)) $perms ${path:--}"
done < <(grep -E '^[0-9a-f]+-[0-9a-f]+ ' "$work/live") >"$work/maps"
grep -E '^(Rss|VmFlags):' "$work/live" | paste - - |
	awk '{ print $2, (/ dd( |$)/ ? 1 : 0) }' >"$work/rss"
paste -d' ' "$work/maps" "$work/rss" >"$work/table"

cpus=$(getconf _NPROCESSORS_CONF)
want=$((cpus * 64))
# "kind rss dd" per mapping: anon (no file: what smaps_rss.awk counts), or other
awk '{ k = ($4 == "-" || $4 ~ /^\[(heap|stack|anon:)/ || $4 == "anon_inode:[io_uring]") ? "anon" : "other"
	print k, $5, ($4 == "anon_inode:[io_uring]" ? 0 : $6), $2 }' "$work/table" >"$work/kinds"
n_dd=$(awk '$1 == "anon" && $3 == 1' "$work/kinds" | wc -l)
n_sink=$(awk -v w="$want" '$1 == "anon" && $3 == 1 && $4 == w' "$work/kinds" | wc -l)
n_big=$(awk -v w="$want" '$1 == "anon" && $3 == 1 && $4 >= w' "$work/kinds" | wc -l)
# A sanitizer marks its own mappings dd as well (ASan's shadow, TSan's metadata), and the
# kernel may merge the sinks with one of them next to it: there, a dd mapping at least as large.
if { [ -z "${FSMIX_SANITIZERS:-}" ] && [ "$n_sink" = 1 ] && [ "$n_dd" = 1 ]; } ||
	{ [ -n "${FSMIX_SANITIZERS:-}" ] && [ "$n_big" -ge 1 ]; }; then
	ok "the read sinks: a mapping of their own marked dd, $cpus x 64 KiB ($n_dd dd mapping(s))"
else
	bad "the read sinks: $n_sink dd mapping(s) of $want kB, $n_dd dd in all"
fi
read -r priv sk _ < <(awk -f "$awkf" "$work/live")
read -r want_priv want_sk < <(awk '$1 == "anon" { if ($3) d += $2; else p += $2 }
	END { print p + 0, d + 0 }' "$work/kinds")
[ "$sk" = "$want_sk" ] && [ "$priv" = "$want_priv" ] &&
	ok "smaps_rss.awk on the run: private $priv kB, sinks $sk kB" ||
	bad "smaps_rss.awk on the run: private $priv, sinks $sk; the table says $want_priv and $want_sk"

if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "the fibers' stacks: 256 KiB with frames several times larger in a sanitizer build"
else
	# a fiber's stack: 64 KiB (FIBER_STACK) rw-p, anonymous, right above its 4 KiB guard
	stacks=$(awk '$2 == 64 && $3 == "rw-p" && $4 == "-" && pe == $1 && pp == "---p" && ps == 4 { print $5 }
		{ pe = $1 + $2 * 1024; pp = $3; ps = $2 }' "$work/table")
	n=$(grep -c . <<<"$stacks")
	most=$(sort -n <<<"$stacks" | tail -1)
	# one may merge with a neighbour (a kernel that merges MAP_STACK mappings): 7 or 8
	if [ "$n" -ge 7 ] && [ "$n" -le 8 ] && [ "${most:-99}" -le 8 ]; then
		ok "the fibers' stacks: $n of 64 KiB, at most $most kB resident each (bound 8 kB)"
	else
		bad "the fibers' stacks: $n found, the largest $most kB resident (bound 8 kB): $(tr '\n' ' ' <<<"$stacks")"
	fi
fi
summary
