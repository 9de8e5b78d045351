"""Bridge between AuthHub's Swift interop tests and py_webauthn (the `webauthn` package on PyPI).

Reads one JSON request on stdin and writes one JSON reply on stdout. Operations:

- options: py_webauthn generates registration and authentication options (as JSON, the way a
  relying party sends them to a browser).
- verify_registration / verify_authentication: py_webauthn verifies a response made by AuthHub's
  software authenticator.
- fixtures: reads py_webauthn's own test files (from its source distribution), pulls out every
  verify_*_response call whose arguments are literals, runs py_webauthn on it, and returns the
  inputs with py_webauthn's verdict, so the Swift verifier can be held to the same answers.

Binary values travel as base64url without padding.
"""
import ast
import json
import os
import sys

import webauthn
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)


def b64(data):
    return bytes_to_base64url(bytes(data))


def options(req):
    challenge = base64url_to_bytes(req["challenge"])
    registration = webauthn.generate_registration_options(
        rp_id=req["rp_id"],
        rp_name=req["rp_name"],
        user_name=req["user_name"],
        user_id=base64url_to_bytes(req["user_id"]),
        user_display_name=req["user_display_name"],
        challenge=challenge,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in req.get("exclude", [])],
    )
    authentication = webauthn.generate_authentication_options(
        rp_id=req["rp_id"],
        challenge=challenge,
        allow_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in req.get("allow", [])],
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return {
        "registration": json.loads(webauthn.options_to_json(registration)),
        "authentication": json.loads(webauthn.options_to_json(authentication)),
    }


def registration_result(v):
    return {
        "ok": True,
        "credential_id": b64(v.credential_id),
        "public_key": b64(v.credential_public_key),
        "sign_count": v.sign_count,
        "aaguid": v.aaguid,
        "fmt": v.fmt.value if hasattr(v.fmt, "value") else str(v.fmt),
        "user_verified": v.user_verified,
        "device_type": v.credential_device_type.value if hasattr(v.credential_device_type, "value") else str(v.credential_device_type),
        "backed_up": v.credential_backed_up,
    }


def authentication_result(v):
    return {
        "ok": True,
        "credential_id": b64(v.credential_id),
        "new_sign_count": v.new_sign_count,
        "user_verified": v.user_verified,
        "backed_up": v.credential_backed_up,
    }


def failure(error):
    return {"ok": False, "error": type(error).__name__, "message": str(error)}


def verify_registration(req):
    try:
        v = webauthn.verify_registration_response(
            credential=req["credential"],
            expected_challenge=base64url_to_bytes(req["challenge"]),
            expected_rp_id=req["rp_id"],
            expected_origin=req["origin"],
            require_user_verification=req.get("require_user_verification", False),
        )
        return registration_result(v)
    except Exception as error:  # the verdict is the reply
        return failure(error)


def verify_authentication(req):
    try:
        v = webauthn.verify_authentication_response(
            credential=req["credential"],
            expected_challenge=base64url_to_bytes(req["challenge"]),
            expected_rp_id=req["rp_id"],
            expected_origin=req["origin"],
            credential_public_key=base64url_to_bytes(req["public_key"]),
            credential_current_sign_count=req["sign_count"],
            require_user_verification=req.get("require_user_verification", False),
        )
        return authentication_result(v)
    except Exception as error:
        return failure(error)


# --- fixtures from py_webauthn's own tests -------------------------------------------------------

class Unresolvable(Exception):
    pass


def evaluate(node, names):
    """Evaluates the literal forms py_webauthn's tests use for their inputs."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise Unresolvable(node.id)
    if isinstance(node, ast.List):
        return [evaluate(e, names) for e in node.elts]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "base64url_to_bytes":
        return base64url_to_bytes(evaluate(node.args[0], names))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "encode" \
            and isinstance(node.func.value, ast.Constant):
        return node.func.value.value.encode()
    raise Unresolvable(ast.dump(node)[:60])


def calls_in(function, wanted):
    names = {}
    found = []
    for statement in ast.walk(function):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            try:
                names[statement.targets[0].id] = evaluate(statement.value, names)
            except Unresolvable:
                names.pop(statement.targets[0].id, None)
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == wanted:
            try:
                found.append({k.arg: evaluate(k.value, names) for k in node.keywords})
            except Unresolvable:
                continue
    return found


def fixture_files(directory, prefix):
    for name in sorted(os.listdir(directory)):
        if name.startswith(prefix) and name.endswith(".py"):
            yield name, ast.parse(open(os.path.join(directory, name), encoding="utf-8").read())


def as_json_credential(value):
    return json.loads(value) if isinstance(value, str) else value


def collect(directory, verify, required, result):
    """Every literal call of `verify` in py_webauthn's matching test files, with its verdict."""
    found = []
    for name, tree in fixture_files(directory, "test_" + verify.__name__):
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            for args in calls_in(function, verify.__name__):
                if not set(required) <= args.keys():
                    continue
                try:
                    verdict = result(verify(**args))
                except Exception as error:
                    verdict = failure(error)
                origin = args["expected_origin"]
                fixture = {
                    "name": f"{name}:{function.name}",
                    "credential": as_json_credential(args["credential"]),
                    "challenge": b64(args["expected_challenge"]),
                    "rp_id": args["expected_rp_id"],
                    "origin": origin if isinstance(origin, list) else [origin],
                    "require_user_verification": bool(args.get("require_user_verification", False)),
                    "verdict": verdict,
                }
                if "credential_public_key" in args:
                    fixture["public_key"] = b64(args["credential_public_key"])
                    fixture["sign_count"] = args["credential_current_sign_count"]
                found.append(fixture)
    return found


def fixtures(req):
    common = ["credential", "expected_challenge", "expected_rp_id", "expected_origin"]
    return {
        "registration": collect(req["tests_dir"], webauthn.verify_registration_response, common, registration_result),
        "authentication": collect(req["tests_dir"], webauthn.verify_authentication_response,
                                  common + ["credential_public_key", "credential_current_sign_count"], authentication_result),
    }


OPERATIONS = {
    "options": options,
    "verify_registration": verify_registration,
    "verify_authentication": verify_authentication,
    "fixtures": fixtures,
}

if __name__ == "__main__":
    request = json.load(sys.stdin)
    json.dump(OPERATIONS[request["op"]](request), sys.stdout)
