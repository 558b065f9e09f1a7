"""Stream a run trained elsewhere (verl, SkyRL, TRL, ART, ...) into Rollout Lab while it trains.

One file, standard library only: copy it next to your trainer. Logging never blocks or breaks the training loop:
log_step() and log_samples() put the data on a bounded queue and return at once; a background thread sends it in
batches (by count and by bytes), retries network errors, 429 and 5xx with backoff, and warns (never raises) when
the server refuses something or stays unreachable. flush() and finish() wait for the queue; it is also flushed
when the interpreter exits.

    import os
    from rollout_lab_logger import RolloutLabLogger

    rl = RolloutLabLogger("http://127.0.0.1:3000", token=os.environ["ROLLOUT_LAB_TOKEN"])
    rl.create_run(name="qwen-7b grpo", source="verl", config={"lr": 1e-6}, policy_model="Qwen2.5-7B",
                  run_key="qwen-7b-grpo-v3", resume="allow")    # a restarted trainer gets the same run back
    for step in range(rl.start_step, total_steps):               # start_step: steps the run already has
        ...
        rl.log_step(step, {"reward/mean": rewards.mean(), "kl/mean": kl})   # numpy scalars and arrays are fine
        rl.log_samples([{"id": f"{step}-{i}", "step": step, "group": prompt_id, "reward": r,
                         "conversation": [{"role": "user", "content": p}, {"role": "assistant", "content": c}]}])
    rl.finish()

A sample re-sent with the same id replaces the stored one when its content changed (stats: stored / updated /
unchanged). The API token is read by you (e.g. from the environment) and sent only as a header; it is never stored.
"""
import atexit
import collections
import json
import math
import random
import re
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

RETRY_STATUS = {429} | set(range(500, 600))
MAX_SAMPLES_PER_BATCH = 200
MAX_STEPS_PER_BATCH = 1000
MAX_BATCH_BYTES = 700_000


class RolloutLabError(Exception):
    """create_run() / resume_run() could not get a run: the message names the field and the fix."""


def plain(value):
    """JSON-ready Python values: numpy/torch scalars via .item(), arrays via .tolist(); NaN and infinities -> None."""
    if hasattr(value, "tolist") and callable(value.tolist) and not isinstance(value, (str, bytes)):
        value = value.tolist()  # a numpy scalar's tolist() is its Python value, an array's a nested list
    elif hasattr(value, "item") and callable(value.item) and not isinstance(value, dict):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _numbers(value):
    out = []
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, list):
            out.extend(_numbers(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and v is not None:
            out.append(float(v))
    return out


def metric_points(metrics):
    """{key: number} from a step's metrics: an array becomes key/mean, key/min and key/max; None/NaN are left out.
    Returns (points, keys that are not numbers)."""
    points, refused = {}, []
    for key, raw in metrics.items():
        value = plain(raw)
        if value is None:
            continue
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, (int, float)):
            points[str(key)] = float(value)
        elif isinstance(value, list):
            nums = _numbers(value)
            if len(nums) == 1:
                points[str(key)] = nums[0]
            elif nums:
                points.update({key + "/mean": sum(nums) / len(nums), key + "/min": min(nums), key + "/max": max(nums)})
        else:
            refused.append(str(key))
    return points, refused


class RolloutLabLogger:
    def __init__(self, url, token, max_queue_bytes=64 << 20, batch_bytes=MAX_BATCH_BYTES, flush_interval=2.0,
                 retry_for=600.0, max_backoff=30.0, timeout=30.0, exit_timeout=30.0, warn=None):
        """max_queue_bytes bounds the memory of data waiting to be sent (beyond it new data is dropped, with a
        warning); a batch that keeps failing is retried for retry_for seconds, waiting at most max_backoff between
        tries; exit_timeout bounds the flush at interpreter exit."""
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token
        self.max_queue_bytes = max_queue_bytes
        self.batch_bytes = batch_bytes
        self.flush_interval = flush_interval
        self.retry_for = retry_for
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.exit_timeout = exit_timeout
        self._warn = warn or (lambda message: print("[rollout-lab] " + message, file=sys.stderr, flush=True))
        self.run_id = self.run_url = None
        self.resumed = False
        self.start_step = 0
        self.stats = {"stored": 0, "updated": 0, "unchanged": 0, "points": 0, "dropped": 0, "failed_requests": 0}
        self._queue = {"steps": collections.deque(), "trajectories": collections.deque()}
        self._queued_bytes = 0
        self._cond = threading.Condition()
        self._busy = False
        self._flushing = 0
        self._closed = False
        self._warned = set()
        self._thread = None
        atexit.register(self._at_exit)

    # ---- run ------------------------------------------------------------------------------------------------------
    def create_run(self, name, source, config=None, policy_model=None, environment=None, tags=None, total_steps=None,
                   run_key=None, resume="never", stale_after_seconds=None):
        """Creates the run (or, with run_key and resume="allow"/"must", reattaches to it) and returns its id."""
        body = {"name": name, "source": source, "config": plain(config or {}), "tags": list(tags or []), "resume": resume}
        for field, value in (("policyModel", policy_model), ("environment", environment), ("totalSteps", total_steps),
                             ("runKey", run_key), ("staleAfterSeconds", stale_after_seconds)):
            if value is not None:
                body[field] = value
        return self._attach(self._request("/external-runs", body, idempotency_key=str(uuid.uuid4())))

    def resume_run(self, run_id):
        """Reattaches to a run by id (stale, failed, cancelled or finished): it runs again and accepts data."""
        return self._attach(self._request("/external-runs/%s/resume" % run_id, {}))

    def _attach(self, run):
        self.run_id, self.run_url = run["id"], run["url"]
        self.resumed, self.start_step = run.get("resumed", False), run.get("step", 0)
        self._closed = False
        if self._thread is None:
            self._thread = threading.Thread(target=self._send_loop, name="rollout-lab-logger", daemon=True)
            self._thread.start()
        return self.run_id

    # ---- logging (never raises) ---------------------------------------------------------------------------------
    def log_step(self, step, metrics):
        """Metrics of one step. Numbers, numpy scalars and arrays (logged as key/mean, key/min, key/max)."""
        try:
            points, refused = metric_points(metrics)
            for key in refused:
                self._warn_once("metric:" + key, "metric %r is not a number or an array of numbers; it is not logged" % key)
            if points:
                self._put("steps", {"step": int(plain(step)), "metrics": points})
        except Exception as err:  # the training loop must never see a logging error
            self._warn_once("log_step", "log_step failed (%s); the step is not logged" % err)

    def log_samples(self, samples):
        """Samples, each with your own unique "id". numpy values are converted; a NaN reward is sent as unscored."""
        for sample in samples:
            try:
                self._put("trajectories", plain(sample))
            except Exception as err:
                self._warn_once("log_samples", "a sample could not be encoded (%s); it is not logged" % err)

    def _put(self, kind, item):
        data = json.dumps(item, allow_nan=False, separators=(",", ":")).encode("utf-8")
        if self.run_id is None:
            self._warn_once("no-run", "call create_run() (or resume_run()) first; data before it is not logged")
            return
        with self._cond:
            if self._queued_bytes + len(data) > self.max_queue_bytes:
                self.stats["dropped"] += 1
                self._warn_once("full", "the send queue is full (%d bytes; the server is slow or unreachable): "
                                        "new data is dropped until it drains" % self.max_queue_bytes)
                return
            self._queue[kind].append(data)
            self._queued_bytes += len(data)
            if self._batch_ready():
                self._cond.notify_all()

    def flush(self, timeout=None):
        """Waits until everything queued so far was sent (or given up); returns the stats."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._flushing += 1
            self._cond.notify_all()
            try:
                while (self._queued_bytes or self._busy) and self._thread is not None and self._thread.is_alive():
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        self._warn("flush timed out with %d bytes still queued" % self._queued_bytes)
                        break
                    self._cond.wait(0.2 if left is None else min(0.2, left))
            finally:
                self._flushing -= 1
        return dict(self.stats)

    def finish(self, status="succeeded", error=None, timeout=120.0):
        """Sends what is queued, then marks the run finished. Never raises; returns the stats."""
        if self.run_id is None:
            return dict(self.stats)
        self.flush(timeout)
        body = {"status": status}
        if error:
            body["error"] = str(error)[:2000]
        try:
            self._request("/external-runs/%s/finish" % self.run_id, body)
        except Exception as err:
            self._warn("could not mark the run %s: %s" % (status, err))
        self._closed = True
        return dict(self.stats)

    def _at_exit(self):
        if self.run_id is not None and not self._closed:
            self.flush(self.exit_timeout)

    # ---- background sending -------------------------------------------------------------------------------------
    def _batch_ready(self):
        return (self._flushing or self._queued_bytes >= self.batch_bytes or len(self._queue["steps"]) >= MAX_STEPS_PER_BATCH
                or len(self._queue["trajectories"]) >= MAX_SAMPLES_PER_BATCH)

    def _send_loop(self):
        while True:
            with self._cond:
                self._cond.wait_for(self._batch_ready, timeout=self.flush_interval)
                batches = [(kind, self._take(kind)) for kind in ("steps", "trajectories")]
                self._busy = any(items for _, items in batches)
            for kind, items in batches:
                if items:
                    self._send(kind, items)
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _take(self, kind):
        limit = MAX_STEPS_PER_BATCH if kind == "steps" else MAX_SAMPLES_PER_BATCH
        queue, taken, size = self._queue[kind], [], 0
        while queue and len(taken) < limit and (not taken or size + len(queue[0]) <= self.batch_bytes):
            item = queue.popleft()
            taken.append(item)
            size += len(item)
        self._queued_bytes -= size
        return taken

    def _send(self, kind, items):
        path = "/external-runs/%s/%s" % (self.run_id, kind)
        started = time.monotonic()
        attempt = 0
        while items:
            body = b'{"' + kind.encode() + b'":[' + b",".join(items) + b"]}"
            status, reply = self._post(path, body)
            if status == 200:
                for key in ("stored", "updated", "unchanged", "points"):
                    self.stats[key] += reply.get(key, 0)
                return
            if status is None or status in RETRY_STATUS:
                self.stats["failed_requests"] += 1
                waited = time.monotonic() - started
                if waited > self.retry_for:
                    self.stats["dropped"] += len(items)
                    self._warn("the server has not answered for %d s (%s); %d %s were dropped"
                               % (waited, reply.get("message", "HTTP %s" % status), len(items), kind))
                    return
                delay = reply.get("retry_after") or min(self.max_backoff, 0.5 * 2 ** attempt) * (0.5 + random.random())
                attempt += 1
                time.sleep(delay)
                continue
            items = self._without_refused(kind, items, status, reply)

    def _without_refused(self, kind, items, status, reply):
        """After a 4xx: drops the one item the server named (and keeps the rest), halves a batch that was too large,
        or gives the batch up when the run itself refuses data."""
        message = reply.get("message", "HTTP %s" % status)
        if status == 413 and len(items) > 1:
            half = len(items) // 2
            self._send(kind, items[:half])
            return items[half:]
        match = re.match(r"%s\.(\d+)" % kind, reply.get("field") or "")
        if status == 400 and match and int(match.group(1)) < len(items):
            self.stats["dropped"] += 1
            self._warn("refused one of the %s (%s); the rest is sent" % (kind, message))
            return items[:int(match.group(1))] + items[int(match.group(1)) + 1:]
        self.stats["dropped"] += len(items)
        self._warn("%d %s were refused: HTTP %s: %s" % (len(items), kind, status, message))
        return []

    # ---- HTTP ---------------------------------------------------------------------------------------------------
    def _post(self, path, data, idempotency_key=None):
        """(status, parsed body) of one POST; status None for a network error. Error bodies give message/field."""
        headers = {"content-type": "application/json", "authorization": "Bearer " + self.token}
        if idempotency_key:
            headers["idempotency-key"] = idempotency_key
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as err:
            try:
                reply = json.loads(err.read().decode("utf-8"))["error"]
            except Exception:
                reply = {"message": "HTTP %d" % err.code}
            retry_after = err.headers.get("retry-after") if err.headers else None
            if retry_after and retry_after.isdigit():
                reply["retry_after"] = float(retry_after)
            return err.code, reply
        except (urllib.error.URLError, OSError, ValueError) as err:
            return None, {"message": "cannot reach %s: %s" % (self.base, err)}

    def _request(self, path, body, idempotency_key=None):
        """A synchronous call for create/resume/finish: retried like the rest, raises RolloutLabError when refused."""
        data = json.dumps(body, allow_nan=False).encode("utf-8")
        started, attempt = time.monotonic(), 0
        while True:
            status, reply = self._post(path, data, idempotency_key)
            if status in (200, 201):
                return reply
            if (status is None or status in RETRY_STATUS) and time.monotonic() - started < min(self.retry_for, 60.0):
                time.sleep(reply.get("retry_after") or min(self.max_backoff, 0.5 * 2 ** attempt))
                attempt += 1
                continue
            raise RolloutLabError("%s %s: %s" % (path, status or "network error", reply.get("message")))

    def _warn_once(self, key, message):
        if key not in self._warned:
            self._warned.add(key)
            self._warn(message)
