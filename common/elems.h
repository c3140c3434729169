/* SPDX-License-Identifier: MIT */
/*
 * elems.h - the one definition of N_ELEMS, for every part of the project
 * (the resolver, conf, the server, tests, bench): the number of elements
 * of an array (never of a pointer).
 */
#ifndef BENEATH_COMMON_ELEMS_H
#define BENEATH_COMMON_ELEMS_H

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#endif
