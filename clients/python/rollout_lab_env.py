"""Play Rollout Lab's environments from Python over OpenEnv's WebSocket protocol (docs/environment-server.md).

One file, standard library only (its own small WebSocket client): copy it next to your trainer. Every episode
lands in the dashboard's inspector. OpenEnv's own client (`GenericEnvClient(base_url=...).sync()`) works too; this
one needs nothing installed and sends the API token as a header.

    from rollout_lab_env import RolloutLabEnv

    with RolloutLabEnv("http://127.0.0.1:3001/envs/tau2-retail", token=os.environ.get("ROLLOUT_LAB_TOKEN")) as env:
        result = env.reset(seed=3, experiment="my-grpo-run", step=0)
        while not result.done:
            text, calls = my_policy(result.observation["messages"], result.observation.get("tools"))
            result = env.step(text, tool_calls=calls)   # calls: [{"name": ..., "arguments": {...}}] or None
        print(result.reward, result.observation["reward_components"])
"""
import base64
import json
import os
import socket
import ssl
import struct
import time
import urllib.parse
from dataclasses import dataclass, field

__all__ = ["RolloutLabEnv", "RolloutLabEnvError", "StepResult"]


class RolloutLabEnvError(Exception):
    """The server refused a message; `code` is OpenEnv's (VALIDATION_ERROR, CAPACITY_REACHED, ...)."""

    def __init__(self, message, code="", data=None):
        super().__init__(f"{message} ({code})" if code else message)
        self.code = code
        self.data = data or {}


@dataclass
class StepResult:
    observation: dict = field(default_factory=dict)
    reward: float = None
    done: bool = False


class _WebSocket:
    """The client half of RFC 6455: handshake, masked frames out, ping/pong and close in."""

    def __init__(self, url, headers, timeout):
        parsed = urllib.parse.urlsplit(url)
        secure = parsed.scheme in ("https", "wss")
        port = parsed.port or (443 if secure else 80)
        raw = socket.create_connection((parsed.hostname, port), timeout=timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = ssl.create_default_context().wrap_socket(raw, server_hostname=parsed.hostname) if secure else raw
        key = base64.b64encode(os.urandom(16)).decode()
        path = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
        lines = [f"GET {path} HTTP/1.1", f"Host: {parsed.netloc.rsplit('@', 1)[-1]}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed the connection during the handshake")
            head += chunk
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode(errors="replace").split("\r\n")
        if " 101 " not in status_line + " ":
            self.sock.close()
            reply_headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in header_lines)}
            body = self.buffer.decode(errors="replace")
            try:
                detail = json.loads(body).get("detail", body)
            except ValueError:
                detail = body
            status = status_line.split(" ")[1] if " " in status_line else ""
            data = {"status": int(status) if status.isdigit() else None}
            if reply_headers.get("retry-after", "").isdigit():
                data["retry_after"] = int(reply_headers["retry-after"])
            raise RolloutLabEnvError(f"{status_line}: {detail}".strip(), status, data)

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def recv_text(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            if opcode == 0x9:
                self.send(0xA, payload)
            elif opcode == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                raise ConnectionError(f"the server closed the session ({code}: {payload[2:].decode(errors='replace')})")
            elif opcode in (0x0, 0x1, 0x2):
                message += payload
                if b0 & 0x80:
                    return message.decode("utf-8")

    def close(self):
        try:
            self.send(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        self.sock.close()


def _is_busy(error):
    """A 503 at the handshake, or CAPACITY_REACHED on a message: the server is full now, not refusing the request."""
    return error.data.get("status") == 503 or error.code == "CAPACITY_REACHED"


class RolloutLabEnv:
    """One session at an environment's base URL (http://host:port/envs/<name>).

    A full server answers 503 with Retry-After (at the handshake, or CAPACITY_REACHED at a reset while its recorder
    catches up). A trainer's batch larger than the server's sessions is normal, so the client waits as told and tries
    again, for at most `max_wait` seconds in all, instead of failing the rollout.
    """

    def __init__(self, base_url, token=None, timeout=120.0, session_id=None, max_wait=300.0):
        url = base_url.rstrip("/") + "/ws"
        url = "ws" + url[4:] if url.startswith("http") else url
        if session_id:
            url += "?session_id=" + urllib.parse.quote(session_id)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.max_wait = max_wait
        self.waited = 0.0  # seconds spent waiting on a full server, for the trainer's logs
        self._ws = self._retrying(lambda: _WebSocket(url, headers, timeout))
        self.session_id = session_id

    def _retrying(self, attempt):
        while True:
            try:
                return attempt()
            except RolloutLabEnvError as error:
                delay = float(error.data.get("retry_after") or 5)
                if not _is_busy(error) or self.waited + delay > self.max_wait:
                    raise
                time.sleep(delay)
                self.waited += delay

    def _request(self, message):
        def once():
            self._ws.send(0x1, json.dumps(message).encode("utf-8"))
            reply = json.loads(self._ws.recv_text())
            data = reply.get("data", {})
            if reply.get("type") == "error":
                raise RolloutLabEnvError(data.get("message", "error"), data.get("code", ""), data)
            return data

        # Only a reset is safe to send again: a step the server refused for capacity was not played.
        return self._retrying(once) if message.get("type") == "reset" else once()

    def _result(self, data):
        result = StepResult(observation=data.get("observation", {}), reward=data.get("reward"), done=data.get("done", False))
        self.session_id = result.observation.get("session_id", self.session_id)
        return result

    def reset(self, **data):
        """Starts an episode: seed, episode_id, task_id, split, options, max_turns, llm, experiment, group, step, ..."""
        return self._result(self._request({"type": "reset", "data": data}))

    def step(self, message="", tool_calls=None):
        """One policy reply: its text, and the calls it made as data ([{"name": ..., "arguments": {...}}])."""
        action = {"message": message}
        if tool_calls:
            action["tool_calls"] = tool_calls
        return self._result(self._request({"type": "step", "data": action}))

    def state(self):
        return self._request({"type": "state"})

    def close(self):
        """Ends the session (an unfinished episode is recorded as truncated, end reason client_ended)."""
        try:
            self._ws.send(0x1, json.dumps({"type": "close"}).encode("utf-8"))
        except OSError:
            pass
        self._ws.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
