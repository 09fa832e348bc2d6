# Integration: a Credence model into a live switch's dc_sw_model map.
# `dcbpf credence load MODEL --switch NAME` publishes a trained model
# (`credence status` shows it); a malformed file is refused with file, line
# and reason and the running model stays, bit for bit; unknown switches and
# bad names are refused; switch down leaves nothing behind.
# shellcheck shell=bash
# SC2317: cleanup runs from the EXIT trap.
# shellcheck disable=SC2317
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

DCBPF="$BUILD/dcbpf"
SW=crl$$
SW=${SW:0:15}
PIN=/sys/fs/bpf/dcbpf-credload$$
TMP=$(mktemp -d /tmp/dcbpf-credload.XXXXXX)

cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN" "$TMP"
}

fabric_init || { t_fail "credence load: fabric" "fabric_init failed"; exit 1; }
fabric_on_exit cleanup
fabric_make_switch sw || exit 1
SWNS=$FAB_LAST_NS
PORTS=()
for j in 0 1; do
	fabric_make_host "h$j" || exit 1
	fabric_make_link "$SWNS" "p$j" "$FAB_LAST_NS" "h$j" || exit 1
	PORTS+=("$FAB_LAST_DEV_A")
done
plist=$(IFS=,; echo "${PORTS[*]}")
if out=$("$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$SWNS" --ports "$plist" 2>&1); then
	t_pass "credence load: switch up"
else
	t_fail "credence load: switch up" "$out"; exit 1
fi
D=("$DCBPF" --pin-dir "$PIN")

if ! "$DCBPF" credence train --slots 20000 --seed 3 --out "$TMP/a" >/dev/null ||
	! "$DCBPF" credence train --slots 20000 --seed 4 --trees 2 --out "$TMP/b" >/dev/null; then
	t_fail "credence load: train two models" "dcbpf credence train failed"; exit 1
fi

expect "credence load: a fresh switch has no model" 0 "switch $SW: no model loaded" \
	"${D[@]}" credence status --switch "$SW"
expect "credence load: load a trained model" 0 "switch $SW: model loaded into slot 0: 4 trees, depth 4" \
	"${D[@]}" credence load "$TMP/a" --switch "$SW"
expect "credence load: status shows it" 0 "switch $SW: model version 1: 4 trees, depth 4" \
	"${D[@]}" credence status --switch "$SW"
# status: the switch line, then the same listing as `credence show`
"${D[@]}" credence status --switch "$SW" --show | tail -n +3 >"$TMP/live-a"
"$DCBPF" credence show "$TMP/a" | tail -n +2 >"$TMP/file-a"
t_check "credence load: the live model is the file's, node for node" cmp "$TMP/live-a" "$TMP/file-a"
expect "credence load: swap in another model (the idle slot)" 0 "model loaded into slot 1: 2 trees" \
	"${D[@]}" credence load "$TMP/b" --switch "$SW"

# a malformed file: refused with the reason, the running model (b) stays
sed '0,/^\([0-9]*\) leaf [0-9][0-9]*$/s//\1 leaf 70000/' "$TMP/a" >"$TMP/bad"
expect "credence load: a malformed model is refused with file:line and reason" 1 \
	"$TMP/bad:[0-9]+: leaf probability '70000'" "${D[@]}" credence load "$TMP/bad" --switch "$SW"
expect "credence load: … and says the running model stays" 1 "switch '$SW' keeps its running model" \
	"${D[@]}" credence load "$TMP/bad" --switch "$SW"
head -n 5 "$TMP/a" >"$TMP/trunc"
expect "credence load: a truncated model is refused" 1 "$TMP/trunc:6: .*truncated" \
	"${D[@]}" credence load "$TMP/trunc" --switch "$SW"
"${D[@]}" credence status --switch "$SW" --show | tail -n +3 >"$TMP/live-b"
"$DCBPF" credence show "$TMP/b" | tail -n +2 >"$TMP/file-b"
t_check "credence load: after the refusals the running model is still the last good one" \
	cmp "$TMP/live-b" "$TMP/file-b"

expect "credence load: an unknown switch is refused" 1 "switch 'nosuch$$' is not up" \
	"${D[@]}" credence load "$TMP/a" --switch "nosuch$$"
expect "credence load: a bad switch name is a usage error" 2 "is not a switch name" \
	"${D[@]}" credence load "$TMP/a" --switch "bad/name"
expect "credence load: --switch is required" 2 "--switch NAME is required" \
	"${D[@]}" credence load "$TMP/a"

if out=$("${D[@]}" switch down "$SW" 2>&1) && [ ! -e "$PIN/sw/$SW" ]; then
	t_pass "credence load: switch down removes the model map with the rest"
else
	t_fail "credence load: switch down" "$out"
fi
exit "${T_FAILED:-0}"
