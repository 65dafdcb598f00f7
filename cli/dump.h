/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracectl dump (cli/dump.c): argv[0] is "dump"; returns the exit status. */
#ifndef TRACERD_CLI_DUMP_H
#define TRACERD_CLI_DUMP_H

int tracectl_dump(int argc, char **argv);

#endif
