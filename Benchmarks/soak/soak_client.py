#!/usr/bin/env python3
"""One load process of the web soak (Benchmarks/soak/run): plays browsers and an API client against
the replicas of an example web app until a deadline, and prints one JSON object of what it saw.

    soak_client.py SPEC_JSON

SPEC: {"replicas": ["http://127.0.0.1:P1", ...], "public": "http://127.0.0.1:LB", "emulator": "http://127.0.0.1:E",
       "users": [[email, password], ...], "audience": "...", "client_id": "...", "seconds": N, "seed": N}

Each round signs a random user in through the app's login link and the emulator's real login form
(sticky: the callback goes to the replica that started the sign-in, as a load balancer would route
it), views pages on any replica (the session is in the shared store), renews the session with the
profile's "Refresh now" form, calls the bearer API with an access token from the emulator, and signs
out. Standard library only. A request that fails (connection error or an unexpected status) is an
error; its replica and time are kept, so that the runner can tell the planned restart's errors apart.
"""
import http.client
import json
import random
import re
import sys
import time
import urllib.parse

spec = json.loads(sys.argv[1])
rng = random.Random(spec["seed"])
deadline = time.monotonic() + spec["seconds"]
public = spec["public"]
records = []  # [kind, replica index or -1, status, milliseconds, unix time]
errors = []   # [kind, replica, what, unix time]
connections = {}


def connection(base):
    parsed = urllib.parse.urlsplit(base)
    key = (parsed.hostname, parsed.port)
    if key not in connections:
        connections[key] = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    return connections[key]


def request(kind, replica, base, method, path, headers=None, body=None, expect=(200,)):
    """One request on a kept-alive connection; returns (status, headers dict of lists, body) or None on error."""
    headers = dict(headers or {})
    started = time.monotonic()
    try:
        conn = connection(base)
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        status = response.status
        fields = {}
        for name, value in response.getheaders():
            fields.setdefault(name.lower(), []).append(value)
    except Exception as error:  # connection refused, reset, timeout
        parsed = urllib.parse.urlsplit(base)
        connections.pop((parsed.hostname, parsed.port), None)
        errors.append([kind, replica, type(error).__name__, time.time()])
        return None
    elapsed = (time.monotonic() - started) * 1000
    records.append([kind, replica, status, round(elapsed, 3), time.time()])
    if status not in expect:
        errors.append([kind, replica, "HTTP %d" % status, time.time()])
        return None
    return status, fields, data


def set_cookies(fields):
    cookies = {}
    for header in fields.get("set-cookie", []):
        for part in header.split(","):
            pair = part.split(";", 1)[0].strip()
            if "=" in pair:
                name, value = pair.split("=", 1)
                cookies[name] = value
    return cookies


def path_of(url):
    parts = urllib.parse.urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def access_token(email, password):
    body = json.dumps({"grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": email, "password": password,
                       "realm": "Username-Password-Authentication", "client_id": spec["client_id"], "audience": spec["audience"],
                       "scope": "openid"})
    reply = request("token", -1, spec["emulator"], "POST", "/auth0/oauth/token", {"Content-Type": "application/json"}, body)
    return json.loads(reply[2])["access_token"] if reply else None


def round_trip():
    email, password = rng.choice(spec["users"])
    home = rng.randrange(len(spec["replicas"]))
    base = spec["replicas"][home]
    login = request("login", home, base, "GET", "/auth/login?provider=auth0&returnTo=/profile", expect=(302,))
    if not login:
        return
    pre = set_cookies(login[1]).get("authhub-signin")
    authorize = login[1]["location"][0]
    page = request("idp-page", -1, spec["emulator"], "GET", path_of(authorize))
    if not page:
        return
    html = page[2].decode()
    action = re.search(r'<form method="post" action="([^"]+)"', html)
    transaction = re.search(r'name="transaction" value="([^"]+)"', html)
    if not action or not transaction:
        errors.append(["idp-page", -1, "no login form", time.time()])
        return
    form = urllib.parse.urlencode({"transaction": transaction.group(1).replace("&amp;", "&"), "email": email, "password": password})
    posted = request("idp-login", -1, spec["emulator"], "POST", action.group(1), {"Content-Type": "application/x-www-form-urlencoded"},
                     form, expect=(302, 303))
    if not posted:
        return
    callback = posted[1]["location"][0]
    finished = request("callback", home, base, "GET", path_of(callback), {"Cookie": "authhub-signin=" + str(pre)}, expect=(302,))
    if not finished:
        return
    session = set_cookies(finished[1]).get("authhub-session")
    cookie = {"Cookie": "authhub-session=" + str(session)}
    csrf = None
    for _ in range(rng.randint(3, 8)):
        which = rng.randrange(len(spec["replicas"]))
        kind, path = rng.choice([("profile", "/profile"), ("profile-json", "/profile.json"), ("home", "/")])
        reply = request(kind, which, spec["replicas"][which], "GET", path, cookie)
        if reply and kind == "profile":
            found = re.search(r'name="csrf" value="([^"]+)"', reply[2].decode())
            csrf = found.group(1) if found else csrf
    if csrf:
        which = rng.randrange(len(spec["replicas"]))
        form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": public, **cookie}
        request("renew", which, spec["replicas"][which], "POST", "/profile/refresh", form, "csrf=" + urllib.parse.quote(csrf), expect=(303,))
    token = access_token(email, password)
    if token:
        for _ in range(rng.randint(2, 6)):
            which = rng.randrange(len(spec["replicas"]))
            request("api", which, spec["replicas"][which], "GET", "/api/me", {"Authorization": "Bearer " + token})
    if csrf:
        which = rng.randrange(len(spec["replicas"]))
        form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": public, **cookie}
        request("logout", which, spec["replicas"][which], "POST", "/auth/logout", form, "csrf=" + urllib.parse.quote(csrf), expect=(303,))


while time.monotonic() < deadline:
    round_trip()
print(json.dumps({"records": records, "errors": errors}))
