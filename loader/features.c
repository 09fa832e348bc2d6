// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel feature detection for `dcbpf status` (see features.h).  Each
 * feature is found by a BTF name that arrived in the same kernel release
 * as the feature itself; docs/compat.md explains what dcbpf does with and
 * without each one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "features.h"

enum probe {
	P_BTF,		/* vmlinux BTF is readable */
	P_BPFFS,	/* bpffs mounted at DC_BPFFS_ROOT */
	P_STRUCT,	/* BTF struct `name` */
	P_TYPEDEF,	/* BTF typedef `name` (tp_btf: btf_trace_<tracepoint>) */
	P_ENUMVAL,	/* enumerator `name` in any enum */
	P_CC_4ARGS,	/* tcp_congestion_ops.cong_control takes (sk, ack, flag, rs) */
	P_VETH_XDP,	/* veth's XDP functions in vmlinux or the veth module BTF */
	P_HELPER,	/* BPF_FUNC_<name without bpf_> in enum bpf_func_id */
	P_KFUNC,	/* BTF func `name` (kfuncs are kernel functions with BTF) */
};

struct feature {
	const char *key;
	const char *since;
	enum probe probe;
	const char *name;
};

/*
 * Order is the order of docs/compat.md.  The helper rows are every helper
 * the built objects call: tests/loader/compat.sh reads the calls out of
 * build/NAME.bpf.o and fails, naming the missing rows, when this table or
 * docs/compat.md falls behind.
 */
static const struct feature features[] = {
	{ "btf", "5.4", P_BTF, NULL },
	{ "bpffs", "4.4", P_BPFFS, NULL },
	{ "struct_ops_tcp_cc", "5.6", P_STRUCT, "bpf_struct_ops_tcp_congestion_ops" },
	/* struct bpf_struct_ops_link and BPF_F_LINK came together in 6.4;
	 * BPF_LINK_TYPE_STRUCT_OPS is older (5.x, trampolines) and says nothing. */
	{ "struct_ops_link", "6.4", P_STRUCT, "bpf_struct_ops_link" },
	{ "bpf_f_link", "6.4", P_ENUMVAL, "BPF_F_LINK" },
	{ "cong_control_ack_flag", "6.10", P_CC_4ARGS, NULL },
	{ "tcx", "6.6", P_ENUMVAL, "BPF_TCX_INGRESS" },
	{ "xdp_link", "5.9", P_ENUMVAL, "BPF_LINK_TYPE_XDP" },
	{ "xdp_native_veth", "4.19", P_VETH_XDP, NULL },
	/* tp_btf needs the tracepoint and BTF-typed tracepoints (5.5) */
	{ "tp_btf_qdisc_enqueue", "5.15", P_TYPEDEF, "btf_trace_qdisc_enqueue" },
	{ "tp_btf_qdisc_dequeue", "5.5", P_TYPEDEF, "btf_trace_qdisc_dequeue" },
	{ "helper:bpf_map_lookup_elem", "3.19", P_HELPER, "bpf_map_lookup_elem" },
	{ "helper:bpf_map_update_elem", "3.19", P_HELPER, "bpf_map_update_elem" },
	{ "helper:bpf_map_delete_elem", "3.19", P_HELPER, "bpf_map_delete_elem" },
	{ "helper:bpf_get_prandom_u32", "3.19", P_HELPER, "bpf_get_prandom_u32" },
	{ "helper:bpf_ktime_get_ns", "4.1", P_HELPER, "bpf_ktime_get_ns" },
	{ "helper:bpf_skb_store_bytes", "4.1", P_HELPER, "bpf_skb_store_bytes" },
	{ "helper:bpf_l3_csum_replace", "4.1", P_HELPER, "bpf_l3_csum_replace" },
	{ "helper:bpf_skb_load_bytes", "4.5", P_HELPER, "bpf_skb_load_bytes" },
	{ "helper:bpf_csum_diff", "4.6", P_HELPER, "bpf_csum_diff" },
	{ "helper:bpf_skb_pull_data", "4.9", P_HELPER, "bpf_skb_pull_data" },
	{ "helper:bpf_skb_adjust_room", "4.13", P_HELPER, "bpf_skb_adjust_room" },
	{ "helper:bpf_sock_ops_cb_flags_set", "4.16", P_HELPER, "bpf_sock_ops_cb_flags_set" },
	{ "helper:bpf_fib_lookup", "4.18", P_HELPER, "bpf_fib_lookup" },
	{ "helper:bpf_probe_read_kernel", "5.5", P_HELPER, "bpf_probe_read_kernel" },
	{ "helper:bpf_jiffies64", "5.5", P_HELPER, "bpf_jiffies64" },
	{ "helper:bpf_ringbuf_reserve", "5.8", P_HELPER, "bpf_ringbuf_reserve" },
	{ "helper:bpf_ringbuf_submit", "5.8", P_HELPER, "bpf_ringbuf_submit" },
	{ "helper:bpf_redirect_neigh", "5.10", P_HELPER, "bpf_redirect_neigh" },
	{ "helper:bpf_tcp_send_ack", "5.10", P_HELPER, "bpf_tcp_send_ack" },
	{ "helper:bpf_ktime_get_coarse_ns", "5.11", P_HELPER, "bpf_ktime_get_coarse_ns" },
	{ "kfunc:tcp_reno_cong_avoid", "5.13", P_KFUNC, "tcp_reno_cong_avoid" },
	{ "helper:bpf_timer_init", "5.15", P_HELPER, "bpf_timer_init" },
	{ "helper:bpf_timer_set_callback", "5.15", P_HELPER, "bpf_timer_set_callback" },
	{ "helper:bpf_timer_start", "5.15", P_HELPER, "bpf_timer_start" },
	{ "helper:bpf_loop", "5.17", P_HELPER, "bpf_loop" },
	{ "helper:bpf_xdp_get_buff_len", "5.18", P_HELPER, "bpf_xdp_get_buff_len" },
};

#define NFEATURES (sizeof(features) / sizeof(features[0]))
_Static_assert(NFEATURES <= DC_FEAT_MAX, "raise DC_FEAT_MAX");

static bool btf_has(const struct btf *btf, const char *name, int kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

/* Enumerators may sit in anonymous enums (BPF_F_LINK does): scan them all. */
static bool btf_has_enumval(const struct btf *btf, const char *name)
{
	__u32 id, n;

	if (!btf)
		return false;
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i;

		if (!btf_is_enum(t))
			continue;
		for (i = 0, e = btf_enum(t); i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return true;
	}
	return false;
}

/*
 * Native XDP on veth lives in veth.c (built in, or the veth module's BTF).
 * Any of its XDP functions will do: which ones survive inlining differs
 * between builds (6.1 inlines veth_xdp_rcv, keeps veth_xdp, the ndo_bpf).
 */
static bool veth_has_xdp(const struct btf *vmlinux)
{
	static const char *const funcs[] = { "veth_xdp", "veth_enable_xdp", "veth_xdp_rcv" };
	struct btf *mod = NULL;
	bool has = false;
	unsigned int i;

	if (!vmlinux)
		return false;
	if (!access("/sys/kernel/btf/veth", R_OK))
		mod = btf__parse_split("/sys/kernel/btf/veth", (struct btf *)vmlinux);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]) && !has; i++)
		has = btf_has(vmlinux, funcs[i], BTF_KIND_FUNC) ||
		      btf_has(mod, funcs[i], BTF_KIND_FUNC);
	btf__free(mod);
	return has;
}

static bool probe_one(const struct feature *ft, const struct btf *btf)
{
	char buf[96];

	switch (ft->probe) {
	case P_BTF:
		return btf != NULL;
	case P_BPFFS:
		return dc_is_bpffs(DC_BPFFS_ROOT);
	case P_STRUCT:
		return btf_has(btf, ft->name, BTF_KIND_STRUCT);
	case P_TYPEDEF:
		return btf_has(btf, ft->name, BTF_KIND_TYPEDEF);
	case P_ENUMVAL:
		return btf_has_enumval(btf, ft->name);
	case P_CC_4ARGS:
		return btf && dc_btf_cong_control_nargs(btf) == 4;
	case P_VETH_XDP:
		return veth_has_xdp(btf);
	case P_HELPER:
		/* "bpf_loop" -> BPF_FUNC_loop: the kernel's list of helpers */
		snprintf(buf, sizeof(buf), "BPF_FUNC_%s", ft->name + 4);
		return btf_has_enumval(btf, buf);
	case P_KFUNC:
		return btf_has(btf, ft->name, BTF_KIND_FUNC);
	}
	return false;
}

void dc_features_detect(struct dc_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct utsname u;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	if (!uname(&u))
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	for (i = 0; i < NFEATURES; i++) {
		f->item[i].key = features[i].key;
		f->item[i].since = features[i].since;
		f->item[i].present = probe_one(&features[i], btf);
	}
	f->n = NFEATURES;
	btf__free(btf);
}

bool dc_feature_present(const struct dc_features *f, const char *key)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->item[i].key, key))
			return f->item[i].present;
	return false;
}

void dc_features_print(const struct dc_features *f, FILE *out)
{
	unsigned int i, nh = 0, have = 0;
	char missing[512] = "";
	size_t ml = 0;

	fprintf(out, "kernel:        %s (features below: docs/compat.md)\n", f->kernel);
	for (i = 0; i < f->n; i++) {
		const struct dc_feature_result *r = &f->item[i];

		if (strncmp(r->key, "helper:", 7) && strncmp(r->key, "kfunc:", 6)) {
			fprintf(out, "  %-24s %-3s  (%s+)\n", r->key, r->present ? "yes" : "no",
				r->since);
			continue;
		}
		nh++;
		if (r->present) {
			have++;
		} else if (ml < sizeof(missing)) {
			ml += (size_t)snprintf(missing + ml, sizeof(missing) - ml, " %s (%s+)",
					       strchr(r->key, ':') + 1, r->since);
		}
	}
	fprintf(out, "  %-24s %u of %u present%s%s\n", "helpers/kfuncs used", have, nh,
		have < nh ? "; missing:" : "", missing);
}

void dc_features_json(const struct dc_features *f, struct jw *j)
{
	unsigned int i;

	jw_obj(j, "features");
	jw_str(j, "kernel", f->kernel);
	for (i = 0; i < f->n; i++) {
		jw_obj(j, f->item[i].key);
		jw_bool(j, "present", f->item[i].present);
		jw_str(j, "since", f->item[i].since);
		jw_end_obj(j);
	}
	jw_end_obj(j);
}
