# The switch's classification-mode keys (prio_mode, sly_k, reserved_bytes;
# docs/admission.md, "Classification modes") through `switch up`, `switch
# status`, `get` and `set`:
#  - bad values (a fraction outside (0, 1] or not a number, an unknown mode,
#    a reserved buffer below one MTU) and a mode on a switch without queues
#    are refused at `up` with the key, the value and what is allowed, exit 2,
#    and leave no pins;
#  - a switch up with --queues 2 prio_mode=slytherin sly_k=0.125 shows the
#    mode and K = B/8 in status (text and JSON) and in `get`;
#  - `set` changes mode and reserved buffer; a bad value, or a mode on a
#    switch without queues, changes nothing (all or nothing) and says so.
# host-suite: parsing, refusals, get/set and status are user space above the switch's load and
# attach paths; the BPF these keys configure is proven on every kernel by
# tests/prog/test_sw_modes.c and tests/integ/slytherin.sh.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "sw modes cli" || exit 0

NS=swm$$
SW=swm$$
PIN=/sys/fs/bpf/dcbpf-swm$$
D=("$BUILD/dcbpf" --pin-dir "$PIN")
cleanup() {
	"${D[@]}" switch down "$SW" >/dev/null 2>&1
	"${D[@]}" switch down "${SW}b" >/dev/null 2>&1
	rm -rf "$PIN"
	ip netns del "$NS" 2>/dev/null
}
t_cleanup cleanup
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" link add va0 type veth peer name vb0 &&
	ip -n "$NS" link add vc0 type veth peer name vd0 &&
	for d in va0 vb0 vc0 vd0; do ip -n "$NS" link set "$d" up || exit 1; done ||
	{ t_fail "sw modes cli: namespace with two veth pairs" "ip failed"; exit 1; }

up() { "${D[@]}" switch up "$SW" --netns "$NS" --ports va0,vb0 "$@"; }

# ---- refused at up, nothing left behind ---------------------------------------------------
expect "sw modes cli: up sly_k=1.5 refused: out of range, allowed (0, 1]" 2 \
	'not started: sly_k = 1\.5: out of range; allowed \(0, 1\]' up --queues 2 sly_k=1.5
expect "sw modes cli: up sly_k=0 refused" 2 'sly_k = 0: out of range' up --queues 2 sly_k=0
expect "sw modes cli: up sly_k=nan refused: not a number" 2 'sly_k = nan: not a decimal number' \
	up --queues 2 sly_k=nan
expect "sw modes cli: up prio_mode=bogus refused, the modes named" 2 \
	'prio_mode = bogus: unknown classification mode; allowed dscp, slytherin or resqueue' \
	up --queues 2 prio_mode=bogus
expect "sw modes cli: up reserved_bytes=100 refused (below one MTU)" 2 \
	'reserved_bytes = 100: out of range; allowed \[1500, ' up --queues 2 reserved_bytes=100
expect "sw modes cli: up prio_mode=slytherin without queues refused" 2 \
	'prio_mode=slytherin: slytherin needs two queues per port' up prio_mode=slytherin
expect "sw modes cli: up prio_mode=resqueue without queues refused" 2 \
	'prio_mode=resqueue: resqueue needs queues per port' up prio_mode=resqueue
[ ! -e "$PIN/sw/$SW" ] && t_pass "sw modes cli: the refused ups left no pins" ||
	t_fail "sw modes cli: the refused ups left no pins" "$(ls "$PIN/sw/$SW" 2>&1 | head -n 3)"

# ---- a Slytherin switch -----------------------------------------------------------------------
expect "sw modes cli: up --queues 2 prio_mode=slytherin sly_k=0.125" 0 'strict-priority queues' \
	up --queues 2 prio_mode=slytherin sly_k=0.125
expect "sw modes cli: status names the mode, K as a fraction and in bytes" 0 \
	'classification slytherin .*sly_k 0\.125 of B = [0-9]+ bytes' "${D[@]}" switch status "$SW"
jqs "sw modes cli: status --json: prio_mode, sly_k 0.125, sly_k_bytes = B/8, reserved_bytes 20000" \
	'.prio_mode == "slytherin" and .sly_k == 0.125 and .sly_k_bytes == (.buffer_bytes / 8 | floor) and .reserved_bytes == 20000' \
	"${D[@]}" --json switch status "$SW"
expect "sw modes cli: get sw.NAME.sly_k" 0 '^0\.125$' "${D[@]}" get "sw.$SW.sly_k"
expect "sw modes cli: set sly_k=2 refused, nothing changed" 2 \
	"sw\.$SW\.sly_k = 2: out of range; allowed \(0, 1\]; nothing changed" \
	"${D[@]}" set "sw.$SW.sly_k=2"
expect "sw modes cli: set with one bad mode among good keys refused" 2 \
	'prio_mode = pias: unknown classification mode.*nothing changed' \
	"${D[@]}" set "sw.$SW.reserved_bytes=15000" "sw.$SW.prio_mode=pias"
expect "sw modes cli: ... sly_k kept" 0 '^0\.125$' "${D[@]}" get "sw.$SW.sly_k"
expect "sw modes cli: ... reserved_bytes kept" 0 '^20000$' "${D[@]}" get "sw.$SW.reserved_bytes"
expect "sw modes cli: ... prio_mode kept" 0 '^slytherin$' "${D[@]}" get "sw.$SW.prio_mode"
expect "sw modes cli: set prio_mode=resqueue reserved_bytes=15000" 0 \
	"sw\.$SW\.prio_mode: slytherin -> resqueue" \
	"${D[@]}" set "sw.$SW.prio_mode=resqueue" "sw.$SW.reserved_bytes=15000"
expect "sw modes cli: status names the reserved queue and its buffer" 0 \
	'classification resqueue \(queue 1, the reserved level, admitted against its own 15000 bytes per port\)' \
	"${D[@]}" switch status "$SW"

# ---- a switch without queues refuses a mode at set -----------------------------------------
if "${D[@]}" switch up "${SW}b" --netns "$NS" --ports vc0,vd0 >/dev/null 2>&1; then
	expect "sw modes cli: set prio_mode=slytherin on a switch without queues refused" 2 \
		"sw\.${SW}b\.prio_mode=slytherin: switch ${SW}b has 1 queue per port: slytherin needs two queues per port.*nothing changed" \
		"${D[@]}" set "sw.${SW}b.prio_mode=slytherin"
	expect "sw modes cli: ... its mode stays dscp" 0 '^dscp$' "${D[@]}" get "sw.${SW}b.prio_mode"
else
	t_fail "sw modes cli: a second switch without queues" "switch up failed"
fi
[ -z "${T_FAILED:-}" ]
