# Emulated datacenter fabric built from network namespaces and veth pairs.
# Sourced (never executed) by tests, the demo and experiments:
#
#   . tests/lib/fabric.sh
#   fabric_init                          # unique id + cleanup trap
#   fabric_dumbbell 10 1000 1000000      # 10 senders, 1 Gbit/s, 1 MB buffer
#   fabric_bg "$FAB_RECV" iperf3 -s ...  # background process, killed at teardown
#   ...                                  # teardown runs on EXIT/INT/TERM
#
# Everything a run creates carries its id (namespaces "<id>-<role>", devices
# "<id><suffix>"), so teardown removes exactly this run's objects and nothing
# else. docs/fabric.md describes addressing, MTU rule and the measured
# choice of bottleneck parameters.
#
# Tunables (environment, read when a builder runs):
#   FAB_MTU        MTU the hosts' TCP uses (default 1500)
#   FAB_INT_ROOM   extra bytes every link carries beyond FAB_MTU for in-band
#                  telemetry options added after the host stack (default 0;
#                  INT needs 36..40). Host routes are clamped to FAB_MTU.
#   FAB_TBF_BURST  TBF bucket size in bytes (default 16384, see docs/fabric.md)
#   FAB_GSO_MAX    largest GSO packet a host emits, bytes (default 8192; 0
#                  keeps the kernel's 64 KiB). Must stay below FAB_TBF_BURST
#                  so the TBF never has to split a packet.
#   FAB_OFFLOAD    on|off: TSO/GSO/GRO of every fabric veth (default on)
#   FAB_IPV6       1 keeps IPv6 on inside the fabric (default 0: off, so
#                  ND/MLD chatter never shows up in the bottleneck counters)
#   FAB_DELAY_US   fabric_dumbbell: one-way delay added on the bottleneck
#                  link by a delay line (default 0: a plain veth, no wire
#                  namespace). FAB_DELAY_DIR picks what is delayed (ba =
#                  receiver -> switch, the ACKs, default; ab; both).
#   FAB_DELAYLINE  the delay line binary (default $BUILD/tools/delayline)
#   FAB_DELAYLINE_CPU  CPU the delay line runs on (default auto: the last
#                  one when there are two or more; none: not pinned). The
#                  device it reads steers RPS to that CPU; the device it
#                  sends into and every link made after the wire, away.
#   FAB_DELAYLINE_ISOLATE  1: both far ends of the wire steer RPS away
#                  from that CPU too (default 0)
#   FAB_WIRE_STATS file prefix for the delay lines' JSON counters (default
#                  none); wire k writes <prefix>w<k>.json at teardown
#   FAB_RTO_MIN_MS minimum retransmission timeout, ms, on every host route
#                  (fabric_add_route: `rto_min`); default unset: the
#                  kernel's 200 ms. The papers' fabrics use 10 (1 for
#                  Reverie); docs/workload.md.
# shellcheck shell=bash

FAB_ID=""
FAB_NS=()		# every namespace this run created, in creation order
FAB_PIDS=()		# every background process started with fabric_bg
FAB_HOOKS=()		# commands run first at teardown (fabric_on_exit)
FAB_CGROUPS=()		# cgroup directories this run created (fabric_cgroup)
FAB_WIRE_NS=()		# wire namespaces (fabric_make_wire), index = wire number
FAB_WIRE_PIDS=()	# their delay line processes
FAB_RPS_AVOID_CPU=""	# a delay line's CPU, kept out of later links' RPS
FAB_TRAPS=0
FAB_PREV_EXIT_TRAP=""

_fab_die() {
	echo "fabric: $*" >&2
	return 1
}

# Run a command inside a namespace of this fabric.
fabric_exec() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# fabric_init: choose the id, register teardown. Idempotent per shell.
fabric_init() {
	[ -n "$FAB_ID" ] && return 0
	[ "$(id -u)" = 0 ] || { _fab_die "needs root (network namespaces); run with sudo"; return 1; }
	local cmd
	for cmd in ip tc; do
		command -v "$cmd" >/dev/null || { _fab_die "'$cmd' not found; install iproute2"; return 1; }
	done
	local try id
	for try in 1 2 3 4 5 6 7 8; do
		# 3 + 4 + 2 = 9 chars: leaves 6 for device suffixes (IFNAMSIZ is 16).
		id=$(printf 'dcb%04d%02x' $(($$ % 10000)) $((RANDOM % 256)))
		if ! ip netns list 2>/dev/null | grep -q "^${id}-" &&
			! ip -o link show 2>/dev/null | grep -q ": ${id}"; then
			FAB_ID=$id
			break
		fi
	done
	[ -n "$FAB_ID" ] || { _fab_die "could not pick an unused id after $try tries"; return 1; }
	export FAB_ID
	[ "$FAB_TRAPS" = 1 ] && return 0
	FAB_TRAPS=1
	# Chain an EXIT trap the caller already had rather than replacing it.
	FAB_PREV_EXIT_TRAP=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
	trap '_fab_on_exit' EXIT
	trap '_fab_on_signal 130' INT
	trap '_fab_on_signal 143' TERM
}

_fab_on_exit() {
	local rc=$?
	fabric_teardown
	if [ -n "$FAB_PREV_EXIT_TRAP" ]; then eval "$FAB_PREV_EXIT_TRAP"; fi
	return $rc
}

_fab_on_signal() {
	trap - INT TERM
	echo "fabric: interrupted, tearing down $FAB_ID" >&2
	exit "$1"	# runs the EXIT trap
}

# fabric_on_exit CMD: run CMD (eval'd) at teardown, before namespaces go.
fabric_on_exit() { FAB_HOOKS+=("$1"); }

# fabric_bg NS CMD...: start CMD in the background inside NS; its PID is in
# FAB_LAST_PID and it is killed at teardown. NS "" means the caller's ns.
fabric_bg() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@" &
	else
		"$@" &
	fi
	FAB_LAST_PID=$!
	FAB_PIDS+=("$FAB_LAST_PID")
}

# fabric_kill PID: stop one process we started (TERM, then KILL after 2 s).
fabric_kill() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 20); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# fabric_teardown: remove everything this run made. Safe to call repeatedly
# and on a half-built fabric; a later builder call starts a new fabric with
# a new id.
fabric_teardown() {
	[ -n "$FAB_ID" ] || return 0
	local h pid ns
	for h in "${FAB_HOOKS[@]}"; do eval "$h" || true; done
	for pid in "${FAB_PIDS[@]}"; do fabric_kill "$pid"; done
	# A namespace stays alive while a process is inside it; anything still in
	# one of ours was started by this run (the names are unique to it).
	for ns in $(ip netns list 2>/dev/null | awk -v p="${FAB_ID}-" 'index($1, p) == 1 {print $1}'); do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do fabric_kill "$pid"; done
		ip netns delete "$ns" 2>/dev/null || true
	done
	# Deleting a namespace destroys its veths; one stuck in the caller's ns
	# (a builder interrupted between create and move) is removed by name.
	for h in $(ip -o link show 2>/dev/null | awk -F': ' -v p="$FAB_ID" 'index($2, p) == 1 {sub(/@.*/, "", $2); print $2}'); do
		ip link delete "$h" 2>/dev/null || true
	done
	# cgroups last: they can only go once the processes in them are gone
	for h in "${FAB_CGROUPS[@]}"; do rmdir "$h" 2>/dev/null || true; done
	FAB_NS=()
	FAB_PIDS=()
	FAB_HOOKS=()
	FAB_CGROUPS=()
	FAB_WIRE_NS=()
	FAB_WIRE_PIDS=()
	FAB_RPS_AVOID_CPU=""
	FAB_ETH_CG=""
	FAB_ID=""
}

# ---- building blocks (shared by every topology) ---------------------------

# fabric_make_ns ROLE: create namespace "<id>-ROLE" with loopback up and the
# sysctls every node wants; prints nothing, sets FAB_LAST_NS.
fabric_make_ns() {
	local ns="${FAB_ID}-$1"
	[ -n "$FAB_ID" ] || { _fab_die "call fabric_init first"; return 1; }
	ip netns add "$ns" || { _fab_die "ip netns add $ns failed"; return 1; }
	FAB_NS+=("$ns")
	ip -n "$ns" link set lo up
	if [ "${FAB_IPV6:-0}" != 1 ]; then
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	fi
	# Cached per-destination metrics (ssthresh, cwnd) would carry one
	# congestion control's history into the next run on the same fabric.
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
	FAB_LAST_NS=$ns
}

# fabric_make_host ROLE: a namespace that terminates TCP.
fabric_make_host() { fabric_make_ns "$@"; }

# fabric_make_switch ROLE: a namespace that forwards IPv4.
fabric_make_switch() {
	fabric_make_ns "$1" || return 1
	ip netns exec "$FAB_LAST_NS" sysctl -qw net.ipv4.ip_forward=1
	# Forwarding between our own ports never needs redirects; they would
	# only add control packets to the measured queues.
	ip netns exec "$FAB_LAST_NS" sysctl -qw net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
}

# fabric_link_mtu: MTU of every fabric link (host path MTU + telemetry room).
fabric_link_mtu() { echo $((${FAB_MTU:-1500} + ${FAB_INT_ROOM:-0})); }

# fabric_make_link NS_A DEV_A NS_B DEV_B: veth pair created directly inside
# the two namespaces (never in the caller's), MTU set, both ends up. Device
# names get the fabric id as prefix; the full names are in FAB_LAST_DEV_A/B.
fabric_make_link() {
	local nsa=$1 da="${FAB_ID}$2" nsb=$3 db="${FAB_ID}$4" mtu
	mtu=$(fabric_link_mtu)
	if [ ${#da} -gt 15 ] || [ ${#db} -gt 15 ]; then
		_fab_die "device name '$da' or '$db' longer than 15 characters; shorten the suffix"
		return 1
	fi
	ip link add "$da" netns "$nsa" mtu "$mtu" type veth peer name "$db" netns "$nsb" mtu "$mtu" ||
		{ _fab_die "creating veth $da ($nsa) <-> $db ($nsb) failed"; return 1; }
	fabric_rps "$nsa" "$da" && fabric_rps "$nsb" "$db" || return 1
	ip -n "$nsa" link set "$da" up
	ip -n "$nsb" link set "$db" up
	if [ "${FAB_OFFLOAD:-on}" = off ]; then
		fabric_offload "$nsa" "$da" off && fabric_offload "$nsb" "$db" off || return 1
	fi
	FAB_LAST_DEV_A=$da
	FAB_LAST_DEV_B=$db
}

# fabric_rps NS DEV: steer received packets to a CPU by flow hash. A veth
# hands each packet to the backlog of the CPU that sent it; with a qdisc
# dequeued from either CPU one flow's packets then race through two
# backlogs and arrive reordered (measured: ~100 spurious retransmits per
# 5 s CUBIC flow). RPS keeps every flow on one CPU, so order is kept.
# Once a delay line runs (fabric_make_wire), links made after it keep off
# its CPU.
fabric_rps() {
	local ncpu mask
	ncpu=$(nproc)
	[ "$ncpu" -gt 32 ] && ncpu=32
	mask=$(((1 << ncpu) - 1))
	# a delay line's CPU is left to it (fabric_make_wire)
	[ -n "$FAB_RPS_AVOID_CPU" ] && [ "$FAB_RPS_AVOID_CPU" -lt "$ncpu" ] && mask=$((mask & ~(1 << FAB_RPS_AVOID_CPU)))
	mask=$(printf '%x' $mask)
	ip netns exec "$1" sh -c "for q in /sys/class/net/$2/queues/rx-*/rps_cpus; do echo $mask > \$q; done" ||
		{ _fab_die "setting rps_cpus on $2 (in $1) failed; is CONFIG_RPS set?"; return 1; }
}

# fabric_offload NS DEV on|off: TSO/GSO/GRO of one device.
fabric_offload() {
	command -v ethtool >/dev/null ||
		{ _fab_die "ethtool not found (needed for FAB_OFFLOAD=off); apt-get install -y ethtool"; return 1; }
	ip netns exec "$1" ethtool -K "$2" tso "$3" gso "$3" gro "$3" >/dev/null 2>&1 ||
		{ _fab_die "ethtool -K $2 (in $1) tso/gso/gro $3 failed"; return 1; }
}

# fabric_host_dev NS DEV: settings of a device on which a host's TCP sends.
# Capping GSO packets keeps the bottleneck queue in units of a few MSS
# (faithful to a switch queue of packets) while the hosts still batch
# enough to reach line rate on 2 cores; docs/fabric.md has the numbers.
fabric_host_dev() {
	local gso=${FAB_GSO_MAX:-8192}
	[ "$gso" -gt 0 ] || return 0
	ip -n "$1" link set dev "$2" gso_max_size "$gso" ||
		{ _fab_die "gso_max_size $gso on $2 (in $1) failed; set FAB_GSO_MAX=0 to skip"; return 1; }
}

# fabric_add_addr NS DEV CIDR
fabric_add_addr() {
	ip -n "$1" addr add "$3" dev "$2" || { _fab_die "adding $3 to $2 in $1 failed"; return 1; }
}

# fabric_add_route NS PREFIX VIA [DEV]: on a host with FAB_INT_ROOM > 0 the
# route MTU is clamped to FAB_MTU so TCP leaves room for telemetry options;
# with FAB_RTO_MIN_MS it carries rto_min, the minimum RTO of every TCP
# connection that uses it.
fabric_add_route() {
	local ns=$1 pfx=$2 via=$3 dev=${4:-} extra=()
	[ -n "$dev" ] && extra+=(dev "$dev")
	if [ "${FAB_INT_ROOM:-0}" -gt 0 ] && [ "${FAB_ROUTE_CLAMP:-1}" = 1 ]; then
		extra+=(mtu lock "${FAB_MTU:-1500}")
	fi
	if [ -n "${FAB_RTO_MIN_MS:-}" ]; then
		case $FAB_RTO_MIN_MS in
		'' | *[!0-9]* | 0) _fab_die "FAB_RTO_MIN_MS must be a whole number of ms > 0, got '$FAB_RTO_MIN_MS'"; return 1 ;;
		esac
		extra+=(rto_min "${FAB_RTO_MIN_MS}ms")
	fi
	ip -n "$ns" route replace "$pfx" via "$via" "${extra[@]}" ||
		{ _fab_die "route $pfx via $via in $ns failed"; return 1; }
}

# fabric_add_multipath NS PREFIX VIA...: one route over several next hops
# (ECMP between uplinks), hashed on the L4 ports so flows, not packets,
# are spread.
fabric_add_multipath() {
	local ns=$1 pfx=$2 v hops=()
	shift 2
	for v in "$@"; do hops+=(nexthop via "$v"); done
	ip netns exec "$ns" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
	ip -n "$ns" route replace "$pfx" "${hops[@]}" ||
		{ _fab_die "multipath route $pfx via $* in $ns failed"; return 1; }
}

# fabric_shape NS DEV RATE_MBIT BUF_BYTES: the egress bottleneck. TBF at
# RATE_MBIT whose queue holds BUF_BYTES (its bfifo limit) and whose bucket
# is FAB_TBF_BURST bytes. Handle 1: so tools can find it.
fabric_shape() {
	local ns=$1 dev=$2 rate=$3 buf=$4 burst=${FAB_TBF_BURST:-16384}
	tc -n "$ns" qdisc replace dev "$dev" root handle 1: tbf rate "${rate}mbit" burst "$burst" limit "$buf" ||
		{ _fab_die "tbf rate ${rate}mbit burst $burst limit $buf on $dev ($ns) failed"; return 1; }
}

# _fab_rps_without NS DEV CPU: RPS of DEV on every CPU but CPU.
_fab_rps_without() {
	local ncpu mask
	ncpu=$(nproc)
	[ "$ncpu" -gt 32 ] && ncpu=32
	mask=$(printf '%x' $((((1 << ncpu) - 1) & ~(1 << $3))))
	[ "$mask" != 0 ] || { _fab_die "no CPU left for RPS of $2 besides the delay line's CPU $3"; return 1; }
	ip netns exec "$1" sh -c "for q in /sys/class/net/$2/queues/rx-*/rps_cpus; do echo $mask > \$q; done" ||
		{ _fab_die "setting rps_cpus $mask on $2 (in $1) failed"; return 1; }
}

# _fab_wire_tc NS DEV ACTION...: one catch-all filter on DEV's ingress.
_fab_wire_tc() {
	tc -n "$1" filter add dev "$2" ingress protocol all prio 1 u32 match u32 0 0 action "${@:3}" ||
		{ _fab_die "tc u32 action ${*:3} on $2 ($1) failed (needs cls_u32 and act_mirred)"; return 1; }
}

# fabric_make_wire NS_A DEV_A NS_B DEV_B DELAY_US [ba|ab|both]: like
# fabric_make_link, but the two ends meet in a "wire" namespace <id>-w<k>
# where a delay line (tests/tools/delayline.c) holds the frames of one
# direction for DELAY_US before passing them on unchanged:
#
#   NS_A:DEV_A ==veth== w<k>a [wire ns] w<k>b ==veth== NS_B:DEV_B
#
# ba (default) delays B -> A and lets the kernel carry A -> B (tc ingress
# on w<k>a redirects every frame to w<k>b, no copy to user space); ab is the
# reverse; both runs the tool in both directions. The wire namespace has
# no addresses, no forwarding and ARP off, so the kernel discards every
# frame the tool reads right after the tool's tap: nothing is delivered
# twice. The one-way
# delay of the delayed direction grows by DELAY_US (RTT by DELAY_US, or
# 2 x DELAY_US with both). Delaying the ACK direction keeps the tool out of
# the data path: on a dumbbell, B = the receiver. docs/fabric.md has the
# measured accuracy and cost. Sets FAB_LAST_DEV_A/B (the outer devices),
# FAB_LAST_WIRE_NS, FAB_LAST_WIRE_PID; appends to FAB_WIRE_NS/FAB_WIRE_PIDS.
# FAB_DELAYLINE_OPTS adds options (e.g. -m RING_BYTES); the tool runs
# SCHED_FIFO (-r) unless FAB_DELAYLINE_RT=0.
fabric_make_wire() {
	local nsa=${1:?fabric_make_wire NS_A DEV_A NS_B DEV_B DELAY_US [ba|ab|both]} sa=${2:?} nsb=${3:?} sb=${4:?}
	local us=${5:?delay in microseconds} dir=${6:-ba} k w wa wb da db tool i n want cpu opts=()
	tool=${FAB_DELAYLINE:-${BUILD:-build}/tools/delayline}
	[ -x "$tool" ] || { _fab_die "delay line '$tool' not built (make builds build/tools/delayline; or set FAB_DELAYLINE)"; return 1; }
	case $us in '' | *[!0-9]*) _fab_die "fabric_make_wire: DELAY_US must be a whole number, got '$us'"; return 1 ;; esac
	case $dir in ba | ab | both) ;; *) _fab_die "fabric_make_wire: direction is ba, ab or both, not '$dir'"; return 1 ;; esac
	k=${#FAB_WIRE_NS[@]}
	fabric_make_ns "w$k" || return 1
	w=$FAB_LAST_NS
	# never a source of its own traffic (ND/MLD), whatever FAB_IPV6 says
	ip netns exec "$w" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	fabric_make_link "$nsa" "$sa" "$w" "w${k}a" || return 1
	da=$FAB_LAST_DEV_A wa=$FAB_LAST_DEV_B
	fabric_make_link "$w" "w${k}b" "$nsb" "$sb" || return 1
	wb=$FAB_LAST_DEV_A db=$FAB_LAST_DEV_B
	# What the tool reads also goes up the wire namespace's own stack after
	# its tap. There it dies at once: the frames are addressed to the far
	# end's MAC (IPv4 drops PACKET_OTHERHOST first thing), the devices have
	# no addresses, forwarding is off and ARP is off, so nothing is answered
	# or forwarded. (A tc drop would be cheaper still, but this kernel has no
	# act_gact.)
	for i in "$wa" "$wb"; do
		if ! ip -n "$w" link set dev "$i" arp off || ! tc -n "$w" qdisc add dev "$i" ingress; then
			_fab_die "arp off / ingress qdisc on $i ($w) failed"
			return 1
		fi
	done
	case $dir in
	ba) _fab_wire_tc "$w" "$wa" mirred egress redirect dev "$wb" || return 1
		opts=(-i "$wb" -o "$wa") ;;
	ab) _fab_wire_tc "$w" "$wb" mirred egress redirect dev "$wa" || return 1
		opts=(-i "$wa" -o "$wb") ;;
	both) opts=(-i "$wa" -o "$wb" -2) ;;
	esac
	# A frame the tool sends is received by the far end's veth at once, and
	# if RPS picks the tool's own CPU the whole receiving path (switch,
	# the sender's TCP answering the ACK, its next data) runs as softirq
	# inside the tool's send call: measured 47 % of a core and 2-5 ms stalls
	# at 1 Gbit/s. So the tool stays on one CPU and the devices it sends
	# into steer their packets to the others.
	cpu=${FAB_DELAYLINE_CPU:-auto}
	[ "$cpu" = auto ] && { [ "$(nproc)" -ge 2 ] && cpu=$(($(nproc) - 1)) || cpu=none; }
	if [ "$cpu" != none ]; then
		case $dir in
		ba) _fab_rps_without "$nsa" "$da" "$cpu" || return 1 ;;
		ab) _fab_rps_without "$nsb" "$db" "$cpu" || return 1 ;;
		both) _fab_rps_without "$nsa" "$da" "$cpu" && _fab_rps_without "$nsb" "$db" "$cpu" || return 1 ;;
		esac
		opts+=(-c "$cpu")
		# The device the tool reads, in turn, steers to the
		# tool's CPU alone, and every link made after this one keeps off
		# it: the receive stamp is taken when a frame is queued to a CPU's
		# backlog, and on a busy CPU that backlog waits behind the whole
		# fabric's softirq work (p99 lateness 1.5-2.5 ms under the demo's
		# load; 0.7-0.9 ms this way).
		local rin
		case $dir in ba) rin=("$wb") ;; ab) rin=("$wa") ;; both) rin=("$wa" "$wb") ;; esac
		for i in "${rin[@]}"; do
			ip netns exec "$w" sh -c "for q in /sys/class/net/$i/queues/rx-*/rps_cpus; do printf '%x' $((1 << cpu)) > \$q; done" ||
				{ _fab_die "setting rps_cpus on $i ($w) to the delay line's CPU $cpu failed"; return 1; }
		done
		FAB_RPS_AVOID_CPU=$cpu
		# FAB_DELAYLINE_ISOLATE=1: both far ends and the wire device the
		# tool does not read steer away from that CPU too
		if [ "${FAB_DELAYLINE_ISOLATE:-0}" = 1 ]; then
			local iso=("$nsa $da" "$nsb $db")
			[ "$dir" = ba ] && iso+=("$w $wa")
			[ "$dir" = ab ] && iso+=("$w $wb")
			for i in "${iso[@]}"; do
				# shellcheck disable=SC2086  # "ns dev" pairs
				_fab_rps_without $i "$cpu" || return 1
			done
		fi
	fi
	[ "${FAB_DELAYLINE_RT:-1}" = 1 ] && opts+=(-r)
	# shellcheck disable=SC2206  # word splitting of the extra options is wanted
	opts+=(-d "$us" ${FAB_DELAYLINE_OPTS:-})
	if [ -n "${FAB_WIRE_STATS:-}" ]; then
		fabric_bg "$w" "$tool" "${opts[@]}" >"${FAB_WIRE_STATS}w$k.json"
	else
		fabric_bg "$w" "$tool" "${opts[@]}" >/dev/null
	fi
	# shellcheck disable=SC2034  # read by the callers
	FAB_LAST_WIRE_PID=$FAB_LAST_PID FAB_LAST_WIRE_NS=$w
	FAB_WIRE_NS+=("$w") FAB_WIRE_PIDS+=("$FAB_LAST_PID")
	# up once its sockets exist: one receive + one transmit per direction
	want=$([ "$dir" = both ] && echo 4 || echo 2)
	for ((i = 0; i < 100; i++)); do
		n=$(ip netns exec "$w" sh -c 'tail -n +2 /proc/net/packet | wc -l')
		[ "$n" -ge "$want" ] && break
		kill -0 "$FAB_LAST_PID" 2>/dev/null || { _fab_die "delay line in $w exited at start (its message is above)"; return 1; }
		sleep 0.05
	done
	[ "$n" -ge "$want" ] || { _fab_die "delay line in $w did not open its sockets within 5 s"; return 1; }
	# shellcheck disable=SC2034  # read by the callers
	FAB_LAST_DEV_A=$da FAB_LAST_DEV_B=$db
}

# fabric_wire_stats K: the counters of wire K's delay line, one JSON line
# (its SIGUSR1 dump; needs FAB_WIRE_STATS, where the line is appended).
fabric_wire_stats() {
	local k=${1:-0} f n i
	[ -n "${FAB_WIRE_STATS:-}" ] || { _fab_die "fabric_wire_stats needs FAB_WIRE_STATS set when the wire was built"; return 1; }
	f="${FAB_WIRE_STATS}w$k.json"
	n=$(wc -l <"$f")
	kill -USR1 "${FAB_WIRE_PIDS[k]}" 2>/dev/null || { _fab_die "delay line of wire $k is not running"; return 1; }
	for ((i = 0; i < 50; i++)); do
		[ "$(wc -l <"$f")" -gt "$n" ] && { tail -n 1 "$f"; return 0; }
		sleep 0.02
	done
	_fab_die "delay line of wire $k did not answer SIGUSR1 within 1 s"
}

# ---- topologies ------------------------------------------------------------

# fabric_dumbbell NSENDERS RATE_MBIT BUF_BYTES
#
#   s0 --\                                    addressing (10.77.0.0/16):
#   s1 ---+-- sw --[TBF]-- rx                 sender i: 10.77.(i+1).1/24
#   ..  --/                                   receiver: 10.77.0.1/24
#                                             switch:   .254 on each link
# Sets: FAB_SENDERS FAB_SENDER_IPS FAB_SENDER_DEVS FAB_SW_PORTS (arrays,
# index = sender), FAB_SWITCH FAB_RECV FAB_RECV_IP FAB_RECV_DEV FAB_BN_DEV
# FAB_RATE_MBIT FAB_BUF_BYTES FAB_LINK_MTU.
fabric_dumbbell() {
	local n=${1:?fabric_dumbbell NSENDERS RATE_MBIT BUF_BYTES} rate=${2:?rate in Mbit/s} buf=${3:?buffer bytes} i
	if [ "$n" -lt 1 ] || [ "$n" -gt 250 ]; then _fab_die "NSENDERS must be 1..250, got $n"; return 1; fi
	fabric_init || return 1
	FAB_SENDERS=() FAB_SENDER_IPS=() FAB_SENDER_DEVS=() FAB_SW_PORTS=()
	fabric_make_switch sw || return 1
	FAB_SWITCH=$FAB_LAST_NS
	fabric_make_host rx || return 1
	FAB_RECV=$FAB_LAST_NS
	if [ "${FAB_DELAY_US:-0}" -gt 0 ]; then
		fabric_make_wire "$FAB_SWITCH" pr "$FAB_RECV" r "$FAB_DELAY_US" "${FAB_DELAY_DIR:-ba}" || return 1
	else
		fabric_make_link "$FAB_SWITCH" pr "$FAB_RECV" r || return 1
	fi
	FAB_BN_DEV=$FAB_LAST_DEV_A
	FAB_RECV_DEV=$FAB_LAST_DEV_B
	fabric_host_dev "$FAB_RECV" "$FAB_RECV_DEV" || return 1
	FAB_RECV_IP=10.77.0.1
	fabric_add_addr "$FAB_SWITCH" "$FAB_BN_DEV" 10.77.0.254/24 || return 1
	fabric_add_addr "$FAB_RECV" "$FAB_RECV_DEV" "$FAB_RECV_IP/24" || return 1
	fabric_add_route "$FAB_RECV" 10.77.0.0/16 10.77.0.254 || return 1
	for ((i = 0; i < n; i++)); do
		fabric_make_host "s$i" || return 1
		FAB_SENDERS+=("$FAB_LAST_NS")
		fabric_make_link "$FAB_LAST_NS" "h$i" "$FAB_SWITCH" "p$i" || return 1
		FAB_SENDER_DEVS+=("$FAB_LAST_DEV_A")
		fabric_host_dev "$FAB_LAST_NS" "$FAB_LAST_DEV_A" || return 1
		FAB_SW_PORTS+=("$FAB_LAST_DEV_B")
		FAB_SENDER_IPS+=("10.77.$((i + 1)).1")
		fabric_add_addr "$FAB_LAST_NS" "$FAB_LAST_DEV_A" "10.77.$((i + 1)).1/24" || return 1
		fabric_add_addr "$FAB_SWITCH" "$FAB_LAST_DEV_B" "10.77.$((i + 1)).254/24" || return 1
		fabric_add_route "$FAB_LAST_NS" 10.77.0.0/16 "10.77.$((i + 1)).254" || return 1
	done
	fabric_shape "$FAB_SWITCH" "$FAB_BN_DEV" "$rate" "$buf" || return 1
	# shellcheck disable=SC2034  # read by the callers
	FAB_RATE_MBIT=$rate FAB_BUF_BYTES=$buf FAB_LINK_MTU=$(fabric_link_mtu)
}

# fabric_ping_all: every sender reaches the receiver (also warms ARP so the
# first measured packets do not wait for neighbour resolution).
fabric_ping_all() {
	local ns bad=""
	for ns in "${FAB_SENDERS[@]}"; do
		ip netns exec "$ns" ping -c 1 -W 2 -q "$FAB_RECV_IP" >/dev/null 2>&1 || bad+=" $ns"
	done
	[ -z "$bad" ] || { _fab_die "receiver $FAB_RECV_IP unreachable from:$bad"; return 1; }
}

# fabric_wait_port NS PORT [TIMEOUT_S]: wait until a TCP listener is up.
fabric_wait_port() {
	local ns=$1 port=$2 t=${3:-5} i
	for ((i = 0; i < t * 20; i++)); do
		ip netns exec "$ns" ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && return 0
		sleep 0.05
	done
	_fab_die "nothing listening on port $port in $ns after ${t}s"
}

# fabric_leafspine L S H RATE_MBIT BUF_BYTES
#
#   spine0 … spine(S−1)          every leaf has one link to every spine;
#     |  \  /  |                 TBF (RATE_MBIT, BUF_BYTES) on both ends of
#   leaf0 … leaf(L−1)            it: leaf uplink (leaf→spine) and spine
#    |  |      |  |              downlink (spine→leaf). Host links are not
#   h0.0 h0.1  …                 shaped unless FAB_LS_HOST_MBIT is set.
#
# Addressing (10.78.0.0/16, all /32s plus routes, no shared subnets):
#   host h of leaf l:        10.78.l.(h+1)        (l < 100, h < 99)
#   leaf l, host ports:      10.78.l.254          (same address on each port)
#   spine s, downlinks:      10.78.(128+s).254    (same address on each)
#   leaf l, uplink to s:     10.78.(128+s).(l+1)
# Hosts route 10.78.0.0/16 via their leaf. A leaf reaches its hosts by /32
# device routes and every other leaf's 10.78.l'.0/24 by one multipath
# route over all spines (kernel ECMP, L4 hash: fib_multipath_hash_policy
# = 1, the baseline Ethereal is compared with). A spine routes 10.78.l.0/24
# to leaf l.
#
# Names: namespaces <id>-lf<l>, <id>-sp<s>, <id>-h<l>x<h>; devices
# <id>u<l>s<s> (leaf uplink), <id>d<s>l<l> (spine downlink), <id>h<l>x<h>
# (host), <id>p<l>x<h> (leaf port to host): at most 6 suffix characters.
#
# Sets (arrays): FAB_LEAVES, FAB_SPINES (namespaces by index); per host,
# index i = l·H + h: FAB_HOSTS, FAB_HOST_IPS, FAB_HOST_DEVS, FAB_HOST_LEAF,
# FAB_LEAF_PORTS (the leaf's device facing the host); per leaf–spine link,
# index k = l·S + s: FAB_UPLINKS (device in FAB_LEAVES[l]), FAB_DOWNLINKS
# (device in FAB_SPINES[s]). Scalars: FAB_LS_LEAVES, FAB_LS_SPINES,
# FAB_LS_HOSTS, FAB_RATE_MBIT, FAB_BUF_BYTES, FAB_LINK_MTU.
# Tunable: FAB_LS_HOST_MBIT (unset: host links unshaped; else TBF at that
# rate, BUF_BYTES, on the host's device and on the leaf's port to it).
fabric_leafspine() {
	local L=${1:?fabric_leafspine L S H RATE_MBIT BUF_BYTES} S=${2:?spines} H=${3:?hosts per leaf}
	local rate=${4:?rate in Mbit/s} buf=${5:?buffer bytes} hrate=${FAB_LS_HOST_MBIT:-}
	local l s h k leaf ns ip hops
	if [ "$L" -lt 1 ] || [ "$L" -gt 99 ]; then _fab_die "L must be 1..99, got $L"; return 1; fi
	if [ "$S" -lt 1 ] || [ "$S" -gt 99 ]; then _fab_die "S must be 1..99, got $S"; return 1; fi
	if [ "$H" -lt 1 ] || [ "$H" -gt 98 ]; then _fab_die "H must be 1..98, got $H"; return 1; fi
	fabric_init || return 1
	FAB_LEAVES=() FAB_SPINES=() FAB_HOSTS=() FAB_HOST_IPS=() FAB_HOST_DEVS=() FAB_HOST_LEAF=()
	FAB_LEAF_PORTS=() FAB_UPLINKS=() FAB_DOWNLINKS=()
	for ((s = 0; s < S; s++)); do
		fabric_make_switch "sp$s" || return 1
		FAB_SPINES+=("$FAB_LAST_NS")
	done
	for ((l = 0; l < L; l++)); do
		fabric_make_switch "lf$l" || return 1
		leaf=$FAB_LAST_NS
		FAB_LEAVES+=("$leaf")
		ip netns exec "$leaf" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
		for ((h = 0; h < H; h++)); do
			fabric_make_host "h${l}x$h" || return 1
			ns=$FAB_LAST_NS
			ip=10.78.$l.$((h + 1))
			fabric_make_link "$ns" "h${l}x$h" "$leaf" "p${l}x$h" || return 1
			FAB_HOSTS+=("$ns") FAB_HOST_IPS+=("$ip") FAB_HOST_LEAF+=("$l")
			FAB_HOST_DEVS+=("$FAB_LAST_DEV_A") FAB_LEAF_PORTS+=("$FAB_LAST_DEV_B")
			fabric_host_dev "$ns" "$FAB_LAST_DEV_A" || return 1
			fabric_add_addr "$ns" "$FAB_LAST_DEV_A" "$ip/32" || return 1
			fabric_add_addr "$leaf" "$FAB_LAST_DEV_B" "10.78.$l.254/32" || return 1
			ip -n "$ns" route add 10.78.$l.254/32 dev "$FAB_LAST_DEV_A" ||
				{ _fab_die "route to leaf $l in $ns failed"; return 1; }
			fabric_add_route "$ns" 10.78.0.0/16 10.78.$l.254 "$FAB_LAST_DEV_A" || return 1
			ip -n "$leaf" route add "$ip/32" dev "$FAB_LAST_DEV_B" ||
				{ _fab_die "route to $ip in $leaf failed"; return 1; }
			if [ -n "$hrate" ]; then
				fabric_shape "$ns" "$FAB_LAST_DEV_A" "$hrate" "$buf" || return 1
				fabric_shape "$leaf" "$FAB_LAST_DEV_B" "$hrate" "$buf" || return 1
			fi
		done
		for ((s = 0; s < S; s++)); do
			fabric_make_link "$leaf" "u${l}s$s" "${FAB_SPINES[s]}" "d${s}l$l" || return 1
			FAB_UPLINKS[l * S + s]=$FAB_LAST_DEV_A
			# shellcheck disable=SC2034  # read by the callers
			FAB_DOWNLINKS[l * S + s]=$FAB_LAST_DEV_B
			fabric_add_addr "$leaf" "$FAB_LAST_DEV_A" "10.78.$((128 + s)).$((l + 1))/32" || return 1
			fabric_add_addr "${FAB_SPINES[s]}" "$FAB_LAST_DEV_B" "10.78.$((128 + s)).254/32" || return 1
			if ! ip -n "$leaf" route add "10.78.$((128 + s)).254/32" dev "$FAB_LAST_DEV_A" ||
				! ip -n "${FAB_SPINES[s]}" route add "10.78.$((128 + s)).$((l + 1))/32" dev "$FAB_LAST_DEV_B" ||
				! ip -n "${FAB_SPINES[s]}" route add "10.78.$l.0/24" via "10.78.$((128 + s)).$((l + 1))" dev "$FAB_LAST_DEV_B"; then
				_fab_die "routes of link leaf $l <-> spine $s failed"
				return 1
			fi
			fabric_shape "$leaf" "$FAB_LAST_DEV_A" "$rate" "$buf" || return 1
			fabric_shape "${FAB_SPINES[s]}" "$FAB_LAST_DEV_B" "$rate" "$buf" || return 1
		done
	done
	# Each leaf: one ECMP route per remote leaf over every spine.
	for ((l = 0; l < L; l++)); do
		for ((k = 0; k < L; k++)); do
			[ "$k" = "$l" ] && continue
			hops=()
			for ((s = 0; s < S; s++)); do
				hops+=(nexthop via "10.78.$((128 + s)).254" dev "${FAB_UPLINKS[l * S + s]}")
			done
			ip -n "${FAB_LEAVES[l]}" route replace "10.78.$k.0/24" "${hops[@]}" ||
				{ _fab_die "ECMP route to leaf $k in ${FAB_LEAVES[l]} failed"; return 1; }
		done
	done
	# shellcheck disable=SC2034  # read by the callers
	FAB_LS_LEAVES=$L FAB_LS_SPINES=$S FAB_LS_HOSTS=$H FAB_RATE_MBIT=$rate FAB_BUF_BYTES=$buf \
		FAB_LINK_MTU=$(fabric_link_mtu)
}

# fabric_leafspine_ping_all: every host reaches every other host (and ARP
# caches along every path are warm). Prints the failing pairs.
fabric_leafspine_ping_all() {
	local i j bad=""
	for ((i = 0; i < ${#FAB_HOSTS[@]}; i++)); do
		for ((j = 0; j < ${#FAB_HOSTS[@]}; j++)); do
			[ "$i" = "$j" ] && continue
			ip netns exec "${FAB_HOSTS[i]}" ping -c 1 -W 2 -q "${FAB_HOST_IPS[j]}" >/dev/null 2>&1 ||
				bad+=" ${FAB_HOST_IPS[i]}->${FAB_HOST_IPS[j]}"
		done
	done
	[ -z "$bad" ] || { _fab_die "unreachable:$bad"; return 1; }
}

# ---- Ethereal on the leaf–spine fabric (docs/ethereal.md) --------------------

# fabric_cgroup: a cgroup v2 directory for this run (sockops programs attach
# to it; processes started with fabric_cg_exec live in it). Sets FAB_ETH_CG;
# removed at teardown.
fabric_cgroup() {
	[ -n "${FAB_ETH_CG:-}" ] && return 0
	local root
	root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
	[ -n "$root" ] || { _fab_die "no cgroup v2 mount (sockops needs one)"; return 1; }
	FAB_ETH_CG=$root/dcbpf-$FAB_ID
	mkdir -p "$FAB_ETH_CG" || { _fab_die "cannot create cgroup $FAB_ETH_CG"; return 1; }
	FAB_CGROUPS+=("$FAB_ETH_CG")
}

# fabric_cg_exec NS CMD...: run CMD inside NS and inside this run's cgroup
# (so the host's sockops program sees its sockets: RTO re-path). The cgroup
# is joined before entering NS: `ip netns exec` remounts /sys, hiding it.
fabric_cg_exec() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec ip netns exec "$@"' "$FAB_ETH_CG" "$@"
}

# fabric_leafspine_ethereal DCBPF PIN_DIR MODE [HOST_OPTS...]: attach
# Ethereal to a fabric_leafspine fabric: steering on every leaf (ports =
# its host ports, uplink to spine s = path s+1 via 10.78.(128+s).254) and
# tagging on every host (mode ethereal|spray|ecmp, --paths S, every other
# leaf's /24 as its leaf id, sockops on fabric_cgroup). Detached at
# teardown. Links need FAB_INT_ROOM >= 4 (the tag-only option). Change a
# mode live with fabric_leafspine_mode.
fabric_leafspine_ethereal() {
	local dcbpf=${1:?fabric_leafspine_ethereal DCBPF PIN_DIR MODE} pin=${2:?pin dir} mode=${3:?mode}
	shift 3
	local L=$FAB_LS_LEAVES S=$FAB_LS_SPINES H=$FAB_LS_HOSTS l s h k i ports ups leaves
	[ "${FAB_INT_ROOM:-0}" -ge 4 ] || { _fab_die "Ethereal's tag needs FAB_INT_ROOM >= 4 when the fabric is built"; return 1; }
	fabric_cgroup || return 1
	FAB_ETH_DCBPF=$dcbpf FAB_ETH_PIN=$pin
	fabric_on_exit _fab_eth_detach
	for ((l = 0; l < L; l++)); do
		ports="" ups=""
		for ((h = 0; h < H; h++)); do ports+="${ports:+,}${FAB_LEAF_PORTS[l * H + h]}"; done
		for ((s = 0; s < S; s++)); do ups+="${ups:+,}${FAB_UPLINKS[l * S + s]}=10.78.$((128 + s)).254"; done
		"$dcbpf" --pin-dir "$pin" ethereal leaf attach --netns "${FAB_LEAVES[l]}" --ports "$ports" --uplinks "$ups" ||
			{ _fab_die "ethereal leaf attach on ${FAB_LEAVES[l]} failed"; return 1; }
	done
	for ((i = 0; i < L * H; i++)); do
		l=${FAB_HOST_LEAF[i]} leaves=""
		for ((k = 0; k < L; k++)); do
			[ "$k" = "$l" ] || leaves+="${leaves:+,}10.78.$k.0/24=$k"
		done
		[ -n "$leaves" ] || continue
		"$dcbpf" --pin-dir "$pin" ethereal host attach --netns "${FAB_HOSTS[i]}" --mode "$mode" \
			--paths "$S" --leaf "$leaves" --cgroup "$FAB_ETH_CG" "$@" "${FAB_HOST_DEVS[i]}" ||
			{ _fab_die "ethereal host attach on ${FAB_HOSTS[i]} failed"; return 1; }
	done
}

# fabric_leafspine_mode MODE [HOST_SET_OPTS...]: every host to MODE, live.
fabric_leafspine_mode() {
	local i
	for ((i = 0; i < ${#FAB_HOSTS[@]}; i++)); do
		"$FAB_ETH_DCBPF" --pin-dir "$FAB_ETH_PIN" ethereal host set --netns "${FAB_HOSTS[i]}" --mode "$@" ||
			{ _fab_die "ethereal host set on ${FAB_HOSTS[i]} failed"; return 1; }
	done
}

_fab_eth_detach() {
	local i l
	for ((i = 0; i < ${#FAB_HOSTS[@]}; i++)); do
		"$FAB_ETH_DCBPF" --pin-dir "$FAB_ETH_PIN" ethereal host detach --netns "${FAB_HOSTS[i]}" "${FAB_HOST_DEVS[i]}"
	done
	for ((l = 0; l < ${#FAB_LEAVES[@]}; l++)); do
		"$FAB_ETH_DCBPF" --pin-dir "$FAB_ETH_PIN" ethereal leaf detach --netns "${FAB_LEAVES[l]}"
	done
	rmdir "$FAB_ETH_PIN" 2>/dev/null
	return 0
} >/dev/null 2>&1

# fabric_leafspine_link L S down|up: take the link between leaf L and spine
# S down (both ends: a failed cable) or bring it back with its routes. While
# it is down, spine S has no route to leaf L, so traffic of other leaves
# that still picks spine S towards leaf L is lost there: a failure those
# senders only learn of by their timeouts.
fabric_leafspine_link() {
	local l=${1:?fabric_leafspine_link L S down|up} s=${2:?spine} what=${3:?down|up}
	local S=$FAB_LS_SPINES L=$FAB_LS_LEAVES k t hops
	local leaf=${FAB_LEAVES[l]} spine=${FAB_SPINES[s]} up=${FAB_UPLINKS[l * S + s]} dn=${FAB_DOWNLINKS[l * S + s]}
	case $what in
	down)
		ip -n "$leaf" link set "$up" down && ip -n "$spine" link set "$dn" down ||
			{ _fab_die "taking link leaf $l – spine $s down failed"; return 1; }
		;;
	up)
		ip -n "$leaf" link set "$up" up && ip -n "$spine" link set "$dn" up ||
			{ _fab_die "bringing link leaf $l – spine $s up failed"; return 1; }
		# a device going down takes its single-path routes with it
		ip -n "$leaf" route replace "10.78.$((128 + s)).254/32" dev "$up" &&
			ip -n "$spine" route replace "10.78.$((128 + s)).$((l + 1))/32" dev "$dn" &&
			ip -n "$spine" route replace "10.78.$l.0/24" via "10.78.$((128 + s)).$((l + 1))" dev "$dn" ||
			{ _fab_die "restoring the routes of link leaf $l – spine $s failed"; return 1; }
		for ((k = 0; k < L; k++)); do
			[ "$k" = "$l" ] && continue
			hops=()
			for ((t = 0; t < S; t++)); do
				hops+=(nexthop via "10.78.$((128 + t)).254" dev "${FAB_UPLINKS[l * S + t]}")
			done
			ip -n "$leaf" route replace "10.78.$k.0/24" "${hops[@]}" ||
				{ _fab_die "restoring the ECMP route to leaf $k in $leaf failed"; return 1; }
		done
		;;
	*) _fab_die "fabric_leafspine_link: down or up, not '$what'"; return 1 ;;
	esac
}

# ---- reconfigurable fabric (docs/rdcn.md) ----------------------------------

# fabric_rotor N SCHED PIN_DIR: N ToR namespaces ("<id>-tor<i>", i = 0..N-1)
# with one uplink each into one circuit-switch namespace ("<id>-ocs"),
# whose ports run the circuit switch of `dcbpf rdcn attach` with schedule
# file SCHED published (live FAB_RD_GUARD_MS after the attach, default
# 100). Pins under PIN_DIR/rdcn/<ocs ns>; detached at teardown. ToR i owns
# 10.77.<i>.1 (on lo) and reaches ToR j's address over its uplink, whose
# MAC is 02:dc:7d:00:<i>:00; the circuit switch passes a frame only while
# the schedule connects the two ToRs. The dcbpf binary: FAB_DCBPF (default
# $BUILD/dcbpf). Sets FAB_OCS, FAB_TORS (namespaces), FAB_RD_PIN (PIN_DIR)
# and FAB_RD_OUT (what attach printed, the flip instant).
fabric_rotor() {
	local n=$1 sched=$2 pin=$3 i j mac ports=() dcbpf=${FAB_DCBPF:-${BUILD:-build}/dcbpf}
	[ "$n" -ge 2 ] && [ "$n" -le 16 ] || { _fab_die "fabric_rotor: 2..16 ToRs"; return 1; }
	fabric_init || return 1
	fabric_make_ns ocs && FAB_OCS=$FAB_LAST_NS || return 1
	FAB_TORS=()
	FAB_RD_PIN=$pin
	for ((i = 0; i < n; i++)); do
		fabric_make_ns "tor$i" && FAB_TORS+=("$FAB_LAST_NS") || return 1
		ip netns exec "$FAB_LAST_NS" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		ip -n "$FAB_LAST_NS" addr add "10.77.$i.1/32" dev lo || return 1
		fabric_make_link "$FAB_LAST_NS" "t${i}u0" "$FAB_OCS" "c${i}u0" || return 1
		mac=$(printf '02:dc:7d:00:%02x:00' "$i")
		ip -n "$FAB_LAST_NS" link set dev "$FAB_LAST_DEV_A" address "$mac" || return 1
		ports+=(--port "$FAB_LAST_DEV_B=$i/0@$mac")
	done
	for ((i = 0; i < n; i++)); do
		for ((j = 0; j < n; j++)); do
			[ "$i" = "$j" ] && continue
			# a static next hop: the circuit switch reads the destination
			# MAC, and no ARP could cross a circuit that is down
			ip -n "${FAB_TORS[i]}" route add "10.77.$j.1/32" dev "${FAB_ID}t${i}u0" src "10.77.$i.1" &&
				ip -n "${FAB_TORS[i]}" neigh replace "10.77.$j.1" dev "${FAB_ID}t${i}u0" \
					lladdr "$(printf '02:dc:7d:00:%02x:00' "$j")" nud permanent || return 1
		done
	done
	fabric_on_exit "$(printf '%q ' "$dcbpf" --pin-dir "$pin" rdcn detach --netns "$FAB_OCS") >/dev/null"
	FAB_RD_OUT=$("$dcbpf" --pin-dir "$pin" rdcn attach --netns "$FAB_OCS" "${ports[@]}" \
		--schedule "$sched" --guard-ms "${FAB_RD_GUARD_MS:-100}" --json) ||
		{ _fab_die "fabric_rotor: dcbpf rdcn attach failed"; return 1; }
}
