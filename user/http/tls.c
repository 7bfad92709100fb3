// SPDX-License-Identifier: GPL-2.0
/*
 * serve's TLS context from the web configuration (tls.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "base/common.h"
#include "http/tls.h"

static int accept_any_cert(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

static void tls_err(const char *what, const char *file)
{
	unsigned long e = ERR_get_error();
	char buf[256];

	ERR_error_string_n(e, buf, sizeof(buf));
	p_err("--web.config.file: %s %s: %s", what, file ? file : "",
	      e ? buf : strerror(errno));
	ERR_clear_error();
}

/* The suites of TLS 1.2 (cipher_suites; by default those of ECDHE with
 * an AEAD cipher, as Go offers) and the curves (curve_preferences; by
 * default OpenSSL's). Each one named must be there, or the file is
 * refused. TLS 1.3's suites are OpenSSL's, all of them AEAD.
 */
static int tls_suites(SSL_CTX *ctx, const struct td_webcfg *w)
{
	char list[512];
	size_t o = 0;
	int n = w->nciphers ? w->nciphers : TD_WEB_CIPHERS_AEAD;

	for (int i = 0; i < n; i++) {
		const char *name = td_web_ciphers[w->nciphers ? w->ciphers[i] : i].openssl;

		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? ":" : "", name);
	}
	if (SSL_CTX_set_cipher_list(ctx, list) != 1) {
		tls_err("cannot use the cipher suites", list);
		return -1;
	}
	for (int i = 0; i < w->nciphers; i++) {
		const struct td_web_name *c = &td_web_ciphers[w->ciphers[i]];
		struct stack_st_SSL_CIPHER *sk = SSL_CTX_get_ciphers(ctx);
		bool found = false;

		for (int k = 0; sk && k < sk_SSL_CIPHER_num(sk); k++)
			if (!strcmp(SSL_CIPHER_get_name(sk_SSL_CIPHER_value(sk, k)),
				    c->openssl))
				found = true;
		if (!found) {
			p_err("--web.config.file: tls_server_config.cipher_suites: %s "
			      "(OpenSSL's %s) is not available here",
			      c->go, c->openssl);
			return -1;
		}
	}
	o = 0;
	list[0] = '\0';
	for (int i = 0; i < w->ncurves; i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? ":" : "",
				      td_web_curves[w->curves[i]].openssl);
	if (w->ncurves && SSL_CTX_set1_groups_list(ctx, list) != 1) {
		tls_err("cannot use the curve_preferences", list);
		return -1;
	}
	ERR_clear_error();
	return 0;
}

struct ssl_ctx_st *td_http_tls_context(const struct td_webcfg *w)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	int mode = SSL_VERIFY_NONE;

	if (!ctx) {
		tls_err("cannot make a TLS context", NULL);
		return NULL;
	}
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
			 SSL_MODE_ENABLE_PARTIAL_WRITE);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
			    (w->prefer_server_ciphers ?
			     SSL_OP_CIPHER_SERVER_PREFERENCE : 0));
	if (!SSL_CTX_set_min_proto_version(ctx, w->min_version) ||
	    !SSL_CTX_set_max_proto_version(ctx, w->max_version)) {
		tls_err("TLS versions not available", NULL);
		goto fail;
	}
	if (tls_suites(ctx, w))
		goto fail;
	if (SSL_CTX_use_certificate_chain_file(ctx, w->cert_file) != 1) {
		tls_err("cannot use cert_file", w->cert_file);
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, w->key_file, SSL_FILETYPE_PEM) != 1) {
		tls_err("cannot use key_file", w->key_file);
		goto fail;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		tls_err("key_file does not match cert_file", w->key_file);
		goto fail;
	}
	if (w->client_ca_file) {
		/* The names sent in the certificate request: NULL (none
		 * read) fails below; the context owns the list.
		 */
		SSL_CTX_set_client_CA_list(ctx, SSL_load_client_CA_file(w->client_ca_file));
		if (!SSL_CTX_get_client_CA_list(ctx) ||
		    SSL_CTX_load_verify_locations(ctx, w->client_ca_file, NULL) != 1) {
			tls_err("cannot use client_ca_file", w->client_ca_file);
			goto fail;
		}
	}
	/* Go's tls.ClientAuthType, in OpenSSL's terms. */
	switch (w->client_auth) {
	case TD_CA_NONE:
		break;
	case TD_CA_REQUEST:
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, accept_any_cert);
		break;
	case TD_CA_REQUIRE_ANY:
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER |
				   SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any_cert);
		break;
	case TD_CA_VERIFY_IF_GIVEN:
		mode = SSL_VERIFY_PEER;
		SSL_CTX_set_verify(ctx, mode, NULL);
		break;
	case TD_CA_REQUIRE_VERIFY:
		mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
		SSL_CTX_set_verify(ctx, mode, NULL);
		break;
	}
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}
