# kernel-independent: a pure core or user-space code, no BPF in the kernel
# `dcbpf rdcn schedule`, `rdcn check` and `rdcn bounds` on the command line:
# generated schedules (round robin, Mars, Vermilion) as JSON and as files
# that `rdcn check` accepts, Table 7.1's four designs and Theorem 18's d
# for L = 850 µs, and bad options, schedule files and demand files refused
# with the line and the reason.  No pinned state, no namespaces.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "rdcn cli: dcbpf built" "run make"; exit 1; }
D="$BUILD/dcbpf"
tmp=$(t_mktmp rdcn-cli) || exit 1
t_cleanup rm -rf "$tmp"

# ---- schedule ----
jqs "rdcn cli: rr n=5: 4 slots, sigma_t(i) = i+t+1 mod 5, every ordered pair once" \
	'.kind == "rr" and .period == 4 and .self_loops == 0 and .diameter == 1 and
	 ([range(4) as $t | [range(5) as $i | (($i + $t + 1) % 5)]] == [.slots[][0]]) and
	 ([.links[][]] | map(select(. == 1)) | length) == 20 and ([range(5) as $i | .links[$i][$i]] | add) == 0' \
	"$D" rdcn schedule --kind rr -n 5 --json
jqs "rdcn cli: §2.4's 25 ToRs: 24 matchings" '.period == 24 and .pairs_connected == 600' \
	"$D" --json rdcn schedule --kind rr --tors 25 --slot-ns 245000 --reconf-ns 20000
jqs "rdcn cli: rr-self 16 x 2: 8 slots, 16 self-loops, Corollary 1 at 400G: 0.9 x 400G / 8" \
	'.period == 8 and .self_loops == 16 and .cap_per_link_kbps == 45000000' \
	"$D" rdcn schedule --kind rr-self -n 16 -u 2 --slot-ns 100000 --reconf-ns 10000 -c 400 --json
jqs "rdcn cli: mars 16/4 x 2: period 2, diameter 2, de Bruijn's 4 self-loops" \
	'.kind == "mars" and .d == 4 and .period == 2 and .diameter == 2 and .self_loops == 4 and
	 ([.links[] | add] | unique) == [4]' \
	"$D" rdcn schedule --kind mars -n 16 -u 2 -d 4 --json
jqs "rdcn cli: mars d from B = 20 MB and L = 850 us (Thms 18, 19): 4" '.d == 4 and .period == 2' \
	"$D" rdcn schedule --kind mars -n 16 -u 2 --slot-ns 100000 --reconf-ns 10000 -c 400 \
	--buffer-bytes 20000000 --delay-ns 850000 --json

# Vermilion on a ring (n = 4, k = 3): 9 links on ring pairs, 1 on the others
printf '# ring\n0 1 0 0\n0 0 1 0\n0 0 0 1\n1 0 0 0\n' >"$tmp/ring.dem"
jqs "rdcn cli: vermilion ring k=3: 12 slots, E = 9 on the ring, 1 elsewhere" \
	'.period == 12 and .k == 3 and (.complete | not) and
	 .links == [[1,9,1,1],[1,1,9,1],[1,1,1,9],[9,1,1,1]]' \
	"$D" rdcn schedule --kind vermilion --demand "$tmp/ring.dem" --json
jqs "rdcn cli: vermilion k=3 l=2 (trust 1.5 < 2): the complete graph" \
	'.complete and ([.links[][]] | unique) == [3]' \
	"$D" rdcn schedule --kind vermilion --demand "$tmp/ring.dem" -k 3 -l 2 --json

# Alg. 8: k = r drawn from 1..k; over seeds both the complete graph (r = 1) and demand-aware ones
rs=""
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	rs+=$("$D" rdcn schedule --kind vermilion -m "$tmp/ring.dem" -k 3 --random-trust --seed $seed --json |
		jq -r 'select(.random_trust == 3 and .period == 4 * .k and
			(if .k == 1 then .complete else ((.complete | not) and .links[0][1] == 4 * .k - 3) end)) | .k')
done
case $rs in *1*2*|*2*1*) ok=1 ;; *) ok= ;; esac
if [ -n "$ok" ] && [ "${#rs}" = 12 ] && [ -z "${rs//[123]/}" ]; then
	t_pass "rdcn cli: --random-trust: r in 1..3 over 12 seeds ($rs), complete graph at r = 1"
else
	t_fail "rdcn cli: --random-trust: r in 1..3 over 12 seeds" "drawn: '$rs'"
fi

# files written, read back, and checked
for k in "rr -n 6" "rr-self -n 6 -u 2" "mars -n 9 -d 3" "vermilion -m $tmp/ring.dem -u 2"; do
	name=${k%% *}
	# shellcheck disable=SC2086
	"$D" rdcn schedule --kind $k -o "$tmp/$name.sched" >/dev/null
	jqs "rdcn cli: $name: its file passes rdcn check" '.period > 0 and .diameter != null' \
		"$D" rdcn check "$tmp/$name.sched" --json
done
"$D" rdcn schedule --kind mars -n 9 -d 3 >"$tmp/stdout.sched"
expect "rdcn cli: schedule on stdout is a schedule file" 0 "mars: 9 ToRs x 1 uplinks, period 3" \
	"$D" rdcn check "$tmp/stdout.sched"
expect "rdcn cli: rr (no self-loops) passes --no-self" 0 "0 self-loops" "$D" rdcn check "$tmp/rr.sched" --no-self
expect "rdcn cli: rr-self refused by --no-self" 2 "a self-loop where none is allowed" \
	"$D" rdcn check "$tmp/rr-self.sched" --no-self

# ---- check: refused files ----
bad() { # NAME PATTERN TEXT
	printf '%b' "$3" >"$tmp/bad.sched"
	expect "rdcn cli: refused: $1" 2 "$2" "$D" rdcn check "$tmp/bad.sched"
}
H='rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 2\nslot_ns 1000\nday_ns 900\n'
bad "not a schedule" "bad.sched:1: not a schedule file" 'tors 3\n'
bad "unknown keyword" "bad.sched:7: unknown keyword 'matc'" "${H}matc 0 0 1 2 0\n"
bad "two ToRs to one" "bad.sched:7: not a permutation: ToRs 0 and 2 both reach ToR 1" "${H}match 0 0 1 2 1\n"
bad "a slot missing" "bad.sched: slot 1 uplink 0 has no match line" "${H}match 0 0 1 2 0\n"
bad "night missing" "bad.sched:7: day_ns must be above 0 and below slot_ns" \
	'rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 1000\nday_ns 1000\nmatch 0 0 1 2 0\n'
bad "peer outside" "bad.sched:7: peer of ToR 1 '5'" "${H}match 0 0 1 5 0\n"
bad "kind rr, but a slot twice" "Corollary 1: 0 -> 1 has 2 links per period, the emulated graph 1" \
	"${H}kind rr\nmatch 0 0 1 2 0\nmatch 1 0 1 2 0\n"
printf "${H}match 0 0 1 5 0\n" >"$tmp/bad.sched"
jqs "rdcn cli: --json error object names the file and line" \
	'.code == 2 and (.error | test("bad.sched:7: peer of ToR 1"))' "$D" --json rdcn check "$tmp/bad.sched"
expect "rdcn cli: a missing file is named" 2 "absent.sched" "$D" rdcn check "$tmp/absent.sched"

# ---- schedule: refused options and demand files ----
expect "rdcn cli: kind required" 2 "kind" "$D" rdcn schedule -n 4
expect "rdcn cli: unknown kind" 2 "rotor" "$D" rdcn schedule --kind rotor -n 4
expect "rdcn cli: rr needs --tors" 2 "needs --tors N" "$D" rdcn schedule --kind rr
expect "rdcn cli: 65 ToRs" 2 "tors" "$D" rdcn schedule --kind rr -n 65
expect "rdcn cli: night as long as the slot" 2 "reconf-ns 1000 must be below --slot-ns 1000" \
	"$D" rdcn schedule --kind rr -n 4 --slot-ns 1000 --reconf-ns 1000
expect "rdcn cli: matchings that do not fill the uplinks" 2 "5 matchings do not fill slots of 2 uplinks" \
	"$D" rdcn schedule --kind rr -n 6 -u 2
expect "rdcn cli: mars degree not a multiple of the uplinks" 2 "not a multiple of the 2 uplinks" \
	"$D" rdcn schedule --kind mars -n 16 -u 2 -d 3
expect "rdcn cli: mars without a degree or budget" 2 "needs --d, --buffer-bytes or --delay-ns" \
	"$D" rdcn schedule --kind mars -n 16
expect "rdcn cli: mars with an impossible delay" 2 "Theorem 18: no degree meets a delay" \
	"$D" rdcn schedule --kind mars -n 16 -u 2 --slot-ns 100000 --reconf-ns 10000 --delay-ns 700000
expect "rdcn cli: vermilion needs a demand" 2 "needs --demand FILE" "$D" rdcn schedule --kind vermilion -n 4
expect "rdcn cli: --d is for mars" 2 "are for --kind mars" "$D" rdcn schedule --kind rr -n 4 -d 2
expect "rdcn cli: --tors against the demand's size" 2 "--tors 5, but .*ring.dem is 4 x 4" \
	"$D" rdcn schedule --kind vermilion -m "$tmp/ring.dem" -n 5
expect "rdcn cli: l above k refused" 2 "k 3, l 4" "$D" rdcn schedule --kind vermilion -m "$tmp/ring.dem" -l 4
expect "rdcn cli: --random-trust needs l = 1" 2 "random-trust is for --kind vermilion, with l = 1" \
	"$D" rdcn schedule --kind vermilion -m "$tmp/ring.dem" -l 2 --random-trust
printf '0 1 2\n1 0\n' >"$tmp/bad.dem"
expect "rdcn cli: ragged demand named by line" 2 "bad.dem:2: 2 columns, the first row has 3" \
	"$D" rdcn schedule --kind vermilion -m "$tmp/bad.dem"
printf '0 1\n-1 0\n' >"$tmp/bad.dem"
expect "rdcn cli: negative demand named by line" 2 "bad.dem:2: demand '-1'" \
	"$D" rdcn schedule --kind vermilion -m "$tmp/bad.dem"

# ---- bounds: Table 7.1 (n_t 16, n_u 2, 90 + 10 us slots, 400 Gbps) ----
T71=(-n 16 -u 2 --slot-ns 100000 --reconf-ns 10000 -c 400)
jqs "rdcn cli: table 7.1 (1) static d=2: 1/8, no delay, no buffer" \
	'.theta == 0.125 and .delay_ns == 0 and .buffer_need_bytes == 0 and .diameter == 4' \
	"$D" rdcn bounds "${T71[@]}" -d 2 --json
jqs "rdcn cli: table 7.1 (2) complete d=16: 1/2, 1600 us, 80 MB" \
	'.theta == 0.5 and .delay_ns == 1600000 and .buffer_need_bytes == 80000000 and .theta_duty == 0.45' \
	"$D" rdcn bounds "${T71[@]}" -d 16 --json
jqs "rdcn cli: table 7.1 (3) complete with 20 MB: 1/8" '.theta == 0.125' \
	"$D" rdcn bounds "${T71[@]}" -d 16 -B 20000000 --json
jqs "rdcn cli: table 7.1 (4) Mars, B 20 MB, L 850 us: d 4, 1/4, 800 us, 20 MB" \
	'.d == 4 and .theta == 0.25 and .delay_ns == 800000 and .buffer_need_bytes == 20000000 and
	 .thm19_d == 4 and .thm18_d == 4 and (.thm18_k + 0.32619 | fabs) < 0.00001 and
	 (.thm18_d_real - 4.825 | fabs) < 0.001' \
	"$D" rdcn bounds "${T71[@]}" -B 20000000 -L 850000 --json
jqs "rdcn cli: Theorem 18 at L = 1600 us: 16" '.thm18_d == 16' "$D" rdcn bounds "${T71[@]}" -L 1600000 --json
expect "rdcn cli: bounds text names Thm 18's root" 0 "k = -0.32619, d = e\\^-W\\(k\\) = 4.825 -> 4" \
	"$D" rdcn bounds "${T71[@]}" -L 850000
jqs "rdcn cli: Vermilion k=3 and the trust factor 3" \
	'((.vermilion_theta - 0.6) | fabs) < 1e-6 and .consistency_det == 0.666667 and .robustness_uniform == 0.305556' \
	"$D" rdcn bounds "${T71[@]}" -d 4 -k 3 --gamma 3 --json
expect "rdcn cli: bounds without degree or budget" 2 "give the degree, a buffer or a delay budget" \
	"$D" rdcn bounds "${T71[@]}"
expect "rdcn cli: bounds with an impossible delay" 2 "needs at least 2e" "$D" rdcn bounds "${T71[@]}" -L 700000
expect "rdcn cli: bounds: degree above n_t" 2 "degree 17" "$D" rdcn bounds "${T71[@]}" -d 17
expect "rdcn cli: bounds: link rate required" 2 "link-gbps" "$D" rdcn bounds -n 16 --slot-ns 100 -d 4
expect "rdcn cli: bounds: k = 1" 2 "k must be at least 2" "$D" rdcn bounds "${T71[@]}" -d 4 -k 1

# ---- the circuit switch's commands: what is refused before anything is loaded ----
PIN="/sys/fs/bpf/dcbpf-test-rdcncli-$$"
expect "rdcn cli: attach needs a port" 2 "port" "$D" --pin-dir "$PIN" rdcn attach
expect "rdcn cli: attach: a port without its MAC" 2 "IF=TOR/UP@MAC" \
	"$D" --pin-dir "$PIN" rdcn attach --port c0=0/0
expect "rdcn cli: attach: a group MAC" 2 "group address" \
	"$D" --pin-dir "$PIN" rdcn attach --port c0=0/0@ff:ff:ff:ff:ff:ff
expect "rdcn cli: attach: one (ToR, uplink) twice" 2 "given twice" \
	"$D" --pin-dir "$PIN" rdcn attach --port c0=0/0@02:00:00:00:00:01 --port c1=0/0@02:00:00:00:00:02
expect "rdcn cli: publish without an attached switch" 1 "is the fabric up" \
	"$D" --pin-dir "$PIN" rdcn publish "$tmp/stdout.sched"
expect "rdcn cli: detach of nothing attached" 0 "" "$D" --pin-dir "$PIN" rdcn detach
expect "rdcn cli: status without an attached switch" 1 "no circuit switch" "$D" --pin-dir "$PIN" rdcn status
expect "rdcn cli: voq needs an uplink" 2 "uplink" "$D" --pin-dir "$PIN" rdcn voq
expect "rdcn cli: voq: an uplink without its ToR" 2 "NS/IF=TOR/UP" "$D" --pin-dir "$PIN" rdcn voq --uplink ns0/t0
expect "rdcn cli: voq: a ToR out of range" 2 "TOR must be 0..63" "$D" --pin-dir "$PIN" rdcn voq --uplink ns0/t0=64/0
expect "rdcn cli: voq: one uplink twice" 2 "given twice" \
	"$D" --pin-dir "$PIN" rdcn voq --uplink ns0/t0=0/0 --uplink ns0/t0=1/0
expect "rdcn cli: voq without an attached switch" 1 "rdcn attach first" \
	"$D" --pin-dir "$PIN" rdcn voq --uplink ns0/t0=0/0
[ ! -e "$PIN" ] && t_pass "rdcn cli: the refused commands pinned nothing" ||
	{ t_fail "rdcn cli: the refused commands pinned nothing" "$(ls -R "$PIN")"; rm -rf "$PIN"; }

[ -z "${T_FAILED:-}" ]
