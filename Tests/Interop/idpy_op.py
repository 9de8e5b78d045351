#!/usr/bin/env python3
# Verified with: idpyoidc==5.0.0 (cryptojwt==1.11.0), CPython 3.11.
#   python3 -m venv /tmp/idpy-venv
#   /tmp/idpy-venv/bin/pip install 'idpyoidc==5.0.0' 'cryptojwt==1.11.0'
"""A real OpenID Provider built with idpyoidc, for AuthHub interop tests.

Start (loopback only):

    IDPY_CLIENT_SECRET=... python Tests/Interop/idpy_op.py \
        --port PORT --data DIR --client-jwks FILE \
        [--accept-issuer-aud] [--dpop-required] [--rfc-ath] [--par-fill-front-channel]

Without the optional flags everything below is stock idpyoidc behaviour.

Serves at http://127.0.0.1:PORT (the issuer, exactly, no trailing slash):

    GET  /.well-known/openid-configuration
    GET  /jwks                          (OP signing keys, public)
    GET  /authorization                 (authorization endpoint)
    POST /pushed_authorization          (RFC 9126 PAR; answers 201 + JSON)
    POST /token                         (authorization_code + PKCE S256, refresh_token)
    GET|POST /userinfo

User authentication is idpyoidc's own NoAuthn method
(idpyoidc.server.user_authn.user.NoAuthn) for the fixed user "alice", so
GET /authorization?... answers 302 with
Location: redirect_uri?state=..&scope=..&code=..&iss=..&client_id=..

After PAR, idpyoidc still verifies the front-channel query as a full OIDC
AuthorizationRequest before resolving request_uri, so send
  client_id, request_uri, response_type=code, scope=openid, redirect_uri
(or start with --par-fill-front-channel to allow client_id + request_uri alone).
Without PAR, scope offline_access needs prompt=consent (OIDC rule, enforced).

Clients (registered statically at start):

    authhub-pkjwt  token_endpoint_auth_method private_key_jwt; public keys read
                   from --client-jwks FILE (a JWK Set). Assertion "aud" must be
                   the URL of the endpoint it is sent to (token endpoint URL at
                   /token, PAR endpoint URL at /pushed_authorization); with
                   --accept-issuer-aud the issuer is accepted too.
    authhub-basic  client_secret_basic, secret = $IDPY_CLIENT_SECRET
    authhub-post   client_secret_post,  secret = $IDPY_CLIENT_SECRET

    All three: redirect_uri http://127.0.0.1:1/callback, response_type code,
    grant_types authorization_code + refresh_token, scopes openid profile
    email offline_access.

DPoP (RFC 9449) is on (idpyoidc.server.oauth2.add_on.dpop):
  * token endpoint: if a DPoP header is sent, idpyoidc's token_post_parse_request
    verifies it and the tokens are DPoP-bound (token_type "DPoP", cnf.jkt in the
    JWT access token). Without a DPoP header a Bearer token is issued, unless
    --dpop-required is given (then idpyoidc's check runs always and rejects).
  * userinfo: idpyoidc's userinfo_post_parse_request requires a DPoP proof on every
    request. NOTE idpyoidc 5.0.0 computes "ath" as the *hex* SHA-256 of the token,
    not base64url (RFC 9449 4.2). Pass --rfc-ath to accept the RFC form instead
    (a local replacement of that one check; everything else is idpyoidc's).

Nothing secret is printed. The OP's private keys live in DIR.
"""
import argparse
import base64
import hashlib
import json
import logging
import os
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.message.oidc import AccessTokenRequest
from idpyoidc.server import Server
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.exception import ClientAuthenticationError
from idpyoidc.server.exception import UnAuthorizedClient
from idpyoidc.server.oauth2.add_on import dpop as idpy_dpop
from idpyoidc.server.oauth2.add_on.pkce import CC_METHOD
from idpyoidc.server.oidc.token import Token

LOG = logging.getLogger("idpy_op")

CLIENT_PKJWT = "authhub-pkjwt"
CLIENT_BASIC = "authhub-basic"
CLIENT_POST = "authhub-post"
REDIRECT_URI = "http://127.0.0.1:1/callback"
EXTRA_REDIRECT_URIS: list = []  # --redirect-uri
SCOPES = ["openid", "profile", "email", "offline_access"]

USERS = {
    "alice": {
        "sub": "alice",
        "name": "Alice Example",
        "given_name": "Alice",
        "family_name": "Example",
        "preferred_username": "alice",
        "email": "alice@example.com",
        "email_verified": True,
    }
}


def build_conf(issuer: str, data_dir: str) -> dict:
    def p(name):
        return os.path.join(data_dir, name)

    crypt = {
        "kwargs": {
            "keys": {
                "key_defs": [
                    {"type": "OCT", "use": ["enc"], "kid": "password"},
                    {"type": "OCT", "use": ["enc"], "kid": "salt"},
                ]
            },
            "iterations": 1,
        }
    }
    return {
        "issuer": issuer,
        "entity_id": issuer,
        "httpc_params": {"verify": False, "timeout": 2},
        "keys": {
            "private_path": p("op_jwks.json"),
            "key_defs": [
                {"type": "RSA", "use": ["sig"]},
                {"type": "EC", "crv": "P-256", "use": ["sig"]},
            ],
            "read_only": False,
            "uri_path": "jwks",
        },
        "token_handler_args": {
            "jwks_def": {
                "private_path": p("token_jwks.json"),
                "read_only": False,
                "key_defs": [
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "code"},
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "refresh"},
                ],
            },
            "code": {"lifetime": 600, "kwargs": {"crypt_conf": crypt}},
            "token": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": 3600, "add_claims_by_scope": True},
            },
            "refresh": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": 86400},
            },
            "id_token": {
                "class": "idpyoidc.server.token.id_token.IDToken",
                "kwargs": {},
            },
        },
        "session_params": {"encrypter": crypt},
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                # S256 only (idpyoidc's default also offers plain, S384, S512).
                "kwargs": {"essential": True,
                           "code_challenge_methods": {"S256": CC_METHOD["S256"]}},
            },
            "dpop": {
                "function": "idpyoidc.server.oauth2.add_on.dpop.add_support",
                "kwargs": {
                    "dpop_signing_alg_values_supported": ["ES256", "RS256", "PS256"],
                    "dpop_endpoints": ["userinfo"],
                },
            },
        },
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "max_usage": 1,
                        },
                        "access_token": {},
                        "refresh_token": {"supports_minting": ["access_token", "refresh_token"]},
                    },
                    "expires_in": 43200,
                }
            },
        },
        "authentication": {
            "anon": {
                "acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified",
                "class": "idpyoidc.server.user_authn.user.NoAuthn",
                "kwargs": {"user": "alice"},
            }
        },
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo", "kwargs": {"db": USERS}},
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "private_path": p("cookie_jwks.json"),
                    "key_defs": [
                        {"type": "OCT", "use": ["enc"], "kid": "enc"},
                        {"type": "OCT", "use": ["sig"], "kid": "sig"},
                    ],
                    "read_only": False,
                },
                "name": {
                    "session": "oidc_op",
                    "register": "oidc_op_rp",
                    "session_management": "sman",
                },
            },
        },
        "preference": {
            "subject_types_supported": ["public"],
            "scopes_supported": SCOPES,
            "grant_types_supported": ["authorization_code", "refresh_token"],
        },
        "template_dir": p("templates"),
        "endpoint": {
            "provider_config": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "authorization": {
                "path": "authorization",
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "claims_parameter_supported": True,
                    "request_parameter_supported": True,
                    "request_uri_parameter_supported": True,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                },
            },
            "pushed_authorization": {
                "path": "pushed_authorization",
                "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
                "kwargs": {
                    "client_authn_method": [
                        "client_secret_post",
                        "client_secret_basic",
                        "private_key_jwt",
                    ]
                },
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {
                    "client_authn_method": [
                        "client_secret_post",
                        "client_secret_basic",
                        "private_key_jwt",
                    ]
                },
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {"client_authn_method": ["bearer_header", "dpop"]},
            },
        },
    }


def _client(client_id, method, secret=None):
    c = {
        "client_id": client_id,
        "redirect_uris": [(uri, None) for uri in [REDIRECT_URI] + EXTRA_REDIRECT_URIS],
        "response_types": ["code"],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": method,
        # idpyoidc's verify_client() enforces "<endpoint_name>_client_authn_method"
        # (or "client_authn_method"), not token_endpoint_auth_method.
        "token_endpoint_client_authn_method": [method],
        "pushed_authorization_request_endpoint_client_authn_method": [method],
        "allowed_scopes": SCOPES,
        "client_salt": hashlib.sha256(client_id.encode()).hexdigest()[:8],
    }
    if secret is not None:
        c["client_secret"] = secret
        c["client_secret_expires_at"] = 0
    return c


def _rfc_ath_userinfo_post_parse_request(request, client_id, context, auth_info, **kwargs):
    """idpyoidc's userinfo_post_parse_request, but with ath = base64url(sha256(token))."""
    _token = auth_info.get("token", None)
    if _token:
        rfc = base64.urlsafe_b64encode(hashlib.sha256(_token.encode()).digest()).rstrip(b"=").decode()
        hexform = hashlib.sha256(_token.encode()).hexdigest()
        _headers = (kwargs.get("http_info") or {}).get("headers") or {}
        _hdr = _headers.get("dpop")
        if _hdr:
            # Translate the RFC form into the form idpyoidc checks, then let idpyoidc
            # do every other check itself.
            from cryptojwt.jws.jws import factory
            _jws = factory(_hdr)
            if _jws and _jws.jwt.payload().get("ath") == rfc:
                auth_info = dict(auth_info)
                auth_info["token"] = None
                request = idpy_dpop.userinfo_post_parse_request(
                    request, client_id, context, auth_info, **kwargs)
                return request
            if _jws and _jws.jwt.payload().get("ath") == hexform:
                raise ValueError("'ath' is hex (idpyoidc form), --rfc-ath wants base64url")
    return idpy_dpop.userinfo_post_parse_request(request, client_id, context, auth_info, **kwargs)


def _optional_dpop_token_post_parse_request(request, client_id, context, **kwargs):
    """Run idpyoidc's token_post_parse_request only when a DPoP header is present."""
    _hi = kwargs.get("http_info") or {}
    if not (_hi.get("headers") or {}).get("dpop"):
        return request
    return idpy_dpop.token_post_parse_request(request, client_id, context, **kwargs)


def make_server(port, data_dir, client_jwks_file, secret, accept_issuer_aud=False,
                dpop_required=False, rfc_ath=False):
    issuer = f"http://127.0.0.1:{port}"
    os.makedirs(os.path.join(data_dir, "templates"), exist_ok=True)
    conf = build_conf(issuer, data_dir)
    server = Server(OPConfiguration(conf, base_path=data_dir), cwd=data_dir)
    ctx = server.context

    # Clients
    ctx.cdb[CLIENT_PKJWT] = _client(CLIENT_PKJWT, "private_key_jwt")
    if secret:
        ctx.cdb[CLIENT_BASIC] = _client(CLIENT_BASIC, "client_secret_basic", secret)
        ctx.cdb[CLIENT_POST] = _client(CLIENT_POST, "client_secret_post", secret)
    with open(client_jwks_file) as fh:
        client_jwks = json.load(fh)
    ctx.cdb[CLIENT_PKJWT]["jwks"] = client_jwks
    server.keyjar.import_jwks(client_jwks, CLIENT_PKJWT)
    # The OP's own keys also under its issuer id (as idpyoidc's tests do).
    server.keyjar.import_jwks(server.keyjar.export_jwks(True, ""), issuer)

    # DPoP at the token endpoint. idpyoidc 5.0.0's add_support() only hooks the
    # endpoints in dpop_endpoints with userinfo_post_parse_request; its
    # token_post_parse_request must be hooked onto the token endpoint by hand.
    tok = server.get_endpoint("token")
    if dpop_required:
        tok.post_parse_request.append(idpy_dpop.token_post_parse_request)
    else:
        tok.post_parse_request.append(_optional_dpop_token_post_parse_request)
    if rfc_ath:
        ui = server.get_endpoint("userinfo")
        ui.post_parse_request = [
            _rfc_ath_userinfo_post_parse_request
            if f is idpy_dpop.userinfo_post_parse_request else f
            for f in ui.post_parse_request
        ]

    # Server.__init__ rebuilds provider_info after the add-ons ran, dropping what
    # dpop._add_to_context() put there; the refresh helper keys DPoP on it.
    algs = ctx.add_on.get("dpop", {}).get("algs_supported")
    if algs:
        ctx.provider_info["dpop_signing_alg_values_supported"] = algs

    if accept_issuer_aud:
        for name in ("token", "pushed_authorization"):
            server.get_endpoint(name).allowed_targets.append("")
    return server


class Handler(BaseHTTPRequestHandler):
    server_version = "idpy-op"
    op = None  # idpyoidc Server
    issuer = ""
    par_fill = False
    lock = threading.Lock()
    routes = {
        "/.well-known/openid-configuration": "provider_config",
        "/authorization": "authorization",
        "/pushed_authorization": "pushed_authorization",
        "/token": "token",
        "/userinfo": "userinfo",
    }

    def log_message(self, fmt, *args):  # no request logging (URLs carry codes)
        pass

    def _send(self, status, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-store")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status, error, desc=""):
        hdrs = []
        if status == 401:
            hdrs.append(("WWW-Authenticate", f'Bearer error="{error}"'))
        self._send(status, {"error": error, "error_description": desc}, headers=hdrs)

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def _handle(self, method):
        parts = urlsplit(self.path)
        path = parts.path
        if path == "/jwks" and method == "GET":
            return self._send(200, self.op.keyjar.export_jwks())
        name = self.routes.get(path)
        if not name:
            return self._error(404, "not_found", path)
        endpoint = self.op.get_endpoint(name)
        headers = {k.lower(): v for k, v in self.headers.items()}
        http_info = {
            "headers": {k: v for k, v in headers.items() if k not in ("cookie", "user-agent")},
            "method": method,
            "url": self.issuer + self.path,
            "cookie": [],
        }
        if method == "GET":
            req_args = dict(parse_qsl(parts.query))
            if name == "authorization" and self.par_fill and \
                    req_args.get("request_uri", "").startswith("urn:uuid:"):
                # Opt-in shim: idpyoidc verifies the front-channel request as a full
                # OIDC AuthorizationRequest *before* resolving request_uri, so it
                # needs response_type, scope (with openid) and redirect_uri repeated.
                # Fill response_type/redirect_uri from the stored PAR request and
                # scope=openid, only when absent; idpyoidc's _do_request_uri() then
                # replaces the whole request with the stored one anyway. (Copying the
                # stored scope would trip the OIDC rule offline_access => prompt=consent.)
                _stored = self.op.context.par_db.get(req_args["request_uri"])
                if _stored is not None:
                    for k in ("response_type", "redirect_uri"):
                        if k not in req_args and k in _stored:
                            v = _stored[k]
                            req_args[k] = " ".join(v) if isinstance(v, list) else v
                    req_args.setdefault("scope", "openid")
        else:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n).decode() if n else ""
            req_args = dict(parse_qsl(raw))
        with self.lock:  # idpyoidc's in-memory stores are not thread safe
            try:
                self._dispatch(name, endpoint, req_args, http_info)
            except Exception as err:  # pragma: no cover
                LOG.error("unhandled: %s", traceback.format_exc())
                self._error(500, "server_error", str(err))

    def _dispatch(self, name, endpoint, req_args, http_info):
        try:
            req = endpoint.parse_request(req_args, http_info=http_info)
        except (ClientAuthenticationError, UnAuthorizedClient) as err:
            return self._error(401, "invalid_client", f"{type(err).__name__}: {err}")
        except Exception as err:
            LOG.info("parse_request failed: %s", err)
            LOG.debug(traceback.format_exc())
            code = "invalid_dpop_proof" if "dpop" in str(err).lower() or "htu" in str(err) \
                or "htm" in str(err) or "ath" in str(err) else "invalid_request"
            if name == "userinfo" and code == "invalid_request":
                code = "invalid_token"
            return self._error(401 if name == "userinfo" else 400, code,
                               f"{type(err).__name__}: {err}")
        if isinstance(req, ResponseMessage) and "error" in req:
            status = 400
            if req["error"] in ("invalid_client", "unauthorized_client") and name != "authorization":
                status = 401
            if name == "userinfo" and req["error"] == "invalid_token":
                status = 401
            return self._send(status, req.to_dict())
        try:
            if isinstance(endpoint, Token):
                args = endpoint.process_request(AccessTokenRequest(**req), http_info=http_info)
            else:
                args = endpoint.process_request(req, http_info=http_info)
        except Exception as err:
            LOG.info("process_request failed: %s", err)
            LOG.debug(traceback.format_exc())
            return self._error(400, "invalid_request", f"{type(err).__name__}: {err}")
        if isinstance(args, ResponseMessage) and "error" in args:
            status = 401 if name == "userinfo" and args["error"] == "invalid_token" else 400
            return self._send(status, args.to_dict())
        if "http_response" in args and name == "pushed_authorization":
            return self._send(201, args["http_response"])
        if "redirect_location" in args:
            return self._send(302, headers=[("Location", args["redirect_location"])])
        if "http_response" in args:
            return self._send(200, args["http_response"], ctype="text/html")
        if "error" in args and "response_args" not in args and name != "authorization":
            return self._send(400, {k: v for k, v in args.items() if k in ("error", "error_description")})
        info = endpoint.do_response(request=req, **args)
        placement = info.get("response_placement", endpoint.response_placement)
        hdrs = [(k, v) for k, v in info.get("http_headers", []) if k.lower() != "content-type"]
        ctype = dict((k.lower(), v) for k, v in info.get("http_headers", [])).get(
            "content-type", "application/json")
        if placement == "url":
            return self._send(302, headers=hdrs + [("Location", info["response"])])
        status = info.get("response_code", 400 if "error" in args else 200)
        return self._send(status, info["response"], ctype=ctype, headers=hdrs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--data", required=True, help="directory for the OP's keys")
    ap.add_argument("--client-jwks", required=True, help="JWK Set (public) of authhub-pkjwt")
    ap.add_argument("--accept-issuer-aud", action="store_true",
                    help="also accept the issuer as client assertion aud at /token and PAR")
    ap.add_argument("--dpop-required", action="store_true",
                    help="reject token requests without a DPoP proof")
    ap.add_argument("--rfc-ath", action="store_true",
                    help="userinfo: accept RFC 9449 base64url ath instead of idpyoidc's hex ath")
    ap.add_argument("--par-fill-front-channel", action="store_true",
                    help="accept GET /authorization?client_id&request_uri alone (copies "
                         "response_type/scope/redirect_uri from the PAR request)")
    ap.add_argument("--redirect-uri", action="append", default=[],
                    help="another redirect URI registered for every client (e.g. a loopback listener's)")
    ap.add_argument("--debug", action="store_true")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if a.debug else logging.WARNING, stream=sys.stderr)
    if a.debug:
        import faulthandler, signal
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    if not a.debug:
        logging.getLogger("idpyoidc").setLevel(logging.CRITICAL)
        logging.getLogger("cryptojwt").setLevel(logging.CRITICAL)
    os.makedirs(a.data, exist_ok=True)
    EXTRA_REDIRECT_URIS.extend(a.redirect_uri)
    secret = os.environ.get("IDPY_CLIENT_SECRET", "")
    op = make_server(a.port, os.path.abspath(a.data), a.client_jwks, secret,
                     a.accept_issuer_aud, a.dpop_required, a.rfc_ath)
    Handler.op = op
    Handler.issuer = f"http://127.0.0.1:{a.port}"
    Handler.par_fill = a.par_fill_front_channel
    httpd = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print(f"idpy_op listening on {Handler.issuer}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
