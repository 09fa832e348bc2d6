/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf trace`: PowerTCP per-ACK decisions from the dc_cc_trace ring buffer. */
#ifndef DCBPF_LOADER_TRACE_H
#define DCBPF_LOADER_TRACE_H

/* argv[0] is "trace".  Returns a dcbpf exit code. */
int dc_cmd_trace(const char *pin_dir, int argc, char **argv);

#endif
