#!/usr/bin/env bash
# Sizes and offsets inside a file (issue 28, item 4): write_bssplit, read_bssplit,
# write_bsrange, read_bsrange, random_distribution and percentage_random in fio's syntax are
# accepted (`fsmix check` prints the resolved shares), refused under --strict-ffsb, and every bad value is refused at its line; the sizes
# and offsets the workers actually issue (strace: each read/write after its lseek, on a tmpfs
# file) follow each distribution's definition (chi-square, p > 0.001, at fixed seeds: one
# thread, counted ops, so nothing depends on the machine's speed).
set -u
. "$(dirname "$0")/lib.bash"

profile() { # TG-EXTRA [FILESIZE] [OPS] [GLOBAL-EXTRA]
	printf 'time=0\n%b[filesystem0]\n\tlocation=%s\n\tnum_files=1\n' "${4:-}" "$(shmdir)"
	printf '\tmin_filesize=%s\n\tmax_filesize=%s\n\tcreate_method=sparse\n[end0]\n' "${2:-1m}" "${2:-1m}"
	printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=%s\n%b[end0]\n' "${3:-10}" "$1"
}

# ---- 1. accepted; refused by --strict-ffsb -------------------------------------------------
profile '\twrite_weight=1\n\tread_weight=1\n\twrite_bssplit=4k/50:64k/30:1m\n\tread_bsrange=4k-64k\n\trandom_distribution=zoned:60/10:30/20:8/30:2/40\n\tpercentage_random=80\n' >"$work/all.ffsb"
"$bin" check "$work/all.ffsb" >"$work/all.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'write call sizes: 4 KiB 50 %, 64 KiB 30 %, 1 MiB 20 %$' "$work/all.out" &&
	grep -q 'read call sizes: 4 KiB to 64 KiB in steps of 4 KiB (16 sizes, equally likely)' "$work/all.out" &&
	grep -q 'offsets: zoned:60/10:30/20:8/30:2/40, 80 % drawn, 20 % continuing the previous extent' "$work/all.out"; then
	ok "check: the keys accepted (no write_size or read_size needed with a mix), their shares printed"
else
	bad "check: exit $rc"; cat "$work/all.out"
fi
profile '\twrite_weight=1\n\tread_weight=1\n\twrite_bsrange=4k-8k\n\tread_bssplit=4k\n\trandom_distribution=zipf:1.1\n\tpercentage_random=80\n' >"$work/all2.ffsb"
n=0
for f in all all2; do
	"$bin" check --strict-ffsb "$work/$f.ffsb" >/dev/null 2>"$work/strict.err"
	rc=$?
	[ $rc -eq 2 ] || bad "--strict-ffsb $f: exit $rc"
	n=$((n + $(grep -cE '\] (write|read)_(bssplit|bsrange|X)|\] (random_distribution|percentage_random): fsmix extension, rejected by --strict-ffsb' "$work/strict.err")))
done
if [ "$n" -eq 8 ]; then
	ok "--strict-ffsb: the six keys refused (exit 2)"
else
	bad "--strict-ffsb: $n refusals"; cat "$work/strict.err"
fi

io4k='\twrite_size=4k\n\twrite_blocksize=4k\n\tread_size=4k\n\tread_blocksize=4k\n'
# ---- 2. bad values: exit 2, file:line, key, what is wrong ----------------------------------
bad_value() { # TG-EXTRA PATTERN LABEL [GLOBAL-EXTRA]: the key under test at line 12
	profile "$1\twrite_weight=1\n\tread_weight=1\n$io4k" 1m 10 "${4:-}" >"$work/bad.ffsb"
	"$bin" check "$work/bad.ffsb" >/dev/null 2>"$work/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$2" "$work/bad.err" && [ "$(grep -c error: "$work/bad.err")" -eq 1 ]; then
		ok "bad value refused: $3"
	else
		bad "bad value $3: exit $rc"; cat "$work/bad.err"
	fi
}
bad_value '\twrite_bssplit=4k/60:64k/50\n' 'bad.ffsb:12: error: \[threadgroup0\] write_bssplit: the percentages of .4k/60:64k/50. add up to 110, over 100' 'write_bssplit over 100'
bad_value '\twrite_bssplit=4k/50:64k/30\n' 'write_bssplit: the percentages of .4k/50:64k/30. add up to 80, not 100' 'write_bssplit under 100'
bad_value '\tread_bssplit=0/100\n' "bad.ffsb:12: error: \[threadgroup0\] read_bssplit: size '0' in '0/100' is zero" 'read_bssplit zero size'
bad_value '\tread_bssplit=4k/50:/50\n' 'read_bssplit: .4k/50:/50. has an entry without a size' 'read_bssplit syntax'
bad_value '\twrite_bsrange=64k-4k\n' 'bad.ffsb:12: error: \[threadgroup0\] write_bsrange: LO 64k is larger than HI 4k' 'write_bsrange lo > hi'
bad_value '\tread_bsrange=4k\n' "bad.ffsb:12: error: \[threadgroup0\] read_bsrange: '4k' is not a size range" 'read_bsrange syntax'
bad_value '\tread_bsrange=4k-2g\n' 'read_bsrange: size .2g. in .4k-2g. is over 1 GiB' 'read_bsrange over 1 GiB'
bad_value '\twrite_bssplit=1000/100\n' 'bad.ffsb:13: error: \[threadgroup0\] write_bssplit: size 1000 is not a multiple of 512 bytes, which directio=1' 'write_bssplit not a multiple of 512 with directio' 'directio=1\n'
bad_value '\twrite_bssplit=4k\n\twrite_bsrange=4k-8k\n' 'bad.ffsb:13: error: \[threadgroup0\] write_bsrange: cannot be combined with write_bssplit (line 12)' 'split with range'
bad_value '\trandom_distribution=zipf:0\n' "bad.ffsb:12: error: \[threadgroup0\] random_distribution: zipf THETA '0' is out of range" 'zipf:0'
bad_value '\trandom_distribution=zoned:60/10:30/20\n' 'random_distribution: the zones of .zoned:60/10:30/20. give 90 % of the accesses to 30 % of the file' 'zoned not adding up'
bad_value '\trandom_distribution=normal:0\n' "normal SIGMA '0' is out of range" 'normal:0'
bad_value '\trandom_distribution=lru\n' "'lru' is not a random_distribution" 'lru'
bad_value '\tpercentage_random=101\n' 'bad.ffsb:12: error: \[threadgroup0\] percentage_random' 'percentage_random=101'
bad_value '\trandom_distribution=zipf:1.2\n\twrite_stride=4k\n' 'random_distribution: cannot be combined with write_stride (line 13)' 'with write_stride'

# ---- 3. what the workers issue follows the distributions (strace) --------------------------
if ! command -v strace >/dev/null; then
	skip_env strace "sizes and offsets by strace: strace not installed"
	summary
fi
# traced OPS FILESIZE TG-EXTRA: the (offset, size) of every read or write of a tree file that
# follows an lseek(SEEK_SET) on its descriptor (or a pread/pwrite), one "op offset size" line
# each, in $work/io
traced() {
	profile "$3" "$2" "$1" >"$work/t.ffsb"
	# LeakSanitizer cannot run under ptrace: no leak check in the traced run
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat,lseek,read,write,pread64,pwrite64 -o "$work/t.trace" \
		"$bin" run --seed 7 "$work/t.ffsb" >"$work/t.out" 2>&1 ||
		{ bad "traced run of $1 ops: $(tail -2 "$work/t.out")"; return 1; }
	python3 - "$work/t.trace" >"$work/io" <<'PY'
import re, sys
# only the descriptors of the tree's files (f<id>), opened by the thread that uses them
opn = re.compile(r'^(\d+) +openat\(\d+, "f\d+", .*\) = (\d+)$')
seek = re.compile(r"^(\d+) +lseek\((\d+), (\d+), SEEK_SET\)")
rw = re.compile(r"^(\d+) +(p?)(read|write)(?:64)?\((\d+), .*, (\d+)(?:, (\d+))?\) = \d+$")
files, off = set(), {}
for line in open(sys.argv[1]):
	m = opn.match(line)
	if m:
		files.add((m[1], m[2]))
		continue
	m = seek.match(line)
	if m and (m[1], m[2]) in files:
		off[(m[1], m[2])] = m[3]
		continue
	m = rw.match(line)
	if m and (m[1], m[4]) in files:
		at = m[6] if m[2] else off.pop((m[1], m[4]), None)
		if at is not None:
			print(m[3], at, m[5])
PY
}
# check LABEL KIND SPEC N [refused]: chi-square of the lines of $work/io against the definition
# (with "refused": the test must reject them, p <= 0.001)
check() {
	python3 - "$work/io" "$2" "$3" "$4" >"$work/chi.out" 2>&1 <<'PY'
import math, sys
path, kind, spec, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [l.split() for l in open(path)]
def sf_chi2(x, k):  # upper tail of chi-square with k dof: Q(k/2, x/2)
	a, x = k / 2.0, x / 2.0
	if x < a + 1:  # series for P, then 1 - P
		s = t = 1.0 / a; i = a
		while t > s * 1e-15:
			i += 1; t *= x / i; s += t
		return 1 - s * math.exp(-x + a * math.log(x) - math.lgamma(a))
	b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a); h = d  # continued fraction for Q
	for i in range(1, 10000):
		an = -i * (i - a); b += 2
		d = an * d + b; d = 1 / d if d else 1e300
		c = b + an / c if c else 1e-300
		h *= d * c
		if abs(d * c - 1) < 1e-15: break
	return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h
if kind == "size":  # spec: SIZE:PCT,...
	p = {int(s): float(q) / 100 for s, q in (e.split(":") for e in spec.split(","))}
	obs = [int(r[2]) for r in rows]
	keys = sorted(p)
	hits = [sum(1 for o in obs if o == k) for k in keys]
	assert sum(hits) == len(obs), "a size outside the mix: %s" % sorted(set(obs) - set(keys))
	exp = [p[k] * len(obs) for k in keys]
else:  # offsets of UNIT-byte extents in n slots
	unit = int(rows[0][2])
	obs = [int(r[1]) for r in rows]
	assert all(o % unit == 0 and o // unit < n for o in obs), "an offset off the slots"
	w, args = spec.split(":", 1)
	if w == "zipf":
		t = float(args); q = [(k + 1) ** -t for k in range(n)]
	elif w == "pareto":
		h = float(args); e = math.log(h) / math.log(1 - h)
		q = [((k + 1) / n) ** e - (k / n) ** e for k in range(n)]
	elif w == "normal":
		sd = float(args) / 100 * n; mid = n / 2
		cdf = lambda x: 0.5 * math.erfc(-(x - mid) / sd / math.sqrt(2))
		q = [cdf(k + 1) - cdf(k) for k in range(n)]
	elif w == "zoned":
		q = [0.0] * n; at = 0.0
		for z in args.split(":"):
			acc, size = (float(v) / 100 for v in z.split("/"))
			lo, hi = int(at * n), int((at + size) * n); at += size
			for k in range(lo, hi): q[k] += acc / (hi - lo)
	tot = sum(q); p = [v / tot for v in q]
	hits = [0] * n
	for o in obs: hits[o // unit] += 1
	exp = [v * len(obs) for v in p]
	bad = [k for k in range(n) if exp[k] == 0 and hits[k]]
	assert not bad, "offsets in slots the definition never draws: %s" % bad[:5]
# pool neighbouring bins until each expects 5 or more
ph, pe, ch, ce = [], [], 0, 0.0
for h, e in zip(hits, exp):
	if e == 0: continue
	ch += h; ce += e
	if ce >= 5: ph.append(ch); pe.append(ce); ch, ce = 0, 0.0
if ce: ph[-1] += ch; pe[-1] += ce
chi = sum((h - e) ** 2 / e for h, e in zip(ph, pe))
pv = sf_chi2(chi, len(ph) - 1)
print("%d draws, %d bins, chi2 %.2f, p %.3f" % (len(obs), len(ph), chi, pv))
assert pv > 0.001, "p = %g (chi2 %.1f, %d bins)" % (pv, chi, len(ph))
PY
	local rc=$?
	if [ "${5:-}" = refused ]; then
		if [ $rc -ne 0 ] && grep -q 'AssertionError: p = ' "$work/chi.out"; then
			ok "$1: $(grep -o 'p = .*' "$work/chi.out")"
		else
			bad "$1: $(tail -3 "$work/chi.out")"
		fi
	elif [ $rc -eq 0 ]; then
		ok "$1: $(cat "$work/chi.out")"
	else
		bad "$1: $(tail -3 "$work/chi.out")"
	fi
}
# sizes: one write() (read()) per op of the drawn size, no write_size/read_size
traced 3000 8m '\twrite_weight=1\n\twrite_bssplit=4k/50:64k/30:1m\n' &&
	check "write_bssplit=4k/50:64k/30:1m (the 1m gets the 20 % left)" size 4096:50,65536:30,1048576:20 0
traced 3000 8m '\tread_weight=1\n\tread_bsrange=4k-64k\n' &&
	check "read_bsrange=4k-64k (16 multiples of 4k)" size "$(seq -s, 4096 4096 65536 | sed 's/\([0-9]*\)/\1:6.25/g')" 0
traced 3000 8m '\tread_weight=1\n\tread_bssplit=8k/25:32k\n' &&
	check "read_bssplit=8k/25:32k" size 8192:25,32768:75 0
traced 3000 8m '\twrite_fdatasync_weight=1\n\twrite_bsrange=4k-18k\n' &&
	check "write_bsrange=4k-18k (write_fdatasync; 4k, 8k, 12k, 16k)" size 4096:25,8192:25,12288:25,16384:25 0
traced 3000 8m '\twrite_weight=1\n\twrite_random=1\n\twrite_bssplit=8k/10:16k/90\n' &&
	check "write_bssplit with write_random=1" size 8192:10,16384:90 0
# offsets: 4 KiB extents in a 1 MiB file: 256 slots
traced 4000 1m "\twrite_weight=1\n$io4k\trandom_distribution=zipf:1.2\n" &&
	check "random_distribution=zipf:1.2 (write)" off zipf:1.2 256
# the test tells distributions apart: these zipf:1.2 offsets are not zipf:1.0's
check "control: zipf:1.2 offsets judged as zipf:1.0 are refused" off zipf:1.0 256 refused
traced 4000 1m "\tread_weight=1\n$io4k\trandom_distribution=pareto:0.8\n" &&
	check "random_distribution=pareto:0.8 (read)" off pareto:0.8 256
traced 4000 1m "\twrite_fsync_weight=1\n$io4k\trandom_distribution=normal:10\n" &&
	check "random_distribution=normal:10 (write_fsync)" off normal:10 256
traced 4000 1m "\tread_weight=1\n$io4k\trandom_distribution=zoned:60/10:30/20:8/30:2/40\n" &&
	check "random_distribution=zoned:60/10:30/20:8/30:2/40 (read)" off zoned:60/10:30/20:8/30:2/40 256
traced 4000 1m "\twrite_weight=1\n\twrite_random=1\n\twrite_size=16k\n\twrite_blocksize=4k\n\trandom_distribution=zipf:0.9\n" &&
	check "random_distribution=zipf:0.9, write_random=1 (4 blocks an op)" off zipf:0.9 256
# percentage_random=30: 70 % of the extents start where the previous one ended
if traced 4000 1m "\twrite_weight=1\n$io4k\tpercentage_random=30\n" && python3 - "$work/io" >"$work/seq.out" 2>&1 <<'PY'; then
import math, sys
rows = [l.split() for l in open(sys.argv[1])]
prev, cont = None, 0
for op, off, size in rows:
	off, size = int(off), int(size)
	cont += prev is not None and (off == prev or (prev > (1 << 20) - 4096 and off == 0))
	prev = off + size
n = len(rows) - 1
share = cont / n
# 70 % plus the random draws that land on the next slot by chance (0.3 / 1M bytes: none)
sd = math.sqrt(0.7 * 0.3 / n)
print("%d of %d continued: %.3f" % (cont, n, share))
assert abs(share - 0.7) < 4 * sd, share
PY
	ok "percentage_random=30: $(cat "$work/seq.out")"
else
	bad "percentage_random=30: $(tail -3 "$work/seq.out")"
fi
summary
