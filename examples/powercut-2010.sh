#!/usr/bin/env bash
# powercut-2010.sh - what the barriers buy (docs/experiments.md, docs/durability.md): the 2010
# ext4 barrier profile, scaled, on ext4 over fsmix-powercut (a disk with a volatile write
# cache), with barrier=1 and barrier=0, the power cut CUTS times each at random moments. Every
# cut: a fresh disk and filesystem, fsmix run with its durability log on /tmp, the cut, the
# persisted image attached, e2fsck -fn after the journal's replay, fsmix verify. Prints one
# table (trans/s and device flushes of the run up to the cut; acknowledged promises checked and
# broken; e2fsck's problems) and draws tps against broken promises with gnuplot.
#
#   sudo examples/powercut-2010.sh [CUTS [FILES [THREADS [SECONDS]]]]   (default 3 1000 16 10)
#
# Environment: POWERCUT_DESTAGE (destage delay, ms or 'off'; default 1000), POWERCUT_CACHE
# (cache size; 64M), POWERCUT_PERSIST (% of the cache a cut persists; 0), POWERCUT_SEED (2010),
# POWERCUT_FLUSH_US (the disk's flush latency, microseconds; 0), POWERCUT_DISK (MB of the disk;
# 2048), POWERCUT_OUT (where the table, data and picture go; .),
# POWERCUT_KEEP=1 (keep the logs, reports and verify output of every cut), FSMIX and
# FSMIX_POWERCUT (the programs; default: the build tree's, else PATH).
set -uo pipefail
cuts=${1:-3} files=${2:-1000} threads=${3:-16} secs=${4:-10}
destage=${POWERCUT_DESTAGE:-1000} cache=${POWERCUT_CACHE:-64M} persist=${POWERCUT_PERSIST:-0}
seed=${POWERCUT_SEED:-2010} disk=${POWERCUT_DISK:-2048} out=${POWERCUT_OUT:-.}
flush_us=${POWERCUT_FLUSH_US:-0}
for v in "$cuts" "$files" "$threads" "$secs" "$persist" "$seed" "$disk" "$flush_us"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "usage: powercut-2010.sh [CUTS [FILES [THREADS [SECONDS]]]] (whole numbers)" >&2; exit 2; }
done
[ "$secs" -ge 4 ] || { echo "SECONDS must be at least 4 (the cut comes between 2 s and SECONDS - 1)" >&2; exit 2; }
. "$(dirname "$0")/powercut-lib.bash"
pc_init || { echo "powercut-2010.sh: $pc_why" >&2; exit 2; }
trap 'pc_cleanup; [ -n "${POWERCUT_KEEP:-}" ] && echo "work files kept in $pc_dir" >&2 || rm -rf "$pc_dir"' EXIT
trap 'exit 130' INT TERM
profile=${FSMIX_PROFILES:-$pc_here/profiles}/ext4-barrier-2010.ffsb
[ -f "$profile" ] || profile=$(dirname "$pc_fsmix")/../share/fsmix/profiles/ext4-barrier-2010.ffsb
[ -f "$profile" ] || { echo "ext4-barrier-2010.ffsb not found: set FSMIX_PROFILES" >&2; exit 2; }
mkdir -p "$out"
scale=(--set filesystem0.num_files="$files" --set filesystem0.num_dirs=$(((files + 99) / 100))
	--threads "$threads" --time "$secs" --seed "$seed")
data=$out/powercut-2010.dat
table=$out/powercut-2010.txt

# The cut moments: uniform in [2, SECONDS - 1), the same for both barrier settings.
mapfile -t moments < <(awk -v n="$cuts" -v s="$seed" -v t="$secs" \
	'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.2f\n", 2 + rand() * (t - 3) }')

printf '# barrier cut at_s trans_s flushes fsyncs_acked checked broken fsck_errors dropped_bytes\n' >"$data"
echo "fsmix-powercut: cache $cache, destage delay $destage ms, persist on cut $persist %, flush latency $flush_us us; $files files, $threads threads, $secs s runs" >&2
# Interleaved (cut i with barrier=1, then with barrier=0): a machine whose load changes over the
# experiment slows both settings alike.
for ((i = 0; i < cuts; i++)); do
	for barrier in 1 0; do
		name=powercut-2010-b$barrier-$i log=$pc_dir/$name.durlog
		pc_disk "$name" "$disk" --cache-size "$cache" --destage-delay "$destage" \
			--persist-on-cut "$persist" --flush-latency "$flush_us" --seed $((seed + i)) || exit 1
		pc_mkfs "barrier=$barrier" || { echo "mkfs/mount failed" >&2; exit 1; }
		pc_run_cut "$profile" "${moments[$i]}" "$log" "${scale[@]}"
		tps=$(jq -r '.total.trans_per_s // 0 | floor' "$pc_out.json" 2>/dev/null || echo -)
		fl=$(jq -r '.filesystems[0].device_counters.flush_requests // "-"' "$pc_out.json" 2>/dev/null || echo -)
		pc_detach
		if pc_attach; then
			pc_verify "$profile" "$log" "${scale[@]}"
			[ "$pc_unmountable" = 1 ] && pc_fsck_errors="$pc_fsck_errors*"
			if [ "$pc_checked" = - ]; then # no report: say why
				pc_broken=error
				echo "fsmix verify exit $pc_verify_rc:" >&2
				tail -5 "$pc_dir/$name.verify" >&2
				cp "$pc_dir/$name.verify" "$out/$name.verify.txt"
			fi
		else
			pc_checked=- pc_broken=- pc_fsck_errors=unrepairable
		fi
		printf '%s %s %s %s %s %s %s %s %s %s\n' "$barrier" "$i" "${moments[$i]}" "$tps" "$fl" \
			"$pc_acked" "$pc_checked" "$pc_broken" "$pc_fsck_errors" "$(pc_stat dropped_bytes)" >>"$data"
		echo "barrier=$barrier cut $i at ${moments[$i]} s: $tps trans/s, $fl flushes, $pc_acked fsyncs acknowledged, $pc_checked promises checked, $pc_broken broken, e2fsck: $pc_fsck_errors" >&2
		pc_release
		rm -f "$log"
	done
done

{
	printf '%-10s %-4s %-6s %-8s %-8s %-13s %-9s %-8s %s\n' barrier cut at_s trans/s flushes \
		"fsyncs acked" checked broken "fsck errors"
	grep -v '^#' "$data" | sort -s -k1,1nr |
		awk '{ printf "%-10s %-4s %-6s %-8s %-8s %-13s %-9s %-8s %s\n", "barrier=" $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
	awk '!/^#/ { n[$1]++; t[$1] += $4; a[$1] += $6; c[$1] += $7; b[$1] += $8; f[$1] += ($9 ~ /^[0-9]+/ ? $9 + 0 : 0); fl[$1] += $5; if ($8 ~ /^[0-9]+$/ && $8 > 0) hit[$1]++ }
		END { for (k = 1; k >= 0; k--) if (n[k]) printf "barrier=%d: mean %.0f trans/s, %.0f flushes per run; %d fsyncs acknowledged, %d promises checked, %d broken (in %d of %d cuts); %d fsck errors\n", k, t[k] / n[k], fl[k] / n[k], a[k], c[k], b[k], hit[k], n[k], f[k] }' "$data"
	echo "checked, broken: fsmix verify's promises (data and names); trans/s and flushes: the run up to the cut"
	echo "fsck errors: e2fsck -fn's problems after the journal's replay; verify checks the image as the replay left it, not repaired"
	grep -q '\*' "$data" && echo "*: the persisted image did not mount: e2fsck -fy's problems, before the journal's replay (verify then checks the repaired image)"
	grep -q ' error ' "$data" && echo "error: fsmix verify could not read the tree (its message is in POWERCUT_OUT)"
} | tee "$table"

if command -v gnuplot >/dev/null; then
	gnuplot <<EOF || echo "gnuplot failed: no picture" >&2
set terminal pngcairo size 800,500 noenhanced
set output "$out/powercut-2010.png"
set title "ext4, 2010 profile ($files files, $threads threads), fsmix-powercut\n(flush latency $flush_us us), $cuts cuts each"
set xlabel "transactions per second (up to the cut)"
set ylabel "broken promises (fsmix verify)"
set key top left
set grid
set yrange [-0.5:*]
plot "$data" using (\$1 == 1 ? \$4 : 1/0):8 with points pt 7 ps 1.5 title "barrier=1", \
     "$data" using (\$1 == 0 ? \$4 : 1/0):8 with points pt 5 ps 1.5 title "barrier=0"
EOF
	[ -f "$out/powercut-2010.png" ] && echo "picture: $out/powercut-2010.png" >&2
fi
