"""Drives the unchanged hvac client for test/clients/hvac.e2e-spec.ts.

Reads one JSON request per line on stdin and answers one JSON line on stdout:
  {"id": 1, "call": "sys.enable_secrets_engine", "args": [...], "kwargs": {...}, "token": "..."}
  -> {"id": 1, "result": <what hvac returned>} or {"id": 1, "error": {"type": ..., "message": ...}}
`call` is an attribute path on hvac.Client (e.g. "secrets.kv.v2.read_secret_version" or the
legacy "create_token"). The address and the default token come from VAULT_ADDR and VAULT_TOKEN;
`token` switches the client to another token for that call only.
"""
import json
import os
import sys
import warnings

import hvac
import requests

# hvac's legacy methods warn on every call; the driver's stdout must stay one JSON line per call.
warnings.simplefilter("ignore")


def to_json(value):
    if isinstance(value, requests.Response):
        return {"status_code": value.status_code, "text": value.text}
    return value


def main():
    client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
    default_token = client.token
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        answer = {"id": request["id"]}
        client.token = request.get("token") or default_token
        try:
            target = client
            for name in request["call"].split("."):
                target = getattr(target, name)
            answer["result"] = to_json(target(*request.get("args", []), **request.get("kwargs", {})))
        except Exception as error:  # every failure goes back to the test, typed as hvac raised it
            answer["error"] = {"type": type(error).__name__, "message": str(error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
