# `dcbpf sim` on the command line: the admission rule's boundary, what a
# trace run does (drain, refused options), trace columns by name, the
# order of one slot's rows, and ports.csv adding up to summary.csv.
# No pinned state, no namespaces.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "sim cli: dcbpf built" "run make"; exit 1; }
D="$BUILD/dcbpf"
tmp=$(t_mktmp sim-cli) || exit 1

# The repro: one port, B = 4, α = 0.5, two packets in slot 0: 0 < 2, 1 < 1.5.
printf 'timeslot,port,priority,bytes\n0,0,0,1\n0,0,0,1\n' >"$tmp/two.csv"
jqs "sim cli: dt admits while q < α(B − Q): both of two packets at B = 4, α = 0.5" \
	'.[0].admitted == 2 and .[0].drops == 0 and .[0].sent_pkts == 2' \
	"$D" sim --ports 1 --buffer 4 --alg dt --alpha 0.5 --trace "$tmp/two.csv" --json
printf 'timeslot,port,priority,bytes\n0,0,0,1\n0,0,0,1\n0,0,0,1\n' >"$tmp/three.csv"
jqs "sim cli: a third packet (2 < α(B − 2) = 1 fails) is dropped" \
	'.[0].admitted == 2 and .[0].drops == 1' \
	"$D" sim --ports 1 --buffer 4 --alg dt --alpha 0.5 --trace "$tmp/three.csv" --json

# A burst of 64 packets at 8 per slot into one queue of an 8-port CS switch.
{ echo "timeslot,port,priority,bytes"; for i in $(seq 0 63); do echo "$((i / 8)),0,0,1"; done; } >"$tmp/burst.csv"
jqs "sim cli: a trace run drains the buffer after the last arrival (64 of 64 sent, 64 slots)" \
	'.[0].sent_pkts == 64 and .[0].slots == 64 and .[0].admitted == 64' \
	"$D" sim --ports 8 --buffer 64 --alg cs --trace "$tmp/burst.csv" --json
jqs "sim cli: --no-drain stops after the last arrival's slot (8 sent in 8 slots)" \
	'.[0].sent_pkts == 8 and .[0].slots == 8' \
	"$D" sim --ports 8 --buffer 64 --alg cs --trace "$tmp/burst.csv" --no-drain --json
for o in "--slots 100" "--seed 3" "--workload incast" "--load 0.5" "--mtu 9000"; do
	expect "sim cli: ${o%% *} with --trace is refused, naming the option" 2 \
		"^dcbpf sim: ${o%% *} has no effect with --trace" \
		"$D" sim --trace "$tmp/burst.csv" "${o%% *}" "${o#* }"
done
expect "sim cli: --no-drain without --trace is refused" 2 '^dcbpf sim: --no-drain goes with --trace' \
	"$D" sim --no-drain --slots 100

# Columns by name: the same rows in another column order give the same run.
{ echo "bytes,port,timeslot,priority"; for i in $(seq 0 63); do echo "1,0,$((i / 8)),0"; done; } >"$tmp/burst2.csv"
a=$("$D" sim --ports 8 --buffer 64 --alg dt --trace "$tmp/burst.csv" --json | jq -c '.[0] | del(.decisions_per_s)')
b=$("$D" sim --ports 8 --buffer 64 --alg dt --trace "$tmp/burst2.csv" --json | jq -c '.[0] | del(.decisions_per_s)')
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	t_pass "sim cli: trace columns are read by name (reordered columns, same result)"
else
	t_fail "sim cli: trace columns are read by name" "$a vs $b"
fi
printf 'timeslot,port,prio,bytes\n0,0,0,1\n' >"$tmp/bad.csv"
expect "sim cli: an unknown column is refused, naming it" 1 "bad.csv:1: unknown column 'prio'" \
	"$D" sim --ports 1 --trace "$tmp/bad.csv"
printf 'timeslot,port,priority\n0,0,0\n' >"$tmp/bad.csv"
expect "sim cli: a missing column is refused, naming it" 1 "bad.csv:1: the header has no column 'bytes'" \
	"$D" sim --ports 1 --trace "$tmp/bad.csv"

# One slot's rows arrive in file order, also in an unsorted file: slot 1's
# row first, then slot 0's priority-1 packet before its two priority-0
# ones.  B = 4, α = 0.5: the third of slot 0 (priority 0) is dropped.
printf 'timeslot,port,priority,bytes\n1,0,0,1\n0,0,1,1\n0,0,0,1\n0,0,0,1\n' >"$tmp/unsorted.csv"
jqs "sim cli: an unsorted trace keeps each slot's rows in file order (the third of slot 0 dropped)" \
	'.[0].drops == 1 and .[0].p1_loss_pct == 0 and .[0].p0_loss_pct > 33 and .[0].p0_loss_pct < 34' \
	"$D" sim --ports 1 --buffer 4 --alg dt --alpha 0.5 --trace "$tmp/unsorted.csv" --json

# ports.csv: per alg, drop_thresh + drop_full + drop_pred summed over ports
# = summary.csv's drops, and pushed_out the same, for every algorithm.
sums_match() { # DIR: "ok" or the first mismatch
	awk -F, '
		FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
		FILENAME ~ /ports.csv$/ { d[$1] += $c[FILENAME, "drop_thresh"] + $c[FILENAME, "drop_full"] + $c[FILENAME, "drop_pred"]
			p[$1] += $c[FILENAME, "pushed_out"]; pred[$1] += $c[FILENAME, "drop_pred"]; next }
		{ n++; if (d[$1] != $c[FILENAME, "drops"] || p[$1] != $c[FILENAME, "pushed_out"]) {
			print $1 ": ports " d[$1] "/" p[$1] " summary " $c[FILENAME, "drops"] "/" $c[FILENAME, "pushed_out"]; bad = 1 } }
		END { if (!bad) print "ok " n " " pred["credence"] + 0 }' "$1/ports.csv" "$1/summary.csv"
}
"$D" sim --alg all --buffer 300 --slots 20000 --out "$tmp/all" >/dev/null 2>&1
r=$(sums_match "$tmp/all")
if [[ $r == "ok 8 "* ]]; then
	t_pass "sim cli: ports.csv drops and push-outs add up to summary.csv for all eight algorithms"
else
	t_fail "sim cli: ports.csv adds up to summary.csv" "$r"
fi
"$D" sim --alg credence --predictor drop --buffer 300 --slots 20000 --out "$tmp/pred" >/dev/null 2>&1
r=$(sums_match "$tmp/pred")
if [[ $r == "ok 1 "* ]] && [ "${r##* }" -gt 0 ]; then
	t_pass "sim cli: Credence's drops on a prediction are in ports.csv (drop_pred ${r##* }) and add up"
else
	t_fail "sim cli: Credence's drop_pred in ports.csv" "$r"
fi

# credence train reads traces the same way and refuses the same options
expect "sim cli: credence train refuses --slots with --trace, naming it" 2 \
	'^dcbpf credence train: --slots has no effect with --trace' \
	"$D" credence train --trace "$tmp/burst.csv" --slots 100 --out "$tmp/m"
expect "sim cli: credence train refuses a trace with an unknown column" 1 "unknown column 'prio'" \
	bash -c "printf 'timeslot,port,prio,bytes\n0,0,0,1\n' >'$tmp/bad.csv' && '$D' credence train --trace '$tmp/bad.csv' --out '$tmp/m'"

# Binary traces: a CSV converts by --trace IN --write-trace OUT --write-format
# binary; the replay of either decides the same.
"$D" sim --alg abm --slots 20000 --write-trace "$tmp/gen.csv" >/dev/null 2>&1
"$D" sim --alg abm --trace "$tmp/gen.csv" --write-trace "$tmp/gen.bin" --write-format binary >/dev/null 2>&1
a=$("$D" sim --alg abm --trace "$tmp/gen.csv" --json 2>&1 | jq -c '.[0] | [.arrivals, .drops, .sent_pkts, .slots]')
b=$("$D" sim --alg abm --trace "$tmp/gen.bin" --json 2>&1 | jq -c '.[0] | [.arrivals, .drops, .sent_pkts, .slots]')
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(head -c 8 "$tmp/gen.bin")" = "DCSIMTR" ]; then
	t_pass "sim cli: a binary trace replays as its CSV ($b)"
else
	t_fail "sim cli: a binary trace replays as its CSV" "csv $a, binary $b"
fi
expect "sim cli: --write-format without --write-trace is refused" 2 \
	'--write-format goes with --write-trace' "$D" sim --write-format binary
expect "sim cli: an unknown --write-format is refused, naming the choices" 2 \
	"'pcap' is not one of csv, binary" "$D" sim --write-trace "$tmp/x" --write-format pcap
head -c 40 "$tmp/gen.bin" >"$tmp/short.bin"
expect "sim cli: a truncated binary trace is refused, naming the file" 1 \
	"short.bin: the header counts" "$D" sim --trace "$tmp/short.bin"
