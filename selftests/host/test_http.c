// SPDX-License-Identifier: GPL-2.0
/*
 * user/http/: the request parser (request.c), base64, the answers of the
 * request path (server.c's td_http_answer()), exporter-toolkit's web
 * configuration (webcfg.c) and basic authentication with bcrypt
 * (auth.c), from their headers.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http/auth.h"
#include "http/request.h"
#include "http/server.h"
#include "http/webcfg.h"
#include "tap.h"

static int parse(const char *s, struct td_http_req *r)
{
	return td_http_parse(s, strlen(s), 8192, r);
}

static void st_is(const char *s, int want, const char *what)
{
	struct td_http_req r;
	int st = parse(s, &r);

	ok(st == want, "%s: %d (got %d)", what, want, st);
}

static void test_parse(void)
{
	struct td_http_req r;
	char big[9000];

	ok(parse("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n"
		 "Accept: application/openmetrics-text;version=1.0.0\r\n\r\n", &r) == 200 &&
	   !strcmp(r.path, "/metrics") && !strcmp(r.method, "GET") &&
	   r.openmetrics && !r.head && !r.auth,
	   "GET with a query and Accept: path without the query, OpenMetrics");
	ok(parse("HEAD / HTTP/1.0\n\n", &r) == 200 && r.head && !r.openmetrics,
	   "HTTP/1.0 without Host, lone LFs: HEAD /");
	st_is("GET /metrics HTTP/1.1\r\nHost: a\r\n", 0, "no empty line yet: incomplete");
	st_is("GET /metrics HTTP/1.1\r\n\r\n", 400, "HTTP/1.1 without Host");
	/* RFC 9112 2.2: empty lines before the request line are ignored
	 * (a few; a head of nothing but empty lines is refused).
	 */
	st_is("\r\n", 0, "an empty line only: the request line is still to come");
	ok(parse("\r\nGET /metrics HTTP/1.1\r\nHost: a\r\n\r\n", &r) == 200 &&
	   !strcmp(r.path, "/metrics"), "an empty line (CRLF) before the request line: ignored");
	ok(parse("\n\r\nHEAD / HTTP/1.0\n\n", &r) == 200 && r.head,
	   "two empty lines (LF, CRLF) before the request line: ignored");
	ok(!td_http_head_ends("\r\nGET / HTTP/1.0\r\n", 0, 18) &&
	   !td_http_head_ends("\r\n\r\nGET / HTTP/1.0\r\n", 2, 20) &&
	   td_http_head_ends("\r\nGET / HTTP/1.0\r\n\r\n", 18, 20),
	   "td_http_head_ends: empty lines before the request line end nothing");
	st_is("\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.0\r\n\r\n", 400,
	      "nine empty lines before the request line");
	ok(td_http_head_ends("GET / HTTP/1.0\r\n\r", 0, 17) == false &&
	   td_http_head_ends("GET / HTTP/1.0\r\n\r\n", 17, 18) &&
	   td_http_head_ends("GET / HTTP/1.0\n\n", 15, 16),
	   "td_http_head_ends: the empty line, found from the new bytes");
	st_is("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "two Hosts");
	st_is("POST /metrics HTTP/1.1\r\nHost: a\r\n\r\n", 405, "POST");
	st_is("GET /metrics HTTP/2.0\r\nHost: a\r\n\r\n", 505, "HTTP/2.0");
	st_is("GET /metrics HTTP/1.1 \r\nHost: a\r\n\r\n", 400, "a space after the version");
	st_is("GET  /metrics HTTP/1.1\r\nHost: a\r\n\r\n", 400, "two spaces");
	st_is("GET metrics HTTP/1.1\r\nHost: a\r\n\r\n", 400, "a target without /");
	st_is("GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n", 400, "a control byte in the target");
	st_is("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400, "obs-fold");
	st_is("GET / HTTP/1.1\r\nHost a\r\n\r\n", 400, "a header without ':'");
	st_is("GET / HTTP/1.1\r\nHo st: a\r\n\r\n", 400, "a space in a header name");
	ok(td_http_parse("GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n", 29, 8192, &r) == 400,
	   "a NUL in a header: 400");
	st_is("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400, "a lone CR");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	ok(td_http_parse(big, sizeof(big), 8192, &r) == 431, "9000 bytes without an end: 431");
	memcpy(big + 300, " HTTP/1.1\r\nHost: a\r\n\r\n", 23);
	ok(td_http_parse(big, 323, 8192, &r) == 414, "a target of 295 bytes: 414");
	/* Basic credentials: "prom:se:cret" */
	ok(parse("GET / HTTP/1.1\r\nHost: a\r\n"
		 "Authorization: Basic cHJvbTpzZTpjcmV0\r\n\r\n", &r) == 200 &&
	   r.auth && !strcmp(r.user, "prom") && !strcmp(r.pass, "se:cret"),
	   "Basic credentials decoded; the password may hold ':'");
	ok(parse("GET / HTTP/1.1\r\nHost: a\r\n"
		 "authorization: bAsIc   cHJvbTo=\r\n\r\n", &r) == 200 &&
	   r.auth && !strcmp(r.user, "prom") && !*r.pass,
	   "the scheme in any case, an empty password");
	ok(parse("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer xyz\r\n\r\n",
		 &r) == 200 && !r.auth,
	   "another scheme: no Basic credentials");
	st_is("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic cHJvbQ==\r\n\r\n", 400,
	      "Basic without ':'");
	st_is("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic cHJvbTpzZWNy\r\n"
	      "Authorization: Basic cHJvbTpzZWNy\r\n\r\n",
	      400, "two Authorization headers");
	st_is("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic cHJv*TpzZWNy\r\n\r\n", 400,
	      "not base64");
	/* "a:\x01" */
	st_is("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic YToB\r\n\r\n", 400,
	      "a control character in the credentials");
}

static void test_base64(void)
{
	char out[16];

	ok(td_base64_decode("YWJj", 4, out, sizeof(out)) == 3 && !strcmp(out, "abc"),
	   "base64 abc");
	ok(td_base64_decode("YQ==", 4, out, sizeof(out)) == 1 && !strcmp(out, "a"),
	   "base64 a with padding");
	ok(td_base64_decode("YQ=", 3, out, sizeof(out)) < 0 &&
	   td_base64_decode("Y===", 4, out, sizeof(out)) < 0 &&
	   td_base64_decode("YQ==YWJj", 8, out, sizeof(out)) < 0 &&
	   td_base64_decode("YWJjYWJjYWJjYWJj", 16, out, 12) < 0,
	   "base64: bad length, padding in the middle, too long for the buffer");
}

static const char good_cfg[] =
	"# a comment\n"
	"tls_server_config:\n"
	"  cert_file: server.crt\n"
	"  key_file: /etc/k.key\n"
	"  client_auth_type: RequireAndVerifyClientCert\n"
	"  client_ca_file: \"ca.pem\"\n"
	"  min_version: TLS13\n"
	"http_server_config:\n"
	"  http2: false\n"
	"  headers:\n"
	"    X-Frame-Options: deny\n"
	"basic_auth_users:\n"
	"  prom: $2b$04$h.oAUvs/p5Y3MmRH.E5bZeXLqlUXBVtzgepkiOcu8m04D8Zur8PLO\n";

static int cfg_parse(const char *text, struct td_webcfg *c, char *err,
		     size_t errlen)
{
	return td_webcfg_parse(text, strlen(text), NULL, c, err, errlen);
}

static void cfg_bad(const char *text, const char *why)
{
	struct td_webcfg c;
	char err[512] = "";
	int r = td_webcfg_parse(text, strlen(text), "/d", &c, err, sizeof(err));

	ok(r == -1 && strstr(err, why), "web config refused: %s (%s)", why, err);
}

static void test_webcfg(void)
{
	struct td_webcfg c;
	char err[512] = "";

	ok(!td_webcfg_parse(good_cfg, strlen(good_cfg), "/d", &c, err, sizeof(err)) &&
	   c.tls && !strcmp(c.cert_file, "/d/server.crt") &&
	   !strcmp(c.key_file, "/etc/k.key") &&
	   !strcmp(c.client_ca_file, "/d/ca.pem") &&
	   c.client_auth == TD_CA_REQUIRE_VERIFY && c.min_version == 0x0304 &&
	   c.max_version == 0x0304 && c.nheaders == 1 && c.nusers == 1 &&
	   !strcmp(c.users[0].name, "prom"),
	   "the toolkit's example: TLS, client CA, headers, a user; paths relative to the file (%s)",
	   err);
	td_webcfg_free(&c);
	ok(!td_webcfg_parse("", 0, NULL, &c, err, sizeof(err)) && !c.tls && !c.nusers,
	   "an empty file: plain HTTP, no users");
	ok(!td_webcfg_parse("basic_auth_users:\n", 18, NULL, &c, err, sizeof(err)) &&
	   !c.tls && !c.nusers, "an empty basic_auth_users");
	/* cipher_suites and curve_preferences in Go's names, as the
	 * toolkit takes them: TLS 1.2 suites of Go's tls.CipherSuites().
	 */
	ok(!cfg_parse("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		      "  cipher_suites:\n    - TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA\n"
		      "    - TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256\n"
		      "  curve_preferences: [X25519, CurveP256]\n", &c, err,
		      sizeof(err)) && c.nciphers == 2 && c.ncurves == 2 &&
	   !strcmp(td_web_ciphers[c.ciphers[0]].openssl, "ECDHE-RSA-AES128-SHA") &&
	   !strcmp(td_web_ciphers[c.ciphers[1]].openssl, "ECDHE-ECDSA-CHACHA20-POLY1305") &&
	   !strcmp(td_web_curves[c.curves[0]].openssl, "X25519") &&
	   !strcmp(td_web_curves[c.curves[1]].openssl, "P-256"),
	   "cipher_suites and curve_preferences: Go's names, in order (%s)", err);
	td_webcfg_free(&c);
	ok(!cfg_parse("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		      "  cipher_suites: []\n", &c, err, sizeof(err)) &&
	   !c.nciphers, "cipher_suites: []: the defaults (%s)", err);
	td_webcfg_free(&c);
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		"  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
		"line 4: tls_server_config.cipher_suites: TLS_AES_128_GCM_SHA256 is a TLS 1.3 suite");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		"  cipher_suites: [TLS_RSA_WITH_AES_128_CBC_SHA]\n",
		"'TLS_RSA_WITH_AES_128_CBC_SHA' is not one of TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		"  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, "
		"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA]\n", "is given twice");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		"  cipher_suites: TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA\n", "expected a list");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		"  curve_preferences: [P-256]\n",
		"line 4: tls_server_config.curve_preferences: 'P-256' is not one of CurveP256");
	cfg_bad("tls_server_config:\n  cert_file: a\n  keyfile: b\n", "unknown key 'keyfile'");
	cfg_bad("tls_config:\n  cert_file: a\n", "unknown key 'tls_config'");
	cfg_bad("tls_server_config:\n  cert_file: a\n", "missing key_file");
	cfg_bad("tls_server_config:\n  key_file: a\n", "missing cert_file");
	/* TLS settings without the files would be ignored (plain HTTP):
	 * refused, and min_version is never left above max_version (found
	 * by fuzz_webcfg: corpus-webcfg/tls-max-version-only.yml).
	 */
	cfg_bad("tls_server_config:\n  max_version: TLS11\n", "missing cert_file");
	cfg_bad("tls_server_config:\n  min_version: TLS13\n", "missing cert_file");
	cfg_bad("tls_server_config:\n  client_auth_type: NoClientCert\n", "missing cert_file");
	cfg_bad("tls_server_config:\n  prefer_server_cipher_suites: true\n",
		"missing cert_file");
	ok(!td_webcfg_parse("tls_server_config:\n", 19, NULL, &c, err, sizeof(err)) &&
	   !c.tls, "an empty tls_server_config: plain HTTP");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n",
		"'Maybe' is not one of");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		"  client_auth_type: RequireAndVerifyClientCert\n",
		"needs client_ca_file");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		"client_auth_type is NoClientCert");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n"
		"  max_version: TLS12\n",
		"min_version is above max_version");
	/* OpenSSL at Debian's security level refuses every TLS 1.0 and
	 * 1.1 handshake: a file that asks for them is refused, not
	 * accepted and then failing every such handshake.
	 */
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS10\n",
		"line 4: tls_server_config.min_version: TLS10 is not supported");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS11\n"
		"  max_version: TLS11\n",
		"line 4: tls_server_config.min_version: TLS11 is not supported");
	cfg_bad("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: SSL3\n",
		"'SSL3' is not one of");
	cfg_bad("http_server_config:\n  http2: true\n", "http2: true is not supported");
	cfg_bad("http_server_config:\n  headers:\n    X-Powered-By: me\n",
		"'X-Powered-By' is not one of");
	cfg_bad("http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n",
		"is not nosniff");
	cfg_bad("basic_auth_users:\n  prom: secret\n", "basic_auth_users.prom: not a bcrypt hash");
	cfg_bad("basic_auth_users:\n"
		"  prom: $2b$31$WdpfH1Yhk7Tq1mdAv3nUMuMUZVymIGcvmjbc6Ps8ASaq.tBI.BYbS\n",
		"bcrypt cost 31");
	cfg_bad("basic_auth_users:\n"
		"  prom: $2b$04$WdpfH1Yhk7Tq1mdAv3nUMuMUZVymIGcvmjbc6Ps8ASaq.tBI.BYbS\n"
		"  prom: $2b$04$WdpfH1Yhk7Tq1mdAv3nUMuMUZVymIGcvmjbc6Ps8ASaq.tBI.BYbS\n",
		"the key 'prom' is given twice");
	cfg_bad("basic_auth_users: [a, b]\n", "expected a mapping");
	cfg_bad("tls_server_config:\n  cert_file: !!binary YQ==\n  key_file: b\n",
		"tag:yaml.org,2002:binary is not supported");
	cfg_bad("a: [\n", "line ");
	cfg_bad("basic_auth_users: {}\n---\nbasic_auth_users: {}\n", "more than one YAML document");
	cfg_bad("- 1\n", "the file: expected a mapping");
	cfg_bad("x: &a {k: *a}\n", "unknown key 'x'");
}

static void fn(void *ctx, const struct td_http_req *r, struct td_http_reply *out)
{
	(void)ctx;
	if (!strcmp(r->path, "/metrics")) {
		out->body = strdup("m 1\n");
		out->len = 4;
	} else {
		out->status = 404;
	}
}

static void test_answer_auth(void)
{
	struct td_webcfg c;
	struct td_http_req r;
	struct td_auth *a;
	char err[512] = "", *resp = NULL;
	uint8_t key[32];
	size_t len;

	td_webcfg_parse(good_cfg, strlen(good_cfg), "/d", &c, err, sizeof(err));
	parse("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n", &r);
	ok(!td_http_answer(&c, fn, NULL, 200, &r, false, &resp, &len) &&
	   !strncmp(resp, "HTTP/1.1 401 Unauthorized\r\n", 27) &&
	   strstr(resp, "WWW-Authenticate: Basic") &&
	   strstr(resp, "X-Frame-Options: deny\r\n"),
	   "users and no good credentials: 401 with WWW-Authenticate, the configured header");
	free(resp);
	ok(!td_http_answer(&c, fn, NULL, 200, &r, true, &resp, &len) &&
	   !strncmp(resp, "HTTP/1.1 200 OK\r\n", 17) &&
	   len >= 4 && !memcmp(resp + len - 4, "m 1\n", 4) &&
	   strstr(resp, "Content-Length: 4\r\n"),
	   "good credentials: 200 and the handler's body");
	free(resp);
	parse("HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n", &r);
	ok(!td_http_answer(NULL, fn, NULL, 200, &r, false, &resp, &len) &&
	   !strncmp(resp, "HTTP/1.1 404 Not Found\r\n", 24) &&
	   !memcmp(resp + len - 4, "\r\n\r\n", 4),
	   "no web config: the handler's 404; HEAD: no body");
	free(resp);
	ok(!td_http_answer(NULL, fn, NULL, 405, &r, false, &resp, &len) &&
	   strstr(resp, "Allow: GET, HEAD\r\n"), "405 names the methods");
	free(resp);

	a = td_auth_new(&c);
	ok(a && !td_auth_selftest(a, err, sizeof(err)), "crypt_r() takes the $2b$ hash (%s)", err);
	ok(td_auth_lookup(a, "prom", "secret", key) == TD_AUTH_CHECK,
	   "a password not seen: to be checked");
	ok(td_auth_verify(a, "prom", "secret"), "bcrypt: the right password passes");
	td_auth_remember(a, key, true);
	ok(td_auth_lookup(a, "prom", "secret", key) == TD_AUTH_OK,
	   "then it is known good");
	ok(!td_auth_verify(a, "prom", "Secret") && !td_auth_verify(a, "nobody", "secret") &&
	   !td_auth_verify(a, "prom", ""), "a wrong password, an unknown user, no password fail");
	td_auth_lookup(a, "prom", "Secret", key);
	td_auth_remember(a, key, false);
	ok(td_auth_lookup(a, "prom", "Secret", key) == TD_AUTH_FAIL &&
	   td_auth_lookup(a, "prom", "secret", key) == TD_AUTH_OK,
	   "a failure is remembered apart from the good one");
	td_auth_free(a);
	td_webcfg_free(&c);

	/* bcrypt reads 72 bytes of a password: a longer one is refused,
	 * not taken for its first 72 bytes (the hash is of 72 'p').
	 */
	{
		static const char cfg72[] =
			"basic_auth_users:\n"
			"  u: $2b$04$abcdefghijklmnopqrstuuNt.0ah97gHY3F7JC1Z6EXmQc0bQBhIO\n";
		char p72[80], p73[80];

		memset(p72, 'p', 72);
		p72[72] = '\0';
		memcpy(p73, p72, 72);
		strcpy(p73 + 72, "X");
		ok(!td_webcfg_parse(cfg72, strlen(cfg72), NULL, &c, err, sizeof(err)) &&
		   (a = td_auth_new(&c)) != NULL, "a user whose password is 72 bytes (%s)", err);
		ok(a && td_auth_verify(a, "u", p72), "the password of 72 bytes passes");
		ok(a && !td_auth_verify(a, "u", p73),
		   "the same 72 bytes and one more: refused, not cut to 72");
		ok(a && td_auth_lookup(a, "u", p73, key) == TD_AUTH_FAIL,
		   "a password over 72 bytes fails without a bcrypt check");
		td_auth_free(a);
		td_webcfg_free(&c);
	}
}

static double verify_s(const struct td_auth *a, const char *user,
		       const char *pass)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	td_auth_verify(a, user, pass);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* auth.h: the time of a check does not tell which users exist. With
 * users of bcrypt costs 4 and 10, a wrong password for either and any
 * password for a user that does not exist take the time of cost 10
 * (the fastest of 5 runs each: the least disturbed by other load).
 */
static void test_auth_timing(void)
{
	static const char cfg[] =
		"basic_auth_users:\n"
		"  cheap: $2b$04$abcdefghijklmnopqrstuuAvlEesT7KQbYYxu0SaQyHxkKTWXLLgK\n"
		"  dear: $2b$10$abcdefghijklmnopqrstuuKYsNjQ5ZhxxlIbwAgtNUotzlWXRbbd.\n";
	const char *who[3] = { "cheap", "dear", "nobody" };
	double t[3] = { 1e9, 1e9, 1e9 };
	struct td_webcfg c;
	struct td_auth *a;
	char err[512] = "";

	a = td_webcfg_parse(cfg, strlen(cfg), NULL, &c, err, sizeof(err)) ? NULL :
	    td_auth_new(&c);
	if (!a) {
		ok(0, "users of costs 4 and 10 (%s)", err);
		return;
	}
	ok(td_auth_verify(a, "cheap", "cheap") && td_auth_verify(a, "dear", "dear"),
	   "both users' passwords pass");
	for (int run = 0; run < 5; run++)
		for (int i = 0; i < 3; i++) {
			double s = verify_s(a, who[i], "wrong");

			if (s < t[i])
				t[i] = s;
		}
	ok(t[0] > 0.5 * t[2] && t[0] < 2 * t[2] && t[1] > 0.5 * t[2] && t[1] < 2 * t[2],
	   "a wrong password for users of cost 4 and 10 and an unknown user: "
	   "%.1f, %.1f and %.1f ms (within a factor 2)", t[0] * 1e3, t[1] * 1e3, t[2] * 1e3);
	td_auth_free(a);
	td_webcfg_free(&c);
}

int main(void)
{
	test_parse();
	test_base64();
	test_webcfg();
	test_answer_auth();
	test_auth_timing();
	return tap_done();
}
