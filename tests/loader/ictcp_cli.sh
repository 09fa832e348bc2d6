# `dcbpf ictcp attach|set|status|detach` and the program on this kernel:
# set and status before attach name the missing attach; attach twice is
# refused; set refuses alpha 0, beta 1, gamma1 above gamma2 and init-mss 1;
# set writes the paper's defaults for options not given.  Then two
# connections into the aggregator's cgroup on an unshaped veth: the kernel
# accepts TCP_WINDOW_CLAMP from sockops (clamps set, none refused), the
# per-segment callbacks fire at the receiver and 2-RTT periods are
# evaluated, every flow starts at 2 mss and never goes below, both complete;
# status --json shows the slot, counters and flows; detach removes the pins.
# The control loop under a bottleneck: tests/integ/ictcp.sh.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

t_need_root "ictcp cli"
for c in jq python3; do
	command -v $c >/dev/null || { t_fail "ictcp cli: prerequisites" "'$c' missing"; exit 1; }
done
[ -x "$BUILD/dcbpf" ] || { t_fail "ictcp cli: dcbpf built" "run make"; exit 1; }
PIN=/sys/fs/bpf/dcbpf-ictcpcli$$
D=("$BUILD/dcbpf" --pin-dir "$PIN")
M=$PIN/ictcp
AGG=10.214.0.1 SRC=10.214.0.2
tmp=$(t_mktmp ictcp-cli) || exit 1

cleanup() {
	"${D[@]}" ictcp detach >/dev/null 2>&1
	rm -rf "$PIN"
}
fabric_init || { t_fail "ictcp cli: fabric" "init failed"; exit 1; }
fabric_on_exit cleanup
fabric_make_host agg && A=$FAB_LAST_NS && fabric_make_host snd && B=$FAB_LAST_NS &&
	fabric_make_link "$A" a0 "$B" b0 &&
	ip -n "$A" addr add $AGG/24 dev "$FAB_LAST_DEV_A" && ip -n "$B" addr add $SRC/24 dev "$FAB_LAST_DEV_B" &&
	fabric_cgroup || { t_fail "ictcp cli: two namespaces and a veth" "setup failed"; exit 1; }

# a map of another layout pinned where the program's goes: the load is
# refused with the reason; --verbose adds libbpf's own account, plain does not
mkdir -p "$M" && bpftool map create "$M/dc_ictcp_stats" type array key 4 value 4 entries 1 name dc_ictcp_stats ||
	t_fail "ictcp cli: a foreign map pinned" "bpftool map create failed"
out=$("${D[@]}" ictcp attach --cgroup "$FAB_ETH_CG" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "another layout" <<<"$out" && ! grep -q "^libbpf:" <<<"$out" &&
	t_pass "ictcp cli: a map of another layout refuses the load, libbpf quiet" ||
	t_fail "ictcp cli: a map of another layout refuses the load, libbpf quiet" "exit $rc: $out"
# the refused load removes only what it pinned itself: the foreign map stays
[ -e "$M/dc_ictcp_stats" ] && [ "$(ls "$M")" = dc_ictcp_stats ] &&
	[ "$(bpftool map show pinned "$M/dc_ictcp_stats" -j | jq -r '.bytes_value')" = 4 ] &&
	t_pass "ictcp cli: the refused load leaves the foreign map pinned and pins nothing of its own" ||
	t_fail "ictcp cli: the refused load leaves the foreign map pinned" "$(ls "$M" 2>&1)"
out=$("${D[@]}" --verbose ictcp attach --cgroup "$FAB_ETH_CG" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "^libbpf: couldn't reuse pinned map.*dc_ictcp_stats" <<<"$out" &&
	t_pass "ictcp cli: --verbose shows libbpf's reason (the pinned map's mismatch)" ||
	t_fail "ictcp cli: --verbose shows libbpf's reason" "exit $rc: $out"
[ ! -e "$M/sockops" ] && t_pass "ictcp cli: nothing attached by the refused loads" ||
	t_fail "ictcp cli: nothing attached by the refused loads" "$(ls "$M")"
rm -rf "$M"
expect "ictcp cli: set before attach names the missing attach" 1 "ICTCP is not attached.*dcbpf ictcp attach" \
	"${D[@]}" ictcp set --link-mbit 100
expect "ictcp cli: status before attach too" 1 "ICTCP is not attached" "${D[@]}" ictcp status
expect "ictcp cli: detach before attach" 1 "ICTCP is not attached" "${D[@]}" ictcp detach
expect "ictcp cli: attach" 0 "ictcp: attached to $FAB_ETH_CG" "${D[@]}" ictcp attach --cgroup "$FAB_ETH_CG"
[ -e "$M/sockops" ] && [ -e "$M/dc_ictcp_cfg" ] && [ -e "$M/dc_ictcp_flows" ] && [ -e "$M/dc_ictcp_slot" ] ||
	{ t_fail "ictcp cli: link and maps pinned under $M" "$(ls "$M" 2>&1 | tr '\n' ' ')"; exit 1; }
expect "ictcp cli: a second attach is refused" 1 "already attached" "${D[@]}" ictcp attach --cgroup "$FAB_ETH_CG"
expect "ictcp cli: set needs the link capacity" 2 "link-mbit" "${D[@]}" ictcp set
expect "ictcp cli: alpha 0 refused" 2 "alpha" "${D[@]}" ictcp set --link-mbit 100 --alpha 0
expect "ictcp cli: beta 1 refused" 2 "beta" "${D[@]}" ictcp set --link-mbit 100 --beta 1
expect "ictcp cli: gamma1 above gamma2 refused" 2 "gamma1 must not exceed gamma2" \
	"${D[@]}" ictcp set --link-mbit 100 --gamma1 0.6
expect "ictcp cli: init-mss 1 refused (the floor is 2)" 2 "init-mss" "${D[@]}" ictcp set --link-mbit 100 --init-mss 1
"${D[@]}" ictcp set --link-mbit 1000 || t_fail "ictcp cli: set --link-mbit 1000" "refused"
jqs "ictcp cli: set writes C and the paper's defaults (0.9, 0.75, 0.1, 0.5, 2 mss)" \
	'.config == {"link_kbps": 1000000, "alpha_q16": 58982, "beta_q16": 49152, "gamma1_q16": 6554,
	 "gamma2_q16": 32768, "min_subslot_us": 0, "init_mss": 2} and .counters.clamps_set == 0' \
	"${D[@]}" --json ictcp status

fabric_bg "" fabric_cg_exec "$A" python3 tests/lib/ictcp_peer.py agg $AGG 5001 2 "$tmp/agg.log"
fabric_wait_port "$A" 5001 || t_fail "ictcp cli: aggregator listens" "port 5001"
ip netns exec "$B" python3 tests/lib/ictcp_peer.py snd $AGG 5001 2 300000 $SRC
wait_until 20 grep -q '^done' "$tmp/agg.log" &&
	t_pass "ictcp cli: both flows complete ($(tail -1 "$tmp/agg.log"))" ||
	t_fail "ictcp cli: both flows complete" "$(tail -2 "$tmp/agg.log" 2>/dev/null)"
st=$("${D[@]}" --json ictcp status)
jqv "ictcp cli: TCP_WINDOW_CLAMP accepted from sockops, per-segment callbacks, periods evaluated" "$st" \
	'.counters.clamps_set > 0 and .counters.clamp_err == 0 and .counters.periods > 0 and
	 (.counters.ticks_rx + .counters.ticks_tx) > 0 and .slot.slots > 0'
jqv "ictcp cli: both flows: a clamp of at least 2 mss, the bytes counted" "$st" \
	'[.flows[] | select(.local == "10.214.0.1:5001")] as $f | ($f | length) == 2 and
	 all($f[]; .rwnd_bytes >= 2 * .mss_bytes and .rwnd_max_bytes >= .rwnd_bytes and .bytes_rcvd > 0)'
# the same counters in the Prometheus text (one list: include/dcbpf/ictcp.h)
clamps=$("${D[@]}" metrics | awk '$1 == "dcbpf_ictcp_clamps_set_total" { print $2 }')
[ "${clamps:-0}" -gt 0 ] && [ "$clamps" -ge "$(jq '.counters.clamps_set' <<<"$st")" ] &&
	t_pass "ictcp cli: dcbpf metrics: dcbpf_ictcp_clamps_set_total $clamps, at least status's" ||
	t_fail "ictcp cli: dcbpf metrics: dcbpf_ictcp_clamps_set_total" "'$clamps'"
expect "ictcp cli: status text" 0 "slot: T [0-9]+ ns.*" "${D[@]}" ictcp status
expect "ictcp cli: detach" 0 "ictcp: detached" "${D[@]}" ictcp detach
[ ! -e "$M" ] && t_pass "ictcp cli: detach removed the pins" || t_fail "ictcp cli: detach removed the pins" "$(ls "$M" 2>&1)"

[ -z "${T_FAILED:-}" ]
