/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The web configuration file of Prometheus' exporter-toolkit
 * (--web.config.file, the format node_exporter and every exporter built
 * on the toolkit read): TLS and HTTP basic authentication. Every key is
 * honoured or the file is refused with the reason; none is ignored.
 *
 *   tls_server_config:
 *     cert_file: PATH           # PEM certificate (chain)
 *     key_file: PATH            # PEM private key
 *     client_auth_type: TYPE    # NoClientCert (default), RequestClientCert,
 *                               # RequireAnyClientCert,
 *                               # VerifyClientCertIfGiven,
 *                               # RequireAndVerifyClientCert
 *     client_ca_file: PATH      # PEM CAs that verify client certificates
 *     min_version: TLS12        # TLS12 (default), TLS13; TLS10 and
 *                               # TLS11 are refused (OpenSSL's level)
 *     max_version: TLS13        # (default TLS13)
 *     prefer_server_cipher_suites: true
 *     cipher_suites: [NAME, ...]     # Go's names of TLS 1.2 suites
 *     curve_preferences: [NAME, ...] # CurveP256, CurveP384, CurveP521,
 *                                    # X25519
 *   http_server_config:
 *     http2: false              # HTTP/2 is not served: true is refused
 *     headers: {NAME: VALUE}    # the toolkit's five security headers
 *   basic_auth_users:
 *     NAME: BCRYPT_HASH         # $2a$, $2b$ or $2y$, cost 4 to 14
 *
 * Relative paths are relative to the file's folder, as in the toolkit.
 * Keys the toolkit has and this does not (client_allowed_sans, inline
 * cert, key, client_ca, ...) are refused by name.
 */
#ifndef TD_HTTP_WEBCFG_H
#define TD_HTTP_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

enum td_client_auth {
	TD_CA_NONE,		/* NoClientCert */
	TD_CA_REQUEST,		/* RequestClientCert */
	TD_CA_REQUIRE_ANY,	/* RequireAnyClientCert */
	TD_CA_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	TD_CA_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
};

#define TD_WEB_USERS_MAX	64
#define TD_WEB_HEADERS_MAX	5

/* exporter-toolkit's names (Go's) and OpenSSL's: the cipher suites of
 * TLS 1.2 that Go's tls.CipherSuites() lists, the curves of
 * curve_preferences.
 */
struct td_web_name {
	const char *go, *openssl;
};

#define TD_WEB_CIPHERS	10
#define TD_WEB_CIPHERS_AEAD	6	/* the first 6: ECDHE and AEAD, the default */
#define TD_WEB_CURVES	4
extern const struct td_web_name td_web_ciphers[TD_WEB_CIPHERS];
extern const struct td_web_name td_web_curves[TD_WEB_CURVES];

struct td_web_user {
	char *name;
	char *hash;		/* bcrypt, as crypt(3) takes it */
};

struct td_webcfg {
	bool tls;
	char *cert_file, *key_file, *client_ca_file;
	enum td_client_auth client_auth;
	int min_version, max_version;	/* 0x0301 (1.0) .. 0x0304 (1.3) */
	bool prefer_server_ciphers;
	/* cipher_suites, curve_preferences: indices into the tables above,
	 * in the file's order (none: the defaults)
	 */
	unsigned char ciphers[TD_WEB_CIPHERS], curves[TD_WEB_CURVES];
	int nciphers, ncurves;
	struct { char *name, *value; } headers[TD_WEB_HEADERS_MAX];
	int nheaders;
	struct td_web_user users[TD_WEB_USERS_MAX];
	int nusers;
};

/*
 * Parse text[0..n) (the file's contents; dir: the file's folder, for
 * relative paths) into *c. 0, or -1 with the reason in err (the key's
 * path and line, e.g. "line 3: tls_server_config.cipher_suites: not
 * supported ..."). Checks the form of everything, opens no file.
 */
int td_webcfg_parse(const char *text, size_t n, const char *dir,
		    struct td_webcfg *c, char *err, size_t errlen);
/* Read and parse the file: td_webcfg_parse() of its contents. */
int td_webcfg_load(const char *path, struct td_webcfg *c, char *err,
		   size_t errlen);
void td_webcfg_free(struct td_webcfg *c);

#endif
