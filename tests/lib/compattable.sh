# The compat table of docs/compat.md, machine-readable, for the tests that
# hold the doc, the objects and `dcbpf status` together (tests/loader/compat.sh
# on every kernel, compat_doc.sh on the host).  Sets DOC, table, header and
# rows ("key since col61 col618" per line); ver_ge A B: A >= B as versions.
# shellcheck shell=bash
DOC=docs/compat.md
# The machine-readable table: "key since col..." per row, and the header.
table=$(sed -n '/<!-- BEGIN compat table/,/<!-- END compat table/p' "$DOC" | grep '^| ')
[ -n "$table" ] || { t_fail "compat: $DOC has the compat table" "no rows between the BEGIN/END compat table markers"; exit 1; }
header=$(echo "$table" | head -n 1)
rows=$(echo "$table" | tail -n +2 | grep -v '^|---' |
	awk -F'|' '{ for (i = 2; i <= 5; i++) gsub(/^ +| +$/, "", $i); print $2, $3, $4, $5 }')

# ver_ge A B: A >= B as dotted versions
ver_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]; }
