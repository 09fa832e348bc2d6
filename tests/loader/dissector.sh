# The Wireshark dissector (loader/wireshark/dcbpf_int.lua) decodes every form
# of the INT option field by field, in wire order:
#  - tshark (Debian 12: Lua 5.2) on a capture that tests/tools/intpcap writes
#    from known hop values (codec-encoded and one word written by hand), every
#    field, value, byte position and size as intpcap expects;
#  - the same script under plain lua5.2 and lua5.4 with a stub of the few
#    Wireshark calls it makes (tests/loader/dissector_stub.lua, bit32 removed),
#    against the same expectations, after luac -p of both versions;
#  - the comparison fails on a dissector whose fields are out of wire order.
# Needs no root and no network: the capture is a file.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"

LUA=loader/wireshark/dcbpf_int.lua
STUB=tests/loader/dissector_stub.lua
GEN=$BUILD/tools/intpcap
TF=$(t_mktmp dissector) || exit 1

[ -x "$GEN" ] || { t_fail "dissector: intpcap built" "$GEN missing (run make)"; exit 1; }
if ! "$GEN" "$TF/int.pcap" >"$TF/want" || [ ! -s "$TF/want" ]; then
	t_fail "dissector: intpcap writes the capture" "$(head -c 200 "$TF/want")"
	exit 1
fi
frames=$(awk '{ print $1 }' "$TF/want" | sort -u | wc -l)

# first difference, for the failure message
first_diff() { diff "$TF/want" "$1" | grep -m 3 '^[<>]' | tr '\n' ' '; }

# ---- tshark -------------------------------------------------------------------
if command -v tshark >/dev/null; then
	lua_v=$(tshark -v 2>/dev/null | tr '\n' ' ' | grep -oE 'Lua [0-9.]+[0-9]' | head -n 1)
	# PDML lists the fields in tree order with their byte position and size
	tshark -r "$TF/int.pcap" -X lua_script:$LUA -T pdml 2>"$TF/tshark.err" | awk '
		function attr(a) {
			if (match($0, " " a "=\"[^\"]*\"")) return substr($0, RSTART + length(a) + 3, RLENGTH - length(a) - 4)
			return ""
		}
		/<field name="num"/ { n = attr("show") }
		/<field name="dcbpf_int\./ {
			v = attr("show"); if (attr("name") == "dcbpf_int.malformed") v = "-"
			print n, attr("name"), v, attr("pos"), attr("size")
		}' >"$TF/tshark"
	if cmp -s "$TF/want" "$TF/tshark"; then
		t_pass "dissector: tshark ($lua_v) decodes all $frames frames: every field, value and byte range, in wire order"
	else
		t_fail "dissector: tshark ($lua_v) decodes the capture" "$(first_diff "$TF/tshark") $(head -c 300 "$TF/tshark.err")"
	fi
	# the malformed frames name what is wrong
	msgs=$(tshark -r "$TF/int.pcap" -X lua_script:$LUA -Y dcbpf_int.malformed -T fields -e dcbpf_int.malformed 2>/dev/null)
	echo "$msgs" | grep -q 'hop pointer 3 beyond 1 slots' && echo "$msgs" | grep -q 'option length 13 is not' &&
		t_pass "dissector: malformed options are named (hop pointer beyond the slots, bad length)" ||
		t_fail "dissector: malformed options are named" "$(echo "$msgs" | tr '\n' '|')"
else
	t_skip "dissector: tshark decodes the capture" "tshark missing: apt-get install tshark"
fi

# ---- plain Lua 5.2 and 5.4 with a stub of the Wireshark API -------------------------
for v in 5.2 5.4; do
	if ! command -v lua$v >/dev/null || ! command -v luac$v >/dev/null; then
		t_skip "dissector: runs on Lua $v" "lua$v missing: apt-get install lua$v"
		continue
	fi
	if ! out=$(luac$v -p $LUA 2>&1); then
		t_fail "dissector: luac$v compiles it" "$out"
		continue
	fi
	lua$v $STUB $LUA "$TF/int.pcap" >"$TF/lua$v" 2>"$TF/lua$v.err"
	if cmp -s "$TF/want" "$TF/lua$v"; then
		t_pass "dissector: runs on Lua $v without bit32: the same fields, values and byte ranges ($frames frames)"
	else
		t_fail "dissector: runs on Lua $v" "$(first_diff "$TF/lua$v") $(head -c 300 "$TF/lua$v.err")"
	fi
done

# ---- the comparison can fail ----------------------------------------------------------
# Swap the echo and version lines: the fields then leave wire order.
if command -v lua5.2 >/dev/null; then
	awk '/t:add\(f.version, tvb\(opt \+ 2, 1\), version\)/ && !done { held = $0; next }
		held != "" && /t:add\(f.echo/ { print; print held; held = ""; done = 1; next } { print }' $LUA >"$TF/swapped.lua"
	lua5.2 $STUB "$TF/swapped.lua" "$TF/int.pcap" >"$TF/swapped" 2>&1
	! cmp -s "$TF/want" "$TF/swapped" && ! cmp -s $LUA "$TF/swapped.lua" &&
		t_pass "dissector: a copy with version added after echo fails the comparison" ||
		t_fail "dissector: a copy with fields out of wire order fails the comparison" "not detected"
fi
exit 0
