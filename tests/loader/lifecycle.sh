# Lifecycle test: what an operator's host does to dcbpfd.
#  (a) SIGKILL while a SIGHUP reload is under way: the CCs stay registered
#      through the pinned links, a restart with the same config adopts them
#      (same ids), the live config equals the file again, and a final clean
#      stop leaves no link or map of ours in the kernel;
#  (b) a flood of short connections with unique 4-tuples: dc_cc_flows never
#      holds more than max_entries, a long flow's entry keeps updating, and
#      released flows leave no entries behind;
#  (c) after the adopting restart the pin dir is still 0700 and a non-root
#      `dcbpf set` / `dcbpf metrics` fail clearly without changing anything
#      (tests/loader/dcbpfd.sh covers 0700 at first start and non-root get).
# The daemon comes from tests/lib/dcbpfd.sh (own pin dir, own lock file).
# Never sets a netns or global default CC: sockets choose the CC themselves.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/dcbpfd.sh

C=$BUILD/dcbpf
FLOOD=$BUILD/tools/connflood
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
NS=dcbpf-lc$$
LONG_PORT=5301
FLOOD_N=${FLOOD_N:-20000}
PIDS=""

cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	dcbpfd_stop
}
t_cleanup cleanup

registered() { grep -qw "$1" "$AVAIL"; }
both_registered() { registered powertcp && registered theta_powertcp; }
none_registered() { ! registered powertcp && ! registered theta_powertcp; }
metric() { # NAME: value of an unlabelled sample of `dcbpf metrics`
	"$C" -c "$DCBPFD_CONF" metrics | awk -v m="$1" '$1 == m { print $2 }'
}

for b in "$C" "$BUILD/dcbpfd" "$FLOOD"; do
	[ -x "$b" ] || { t_fail "lifecycle: binaries built" "$b missing (run make)"; exit 1; }
done
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "STRUCT 'bpf_struct_ops_link'"; then
	KIND="link"
	reg_ids() { # ids of both pinned registrations
		local r
		for r in link_powertcp link_theta_ptcp; do
			bpftool link show pinned "$DCBPFD_PIN/$r" -j 2>/dev/null | jq -r .id
		done | xargs
	}
else
	KIND="struct_ops_map"
	reg_ids() {
		local r
		for r in dc_powertcp dc_theta_ptcp; do
			bpftool map show pinned "$DCBPFD_PIN/$r" -j 2>/dev/null | jq -r .id
		done | xargs
	}
fi

# ---- (a) SIGKILL during a reload, restart, adopt, clean stop --------------------------
links_before=$(bpftool link list -j | jq length)
maps_before=$(bpftool map list -j | jq length)
if ! dcbpfd_start "gamma = 0.7" "base_rtt_us = 55"; then
	t_fail "lifecycle: dcbpfd starts" "$DCBPFD_ERR"
	exit 1
fi
wait_until 10 grep -q "ready:" "${DCBPFD_CONF%.conf}.log"
ids1=$(reg_ids)
# every map id pinned under the pin dir, to look for after the final stop
map_ids=$(for f in "$DCBPFD_PIN"/dc_*; do bpftool map show pinned "$f" -j 2>/dev/null | jq -r .id; done | tr '\n' ' ')
"$C" --pin-dir "$DCBPFD_PIN" set powertcp.gamma=0.5 >/dev/null # live only, not in the file

sed -i 's/^gamma = 0.7$/gamma = 0.6/' "$DCBPFD_CONF"
kill -HUP "$DCBPFD_PID"
kill -KILL "$DCBPFD_PID"
wait "$DCBPFD_PID" 2>/dev/null
both_registered && [ -e "$DCBPFD_PIN/dc_cc_cfg" ] && [ "$(reg_ids)" = "$ids1" ] &&
	t_pass "lifecycle: after SIGKILL during SIGHUP the CCs stay registered (pinned $KIND ids $ids1)" ||
	t_fail "lifecycle: after SIGKILL during SIGHUP the CCs stay registered" "ids '$ids1' -> '$(reg_ids)' avail=$(cat "$AVAIL")"
out=$("$C" -c "$DCBPFD_CONF" status 2>&1)
[[ "$out" == *"not running"* ]] && [[ "$out" == *"powertcp "*"yes"* ]] &&
	t_pass "lifecycle: status: daemon not running, CCs registered" ||
	t_fail "lifecycle: status: daemon not running, CCs registered" "$(echo "$out" | head -n 8 | tr '\n' ' ')"

LOG2=${DCBPFD_CONF%.conf}.2.log
"$BUILD/dcbpfd" -c "$DCBPFD_CONF" >"$LOG2" 2>&1 &
DCBPFD_PID=$!
if wait_until 15 grep -q "ready:" "$LOG2" && grep -q "adopted pinned state" "$LOG2" &&
	[ "$(reg_ids)" = "$ids1" ] && ! grep -q "loaded powertcp" "$LOG2"; then
	t_pass "lifecycle: restart with the same config adopts (same $KIND ids, nothing loaded)"
else
	t_fail "lifecycle: restart with the same config adopts" "ids '$ids1' -> '$(reg_ids)'; $(grep -E 'adopt|loaded|error|stale' "$LOG2" | tr '\n' ' ')"
fi
# the live config is the file's again: every key the file sets, both CCs
bad=""
for cc in powertcp theta_powertcp; do
	for kv in gamma=0.6 base_rtt_us=55; do
		v=$("$C" --pin-dir "$DCBPFD_PIN" get "$cc.${kv%%=*}")
		[ "$v" = "${kv#*=}" ] || bad="$bad $cc.${kv%%=*}=$v"
	done
done
[ -z "$bad" ] && t_pass "lifecycle: after the restart dcbpf get equals the config file" ||
	t_fail "lifecycle: after the restart dcbpf get equals the config file" "$bad"

# ---- (c) permissions after the restart -----------------------------------------------------
perm=$(stat -c %a "$DCBPFD_PIN")
[ "$perm" = 700 ] && t_pass "lifecycle: pin dir still 0700 after an adopting restart" ||
	t_fail "lifecycle: pin dir still 0700 after an adopting restart" "$perm"
before=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_cfg" -j)
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$C" --pin-dir "$DCBPFD_PIN" set powertcp.gamma=0.3 2>&1)
rc=$?
after=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_cfg" -j)
[ $rc = 1 ] && [[ "$out" == *"must be root"* ]] && [ "$before" = "$after" ] &&
	t_pass "lifecycle: non-root dcbpf set exits 1 saying it must be root, nothing changed" ||
	t_fail "lifecycle: non-root dcbpf set exits 1 saying it must be root, nothing changed" "rc=$rc: $out"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$C" --pin-dir "$DCBPFD_PIN" metrics 2>&1)
rc=$?
[ $rc = 1 ] && [[ "$out" == *"must be root"* ]] &&
	t_pass "lifecycle: non-root dcbpf metrics exits 1 saying it must be root" ||
	t_fail "lifecycle: non-root dcbpf metrics exits 1 saying it must be root" "rc=$rc: $out"
t_expect_fail "lifecycle: non-root cannot open a pinned map" \
	setpriv --reuid=65534 --regid=65534 --clear-groups bpftool map show pinned "$DCBPFD_PIN/dc_cc_cfg"

# ---- (b) connection flood against the LRU-bounded dc_cc_flows ---------------------------------
ip netns add "$NS" && ip -n "$NS" link set lo up
ip netns exec "$NS" iperf3 -s -p $LONG_PORT >/dev/null 2>&1 &
PIDS="$PIDS $!"
sleep 0.5
# Long enough to outlast the flood on an emulated guest (over a minute
# there); stopped below once the flood is done.
ip netns exec "$NS" iperf3 -c 127.0.0.1 -p $LONG_PORT -C powertcp -b 100M -t 600 >/dev/null 2>&1 &
IPERF=$!
PIDS="$PIDS $IPERF"
long_acks() { # acks of the long flow's busiest entry (the data stream)
	"$C" --pin-dir "$DCBPFD_PIN" --json dump flows |
		jq "[.[] | select(.dst == \"127.0.0.1:$LONG_PORT\" and .cc == \"powertcp\") | .acks] | max // 0"
}
for _ in $(seq 1 50); do [ "$(long_acks)" -gt 0 ] && break; sleep 0.2; done
max_entries=$(metric dcbpf_cc_flows_max_entries)
init0=$("$C" --pin-dir "$DCBPFD_PIN" --json dump stats | jq .theta_powertcp.flows_init)
a1=$(long_acks)
ip netns exec "$NS" "$FLOOD" -n "$FLOOD_N" -k 1000 -c theta_powertcp >"${DCBPFD_CONF%.conf}.flood" 2>&1 &
FPID=$!
PIDS="$PIDS $FPID"
peak=0
while kill -0 "$FPID" 2>/dev/null; do
	n=$(metric dcbpf_cc_flows_entries)
	[ -n "$n" ] && [ "$n" -gt "$peak" ] && peak=$n
	sleep 0.2
done
wait "$FPID"
frc=$?
PIDS=${PIDS// $FPID/}
a2=$(long_acks)
init1=$("$C" --pin-dir "$DCBPFD_PIN" --json dump stats | jq .theta_powertcp.flows_init)
flood=$(cat "${DCBPFD_CONF%.conf}.flood")
[ $frc = 0 ] && [ $((init1 - init0)) -ge "$FLOOD_N" ] &&
	t_pass "lifecycle: flood of $FLOOD_N unique-tuple connections ran through theta_powertcp ($((init1 - init0)) flows initialised; $flood)" ||
	t_fail "lifecycle: flood of $FLOOD_N unique-tuple connections ran through theta_powertcp" "rc=$frc init $init0 -> $init1: $flood"
[ -n "$max_entries" ] && [ "$max_entries" -gt 0 ] && [ "$peak" -le "$max_entries" ] && [ "$peak" -gt 1 ] &&
	t_pass "lifecycle: dc_cc_flows stayed within max_entries during the flood (peak $peak of $max_entries)" ||
	t_fail "lifecycle: dc_cc_flows stayed within max_entries during the flood" "peak=$peak max=$max_entries"
[ "$a1" -gt 0 ] && [ "$a2" -gt "$a1" ] && kill -0 "$IPERF" 2>/dev/null &&
	t_pass "lifecycle: the long flow's entry kept updating during the flood (acks $a1 -> $a2)" ||
	t_fail "lifecycle: the long flow's entry kept updating during the flood" "acks $a1 -> $a2"
kill -TERM "$IPERF" 2>/dev/null
wait "$IPERF" 2>/dev/null
PIDS=${PIDS// $IPERF/}
wait_until 5 bash -c "[ \"\$('$C' --pin-dir '$DCBPFD_PIN' metrics | awk '\$1 == \"dcbpf_cc_flows_entries\" { print \$2 }')\" -le 2 ]"
left=$(metric dcbpf_cc_flows_entries)
[ "$left" -le 2 ] && t_pass "lifecycle: released flows leave no dc_cc_flows entries ($left left)" ||
	t_fail "lifecycle: released flows leave no dc_cc_flows entries" "$left entries left"

# ---- metrics: well-formed text format, textfile written atomically ------------------------------
TF=$(mktemp -d /tmp/dcbpf-metrics-XXXXXX)
if "$C" -c "$DCBPFD_CONF" metrics --textfile "$TF/dcbpf.prom" && [ ! -e "$TF/dcbpf.prom.tmp" ] &&
	grep -q '^dcbpf_cc_acks_total{cc="powertcp"} [1-9]' "$TF/dcbpf.prom" &&
	grep -q '^dcbpf_cc_flows{cc="theta_powertcp",mode="theta"} ' "$TF/dcbpf.prom" &&
	grep -q '^# TYPE dcbpf_cc_acks_total counter$' "$TF/dcbpf.prom" &&
	grep -q '^dcbpf_daemon_up 1$' "$TF/dcbpf.prom"; then
	t_pass "lifecycle: dcbpf metrics --textfile writes the counters (no .tmp left)"
else
	t_fail "lifecycle: dcbpf metrics --textfile writes the counters" "$(head -n 5 "$TF/dcbpf.prom" 2>&1 | tr '\n' ' ')"
fi
# every sample belongs to the family announced last, each family once
bad=$(awk '/^# TYPE /{ if (seen[$3]++) print "dup " $3; fam = $3; next }
	/^#/ { next }
	{ n = $1; sub(/\{.*/, "", n); if (n != fam) print "stray " n }' "$TF/dcbpf.prom")
[ -z "$bad" ] && t_pass "lifecycle: metrics families are grouped and announced once" ||
	t_fail "lifecycle: metrics families are grouped and announced once" "$(echo "$bad" | head -n 3 | tr '\n' ' ')"
rm -rf "$TF"

# ---- final clean stop: nothing of ours left ------------------------------------------------------
pin=$DCBPFD_PIN
kill -TERM "$DCBPFD_PID"
wait_until 10 bash -c "! kill -0 $DCBPFD_PID 2>/dev/null"
wait "$DCBPFD_PID" 2>/dev/null
src=$?
DCBPFD_PID=""
gone() { # none of our link or map ids exists any more
	local id
	for id in $ids1; do
		if [ "$KIND" = link ]; then bpftool link show id "$id" >/dev/null 2>&1 && return 1; fi
	done
	for id in $map_ids; do bpftool map show id "$id" >/dev/null 2>&1 && return 1; done
	return 0
}
if [ "$src" = 0 ] && none_registered && [ ! -e "$pin" ] && wait_until 10 gone; then
	t_pass "lifecycle: clean stop after adoption: CCs unregistered, pins gone, our link and map ids freed"
else
	t_fail "lifecycle: clean stop after adoption" "rc=$src avail=$(cat "$AVAIL") pin=$(ls "$pin" 2>&1 | tr '\n' ' ')"
fi
# Whole-kernel counts are informative only: other users may load programs meanwhile.
wait_until 5 bash -c "[ \$(bpftool link list -j | jq length) -le $links_before ]"
links_after=$(bpftool link list -j | jq length)
maps_after=$(bpftool map list -j 2>/dev/null | jq length)
[ "$links_after" -le "$links_before" ] &&
	t_pass "lifecycle: bpftool link list: $links_before links before, $links_after after (maps $maps_before -> $maps_after)" ||
	t_fail "lifecycle: bpftool link list back to its count" "links $links_before -> $links_after, maps $maps_before -> $maps_after"
exit 0
