/* SPDX-License-Identifier: MIT */
/*
 * notify.h - tell a service manager (systemd Type=notify) where the server is
 * in its life: ready, reloading, stopping. Speaks the sd_notify datagram
 * protocol to $NOTIFY_SOCKET itself; without that variable every call does
 * nothing.
 */
#ifndef BENEATH_PROCESS_NOTIFY_H
#define BENEATH_PROCESS_NOTIFY_H

/*
 * notify_ready - the listeners are up and serving: "READY=1" with MAINPID,
 * also after a reload has been applied.
 */
void notify_ready(void);

/*
 * notify_reloading - SIGHUP arrived and the reload starts: "RELOADING=1" with
 * MONOTONIC_USEC (systemd 253 and later want it; older ones ignore it).
 * notify_ready follows when the reload is done.
 */
void notify_reloading(void);

/* notify_stopping - shutdown has begun: "STOPPING=1". */
void notify_stopping(void);

/*
 * notify_send - send @state (newline-separated "KEY=VALUE" lines) to
 * $NOTIFY_SOCKET: an absolute path or "@name" (abstract namespace).
 *
 * Returns 1 when sent, 0 when NOTIFY_SOCKET is unset, or -errno
 * (-EINVAL for a malformed socket name, anything sendmsg can return).
 */
int notify_send(const char *state);

/*
 * notify_through - from now on, every state goes to @fn instead of
 * $NOTIFY_SOCKET (the serving process tells its keeper, which is the main
 * PID systemd listens to).
 */
void notify_through(void (*fn)(const char *state));

#endif
