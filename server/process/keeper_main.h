/* SPDX-License-Identifier: MIT */
/*
 * keeper_main.h - the keeper's program (keeper.h says what it does).
 */
#ifndef BENEATH_PROCESS_KEEPER_MAIN_H
#define BENEATH_PROCESS_KEEPER_MAIN_H

#include "conf.h"

#include <sys/types.h>

/*
 * keeper_main - run beneath with @c (taken over; zeroed), loaded from
 * @argc/@argv and the environment, which each serving process loads
 * again. Returns the exit status: the first generation's when it does not
 * start (2 for a configuration error), else the serving generation's when
 * it ends; a serving generation killed by a signal ends the keeper by the
 * same signal.
 */
int keeper_main(struct conf *c, int argc, char *argv[]);

/*
 * keeper_check_user - whether --user of @c can be switched to; its ids
 * into @uid/@gid (either may be NULL). Returns the number of problems
 * (each one line on stderr).
 */
int keeper_check_user(const struct conf *c, uid_t *uid, gid_t *gid);

#endif
