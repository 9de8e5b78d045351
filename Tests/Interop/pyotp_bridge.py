"""Bridge between AuthHub's Swift interop tests and pyotp (https://pypi.org/project/pyotp/).

Reads one JSON object from stdin, {"requests": [{"op": ..., ...}, ...]}, runs every request with
pyotp, and writes {"pyotp": "<version>", "results": [...]} to stdout, one result per request in
order. A request that pyotp rejects yields {"error": "<exception type>: <message>"} instead of
failing the whole batch, so the Swift side can assert negatives.

Secrets are passed as base32 text, exactly as an authenticator would receive them.

Operations:
  totp_at           secret, algorithm, digits, period, time            -> {"code"}
  totp_verify       secret, algorithm, digits, period, time, code,
                    window (optional, default 0)                       -> {"valid"}
  hotp_at           secret, algorithm, digits, counter                 -> {"code"}
  hotp_verify       secret, algorithm, digits, counter, code           -> {"valid"}
  parse_uri         uri                                                -> {"type", "secret", "name", "issuer",
                                                                           "digits", "algorithm", "period", "counter"}
  provisioning_uri  type ("totp"|"hotp"), secret, algorithm, digits, period (totp) or counter (hotp),
                    name, issuer (optional)                            -> {"uri"}
"""

import hashlib
import json
import sys
from importlib import metadata

import pyotp

DIGESTS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


def totp(req):
    return pyotp.TOTP(req["secret"], digits=req["digits"], digest=DIGESTS[req["algorithm"]], interval=req["period"])


def hotp(req):
    return pyotp.HOTP(req["secret"], digits=req["digits"], digest=DIGESTS[req["algorithm"]])


def describe(otp):
    is_hotp = isinstance(otp, pyotp.HOTP)
    return {
        "type": "hotp" if is_hotp else "totp",
        "secret": otp.secret,
        "name": otp.name,
        "issuer": otp.issuer,
        "digits": otp.digits,
        "algorithm": otp.digest().name.upper(),
        "period": None if is_hotp else otp.interval,
        "counter": otp.initial_count if is_hotp else None,
    }


def handle(req):
    op = req["op"]
    if op == "totp_at":
        return {"code": totp(req).at(req["time"])}
    if op == "totp_verify":
        return {"valid": totp(req).verify(req["code"], for_time=req["time"], valid_window=req.get("window", 0))}
    if op == "hotp_at":
        return {"code": hotp(req).at(req["counter"])}
    if op == "hotp_verify":
        return {"valid": hotp(req).verify(req["code"], req["counter"])}
    if op == "parse_uri":
        return describe(pyotp.parse_uri(req["uri"]))
    if op == "provisioning_uri":
        issuer = req.get("issuer")
        if req["type"] == "hotp":
            return {"uri": hotp(req).provisioning_uri(name=req["name"], issuer_name=issuer, initial_count=req["counter"])}
        return {"uri": totp(req).provisioning_uri(name=req["name"], issuer_name=issuer)}
    raise ValueError(f"unknown op {op!r}")


def main():
    batch = json.load(sys.stdin)
    results = []
    for req in batch["requests"]:
        try:
            results.append(handle(req))
        except Exception as error:  # reported per request; the Swift test decides what is expected
            results.append({"error": f"{type(error).__name__}: {error}"})
    json.dump({"pyotp": metadata.version("pyotp"), "results": results}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
