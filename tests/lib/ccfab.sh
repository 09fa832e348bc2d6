# A dumbbell on which every congestion control of the PowerTCP evaluation
# can run side by side: dcbpf's switch filling INT on the bottleneck (and
# marking CE above a threshold, for DCTCP), a dcbpfd of the run's own
# registering powertcp, theta_powertcp, hpcc, timely and dctcp, with τ the
# fabric's measured base RTT; the kernel's cubic needs nothing.  Sourced
# by the experiments in tests/exp/ (ptcp_incast.sh, ptcp_fairness.sh).
#
#   source tests/lib/fabric.sh; source tests/lib/dcbpfd.sh; source tests/lib/ccfab.sh
#   ccfab_up NSENDERS RATE_MBIT BUF_BYTES LOGDIR   # fabric, daemon, INT
#   ccfab_cc_ok CC                                 # selectable now?
#   ...
#   ccfab_down                                     # everything gone
#
# Parameters, as tests/demo/run and tests/integ/baseline.sh set them:
# base_rtt_us = the ping RTT of the fabric (τ as the paper prescribes:
# PowerTCP, NSDI'22: "base-RTT set to the maximum RTT"), host_bw_mbps
# = the bottleneck rate, expected_flows = 3, TIMELY's T_low 50 µs above
# the base RTT and T_high 500 µs (TIMELY, SIGCOMM'15, §4: T_low above the
# minimum RTT).  CCFAB_ECN_K (bytes, default 30000, DCTCP's K for 1 Gbit/s
# at these RTTs) is the switch's CE threshold.  CCFAB_PARAMS replaces the
# CC lines ("key = value; key = value").  CCFAB_QUEUES=N gives every switch
# port N strict-priority queues (`switch up --queues N`; DSCP >> 3 picks one).
# Sets CCFAB_TAU_US, CCFAB_PING_US, CCFAB_ERR (on failure).
# shellcheck shell=bash

CCFAB_TAU_US="" CCFAB_PING_US="" CCFAB_ERR="" CCFAB_INT=""
CCFAB_CCS="powertcp theta_powertcp hpcc timely dctcp cubic"

ccfab_up() {
	local n=${1:?ccfab_up NSENDERS RATE BUF LOGDIR} rate=${2:?rate} buf=${3:?buffer} log=${4:?logdir}
	CCFAB_ERR=""
	mkdir -p "$log"
	# Links carry 36 bytes more than the hosts' MTU: room for the INT option.
	export FAB_INT_ROOM=36
	fabric_dumbbell "$n" "$rate" "$buf" || { CCFAB_ERR="fabric_dumbbell failed"; return 1; }
	fabric_ping_all || { CCFAB_ERR="the receiver is unreachable"; return 1; }
	_ccfab_tau "$(fabric_exec "${FAB_SENDERS[0]}" ping -c 20 -i 0.01 -q "$FAB_RECV_IP" |
		awk -F'[/ ]' '/^rtt/ {print $8 * 1000}')"
	_ccfab_daemon "$rate" "$log" || return 1
	fabric_on_exit _ccfab_int_down
	_ccfab_int_up "$rate" "$buf" >"$log/int-setup.log" 2>&1 ||
		{ CCFAB_ERR="INT setup failed: $(tail -c 300 "$log/int-setup.log")"; return 1; }
	return 0
}

# ccfab_leafspine_up L S H RATE_MBIT BUF_BYTES LOGDIR: the same on a
# leaf–spine (tests/lib/fabric.sh fabric_leafspine; uplinks and downlinks
# at RATE, hosts unshaped unless FAB_LS_HOST_MBIT): dcbpf's switch on
# every leaf and spine (dynamic thresholds, α = 1, the shared buffer
# BUF_BYTES per switch as the paper's switches, CE above CCFAB_ECN_K),
# each filling its INT hop on every port; INT on every host to every host.
# τ is the largest ping RTT between hosts on different leaves (PowerTCP,
# NSDI'22, §3.1: "base-RTT set to the maximum RTT in our topology"). The
# TBF limit is 4 × BUF_BYTES: only the admission switches drop.
ccfab_leafspine_up() {
	local L=${1:?ccfab_leafspine_up L S H RATE BUF LOGDIR} S=${2:?spines} H=${3:?hosts} rate=${4:?rate}
	local buf=${5:?buffer} log=${6:?logdir} i j r max=0
	CCFAB_ERR=""
	mkdir -p "$log"
	export FAB_INT_ROOM=36
	fabric_leafspine "$L" "$S" "$H" "$rate" $((4 * buf)) || { CCFAB_ERR="fabric_leafspine failed"; return 1; }
	fabric_leafspine_ping_all || { CCFAB_ERR="hosts unreachable"; return 1; }
	for ((i = 0; i < ${#FAB_HOSTS[@]}; i++)); do
		for ((j = 0; j < ${#FAB_HOSTS[@]}; j++)); do
			[ "${FAB_HOST_LEAF[i]}" = "${FAB_HOST_LEAF[j]}" ] && continue
			r=$(fabric_exec "${FAB_HOSTS[i]}" ping -c 5 -i 0.01 -q "${FAB_HOST_IPS[j]}" |
				awk -F'[/ ]' '/^rtt/ {printf "%.0f", $8 * 1000}')
			[ "${r:-0}" -gt "$max" ] && max=$r
		done
	done
	_ccfab_tau "$max"
	_ccfab_daemon "$rate" "$log" || return 1
	fabric_on_exit _ccfab_int_down
	_ccfab_ls_int_up "$rate" "$buf" >"$log/int-setup.log" 2>&1 ||
		{ CCFAB_ERR="INT setup failed: $(tail -c 300 "$log/int-setup.log")"; return 1; }
	return 0
}

# _ccfab_tau RTT_US: CCFAB_PING_US and CCFAB_TAU_US from a measured RTT.
_ccfab_tau() {
	CCFAB_PING_US=$(printf '%.0f' "${1:-0}")
	# A floor of 20 µs: a ping on an idle emulated link can read less than
	# any window sees.
	CCFAB_TAU_US=$((CCFAB_PING_US < 20 ? 20 : CCFAB_PING_US))
}

# _ccfab_daemon RATE LOGDIR: the run's dcbpfd with the CC parameters.
_ccfab_daemon() {
	local rate=$1 log=$2
	local -a lines
	if [ -n "${CCFAB_PARAMS:-}" ]; then
		mapfile -t lines < <(tr ';' '\n' <<<"$CCFAB_PARAMS" | sed 's/^ *//; /^$/d')
	else
		lines=("base_rtt_us = $CCFAB_TAU_US" "host_bw_mbps = $rate" "expected_flows = 3"
			"t_low_us = $((CCFAB_TAU_US + 50))" "t_high_us = 500")
	fi
	printf '%s\n' "${lines[@]}" >"$log/cc-params.txt"
	DCBPFD_DAEMON="dctcp = 1" dcbpfd_start "${lines[@]}" || { CCFAB_ERR="dcbpfd: $DCBPFD_ERR"; return 1; }
}

# The switch (complete sharing with B = the TBF limit: drop-tail as without
# it; CE above CCFAB_ECN_K) fills its hop on the bottleneck; the senders
# add the INT option, the receiver echoes it.
_ccfab_int_up() {
	local rate=$1 buf=$2 ports rates i
	ports=$(IFS=,; echo "${FAB_SW_PORTS[*]},$FAB_BN_DEV")
	rates=$(for ((i = 0; i < ${#FAB_SW_PORTS[@]}; i++)); do printf '10000,'; done; echo "$rate")
	_ccfab_switch "$FAB_SWITCH" ccfab "$ports" "$rates" alg=cs buffer_bytes="$buf" || return 1
	for ((i = 0; i < ${#FAB_SENDERS[@]}; i++)); do
		_ccfab_int_host "${FAB_SENDERS[i]}" "${FAB_SENDER_DEVS[i]}" || return 1
	done
	_ccfab_int_host "$FAB_RECV" "$FAB_RECV_DEV" && "${CCFAB_D[@]}" int dst add "$FAB_RECV_IP/32"
}

# Every port of a leaf or spine: the uplinks and downlinks at RATE, a host
# port at FAB_LS_HOST_MBIT (10 Gbit/s when hosts are unshaped: the veth is
# faster than any shaped link, its queue stays empty).
_ccfab_ls_int_up() {
	local rate=$1 buf=$2 ns dev ports rates hr=${FAB_LS_HOST_MBIT:-10000} n=0 i
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		ports="" rates=""
		for dev in $(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'); do
			ports+="${ports:+,}$dev"
			case " ${FAB_LEAF_PORTS[*]} " in *" $dev "*) rates+="${rates:+,}$hr" ;; *) rates+="${rates:+,}$rate" ;; esac
		done
		_ccfab_switch "$ns" "ccls$n" "$ports" "$rates" alg=dt alpha=1 buffer_bytes="$buf" || return 1
		n=$((n + 1))
	done
	for ((i = 0; i < ${#FAB_HOSTS[@]}; i++)); do
		_ccfab_int_host "${FAB_HOSTS[i]}" "${FAB_HOST_DEVS[i]}" || return 1
	done
	"${CCFAB_D[@]}" int dst add 10.78.0.0/16
}

# _ccfab_switch NS NAME PORTS RATES PARAMS...: dcbpf's switch with INT
# transit on every port, CE above CCFAB_ECN_K.
_ccfab_switch() {
	local ns=$1 name=$2 ports=$3 rates=$4
	shift 4
	CCFAB_D=("${BUILD:-build}/dcbpf" --pin-dir "$DCBPFD_PIN")
	CCFAB_INT=1
	"${CCFAB_D[@]}" switch up --netns "$ns" --ports "$ports" --rate-mbps "$rates" "$name" \
		${CCFAB_QUEUES:+--queues "$CCFAB_QUEUES"} "$@" ecn_k_bytes="${CCFAB_ECN_K:-30000}" || return 1
	CCFAB_SWS+=("$name")
	"${CCFAB_D[@]}" int switch attach "$name"
}

# _ccfab_int_host NS DEV: INT source, echo and sink on a host.
_ccfab_int_host() {
	CCFAB_D=("${BUILD:-build}/dcbpf" --pin-dir "$DCBPFD_PIN")
	CCFAB_INT=1
	"${CCFAB_D[@]}" int attach --netns "$1" "$2" || return 1
	CCFAB_HOSTS+=("$1 $2")
}

CCFAB_SWS=() CCFAB_HOSTS=() CCFAB_D=()
_ccfab_int_down() {
	local h sw
	[ -n "$CCFAB_INT" ] || return 0
	CCFAB_INT=""
	{
		for h in "${CCFAB_HOSTS[@]}"; do
			# shellcheck disable=SC2086  # "NS DEV"
			"${CCFAB_D[@]}" int detach --netns $h
		done
		for sw in "${CCFAB_SWS[@]}"; do
			"${CCFAB_D[@]}" int switch detach "$sw"
			"${CCFAB_D[@]}" switch down "$sw"
		done
	} >/dev/null 2>&1
	CCFAB_SWS=() CCFAB_HOSTS=()
	return 0
}

# ccfab_down: INT off, the daemon stopped (it unregisters the CCs and its
# pins go), the namespaces removed.
ccfab_down() {
	_ccfab_int_down
	dcbpfd_stop
	fabric_teardown
}

# ccfab_cc_ok CC: CC can be selected by a socket now.
ccfab_cc_ok() { grep -qw "$1" /proc/sys/net/ipv4/tcp_available_congestion_control; }

# ccfab_timeouts NS...: retransmission timeouts (TcpExt TCPTimeouts) summed
# over the namespaces' stacks.
ccfab_timeouts() {
	local ns sum=0 v
	for ns in "$@"; do
		v=$(ip netns exec "$ns" awk '/^TcpExt:/ { if (!h) { for (i = 2; i <= NF; i++) f[$i] = i; h = 1; next }
			print $(f["TCPTimeouts"]) }' /proc/net/netstat 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}

# ccfab_port_sampler OUT_CSV PERIOD_S: in the background, every PERIOD_S the
# bytes received by each switch port facing a sender (index = sender),
# "t_ns,p0,p1,..." with t_ns from the realtime clock ($EPOCHREALTIME; the
# experiment stamps its events on the same clock). PID in FAB_LAST_PID.
# Bytes entering the switch, before the bottleneck: what a sender put on
# the wire, drops at the bottleneck included.
ccfab_port_sampler() {
	local out=$1 period=$2 ports
	ports=$(IFS=' '; echo "${FAB_SW_PORTS[*]}")
	# shellcheck disable=SC2016  # expanded by the inner shell
	fabric_bg "$FAB_SWITCH" bash -c '
		out=$1 period=$2; shift 2
		hdr=t_ns; for ((i = 0; i < $#; i++)); do hdr+=,p$i; done
		echo "$hdr" >"$out"
		while :; do
			t=${EPOCHREALTIME/./}000
			line=$t
			for d in "$@"; do read -r b </sys/class/net/$d/statistics/rx_bytes; line+=,$b; done
			echo "$line" >>"$out"
			sleep "$period"
		done' ccfab-sampler "$out" "$period" $ports
}

# ccfab_sink_cc CC: the options that make a receiver's listener accept the
# sender's CC where it matters.  DCTCP: this kernel accepts ECN on a SYN
# from a dctcp sender only when the listener runs a CC that needs ECN
# (measured: 0 of 252 connections negotiated ECN with the namespace
# default on the receiver, every one with a dctcp listener), so the
# receiver's listener runs dctcp.  iperf3's server sets the CC after
# accept, too late: its dctcp flows run without ECN (Reno-like).
ccfab_sink_cc() { [ "$1" = dctcp ] && echo "-c dctcp"; return 0; }

# ccfab_dctcp_ecn: "flows ecn_flows" of the dctcp connections so far
# (dc_dctcp_stat of the newest registration: the daemon's).
ccfab_dctcp_ecn() {
	local id
	id=$(bpftool map show -j 2>/dev/null | jq '[.[] | select(.name == "dc_dctcp_stat") | .id] | max // empty')
	[ -n "$id" ] || { echo "0 0"; return; }
	bpftool map dump id "$id" -j 2>/dev/null |
		jq -r '"\([.[0].formatted.values[]?.value.flows] | add // 0) \([.[0].formatted.values[]?.value.ecn_flows] | add // 0)"'
}

# ccfab_switch_drops: packets the fabric's switches dropped so far (their
# admission: threshold, buffer full, prediction), summed over every port of
# every switch ccfab brought up. Losses before any qdisc: a TBF's own drop
# counter does not see them.
ccfab_switch_drops() {
	local sw sum=0 v
	for sw in "${CCFAB_SWS[@]}"; do
		v=$("${CCFAB_D[@]}" switch status "$sw" --json 2>/dev/null |
			jq '[.ports[] | .drop_thresh_pkts + .drop_full_pkts + .drop_pred_pkts] | add // 0')
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}
