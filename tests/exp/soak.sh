#!/usr/bin/env bash
# Soak and fault injection (`make soak`, docs/operations.md "Soak"): the
# leaf–spine fabric with every program dcbpf attaches to it today, mixed
# traffic, and a schedule of faults, for DURATION seconds; then everything
# is taken down and nothing of it may be left in the kernel.
#
# Fabric: 2 leaves × 2 spines × 2 hosts (tests/lib/fabric.sh), RATE Mbit/s
# links, rto_min 10 ms. Programs:
#   - admission switch (`dcbpf switch up`, DT with ECN) on both leaves and
#     spine 1; Credence (forest model) on spine 0
#   - Ethereal tagging on every host, steering on both leaves
#   - dcbpfd: powertcp, theta_powertcp, hpcc, timely, perc registered
#     (τ = 200 µs, HostBw = RATE); host INT programs on the interfaces of
#     host h0x0 that match its [int] globs, INT on its traffic inside leaf
#     0 (the collectives' h0x0 -> h0x1 flows; the long flows run without)
# Traffic: 3 long flows across the spines (iperf3 with powertcp,
# theta_powertcp, powertcp), incasts (3 senders → 1, every ~1 s) and
# all-to-all collectives (every ~2 s), both theta_powertcp.
# Faults, every FAULT_S seconds in turn (one kind after the other):
#   kill9       kill -9 dcbpfd, start it again: it must adopt the pins
#   hup_valid   a new valid file + SIGHUP: the file's values in effect
#   hup_invalid an invalid file + SIGHUP: the running values stay
#   hotplug     an interface matching [int] deleted and created again
#               under the daemon: the programs must come back
#   ifdown      a leaf–spine link down for 1 s and up: the switch's XDP
#               stays attached, paths work again
#   nsdel       a namespace holding 100 PowerTCP flows deleted (its
#               process killed) with the flows in flight
#   lru_fill    more short PowerTCP connections than flows_max (LRU maps
#               filled past capacity)
#   model_swap  Credence's forest replaced under traffic
#   ring_cc     `dcbpf trace` killed (-9) mid-stream; a new one must work
#   ring_sw     `dcbpf trace --switch` / `switch sample` killed likewise
# and every second a random valid `dcbpf set` (powertcp/theta gamma,
# a switch's alpha); every 7 s an invalid one, which must be refused with
# the values unchanged.
# Checks, continuously and at the end (summary.json "checks"):
#   leaks       every BPF program, map and link the run owned (pinned under
#               its pin dirs, attached to its cgroup, or referenced by one
#               of those) is gone after teardown; a planted pin proves the
#               checker finds one (selftest)
#   growth      the owned counts do not grow (last third vs first third)
#   rss         dcbpfd's RSS flat (last third within 1 MiB of the first)
#   dmesg       no kernel warning or BPF error since the start
#   stuck       every long flow's bytes_acked grows in every 5 s window
#   monotonic   dc_cc_stats acks and switch tx never decrease, daemon
#               restarts included
#   config      the value read back always equals the last valid file or set
#   invalid     every invalid set refused, map unchanged
#   recovered   every fault's recovery observed
# Output ($OUT, default out/soak): summary.json, samples.csv, faults.csv,
# soak.png, events.log. Exit 0 if every check passed.
#
#   DURATION=3600 tests/exp/soak.sh       # or --duration S
#   SHORT=1: 70 s of faults, every 4 s (tests/integ/soak.sh)
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=${OUT:-out/soak}
while [ $# -gt 0 ]; do
	case $1 in
	--duration) DURATION=$2; shift 2 ;;
	--duration=*) DURATION=${1#*=}; shift ;;
	*) echo "soak: unknown option $1 (--duration S)" >&2; exit 2 ;;
	esac
done
if [ "${SHORT:-0}" = 1 ]; then
	DURATION=${DURATION:-70} FAULT_S=${FAULT_S:-4} LRU_N=1500
else
	DURATION=${DURATION:-3600} FAULT_S=${FAULT_S:-10} LRU_N=3000
fi
case $DURATION in '' | *[!0-9]*) echo "soak: DURATION must be whole seconds" >&2; exit 2 ;; esac
RATE=${RATE:-200}
FLOWS_MAX=1024
DCBPF=$BUILD/dcbpf
[ "$(id -u)" = 0 ] || { echo "soak: needs root" >&2; exit 1; }
for b in "$DCBPF" "$BUILD/dcbpfd" "$BUILD/tools/incast" "$BUILD/tools/collective" "$BUILD/tools/connflood"; do
	[ -x "$b" ] || { echo "soak: $b not built (make)" >&2; exit 1; }
done
if grep -qwE 'powertcp|theta_powertcp|hpcc|timely' /proc/sys/net/ipv4/tcp_available_congestion_control; then
	echo "soak: a dcbpfd is already registered; stop it first" >&2
	exit 1
fi
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
source tests/lib/fabric.sh

rm -rf "$OUT"
mkdir -p "$OUT"
RUN=$(mktemp -d /tmp/dcbpf-soak.$$.XXXXXX)
EV=$OUT/events.log
: >"$EV"
log() { printf '%s %s\n' "$(date -u +%T)" "$*" | tee -a "$EV" >&2; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

DPIN=/sys/fs/bpf/dcbpf-soak$$d		# the daemon's pins
SPIN=/sys/fs/bpf/dcbpf-soak$$s		# switches, Ethereal
LEAK_PIN=/sys/fs/bpf/dcbpf-soak$$leak	# the selftest's planted pin
CONF=$RUN/dcbpfd.conf
DLOG=$OUT/dcbpfd.log
echo 0 >"$RUN/dpid"

# ---- resource accounting ------------------------------------------------------
# kernel log position: seconds since boot, as dmesg stamps its lines
T0_BOOT=$(awk '{print $1}' /proc/uptime)
T0_MS=$(now_ms)

# dc_totals: every dc_ program, map and link on the machine (links: of a dc_
# program), whoever owns them; the baseline the end is compared with.
dc_totals() {
	local f=$OUT/.totals
	bpftool prog show -j >"$f.p" 2>/dev/null || echo '[]' >"$f.p"
	bpftool map show -j >"$f.m" 2>/dev/null || echo '[]' >"$f.m"
	bpftool link show -j >"$f.l" 2>/dev/null || echo '[]' >"$f.l"
	jq -n --slurpfile p "$f.p" --slurpfile m "$f.m" --slurpfile l "$f.l" '
		$p[0] as $p | $m[0] as $m | $l[0] as $l |
		($p | map(select((.name // "") | startswith("dc_"))) | map(.id)) as $dp |
		{progs: ($dp | length), maps: ($m | map(select((.name // "") | startswith("dc_"))) | length),
		 links: ($l | map(select(.prog_id as $i | $dp | index($i))) | length)}'
}

# owned: the ids this run owns now, one "kind id name" per line. Roots: pins
# under DPIN/SPIN (bpftool -f names them), programs attached to the run's
# cgroup, and the daemon's processes; then the programs of owned links, the
# maps of owned programs and links, and the programs using an owned map
# (struct_ops programs hold no pin of their own).
owned() {
	local cg="[]" pids
	[ -n "${FAB_ETH_CG:-}" ] && [ -d "$FAB_ETH_CG" ] &&
		cg=$(bpftool cgroup show "$FAB_ETH_CG" -j 2>/dev/null | jq -c '[.[].id]' 2>/dev/null || echo "[]")
	pids=$(cat "$RUN/dpid" 2>/dev/null || echo 0)
	local f=$RUN/own.$BASHPID
	bpftool -f prog show -j >"$f.p" 2>/dev/null || echo '[]' >"$f.p"
	bpftool -f map show -j >"$f.m" 2>/dev/null || echo '[]' >"$f.m"
	bpftool -f link show -j >"$f.l" 2>/dev/null || echo '[]' >"$f.l"
	jq -rn --slurpfile p "$f.p" --slurpfile m "$f.m" --slurpfile l "$f.l" \
		--argjson cg "${cg:-[]}" --argjson dpid "${pids:-0}" --arg a "$DPIN/" --arg b "$SPIN/" --arg c "$LEAK_PIN" '
		$p[0] as $p | $m[0] as $m | $l[0] as $l |
		def mine: (.pinned // []) | any(startswith($a) or startswith($b) or . == $c);
		def held: (.pids // []) | any(.pid == $dpid);
		($l | map(select(mine))) as $L |
		($m | map(select(mine or held)) | map(.id)) as $M0 |
		(($L | map(.prog_id)) + $cg + ($p | map(select(mine or held)) | map(.id))) as $P0 |
		($M0 + ($p | map(select(.id as $i | $P0 | index($i))) | map(.map_ids // []) | add // []) +
			($L | map(.map_id // empty))) as $M1 |
		($P0 + ($p | map(select((.map_ids // []) | any(. as $x | $M0 | index($x)))) | map(.id))) as $P1 |
		($p | map(select(.id as $i | $P1 | index($i))) | .[] | "prog \(.id) \(.name // "-")"),
		($m | map(select(.id as $i | $M1 | index($i))) | .[] | "map \(.id) \(.name // "-")"),
		($L | .[] | "link \(.id) \(.type // "-")")' 2>/dev/null | sort -u
}

# ---- the daemon ----------------------------------------------------------------
# write_conf GAMMA: the daemon's file; GAMMA is written as given (an
# invalid one makes an invalid file)
write_conf() {
	cat >"$CONF.tmp" <<EOF
[daemon]
pin_dir = $DPIN
lock_file = $RUN/dcbpfd.lock
flows_max = $FLOWS_MAX
[int]
netns = $H0
interfaces = ${FAB_ID}h* sk*
destinations = 10.78.0.0/24
[powertcp]
gamma = $1
host_bw_mbps = $RATE
base_rtt_us = 200
[theta_powertcp]
gamma = $1
host_bw_mbps = $RATE
base_rtt_us = 200
EOF
	mv "$CONF.tmp" "$CONF"
}

# daemon_start: start dcbpfd, wait for its "ready" line (the CCs registered)
daemon_start() {
	local n i pid
	touch "$DLOG"
	n=$(grep -c 'ready:' "$DLOG")
	"$BUILD/dcbpfd" -c "$CONF" >>"$DLOG" 2>&1 &
	pid=$!
	echo "$pid" >"$RUN/dpid"
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -c 'ready:' "$DLOG")" -gt "$n" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
daemon_pid() { cat "$RUN/dpid"; }
daemon_stop() {
	local pid i
	pid=$(daemon_pid)
	[ "$pid" -gt 0 ] 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo 0 >"$RUN/dpid"
	# a daemon that could not clean up must not leave its registration
	rm -f "$DPIN"/link_* 2>/dev/null
	rm -rf "$DPIN"
}
# the CLI's own file: the daemon's may be invalid for a moment (hup_invalid)
CLICONF=$RUN/cli.conf
printf '[daemon]\npin_dir = %s\nlock_file = %s\n' "$DPIN" "$RUN/dcbpfd.lock" >"$CLICONF"
D() { "$DCBPF" -c "$CLICONF" "$@"; }
S() { "$DCBPF" --pin-dir "$SPIN" "$@"; }
getv() { D get "$1" 2>/dev/null; }
sgetv() { S get "$1" 2>/dev/null; }
feq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && (a - b < 0.002 && b - a < 0.002)) }'; }
live_flows() { # powertcp flows_init - flows_released
	D --json dump stats 2>/dev/null | jq '.powertcp.flows_init - .powertcp.flows_released' 2>/dev/null
}

# ---- build -----------------------------------------------------------------------
export FAB_INT_ROOM=44 FAB_RTO_MIN_MS=10
log "soak: ${DURATION}s, faults every ${FAULT_S}s, fabric 2x2x2 at $RATE Mbit/s; out $OUT"
BASE0=$(dc_totals)
fabric_leafspine 2 2 2 "$RATE" 500000 || { log "fabric failed"; exit 1; }
fabric_leafspine_ping_all || { log "fabric unreachable"; exit 1; }
H0=${FAB_HOSTS[0]}
fabric_on_exit daemon_stop
fabric_on_exit "rm -rf '$RUN' 2>/dev/null"	# after daemon_stop, which reads RUN/dpid
write_conf 0.9
FILE_G=0.9
daemon_start || { log "dcbpfd did not start: $(tail -n 3 "$DLOG")"; exit 1; }

# switches: DT + ECN on leaves and spine 1, Credence on spine 0
SWS=()
MODELS=("$RUN/a.model" "$RUN/b.model")
if ! "$DCBPF" credence train --slots 20000 --seed 3 --trees 4 --out "${MODELS[0]}" >/dev/null ||
	! "$DCBPF" credence train --slots 20000 --seed 5 --trees 6 --out "${MODELS[1]}" >/dev/null; then
	log "credence train failed"
	exit 1
fi
MODEL_TREES=(4 6)
sw_down_all() { local s; for s in "${SWS[@]}"; do S switch down "$s" >/dev/null 2>&1; done; }
fabric_on_exit sw_down_all
for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
	name="k${ns##*-}$$"
	name=${name:0:15}
	swports=$(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }' | paste -sd, -)
	alg=(alg=dt alpha=1 ecn_k_bytes=60000)
	[ "$ns" = "${FAB_SPINES[0]}" ] && alg=(alg=credence)
	S switch up "$name" --netns "$ns" --ports "$swports" --rate-mbps "$RATE" buffer_bytes=400000 "${alg[@]}" >/dev/null ||
		{ log "switch up on $ns failed"; exit 1; }
	SWS+=("$name")
done
SW_L0=${SWS[0]} SW_CRED=${SWS[2]}
S credence load "${MODELS[0]}" --switch "$SW_CRED" >/dev/null || { log "credence load failed"; exit 1; }
MODEL_IX=0
fabric_leafspine_ethereal "$DCBPF" "$SPIN" ethereal >/dev/null || { log "ethereal attach failed"; exit 1; }
fabric_leafspine_ping_all || { log "fabric unreachable with every program attached"; exit 1; }
[ -e "$DPIN/int/$H0/${FAB_HOST_DEVS[0]}_egress" ] || [ -e "$DPIN/int/$H0/${FAB_HOST_DEVS[0]}_egress_tc" ] ||
	{ log "dcbpfd did not attach INT on ${FAB_HOST_DEVS[0]}: $(find "$DPIN/int" 2>&1 | tr '\n' ' ')"; exit 1; }

# ---- traffic ------------------------------------------------------------------------
# long flows: h0xI -> h1xI and h1x0 -> h0x1 across the spines
LF_SRC=("${FAB_HOSTS[0]}" "${FAB_HOSTS[1]}" "${FAB_HOSTS[2]}")
LF_DST=("${FAB_HOSTS[2]}" "${FAB_HOSTS[3]}" "${FAB_HOSTS[1]}")
LF_IP=("${FAB_HOST_IPS[2]}" "${FAB_HOST_IPS[3]}" "${FAB_HOST_IPS[1]}")
# every flow runs one of dcbpf's CCs: next to CUBIC, which fills the
# buffers, PowerTCP's small windows met losses and retransmission timeouts
# of several seconds (no acked byte in a 5 s window) without any fault
LF_CC=(powertcp theta_powertcp powertcp)
LF_PORT=(5401 5402 5403)
for i in 0 1 2; do
	fabric_bg "${LF_DST[i]}" iperf3 -s -p "${LF_PORT[i]}" >/dev/null 2>&1
	fabric_wait_port "${LF_DST[i]}" "${LF_PORT[i]}" || exit 1
done
LF_PIDS=()
for i in 0 1 2; do
	fabric_bg "" fabric_cg_exec "${LF_SRC[i]}" iperf3 -c "${LF_IP[i]}" -p "${LF_PORT[i]}" -C "${LF_CC[i]}" \
		-t $((DURATION + 120)) >"$RUN/iperf$i.log" 2>&1
	LF_PIDS+=("$FAB_LAST_PID")
done
# incasts: 3 senders -> h1x1, 2 flows each of 100 KB, rounds every 100 ms
fabric_bg "${FAB_HOSTS[3]}" "$BUILD/tools/incast" sink -p 5990 >/dev/null 2>&1
fabric_wait_port "${FAB_HOSTS[3]}" 5990 || exit 1
INC_NS="${FAB_HOSTS[0]},${FAB_HOSTS[1]},${FAB_HOSTS[2]}"
fabric_bg "" bash -c "while :; do '$BUILD/tools/incast' client -d ${FAB_HOST_IPS[3]} -p 5990 -n $INC_NS -f 2 \
	-s 100000 -c theta_powertcp -r 5 -g 100 -t 20 >>'$RUN/incast.log' 2>&1; sleep 1; done"
LOOP_PIDS=("$FAB_LAST_PID")
fabric_bg "" bash -c "while :; do '$BUILD/tools/collective' --leafspine $FAB_ID:2:2:2 --pattern a2a --bytes 500000 \
	--cc theta_powertcp --timeout 30 --port 5600 >>'$RUN/coll.log' 2>&1; sleep 2; done"
LOOP_PIDS+=("$FAB_LAST_PID")

# ---- sampler: every 5 s -------------------------------------------------------------
# t_s, owned progs/maps/links, dcbpfd RSS (kB), powertcp acks, theta acks,
# spine 1 switch tx bytes, bytes_acked of the 3 long flows, dc_cc_flows entries
acked() { # NS IP PORT -> largest bytes_acked to that port (the data connection)
	ip netns exec "$1" ss -Htin dst "$2" "dport = :$3" 2>/dev/null | grep -o 'bytes_acked:[0-9]*' |
		cut -d: -f2 | sort -n | tail -n 1
}
sampler() {
	local t pid rss st sw i a ow last=()
	echo "t_s,progs,maps,links,rss_kb,ptcp_acks,theta_acks,sw_tx_bytes,lf0,lf1,lf2,cc_flows" >"$OUT/samples.csv"
	while :; do
		t=$((($(now_ms) - T0_MS) / 1000))
		ow=$(owned)
		printf '%s\n' "$ow" | awk -v t="$t" 'NF { print t, $0 }' >>"$RUN/owned.txt"
		pid=$(daemon_pid)
		rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		st=$(D --json dump stats 2>/dev/null | jq -r '"\(.powertcp.acks),\(.theta_powertcp.acks)"' 2>/dev/null)
		sw=$(S --json switch status "${SWS[3]}" 2>/dev/null | jq '[.ports[].tx_bytes] | add' 2>/dev/null)
		a=""
		for i in 0 1 2; do
			a+=",$(acked "${LF_SRC[i]}" "${LF_IP[i]}" "${LF_PORT[i]}")"
			# a flow that made no progress: its socket as ss sees it, for the report
			[ "${a##*,}" = "${last[i]:-}" ] && [ "$(wc -l <"$OUT/stuck_ss.txt" 2>/dev/null || echo 0)" -lt 200 ] &&
				{ echo "t=$t flow $i"; ip netns exec "${LF_SRC[i]}" ss -tin dst "${LF_IP[i]}" "dport = :${LF_PORT[i]}"; } >>"$OUT/stuck_ss.txt" 2>&1
			last[i]=${a##*,}
		done
		printf '%s,%s,%s,%s,%s,%s,%s%s,%s\n' "$t" "$(grep -c '^prog' <<<"$ow")" "$(grep -c '^map' <<<"$ow")" \
			"$(grep -c '^link' <<<"$ow")" "${rss:-}" "${st:-,}" "${sw:-}" "$a" \
			"$(D --json status 2>/dev/null | jq '.maps[] | select(.name == "dc_cc_flows") | .entries' 2>/dev/null)" \
			>>"$OUT/samples.csv"
		sleep $((5 - ($(now_ms) - T0_MS) / 1000 % 5))
	done
}
sleep 3	# flows up
sampler &
SAMPLER=$!
fabric_on_exit "kill $SAMPLER 2>/dev/null; wait $SAMPLER 2>/dev/null"

# ---- faults ---------------------------------------------------------------------------
echo "kind,t_s,recover_ms,ok,note" >"$OUT/faults.csv"
fault_rec() { echo "$1,$((($(now_ms) - T0_MS) / 1000)),$2,$3,$4" >>"$OUT/faults.csv"; [ "$3" = 1 ] || log "FAULT $1 not recovered: $4"; }
# wait_for TIMEOUT_S CMD...: poll until CMD succeeds; prints ms taken, returns 1 on timeout
wait_for() {
	local t=$1 s
	shift
	s=$(now_ms)
	while ! "$@" >/dev/null 2>&1; do
		[ $(($(now_ms) - s)) -gt $((t * 1000)) ] && { echo $(($(now_ms) - s)); return 1; }
		sleep 0.05
	done
	echo $(($(now_ms) - s))
}
EXP_G=0.9 EXP_TG=0.9 EXP_SWA=$(sgetv "sw.$SW_L0.alpha.0")
MISMATCH=0 INVALID_TRIED=0 INVALID_ACCEPTED=0 SETS=0
cfg_ok() { feq "$(getv powertcp.gamma)" "$EXP_G" && feq "$(getv theta_powertcp.gamma)" "$EXP_TG" && feq "$(sgetv "sw.$SW_L0.alpha.0")" "$EXP_SWA"; }
cfg_check() {
	cfg_ok && return 0
	MISMATCH=$((MISMATCH + 1))
	log "config mismatch: powertcp.gamma $(getv powertcp.gamma) (want $EXP_G), theta $(getv theta_powertcp.gamma) (want $EXP_TG), alpha $(sgetv "sw.$SW_L0.alpha.0") (want $EXP_SWA)"
	EXP_G=$(getv powertcp.gamma) EXP_TG=$(getv theta_powertcp.gamma) EXP_SWA=$(sgetv "sw.$SW_L0.alpha.0")
}
rnd_gamma() { printf '0.%02d' $((50 + RANDOM % 50)); }
live_set() {
	local g tg a
	g=$(rnd_gamma) tg=$(rnd_gamma) a=$((1 + RANDOM % 8))
	if D set "powertcp.gamma=$g" "theta_powertcp.gamma=$tg" >/dev/null 2>&1; then EXP_G=$g EXP_TG=$tg; else log "valid set refused: $g $tg"; MISMATCH=$((MISMATCH + 1)); fi
	if S set "sw.$SW_L0.alpha=$a" >/dev/null 2>&1; then EXP_SWA=$a; else log "valid switch set refused: $a"; MISMATCH=$((MISMATCH + 1)); fi
	SETS=$((SETS + 1))
}
invalid_set() {
	local rc bad
	for bad in "powertcp.gamma=1.5" "powertcp.gamma=0" "theta_powertcp.gamma=-1" "powertcp.gamma=nan" "powertcp.gamma=0.8 theta_powertcp.gamma=2"; do
		INVALID_TRIED=$((INVALID_TRIED + 1))
		# shellcheck disable=SC2086  # two assignments in one set: all or nothing
		D set $bad >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || { INVALID_ACCEPTED=$((INVALID_ACCEPTED + 1)); log "invalid set '$bad' exited $rc"; }
	done
	for bad in alpha=5000 alpha=0 buffer_bytes=10 alg=nosuch; do
		INVALID_TRIED=$((INVALID_TRIED + 1))
		S set "sw.$SW_L0.$bad" >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || { INVALID_ACCEPTED=$((INVALID_ACCEPTED + 1)); log "invalid switch set '$bad' exited $rc"; }
	done
	# the maps unchanged: what the checks read back is still the last valid value
	cfg_ok || { INVALID_ACCEPTED=$((INVALID_ACCEPTED + 1)); cfg_check; }
}

stats_acks() { D --json dump stats 2>/dev/null | jq '.powertcp.acks + .theta_powertcp.acks' 2>/dev/null; }
link_id() { bpftool link show pinned "$DPIN/$1" -j 2>/dev/null | jq .id; }
int_pinned() { [ -e "$DPIN/int/$H0/$1_egress" ] || [ -e "$DPIN/int/$H0/$1_egress_tc" ]; }
int_gone() { ! int_pinned "$1"; }
NON_MONO=0

f_kill9() {
	local a0 l0 l1 ms a1 pid
	a0=$(stats_acks) l0=$(link_id link_powertcp)
	pid=$(daemon_pid)
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	local s
	s=$(now_ms)
	if ! daemon_start; then
		fault_rec kill9 "$(($(now_ms) - s))" 0 "restart failed: $(tail -n 2 "$DLOG" | tr '\n' ' ')"
		daemon_start || { log "dcbpfd cannot be restarted"; return 1; }
	fi
	l1=$(link_id link_powertcp)
	ms=$(($(now_ms) - s))
	# a restart applies the file: a set is lost
	EXP_G=$FILE_G EXP_TG=$FILE_G
	a1=$(stats_acks)
	[ "${a1:-0}" -ge "${a0:-0}" ] || { NON_MONO=$((NON_MONO + 1)); log "acks went back across a restart: $a0 -> $a1"; }
	if [ -n "$l0" ] && [ "$l0" = "$l1" ] && tail -n 20 "$DLOG" | grep -q adopted && D status 2>/dev/null | grep -q "running, pid $(daemon_pid)" && cfg_ok; then
		fault_rec kill9 "$ms" 1 "adopted link $l1"
	else
		fault_rec kill9 "$ms" 0 "link $l0 -> $l1, status: $(D status 2>&1 | head -n 1)"
	fi
}
f_hup_valid() {
	local g ms
	g=$(rnd_gamma)
	write_conf "$g"
	kill -HUP "$(daemon_pid)"
	EXP_G=$g EXP_TG=$g FILE_G=$g
	if ms=$(wait_for 10 cfg_ok); then fault_rec hup_valid "$ms" 1 "gamma $g"; else fault_rec hup_valid "$ms" 0 "gamma $(getv powertcp.gamma), want $g"; fi
}
f_hup_invalid() {
	local ms n
	n=$(grep -c 'kept\|failed\|invalid\|error' "$DLOG")
	write_conf 7
	kill -HUP "$(daemon_pid)"
	# the daemon logs the refusal; the running values stay
	if ms=$(wait_for 10 bash -c "[ \$(grep -c 'kept\|failed\|invalid\|error' '$DLOG') -gt $n ]") && cfg_ok && kill -0 "$(daemon_pid)"; then
		fault_rec hup_invalid "$ms" 1 "refused, values kept"
	else
		fault_rec hup_invalid "$ms" 0 "gamma $(getv powertcp.gamma) (want $EXP_G); log: $(tail -n 1 "$DLOG")"
	fi
	write_conf "$FILE_G"	# the last valid file back (a kill9 restart reads it)
}
f_hotplug() {
	local ms1 ms2 ms3 ok=1
	ip -n "$H0" link add skA type veth peer name skB 2>/dev/null || { fault_rec hotplug 0 0 "veth create failed"; return; }
	ip -n "$H0" link set skA up
	ms1=$(wait_for 10 int_pinned skA) || ok=0
	ip -n "$H0" link delete skA
	ms2=$(wait_for 10 int_gone skA) || ok=0
	ip -n "$H0" link add skA type veth peer name skB && ip -n "$H0" link set skA up
	ms3=$(wait_for 10 int_pinned skA) || ok=0
	ip -n "$H0" link delete skA
	wait_for 10 int_gone skA >/dev/null || ok=0
	fault_rec hotplug "$ms3" $ok "first attach ${ms1}ms, forgotten ${ms2}ms, re-attached ${ms3}ms"
}
XDP_DEV_NS=${FAB_LEAVES[0]} XDP_DEV=${FAB_UPLINKS[1]}
xdp_on() { ip -n "$XDP_DEV_NS" -d link show dev "$XDP_DEV" | grep -q 'prog/xdp'; }
path_ok() { ip netns exec "${FAB_HOSTS[0]}" ping -c 1 -W 1 -q "${FAB_HOST_IPS[2]}" && xdp_on; }
f_ifdown() {
	local ms
	fabric_leafspine_link 0 1 down
	sleep 1
	fabric_leafspine_link 0 1 up
	if ms=$(wait_for 10 path_ok); then fault_rec ifdown "$ms" 1 "leaf0-spine1 1 s down; XDP still on $XDP_DEV"
	else fault_rec ifdown "$ms" 0 "xdp on $XDP_DEV: $(xdp_on && echo yes || echo no)"; fi
}
f_nsdel() {
	local ns="${FAB_ID}-nd" pid l0 ms
	l0=$(live_flows)
	ip netns add "$ns" && ip -n "$ns" link set lo up
	ip netns exec "$ns" "$BUILD/tools/connflood" -n 100 -k 100 -c powertcp -s 100000 -p 5801 -H 120 >/dev/null 2>&1 &
	pid=$!
	wait_for 10 bash -c "[ \$('$DCBPF' -c '$CLICONF' --json dump stats | jq '.powertcp.flows_init - .powertcp.flows_released') -ge $((l0 + 150)) ]" >/dev/null
	ip netns delete "$ns"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	# every flow of the namespace released; the namespace gone
	if ms=$(wait_for 20 bash -c "[ \$('$DCBPF' -c '$CLICONF' --json dump stats | jq '.powertcp.flows_init - .powertcp.flows_released') -le $((l0 + 2)) ] && ! ip netns list | grep -q '^$ns '"); then
		fault_rec nsdel "$ms" 1 "200 flows released"
	else
		fault_rec nsdel "$ms" 0 "live $(live_flows), before $l0"
	fi
}
f_lru_fill() {
	local ns="${FAB_ID}-lf" out ms l0 s ent
	l0=$(live_flows)
	ip netns add "$ns" && ip -n "$ns" link set lo up
	s=$(now_ms)
	out=$(timeout 120 ip netns exec "$ns" "$BUILD/tools/connflood" -n "$LRU_N" -k 100 -c powertcp -s 2000 -p 5802 2>/dev/null)
	ip netns delete "$ns"
	ent=$(D --json status 2>/dev/null | jq '.maps[] | select(.name == "dc_cc_flows") | "\(.entries)/\(.max_entries)"' -r)
	if ms=$(wait_for 20 bash -c "[ \$('$DCBPF' -c '$CLICONF' --json dump stats | jq '.powertcp.flows_init - .powertcp.flows_released') -le $((l0 + 2)) ]") &&
		[ "$(jq .completed <<<"$out")" = "$LRU_N" ] && [ "${ent%/*}" -le "${ent#*/}" ]; then
		fault_rec lru_fill "$ms" 1 "$LRU_N connections in $(($(now_ms) - s)) ms, dc_cc_flows $ent"
	else
		fault_rec lru_fill "$ms" 0 "connflood $out, dc_cc_flows $ent, live $(live_flows) before $l0"
	fi
}
model_is() { S --json credence status --switch "$SW_CRED" 2>/dev/null | jq -e ".. | .trees? // empty | select(. == $1)"; }
f_model_swap() {
	local ms
	MODEL_IX=$((1 - MODEL_IX))
	S credence load "${MODELS[MODEL_IX]}" --switch "$SW_CRED" >/dev/null 2>&1
	if ms=$(wait_for 5 model_is "${MODEL_TREES[MODEL_IX]}"); then fault_rec model_swap "$ms" 1 "${MODEL_TREES[MODEL_IX]} trees live"
	else fault_rec model_swap "$ms" 0 "status: $(S --json credence status --switch "$SW_CRED" 2>&1 | head -c 200)"; fi
}
trace_cc_ok() { [ "$(D trace --count 3 --duration 5 2>/dev/null | wc -l)" -ge 3 ]; }
f_ring_cc() {
	local pid ms
	# the binary itself in the background (not a function: a subshell would
	# be killed and the reader live on)
	"$DCBPF" -c "$CLICONF" trace --cc powertcp >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	if ms=$(wait_for 10 trace_cc_ok); then fault_rec ring_cc "$ms" 1 "new reader ok"
	else fault_rec ring_cc "$ms" 0 "new trace failed"; fi
}
RSW=0
trace_sw_ok() { S trace --switch "$SW_L0" --duration 1 >/dev/null 2>&1 && S switch sample "$SW_L0" --count 3 --interval-us 1000 >/dev/null 2>&1; }
f_ring_sw() {
	local pid ms what
	RSW=$((1 - RSW))
	if [ $RSW = 1 ]; then "$DCBPF" --pin-dir "$SPIN" trace --switch "$SW_L0" >/dev/null 2>&1 & what="trace --switch"
	else "$DCBPF" --pin-dir "$SPIN" switch sample "$SW_L0" --count 10000000 --interval-us 1000 >/dev/null 2>&1 & what="switch sample"; fi
	pid=$!
	sleep 1
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	if ms=$(wait_for 10 trace_sw_ok); then fault_rec ring_sw "$ms" 1 "$what killed; new readers ok"
	else fault_rec ring_sw "$ms" 0 "$what killed; a new reader fails: $(S trace --switch "$SW_L0" --duration 1 2>&1 | tail -n 1)"; fi
}
# SOAK_FAULTS: the kinds to inject (default all); SOAK_SETS=0: no live sets
read -r -a KINDS <<<"${SOAK_FAULTS-kill9 hup_valid hotplug ring_cc ifdown hup_invalid model_swap lru_fill ring_sw nsdel}"

log "setup done; faults start"
END_MS=$(($(now_ms) + DURATION * 1000))
NEXT_FAULT=$(($(now_ms) + 3000))
tick=0 k=0
while [ "$(now_ms)" -lt "$END_MS" ]; do
	ts=$(now_ms)
	tick=$((tick + 1))
	cfg_check
	if [ "${SOAK_SETS:-1}" = 1 ]; then
		if [ $((tick % 7)) = 0 ]; then invalid_set; else live_set; fi
	fi
	if [ "${#KINDS[@]}" -gt 0 ] && [ "$(now_ms)" -ge "$NEXT_FAULT" ]; then
		kind=${KINDS[k % ${#KINDS[@]}]}
		k=$((k + 1))
		"f_$kind"
		cfg_check
		NEXT_FAULT=$(($(now_ms) + FAULT_S * 1000))
	fi
	w=$((1000 - ($(now_ms) - ts)))
	[ $w -gt 0 ] && sleep "$(printf '0.%03d' $w)"
done
cfg_check
log "faults done ($k); final sample, traffic stopped, teardown"
sleep 5
kill "$SAMPLER" 2>/dev/null
wait "$SAMPLER" 2>/dev/null
# Traffic ends before the fabric goes, so the teardown itself deletes no
# namespace with flows in flight (nsdel does that on purpose): a socket
# that still runs PowerTCP holds its struct_ops map, and the object's
# programs and maps with it, and would show up as a leak for as long as it
# lives. The loops end, their tools and iperf3 are stopped, and the hosts
# get 20 s to finish their connections.
busy_socks() {
	local ns n=0
	for ns in "${FAB_HOSTS[@]}"; do
		n=$((n + $(ip netns exec "$ns" ss -Htn state all exclude listening exclude time-wait 2>/dev/null | wc -l)))
	done
	echo $n
}
for p in "${LOOP_PIDS[@]}"; do pkill -TERM -P "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
for p in "${LF_PIDS[@]}"; do pkill -TERM -P "$p" 2>/dev/null; fabric_kill "$p"; done
for ((i = 0; i < 40; i++)); do [ "$(busy_socks)" = 0 ] && break; sleep 0.5; done
BUSY_AT_TEARDOWN=$(busy_socks)
log "connections still open at teardown: $BUSY_AT_TEARDOWN"
# Those left (a connection in a long retransmission backoff) are destroyed
# (ss -K): an orphan in a deleted namespace would otherwise hold its CC for
# as long as its retries last, minutes, and count as a leak of dcbpf's.
if [ "$BUSY_AT_TEARDOWN" != 0 ]; then
	for ns in "${FAB_HOSTS[@]}"; do
		ip netns exec "$ns" ss -HtinK state all exclude listening exclude time-wait >>"$OUT/killed_at_teardown.txt" 2>&1
	done
fi
cp "$RUN"/incast.log "$RUN"/coll.log "$OUT/" 2>/dev/null

# ---- teardown, then the leak check -----------------------------------------------------
sort -u -k2 "$RUN/owned.txt" | awk '{print $2, $3, $4}' | sort -u >"$OUT/owned_ever.txt"
# selftest: one owned map pinned outside the run's pin dirs, left behind on purpose
PLANT=$(awk '$1 == "map" {print $2; exit}' "$OUT/owned_ever.txt")
bpftool map pin id "$PLANT" "$LEAK_PIN" 2>/dev/null
fabric_teardown
[ -d "$DPIN" ] || [ -d "$SPIN" ] && log "pin dirs left: $(ls -d "$DPIN" "$SPIN" 2>/dev/null)"
# still_there: ids of the run still in the kernel (same kind, id and name)
still_there() {
	local p m l
	p=$(bpftool prog show -j 2>/dev/null | jq -r '.[] | "prog \(.id) \(.name // "-")"')
	m=$(bpftool map show -j 2>/dev/null | jq -r '.[] | "map \(.id) \(.name // "-")"')
	l=$(bpftool link show -j 2>/dev/null | jq -r '.[] | "link \(.id) \(.type // "-")"')
	grep -Fxf <(printf '%s\n%s\n%s\n' "$p" "$m" "$l" | grep .) "$OUT/owned_ever.txt"
}
# freeing is deferred (RCU, cgroup release): up to 30 s for the count to settle
for ((i = 0; i < 60; i++)); do
	[ "$(still_there | wc -l)" -le 1 ] && break
	sleep 0.5
done
SELF=$(still_there)
SELF_OK=false
[ "$SELF" = "map $PLANT $(awk -v id="$PLANT" '$1 == "map" && $2 == id {print $3}' "$OUT/owned_ever.txt")" ] && SELF_OK=true
rm -f "$LEAK_PIN"
for ((i = 0; i < 60; i++)); do
	[ -z "$(still_there)" ] && break
	sleep 0.5
done
LEAKS=$(still_there)
[ -n "$LEAKS" ] && log "LEAKED: $(tr '\n' ';' <<<"$LEAKS")"
[ -e "$LEAK_PIN" ] || [ -d "$DPIN" ] || [ -d "$SPIN" ] && LEAKS+=$'\n'"pin dir left"
BASE1=$(dc_totals)

# kernel log since the start
dmesg 2>/dev/null | awk -v t0="$T0_BOOT" '{ s = $0; if (match(s, /^\[ *[0-9.]+\]/)) { ts = substr(s, 2, RLENGTH - 2) + 0; if (ts >= t0) print } }' >"$OUT/dmesg.txt"
grep -iE 'warning|bug:|oops|call trace|refcount|leak|stall|bpf|verifier|list_del|use-after' "$OUT/dmesg.txt" >"$OUT/dmesg_bad.txt"

# ---- the checks -------------------------------------------------------------------------
S_CSV=$OUT/samples.csv
NSAMP=$(($(wc -l <"$S_CSV") - 1))
# growth: the floor (minimum) of the last third above the floor of the first
# third: a leak raises the floor; a fault in progress at one sample (a
# re-attach, a restart) only lifts that sample
growth() { # column
	awk -F, -v c="$1" -v n="$NSAMP" 'NR > 1 && $c != "" { i = NR - 1; v = $c + 0
		if (i <= n / 3 && (a == "" || v < a)) a = v; if (i > 2 * n / 3 && (b == "" || v < b)) b = v }
		END { print (a == "" || b == "") ? 0 : b - a }' "$S_CSV"
}
G_P=$(growth 2) G_M=$(growth 3) G_L=$(growth 4) G_R=$(growth 5)
STUCK=$(awk -F, 'NR > 2 { for (c = 9; c <= 11; c++) if ($c == "" || $c + 0 <= prev[c]) { print "flow " c - 9 " at t=" $1 "s: " prev[c] " -> " $c } }
	NR > 1 { for (c = 9; c <= 11; c++) prev[c] = $c + 0 }' "$S_CSV")
NONMONO_S=$(awk -F, 'NR > 2 { for (c = 6; c <= 8; c++) if ($c != "" && pv[c] != "" && $c + 0 < pv[c] + 0) print "col " c " at t=" $1 }
	NR > 1 { for (c = 6; c <= 8; c++) if ($c != "") pv[c] = $c }' "$S_CSV")
NON_MONO=$((NON_MONO + $(grep -c . <<<"$NONMONO_S")))
NOTREC=$(awk -F, 'NR > 1 && $4 != 1' "$OUT/faults.csv" | wc -l)
NFAULT=$(($(wc -l <"$OUT/faults.csv") - 1))
NLEAK=$(grep -c . <<<"$LEAKS")
NDMESG=$(grep -c . "$OUT/dmesg_bad.txt")
NSTUCK=$(grep -c . <<<"$STUCK")
printf '%s\n' "$STUCK" | grep . | head -n 20 >"$OUT/stuck.txt"
# throughput of each long flow per window (Mbit/s) for the plot
awk -F, 'NR > 2 { dt = $1 - t; printf "%s,%s,%s,%s,%s,%s,%s,%s", $1, $2, $3, $4, $5, ($9 - a) * 8 / dt / 1e6, ($10 - b) * 8 / dt / 1e6, ($11 - c) * 8 / dt / 1e6; print "" }
	NR > 1 { t = $1; a = $9; b = $10; c = $11 }' "$S_CSV" >"$OUT/plot.csv"
if command -v gnuplot >/dev/null; then
	gnuplot <<EOF 2>"$RUN.gp" || log "gnuplot failed: $(cat "$RUN.gp")"
set terminal pngcairo size 1000,800
set output "$OUT/soak.png"
set datafile separator ","
set multiplot layout 3,1 title "dcbpf soak: ${DURATION} s, $NFAULT faults"
set ylabel "owned objects"
set key outside right
plot "$OUT/plot.csv" u 1:2 w l t "progs", "" u 1:3 w l t "maps", "" u 1:4 w l t "links"
set ylabel "dcbpfd RSS (kB)"
plot "$OUT/plot.csv" u 1:5 w l t "RSS"
set ylabel "Mbit/s"
set xlabel "time (s)"
plot "$OUT/plot.csv" u 1:6 w l t "powertcp 1", "" u 1:7 w l t "theta", "" u 1:8 w l t "powertcp 2"
unset multiplot
EOF
	rm -f "$RUN.gp"
fi

jq -n --argjson dur "$DURATION" --argjson fault_s "$FAULT_S" --argjson rate "$RATE" \
	--rawfile faults "$OUT/faults.csv" --argjson sets "$SETS" --argjson inv "$INVALID_TRIED" \
	--argjson inv_acc "$INVALID_ACCEPTED" --argjson mism "$MISMATCH" --argjson nonmono "$NON_MONO" \
	--argjson stuck "$NSTUCK" --argjson leaks "$NLEAK" --arg leaklist "$LEAKS" --argjson dmesg "$NDMESG" \
	--argjson gp "$G_P" --argjson gm "$G_M" --argjson gl "$G_L" --argjson gr "${G_R:-0}" \
	--argjson base0 "$BASE0" --argjson base1 "$BASE1" --argjson self "$SELF_OK" --arg plant "$PLANT" \
	--argjson nsamp "$NSAMP" --argjson busy "${BUSY_AT_TEARDOWN:-0}" --argjson notrec "$NOTREC" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
	--rawfile samples "$S_CSV" --argjson nowned "$(wc -l <"$OUT/owned_ever.txt")" '
	def pct(p): sort | if length == 0 then null else .[((length - 1) * p | floor)] end;
	($faults | split("\n") | .[1:] | map(select(length > 0) | split(",") |
		{kind: .[0], t: (.[1] | tonumber), ms: (.[2] | tonumber), ok: (.[3] == "1")})) as $f |
	($samples | split("\n") | .[1:] | map(select(length > 0) | split(","))) as $s |
	{schema: "dcbpf-soak/1", duration_s: $dur, fault_every_s: $fault_s, rate_mbit: $rate,
	 loadavg_end: $load, samples: $nsamp, owned_objects_seen: $nowned,
	 faults: ($f | group_by(.kind) | map({key: .[0].kind, value: {injected: length,
		recovered: (map(select(.ok)) | length), recover_ms_p50: (map(.ms) | pct(0.5)),
		recover_ms_max: (map(.ms) | max)}}) | from_entries),
	 faults_total: ($f | length), recoveries: ($f | map(select(.ok)) | length),
	 recover_ms_p50: ($f | map(.ms) | pct(0.5)), recover_ms_max: ($f | map(.ms) | max),
	 live_sets: $sets, invalid_sets: $inv,
	 resources: {owned_first: ($s[0] | {progs: (.[1] | tonumber), maps: (.[2] | tonumber), links: (.[3] | tonumber)}),
		owned_last: ($s[-1] | {progs: (.[1] | tonumber), maps: (.[2] | tonumber), links: (.[3] | tonumber)}),
		growth_last_vs_first_third: {progs: $gp, maps: $gm, links: $gl},
		dc_totals_before: $base0, dc_totals_after: $base1},
	 rss_kb: {first: ($s | map(.[4] | tonumber? // empty) | first), max: ($s | map(.[4] | tonumber? // empty) | max),
		last: ($s | map(.[4] | tonumber? // empty) | last), growth_last_vs_first_third: $gr},
	 leaks: $leaks, leaked: ($leaklist | split("\n") | map(select(length > 0))),
	 selftest: {planted_map_id: $plant, detected: $self},
	 checks: {leaks: ($leaks == 0), leak_checker_selftest: $self,
		no_growth: ($gp <= 0 and $gm <= 0 and $gl <= 0), rss_flat: ($gr <= 1024),
		dmesg_clean: ($dmesg == 0), no_stuck_flow: ($stuck == 0),
		counters_monotonic: ($nonmono == 0), config_as_last_valid: ($mism == 0),
		invalid_refused: ($inv_acc == 0 and $inv > 0), every_fault_recovered: ($notrec == 0 and ($f | length) > 0)},
	 connections_open_at_teardown: $busy, kernel_warnings: $dmesg, stuck_windows: $stuck, config_mismatches: $mism, invalid_accepted: $inv_acc,
	 non_monotonic: $nonmono}' >"$OUT/summary.json"
jq -c '.checks' "$OUT/summary.json" >&2
jq -e '.checks | all' "$OUT/summary.json" >/dev/null
