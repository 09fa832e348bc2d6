# make deb: build the Debian package, install it with dpkg -i, check its
# files, run the installed daemon (under systemd where PID 1 is systemd;
# elsewhere the unit is checked with systemd-analyze verify and the daemon
# started directly with a test config), then dpkg --purge and check that
# nothing is left: files, /etc/dcbpf, the unit's enable state, pins.
# Refuses to run (SKIP) where dcbpf is already installed in any form, so an
# operator's installation is never replaced or purged.
# kernel-independent: packaging; the daemon it starts is tested on every kernel by dcbpfd.sh
# shellcheck shell=bash
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
TMP=$(mktemp -d /tmp/dcbpf-deb-XXXXXX)
PIN=/sys/fs/bpf/dcbpf-deb$$
INSTALLED="" DPID="" LPID="" UNDER_SYSTEMD=""

cleanup() {
	t_stop "$DPID"
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null && wait "$LPID" 2>/dev/null
	# only a package this test installed is purged
	[ -n "$INSTALLED" ] && dpkg --purge dcbpf >/dev/null 2>&1
	t_unpin_cc "$PIN"
	rm -rf "$TMP"
}
t_cleanup cleanup

t_need_root "deb: install, run, purge" "needs root (dpkg -i)"
# ---- the machine must hold no dcbpf we could clobber ----------------------------
st=$(dpkg-query -W -f='${Status}' dcbpf 2>/dev/null || true)
busy=""
case $st in "" | "unknown ok not-installed" | *" not-installed") ;; *) busy="package dcbpf is '$st'" ;; esac
for f in /usr/sbin/dcbpfd /usr/sbin/dcbpf /etc/dcbpf /usr/lib/dcbpf /lib/systemd/system/dcbpfd.service \
	/etc/systemd/system/dcbpfd.service /etc/systemd/system/multi-user.target.wants/dcbpfd.service; do
	[ -e "$f" ] || [ -L "$f" ] && busy="${busy:+$busy; }$f exists"
done
grep -qwE 'powertcp|theta_powertcp' "$AVAIL" && busy="${busy:+$busy; }powertcp is registered (a dcbpfd runs)"
if [ -n "$busy" ]; then
	# not a failure: the machine has dcbpf in use, and this test would replace it
	T_SKIP_OK_IN_CI=1 t_skip "deb: install, run, purge" "refusing to touch an existing installation: $busy"
	exit 0
fi

# ---- build ---------------------------------------------------------------------
if ! make -s deb BUILD="$BUILD" OUT="$TMP/out" >"$TMP/build.log" 2>&1; then
	t_fail "deb: make deb builds a package" "$(tail -n 3 "$TMP/build.log" | tr '\n' ' ')"
	exit 1
fi
DEB=$(ls "$TMP"/out/dcbpf_*.deb 2>/dev/null | head -n1)
[ -n "$DEB" ] && t_pass "deb: make deb builds ${DEB##*/}" || { t_fail "deb: make deb builds a package" "no .deb in $TMP/out"; exit 1; }

ctl=$(dpkg-deb -f "$DEB" Package Version Depends)
want_ver=$(sed -n 's/^VERSION *:= *//p' Makefile)
echo "$ctl" | grep -qx "Version: $want_ver" && t_pass "deb: version is the Makefile's VERSION ($want_ver)" ||
	t_fail "deb: version is the Makefile's VERSION" "$ctl"
# every shared library the binaries link comes from a package in Depends
missing=""
for lib in $(ldd "$BUILD/dcbpfd" | awk '$3 ~ /^\// { print $3 }'); do
	pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n1 | cut -d: -f1)
	[ -z "$pkg" ] && pkg=$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1)
	[ -n "$pkg" ] || continue
	echo "$ctl" | grep '^Depends:' | grep -qw "$pkg" || missing="$missing $pkg($lib)"
done
[ -z "$missing" ] && t_pass "deb: Depends names the package of every library dcbpfd links" ||
	t_fail "deb: Depends names the package of every library dcbpfd links" "missing:$missing"
dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles 2>/dev/null | grep -qx /etc/dcbpf/dcbpfd.conf &&
	t_pass "deb: the config is a conffile" || t_fail "deb: the config is a conffile" "not in DEBIAN/conffiles"

# ---- install -------------------------------------------------------------------
if ! dpkg -i "$DEB" >"$TMP/install.log" 2>&1; then
	t_fail "deb: dpkg -i installs it" "$(tail -n 3 "$TMP/install.log" | tr '\n' ' ')"
	INSTALLED=1
	exit 1
fi
INSTALLED=1
t_pass "deb: dpkg -i installs it"
dpkg -L dcbpf >"$TMP/files"
missing=""
for f in /usr/sbin/dcbpfd /usr/sbin/dcbpf /usr/lib/dcbpf/powertcp.bpf.o /usr/lib/dcbpf/powertcp_v61.bpf.o \
	/usr/lib/dcbpf/switch.bpf.o /usr/share/dcbpf/dcbpf_int.lua /etc/dcbpf/dcbpfd.conf \
	/lib/systemd/system/dcbpfd.service /usr/share/man/man8/dcbpf.8.gz /usr/share/man/man8/dcbpfd.8.gz \
	/usr/share/man/man5/dcbpfd.conf.5.gz /usr/share/doc/dcbpf/copyright; do
	[ -e "$f" ] && grep -qx "$f" "$TMP/files" || missing="$missing $f"
done
[ -z "$missing" ] && t_pass "deb: binaries, objects, unit, config, man pages installed" ||
	t_fail "deb: binaries, objects, unit, config, man pages installed" "missing:$missing"
[ "$(stat -c %a /etc/dcbpf/dcbpfd.conf)" = 600 ] && t_pass "deb: the config is root-only (0600)" ||
	t_fail "deb: the config is root-only (0600)" "mode $(stat -c %a /etc/dcbpf/dcbpfd.conf)"
/usr/sbin/dcbpfd --version >"$TMP/v" 2>&1 && grep -q "^dcbpfd $want_ver$" "$TMP/v" &&
	grep -q '^libbpf: ' "$TMP/v" && t_pass "deb: the installed dcbpfd --version runs" ||
	t_fail "deb: the installed dcbpfd --version runs" "$(tr '\n' ' ' <"$TMP/v")"
/usr/sbin/dcbpfd -t >/dev/null 2>&1 && t_pass "deb: the installed config passes dcbpfd -t" ||
	t_fail "deb: the installed config passes dcbpfd -t" "$(/usr/sbin/dcbpfd -t 2>&1 | tail -n 2)"
grep -q '^ExecStart=/usr/sbin/dcbpfd -c /etc/dcbpf/dcbpfd.conf$' /lib/systemd/system/dcbpfd.service &&
	grep -q '^Type=notify$' /lib/systemd/system/dcbpfd.service &&
	t_pass "deb: the unit runs /usr/sbin/dcbpfd, Type=notify" ||
	t_fail "deb: the unit runs /usr/sbin/dcbpfd, Type=notify" "$(grep -E '^(Type|ExecStart)=' /lib/systemd/system/dcbpfd.service)"
if command -v man >/dev/null && [ -d /usr/share/man ]; then
	man -w dcbpfd.conf >/dev/null 2>&1 && man -w 8 dcbpf >/dev/null 2>&1 && man -w 8 dcbpfd >/dev/null 2>&1 &&
		t_pass "deb: man finds dcbpf(8), dcbpfd(8), dcbpfd.conf(5)" ||
		t_fail "deb: man finds dcbpf(8), dcbpfd(8), dcbpfd.conf(5)" "man -w failed"
fi

# ---- run -----------------------------------------------------------------------
if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ] && [ -d /run/systemd/system ]; then
	UNDER_SYSTEMD=1
	# postinst enabled and started it; Type=notify: active means ready
	systemctl is-enabled --quiet dcbpfd && t_pass "deb: postinst enabled dcbpfd.service" ||
		t_fail "deb: postinst enabled dcbpfd.service" "$(systemctl is-enabled dcbpfd 2>&1)"
	if systemctl is-active --quiet dcbpfd || systemctl start dcbpfd; then
		grep -qw theta_powertcp "$AVAIL" && [ -e /sys/fs/bpf/dcbpf/dc_cc_cfg ] &&
			t_pass "deb: the service is active, the CCs registered and pinned when start returns" ||
			t_fail "deb: the service is active, the CCs registered and pinned when start returns" "$(systemctl status dcbpfd 2>&1 | tail -n 5 | tr '\n' ' ')"
		# a bad file fails the reload and changes nothing
		cp /etc/dcbpf/dcbpfd.conf "$TMP/conf.orig"
		printf '[powertcp]\ngamma = 7\n' >>/etc/dcbpf/dcbpfd.conf
		systemctl reload dcbpfd >/dev/null 2>&1 && t_fail "deb: systemctl reload fails on a bad file" "succeeded" ||
			t_pass "deb: systemctl reload fails on a bad file"
		systemctl is-active --quiet dcbpfd && [ "$(/usr/sbin/dcbpf get powertcp.gamma)" = 0.9 ] &&
			t_pass "deb: after the failed reload the service runs on the old configuration" ||
			t_fail "deb: after the failed reload the service runs on the old configuration" "$(systemctl is-active dcbpfd)"
		cp "$TMP/conf.orig" /etc/dcbpf/dcbpfd.conf
		systemctl reload dcbpfd && t_pass "deb: systemctl reload of a good file succeeds" ||
			t_fail "deb: systemctl reload of a good file succeeds" "$(journalctl -u dcbpfd -n 3 --no-pager 2>&1 | tr '\n' ' ')"
	else
		t_fail "deb: the service starts" "$(journalctl -u dcbpfd -n 5 --no-pager 2>&1 | tr '\n' ' ')"
	fi
else
	# no systemd as init: check the unit file offline, run the daemon by hand
	if command -v systemd-analyze >/dev/null; then
		va=()
		command -v man >/dev/null || va=(--man=no)
		if systemd-analyze verify "${va[@]}" /lib/systemd/system/dcbpfd.service >"$TMP/verify" 2>&1; then
			t_pass "deb: systemd-analyze verify accepts the installed unit (PID 1 is $(cat /proc/1/comm))"
		else
			t_fail "deb: systemd-analyze verify accepts the installed unit" "$(tr '\n' ' ' <"$TMP/verify")"
		fi
	else
		t_skip "deb: systemd-analyze verify" "systemd-analyze missing (make deps-test installs systemd)"
	fi
	[ -L /etc/systemd/system/multi-user.target.wants/dcbpfd.service ] &&
		t_pass "deb: postinst enabled the unit for the next boot with systemd" ||
		t_fail "deb: postinst enabled the unit for the next boot with systemd" "no multi-user.target.wants link"
	! grep -qw powertcp "$AVAIL" && t_pass "deb: without systemd, installing starts nothing" ||
		t_fail "deb: without systemd, installing starts nothing" "powertcp registered after dpkg -i"

	# the installed daemon, own pin dir and lock, readiness seen by a listener
	printf '[daemon]\npin_dir = %s\nlock_file = %s/lock\n' "$PIN" "$TMP" >"$TMP/test.conf"
	python3 - "$TMP/notify.sock" "$TMP/msgs" "$PIN" <<'PY' &
import os, socket, sys
sock, out, pin = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock)
s.settimeout(60)
with open(out, "a", buffering=1) as f:
    f.write("listening\n")
    while True:
        try:
            m = s.recv(4096).decode()
        except socket.timeout:
            break
        pins = int(os.path.exists(os.path.join(pin, "dc_cc_cfg")))
        f.write("pins=%d %s\n" % (pins, m.replace("\n", "|")))
        if "STOPPING=1" in m.split("\n"):
            break
PY
	LPID=$!
	wait_until 5 test -S "$TMP/notify.sock"
	NOTIFY_SOCKET=$TMP/notify.sock /usr/sbin/dcbpfd -c "$TMP/test.conf" >"$TMP/d.log" 2>&1 &
	DPID=$!
	if wait_until 20 grep -q 'READY=1' "$TMP/msgs"; then
		grep 'READY=1' "$TMP/msgs" | grep -q '^pins=1' && grep -qw theta_powertcp "$AVAIL" &&
			t_pass "deb: the installed dcbpfd becomes ready with its maps pinned and the CCs registered" ||
			t_fail "deb: the installed dcbpfd becomes ready with its maps pinned and the CCs registered" "$(cat "$TMP/msgs")"
		/usr/sbin/dcbpf -c "$TMP/test.conf" status >"$TMP/status" 2>&1 && grep -q '^daemon: *running' "$TMP/status" &&
			t_pass "deb: the installed dcbpf status sees the running daemon" ||
			t_fail "deb: the installed dcbpf status sees the running daemon" "$(head -n 3 "$TMP/status" | tr '\n' ' ')"
	else
		t_fail "deb: the installed dcbpfd becomes ready" "$(tail -n 3 "$TMP/d.log" | tr '\n' ' ')"
	fi
	kill -TERM "$DPID"
	wait "$DPID"
	drc=$?
	DPID=""
	[ "$drc" = 0 ] && [ ! -e "$PIN" ] && ! grep -qw powertcp "$AVAIL" &&
		t_pass "deb: SIGTERM stops it, unregisters and unpins" ||
		t_fail "deb: SIGTERM stops it, unregisters and unpins" "exit $drc; $(ls "$PIN" 2>&1 | tr '\n' ' ')"
	wait "$LPID" 2>/dev/null
	LPID=""
fi

# ---- purge ---------------------------------------------------------------------
if dpkg --purge dcbpf >"$TMP/purge.log" 2>&1; then
	INSTALLED=""
	t_pass "deb: dpkg --purge removes it"
else
	t_fail "deb: dpkg --purge removes it" "$(tail -n 3 "$TMP/purge.log" | tr '\n' ' ')"
fi
left=""
while read -r f; do
	# shared directories (/usr, /etc, ...) stay; anything of ours must go
	[ -d "$f" ] && [ -n "$(ls -A "$f" 2>/dev/null)" ] && continue
	[ -e "$f" ] && left="$left $f"
done <"$TMP/files"
for f in /etc/dcbpf /usr/lib/dcbpf /usr/share/dcbpf /sys/fs/bpf/dcbpf /run/dcbpfd.lock \
	/etc/systemd/system/multi-user.target.wants/dcbpfd.service /etc/systemd/system/dcbpfd.service \
	/var/lib/systemd/deb-systemd-helper-enabled/dcbpfd.service.dsh-also \
	/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/dcbpfd.service \
	/var/lib/systemd/deb-systemd-helper-masked/dcbpfd.service; do
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done
[ -z "$left" ] && t_pass "deb: nothing is left after the purge (files, /etc/dcbpf, unit state, pins)" ||
	t_fail "deb: nothing is left after the purge (files, /etc/dcbpf, unit state, pins)" "left:$left"
dpkg-query -W -f='${Status}' dcbpf 2>/dev/null | grep -q 'installed' &&
	t_fail "deb: dpkg no longer knows the package" "$(dpkg-query -W -f='${Status}' dcbpf)" ||
	t_pass "deb: dpkg no longer knows the package"
! grep -qwE 'powertcp|theta_powertcp' "$AVAIL" && t_pass "deb: no CC left registered" ||
	t_fail "deb: no CC left registered" "$(cat "$AVAIL")"
[ -n "$UNDER_SYSTEMD" ] && { systemctl is-active --quiet dcbpfd && t_fail "deb: the purge stopped the service" "still active" ||
	t_pass "deb: the purge stopped the service"; }
exit 0
