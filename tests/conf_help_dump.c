/* SPDX-License-Identifier: MIT */
/*
 * conf_help_dump.c - print conf_help for tests/conf-readme.cmake, which keeps
 * the README's configuration reference equal to --help.
 */
#include "conf.h"

#include <stdio.h>

int main(void)
{
    conf_help(stdout, "beneath");
    return ferror(stdout) ? 1 : 0;
}
