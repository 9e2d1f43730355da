#!/usr/bin/env bash
# Signals during a run: SIGINT, SIGTERM and SIGHUP stop it with a partial report and a JSON
# marked interrupted (exit 130); a stray SIGUSR1 is ignored and does not take Ctrl-C away.
# Every step waits for an event (a line of fsmix's output); nothing depends on speed. A run
# that does not stop is killed after a generous time-out and fails the test.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
# A run that would last ten minutes: it ends only by a signal. Read-only (readall, stat,
# open_close), so that a run a broken fsmix fails to stop cannot fill the tmpfs (memory).
readonly_mix=(--set threadgroup0.create_weight=0 --set threadgroup0.create_fsync_weight=0
	--set threadgroup0.delete_weight=0 --set threadgroup0.append_weight=0
	--set threadgroup0.append_fsync_weight=0 --set threadgroup0.writeall_weight=0
	--set threadgroup0.writeall_fsync_weight=0)
long=(run "$src/profiles/default.ffsb" --location "$loc" --time 600 --set filesystem0.num_files=50
	--set filesystem0.num_dirs=2 --threads 2 "${readonly_mix[@]}")

# wait_exit PID SECONDS: the exit status of the background job PID; 255 (after killing it)
# when it is still running after SECONDS.
wait_exit() {
	local pid=$1 tenths=$(($2 * 10)) i
	for ((i = 0; i < tenths; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 255
	fi
	wait "$pid"
}

# interrupted_json FILE SIGNAL: the JSON says the run was stopped by SIGNAL, exit 130.
interrupted_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True, d["interrupted"]
assert d["exit_status"] == 130, d["exit_status"]
assert d["stop_reason"] == "signal", d["stop_reason"]
assert d["signal"] == sys.argv[2], d["signal"]
PY
}

# SIGTERM and SIGHUP (a closed terminal) stop the run alike: partial report and JSON, exit 130.
for sig in TERM HUP; do
	out=$work/$sig
	"$bin" "${long[@]}" --json "$out.json" >"$out.out" 2>"$out.err" &
	pid=$!
	if ! wait_for "$out.err" "^fsmix: running" 60; then
		bad "SIG$sig: the run did not start"; kill -KILL $pid; wait $pid; continue
	fi
	kill -"$sig" $pid
	wait_exit $pid 60
	rc=$?
	if [ $rc -eq 130 ] && grep -q "^Interrupted" "$out.out" && grep -q "Transactions per Second" "$out.out" &&
		interrupted_json "$out.json" "SIG$sig" && grep -q "^fsmix: SIG$sig received: stopping" "$out.err"; then
		ok "SIG$sig: exit 130, partial report, JSON says signal SIG$sig, stderr says so"
	else
		bad "SIG$sig: exit $rc"; tail -3 "$out.err" | sed 's/^/     /'
	fi
done

# A stray SIGUSR1 is ignored (and said so); SIGINT afterwards still stops the run.
out=$work/usr1
"$bin" "${long[@]}" --json "$out.json" >"$out.out" 2>"$out.err" &
pid=$!
if wait_for "$out.err" "^fsmix: running" 60; then
	kill -USR1 $pid
	# Wait until the watcher has read it, so that SIGINT comes after it.
	wait_for "$out.err" "ignoring SIGUSR1" 60 && ok "SIGUSR1: ignored with a message" ||
		bad "SIGUSR1: no message that it was ignored"
	if kill -0 $pid 2>/dev/null; then
		ok "SIGUSR1 does not end the run"
	else
		bad "SIGUSR1 ended the run"
	fi
	kill -INT $pid 2>/dev/null
	wait_exit $pid 60
	rc=$?
	if [ $rc -eq 130 ] && grep -q "^Interrupted" "$out.out" && interrupted_json "$out.json" SIGINT; then
		ok "SIGINT after a stray SIGUSR1: exit 130 with the partial report"
	else
		bad "SIGINT after SIGUSR1: exit $rc (255: still running after 60 s)"
		tail -3 "$out.err" | sed 's/^/     /'
	fi
else
	bad "SIGUSR1: the run did not start"; kill -KILL $pid; wait $pid
fi

# SIGTERM during the build. The location is a frozen ext4 (fsfreeze): fsmix cannot create its
# tree until it is thawed, and it is thawed only once fsmix blocks the stop signals
# (/proc/PID/status) and has said that it is stopping; then the builders find the run stopped.
# The status is read once the process is fsmix (/proc/PID/exe), not the shell's child before exec.
# sigmask PID FIELD: the hex signal mask FIELD (SigBlk) of PID's status.
sigmask() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }
has_term() { [ -n "$1" ] && (((0x$1 >> 14) & 1)); } # SIGTERM is signal 15: bit 14
trap 'fsfreeze -u "$work/frozen" 2>/dev/null; cleanup' EXIT # never leave it frozen
if command -v fsfreeze >/dev/null && mount_ext4 "$work/frozen" 64 && fsfreeze -f "$work/frozen"; then
	out=$work/frozen
	"$bin" run "$src/profiles/default.ffsb" --location "$work/frozen" --time 600 "${readonly_mix[@]}" \
		--set filesystem0.num_files=5000 --set filesystem0.size_weight="1KB 1" --json "$out.json" \
		>"$out.out" 2>"$out.err" &
	pid=$!
	# fsmix itself, not the shell's child before exec (whose trap would take the signal).
	for ((i = 0; i < 600; i++)); do
		[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$bin")" ] && has_term "$(sigmask $pid SigBlk)" && break
		sleep 0.1
	done
	kill -TERM $pid
	wait_for "$out.err" "SIGTERM received: stopping" 60
	fsfreeze -u "$work/frozen"
	wait_exit $pid 60
	rc=$?
	files=$(find "$work/frozen/fsmix.fs0/data" -type f 2>/dev/null | wc -l)
	[ $rc -eq 130 ] && grep -q "interrupted during setup; nothing was measured" "$out.err" &&
		! grep -q "Transactions per Second" "$out.out" && [ "$files" -lt 5000 ] &&
		ok "SIGTERM during the build: exit 130, nothing measured, the build stopped ($files of 5000 files)" ||
		{ bad "SIGTERM during the build: exit $rc"; tail -3 "$out.err" | sed 's/^/     /'; }
else
	skip_env loop "SIGTERM during the build: needs root, a loop-mounted ext4 and fsfreeze"
fi

# Ctrl-C during the callout: the terminal sends SIGINT to fsmix's process group; the callout,
# in a group of its own, gets SIGTERM from fsmix, and must not have inherited fsmix's blocked
# signals: it stops, and so does the run. The run is put in a process group of its own (job
# control), as a shell does.
out=$work/callout
set -m
"$bin" "${long[@]}" --set "callout=echo callout started >&2; echo \$\$ >$out.pgid; sleep 600" >"$out.out" 2>"$out.err" &
pid=$!
set +m
if wait_for "$out.err" "^callout started" 60; then
	# Once sleep runs (in the callout's own process group, whose id the callout wrote).
	for ((i = 0; i < 600; i++)); do
		[ -s "$out.pgid" ] && pgrep -g "$(cat "$out.pgid")" -x sleep >/dev/null && break
		sleep 0.1
	done
	kill -INT -- -"$pid"
	wait_exit $pid 60
	rc=$?
	[ $rc -eq 130 ] && grep -q "interrupted during setup" "$out.err" &&
		ok "Ctrl-C (SIGINT to the process group) during the callout: exit 130" ||
		{ bad "Ctrl-C during the callout: exit $rc (255: still running after 60 s)"; tail -3 "$out.err" | sed 's/^/     /'; }
else
	bad "callout: it did not start"; kill -KILL -- -"$pid"; wait $pid
fi
kill -KILL -- -"$pid" 2>/dev/null # the callout's sleep, if it outlived the test
[ -s "$out.pgid" ] && pkill -KILL -g "$(cat "$out.pgid")" 2>/dev/null

# SIGINT twice: the first stops the run, the second changes nothing (same report, exit 130).
out=$work/twice
"$bin" "${long[@]}" --json "$out.json" >"$out.out" 2>"$out.err" &
pid=$!
if wait_for "$out.err" "^fsmix: running" 60; then
	kill -INT $pid
	kill -TERM $pid 2>/dev/null
	wait_exit $pid 60
	rc=$?
	[ $rc -eq 130 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['signal'] in ('SIGINT', 'SIGTERM') and d['interrupted']" "$out.json" &&
		ok "SIGINT then SIGTERM: exit 130, one signal reported" || bad "two signals: exit $rc"
else
	bad "two signals: the run did not start"; kill -KILL $pid; wait $pid
fi
# Helper programs get no signal blocked: gnuplot after a sweep (--plot) is started when fsmix
# has kept its stop signals blocked since the sweep's first run. A stand-in gnuplot first in
# PATH records its blocked-signal mask (SigBlk of /proc/self/status) and fails. It is Python,
# not sh: dash clears the mask when it starts.
fake=$work/fakebin
mkdir -p "$fake"
cat >"$fake/gnuplot" <<EOF
#!/usr/bin/python3
import re
status = open("/proc/self/status").read()
open("$work/sigblk", "w").write(re.search(r"SigBlk:.*", status).group(0))
raise SystemExit(1)
EOF
chmod +x "$fake/gnuplot"
PATH="$fake:$PATH" "$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 --threads 1,2 \
	--set filesystem0.num_files=20 --set filesystem0.num_dirs=2 --set threadgroup0.op_delay=1 \
	--plot "$work/sweep.png" >/dev/null 2>"$work/fakeplot.err"
if [ -s "$work/sigblk" ]; then
	grep -qE "^SigBlk:[[:space:]]+0+$" "$work/sigblk" &&
		ok "gnuplot after a sweep starts with no signal blocked" ||
		bad "gnuplot after a sweep starts with signals blocked: $(cat "$work/sigblk")"
else
	bad "the stand-in gnuplot was not run"; cat "$work/fakeplot.err"
fi
# Ctrl-C while gnuplot draws after a sweep (the terminal signals fsmix and gnuplot alike):
# exit 130, "interrupted", not "gnuplot failed".
cat >"$fake/gnuplot" <<'EOF'
#!/usr/bin/python3
import os, signal
os.kill(os.getppid(), signal.SIGINT)
os.kill(os.getpid(), signal.SIGINT)
EOF
PATH="$fake:$PATH" "$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 --threads 1,2 \
	--set filesystem0.num_files=20 --set filesystem0.num_dirs=2 --set threadgroup0.op_delay=1 \
	--plot "$work/sweep2.png" >/dev/null 2>"$work/fakeplot2.err"
rc=$?
[ $rc -eq 130 ] && grep -q "interrupted while plotting" "$work/fakeplot2.err" && [ ! -e "$work/sweep2.png" ] &&
	ok "Ctrl-C while plotting after a sweep: exit 130, no picture" ||
	{ bad "Ctrl-C while plotting: exit $rc"; tail -2 "$work/fakeplot2.err" | sed 's/^/     /'; }
# --lat-log to a FIFO nobody reads: fsmix waits for a reader before it builds anything; SIGINT,
# SIGTERM or SIGHUP ends the wait with exit 130 (interrupted), not 2 (bad input).
mkfifo "$work/latfifo"
for sig in INT TERM HUP; do
	out=$work/fifo$sig fresh=$(shmdir)
	"$bin" run "$src/profiles/default.ffsb" --location "$fresh" --time 1 --lat-log "$work/latfifo" \
		>"$out.out" 2>"$out.err" &
	pid=$!
	if wait_for "$out.err" "waiting for a reader of the FIFO" 60; then
		kill -"$sig" $pid
		wait_exit $pid 60
		rc=$?
		[ $rc -eq 130 ] && grep -q "interrupted while waiting for a reader" "$out.err" &&
			[ -p "$work/latfifo" ] && [ -z "$(ls -A "$fresh")" ] &&
			ok "SIG$sig while --lat-log waits for a FIFO's reader: exit 130, nothing built" ||
			{ bad "SIG$sig while --lat-log waits for a FIFO's reader: exit $rc"; tail -2 "$out.err" | sed 's/^/     /'; }
	else
		bad "--lat-log FIFO: fsmix did not say it waits for a reader"; kill -KILL $pid; wait $pid
	fi
done
# SIGUSR1 is ignored, with the same message, by every command, not only by run. Each command
# reads its input from a FIFO, so it is still running when the signal comes: the signal is sent
# once fsmix catches SIGUSR1 (SigCgt of /proc/PID/status: signal 10 is bit 9), then the input is
# written. The exit status must be the one the same command has without the signal.
sigcgt_usr1() { local m; m=$(sigmask "$1" SigCgt); [ -n "$m" ] && (((0x$m >> 9) & 1)); }
usr1_json=$work/TERM.json # a run's JSON from above
printf '0.001 0 0 read 1000 4096 0\n0.002 0 0 write 2000 4096 0\n' >"$work/usr1.lat"
# usr1_case NAME INPUT ARGS...: fsmix ARGS (one of them @FIFO@) reading INPUT through a FIFO.
usr1_case() {
	local name=$1 input=$2 fifo=$work/usr1.fifo i rc0 rc a args=()
	shift 2
	rm -f "$fifo"
	mkfifo "$fifo"
	for a in "$@"; do args+=("${a//@FIFO@/$fifo}"); done
	timeout 60 sh -c 'cat "$1" >"$2"' sh "$input" "$fifo" &
	"$bin" "${args[@]}" >/dev/null 2>"$work/usr1-$name.err0"
	rc0=$?
	wait
	"$bin" "${args[@]}" >/dev/null 2>"$work/usr1-$name.err" &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$bin")" ] && sigcgt_usr1 $pid && break
		sleep 0.1
	done
	kill -USR1 $pid
	# (a killed fsmix never opens the FIFO: the writer must not wait for it forever)
	timeout 60 sh -c 'cat "$1" >"$2"' sh "$input" "$fifo"
	wait_exit $pid 60
	rc=$?
	[ $rc -eq $rc0 ] && grep -q "^fsmix: ignoring SIGUSR1 from pid $$" "$work/usr1-$name.err" &&
		ok "SIGUSR1 during $name: ignored with a message, exit $rc as without it" ||
		{ bad "SIGUSR1 during $name: exit $rc (without it: $rc0)"; tail -2 "$work/usr1-$name.err" | sed 's/^/     /'; }
}
usr1_loc=$(shmdir)
usr1_case clean "$src/profiles/default.ffsb" clean @FIFO@ --location "$usr1_loc"
usr1_case check "$src/profiles/default.ffsb" check @FIFO@ --location "$usr1_loc"
usr1_case plot "$usr1_json" plot @FIFO@ -o "$work/usr1.svg"
usr1_case "plot --lat-log" "$work/usr1.lat" plot --lat-log @FIFO@ -o "$work/usr1l.svg"
usr1_case compare "$usr1_json" compare "$usr1_json" @FIFO@
# A stop signal to fsmix alone (not to a process group) while the callout runs: fsmix passes it
# on to the callout's process group (SIGTERM), and SIGKILL after the grace period (2 s) to one
# that ignores SIGTERM; the run ends with exit 130 and nothing of the callout is left running.
# The callout writes its shell's pid (its process group) first; the signal is sent once its
# sleep (the shell's child) runs.
# group_alive PGID: a process of the group is alive (zombies do not count: orphans are
# reparented to PID 1, which in a container may never reap them).
group_alive() { ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; }
for kind in plain stubborn; do
	out=$work/callout-$kind
	trapcmd=""
	[ $kind = stubborn ] && trapcmd="trap '' TERM;"
	"$bin" "${long[@]}" --set "callout=$trapcmd echo \$\$ >$out.pgid; sleep 600" >"$out.out" 2>"$out.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -s "$out.pgid" ] && pgrep -P "$(cat "$out.pgid")" -x sleep >/dev/null && break
		sleep 0.1
	done
	pg=$(cat "$out.pgid" 2>/dev/null)
	sleeper=$(pgrep -P "$pg" -x sleep 2>/dev/null)
	if [ -n "$pg" ] && [ -n "$sleeper" ]; then
		kill -TERM $pid
		wait_exit $pid 30
		rc=$?
		[ $rc -eq 130 ] && ! group_alive "$pg" && ! ps -o stat= -p "$sleeper" | grep -qv Z &&
			grep -q "callout stopped: SIGTERM to its process group" "$out.err" &&
			ok "SIGTERM to fsmix during a callout ($kind): passed on to its process group, exit 130, nothing left" ||
			{ bad "SIGTERM during a callout ($kind): exit $rc (255: still running after 30 s)"; tail -2 "$out.err" | sed 's/^/     /'; }
		[ $kind = plain ] || grep -q "then SIGKILL" "$out.err" && ok "callout ($kind): the message says how it ended" ||
			bad "callout ($kind): no SIGKILL in the message"
		pkill -KILL -g "$pg" 2>/dev/null
		kill -KILL "$sleeper" 2>/dev/null
	else
		bad "callout ($kind): it did not start"; kill -KILL $pid; wait $pid
	fi
done

# Ctrl-C during `fsmix plot`: gnuplot (a stand-in that sleeps, one that also ignores SIGTERM) is
# stopped, gnuplot's temporary directory is removed and fsmix exits 130, no picture written.
# TMPDIR is the test's own, so that its emptiness says the temporary files are gone.
for kind in plain stubborn; do
	cat >"$fake/gnuplot" <<EOF
#!/usr/bin/python3
import os, signal, time
if "$kind" == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
open("$work/gp-$kind.pid", "w").write(str(os.getpid()))
time.sleep(600)
EOF
	mkdir -p "$work/tmp-$kind"
	rm -f "$work/gp-$kind.pid"
	TMPDIR="$work/tmp-$kind" PATH="$fake:$PATH" "$bin" plot "$work/TERM.json" -o "$work/int-$kind.svg" \
		2>"$work/plotint-$kind.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do [ -s "$work/gp-$kind.pid" ] && break; sleep 0.1; done
	gp=$(cat "$work/gp-$kind.pid" 2>/dev/null)
	if [ -n "$gp" ]; then
		kill -INT $pid
		wait_exit $pid 30
		rc=$?
		[ $rc -eq 130 ] && ! kill -0 "$gp" 2>/dev/null && [ -z "$(ls -A "$work/tmp-$kind")" ] &&
			[ ! -e "$work/int-$kind.svg" ] && grep -q "interrupted while plotting" "$work/plotint-$kind.err" &&
			ok "Ctrl-C during plot ($kind gnuplot): gnuplot stopped, temporary files removed, exit 130" ||
			{ bad "Ctrl-C during plot ($kind gnuplot): exit $rc, left: $(ls "$work/tmp-$kind")"; tail -2 "$work/plotint-$kind.err" | sed 's/^/     /'; }
		kill -KILL "$gp" 2>/dev/null
	else
		bad "plot ($kind): the stand-in gnuplot did not start"; kill -KILL $pid; wait $pid
	fi
done
summary
