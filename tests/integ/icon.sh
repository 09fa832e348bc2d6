# Integration: ICON's sockops program (bpf/icon.bpf.c) between two
# namespaces joined by a veth, both in one cgroup with the program attached
# by `dcbpf icon attach` and sinks configured by `dcbpf icon set`
# (errors: set before attach, attach twice, bad address, n > 65535).
#   1. a sink listening on SINK:5001 with n = 26 in dc_icon_cfg: the sender
#      has n = 26 as soon as the connection is established, before any
#      data (so from the SYN-ACK), and the sink's side shows it sent 26;
#   2. the sender's pacing cap after a response is Eq. 3.1 with n = 26 from
#      the cwnd, mss and srtt it was computed from, and the kernel took it;
#   3. n changed to 8 in the config: the sink's next segments carry an
#      update, the sender's n becomes 8 (counted as a change), and stays 8
#      over a further request on the same connection;
#   4. a sink address without configuration: no option, n stays 0 and the
#      cap is the IA-ICON one (n = 1);
#   5. the sink opening the connection (n in its SYN, read by the sender's
#      listener from the saved SYN).
#   6. a sink writing version 0 (a malformed option on the wire): the sender
#      ignores it (counted), paces as IA-ICON, the exchange completes;
#   7. `dcbpf icon status --json` shows sinks, counters and flows; set N 0
#      removes a sink; detach removes every pin.
# Every malformed form is refused by the parser (tests/unit/test_icon.c).
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

t_need_root "icon"
for c in bpftool jq python3; do
	command -v $c >/dev/null || { t_fail "icon: prerequisites" "'$c' missing"; exit 1; }
done
OBJ=$BUILD/icon.bpf.o
[ -f "$OBJ" ] || { t_fail "icon: $OBJ built" "run make"; exit 1; }
PIN=/sys/fs/bpf/dcbpf-icon$$
D=("$BUILD/dcbpf" --pin-dir "$PIN")
M=$PIN/icon
SINK=10.209.0.1 SINK2=10.209.0.3 SND=10.209.0.2
RESP=100000
tmp=$(t_mktmp icon) || exit 1

cleanup() {
	"${D[@]}" icon detach >/dev/null 2>&1
	rm -rf "$PIN"
}
fabric_init || { t_fail "icon: fabric" "init failed"; exit 1; }
fabric_on_exit cleanup
fabric_make_host sink && A=$FAB_LAST_NS && fabric_make_host snd && B=$FAB_LAST_NS &&
	fabric_make_link "$A" a0 "$B" b0 &&
	ip -n "$A" addr add $SINK/24 dev "$FAB_LAST_DEV_A" && ip -n "$A" addr add $SINK2/24 dev "$FAB_LAST_DEV_A" &&
	ip -n "$B" addr add $SND/24 dev "$FAB_LAST_DEV_B" && fabric_cgroup ||
	{ t_fail "icon: two namespaces and a veth" "setup failed"; exit 1; }
expect "icon: set before attach names the missing attach" 1 "ICON is not attached.*dcbpf icon attach" \
	"${D[@]}" icon set $SINK:5001 26
expect "icon: attach to the cgroup" 0 "icon: attached to $FAB_ETH_CG" "${D[@]}" icon attach --cgroup "$FAB_ETH_CG"
[ -e "$M/sockops" ] && [ -e "$M/dc_icon_cfg" ] && [ -e "$M/dc_icon_flows" ] ||
	{ t_fail "icon: link and maps pinned under $M" "$(ls "$M" 2>&1 | tr '\n' ' ')"; exit 1; }
expect "icon: a second attach is refused" 1 "already attached" "${D[@]}" icon attach --cgroup "$FAB_ETH_CG"
expect "icon: set refuses a bad address" 2 "not an IPv4 address" "${D[@]}" icon set 10.209.0:5001 26
expect "icon: set refuses n above 65535" 2 "above the maximum 65535" "${D[@]}" icon set $SINK:5001 65536

# cfg_set IP[:PORT] N: the n a sink socket bound to IP:PORT advertises (no PORT: any)
cfg_set() { "${D[@]}" icon set "$@"; }
# flow KEYFIELD PORT: the mirror entry whose key has KEYFIELD (sport|dport) == PORT
# and whose local address is the sender's
# le32 A.B.C.D: the address as bpftool prints a __be32 read on a little-endian host
# shellcheck disable=SC2086  # split on the dots
le32() { local IFS=.; set -- $1; echo $(($1 | $2 << 8 | $3 << 16 | $4 << 24)); }
snd_addr=$(le32 $SND)
sink_addr=$(le32 $SINK)
flow() {
	bpftool map dump pinned $M/dc_icon_flows -j |
		jq -c "[.[].formatted | select(.key.$1 == $2 and .key.saddr[0] == $3) | .value][0] // empty"
}
stat() { bpftool map dump pinned $M/dc_icon_stats -j | jq ".[0].formatted.value.$1"; }
# eq31 FLOW N: the cap Eq. 3.1 gives for the cwnd, mss and srtt the flow recorded
eq31() { jq -n --argjson f "$1" "(\$f.cwnd_pkts * \$f.mss_bytes * 8000000 / (\$f.srtt_us8 * $2)) | floor"; }
has_n() { f=$(flow "$1" "$2" "$3") && [ -n "$f" ] && [ "$(jq .n_peer <<<"$f")" = "$4" ]; }
done_round() { [ -e "$tmp/done$1" ]; }
sink() { fabric_bg "" fabric_cg_exec "$A" python3 tests/lib/icon_peer.py sink "$@"; }
sender() { fabric_bg "" fabric_cg_exec "$B" python3 tests/lib/icon_peer.py sender "$@"; }

# 1. the handshake
cfg_set $SINK:5001 26 || { t_fail "icon: config entry written" "dcbpf icon set failed"; exit 1; }
sink listen $SINK 5001 3 $RESP "$tmp"
fabric_wait_port "$A" 5001 || t_fail "icon: sink listens" "port 5001"
sender connect $SINK 5001 $RESP
if wait_until 10 has_n dport 5001 "$snd_addr" 26; then
	t_pass "icon: the sender has n = 26 after the handshake, before any data (SYN-ACK option parsed)"
else
	t_fail "icon: the sender has n = 26 after the handshake" "flow: $(flow dport 5001 "$snd_addr")"
fi
f=$(flow sport 5001 "$sink_addr")
jqv "icon: the sink's side advertised n = 26" "$f" '.n_sent == 26'

# 2. the pacing cap after a response
touch "$tmp/go1"
wait_until 15 done_round 1 || t_fail "icon: round 1 completes" "no response in 15 s"
f=$(flow dport 5001 "$snd_addr")
want=$(eq31 "$f" 26)
jqv "icon: the cap is cwnd*mss/(srtt*26) (Eq. 3.1) = $want B/s" "$f" ".rate_Bps == $want and .rate_Bps > 0"
rs=$(stat rate_set) re=$(stat rate_err)
[ "${rs:-0}" -gt 0 ] && [ "$re" = 0 ] && t_pass "icon: SO_MAX_PACING_RATE taken ($rs caps set, 0 refused)" ||
	t_fail "icon: SO_MAX_PACING_RATE taken" "rate_set $rs rate_err $re"
# ss prints pacing_rate CURRENT/MAX: MAX is the last cap set (bit/s; an
# iproute2 that rounds with a k/M/G unit is compared within 1 %)
# (the last ACKs may still set a cap: read both until they agree, or 1 s)
ss_cap() {
	ssline=$(ip netns exec "$B" ss -tinH dst $SINK dport = 5001 2>/dev/null | tr '\n' ' ')
	ssmax=$(grep -oE 'pacing_rate [0-9.]+[kMG]?bps/[0-9.]+[kMG]?bps' <<<"$ssline" |
		sed -E 's/.*\/([0-9.]+[kMG]?)bps/\1/')
	capbits=$(($(flow dport 5001 "$snd_addr" | jq .rate_Bps) * 8))
	ss_match
}
ss_match() {
	[ -n "$ssmax" ] && awk -v m="$ssmax" -v c="$capbits" 'BEGIN {
	u = substr(m, length(m)); v = m + 0
	if (u == "k") v *= 1e3; else if (u == "M") v *= 1e6; else if (u == "G") v *= 1e9
	d = v - c; if (d < 0) d = -d
	exit !(m ~ /[kMG]$/ ? d <= c / 100 : v == c) }'
}
if wait_until 1 ss_cap; then
	t_pass "icon: the socket's max pacing rate is the cap ($capbits bit/s)"
else
	t_fail "icon: the socket's max pacing rate is the cap" "ss max '$ssmax', cap $capbits bit/s: $ssline"
fi

# 3. an update
cfg_set $SINK:5001 8
touch "$tmp/go2"
wait_until 15 done_round 2 || t_fail "icon: round 2 completes" "no response in 15 s"
if wait_until 5 has_n dport 5001 "$snd_addr" 8; then
	t_pass "icon: n changed to 8 in the config reaches the sender on the same connection"
else
	t_fail "icon: the update reaches the sender" "flow: $(flow dport 5001 "$snd_addr")"
fi
nc=$(stat n_changed) up=$(stat opt_updates)
[ "${nc:-0}" -ge 1 ] && [ "${up:-0}" -ge 1 ] && t_pass "icon: counted: $up update options, $nc change of n" ||
	t_fail "icon: update counted" "opt_updates $up n_changed $nc"
touch "$tmp/go3"
wait_until 15 done_round 3 || t_fail "icon: round 3 completes" "no response in 15 s"
f=$(flow dport 5001 "$snd_addr")
jqv "icon: n = 8 persists over a further request, cap with n = 8" "$f" ".n_peer == 8 and .rate_Bps == $(eq31 "$f" 8)"
jqv "icon: the sink's side shows n = 8 sent" "$(flow sport 5001 "$sink_addr")" '.n_sent == 8'

# 4. IA-ICON: no configuration for the second sink address
mkdir -p "$tmp/ia"
sink listen $SINK2 5002 1 $RESP "$tmp/ia"
fabric_wait_port "$A" 5002 || t_fail "icon: second sink listens" "port 5002"
sender connect $SINK2 5002 $RESP
touch "$tmp/ia/go1"
wait_until 15 test -e "$tmp/ia/done1" || t_fail "icon: IA-ICON round completes" "no response in 15 s"
f=$(flow dport 5002 "$snd_addr")
jqv "icon: no option: n stays 0, no option counted, cap cwnd*mss/srtt (n = 1)" "$f" \
	".n_peer == 0 and .opts_rx == 0 and .rate_Bps > 0 and .rate_Bps == $(eq31 "$f" 1)"

# 5. the sink opens the connection: n in its SYN, read from the saved SYN
cfg_set $SINK 20
mkdir -p "$tmp/ao"
sender listen $SND 5003 $RESP
fabric_wait_port "$B" 5003 || t_fail "icon: sender listens" "port 5003"
sink connect $SND 5003 1 $RESP "$tmp/ao"
if wait_until 10 has_n sport 5003 "$snd_addr" 20; then
	t_pass "icon: a sink's SYN carries n = 20, the sender's listener reads it"
else
	t_fail "icon: a sink's SYN carries n" "flow: $(flow sport 5003 "$snd_addr")"
fi
touch "$tmp/ao/go1"
wait_until 15 test -e "$tmp/ao/done1" || t_fail "icon: active-open round completes" "no response in 15 s"
bad=$(stat opt_bad)
[ "$bad" = 0 ] && t_pass "icon: no option refused as malformed in these runs" ||
	t_fail "icon: no malformed options" "opt_bad $bad"

# 6. a sink whose options are malformed on the wire (version 0): ignored,
#    counted, the sender paces as IA-ICON and the exchange completes
cfg_set $SINK2:5004 12 --test-bad-version
mkdir -p "$tmp/bad"
sink listen $SINK2 5004 1 $RESP "$tmp/bad"
fabric_wait_port "$A" 5004 || t_fail "icon: third sink listens" "port 5004"
sender connect $SINK2 5004 $RESP
touch "$tmp/bad/go1"
wait_until 15 test -e "$tmp/bad/done1" && t_pass "icon: the exchange with malformed options completes" ||
	t_fail "icon: the exchange with malformed options completes" "no response in 15 s"
f=$(flow dport 5004 "$snd_addr")
jqv "icon: a malformed option is ignored: n stays 0, counted bad, IA-ICON cap" "$f" \
	".n_peer == 0 and .opts_rx == 0 and .opts_bad >= 1 and .rate_Bps == $(eq31 "$f" 1)"
bad=$(stat opt_bad)
[ "${bad:-0}" -ge 1 ] && t_pass "icon: opt_bad counted ($bad)" || t_fail "icon: opt_bad counted" "opt_bad $bad"

# 7. the command's view
jqs "icon: status --json: the sinks, the counters, the sender's flow with n 8" \
	'([.sinks[] | [.sink, .n, .flags]] | sort) == [["10.209.0.1:0", 20, 0], ["10.209.0.1:5001", 8, 0], ["10.209.0.3:5004", 12, 1]] and
	 .counters.opt_parsed >= 3 and
	 ([.flows[] | select(.local | startswith("10.209.0.2:")) | select(.remote == "10.209.0.1:5001") | .n_peer] == [8])' \
	"${D[@]}" --json icon status
# the same counters in the Prometheus text (one list: include/dcbpf/icon.h)
parsed=$("${D[@]}" metrics | awk '$1 == "dcbpf_icon_opt_parsed_total" { print $2 }')
[ "${parsed:-0}" -ge 3 ] && t_pass "icon: dcbpf metrics: dcbpf_icon_opt_parsed_total $parsed" ||
	t_fail "icon: dcbpf metrics: dcbpf_icon_opt_parsed_total at least 3" "'$parsed'"
cfg_set $SINK:5001 0
jqs "icon: set N 0 removes the entry" '([.sinks[].sink] | sort) == ["10.209.0.1:0", "10.209.0.3:5004"]' "${D[@]}" --json icon status
expect "icon: detach" 0 "icon: detached" "${D[@]}" icon detach
[ ! -e "$M" ] && t_pass "icon: detach removed the pins" || t_fail "icon: detach removed the pins" "$(ls "$M" 2>&1)"

[ -z "${T_FAILED:-}" ]
