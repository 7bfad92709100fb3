// SPDX-License-Identifier: GPL-2.0
/*
 * serve's listening socket: --listen ADDR:PORT parsed, bound, listening.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/common.h"
#include "http/listen.h"

int td_http_listen(const char *addr, struct sockaddr_storage *ss)
{
	char host[256];
	const char *port, *colon = strrchr(addr, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	socklen_t sl;
	int fd = -1, one = 1, zero = 0, r;
	size_t hl = colon ? (size_t)(colon - addr) : strlen(addr);

	port = colon ? colon + 1 : "";
	if (!colon || hl >= sizeof(host) ||
	    strspn(port, "0123456789") != strlen(port) || !*port ||
	    strlen(port) > 5 || atoi(port) < 1 || atoi(port) > 65535) {
		p_err("invalid --listen '%s' (expected ADDR:PORT)", addr);
		return -1;
	}
	memcpy(host, addr, hl);
	host[hl] = '\0';
	if (host[0] == '[' && hl > 1 && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	memset(ss, 0, sizeof(*ss));
	if (!*host) {
		/* Every address: IPv6 and IPv4 on one socket (dual stack),
		 * or IPv4 alone where the kernel has no IPv6.
		 */
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

		fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			a6->sin6_family = AF_INET6;
			a6->sin6_addr = in6addr_any;
			a6->sin6_port = htons((uint16_t)atoi(port));
			sl = sizeof(*a6);
			if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
				       sizeof(zero))) {
				close(fd);
				fd = -1;
			}
		}
		if (fd < 0) {
			fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			memset(ss, 0, sizeof(*ss));
			a4->sin_family = AF_INET;
			a4->sin_addr.s_addr = htonl(INADDR_ANY);
			a4->sin_port = htons((uint16_t)atoi(port));
			sl = sizeof(*a4);
		}
	} else {
		r = getaddrinfo(host, port, &hints, &ai);
		if (r) {
			p_err("invalid --listen '%s': %s", addr, gai_strerror(r));
			return -1;
		}
		memcpy(ss, ai->ai_addr, ai->ai_addrlen);
		sl = ai->ai_addrlen;
		freeaddrinfo(ai);
		fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)ss, sl) || listen(fd, 1024)) {
		p_err("cannot listen on %s: %s", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	return fd;
}

bool td_http_is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr) &&
	       a6->sin6_addr.s6_addr[12] == 127;
}
