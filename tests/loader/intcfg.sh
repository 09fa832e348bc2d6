# Config-driven INT attachment ([int] in dcbpfd.conf), in a scratch namespace:
#  - start attaches the host programs to the interfaces that match, only those;
#  - a matching interface created later gets them (netlink), one deleted is forgotten;
#  - `dcbpf attach/detach` at run time; a reload attaches new matches, detaches
#    interfaces no longer named, and leaves unchanged ones and run-time ones alone
#    (same link ids);
#  - a bad [int] line or a missing namespace in a reload is named, nothing changes;
#  - kill -9 then restart adopts (same ids, nothing attached again); --keep keeps
#    them through a stop; a stop without --keep detaches everything.
# Ids are link ids where the kernel has tcx links (6.6+) and program ids of the
# cls_bpf filters on the netlink path (6.1).
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.
# SC2119: dcbpfd_start takes optional CC lines, none here.  SC2010/SC2011: pin
# names are plain (interface names and suffixes).
# shellcheck disable=SC2015,SC2317,SC2119,SC2010,SC2011
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/dcbpfd.sh

C=$BUILD/dcbpf
D=$BUILD/dcbpfd
NS=dcbpf-if$$
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control

cleanup() {
	ip netns del "$NS" 2>/dev/null
	dcbpfd_stop
	rm -f "${BADCONF:-}"
}
t_cleanup cleanup

for b in "$C" "$D"; do
	[ -x "$b" ] || { t_fail "intcfg: binaries built" "$b missing (run make)"; exit 1; }
done

ip netns add "$NS" || { t_fail "intcfg: scratch namespace" "ip netns add failed"; exit 1; }
ip -n "$NS" link add va0 type veth peer name vb0
ip -n "$NS" link add wa0 type veth peer name wb0

# ---- a namespace that does not exist: refused at start, nothing left ----------------
BADCONF=$(mktemp /tmp/dcbpfd-ifbad-XXXXXX.conf)
printf '[daemon]\npin_dir = /sys/fs/bpf/dcbpf-ifbad%s\nlock_file = %s.lock\n[int]\nnetns = nosuch-%s\ninterfaces = eth0\n' \
	"$$" "$BADCONF" "$$" >"$BADCONF"
out=$("$D" -c "$BADCONF" 2>&1)
rc=$?
[ $rc = 3 ] && [[ "$out" == *"netns = nosuch-$$"*"not found"* ]] && ! grep -qw powertcp "$AVAIL" &&
	[ ! -e /sys/fs/bpf/dcbpf-ifbad$$ ] &&
	t_pass "intcfg: a missing [int] netns is refused at start (exit 3, named), nothing registered" ||
	t_fail "intcfg: a missing [int] netns is refused at start" "rc=$rc: $out"
printf '[int]\ninterfaces = eth0 thisnameiswaytoolong\n' >"$BADCONF"
out=$("$D" -t -c "$BADCONF" 2>&1)
rc=$?
[ $rc = 1 ] && [[ "$out" == *"$BADCONF:2: [int] interfaces = "*"'thisnameiswaytoolong' is not an interface name"* ]] &&
	t_pass "intcfg: dcbpfd -t names a bad interfaces line (exit 1)" ||
	t_fail "intcfg: dcbpfd -t names a bad interfaces line" "rc=$rc: $out"

# ---- start -----------------------------------------------------------------------------
DCBPFD_EXTRA="[int]\nnetns = $NS\ninterfaces = va*\ndestinations = 10.9.0.0/16:2"
if ! dcbpfd_start; then
	t_fail "intcfg: dcbpfd starts" "$DCBPFD_ERR"
	exit 1
fi
LOG=${DCBPFD_CONF%.conf}.log
DIR=$DCBPFD_PIN/int/$NS
wait_until 10 grep -q "ready:" "$LOG" || { t_fail "intcfg: dcbpfd ready" "$(tail -n 5 "$LOG")"; exit 1; }

hook_id() { # IFACE egress|ingress: link id (pinned tcx link) or cls_bpf program id, or nothing
	local pin=$DIR/$1_$2
	if [ -e "$pin" ]; then
		bpftool link show pinned "$pin" -j 2>/dev/null | jq -r '.id // empty'
	else
		ip netns exec "$NS" tc filter show dev "$1" "$2" 2>/dev/null |
			awk '/dc_int_h/ { for (i = 1; i < NF; i++) if ($i == "id") { print $(i + 1); exit } }'
	fi
}
ids() { echo "$(hook_id "$1" egress) $(hook_id "$1" ingress)"; }
attached() { local e i; read -r e i <<<"$(ids "$1")"; [ -n "$e" ] && [ -n "$i" ]; }
detached() { [ "$(ids "$1")" = " " ] && ! ls "$DIR" 2>/dev/null | grep -q "^$1_"; }
prog_names() { # IFACE: names of the programs on egress and ingress
	local h pin
	for h in egress ingress; do
		pin=$DIR/$1_$h
		if [ -e "$pin" ]; then
			bpftool prog show id "$(bpftool link show pinned "$pin" -j | jq -r .prog_id)" -j | jq -r .name
		else
			ip netns exec "$NS" tc filter show dev "$1" "$h" | grep -o 'dc_int_h[a-z]*' | head -n 1
		fi
	done | xargs
}
reloads() { grep -c "reload done\|keeping the running configuration" "$LOG"; }
reload() { # send SIGHUP and wait until the daemon has answered it
	local n
	n=$(reloads)
	kill -HUP "$DCBPFD_PID"
	wait_until 10 bash -c "[ \$(grep -c 'reload done\|keeping the running configuration' '$LOG') -gt $n ]"
}
set_ifaces() { sed -i "s/^interfaces = .*/interfaces = $1/" "$DCBPFD_CONF"; }

if attached va0 && detached vb0 && detached wa0 && detached wb0 && [ "$(prog_names va0)" = "dc_int_hout dc_int_hin" ]; then
	t_pass "intcfg: start attaches dc_int_hout/dc_int_hin to va0 only (ids $(ids va0))"
else
	t_fail "intcfg: start attaches to the matching interface only" "va0='$(ids va0)' ($(prog_names va0)) vb0='$(ids vb0)' wa0='$(ids wa0)'; $(grep -E 'error|INT' "$LOG" | tr '\n' ' ')"
fi
va0_ids=$(ids va0)
st=$("$C" -c "$DCBPFD_CONF" --json status | jq -r ".int_attachments[] | select(.netns == \"$NS\") | \"\(.ifname) \(.egress) \(.ingress)\"" | xargs)
[ "$st" = "va0 $va0_ids" ] && t_pass "intcfg: dcbpf --json status lists the attachment with its ids" ||
	t_fail "intcfg: dcbpf --json status lists the attachment" "'$st' vs 'va0 $va0_ids'"
m=$("$C" -c "$DCBPFD_CONF" metrics | grep "^dcbpf_int_host_attached{netns=\"$NS\"" | xargs)
[ "$m" = "dcbpf_int_host_attached{netns=$NS,ifname=va0} 1" ] &&
	t_pass "intcfg: dcbpf metrics: dcbpf_int_host_attached for va0 is 1, no other interface" ||
	t_fail "intcfg: dcbpf metrics: dcbpf_int_host_attached" "$m"
out=$("$C" --pin-dir "$DCBPFD_PIN" int dst list)
[[ "$out" == *"10.9.0.0/16 slots 2"* ]] && t_pass "intcfg: [int] destinations written into dc_int_dst" ||
	t_fail "intcfg: [int] destinations written into dc_int_dst" "$out"

# ---- hot-plug ----------------------------------------------------------------------------
ip -n "$NS" link add va7 type veth peer name vc7
if wait_until 5 attached va7 && detached vc7 && [ "$(ids va0)" = "$va0_ids" ]; then
	va7_ids=$(ids va7)
	t_pass "intcfg: a matching interface created after start gets the programs within 5 s (va0 untouched)"
else
	t_fail "intcfg: hot-plug attach" "va7='$(ids va7)' vc7='$(ids vc7)' va0 '$va0_ids' -> '$(ids va0)'"
fi
ip -n "$NS" link del va7
wait_until 5 bash -c "! ls '$DIR' | grep -q '^va7_'" &&
	t_pass "intcfg: a deleted interface's links are forgotten (pins gone)" ||
	t_fail "intcfg: a deleted interface's links are forgotten" "$(ls "$DIR" | xargs)"
# the same name again, right after a delete: a new device, new programs
ip -n "$NS" link add va7 type veth peer name vc7 && ip -n "$NS" link del va7 &&
	ip -n "$NS" link add va7 type veth peer name vc7
live_ids() { # IFACE: ids dcbpf status reports (0 for a link whose device is gone)
	"$C" -c "$DCBPFD_CONF" --json status |
		jq -r ".int_attachments[] | select(.netns == \"$NS\" and .ifname == \"$1\") | \"\(.egress) \(.ingress)\""
}
fresh() { attached va7 && [ "$(live_ids va7)" = "$(ids va7)" ] && [ "$(ids va7)" != "${va7_ids:-}" ]; }
if wait_until 5 fresh; then
	t_pass "intcfg: an interface recreated under the same name gets new programs ($(ids va7))"
else
	t_fail "intcfg: an interface recreated under the same name gets new programs" "va7 '${va7_ids:-}' -> '$(ids va7)'"
fi
ip -n "$NS" link del va7

# ---- run-time attach / detach --------------------------------------------------------------
t_check "intcfg: dcbpf attach wa0 (the config's namespace)" "$C" -c "$DCBPFD_CONF" attach wa0
wa0_ids=$(ids wa0)
attached wa0 && t_pass "intcfg: wa0 attached at run time ($wa0_ids)" || t_fail "intcfg: wa0 attached at run time" "$wa0_ids"
"$C" -c "$DCBPFD_CONF" attach wb0 >/dev/null 2>&1 && attached wb0 && "$C" -c "$DCBPFD_CONF" detach wb0 && detached wb0 &&
	t_pass "intcfg: dcbpf attach then detach wb0 leaves nothing" ||
	t_fail "intcfg: dcbpf attach then detach wb0" "wb0='$(ids wb0)'"
out=$("$C" -c "$DCBPFD_CONF" attach nosuch0 2>&1)
rc=$?
[ $rc = 1 ] && [[ "$out" == *"'nosuch0' not found in network namespace '$NS'"* ]] &&
	t_pass "intcfg: dcbpf attach of a missing interface exits 1 naming it" ||
	t_fail "intcfg: dcbpf attach of a missing interface" "rc=$rc: $out"

# ---- reload: add, keep, remove -------------------------------------------------------------
set_ifaces "va0 vb0"
reload
if attached vb0 && [ "$(ids va0)" = "$va0_ids" ] && [ "$(ids wa0)" = "$wa0_ids" ]; then
	t_pass "intcfg: reload attaches vb0; va0 and the run-time wa0 keep their ids"
else
	t_fail "intcfg: reload adds" "vb0='$(ids vb0)' va0 '$va0_ids' -> '$(ids va0)' wa0 '$wa0_ids' -> '$(ids wa0)'"
fi
vb0_ids=$(ids vb0)
set_ifaces "vb0"
reload
if detached va0 && [ "$(ids vb0)" = "$vb0_ids" ] && [ "$(ids wa0)" = "$wa0_ids" ]; then
	t_pass "intcfg: reload detaches va0 (no longer named); vb0 and wa0 untouched"
else
	t_fail "intcfg: reload removes" "va0='$(ids va0)' vb0 '$vb0_ids' -> '$(ids vb0)' wa0 '$wa0_ids' -> '$(ids wa0)'"
fi

# ---- bad reloads keep the running state ------------------------------------------------------
set_ifaces "va0 thisnameiswaytoolong"
reload
line=$(grep -n '^interfaces = ' "$DCBPFD_CONF" | cut -d: -f1)
if grep -q "$DCBPFD_CONF:$line: \[int\] interfaces = va0 thisnameiswaytoolong: 'thisnameiswaytoolong' is not an interface name" "$LOG" &&
	detached va0 && [ "$(ids vb0)" = "$vb0_ids" ]; then
	t_pass "intcfg: a bad interfaces line in a reload is named (line $line) and nothing changes"
else
	t_fail "intcfg: bad interfaces line in a reload" "va0='$(ids va0)' vb0='$(ids vb0)'; $(tail -n 3 "$LOG" | tr '\n' ' ')"
fi
set_ifaces "va0 vb0"
sed -i "s/^netns = .*/netns = nosuch-$$/" "$DCBPFD_CONF"
reload
if grep -q "reload: \[int\] netns = nosuch-$$: network namespace 'nosuch-$$' not found" "$LOG" &&
	detached va0 && [ "$(ids vb0)" = "$vb0_ids" ]; then
	t_pass "intcfg: a reload naming a missing namespace is refused, nothing changes"
else
	t_fail "intcfg: reload with a missing namespace" "va0='$(ids va0)'; $(tail -n 3 "$LOG" | tr '\n' ' ')"
fi
sed -i "s/^netns = .*/netns = $NS/; s/^interfaces = .*/interfaces = vb0/" "$DCBPFD_CONF"

# ---- kill -9, restart: adopted, not attached again -----------------------------------------
kill -KILL "$DCBPFD_PID"
wait "$DCBPFD_PID" 2>/dev/null
[ "$(ids vb0)" = "$vb0_ids" ] && [ "$(ids wa0)" = "$wa0_ids" ] &&
	t_pass "intcfg: after kill -9 the programs stay attached" ||
	t_fail "intcfg: after kill -9 the programs stay attached" "vb0='$(ids vb0)' wa0='$(ids wa0)'"
LOG=${DCBPFD_CONF%.conf}.2.log
"$D" -c "$DCBPFD_CONF" --keep >"$LOG" 2>&1 &
DCBPFD_PID=$!
if wait_until 15 grep -q "ready:" "$LOG" && grep -q "vb0: INT programs already attached.*adopted" "$LOG" &&
	! grep -q "INT programs attached" "$LOG" && [ "$(ids vb0)" = "$vb0_ids" ] && [ "$(ids wa0)" = "$wa0_ids" ]; then
	t_pass "intcfg: restart adopts the attachments (same ids, nothing attached again)"
else
	t_fail "intcfg: restart adopts" "vb0 '$vb0_ids' -> '$(ids vb0)'; $(grep -E 'INT|error' "$LOG" | tr '\n' ' ')"
fi

# ---- --keep keeps, a later stop detaches everything --------------------------------------------
kill -TERM "$DCBPFD_PID"
wait "$DCBPFD_PID" 2>/dev/null
[ "$(ids vb0)" = "$vb0_ids" ] && [ "$(ids wa0)" = "$wa0_ids" ] && grep -qw theta_powertcp "$AVAIL" &&
	t_pass "intcfg: a stop with --keep leaves the programs attached and the CCs registered" ||
	t_fail "intcfg: a stop with --keep keeps" "vb0='$(ids vb0)' wa0='$(ids wa0)'"
LOG=${DCBPFD_CONF%.conf}.3.log
"$D" -c "$DCBPFD_CONF" >"$LOG" 2>&1 &
DCBPFD_PID=$!
wait_until 15 grep -q "ready:" "$LOG"
links=$(for i in $vb0_ids $wa0_ids; do echo "$i"; done)
kill -TERM "$DCBPFD_PID"
wait "$DCBPFD_PID" 2>/dev/null
src=$?
DCBPFD_PID=""
gone=1
for i in $links; do
	bpftool link show id "$i" >/dev/null 2>&1 && gone=0
	bpftool prog show id "$i" -j 2>/dev/null | grep -q dc_int_h && gone=0
done
if [ $src = 0 ] && [ $gone = 1 ] && detached vb0 && detached wa0 && [ ! -e "$DCBPFD_PIN" ] && ! grep -qw powertcp "$AVAIL"; then
	t_pass "intcfg: a stop without --keep detaches the configured and the run-time interfaces, pin dir gone"
else
	t_fail "intcfg: stop detaches" "rc=$src gone=$gone vb0='$(ids vb0)' wa0='$(ids wa0)' pin=$(ls -R "$DCBPFD_PIN" 2>&1 | xargs)"
fi
exit 0
