# host-suite: the short mode of tests/exp/cosy.sh, a leaf–spine of 10
# namespaces with real traffic, checks its output and the attachment; the
# switch program's kernel paths are proven on 6.1 by prog/test_cosy_prog
# and integ/cosy.sh.
#
# Integration: cosy on the leaf–spine fabric (tests/exp/cosy.sh, SHORT=1:
# K = 1, the RSVP baseline, and K = 4 at load 0.4, 12 messages of 128 KB
# from each of 6 hosts, all to all, Poisson).  Asserts the attachment —
# every leaf reserved VLs on both of its uplinks (a host of the other leaf
# has both as candidates and the program picks among their free VLs), the
# spines reserved on their downlinks, no switch dropped a packet, no TBF
# dropped one, no VL is held after the runs — that every message got an
# answer and none failed, that no message completed faster than its pacing
# at B/K allows, and what the experiment writes (runs.csv columns, one row
# per K, summary.csv, theta.csv with f(K, 2)·Θ*, summary.json, the PNGs).
# Not the figures: those are docs/results.md's.  A bad SHORT is refused.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "cosy_exp"
LOG="$OUT/cosy_exp"
rm -rf "$LOG"
mkdir -p "$LOG"
export DCBPF_SUITE_LOCKED=1

out=$(SHORT=2 OUT="$LOG/bad" tests/exp/cosy.sh 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "SHORT is 0 or 1, not '2'" <<<"$out" && [ ! -e "$LOG/bad" ] &&
	t_pass "cosy-exp: a bad SHORT refused (exit 2), nothing written" ||
	t_fail "cosy-exp: a bad SHORT refused" "exit $rc: $out"

d=$LOG/short
SHORT=1 OUT="$d" timeout 150 tests/exp/cosy.sh >"$LOG/short.log" 2>&1
rc=$?
[ $rc = 0 ] && t_pass "cosy-exp: SHORT=1 ran (exit 0)" ||
	t_fail "cosy-exp: SHORT=1 ran (exit 0)" "exit $rc: $(tail -n 5 "$LOG/short.log" | tr '\n' ' ')"
miss=""
for f in runs.csv messages.csv summary.csv theta.csv summary.json theta.png delivery.png queues.png \
	runs/131072-k1-l0.4-r1.json runs/131072-k4-l0.4-r1.json; do
	[ -s "$d/$f" ] || miss+=" $f"
done
[ -z "$miss" ] && t_pass "cosy-exp: every file written" || t_fail "cosy-exp: every file written" "missing:$miss"
COLS="size_bytes,k,mode,load,rep,msgs,complete,rejected,reject_no_vl,reject_busy,reject_timeout,refused,failed,unanswered,reject_frac,lat_p50_us,lat_p99_us,lat_max_us,wait_p99_us,delta_cosy_us,delta_star_us,tx_k_us,frac_late,over_max_us,q_host_pkts,q_hop1_pkts,q_hop2_pkts,q_hop3_pkts,qhat_pkts,qdisc_drops,switch_drops,vls_held,rejects_made,reclaimed,theta_star,f,theta_bound,loadavg_before,loadavg_after,duration_ms"
[ "$(head -n 1 "$d/runs.csv" 2>/dev/null)" = "$COLS" ] && t_pass "cosy-exp: runs.csv columns" ||
	t_fail "cosy-exp: runs.csv columns" "$(head -n 1 "$d/runs.csv" 2>&1)"

# per run: 72 messages, each answered, none failed, traffic carried;
# nothing dropped by a switch or a TBF; no VL held at the end
runs=$(jq -c '[.runs[] | {k, msgs, complete, unanswered, failed, switch_drops, qdisc_drops, vls_held, mode}]' "$d/summary.json" 2>&1)
jqv "cosy-exp: K 1 (rsvp) and 4 (cosy): all 72 messages answered, none failed, some complete; no drop anywhere, no VL held" \
	"$runs" '(map(.k) == [1, 4]) and (map(.mode) == ["rsvp", "cosy"]) and
	all(.[]; .msgs == 72 and .unanswered == 0 and .failed == 0 and .complete > 0 and
		.switch_drops == 0 and .qdisc_drops == 0 and .vls_held == 0)'

# the attachment: both uplinks of every leaf reserved VLs; the spines'
# downlinks too; reservations leaving a leaf by an uplink are the spines'
for k in 1 4; do
	f=$d/runs/131072-k$k-l0.4-r1.json
	jqv "cosy-exp K=$k: every leaf reserved on both uplinks, every spine on its downlinks" \
		"$(jq -c '[.switches[] | {switch, up: [.ports[] | select(.if | test("u[0-9]+s[0-9]+$")) | .reserved],
			down: [.ports[] | select(.if | test("d[0-9]+l[0-9]+$")) | .reserved]}]' "$f" 2>&1)" \
		'([.[] | select(.switch | test("^lf")) | .up | length == 2 and all(. > 0)] | length == 2 and all) and
		 ([.[] | select(.switch | test("^sp")) | .down | length == 2 and any(. > 0)] | length == 2 and all)'
	# an rsvp toward a host of the other leaf takes an uplink VL at the
	# receiver's leaf, then a downlink VL at the spine, or is refused there
	jqv "cosy-exp K=$k: every spine reservation continues a leaf's uplink one; the rest are rejects" \
		"$(jq -c '{up: ([.switches[] | select(.switch | test("^lf")) | .ports[] | select(.if | test("u[0-9]+s[0-9]+$")) | .reserved] | add),
			sp: ([.switches[] | select(.switch | test("^sp")) | .rsvps] | add),
			made: ([.switches[] | .rejects_made] | add)}' "$f" 2>&1)" \
		'.sp <= .up and .up - .sp <= .made'
done

# pacing: a message of s bytes at B/K takes at least (packets - 1) x
# 1400 B x K / B on the wire before its complete
awk -F, 'NR > 1 && $7 == "complete" { k = $2; s = $1; n = int((s + 1399) / 1400);
	need = (n - 1) * 1400 * 8 * k / 100e6 * 1e9; if ($10 < need) { bad++; print k, $10, need } ; ok++ }
	END { exit (bad > 0 || ok == 0) }' "$d/messages.csv" >"$LOG/pacing.txt" &&
	t_pass "cosy-exp: no message completed faster than pacing at B/K allows ($(wc -l <"$d/messages.csv") lines)" ||
	t_fail "cosy-exp: pacing" "$(head -n 5 "$LOG/pacing.txt")"

jqv "cosy-exp: theta.csv/summary.json: Θ per K against f(K,2)·Θ* (0.75 and 0.863 of Θ*)" \
	"$(jq -c '[.theta[] | {k, f, theta_bound, theta_star, theta_median}]' "$d/summary.json" 2>&1)" \
	'length == 2 and (.[0].f | . > 0.749 and . < 0.751) and (.[1].f | . > 0.862 and . < 0.864) and
	 all(.[]; (.theta_bound - .f * .theta_star | fabs) < 0.001 and .theta_median >= 0 and .theta_median <= 0.4)'
[ "$(head -n 1 "$d/summary.csv")" = "size_bytes,k,mode,load,metric,n,min,median,max" ] &&
	[ "$(grep -c ',reject_frac,1,' "$d/summary.csv")" = 2 ] &&
	t_pass "cosy-exp: summary.csv columns and a reject fraction per K" ||
	t_fail "cosy-exp: summary.csv" "$(head -n 3 "$d/summary.csv")"
[ -z "${T_FAILED:-}" ]
