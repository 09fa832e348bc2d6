/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counter structs are declared once, as lists:
 *
 *     #define DC_FOO_COUNTERS(X)                                   \
 *             X(field, flags, "prometheus", "Help sentence.")      \
 *             ...
 *     struct dc_foo_counters { DC_FOO_COUNTERS(DC_CTR_FIELD) };
 *
 * The BPF programs and host code see a plain struct of __u64 (same BTF as a
 * hand-written one); user space expands the same list into a descriptor
 * table (loader/lib/counters.h) that drives per-CPU sums, the CLI's text
 * and JSON, and the Prometheus families, so a counter added here reaches
 * every output and nothing can be added elsewhere only
 * (tests/unit/test_counters compares the tables with the objects' BTF).
 *
 * Arguments of X:
 *   field       the struct member (a __u64), its name in text and JSON
 *   flags       0, or DC_CTR_GAUGE (a level, not a running total: no _total
 *               in Prometheus) and/or DC_CTR_NOPORT (switch counters kept only
 *               on the key DC_SW_CNT_OTHER: one value per switch, not per port)
 *   prometheus  "" = the field name; else the metric name below the
 *               family's prefix, optionally with fixed labels, e.g.
 *               "dropped_packets{reason=\"threshold\"}" (entries with the
 *               same name form one metric)
 *   help        one sentence, the Prometheus HELP text
 * The flags are not expanded on the BPF side.
 */
#ifndef DCBPF_COUNTERS_H
#define DCBPF_COUNTERS_H

#include "compat.h"

#define DC_CTR_FIELD(field, flags, prom, help) __u64 field;

#endif
