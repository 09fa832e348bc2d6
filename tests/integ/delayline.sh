# Integration: the delay line (tests/tools/delayline.c) on the fabric's
# bottleneck link (FAB_DELAY_US, fabric_make_wire). Checks: bad arguments are
# refused with a message and exit 2 (a missing device: exit 1); the ping RTT
# grows by the configured delay (500 us, 1 ms) within a stated tolerance; a
# TCP flow reaches the TBF rate through a 1 ms delay, and a window below the
# bandwidth-delay product cannot; the frames that cross the delay line are
# bit for bit the frames that entered it (captured on both sides, IP options
# included, none lost or reordered); both directions delayed (-2) add
# twice the delay and carry TCP's GSO frames; a ring too small for the delay
# drops and counts; teardown removes the wire namespace and the process.
# host-suite: the delay line is a user-space process over AF_PACKET and the TBF qdisc; it loads
# no BPF program, and the experiments that use it (FAB_DELAY_US) run on the host.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

W=$OUT/integ-delayline
mkdir -p "$W" "$BUILD/tools"
DL=$BUILD/tools/delayline
RATE=1000
# Tolerance of the RTT increase over the configured delay, µs: the delay is
# never shorter (-TOL_LO only absorbs the noise of the two ping averages);
# it is longer by the tool's wake-up latency (docs/fabric.md, "Delay line").
TOL_LO=60 TOL_HI=350
# Under emulation (vm/run sets DCBPF_VM=1) every wake-up and every packet
# costs far more: the TBF runs at a tenth of the rate and the RTT may grow
# by up to 1.5 ms more than configured.
if [ "${DCBPF_VM:-0}" = 1 ]; then
	RATE=100 TOL_LO=300 TOL_HI=1500
fi

for c in iperf3 jq ping; do
	command -v $c >/dev/null || { t_fail "delayline: prerequisites" "'$c' missing: apt-get install -y iperf3 jq iputils-ping"; exit 1; }
done
if [ ! -x "$DL" ] || [ tests/tools/delayline.c -nt "$DL" ]; then
	gcc -O2 -Wall -Wextra -o "$DL" tests/tools/delayline.c ||
		{ t_fail "delayline: build" "gcc failed on tests/tools/delayline.c"; exit 1; }
fi
export FAB_DELAYLINE=$DL

# ---- 1. arguments ----------------------------------------------------------
# expect_rc NAME RC PATTERN ARGS...: the tool exits RC and says PATTERN.
expect_rc() {
	local name=$1 want=$2 pat=$3 rc msg
	shift 3
	msg=$("$DL" "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pat" <<<"$msg"; then
		t_pass "delayline: refuses $name (exit $rc: $(head -n 1 <<<"$msg"))"
	else
		t_fail "delayline: refuses $name" "exit $rc (want $want), message: $(head -n 2 <<<"$msg" | tr '\n' ' ')"
	fi
}
expect_rc "no arguments" 2 "are required"
expect_rc "a delay that is not a number" 2 "whole number of microseconds" -i a -o b -d 1ms
expect_rc "a negative delay" 2 "whole number of microseconds" -i a -o b -d -5
expect_rc "a delay above 10 s" 2 "0..10000000" -i a -o b -d 10000001
expect_rc "a ring below 256 KiB" 2 "ring size" -i a -o b -d 100 -m 1000
expect_rc "the same device twice" 2 "same device" -i lo -o lo -d 100
expect_rc "an unknown option" 2 "usage" -i a -o b -d 100 -x
expect_rc "a device that does not exist" 1 "not found in this network namespace" -i nosuchdev0 -o lo -d 100

# ---- 2. RTT grows by the delay -------------------------------------------------
# ping_avg_us NS IP: median RTT of 50 pings 10 ms apart, µs (the median:
# one ping caught in a stall of the shared cores moves an average by
# tens of µs, not the delay line's own latency).
ping_avg_us() {
	fabric_exec "$1" ping -c 50 -i 0.01 "$2" | sed -nE 's/.*time=([0-9.]+) ms.*/\1/p' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.0f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) * 1000 }'
}
# leftovers ID: namespaces and root-namespace links carrying the id.
leftovers() {
	{ ip netns list | awk -v p="$1-" 'index($1, p) == 1 {print "netns " $1}'
	  ip -o link show | awk -F': ' -v p="$1" 'index($2, p) == 1 {print "link " $2}'; } | tr '\n' ' '
}

if ! FAB_DELAY_US=0 fabric_dumbbell 1 $RATE 1000000 || ! fabric_ping_all; then
	t_fail "delayline: plain dumbbell (baseline)" "fabric_dumbbell failed"
	exit 1
fi
base=$(ping_avg_us "${FAB_SENDERS[0]}" "$FAB_RECV_IP")
n=$(ip netns list | grep -c "^${FAB_ID}-w")
if [ "$n" = 0 ]; then t_pass "delayline: FAB_DELAY_US=0 builds no wire namespace (baseline RTT ${base} us)"
else t_fail "delayline: FAB_DELAY_US=0 builds no wire namespace" "$n wire namespaces"; fi
fabric_teardown

for d in 500 1000; do
	export FAB_WIRE_STATS=$W/d$d-
	if ! FAB_DELAY_US=$d fabric_dumbbell 1 $RATE 1000000 || ! fabric_ping_all; then
		t_fail "delayline: dumbbell with a $d us delay line comes up" "fabric_dumbbell or ping failed"
		fabric_teardown
		continue
	fi
	rtt=$(ping_avg_us "${FAB_SENDERS[0]}" "$FAB_RECV_IP")
	[ "$d" = 1000 ] && RTT1000=$rtt
	grow=$((rtt - base))
	if [ "$grow" -ge $((d - TOL_LO)) ] && [ "$grow" -le $((d + TOL_HI)) ]; then
		t_pass "delayline: RTT grows by $grow us with a $d us delay (${base} -> ${rtt} us; allowed $((d - TOL_LO))..$((d + TOL_HI)))"
	else
		t_fail "delayline: RTT grows by the delay" "D = $d us: ping median ${base} -> ${rtt} us, +$grow, allowed $((d - TOL_LO))..$((d + TOL_HI))"
	fi
	fabric_teardown
done

# ---- 3. TCP through a 1 ms delay -------------------------------------------
export FAB_WIRE_STATS=$W/tcp-
if ! FAB_DELAY_US=1000 fabric_dumbbell 1 $RATE 1000000 || ! fabric_ping_all; then
	t_fail "delayline: dumbbell with a 1 ms delay line comes up" "fabric_dumbbell or ping failed"
	exit 1
fi
S0=${FAB_SENDERS[0]}
fabric_bg "$FAB_RECV" iperf3 -s -p 5201 -B "$FAB_RECV_IP" >"$W/iperf3-server.log" 2>&1
fabric_wait_port "$FAB_RECV" 5201 || t_fail "delayline: iperf3 server" "did not start"
# The BDP at 1 ms + ~60 µs is ~133 kB at 1 Gbit/s: autotuned buffers grow
# past it.
gp() { jq -r '.end.sum_received.bits_per_second / 1e6 | floor' "$1" 2>/dev/null || echo 0; }
fabric_exec "$S0" iperf3 -c "$FAB_RECV_IP" -p 5201 -C cubic -t 4 -J >"$W/iperf-bulk.json" 2>&1
g=$(gp "$W/iperf-bulk.json")
lo=$((RATE * 85 / 100))
if [ "$g" -ge "$lo" ]; then t_pass "delayline: TCP reaches the TBF rate through a 1 ms delay ($g Mbit/s of $RATE, >= $lo)"
else t_fail "delayline: TCP reaches the TBF rate through a 1 ms delay" "$g Mbit/s, want >= $lo"; fi
# A window below the BDP: the socket buffers are WIN (the kernel doubles
# them), so at most 2 x WIN is in flight per RTT: goodput <= 2·WIN·8/RTT,
# and at most half the rate. (At the VM's 100 Mbit/s a 16 KiB window
# already covers the BDP; 4 KiB does not.)
WIN=16
[ "${DCBPF_VM:-0}" = 1 ] && WIN=4
rtt1=${RTT1000:-1000}
cap=$((2 * WIN * 1024 * 8 / rtt1))	# bits per µs = Mbit/s
[ "$cap" -gt $((RATE / 2)) ] && cap=$((RATE / 2))
fabric_exec "$S0" iperf3 -c "$FAB_RECV_IP" -p 5201 -C cubic -t 3 -w ${WIN}K -J >"$W/iperf-small.json" 2>&1
g2=$(gp "$W/iperf-small.json")
if [ "$g2" -gt 0 ] && [ "$g2" -le "$cap" ]; then
	t_pass "delayline: a $WIN KiB window is held to window/RTT ($g2 Mbit/s, <= $cap = 2 x $WIN KiB / $rtt1 us)"
else
	t_fail "delayline: a window below the BDP is held to window/RTT" "$g2 Mbit/s with -w ${WIN}K, want 1..$cap (2 x $WIN KiB / $rtt1 us, at most half the rate)"
fi
st=$(fabric_wire_stats 0)
if jqe '.directions[0] | .frames_in > 1000 and .frames_in == .frames_out + .queued and .dropped_ring == 0 and .dropped_socket == 0 and .tx_errors == 0' <<<"$st" >/dev/null; then
	t_pass "delayline: every ACK crossed, none dropped ($(jq -c '.directions[0] | {frames_in, frames_out, late_us}' <<<"$st"))"
else
	t_fail "delayline: counters after TCP" "$st"
fi

# ---- 4. frames cross unchanged -----------------------------------------------
# Capture what the receiver sends (before the wire) and what reaches the
# switch (after it): ICMP replies carrying a record-route IP option and the
# ACKs of a TCP transfer. Same bytes, same order, nothing missing.
if command -v dumpcap >/dev/null && command -v tshark >/dev/null; then
	filt="src host $FAB_RECV_IP"
	fabric_bg "$FAB_RECV" dumpcap -q -P -i "$FAB_RECV_DEV" -f "$filt" -w "$W/before.pcap" 2>"$W/dumpcap-before.log"
	c1=$FAB_LAST_PID
	fabric_bg "$FAB_SWITCH" dumpcap -q -P -i "$FAB_BN_DEV" -f "$filt" -w "$W/after.pcap" 2>"$W/dumpcap-after.log"
	c2=$FAB_LAST_PID
	wait_until 10 grep -q Capturing "$W/dumpcap-before.log" && wait_until 10 grep -q Capturing "$W/dumpcap-after.log"
	rr=$(fabric_exec "$S0" ping -R -c 5 -i 0.05 "$FAB_RECV_IP" 2>&1)
	fabric_exec "$S0" iperf3 -c "$FAB_RECV_IP" -p 5201 -n 8M >/dev/null 2>&1
	sleep 0.5	# the last frames are still on the wire for 1 ms
	kill -INT "$c1" "$c2"
	wait "$c1" "$c2" 2>/dev/null
	# Order is compared per flow: the receiver's ACKs (softirq) and its
	# control connection (process) leave on different CPUs, and the
	# capture tap of a veth sees two CPUs' frames in an order the wire
	# need not share. Within one flow the order is the wire's, except for
	# resets: the kernel answers a segment to a closed socket from its
	# own reply socket, on whichever CPU took the segment, beside the
	# socket's own RST; resets are compared as a set.
	byflow() {
		timeout 120 tshark -r "$1" -o tcp.desegment_tcp_streams:FALSE -T jsonraw 2>/dev/null | jq -r '.[]._source.layers.frame_raw[0]' |
			awk '{ ihl = substr($0, 30, 1); proto = substr($0, 47, 2)
			       l4 = 28 + 8 * (index("56789abcdef", ihl) + 4)
			       key = proto "-" substr($0, 61, 8)
			       if (proto == "06" || proto == "11") key = key "-" substr($0, l4 + 1, 8)
			       # TCP flags: the low digit of byte 13; RST = 0x04
			       if (proto == "06" && index("4567cdef", substr($0, l4 + 28, 1))) key = key "-rst-" $0
			       print key, $0 }' | sort -s -k1,1
	}
	byflow "$W/before.pcap" >"$W/before.hex"
	byflow "$W/after.pcap" >"$W/after.hex"
	nb=$(wc -l <"$W/before.hex") na=$(wc -l <"$W/after.hex")
	nflows=$(cut -d' ' -f1 "$W/before.hex" | sort -u | wc -l)
	# IPv4 header length > 5 words: frames with IP options (46 = 0x46…)
	nopt=$(grep -c '^[^ ]* .\{28\}4[6-9a-f]' "$W/before.hex")
	if [ "$nb" -gt 100 ] && [ "$nopt" -ge 5 ] && [ "$nflows" -ge 3 ] && cmp -s "$W/before.hex" "$W/after.hex"; then
		t_pass "delayline: $nb frames of $nflows flows ($nopt with IP options) arrive bit for bit, each flow in order, none missing"
	else
		t_fail "delayline: frames cross unchanged" "before $nb frames of $nflows flows ($nopt with options), after $na; first difference: $(cmp "$W/before.hex" "$W/after.hex" 2>&1 | head -n 1)"
	fi
	if grep -q '^RR:' <<<"$rr" && grep -q "$FAB_RECV_IP" <<<"$rr"; then
		t_pass "delayline: record-route replies come back through it ($(grep -m1 -A3 '^RR:' <<<"$rr" | tr -s ' \t\n' ' '))"
	else
		t_fail "delayline: record-route replies" "$(tail -n 4 <<<"$rr" | tr '\n' ' ')"
	fi
else
	t_fail "delayline: frames cross unchanged" "dumpcap/tshark missing: apt-get install -y tshark"
fi
wid=$FAB_ID wns=${FAB_WIRE_NS[0]} wpid=${FAB_WIRE_PIDS[0]}
fabric_teardown
left=$(leftovers "$wid")
if [ -z "$left" ] && ! kill -0 "$wpid" 2>/dev/null && ! ip netns list | grep -q "^$wns"; then
	t_pass "delayline: teardown removes the wire namespace $wns and the delay line (pid $wpid)"
else
	t_fail "delayline: teardown" "left: $left; pid $wpid alive: $(kill -0 "$wpid" 2>/dev/null && echo yes || echo no)"
fi
if jqe '.directions[0].frames_in > 0' "$W/tcp-w0.json" >/dev/null 2>&1 &&
	[ "$(jq -s 'length' "$W/tcp-w0.json")" -ge 2 ]; then
	t_pass "delayline: SIGUSR1 and SIGTERM each print the counters as JSON"
else
	t_fail "delayline: counters as JSON" "$W/tcp-w0.json: $(tail -c 300 "$W/tcp-w0.json")"
fi

# ---- 4b. both directions (-2): the data path through user space too --------
# Data frames are GSO frames up to FAB_GSO_MAX; they must cross whole (the
# virtio header keeps their GSO type) and the RTT grows by twice the delay.
export FAB_WIRE_STATS=$W/both-
if FAB_DELAY_US=500 FAB_DELAY_DIR=both fabric_dumbbell 1 $RATE 1000000 && fabric_ping_all; then
	rtt=$(ping_avg_us "${FAB_SENDERS[0]}" "$FAB_RECV_IP")
	grow=$((rtt - base))
	if [ "$grow" -ge $((1000 - TOL_LO)) ] && [ "$grow" -le $((1000 + 2 * TOL_HI)) ]; then
		t_pass "delayline: both directions, 500 us each: RTT grows by $grow us (allowed $((1000 - TOL_LO))..$((1000 + 2 * TOL_HI)))"
	else
		t_fail "delayline: both directions: RTT grows by twice the delay" "+$grow us, allowed $((1000 - TOL_LO))..$((1000 + 2 * TOL_HI))"
	fi
	fabric_bg "$FAB_RECV" iperf3 -s -p 5201 -B "$FAB_RECV_IP" >"$W/iperf3-server-both.log" 2>&1
	fabric_wait_port "$FAB_RECV" 5201
	fabric_exec "${FAB_SENDERS[0]}" iperf3 -c "$FAB_RECV_IP" -p 5201 -C cubic -t 3 -J >"$W/iperf-both.json" 2>&1
	g=$(gp "$W/iperf-both.json")
	st=$(fabric_wire_stats 0)
	if [ "$g" -ge $((RATE / 2)) ] &&
		jqe '[.directions[] | .frames_in == .frames_out + .queued and .dropped_trunc == 0 and .tx_errors == 0] | all' <<<"$st" >/dev/null; then
		t_pass "delayline: both directions carry TCP ($g Mbit/s; $(jq -c '[.directions[] | {frames_out, bytes_out, late_us: .late_us.p99}]' <<<"$st"))"
	else
		t_fail "delayline: both directions carry TCP" "$g Mbit/s (want >= $((RATE / 2))); $st"
	fi
else
	t_fail "delayline: both directions come up" "fabric_dumbbell with FAB_DELAY_DIR=both failed"
fi
fabric_teardown

# ---- 5. overflow: a ring smaller than what is in flight -----------------------
# 200 ms of delay, a 256 KiB ring, 1 s of UDP at a fifth of the rate from the
# receiver (the delayed direction): 5 MB/s x 0.2 s = 1 MB would be in flight.
export FAB_WIRE_STATS=$W/ovf-
if FAB_DELAY_US=200000 FAB_DELAYLINE_OPTS="-m 262144" fabric_dumbbell 1 $RATE 1000000 &&
	fabric_exec "${FAB_SENDERS[0]}" ping -c 1 -W 2 -q "$FAB_RECV_IP" >/dev/null; then
	fabric_bg "${FAB_SENDERS[0]}" iperf3 -s -p 5202 -B "${FAB_SENDER_IPS[0]}" >"$W/ovf-server.log" 2>&1
	fabric_wait_port "${FAB_SENDERS[0]}" 5202
	fabric_exec "$FAB_RECV" iperf3 -c "${FAB_SENDER_IPS[0]}" -p 5202 -u -b $((RATE / 5))M -l 1400 -t 1 >"$W/ovf-udp.log" 2>&1
	st=$(fabric_wire_stats 0)
	if jqe '.directions[0] | .dropped_ring > 100 and .frames_in == .frames_out + .queued + .dropped_ring and .ring_used_max_bytes <= 262144' <<<"$st" >/dev/null; then
		t_pass "delayline: a full ring drops and counts ($(jq -c '.directions[0] | {frames_in, frames_out, dropped_ring, ring_used_max_bytes}' <<<"$st"))"
	else
		t_fail "delayline: a full ring drops and counts" "$st"
	fi
else
	t_fail "delayline: overflow fabric comes up" "fabric_dumbbell with a 200 ms delay failed"
fi
fabric_teardown

[ -n "${T_FAILED:-}" ] && exit 1
exit 0
