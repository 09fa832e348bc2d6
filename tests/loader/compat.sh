# The kernel features `dcbpf status` detects are the ones docs/compat.md
# promises for the running kernel (its column, or the rows whose "since" is
# not newer than the kernel), and the text and JSON outputs agree.  What
# does not depend on the kernel (the doc against itself and the objects) is
# tests/loader/compat_doc.sh.
# Runs on the host and inside the 6.1 VM (make vm-check).  Read-only: it
# loads nothing and pins nothing.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"

source tests/lib/compattable.sh
C=$BUILD/dcbpf
[ -x "$C" ] || { t_fail "compat: dcbpf built" "$C missing (run make)"; exit 1; }

kver=$(uname -r)
kmm=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
# Which column (1 = 6.1, 2 = 6.18) describes this kernel, if any.
col=0
i=0
for h in $(echo "$header" | awk -F'|' '{ for (i = 4; i <= 5; i++) { gsub(/ /, "", $i); print $i } }'); do
	i=$((i + 1))
	[ "$h" = "$kmm" ] && col=$i
done

# ---- dcbpf status --json against the doc ---------------------------------------
json=$("$C" --pin-dir /sys/fs/bpf/dcbpf-compat-$$ --json status 2>&1)
if ! got=$(echo "$json" | jq -r '.features | to_entries[] | select(.key != "kernel") |
		"\(.key) \(if .value.present then "yes" else "no" end) \(.value.since)"' 2>/dev/null); then
	t_fail "compat: dcbpf --json status has features" "$(echo "$json" | head -c 300)"
	exit 1
fi
t_pass "compat: dcbpf --json status has features ($(echo "$got" | wc -l) keys, kernel $kver)"

src="column $kmm"
[ $col = 0 ] && src="rows with since <= $kmm (no column for $kmm)"
# The bpffs row says the kernel has the filesystem; dcbpf reports whether it
# is mounted at /sys/fs/bpf.  tests/run mounts it before the suite, so there
# both say yes; run alone on an unmounted machine, dcbpf must say no and the
# doc's answer is checked against /proc/filesystems instead.
bpffs_mounted=no
awk '$2 == "/sys/fs/bpf" && $3 == "bpf" { f = 1 } END { exit !f }' /proc/mounts && bpffs_mounted=yes
bad="" missing=""
while read -r key since c61 c618; do
	case $col in
	1) want=$c61 ;;
	2) want=$c618 ;;
	*) if ver_ge "$kmm" "$since"; then want=yes; else want=no; fi ;;
	esac
	if [ "$key" = bpffs ] && [ "$bpffs_mounted" = no ]; then
		kfs=no
		grep -qw bpf /proc/filesystems && kfs=yes
		[ "$kfs" = "$want" ] || bad="$bad bpffs: /proc/filesystems $kfs, doc $want;"
		want=no
	fi
	line=$(echo "$got" | awk -v k="$key" '$1 == k')
	if [ -z "$line" ]; then
		missing="$missing $key"
		continue
	fi
	read -r _ have hsince <<<"$line"
	[ "$have" = "$want" ] || bad="$bad $key: kernel $have, doc $want;"
	[ "$hsince" = "$since" ] || bad="$bad $key: since $hsince in loader/lib/features.c, $since in the doc;"
done <<<"$rows"
extra=$(comm -13 <(echo "$rows" | awk '{print $1}' | sort) <(echo "$got" | awk '{print $1}' | sort) | tr '\n' ' ')
if [ -z "$bad" ] && [ -z "$missing" ] && [ -z "$extra" ]; then
	t_pass "compat: dcbpf status features match $DOC ($src; bpffs mounted: $bpffs_mounted)"
else
	t_fail "compat: dcbpf status features match $DOC ($src)" \
		"${bad}${missing:+ not reported by dcbpf:$missing;}${extra:+ not in the doc: $extra}"
fi

# The text output says the same as the JSON for the non-helper features.
text=$("$C" --pin-dir /sys/fs/bpf/dcbpf-compat-$$ status 2>&1)
bad=""
while read -r key have _; do
	case $key in helper:* | kfunc:*) continue ;; esac
	echo "$text" | grep -qE "^  $key +$have " || bad="$bad $key"
done <<<"$got"
nh=$(echo "$got" | grep -cE '^(helper|kfunc):')
nhave=$(echo "$got" | grep -cE '^(helper|kfunc):[^ ]+ yes')
echo "$text" | grep -qE "helpers/kfuncs used +$nhave of $nh present" || bad="$bad helpers-summary"
[ -z "$bad" ] && t_pass "compat: dcbpf status text shows the same features" ||
	t_fail "compat: dcbpf status text shows the same features" "differs for:$bad"

# ---- what the kernel lacks, and what that costs --------------------------------------
# The doc's "without it" column is what dcbpf status prints for a missing
# feature (loader/lib/features.c), word for word but for markdown backticks.
bad=""
while IFS='|' read -r _ key _ _ _ _ without _; do
	key=$(echo "$key" | xargs) without=$(echo "$without" | tr -d '`' | sed -E 's/^ +| +$//g')
	have=$(echo "$json" | jq -r --arg k "$key" '.features[$k].without // empty')
	[ "$have" = "$without" ] || bad="$bad $key"
done < <(echo "$table" | tail -n +2 | grep -v '^|---')
[ -z "$bad" ] && t_pass "compat: dcbpf status says what dcbpf does without each feature, as $DOC's column does" ||
	t_fail "compat: the without-it texts of dcbpf status and $DOC agree" "differ for:$bad"

# lacks_ok TEXT JSON: the text names every absent feature with its cost, or nothing.
lacks_ok() {
	local text=$1 js=$2 line n=0
	while IFS=$'\t' read -r key since without; do
		n=$((n + 1))
		line="  $key ($since+): $without"
		echo "$text" | grep -qxF "$line" || { echo "no line '$line'"; return 1; }
	done < <(echo "$js" | jq -r '.features | to_entries[] | select(.key != "kernel" and (.value.present | not)) |
		[.key, .value.since, .value.without] | @tsv')
	[ $n -gt 0 ] || echo "$text" | grep -qx 'kernel lacks:  nothing dcbpf uses' || { echo "no 'nothing' line"; return 1; }
}
if why=$(lacks_ok "$text" "$json"); then
	t_pass "compat: dcbpf status names what this kernel lacks and what it disables ($(echo "$json" | jq '[.features[] | objects | select(.present | not)] | length') missing)"
else
	t_fail "compat: dcbpf status names what this kernel lacks" "$why"
fi
# A kernel that lacks something, for real: bpffs unmounted in a private mount
# namespace (the host's mounts are untouched).
if command -v unshare >/dev/null; then
	pin=/sys/fs/bpf/dcbpf-compat-$$
	ujson=$(unshare --mount --propagation private sh -c "umount /sys/fs/bpf 2>/dev/null; '$C' --pin-dir $pin --json status" 2>&1)
	utext=$(unshare --mount --propagation private sh -c "umount /sys/fs/bpf 2>/dev/null; '$C' --pin-dir $pin status" 2>&1)
	bw=$(echo "$ujson" | jq -r '.features.bpffs.without' 2>/dev/null)
	if [ "$(echo "$ujson" | jq -r '.features.bpffs.present' 2>/dev/null)" = false ] &&
		why=$(lacks_ok "$utext" "$ujson") && echo "$utext" | grep -qxF "  bpffs (4.4+): $bw"; then
		t_pass "compat: with bpffs unmounted, dcbpf status says so and what dcbpf does about it"
	else
		t_fail "compat: with bpffs unmounted, dcbpf status says so" "${why:-} $(echo "$utext" | grep -A3 'kernel lacks' | tr '\n' '|')"
	fi
else
	t_skip "compat: dcbpf status with bpffs unmounted" "unshare missing (util-linux)"
fi

# ---- the kernel floor ------------------------------------------------------------------
# Every release a row's "since" names has its line in the floor table, and the
# floor of all of dcbpf is the newest "since" among the features it cannot do
# without (the rows whose "without it" starts "cannot").
changes=$(sed -n '/^What changes from one kernel to the next/,/^Versions are/p' "$DOC" | grep -E '^\| [0-9]' | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
need=$(echo "$rows" | awk '{ print $2 }' | sort -uV | while read -r v; do ver_ge "$v" 5.4 && echo "$v"; done)
absent=$(comm -23 <(echo "$need" | sort) <(echo "$changes" | sort) | tr '\n' ' ')
hard=$(echo "$json" | jq -r '.features | to_entries[] | select(.key != "kernel" and (.value.without | startswith("cannot"))) | .value.since' | sort -V | tail -n 1)
floor=$(grep -E '^\| all of dcbpf \|' "$DOC" | grep -oE '\*\*[0-9.]+\*\*' | tr -d '*')
if [ -z "$absent" ] && [ -n "$hard" ] && [ "$floor" = "$hard" ] && grep -q "^- Needs Linux $floor" README.md; then
	t_pass "compat: $DOC has a floor row for every release a feature names; the floor ($floor) is the newest hard requirement, as README says"
else
	t_fail "compat: the kernel floor in $DOC and README" "no row for: ${absent:-none}; floor in doc '$floor', newest hard requirement '$hard'; README: $(grep -m1 -E '^- Needs' README.md)"
fi
exit 0
