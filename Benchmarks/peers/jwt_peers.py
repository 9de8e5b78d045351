"""JWT verification by Python's PyJWT and joserfc, timed for authhub-bench (BENCHMARKS.md).

authhub-bench starts this script once and sends it one JSON command per line on standard input;
each answer is one JSON line on standard output.

  {"op": "setup", "token": ..., "jwk": {...}, "alg": "RS256", "issuer": ..., "audience": ...}
      -> {"ok": true, "versions": {...}}   after both libraries accepted the token and refused a
         token whose signature was altered (so that a batch never times a failing check)
  {"op": "time", "lib": "pyjwt" | "joserfc", "n": N}
      -> {"ns_per_op": ...}   N full verifications (signature, then iss, aud, exp, iat, sub), timed
         with time.perf_counter_ns around the loop only

The key is imported once, as each library's users keep it (a cached JWKS); each verification then
does everything a caller needs before trusting the claims.
"""
import importlib.metadata
import json
import platform
import sys
import time

import jwt as pyjwt
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from joserfc import jwt as jose_jwt
from joserfc.jwk import ECKey, RSAKey
from joserfc.jwt import JWTClaimsRegistry


class Peers:
    def __init__(self, command):
        self.token = command["token"]
        self.alg = command["alg"]
        self.issuer = command["issuer"]
        self.audience = command["audience"]
        jwk = command["jwk"]
        if jwk["kty"] == "RSA":
            self.pyjwt_key = RSAAlgorithm.from_jwk(json.dumps(jwk))
            self.jose_key = RSAKey.import_key(jwk)
        else:
            self.pyjwt_key = ECAlgorithm.from_jwk(json.dumps(jwk))
            self.jose_key = ECKey.import_key(jwk)
        self.registry = JWTClaimsRegistry(
            iss={"essential": True, "value": self.issuer},
            aud={"essential": True, "value": self.audience},
            sub={"essential": True},
            exp={"essential": True},
            iat={"essential": True},
        )

    def pyjwt(self, token):
        return pyjwt.decode(
            token, self.pyjwt_key, algorithms=[self.alg], audience=self.audience, issuer=self.issuer,
            options={"require": ["exp", "iat", "iss", "aud", "sub"]},
        )

    def joserfc(self, token):
        decoded = jose_jwt.decode(token, self.jose_key, algorithms=[self.alg])
        self.registry.validate(decoded.claims)
        return decoded.claims

    def check(self):
        for verify in (self.pyjwt, self.joserfc):
            claims = verify(self.token)
            if claims["iss"] != self.issuer:
                raise ValueError("wrong claims")
            head, payload, signature = self.token.split(".")
            altered = head + "." + payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:]
            try:
                verify(altered)
            except Exception:
                continue
            raise ValueError(verify.__name__ + " accepted an altered signature")

    def time(self, lib, n):
        verify = self.pyjwt if lib == "pyjwt" else self.joserfc
        token = self.token
        started = time.perf_counter_ns()
        for _ in range(n):
            verify(token)
        return (time.perf_counter_ns() - started) / n


def versions():
    return {
        "python": platform.python_version(),
        "pyjwt": importlib.metadata.version("pyjwt"),
        "joserfc": importlib.metadata.version("joserfc"),
        "cryptography": importlib.metadata.version("cryptography"),
    }


def main():
    peers = None
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if command["op"] == "setup":
                peers = Peers(command)
                peers.check()
                answer = {"ok": True, "versions": versions()}
            else:
                answer = {"ns_per_op": peers.time(command["lib"], int(command["n"]))}
        except Exception as error:  # reported to authhub-bench, which skips the rows
            answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
