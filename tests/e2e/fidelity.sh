#!/usr/bin/env bash
# --fidelity ffsb6 (issue 22, item 1): fsmix reproduces FFSB 6.0's departures from a profile.
# Every prediction is computed here from FFSB's rule, independently of fsmix's code: FFSB picks
# `1 + getrandom(sum)`, where getrandom(mod) is k random bytes modulo mod (k = 1 for mod < 256,
# 2 below 65536; rand.c:138-162), and scans the weights in order (ffsb_tg.c:104: operations in
# ffsb_op_list order; fileops.c:437, ffsb_fs.c:121: size_weight lines in reverse file order,
# parser.c:400). All counts come from fixed seeds, so a run gives the same numbers every time;
# the bounds are 4.5 binomial standard deviations, and each check also shows that the exact
# mode's shares would fail it.
set -u
. "$(dirname "$0")/lib.bash"

# shares WEIGHT... [rev]: FFSB's share of each choice, one per line, enumerating every byte.
shares() {
	python3 - "$@" <<'PY'
import sys
args = sys.argv[1:]
rev = args[-1] == "rev"
w = [int(x) for x in (args[:-1] if rev else args)]
order = list(range(len(w)))[::-1] if rev else list(range(len(w)))
s = sum(w)
values = 256 if s < 256 else 65536
hits = [0] * len(w)
for v in range(values):
    num = 1 + v % s
    k = 0
    while w[order[k]] < num:
        num -= w[order[k]]
        k += 1
    hits[order[k]] += 1
for h in hits:
    print(h / values)
PY
}

# ---- op picks: the published profile with create/write/read weights 100/30/100 ------------
# (tests/compat/lkml-2005-tosatti-zone-aging.ffsb: 43.5/13.0/43.5 %; FFSB ran 49.6/11.5/38.9 %)
prof="$src/tests/compat/lkml-2005-tosatti-zone-aging.ffsb"
loc=$(shmdir)
# FFSB's op order: read readall write create ...; weights 100 0 30 100
mapfile -t want < <(shares 100 0 30 100)
"$bin" run "$prof" --location "$loc" --threads 1 --set filesystem0.min_filesize=1k \
	--set filesystem0.max_filesize=4k --set threadgroup0.num_ops=10000 --time 120 --seed 27 \
	--fidelity ffsb6 --json "$work/ops.json" --cleanup >"$work/ops.out" 2>"$work/ops.err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$work/ops.json" "${want[0]}" "${want[2]}" "${want[3]}" <<'PY'; then
import json, math, sys
j = json.load(open(sys.argv[1]))
want = {"read": float(sys.argv[2]), "write": float(sys.argv[3]), "create": float(sys.argv[4])}
exact = {"read": 100 / 230, "write": 30 / 230, "create": 100 / 230}
ops = {o["name"]: o["count"] for o in j["total"]["ops"]}
n = sum(ops.values())
assert j["fidelity"] == "ffsb6", j["fidelity"]
assert n == 10000, n
for name, p in want.items():
    sd = math.sqrt(p * (1 - p) / n)
    got = ops.get(name, 0) / n
    print(f"{name}: {100 * got:.2f} % (FFSB's rule: {100 * p:.2f} %, the profile: {100 * exact[name]:.2f} %)")
    assert abs(got - p) < 4.5 * sd, name
# the profile's own shares are far outside the bound: the check can tell the two apart
assert abs(ops["read"] / n - exact["read"]) > 4.5 * math.sqrt(0.25 / n)
PY
	ok "op picks follow FFSB's biased rule (read $(printf '%.4f' "${want[0]}"), write $(printf '%.4f' "${want[2]}"), create $(printf '%.4f' "${want[3]}"))"
else
	bad "op picks: exit $rc"; cat "$work/ops.err"
fi
# the default stays exact: the same run without --fidelity draws the profile's shares
"$bin" run "$prof" --location "$loc" --threads 1 --set filesystem0.min_filesize=1k \
	--set filesystem0.max_filesize=4k --set threadgroup0.num_ops=10000 --time 120 --seed 27 \
	--json "$work/exact.json" --cleanup >/dev/null 2>&1
if python3 - "$work/exact.json" <<'PY'; then
import json, math, sys
j = json.load(open(sys.argv[1]))
ops = {o["name"]: o["count"] for o in j["total"]["ops"]}
n = sum(ops.values())
assert j["fidelity"] == "exact"
for name, w in (("read", 100), ("write", 30), ("create", 100)):
    p = w / 230
    assert abs(ops.get(name, 0) / n - p) < 4.5 * math.sqrt(p * (1 - p) / n), name
PY
	ok "without --fidelity the op shares are the profile's"
else
	bad "the exact mode's op shares"
fi

# ---- file sizes: a built tree's histogram ----------------------------------------------------
# The 2010 profile's size_weight weights (10 15 16 16 15 10 8 4 3 2 1, sum 100: one byte, 56
# residues doubled) on sizes 1..11 KiB; sparse files, so the tree takes no space.
cat >"$work/sizes.ffsb" <<'PROFILE'
time=0
fidelity=ffsb6
[filesystem0]
	location=/tmp
	num_files=8000
	num_dirs=4
	create_method=sparse
	size_weight 1k 10
	size_weight 2k 15
	size_weight 3k 16
	size_weight 4k 16
	size_weight 5k 15
	size_weight 6k 10
	size_weight 7k 8
	size_weight 8k 4
	size_weight 9k 3
	size_weight 10k 2
	size_weight 11k 1
[end0]
PROFILE
mapfile -t want < <(shares 10 15 16 16 15 10 8 4 3 2 1 rev)
loc=$(shmdir)
"$bin" run "$work/sizes.ffsb" --location "$loc" --seed 2010 >"$work/sizes.out" 2>"$work/sizes.err"
rc=$?
find "$loc/fsmix.fs0/data" -type f -printf '%s\n' | sort -n | uniq -c >"$work/sizes.hist"
if [ $rc -eq 0 ] && python3 - "$work/sizes.hist" "${want[@]}" <<'PY'; then
import math, sys
hist = {}
for line in open(sys.argv[1]):
    c, s = line.split()
    hist[int(s)] = int(c)
want = [float(x) for x in sys.argv[2:]]
w = [10, 15, 16, 16, 15, 10, 8, 4, 3, 2, 1]
n = sum(hist.values())
assert n == 8000, n
assert set(hist) <= {1024 * (i + 1) for i in range(11)}, sorted(hist)
chi_exact = 0
for i, p in enumerate(want):
    got = hist.get(1024 * (i + 1), 0)
    sd = math.sqrt(n * p * (1 - p))
    assert abs(got - n * p) < 4.5 * sd, (i, got, n * p)
    e = n * w[i] / 100
    chi_exact += (got - e) ** 2 / e
mean = sum(s * c for s, c in hist.items()) / n
print(f"mean {mean:.0f} B (FFSB's rule {sum(1024 * (i + 1) * p for i, p in enumerate(want)):.0f}, the profile {sum(1024 * (i + 1) * x for i, x in enumerate(w)) / 100:.0f}); chi2 against the profile {chi_exact:.0f}")
assert chi_exact > 29.6  # 10 degrees of freedom, p = 0.001: the profile's shares are rejected
PY
	ok "the size histogram of a built tree is FFSB's (reversed list, biased pick)"
else
	bad "size histogram: exit $rc"; cat "$work/sizes.err" "$work/sizes.hist"
fi

# min/max sizes: FFSB's min + getrandom(max - min). A range of 200 is one byte: offsets 0..55
# come twice in 256 (43.75 % of the files), and max itself never (fsmix's exact mode: 56 of
# the 201 sizes min..max, 27.9 %).
sed -e '/size_weight/d' -e 's/create_method=sparse/create_method=sparse\n\tmin_filesize=4096\n\tmax_filesize=4296/' \
	"$work/sizes.ffsb" >"$work/range.ffsb"
loc=$(shmdir)
"$bin" run "$work/range.ffsb" --location "$loc" --seed 2010 >/dev/null 2>"$work/range.err"
rc=$?
low=$(find "$loc/fsmix.fs0/data" -type f -size -4152c -printf x | wc -c)
top=$(find "$loc/fsmix.fs0/data" -type f -size +4295c -printf x | wc -c)
all=$(find "$loc/fsmix.fs0/data" -type f -printf x | wc -c)
# 8000 * 0.4375 = 3500, sd 44
if [ $rc -eq 0 ] && [ "$all" -eq 8000 ] && [ "$top" -eq 0 ] && [ "$low" -gt 3300 ] && [ "$low" -lt 3700 ]; then
	ok "min/max sizes: $low of 8000 files in the 56 doubled offsets, none at max"
else
	bad "min/max sizes: exit $rc, $low of $all low, $top at max"; cat "$work/range.err"
fi

# ---- byte accounting: --format ffsb and fidelity=ffsb6 print FFSB's counts -------------------
# read_random with read_size 6 KiB over 4 KiB blocks: FFSB reads one block and counts 6 KiB
# (fileops.c:174, 187-188): 1.5 times the bytes read. write of 4 KiB into 16 KiB files: FFSB
# counts the file, 4 times the bytes written (fileops.c:290-291).
cat >"$work/acct.ffsb" <<'PROFILE'
time=120
[filesystem0]
	location=/tmp
	num_files=16
	min_filesize=16k
	max_filesize=16k
[end0]
[threadgroup0]
	num_threads=1
	num_ops=4000
	read_weight=1
	write_weight=1
	read_random=1
	read_size=6k
	read_blocksize=4k
	write_size=4k
	write_blocksize=4k
[end0]
PROFILE
# ratio TEXT JSON KIND: the text's "KIND Throughput" over the bytes the JSON says moved
ratio() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
kind = sys.argv[3]
m = re.search(kind + r" Throughput: ([0-9.e+]+)([KMG]?B)/sec", text)
unit = {"B": 1, "KB": 1024, "MB": 1 << 20, "GB": 1 << 30}[m.group(2)]
shown = float(m.group(1)) * unit
moved = j["total"]["bytes_read" if kind == "Read" else "bytes_written"] / j["runtime_s"]
print(f"{shown / moved:.3f}")
PY
}
loc=$(shmdir)
for mode in exact-text exact-ffsb ffsb6-text; do
	case $mode in
	exact-text) args=() ;;
	exact-ffsb) args=(--format ffsb) ;;
	ffsb6-text) args=(--fidelity ffsb6) ;;
	esac
	"$bin" run "$work/acct.ffsb" --location "$loc" --seed 5 "${args[@]}" \
		--json "$work/acct-$mode.json" >"$work/acct-$mode.txt" 2>"$work/acct-$mode.err" || {
		bad "accounting run $mode"; cat "$work/acct-$mode.err"; continue; }
	r=$(ratio "$work/acct-$mode.txt" "$work/acct-$mode.json" Read)
	w=$(ratio "$work/acct-$mode.txt" "$work/acct-$mode.json" Write)
	case $mode in exact-text) wr=1 ww=1 ;; *) wr=1.5 ww=4 ;; esac
	# the text has three significant digits: within 0.6 %
	if awk -v r="$r" -v w="$w" -v a="$wr" -v b="$ww" \
		'BEGIN { exit !(r > a * 0.994 && r < a * 1.006 && w > b * 0.994 && w < b * 1.006) }'; then
		ok "$mode: read throughput x$r, write throughput x$w of the bytes moved"
	else
		bad "$mode: read x$r (want $wr), write x$w (want $ww)"
	fi
done
# the JSON keeps the bytes moved in every mode: one 4 KiB block per read, 4 KiB per write
if python3 - "$work/acct-ffsb6-text.json" <<'PY'; then
import json, sys
j = json.load(open(sys.argv[1]))
ops = {o["name"]: o for o in j["total"]["ops"]}
assert ops["read"]["bytes_read"] == 4096 * ops["read"]["count"], ops["read"]
assert ops["write"]["bytes_written"] == 4096 * ops["write"]["count"], ops["write"]
PY
	ok "the JSON counts the bytes moved under --fidelity ffsb6"
else
	bad "the JSON's bytes under --fidelity ffsb6"
fi

# ---- the key and the option ------------------------------------------------------------------
"$bin" check --strict-ffsb --fidelity ffsb6 "$work/acct.ffsb" >/dev/null 2>"$work/strict.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "num_ops: fsmix extension" "$work/strict.err" &&
	! grep -q "fidelity" "$work/strict.err"; then
	ok "--fidelity is accepted by --strict-ffsb (only num_ops is refused)"
else
	bad "--strict-ffsb --fidelity: exit $rc"; cat "$work/strict.err"
fi
"$bin" check --fidelity ffsb5 "$work/acct.ffsb" >/dev/null 2>"$work/bad.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "fidelity: 'ffsb5' is not one of exact, ffsb6" "$work/bad.err"; then
	ok "an unknown fidelity is refused (exit 2)"
else
	bad "--fidelity ffsb5: exit $rc"; cat "$work/bad.err"
fi
summary
