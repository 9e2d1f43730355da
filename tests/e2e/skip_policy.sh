#!/usr/bin/env bash
# lib.bash's skips are honest (issue 30, item 4): every script ends with its counts and the
# reason of each skipped check; skip_env KIND (something the CI machine has) fails under CI
# (CI=true) and only skips elsewhere; skipped (a reason any machine may have) never fails;
# a script whose every check skipped exits 77, and an unknown KIND is a failure.
set -u
. "$(dirname "$0")/lib.bash"

# case CI BODY: BODY run by a script that sources lib.bash, with CI=CI; its output in $out and
# its exit status in $rc.
case_() {
	printf '. "%s/tests/e2e/lib.bash"\n%s\n' "$src" "$2" >"$work/demo.sh"
	out=$(env CI="$1" bash "$work/demo.sh" 2>&1)
	rc=$?
}

case_ "" 'ok one; skip_env loop "ext4: no loop device"; skipped "kernel: no feature"; summary'
[ $rc = 0 ] && grep -q "^e2e demo: 1 passed, 0 failed, 2 skipped$" <<<"$out" &&
	grep -q "^  skipped: ext4: no loop device \[needs loop\]$" <<<"$out" &&
	grep -q "^  skipped: kernel: no feature$" <<<"$out" &&
	ok "outside CI: counts and reasons at the end, exit 0" || bad "outside CI: exit $rc: $out"

case_ true 'ok one; skip_env loop "ext4: no loop device"; summary'
[ $rc = 1 ] && grep -q "^FAIL ext4: no loop device \[skipped: needs loop, which the CI machine has\]$" <<<"$out" &&
	grep -q "^e2e demo: 1 passed, 1 failed, 0 skipped$" <<<"$out" &&
	ok "under CI: a skip for want of loop devices fails the script (exit 1)" ||
	bad "under CI, skip_env: exit $rc: $out"

case_ true 'ok one; skipped "kernel: no feature"; summary'
[ $rc = 0 ] && grep -q "^e2e demo: 1 passed, 0 failed, 1 skipped$" <<<"$out" &&
	ok "under CI: a legitimate skip (a kernel feature) still passes" || bad "under CI, skipped: exit $rc: $out"

case_ "" 'skip_env fuse "no /dev/fuse"; summary'
[ $rc = 77 ] && ok "every check skipped: exit 77" || bad "all skipped: exit $rc: $out"

case_ "" 'ok one; skip_env wishes "a pony"; summary'
[ $rc = 1 ] && grep -q "unknown kind 'wishes'" <<<"$out" && ok "an unknown skip kind is a failure" ||
	bad "unknown kind: exit $rc: $out"

summary
