/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf credence train|check|show` (loader/credence.c, docs/credence.md). */
#ifndef DCBPF_LOADER_CREDENCE_H
#define DCBPF_LOADER_CREDENCE_H

/* argv[0] = "credence".  Returns a cli.h exit code. */
int dc_cred_main(const char *pin_dir, int argc, char **argv);

#endif
