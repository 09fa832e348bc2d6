# Reverie and SONiC need a root qdisc that queues on every switch port
# (docs/admission.md, "Ports need a queue"): their departures are the root
# qdisc's dequeues, and a port on veth's noqueue (or a FIFO, which bypasses
# itself while empty) gives none, so what XDP admits toward it would stay
# in the pools.  Checked:
#  - `switch up alg=reverie` and `alg=sonic` on a noqueue port, and on a
#    bfifo root, are refused with the port, the qdisc and the way out, exit
#    2, and leave no pins;
#  - with a TBF on both ports the same `up` starts; with --queues 2 (the
#    switch's own HTB) a noqueue port is accepted too;
#  - a live `set sw.NAME.alg=reverie` on a switch with a noqueue port is
#    refused, nothing changed (alg stays dt); once the port queues it is
#    accepted.
# host-suite: user space above the switch's load paths (tc(8) reads the
# root qdisc); the BPF is proven on 6.1 by prog/test_sw_reverie.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "sw pfcq cli" || exit 0

NS=swq$$
SW=swq$$
PIN=/sys/fs/bpf/dcbpf-swq$$
D=("$BUILD/dcbpf" --pin-dir "$PIN")
cleanup() {
	"${D[@]}" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN"
	ip netns del "$NS" 2>/dev/null
}
t_cleanup cleanup
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" link add va0 type veth peer name vb0 &&
	for d in va0 vb0; do ip -n "$NS" link set "$d" up || exit 1; done ||
	{ t_fail "sw pfcq cli: namespace with a veth pair" "ip failed"; exit 1; }
tbf() { tc -n "$NS" qdisc replace dev "$1" root handle 1: tbf rate 100mbit burst 16384 limit 200000; }
up() { "${D[@]}" switch up "$SW" --netns "$NS" --ports va0,vb0 "$@"; }
nopins() {
	[ ! -e "$PIN/sw/$SW" ] && t_pass "sw pfcq cli: $1 left no pins" ||
		t_fail "sw pfcq cli: $1 left no pins" "$(ls "$PIN/sw/$SW" 2>&1 | head -n 3)"
}

# ---- refused at up ---------------------------------------------------------------------------
tbf va0 || { t_fail "sw pfcq cli: tbf on va0" "tc failed"; exit 1; }
expect "sw pfcq cli: up alg=reverie with vb0 on noqueue refused, port and qdisc named" 2 \
	'not started: alg=reverie: port vb0 \(netns [^)]*\): root qdisc noqueue does not queue.*tc qdisc replace dev vb0 root' \
	up alg=reverie
expect "sw pfcq cli: up alg=sonic with vb0 on noqueue refused" 2 \
	'not started: alg=sonic: port vb0 .*root qdisc noqueue' up alg=sonic
tc -n "$NS" qdisc replace dev vb0 root bfifo limit 100000 ||
	{ t_fail "sw pfcq cli: bfifo on vb0" "tc failed"; exit 1; }
expect "sw pfcq cli: up alg=reverie with a bfifo root refused (it bypasses itself)" 2 \
	'port vb0 .*root qdisc bfifo bypasses itself while empty' up alg=reverie
nopins "the refused ups"

# ---- accepted ---------------------------------------------------------------------------------
tbf vb0 || { t_fail "sw pfcq cli: tbf on vb0" "tc failed"; exit 1; }
expect "sw pfcq cli: up alg=reverie with a TBF on every port" 0 "switch $SW up" up alg=reverie
expect "sw pfcq cli: ... alg reverie" 0 '^reverie$' "${D[@]}" get "sw.$SW.alg"
"${D[@]}" switch down "$SW" >/dev/null
tc -n "$NS" qdisc del dev vb0 root
expect "sw pfcq cli: up --queues 2 alg=reverie with vb0 on noqueue (the switch's HTB)" 0 \
	'strict-priority queues' up --queues 2 alg=reverie
"${D[@]}" switch down "$SW" >/dev/null
# the HTB the switch gave it stays after down: back to noqueue
tc -n "$NS" qdisc del dev vb0 root 2>/dev/null

# ---- live set ---------------------------------------------------------------------------------
expect "sw pfcq cli: up alg=dt with vb0 on noqueue (DT needs no departures)" 0 "switch $SW up" up
expect "sw pfcq cli: set alg=reverie refused while vb0 does not queue, nothing changed" 2 \
	"sw\.$SW\.alg=reverie: port vb0 .*root qdisc noqueue.*nothing changed" \
	"${D[@]}" set "sw.$SW.alg=reverie"
expect "sw pfcq cli: ... alg still dt" 0 '^dt$' "${D[@]}" get "sw.$SW.alg"
tbf vb0 || { t_fail "sw pfcq cli: tbf on vb0" "tc failed"; exit 1; }
expect "sw pfcq cli: set alg=sonic accepted once vb0 queues" 0 "sw\.$SW\.alg: dt -> sonic" \
	"${D[@]}" set "sw.$SW.alg=sonic"
expect "sw pfcq cli: ... alg sonic" 0 '^sonic$' "${D[@]}" get "sw.$SW.alg"
[ -z "${T_FAILED:-}" ]
