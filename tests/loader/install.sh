# make install / uninstall into a staging directory: binaries, objects,
# config (never overwritten), systemd unit with the real paths where
# pkg-config systemd says (or SYSTEMDUNITDIR), dissector, man pages, bash
# completion; and make install needs only the build dependencies.
# kernel-independent: files into a staging directory (dcbpfd -t only parses the config)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
D=$(t_mktmp install) || exit 1
t_cleanup rm -f "$D.log"
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
UNITDIR=${UNITDIR:-/lib/systemd/system}
UNITDIR=${UNITDIR#/}
if ! make -s install DESTDIR="$D" PREFIX=/usr/local >"$D.log" 2>&1; then
	t_fail "install: make install" "$(tail -n 3 "$D.log" | tr '\n' ' ')"
	rm -f "$D.log"
	exit 1
fi
rm -f "$D.log"
missing=""
for f in usr/local/sbin/dcbpfd usr/local/sbin/dcbpf usr/local/lib/dcbpf/powertcp.bpf.o \
	usr/local/lib/dcbpf/powertcp_v61.bpf.o usr/local/lib/dcbpf/int.bpf.o \
	usr/local/share/dcbpf/dcbpf_int.lua etc/dcbpf/dcbpfd.conf "$UNITDIR/dcbpfd.service" \
	usr/local/share/man/man8/dcbpf.8 usr/local/share/man/man8/dcbpfd.8 usr/local/share/man/man5/dcbpfd.conf.5 \
	usr/local/share/bash-completion/completions/dcbpf; do
	[ -e "$D/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && t_pass "install: binaries, objects, config, unit (in $UNITDIR), dissector, man pages, completion" ||
	t_fail "install: binaries, objects, config, unit (in $UNITDIR), dissector, man pages, completion" "missing:$missing"
[ "$(stat -c %a "$D/etc/dcbpf/dcbpfd.conf")" = 600 ] && t_pass "install: config is root-only (0600)" ||
	t_fail "install: config is root-only (0600)" "mode $(stat -c %a "$D/etc/dcbpf/dcbpfd.conf")"
U=$D/$UNITDIR/dcbpfd.service
grep -q '^ExecStart=/usr/local/sbin/dcbpfd -c /etc/dcbpf/dcbpfd.conf$' "$U" &&
	t_pass "install: unit points at the installed daemon and config" ||
	t_fail "install: unit points at the installed daemon and config" "$(grep ExecStart "$U")"
grep -q '^Type=notify$' "$U" && t_pass "install: unit waits for the daemon's READY=1 (Type=notify)" ||
	t_fail "install: unit waits for the daemon's READY=1 (Type=notify)" "$(grep '^Type=' "$U")"
# ExecReload: validate, then signal (in that order, so a bad file fails the reload)
[ "$(grep '^ExecReload=' "$U" | tr '\n' '|')" = "ExecReload=/usr/local/sbin/dcbpfd -t -c /etc/dcbpf/dcbpfd.conf|ExecReload=/bin/kill -HUP \$MAINPID|" ] &&
	t_pass "install: ExecReload validates the config before signalling" ||
	t_fail "install: ExecReload validates the config before signalling" "$(grep '^ExecReload=' "$U" | tr '\n' ' ')"
if command -v systemd-analyze >/dev/null; then
	# the unit as installed, with the staged binary in its place
	sed "s|/usr/local/sbin/|$D/usr/local/sbin/|g" "$U" >"$D/dcbpfd.service"
	out=$(systemd-analyze verify --man=no "$D/dcbpfd.service" 2>&1) && t_pass "install: systemd-analyze verify accepts the unit" ||
		t_fail "install: systemd-analyze verify accepts the unit" "$(echo "$out" | tr '\n' ' ')"
	rm -f "$D/dcbpfd.service"
else
	t_skip "install: systemd-analyze verify accepts the unit" "systemd-analyze missing (make deps-test)"
fi
"$D/usr/local/sbin/dcbpfd" -t -c "$D/etc/dcbpf/dcbpfd.conf" >/dev/null 2>&1 &&
	t_pass "install: the installed config passes dcbpfd -t" || t_fail "install: the installed config passes dcbpfd -t" ""
echo "; edited by the operator" >>"$D/etc/dcbpf/dcbpfd.conf"
make -s install DESTDIR="$D" PREFIX=/usr/local >/dev/null 2>&1
grep -q 'edited by the operator' "$D/etc/dcbpf/dcbpfd.conf" && t_pass "install: a second install keeps the operator's config" ||
	t_fail "install: a second install keeps the operator's config" "overwritten"
make -s uninstall DESTDIR="$D" PREFIX=/usr/local >/dev/null 2>&1
[ ! -e "$D/usr/local/sbin/dcbpfd" ] && [ ! -e "$D/usr/local/lib/dcbpf" ] && [ -e "$D/etc/dcbpf/dcbpfd.conf" ] &&
	[ ! -e "$U" ] && [ ! -e "$D/usr/local/share/man/man8/dcbpfd.8" ] &&
	[ ! -e "$D/usr/local/share/bash-completion/completions/dcbpf" ] &&
	t_pass "install: uninstall removes the program, keeps the config" ||
	t_fail "install: uninstall removes the program, keeps the config" "$(find "$D" -type f | tr '\n' ' ')"

# SYSTEMDUNITDIR overrides where the unit goes
D2=$D/override
make -s install DESTDIR="$D2" PREFIX=/usr SYSTEMDUNITDIR=/usr/lib/systemd/system >"$D.log" 2>&1 ||
	cat "$D.log"
[ -e "$D2/usr/lib/systemd/system/dcbpfd.service" ] &&
	{ [ "$UNITDIR" = usr/lib/systemd/system ] || [ ! -e "$D2/$UNITDIR/dcbpfd.service" ]; } &&
	grep -q '^ExecStart=/usr/sbin/dcbpfd ' "$D2/usr/lib/systemd/system/dcbpfd.service" &&
	t_pass "install: SYSTEMDUNITDIR=/usr/lib/systemd/system puts the unit there" ||
	t_fail "install: SYSTEMDUNITDIR=/usr/lib/systemd/system puts the unit there" "$(find "$D2" -name dcbpfd.service)"

# make install pulls only the build dependencies: the recipes make would
# run (-n: nothing is run) name the build packages and none of the test ones
plan=$(make -n install DESTDIR="$D/n" 2>&1 | sed -n 's/.*for p in \([^;]*\); do.*/\1/p' | tr '\n' ' ')
if echo "$plan" | grep -qw 'libbpf-dev'; then
	bad=$(echo "$plan" | tr ' ' '\n' | grep -xE 'tshark|iperf3|gnuplot-nox|ethtool|jq|prometheus|iputils-ping|bc' | sort -u | tr '\n' ' ')
	[ -z "$bad" ] && t_pass "install: make install checks only the build dependencies ($plan)" ||
		t_fail "install: make install checks only the build dependencies" "test packages in the plan: $bad"
else
	t_fail "install: make install checks the build dependencies" "no libbpf-dev in make -n install: $plan"
fi
plan=$(make -n check 2>&1 | sed -n 's/.*for p in \([^;]*\); do.*/\1/p' | tr '\n' ' ')
echo "$plan" | grep -qw 'tshark' && echo "$plan" | grep -qw 'libbpf-dev' && echo "$plan" | grep -qw 'lua5.4' &&
	t_pass "install: make check checks build and test dependencies" ||
	t_fail "install: make check checks build and test dependencies" "tshark or libbpf-dev missing from make -n check"
# a missing package is named with the target that installs it: as a user
# that cannot install, with a dpkg-query that finds nothing installed
mkdir -p "$D/fakebin"
printf '#!/bin/sh\nexit 1\n' >"$D/fakebin/dpkg-query"
chmod +x "$D/fakebin/dpkg-query"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod 755 "$D"
	out=$(cd "$D" && PATH="$D/fakebin:$PATH" setpriv --reuid=65534 --regid=65534 --clear-groups \
		make -s -C "$OLDPWD" deps-build BUILD="$D/b" 2>&1)
	echo "$out" | grep -q "missing Debian packages: .*libbpf-dev.* run 'sudo make deps-build'" &&
		! echo "$out" | grep -qw tshark && t_pass "install: deps-build names only missing build packages" ||
		t_fail "install: deps-build names only missing build packages" "$out"
fi

# the man pages cover what the binaries offer: every long option of
# --help, every config key of `dcbpf params`, every dcbpf command.  dcbpf.8
# as installed: docs/man/dcbpf.8 with the commands make generated from the
# command table ($B/dcbpf.8).
B=${BUILD:-build}
man_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1"; }
miss=""
for pair in dcbpfd:docs/man/dcbpfd.8 dcbpf:$B/dcbpf.8; do
	bin=${pair%%:*} page=${pair#*:}
	for o in $("$B/$bin" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		man_text "$page" | grep -q -- "$o" || miss="$miss $page:$o"
	done
done
# and the options of every dcbpf command (paths from its table: dcbpf __walk)
while read -r -a path; do
	for o in $("$B/dcbpf" "${path[@]}" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		man_text "$B/dcbpf.8" | grep -q -- "$o" || miss="$miss dcbpf.8:${path[*]}:$o"
	done
done < <("$B/dcbpf" __walk)
for k in $("$B/dcbpf" --json params | jq -r '.[].key' | sort -u); do
	man_text docs/man/dcbpfd.conf.5 | grep -q "^\.BI \"$k = \"" || miss="$miss dcbpfd.conf.5:$k"
done
for c in $("$B/dcbpf" --help | sed -n 's/^  \([a-z][a-z|]*\) .*/\1/p' | tr '|' ' '); do
	man_text "$B/dcbpf.8" | grep -qE "^\.((B|BR|BI) (.*[ |])?\"?|SS \"dcbpf )$c\b" || miss="$miss dcbpf.8:$c"
done
[ -z "$miss" ] && t_pass "install: the man pages cover every option, command and config key" ||
	t_fail "install: the man pages cover every option, command and config key" "missing:$miss"
if command -v man >/dev/null; then
	w=$(for p in docs/man/*.[58] "$B/dcbpf.8"; do LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null; done)
	[ -z "$w" ] && t_pass "install: the man pages format without groff warnings" ||
		t_fail "install: the man pages format without groff warnings" "$(echo "$w" | head -n 3 | tr '\n' ' ')"
fi
