// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target of serve's --web.config.file parser (user/http/webcfg.c,
 * with libyaml): any bytes as the file. An accepted file must hold what
 * the format allows (the checks below); fuzz_parsed_ok: it was accepted,
 * for replay.c's valid-* seeds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/webcfg.h"

int fuzz_parsed_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct td_webcfg c;
	char err[256];

	fuzz_parsed_ok = !td_webcfg_parse((const char *)data, size, "/etc/tdctl",
					  &c, err, sizeof(err));
	if (!fuzz_parsed_ok) {
		if (!err[0] || c.nusers || c.cert_file)	/* a reason; nothing kept */
			abort();
		return 0;
	}
	if (c.tls && (!c.cert_file || !c.key_file))
		abort();
	if (c.nusers > TD_WEB_USERS_MAX || c.nheaders > TD_WEB_HEADERS_MAX ||
	    c.min_version > c.max_version || c.min_version < 0x0303 ||
	    c.nciphers > TD_WEB_CIPHERS || c.ncurves > TD_WEB_CURVES)
		abort();
	for (int i = 0; i < c.nciphers; i++)
		if (c.ciphers[i] >= TD_WEB_CIPHERS)
			abort();
	for (int i = 0; i < c.ncurves; i++)
		if (c.curves[i] >= TD_WEB_CURVES)
			abort();
	for (int i = 0; i < c.nusers; i++)
		if (strlen(c.users[i].hash) != 60 || strchr(c.users[i].name, ':'))
			abort();
	td_webcfg_free(&c);
	return 0;
}
