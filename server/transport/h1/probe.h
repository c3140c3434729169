/* SPDX-License-Identifier: MIT */
/*
 * probe.h - "beneath --probe URL": a health check that needs no curl. It
 * connects to URL, sends one GET and judges the status line, for container
 * HEALTHCHECKs and scripts.
 */
#ifndef BENEATH_TRANSPORT_H1_PROBE_H
#define BENEATH_TRANSPORT_H1_PROBE_H

/* Seconds the whole probe may take: connect, request and status line. */
#define PROBE_TIMEOUT 5

/*
 * probe_run - GET @url and print one line saying what came back: on stdout
 * when the answer is 2xx or 3xx, on stderr otherwise. @url is
 * "http://HOST[:PORT][/PATH]" or "https://..." (HOST numeric, [IPv6] or
 * localhost; the certificate is not verified: this checks that the server
 * answers, not who it is) or "unix:SOCKET" (GET /).
 *
 * Returns the process exit status: 0 for a 2xx or 3xx answer within
 * PROBE_TIMEOUT seconds, 1 for anything else (bad URL, no connection,
 * timeout, another status).
 */
int probe_run(const char *url);

#endif
