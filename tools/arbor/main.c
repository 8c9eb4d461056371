/* arbor: the command-line tool. */
#include <stdarg.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: arbor <command> [options]\n"
    "\n"
    "Scene graphs: transform hierarchies with lazy, versioned world matrices.\n"
    "\n"
    "commands:\n"
    "  demo [--yaw DEG] [--bend DEG]   build the course's robot arm (base, joint, arm, hand and a\n"
    "                                  mirrored second arm) and print its world matrices and\n"
    "                                  positions; without options, at yaw 30 and yaw 90, bend 40\n"
    "\n"
    "options:\n"
    "  -h, --help      this text\n"
    "  -V, --version   the version and the precision of arbor_real\n";

int cli_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("arbor: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(see arbor --help)\n", stderr);
    va_end(ap);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *command = argv[1];
    if (!strcmp(command, "-h") || !strcmp(command, "--help") || !strcmp(command, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(command, "-V") || !strcmp(command, "--version")) {
        printf("arbor %s (%s)\n", arbor_version(), arbor_real_size() == sizeof(double) ? "double" : "float");
        return 0;
    }
    if (!strcmp(command, "demo")) return cmd_demo(argc - 2, argv + 2);
    return cli_usage_error("unknown command '%s'", command);
}
