/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve's listening socket (server.c opens it through these).
 */
#ifndef TD_HTTP_LISTEN_H
#define TD_HTTP_LISTEN_H

#include <stdbool.h>
#include <sys/socket.h>

/* A non-blocking socket listening on ADDR:PORT (ADDR empty: every
 * address, IPv6 and IPv4 where the kernel has both; [V6ADDR] in
 * brackets); *ss gets the address bound. -1 after p_err().
 */
int td_http_listen(const char *addr, struct sockaddr_storage *ss);

/* A loopback address: 127.0.0.0/8, ::1, or 127/8 mapped into IPv6. */
bool td_http_is_loopback(const struct sockaddr_storage *ss);

#endif
