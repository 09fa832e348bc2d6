# Live s-PERC link capacity: `dcbpf perc set` and dcbpfd's [perc] section on
# a scratch switch namespace with one attached link (sa0, link 3, its peer in
# a second namespace) and an interface that is not attached (sc0):
#  - set before attach: "not attached", exit 1;
#  - two control packets leave by sa0 (NumB 2, two updates); set --dev and
#    set --link change dc_perc_lcfg and the capacity status shows, and keep
#    the link's state (NumB, SumE, updates, roundNumber); the next control
#    packet takes the new C into the link's own state (dc_perc_link);
#  - refused with their reason and nothing changed: capacity 0 and above
#    4294967294, an unknown interface, an interface that is no s-PERC port,
#    an unconfigured link, neither or both of --dev/--link, another namespace;
#  - dcbpfd: [perc] capacities applied at start and on SIGHUP (logged per
#    link); a reload naming an interface that is not attached keeps every
#    capacity (all or nothing) and says why; -t names a bad capacities line.
# host-suite: user space over the pinned maps; the data plane's use of the
# new capacity is tests/prog/test_perc_prog.c's (which runs in the VM), and
# the link program's tcx attach needs 6.6+ (the VM's 6.1 would skip here).
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.  SC2317: cleanup
# runs from the EXIT trap.
# SC2119: dcbpfd_start takes optional CC lines, none here.
# shellcheck disable=SC2015,SC2317,SC2119
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/dcbpfd.sh

t_need_root "perc set"
C=$BUILD/dcbpf
NS=dcbpf-pset$$
NB=dcbpf-psetb$$
PIN0=/sys/fs/bpf/dcbpf-pset$$
PIN=$PIN0

cleanup() {
	"$C" --pin-dir "${DCBPFD_PIN:-$PIN}" perc detach --netns "$NS" >/dev/null 2>&1
	"$C" --pin-dir "$PIN0" perc detach --netns "$NS" >/dev/null 2>&1
	dcbpfd_stop
	ip netns del "$NS" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	rm -rf "$PIN0"
}
t_cleanup cleanup

for b in "$C" "$BUILD/dcbpfd"; do
	[ -x "$b" ] || { t_fail "perc set: binaries built" "$b missing (run make)"; exit 1; }
done
ip netns add "$NS" && ip netns add "$NB" || { t_fail "perc set: namespaces" "ip netns add failed"; exit 1; }
ip -n "$NS" link add sa0 type veth peer name sb0 netns "$NB" &&
	ip -n "$NS" link add sc0 type veth peer name sd0 &&
	ip -n "$NS" addr add 10.77.0.1/24 dev sa0 && ip -n "$NB" addr add 10.77.0.2/24 dev sb0 &&
	ip -n "$NS" link set sa0 up && ip -n "$NB" link set sb0 up && ip -n "$NS" link set sc0 up ||
	{ t_fail "perc set: veth pair" "ip link failed"; exit 1; }

D=("$C" --pin-dir "$PIN")
expect "perc set: before attach, the namespace is named" 1 "s-PERC is not attached in netns $NS" \
	"${D[@]}" perc set --netns "$NS" --dev sa0 --cap-kbps 1000
out=$("${D[@]}" perc attach --netns "$NS" --dev sa0 --link 3 --cap-kbps 900000 --round-us 0 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q "needs 6.6+" <<<"$out"; then
	t_skip "perc set" "this kernel has no tcx links (the link program needs 6.6+)"
	exit 0
fi
[ $rc = 0 ] || { t_fail "perc set: attach" "rc=$rc: $out"; exit 1; }

# One fresh control packet (version 1, 1 hop, hop index 0; the hop: a 0,
# b 0, E with the ignore bit, roundNumber 0, link 0) out of sa0.
ctrl() {
	ip netns exec "$NS" bash -c 'printf "\x01\x00\x01\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00" >/dev/udp/10.77.0.2/20549'
}
link3() { "${D[@]}" perc status --netns "$NS" --json | jq -c '.links[] | select(.link == 3)'; }
# the link's own state, as the data plane keeps it (bpftool's named fields)
raw3() {
	bpftool map dump pinned "$PIN/perc/$NS/dc_perc_link" -j |
		jq -c '.[] | .formatted | select(.key == 3) | .value | {cap: .st.cap_kbps, sum_e: .st.sum_e_kbps,
			num_b: .st.num_b, rn: .st.round_number, updates, tick}'
}
lcfg3() { bpftool map dump pinned "$PIN/perc/$NS/dc_perc_lcfg" -j | jq -r '.[] | .formatted | select(.key == 3) | .value.cap_kbps'; }

ctrl && ctrl
wait_until 5 bash -c "[ \"\$(bpftool map dump pinned $PIN/perc/$NS/dc_perc_link -j | jq '.[] | .formatted | select(.key == 3) | .value.updates')\" = 2 ]"
before=$(raw3)
jqv "perc set: two control packets applied at link 3 (NumB 2, C 900000)" "$before" \
	'.updates == 2 and .num_b == 2 and .cap == 900000 and .sum_e == 0'

jqs "perc set --dev: old and new capacity, --json" \
	'.link == 3 and .port == "sa0" and .old_cap_kbps == 900000 and .cap_kbps == 450000' \
	"${D[@]}" --json perc set --netns "$NS" --dev sa0 --cap-kbps 450000
after=$(raw3)
[ "$after" = "$before" ] && t_pass "perc set: the link's state is untouched by the set" ||
	t_fail "perc set: the link's state is untouched by the set" "before $before after $after"
[ "$(lcfg3)" = 450000 ] && t_pass "perc set: dc_perc_lcfg[3] holds 450000" ||
	t_fail "perc set: dc_perc_lcfg[3] holds 450000" "$(lcfg3)"
jqv "perc set: status shows C 450000 and b = C / NumB = 225000" "$(link3)" \
	'.cap_kbps == 450000 and .b_kbps == 225000 and .num_b == 2 and .updates == 2'
expect "perc set --link: text names link, port-less, old and new" 0 \
	"link 3 \\(netns $NS\\): cap_kbps 450000 -> 300000" \
	"${D[@]}" perc set --netns "$NS" --link 3 --cap-kbps 300000

# the next control packet takes C into the link's state, NumB kept
ctrl
wait_until 5 bash -c "[ \"\$(bpftool map dump pinned $PIN/perc/$NS/dc_perc_link -j | jq '.[] | .formatted | select(.key == 3) | .value.updates')\" = 3 ]"
jqv "perc set: the next control packet applies C 300000 in the data plane, NumB 3" "$(raw3)" \
	'.cap == 300000 and .updates == 3 and .num_b == 3'

# refusals: reason, exit code, nothing changed
state=$(raw3)
refuse() { # NAME CODE TEXT ARGS...
	local name=$1 code=$2 text=$3
	shift 3
	expect "perc set: refused: $name" "$code" "$text" "${D[@]}" perc set "$@"
	[ "$(raw3)" = "$state" ] && [ "$(lcfg3)" = 300000 ] &&
		t_pass "perc set: refused $name: link state and capacity unchanged" ||
		t_fail "perc set: refused $name: link state and capacity unchanged" "$(raw3) $(lcfg3)"
}
refuse "capacity 0" 2 "cap-kbps" --netns "$NS" --dev sa0 --cap-kbps 0
refuse "capacity above 4294967294" 2 "cap-kbps" --netns "$NS" --dev sa0 --cap-kbps 4294967295
refuse "unknown interface" 1 "nope0" --netns "$NS" --dev nope0 --cap-kbps 1000
refuse "an interface that is no s-PERC port" 1 "sc0 \\(netns $NS\\) is not an s-PERC port" \
	--netns "$NS" --dev sc0 --cap-kbps 1000
refuse "an unconfigured link" 1 "link 7 is not configured in netns $NS" --netns "$NS" --link 7 --cap-kbps 1000
refuse "neither --dev nor --link" 2 "one of them" --netns "$NS" --cap-kbps 1000
refuse "both --dev and --link" 2 "one of them" --netns "$NS" --dev sa0 --link 3 --cap-kbps 1000
refuse "another namespace" 1 "s-PERC is not attached in netns $NB" --netns "$NB" --dev sb0 --cap-kbps 1000
"${D[@]}" perc detach --netns "$NS" >/dev/null 2>&1

# ---- dcbpfd [perc] ----------------------------------------------------------------------
BAD=$(mktemp /tmp/dcbpfd-pset-XXXXXX.conf)
printf '[perc]\ncapacities = sa0=1000 sa1=0\n' >"$BAD"
out=$("$BUILD/dcbpfd" -t -c "$BAD" 2>&1)
rc=$?
rm -f "$BAD"
[ $rc = 1 ] && [[ "$out" == *":2: [perc] capacities = sa0=1000 sa1=0: 'sa1=0': capacity must be 1-4294967294 kbps"* ]] &&
	t_pass "perc set: dcbpfd -t names a bad [perc] capacities line (exit 1)" ||
	t_fail "perc set: dcbpfd -t names a bad [perc] capacities line" "rc=$rc: $out"

DCBPFD_EXTRA="[perc]\nnetns = $NS\ncapacities = sa0=450000"
dcbpfd_start || { t_fail "perc set: dcbpfd starts" "$DCBPFD_ERR"; exit 1; }
PIN=$DCBPFD_PIN
D=("$C" --pin-dir "$PIN")
LOG=${DCBPFD_CONF%.conf}.log
# the daemon starts before the link is attached: logged, the reload applies it
"${D[@]}" perc attach --netns "$NS" --dev sa0 --link 3 --cap-kbps 900000 --round-us 0 >/dev/null 2>&1 ||
	t_fail "perc set: attach under the daemon's pin dir" "attach failed"
wait_until 10 grep -q "start: \\[perc\\] capacities not applied: s-PERC is not attached in netns $NS" "$LOG" &&
	t_pass "perc set: dcbpfd start before the attach says why [perc] was not applied" ||
	t_fail "perc set: dcbpfd start before the attach says why" "$(tail -n 3 "$LOG")"
ctrl
wait_until 5 bash -c "[ \"\$(bpftool map dump pinned $PIN/perc/$NS/dc_perc_link -j | jq '.[] | .formatted | select(.key == 3) | .value.updates')\" = 1 ]"
state=$(raw3)
kill -HUP "$DCBPFD_PID"
wait_until 10 grep -q "perc.sa0: link 3 cap_kbps 900000 -> 450000 (reload)" "$LOG" &&
	[ "$(lcfg3)" = 450000 ] && [ "$(raw3)" = "$state" ] &&
	t_pass "perc set: SIGHUP applies [perc] capacities (logged, lcfg 450000, link state kept)" ||
	t_fail "perc set: SIGHUP applies [perc] capacities" "$(lcfg3) $(raw3) $(tail -n 3 "$LOG")"
sed -i 's/^capacities = .*/capacities = sa0=200000 sc0=5000/' "$DCBPFD_CONF"
kill -HUP "$DCBPFD_PID"
wait_until 10 grep -q "reload: \\[perc\\] capacities not applied: sc0 (netns $NS) is not an s-PERC port" "$LOG" &&
	[ "$(lcfg3)" = 450000 ] &&
	t_pass "perc set: a reload naming a port that is not attached changes no capacity and says why" ||
	t_fail "perc set: a reload naming a port that is not attached" "$(lcfg3) $(tail -n 3 "$LOG")"
sed -i 's/^capacities = .*/capacities = sa0=200000/' "$DCBPFD_CONF"
kill -HUP "$DCBPFD_PID"
wait_until 10 grep -q "perc.sa0: link 3 cap_kbps 450000 -> 200000 (reload)" "$LOG" && [ "$(lcfg3)" = 200000 ] &&
	t_pass "perc set: the fixed file applies on the next reload" ||
	t_fail "perc set: the fixed file applies on the next reload" "$(lcfg3) $(tail -n 3 "$LOG")"

[ -z "${T_FAILED:-}" ]
