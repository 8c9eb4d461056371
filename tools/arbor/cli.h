/* The arbor command-line tool: one cmd_<name>.c per command. */
#ifndef ARBOR_CLI_H
#define ARBOR_CLI_H
#include <arbor/arbor.h>
#include <stdio.h>

/* Each command gets the arguments after its name and returns the process's exit code. */
int cmd_demo(int argc, char **argv);

/* Prints "arbor: <message>" to stderr and returns exit code 2 (a usage error). */
int cli_usage_error(const char *fmt, ...);
#endif
