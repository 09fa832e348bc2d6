# Readiness protocol (Type=notify): dcbpfd sends READY=1 to $NOTIFY_SOCKET
# only once its maps are pinned and the CCs registered, RELOADING=1 then
# READY=1 around a reload (a bad file keeps the running state and says so in
# STATUS=), STOPPING=1 on SIGTERM, and no READY=1 when the start fails.
# A python3 listener stands in for the service manager and records, for
# each datagram, whether the pins and registrations existed when it came.
# Both socket forms are used: an abstract name (@...) and a path.
# host-suite: the service-manager protocol lies above the pinning and registration paths
# that tests/loader/dcbpfd.sh and lifecycle.sh cover on every kernel.
# shellcheck shell=bash
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

D=$BUILD/dcbpfd
C=$BUILD/dcbpf
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
PIN=/sys/fs/bpf/dcbpf-n$$
TMP=$(mktemp -d /tmp/dcbpf-notify-XXXXXX)
CONF=$TMP/dcbpfd.conf
DPID="" LPID=""

cleanup() {
	t_stop "$DPID"
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null && wait "$LPID" 2>/dev/null
	t_unpin_cc "$PIN"
	rm -rf "$TMP"
}
t_cleanup cleanup

if [ ! -x "$D" ] || [ ! -x "$C" ]; then
	t_fail "notify: binaries" "$D or $C not built (run make)"
	exit 1
fi
t_need_root "notify: readiness protocol"
if grep -qwE 'powertcp|theta_powertcp' "$AVAIL"; then
	t_skip "notify: readiness protocol" "powertcp already registered by another dcbpfd"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	t_skip "notify: readiness protocol" "python3 missing (it plays the service manager)"
	exit 0
fi

# listen ADDR OUT: background listener; one line per datagram:
#   pins=0|1 reg=0|1 KEY=VAL|KEY=VAL...
listen() {
	python3 - "$1" "$2" "$PIN" "$AVAIL" <<'PY' &
import os, socket, sys
addr, out, pin, avail = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
s.settimeout(600)
with open(out + ".tmp", "w") as f:
    f.write("listening\n")
os.rename(out + ".tmp", out)
with open(out, "a", buffering=1) as f:
    while True:
        try:
            m = s.recv(4096).decode()
        except socket.timeout:
            break
        # the state at the moment the message arrives
        pins = int(os.path.exists(os.path.join(pin, "dc_cc_cfg")))
        regs = open(avail).read().split()
        reg = int("powertcp" in regs and "theta_powertcp" in regs)
        f.write("pins=%d reg=%d %s\n" % (pins, reg, m.replace("\n", "|")))
        if "STOPPING=1" in m.split("\n"):
            break
PY
	LPID=$!
	wait_until 60 test -s "$2"
}

write_conf() { # write_conf GAMMA
	printf '[daemon]\npin_dir = %s\nlock_file = %s/lock\n[powertcp]\ngamma = %s\n' \
		"$PIN" "$TMP" "$1" >"$CONF"
}

# ---- start, reload, bad reload, stop (abstract socket) ------------------------
OUT=$TMP/msgs
listen "@dcbpf-notify-$$" "$OUT" || t_fail "notify: listener starts" "no socket"
write_conf 0.9
NOTIFY_SOCKET="@dcbpf-notify-$$" "$D" -c "$CONF" >"$TMP/d.log" 2>&1 &
DPID=$!
# The daemon verifies and registers every CC before READY: a minute or
# more on an emulated guest.
if wait_until 300 grep -q 'READY=1' "$OUT"; then
	ready=$(grep -m1 'READY=1' "$OUT")
	case $ready in
	"pins=1 reg=1 "*) t_pass "notify: READY=1 comes after the maps are pinned and the CCs registered" ;;
	*) t_fail "notify: READY=1 comes after the maps are pinned and the CCs registered" "$ready" ;;
	esac
	echo "$ready" | grep -q "MAINPID=$DPID" && echo "$ready" | grep -q 'STATUS=running' &&
		t_pass "notify: READY=1 names MAINPID and a STATUS" ||
		t_fail "notify: READY=1 names MAINPID and a STATUS" "$ready"
	[ "$(grep -c 'READY=1' "$OUT")" = 1 ] && t_pass "notify: exactly one READY=1 at start" ||
		t_fail "notify: exactly one READY=1 at start" "$(cat "$OUT")"
else
	t_fail "notify: READY=1 arrives" "$(tail -n 3 "$TMP/d.log" | tr '\n' ' ') / $(cat "$OUT")"
fi

# a good reload: RELOADING=1 (with the monotonic time), then READY=1
write_conf 0.8
kill -HUP "$DPID"
if wait_until 60 grep -q 'reloaded' "$OUT"; then
	grep -q 'RELOADING=1|MONOTONIC_USEC=[0-9]' "$OUT" && t_pass "notify: a reload sends RELOADING=1 with MONOTONIC_USEC" ||
		t_fail "notify: a reload sends RELOADING=1 with MONOTONIC_USEC" "$(cat "$OUT")"
	[ "$(grep -n 'RELOADING=1' "$OUT" | head -n1 | cut -d: -f1)" -lt "$(grep -n 'reloaded' "$OUT" | cut -d: -f1)" ] &&
		t_pass "notify: READY=1 follows RELOADING=1" || t_fail "notify: READY=1 follows RELOADING=1" "$(cat "$OUT")"
	[ "$("$C" -d "$PIN" get powertcp.gamma 2>&1)" = 0.8 ] && t_pass "notify: the good reload is applied" ||
		t_fail "notify: the good reload is applied" "$("$C" -d "$PIN" get powertcp.gamma 2>&1)"
else
	t_fail "notify: a reload is notified" "$(cat "$OUT")"
fi

# a bad reload: the running configuration stays, STATUS says so
echo 'gamma = 7' >>"$CONF"
"$D" -t -c "$CONF" >/dev/null 2>&1 && t_fail "notify: the bad file fails dcbpfd -t" "accepted" ||
	t_pass "notify: the bad file fails dcbpfd -t"
kill -HUP "$DPID"
if wait_until 60 grep -q 'reload of .* failed' "$OUT"; then
	grep 'reload of .* failed' "$OUT" | grep -q 'READY=1' && t_pass "notify: a failed reload ends with READY=1 and a STATUS naming the failure" ||
		t_fail "notify: a failed reload ends with READY=1 and a STATUS naming the failure" "$(cat "$OUT")"
	[ "$("$C" -d "$PIN" get powertcp.gamma 2>&1)" = 0.8 ] && kill -0 "$DPID" 2>/dev/null &&
		grep -qw theta_powertcp "$AVAIL" &&
		t_pass "notify: after a bad reload the daemon runs on the previous configuration" ||
		t_fail "notify: after a bad reload the daemon runs on the previous configuration" \
			"gamma $("$C" -d "$PIN" get powertcp.gamma 2>&1)"
else
	t_fail "notify: a failed reload is notified" "$(cat "$OUT")"
fi

kill -TERM "$DPID"
wait "$DPID"
drc=$?
DPID=""
wait_until 30 grep -q 'STOPPING=1' "$OUT"
grep -q 'STOPPING=1' "$OUT" && t_pass "notify: SIGTERM sends STOPPING=1" ||
	t_fail "notify: SIGTERM sends STOPPING=1" "$(cat "$OUT")"
[ "$drc" = 0 ] && [ ! -e "$PIN" ] && t_pass "notify: the daemon stops cleanly" ||
	t_fail "notify: the daemon stops cleanly" "exit $drc, pins: $(ls "$PIN" 2>&1 | tr '\n' ' ')"
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
LPID=""

# ---- a start that fails never says READY=1 (path socket) ------------------------
OUT2=$TMP/msgs2
listen "$TMP/notify.sock" "$OUT2" || t_fail "notify: path listener starts" "no socket"
# valid file, but the [int] namespace does not exist: a runtime failure (3)
printf '[daemon]\npin_dir = %s\nlock_file = %s/lock\n[int]\nnetns = dcbpf-none-%s\n' \
	"$PIN" "$TMP" "$$" >"$TMP/bad.conf"
NOTIFY_SOCKET="$TMP/notify.sock" "$D" -c "$TMP/bad.conf" >"$TMP/d2.log" 2>&1
drc=$?
wait_until 5 grep -q 'STATUS=' "$OUT2"
[ "$drc" = 3 ] && ! grep -q 'READY=1' "$OUT2" && grep -q 'STATUS=start failed (exit 3)' "$OUT2" &&
	t_pass "notify: a failed start sends no READY=1 and says why in STATUS" ||
	t_fail "notify: a failed start sends no READY=1 and says why in STATUS" "exit $drc: $(cat "$OUT2")"
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
LPID=""
# a malformed NOTIFY_SOCKET is ignored, not fatal
NOTIFY_SOCKET=relative/path "$D" -t -c "$CONF.none" >/dev/null 2>&1
[ $? = 1 ] && t_pass "notify: -t ignores NOTIFY_SOCKET (exit codes unchanged)" ||
	t_fail "notify: -t ignores NOTIFY_SOCKET (exit codes unchanged)" ""
exit 0
