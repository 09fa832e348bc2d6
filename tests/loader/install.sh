# make install / uninstall into a staging directory: binaries, objects,
# config (never overwritten), systemd unit with the real paths, dissector.
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.."
source tests/lib/harness.sh
D=$(mktemp -d /tmp/dcbpf-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
if ! make -s install DESTDIR="$D" PREFIX=/usr/local >"$D.log" 2>&1; then
	t_fail "install: make install" "$(tail -n 3 "$D.log" | tr '\n' ' ')"
	rm -f "$D.log"
	exit 1
fi
rm -f "$D.log"
missing=""
for f in usr/local/sbin/dcbpfd usr/local/sbin/dcbpf usr/local/lib/dcbpf/powertcp.bpf.o \
	usr/local/lib/dcbpf/powertcp_v61.bpf.o usr/local/lib/dcbpf/int.bpf.o \
	usr/local/share/dcbpf/dcbpf_int.lua etc/dcbpf/dcbpfd.conf lib/systemd/system/dcbpfd.service; do
	[ -e "$D/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && t_pass "install: binaries, objects, config, unit, dissector" ||
	t_fail "install: binaries, objects, config, unit, dissector" "missing:$missing"
[ "$(stat -c %a "$D/etc/dcbpf/dcbpfd.conf")" = 600 ] && t_pass "install: config is root-only (0600)" ||
	t_fail "install: config is root-only (0600)" "mode $(stat -c %a "$D/etc/dcbpf/dcbpfd.conf")"
grep -q '^ExecStart=/usr/local/sbin/dcbpfd -c /etc/dcbpf/dcbpfd.conf$' "$D/lib/systemd/system/dcbpfd.service" &&
	t_pass "install: unit points at the installed daemon and config" ||
	t_fail "install: unit points at the installed daemon and config" "$(grep ExecStart "$D/lib/systemd/system/dcbpfd.service")"
"$D/usr/local/sbin/dcbpfd" -t -c "$D/etc/dcbpf/dcbpfd.conf" >/dev/null 2>&1 &&
	t_pass "install: the installed config passes dcbpfd -t" || t_fail "install: the installed config passes dcbpfd -t" ""
echo "; edited by the operator" >>"$D/etc/dcbpf/dcbpfd.conf"
make -s install DESTDIR="$D" PREFIX=/usr/local >/dev/null 2>&1
grep -q 'edited by the operator' "$D/etc/dcbpf/dcbpfd.conf" && t_pass "install: a second install keeps the operator's config" ||
	t_fail "install: a second install keeps the operator's config" "overwritten"
make -s uninstall DESTDIR="$D" PREFIX=/usr/local >/dev/null 2>&1
[ ! -e "$D/usr/local/sbin/dcbpfd" ] && [ ! -e "$D/usr/local/lib/dcbpf" ] && [ -e "$D/etc/dcbpf/dcbpfd.conf" ] &&
	t_pass "install: uninstall removes the program, keeps the config" ||
	t_fail "install: uninstall removes the program, keeps the config" "$(find "$D" -type f | tr '\n' ' ')"
