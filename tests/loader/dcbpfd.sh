# Load test: dcbpfd registers both CCs with a private pin dir, dcbpf reads and
# changes the live config, bad input changes nothing, a second daemon and a
# CC-name clash are refused without leftovers, SIGHUP reloads, SIGTERM
# unregisters and unpins, --keep leaves state that a restart adopts, and the
# map-update registration path (--no-links) works too.
# Never sets a netns or global default CC.  Cleans up by PID and pin path.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.  SC2012: pin names are plain.
# shellcheck disable=SC2015,SC2317,SC2012
source "$(dirname "$0")/../lib/test.sh"

D=$BUILD/dcbpfd
C=$BUILD/dcbpf
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
PIN=/sys/fs/bpf/dcbpf-t$$
PIN2=/sys/fs/bpf/dcbpf-t$$-b
TMP=$(mktemp -d /tmp/dcbpf-load-XXXXXX)
CONF=$TMP/dcbpfd.conf
LOCK=$TMP/dcbpfd.lock
DPIDS=""

# Stop our daemons by PID, then remove whatever pins are left: unpinning a
# struct_ops link or deleting a registered struct_ops map unregisters it.
cleanup() {
	local p
	for p in $DPIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $DPIDS; do t_stop "$p"; done
	t_unpin_cc "$PIN" "$PIN2"
	rm -rf "$TMP"
}
t_cleanup cleanup

registered() { grep -qw "$1" "$AVAIL"; }
both_registered() { registered powertcp && registered theta_powertcp; }
none_registered() { ! registered powertcp && ! registered theta_powertcp; }

# start_daemon LOG ARGS...: background dcbpfd, PID in $DPID
start_daemon() {
	local log=$1
	shift
	"$D" "$@" >"$log" 2>&1 &
	DPID=$!
	DPIDS="$DPIDS $DPID"
}

# stop_daemon: SIGTERM $DPID and wait; exit status in $DRC
stop_daemon() {
	kill -TERM "$DPID" 2>/dev/null
	if wait_until 10 bash -c "! kill -0 $DPID 2>/dev/null"; then
		wait "$DPID"
		DRC=$?
	else
		kill -KILL "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
		DRC=timeout
	fi
	DPIDS=${DPIDS// $DPID/}
}

cfg_field() { # CC_KEY FIELD: value of FIELD in the dc_cc_cfg entry (bpftool)
	bpftool map dump pinned "$PIN/dc_cc_cfg" -j |
		jq -r ".[] | (.formatted // .) | select(.key == $1) | .value.$2"
}

write_conf() { # GAMMA [extra lines for [powertcp]]
	cat >"$CONF" <<-EOF
	[daemon]
	pin_dir = $PIN
	lock_file = $LOCK
	log_level = info
	[powertcp]
	gamma = $1
	base_rtt_us = 60
	${2:-}
	[theta_powertcp]
	gamma = 0.9
	EOF
}

# Kernels with struct_ops links (6.4+) get pinned links; older ones (the 6.1
# VM) pinned struct_ops maps registered by map update.
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "STRUCT 'bpf_struct_ops_link'"; then
	REG=link_powertcp REG2=link_theta_ptcp KIND=link
	reg_id() { bpftool link show pinned "$PIN/$REG" -j 2>/dev/null | jq .id; }
else
	REG=dc_powertcp REG2=dc_theta_ptcp KIND=struct_ops_map
	reg_id() { bpftool map show pinned "$PIN/$REG" -j 2>/dev/null | jq .id; }
fi

for b in "$D" "$C"; do
	[ -x "$b" ] || { t_fail "load: binaries built" "$b missing (run make)"; exit 1; }
done
if registered powertcp || registered theta_powertcp; then
	t_fail "load: CC names free" "powertcp/theta_powertcp are registered by someone else ($(tr -d '\n' <"$AVAIL")); stop them first"
	exit 1
fi

# ---- config test mode -------------------------------------------------------
write_conf 0.9
t_check "load: dcbpfd -t accepts a good config" "$D" -t -c "$CONF"
printf '[powertcp]\ngamma = 0.5\nhost_bw_mbps = 0\n' >"$TMP/bad.conf"
out=$("$D" -t -c "$TMP/bad.conf" 2>&1)
rc=$?
if [ $rc = 1 ] && [[ "$out" == *"bad.conf:3: [powertcp] host_bw_mbps = 0"*"allowed [1, 1000000]"* ]]; then
	t_pass "load: dcbpfd -t on a bad config exits 1 naming line, key and range"
else
	t_fail "load: dcbpfd -t on a bad config exits 1 naming line, key and range" "rc=$rc: $out"
fi
t_expect_fail "load: dcbpfd with a bad config does not start" "$D" -c "$TMP/bad.conf"
[ -e "$PIN" ] && t_fail "load: bad config leaves no pin dir" "$PIN exists" ||
	t_pass "load: bad config leaves no pin dir"

# ---- start --------------------------------------------------------------------
start_daemon "$TMP/d1.log" -c "$CONF"
if wait_until 15 both_registered; then
	t_pass "load: dcbpfd registers powertcp and theta_powertcp"
else
	t_fail "load: dcbpfd registers powertcp and theta_powertcp" "$(tail -n 5 "$TMP/d1.log" | tr '\n' ' ')"
	exit 1
fi
wait_until 5 test -e "$PIN/$REG2"
if [ "$KIND" = link ] && bpftool link show pinned "$PIN/$REG" 2>/dev/null | grep -q struct_ops; then
	t_pass "load: struct_ops link pinned as $REG"
elif [ "$KIND" = struct_ops_map ] && bpftool map show pinned "$PIN/$REG" 2>/dev/null | grep -q struct_ops; then
	t_pass "load: registered struct_ops map pinned as $REG (kernel without links)"
else
	t_fail "load: registration pinned as $REG" "$(ls "$PIN" 2>&1 | tr '\n' ' ')"
fi
miss=""
for m in dc_cc_cfg dc_cc_flows dc_cc_stats dc_int_flows $REG2; do
	[ -e "$PIN/$m" ] || miss="$miss $m"
done
[ -z "$miss" ] && t_pass "load: maps and links pinned under the pin dir" ||
	t_fail "load: maps and links pinned under the pin dir" "missing:$miss"
perm=$(stat -c %a "$PIN")
[ "$perm" = 700 ] && t_pass "load: pin dir is mode 0700" || t_fail "load: pin dir is mode 0700" "$perm"
v=$(cfg_field 0 base_rtt_us)
[ "$v" = 60 ] && t_pass "load: config written to dc_cc_cfg at start" ||
	t_fail "load: config written to dc_cc_cfg at start" "base_rtt_us=$v"

# ---- dcbpf get / set ------------------------------------------------------------
v=$("$C" --pin-dir "$PIN" get powertcp.gamma)
[ "$v" = 0.9 ] && t_pass "load: dcbpf get powertcp.gamma = 0.9 (config)" ||
	t_fail "load: dcbpf get powertcp.gamma = 0.9 (config)" "got '$v'"
t_check "load: dcbpf set powertcp.gamma=0.8" "$C" --pin-dir "$PIN" set powertcp.gamma=0.8
v=$("$C" --pin-dir "$PIN" get powertcp.gamma)
[ "$v" = 0.8 ] && t_pass "load: dcbpf get powertcp.gamma = 0.8" ||
	t_fail "load: dcbpf get powertcp.gamma = 0.8" "got '$v'"
v=$(cfg_field 0 gamma_q16)
[ "$v" = 52429 ] && t_pass "load: bpftool shows gamma_q16 = 52429 (0.8 in Q16)" ||
	t_fail "load: bpftool shows gamma_q16 = 52429 (0.8 in Q16)" "gamma_q16=$v"
v=$(cfg_field 0 base_rtt_us)
[ "$v" = 60 ] && t_pass "load: set keeps the other fields of the entry" ||
	t_fail "load: set keeps the other fields of the entry" "base_rtt_us=$v"

before=$(bpftool map dump pinned "$PIN/dc_cc_cfg" -j)
out=$("$C" --pin-dir "$PIN" set powertcp.gamma=1.5 2>&1)
rc=$?
if [ $rc = 2 ] && [[ "$out" == *"powertcp.gamma"*"(0, 1]"* ]]; then
	t_pass "load: set of an out-of-range value refused naming key and range"
else
	t_fail "load: set of an out-of-range value refused naming key and range" "rc=$rc: $out"
fi
out=$("$C" --pin-dir "$PIN" set theta_powertcp.gamma=0.5 powertcp.min_cwnd_pkts=0 2>&1)
rc=$?
[ $rc = 2 ] && [[ "$out" == *"powertcp.min_cwnd_pkts"*"[1, 10000]"* ]] &&
	t_pass "load: one bad assignment of several refuses all" ||
	t_fail "load: one bad assignment of several refuses all" "rc=$rc: $out"
after=$(bpftool map dump pinned "$PIN/dc_cc_cfg" -j)
[ "$before" = "$after" ] && t_pass "load: refused sets leave dc_cc_cfg unchanged" ||
	t_fail "load: refused sets leave dc_cc_cfg unchanged" "map changed"
t_expect_fail "load: set of an unknown key refused" "$C" --pin-dir "$PIN" set powertcp.gama=0.5
t_check "load: set of two CCs at once" "$C" --pin-dir "$PIN" set theta_powertcp.gamma=0.75 theta_powertcp.pacing=0
v=$("$C" --pin-dir "$PIN" --json get theta_powertcp | jq -c '.theta_powertcp | [.gamma, .pacing]')
[ "$v" = "[0.75,0]" ] && t_pass "load: get --json shows both changes" ||
	t_fail "load: get --json shows both changes" "$v"

# ---- status and dumps --------------------------------------------------------------
out=$("$C" -c "$CONF" status 2>&1)
if [[ "$out" == *"running, pid $DPID"* ]] && [[ "$out" == *"powertcp "*"yes"*"$REG"* ]] &&
	[[ "$out" == *"powertcp.bpf.o"* || "$out" == *"powertcp_v61.bpf.o"* ]]; then
	t_pass "load: dcbpf status shows daemon pid, registration and ABI"
else
	t_fail "load: dcbpf status shows daemon pid, registration and ABI" "$(echo "$out" | head -n 8 | tr '\n' ' ')"
fi
v=$("$C" -c "$CONF" --json status | jq -r '[.daemon.pid, .ccs.powertcp.registered, .ccs.powertcp.pinned, (.maps | length)] | @csv')
# Every map pinned under the pin dir is listed (links are not maps, and
# neither are the struct_ops maps pinned as registrations on kernels
# without struct_ops links: status shows those per CC).
NMAPS=$(for f in "$PIN"/*; do
	bpftool map show pinned "$f" -j 2>/dev/null | jqe '.type != null and .type != "struct_ops"' >/dev/null && echo "$f"
done | wc -l)
[ "$v" = "$DPID,true,\"$KIND\",$NMAPS" ] && t_pass "load: dcbpf --json status" ||
	t_fail "load: dcbpf --json status" "$v"
for what in flows stats cfg; do
	t_check "load: dcbpf dump $what" "$C" --pin-dir "$PIN" dump "$what"
	t_check "load: dcbpf --json dump $what is JSON" bash -c "'$C' --pin-dir '$PIN' --json dump $what | jqe . >/dev/null"
done
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$C" --pin-dir "$PIN" get 2>&1)
rc=$?
[ $rc = 1 ] && [[ "$out" == *"must be root"*"$PIN"* ]] && t_pass "load: dcbpf as non-root says it must be root" ||
	t_fail "load: dcbpf as non-root says it must be root" "rc=$rc: $out"
t_expect_fail "load: dcbpf unknown command is a usage error" "$C" --pin-dir "$PIN" frobnicate

# ---- a second daemon, a CC-name clash ---------------------------------------------------
out=$("$D" -c "$CONF" 2>&1)
rc=$?
[ $rc = 4 ] && [[ "$out" == *"pid $DPID"* ]] && t_pass "load: second daemon refused naming the holder pid" ||
	t_fail "load: second daemon refused naming the holder pid" "rc=$rc: $out"
sed "s|^pin_dir = .*|pin_dir = $PIN2|; s|^lock_file = .*|lock_file = $TMP/b.lock|" "$CONF" >"$TMP/b.conf"
out=$("$D" -c "$TMP/b.conf" 2>&1)
rc=$?
if [ $rc = 5 ] && [[ "$out" == *"powertcp"*"already registered by someone else"* ]] && [ ! -e "$PIN2" ]; then
	t_pass "load: CC names taken: exit 5, clear message, nothing left behind"
else
	t_fail "load: CC names taken: exit 5, clear message, nothing left behind" "rc=$rc pin2=$(ls -d "$PIN2" 2>&1): $out"
fi
both_registered && t_pass "load: the running daemon's CCs survive the refused ones" ||
	t_fail "load: the running daemon's CCs survive the refused ones" "$(cat $AVAIL)"

# ---- SIGHUP ---------------------------------------------------------------------------------
printf '[powertcp]\ngamma = 7\n' >>"$CONF"
kill -HUP "$DPID"
wait_until 5 grep -q "keeping the running configuration" "$TMP/d1.log"
v=$("$C" --pin-dir "$PIN" get powertcp.gamma)
if grep -q "dcbpfd.conf:12: \[powertcp\] gamma = 7" "$TMP/d1.log" && [ "$v" = 0.8 ] && kill -0 "$DPID"; then
	t_pass "load: SIGHUP with a bad config logs the line and keeps running state"
else
	t_fail "load: SIGHUP with a bad config logs the line and keeps running state" "gamma=$v; $(tail -n 3 "$TMP/d1.log" | tr '\n' ' ')"
fi
write_conf 0.7
kill -HUP "$DPID"
wait_until 5 grep -q "reload done" "$TMP/d1.log"
v=$("$C" --pin-dir "$PIN" get powertcp.gamma)
[ "$v" = 0.7 ] && grep -q "powertcp.gamma: 0.8 -> 0.7 (reload)" "$TMP/d1.log" &&
	t_pass "load: SIGHUP applies the new config and logs the change" ||
	t_fail "load: SIGHUP applies the new config and logs the change" "gamma=$v"

# ---- SIGTERM --------------------------------------------------------------------------------------
stop_daemon
if [ "$DRC" = 0 ] && none_registered && [ ! -e "$PIN" ] && [ ! -e "$LOCK" ]; then
	t_pass "load: SIGTERM unregisters both CCs, removes pins, pin dir and lock"
else
	t_fail "load: SIGTERM unregisters both CCs, removes pins, pin dir and lock" "rc=$DRC avail=$(cat $AVAIL) pin=$(ls "$PIN" 2>&1 | tr '\n' ' ')"
fi

# ---- --keep and adoption ------------------------------------------------------------------------
start_daemon "$TMP/d2.log" -c "$CONF" --keep
wait_until 15 both_registered && wait_until 5 test -e "$PIN/$REG2"
link1=$(reg_id)
"$C" --pin-dir "$PIN" set powertcp.gamma=0.6 >/dev/null
stop_daemon
if [ "$DRC" = 0 ] && both_registered && [ -e "$PIN/$REG" ] && [ -e "$PIN/dc_cc_cfg" ]; then
	t_pass "load: --keep leaves CCs registered, registrations and maps pinned"
else
	t_fail "load: --keep leaves CCs registered, registrations and maps pinned" "rc=$DRC avail=$(cat $AVAIL)"
fi
v=$("$C" --pin-dir "$PIN" get powertcp.gamma)
[ "$v" = 0.6 ] && t_pass "load: dcbpf works from the pins without a daemon" ||
	t_fail "load: dcbpf works from the pins without a daemon" "gamma=$v"
out=$("$C" -c "$CONF" status)
[[ "$out" == *"not running"* ]] && t_pass "load: status says the daemon is not running" ||
	t_fail "load: status says the daemon is not running" "$(echo "$out" | head -n 2 | tr '\n' ' ')"

start_daemon "$TMP/d3.log" -c "$CONF"
wait_until 10 grep -q "ready:" "$TMP/d3.log"
link2=$(reg_id)
if grep -q "adopted pinned state" "$TMP/d3.log" && [ -n "$link1" ] && [ "$link1" = "$link2" ] &&
	! grep -q "loaded powertcp" "$TMP/d3.log"; then
	t_pass "load: restart adopts the pinned registrations (same $KIND id $link1, nothing loaded)"
else
	t_fail "load: restart adopts the pinned registrations" "link $link1 -> $link2; $(grep -E 'adopt|loaded|error' "$TMP/d3.log" | tr '\n' ' ')"
fi
v=$("$C" --pin-dir "$PIN" get powertcp.gamma)
[ "$v" = 0.7 ] && t_pass "load: adopting daemon writes its config" ||
	t_fail "load: adopting daemon writes its config" "gamma=$v"
stop_daemon
[ "$DRC" = 0 ] && none_registered && [ ! -e "$PIN" ] &&
	t_pass "load: stopping the adopting daemon removes the adopted state" ||
	t_fail "load: stopping the adopting daemon removes the adopted state" "rc=$DRC avail=$(cat $AVAIL)"

# ---- map-update registration (the 6.1 path) -----------------------------------------------------
start_daemon "$TMP/d4.log" -c "$CONF" --no-links --keep
if wait_until 15 both_registered && wait_until 5 test -e "$PIN/dc_theta_ptcp" && [ ! -e "$PIN/link_powertcp" ]; then
	t_pass "load: --no-links registers by struct_ops map update (map pinned, no link)"
else
	t_fail "load: --no-links registers by struct_ops map update" "$(tail -n 3 "$TMP/d4.log" | tr '\n' ' ')"
fi
stop_daemon
both_registered && t_pass "load: --no-links --keep leaves the CCs registered" ||
	t_fail "load: --no-links --keep leaves the CCs registered" "$(cat $AVAIL)"
start_daemon "$TMP/d5.log" -c "$CONF" --no-links
wait_until 10 grep -q "ready:" "$TMP/d5.log"
grep -q "adopted pinned struct_ops map" "$TMP/d5.log" &&
	t_pass "load: restart adopts registered struct_ops maps" ||
	t_fail "load: restart adopts registered struct_ops maps" "$(grep -E 'adopt|error' "$TMP/d5.log" | tr '\n' ' ')"
stop_daemon
[ "$DRC" = 0 ] && none_registered && [ ! -e "$PIN" ] &&
	t_pass "load: --no-links stop unregisters and unpins" ||
	t_fail "load: --no-links stop unregisters and unpins" "rc=$DRC avail=$(cat $AVAIL)"

# ---- a failed start undoes itself ------------------------------------------------------------------
# A dc_cc_cfg pinned by "another build" (wrong value size) makes the load fail.
mkdir -p "$PIN" && chmod 700 "$PIN"
bpftool map create "$PIN/dc_cc_cfg" type hash key 4 value 8 entries 2 name dc_cc_cfg 2>/dev/null
out=$("$D" -c "$CONF" 2>&1)
rc=$?
left=$(ls "$PIN" 2>/dev/null | tr '\n' ' ')
if [ $rc = 3 ] && none_registered && [ "$left" = "dc_cc_cfg " ] && [[ "$out" == *"$PIN"* ]]; then
	t_pass "load: failed load exits 3 naming the pin dir and leaves only what was there"
else
	t_fail "load: failed load exits 3 naming the pin dir and leaves only what was there" "rc=$rc left='$left' $(echo "$out" | grep error | tail -n 2 | tr '\n' ' ')"
fi
rm -rf "$PIN"
exit 0
