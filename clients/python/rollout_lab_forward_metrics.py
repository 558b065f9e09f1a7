"""Forward a trainer's metrics file into a Rollout Lab run while it trains: each JSON line {"step": N, "data": {...}}
(verl's file logger, `trainer.logger=[console,file]` with VERL_FILE_LOGGER_PATH) becomes that step's metrics in the
run, through the stdlib logger (rollout_lab_logger.py). Standard library only.

    python rollout_lab_forward_metrics.py metrics.jsonl --follow-pid $$

Reads the file as it grows; when the process given by --follow-pid is gone it reads what is left, flushes and exits.
The run, server and token come from ROLLOUT_LAB_RUN_ID, ROLLOUT_LAB_URL and ROLLOUT_LAB_TOKEN (the launcher sets
them). A line that is not JSON is skipped with a warning naming its line number; non-numeric values are left out.
"""
import argparse
import json
import os
import sys
import time

from rollout_lab_logger import RolloutLabLogger


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def numeric(data, prefix=""):
    out = {}
    for k, v in (data or {}).items():
        key = f"{prefix}{k}"
        if isinstance(v, bool):
            out[key] = float(v)
        elif isinstance(v, (int, float)):
            out[key] = v
        elif isinstance(v, dict):
            out.update(numeric(v, key + "/"))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path")
    parser.add_argument("--follow-pid", type=int, default=None)
    parser.add_argument("--poll", type=float, default=0.5)
    args = parser.parse_args()
    logger = RolloutLabLogger(os.environ["ROLLOUT_LAB_URL"], token=os.environ.get("ROLLOUT_LAB_TOKEN"))
    logger.resume_run(os.environ["ROLLOUT_LAB_RUN_ID"])
    offset, line_no, pending = 0, 0, b""
    while True:
        finished = args.follow_pid is not None and not alive(args.follow_pid)
        if os.path.exists(args.path):
            with open(args.path, "rb") as f:
                f.seek(offset)
                chunk = f.read()
                offset += len(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                line_no += 1
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                    logger.log_step(int(record["step"]), numeric(record.get("data")))
                except (ValueError, KeyError, TypeError) as error:
                    print(f"rollout_lab_forward_metrics: {args.path} line {line_no} skipped ({error})", file=sys.stderr, flush=True)
        if finished:
            break
        time.sleep(args.poll)
    logger.flush(timeout=60)


if __name__ == "__main__":
    main()
