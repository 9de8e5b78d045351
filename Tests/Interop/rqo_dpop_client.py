"""A third-party DPoP client — requests-oauth2client (PyPI), which makes its own keys, proofs and
nonce retries (RFC 9449) — against AuthHub: the emulator's Auth0 token endpoint issues it DPoP-bound
tokens, and a Hummingbird API behind AuthHub's bearer middleware checks its proofs. Run by
Tests/AuthHubHummingbirdTests/Interop/InteropRequestsOAuth2ClientDPoPTests.swift:

    python rqo_dpop_client.py TOKEN_ENDPOINT CLIENT_ID AUDIENCE USERNAME API_URL NONCE_API_URL

The password comes in RQO_PASSWORD. Prints a line per step, then "all steps passed"; a failed step
prints "FAILED: ..." and exits 1. No token, key or password is printed.
"""
import base64
import json
import os
import sys

import requests
from requests_oauth2client import DPoPToken, OAuth2Client


def step(text):
    print("ok: " + text, flush=True)


def check(condition, text):
    if not condition:
        print("FAILED: " + text, flush=True)
        sys.exit(1)
    step(text)


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def main():
    token_endpoint, client_id, audience, username, api, nonce_api = sys.argv[1:7]
    password = os.environ["RQO_PASSWORD"]
    # testing=True lets the client use http:// endpoints (everything here is on loopback).
    client = OAuth2Client(token_endpoint=token_endpoint, client_id=client_id, dpop_bound_access_tokens=True, testing=True)

    token = client.resource_owner_password(username, password, audience=audience, scope="openid offline_access")
    check(isinstance(token, DPoPToken) and token.token_type == "DPoP", "the emulator issued a DPoP token to its proof")
    check(claims(token.access_token).get("cnf", {}).get("jkt") == token.dpop_key.dpop_jkt,
          "the access token is bound to the client's key (cnf.jkt)")

    reply = requests.get(api, auth=token, timeout=30)
    check(reply.status_code == 200, f"AuthHub's API accepts the client's proof ({reply.status_code})")

    reply = requests.get(nonce_api, auth=token, timeout=30)
    check(reply.status_code == 200 and token.dpop_key.rs_nonce is not None,
          f"AuthHub's nonce challenge is answered by the client's retry ({reply.status_code})")

    bearer = requests.get(api, headers={"Authorization": "Bearer " + token.access_token}, timeout=30)
    check(bearer.status_code == 401 and bearer.headers.get("WWW-Authenticate", "").startswith("DPoP "),
          f"the bound token sent as Bearer is refused with a DPoP challenge ({bearer.status_code})")

    ath = base64.urlsafe_b64encode(__import__("hashlib").sha256(token.access_token.encode()).digest()).rstrip(b"=").decode()
    elsewhere = token.dpop_key.proof(htm="GET", htu=api + "/elsewhere", ath=ath)
    reply = requests.get(api, headers={"Authorization": "DPoP " + token.access_token, "DPoP": str(elsewhere)}, timeout=30)
    check(reply.status_code == 401, f"a proof made for another URL is refused ({reply.status_code})")
    post = token.dpop_key.proof(htm="POST", htu=api, ath=ath)
    reply = requests.get(api, headers={"Authorization": "DPoP " + token.access_token, "DPoP": str(post)}, timeout=30)
    check(reply.status_code == 401, f"a proof made for another method is refused ({reply.status_code})")

    once = token.dpop_key.proof(htm="GET", htu=api, ath=ath)
    headers = {"Authorization": "DPoP " + token.access_token, "DPoP": str(once)}
    first = requests.get(api, headers=headers, timeout=30)
    again = requests.get(api, headers=headers, timeout=30)
    check(first.status_code == 200 and again.status_code == 401, f"a proof sent twice is a replay ({first.status_code}, {again.status_code})")

    renewed = client.refresh_token(token)
    check(isinstance(renewed, DPoPToken) and renewed.access_token != token.access_token
          and claims(renewed.access_token).get("cnf", {}).get("jkt") == token.dpop_key.dpop_jkt,
          "the refresh, proved with the same key, gives tokens bound to it")
    reply = requests.get(api, auth=renewed, timeout=30)
    check(reply.status_code == 200, f"the renewed token works at the API ({reply.status_code})")
    print("all steps passed", flush=True)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as error:  # a library error: its type and message, never a token
        print(f"FAILED: {type(error).__name__}: {str(error)[:300]}", flush=True)
        sys.exit(1)
