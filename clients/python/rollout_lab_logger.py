"""Stream a run trained elsewhere (verl, SkyRL, TRL, ART, ...) into Rollout Lab while it trains.

One file, standard library only: copy it next to your trainer. It posts to Rollout Lab's ingest API
(docs/import.md); every request is safe to retry, and this client retries network errors, 429 and 5xx.

    from rollout_lab_logger import RolloutLabLogger

    rl = RolloutLabLogger("http://127.0.0.1:3000", token=os.environ["ROLLOUT_LAB_TOKEN"])
    rl.create_run(name="qwen-7b grpo", source="verl", config={"lr": 1e-6}, policy_model="Qwen2.5-7B")
    rl.log_step(step, {"reward/mean": 0.41, "kl/mean": 0.02})
    rl.log_samples([{"id": f"{step}-{i}", "step": step, "group": prompt_id, "reward": r,
                     "conversation": [{"role": "user", "content": p}, {"role": "assistant", "content": c}]}])
    rl.finish()

The API token is read by you (e.g. from the environment) and sent only as a header; it is never stored.
"""
import json
import time
import urllib.error
import urllib.request
import uuid

RETRY_STATUS = {429, 502, 503, 504}
MAX_SAMPLES_PER_BATCH = 200
MAX_BATCH_BYTES = 700_000


class RolloutLabError(Exception):
    """The server refused a request (4xx): the message names the field and the fix."""


class RolloutLabLogger:
    def __init__(self, url, token, retries=5, timeout=30.0):
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token
        self.retries = retries
        self.timeout = timeout
        self.run_id = None
        self.run_url = None

    def _post(self, path, body, idempotency_key=None):
        data = json.dumps(body).encode("utf-8")
        headers = {"content-type": "application/json", "authorization": "Bearer " + self.token}
        if idempotency_key:
            headers["idempotency-key"] = idempotency_key
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.base + path, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as err:
                if err.code in RETRY_STATUS and attempt < self.retries:
                    time.sleep(min(2 ** attempt, 10))
                    continue
                try:
                    message = json.loads(err.read().decode("utf-8"))["error"]["message"]
                except Exception:
                    message = "HTTP %d" % err.code
                raise RolloutLabError("%s %s: %s" % (path, err.code, message)) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt >= self.retries:
                    raise
                time.sleep(min(2 ** attempt, 10))
        raise RuntimeError("unreachable")

    def _run_path(self, suffix):
        if self.run_id is None:
            raise RolloutLabError("call create_run() first")
        return "/external-runs/%s/%s" % (self.run_id, suffix)

    def create_run(self, name, source, config=None, policy_model=None, environment=None, tags=None, total_steps=None):
        body = {"name": name, "source": source, "config": config or {}, "tags": tags or []}
        if policy_model:
            body["policyModel"] = policy_model
        if environment:
            body["environment"] = environment
        if total_steps is not None:
            body["totalSteps"] = total_steps
        created = self._post("/external-runs", body, idempotency_key=str(uuid.uuid4()))
        self.run_id, self.run_url = created["id"], created["url"]
        return self.run_id

    def log_step(self, step, metrics):
        """Metrics of one step; non-finite values are dropped (JSON cannot carry them)."""
        clean = {k: float(v) for k, v in metrics.items() if isinstance(v, (int, float)) and v == v and abs(v) != float("inf")}
        if clean:
            self._post(self._run_path("steps"), {"steps": [{"step": int(step), "metrics": clean}]})

    def log_samples(self, samples):
        """Samples with your own unique "id" each (a retry never duplicates); sent in bounded batches."""
        stored = skipped = 0
        batch, size = [], 0
        for sample in list(samples) + [None]:
            encoded = 0 if sample is None else len(json.dumps(sample))
            if batch and (sample is None or len(batch) >= MAX_SAMPLES_PER_BATCH or size + encoded > MAX_BATCH_BYTES):
                result = self._post(self._run_path("trajectories"), {"trajectories": batch})
                stored += result["stored"]
                skipped += result["skipped"]
                batch, size = [], 0
            if sample is not None:
                batch.append(sample)
                size += encoded
        return {"stored": stored, "skipped": skipped}

    def finish(self, status="succeeded", error=None):
        body = {"status": status}
        if error:
            body["error"] = str(error)[:2000]
        return self._post(self._run_path("finish"), body)
