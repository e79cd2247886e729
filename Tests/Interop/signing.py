"""HZ2 request signatures (HandzServer docs, "Signed requests"; docs/signature-vectors.json),
shared by the interop drivers that call the endpoint's routes directly."""
from __future__ import annotations

import hashlib
import hmac


def hz2_signature(secret: bytes, ts: int, method: str, path: str, query: str, body: bytes) -> str:
    message = f"HZ2\n{method}\n{path}\n{query}\n{ts}\n".encode() + body
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def hz2_authorization(key_id: str, secret: bytes, ts: int, method: str, path: str, query: str = "", body: bytes = b"") -> str:
    return f"HZ2-HMAC-SHA256 key={key_id}, ts={ts}, sig={hz2_signature(secret, ts, method, path, query, body)}"
