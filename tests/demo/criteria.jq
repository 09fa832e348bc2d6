# The demo's targets (docs/results.md, "The targets"), each computed from
# what the demo measured; null where that part did not run.
#   $m      the main part's summary.json (array of per-CC objects)
#   $rate   bottleneck rate, Mbit/s
#   $ip/$it incast-powertcp.json / incast-theta_powertcp.json of the
#           delay-line part (null when it did not run)
#   $is     that part's summary.json (per-round peak queues)
#   $idelay its delay, µs
#   $u      the untuned part's summary.json (same run, powertcp and
#           theta_powertcp with their defaults; null when it did not run)
# Run: jq -n -f criteria.jq --slurpfile m … --argjson rate … (tests/demo/run)
def med: sort | .[(length - 1) / 2 | floor];
def cc($s; $c): ($s // []) | map(select(.cc == $c)) | .[0];
# P(a round of $a is shorter than one of $b), over all pairs, ties ½
def plower($a; $b): if ($a | length) == 0 or ($b | length) == 0 then null else
	[$a[] as $x | $b[] as $y | if $x < $y then 1 elif $x == $y then 0.5 else 0 end] | add / length end;
(cc($m[0]; "powertcp")) as $p | (cc($m[0]; "cubic")) as $c |
# defaults: per PowerTCP variant measured both ways, untuned over tuned
([("powertcp", "theta_powertcp") as $n | {cc: $n, tuned_mbps: cc($m[0]; $n).throughput_mbps,
	untuned_mbps: cc($u[0]; $n).throughput_mbps}
  | select(.tuned_mbps != null and .tuned_mbps > 0 and .untuned_mbps != null)
  | .ratio = (.untuned_mbps / .tuned_mbps)]) as $d |
{utilisation: (if $p.throughput_mbps == null then null else
	{throughput_mbps: $p.throughput_mbps, rate_mbps: $rate, target: 0.95,
	 ok: ($p.throughput_mbps >= 0.95 * $rate)} end),
 queue_p99: (if $p.queue_p99_bytes == null or ($c.queue_p99_bytes // 0) == 0 then null else
	{powertcp_bytes: $p.queue_p99_bytes, cubic_bytes: $c.queue_p99_bytes,
	 ratio: ($p.queue_p99_bytes / $c.queue_p99_bytes), target: 0.1,
	 ok: ($p.queue_p99_bytes <= 0.1 * $c.queue_p99_bytes)} end),
 defaults: (if $u[0] == null then null else
	{ccs: $d, target: 0.95, ok: (($d | length) > 0 and all($d[]; .ratio >= 0.95))} end),
 incast: (if $ip[0] == null or $it[0] == null then null else
	([$ip[0].per_round[].completion_ms]) as $a | ([$it[0].per_round[].completion_ms]) as $b |
	{delay_us: $idelay, rounds: [($a | length), ($b | length)],
	 completion_ms_median: {powertcp: ($a | med), theta_powertcp: ($b | med)},
	 p_powertcp_faster: plower($a; $b),
	 peak_bytes_median: {powertcp: (cc($is[0]; "powertcp").incast_peak_bytes_rounds // [] | if length > 0 then med else null end),
			     theta_powertcp: (cc($is[0]; "theta_powertcp").incast_peak_bytes_rounds // [] | if length > 0 then med else null end)},
	 ok: (($a | length) > 0 and ($b | length) > 0 and ($a | med) < ($b | med) and plower($a; $b) > 0.5)} end)}
