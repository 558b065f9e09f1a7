"""Stands in for a GPU engine process launched by Rollout Lab's worker (engine-launch.test.ts): started the way the
launcher starts TRL (the rendered trl-config.json in its working directory, the environment server's URL, the run's id
and its run-scoped token in the environment), it does what the TRL entry does with them, minus the GPU: plays gold
episodes through the TRL adapter's environment class at steps 0 and 1, and logs metrics with the stdlib logger into
the launched run. STAND_IN_MODE: "complete" (exit 0), "fail" (an error on stderr, exit 3), "hang" (until SIGTERM).
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

import trl_grpo_rollout_lab as trl_example
from rollout_lab_logger import RolloutLabLogger

mode = os.environ.get("STAND_IN_MODE", "complete")
config = json.load(open("trl-config.json"))
print(f"stand-in: num_generations={config['grpo_config']['num_generations']} pid={os.getpid()}", flush=True)

if mode == "hang":
    print("stand-in: hanging", flush=True)
    while True:
        time.sleep(1)

gold = json.loads(os.environ["STAND_IN_GOLD"])
env_url = os.environ["ROLLOUT_LAB_ENV_URL"]
token = os.environ["ROLLOUT_LAB_TOKEN"]
rows, tools = trl_example.build_rows([gold["taskId"]], [0], env_url=env_url, token=token)
cls = trl_example.make_environment_class(tools, env_url=env_url, token=token, experiment="ignored-by-a-run-token")
logger = RolloutLabLogger(os.environ["ROLLOUT_LAB_URL"], token=token)
logger.resume_run(os.environ["ROLLOUT_LAB_RUN_ID"])
for step in (0, 1):
    trl_example.CURRENT_STEP[0] = step
    env = cls()
    env.reset(**{k: v for k, v in rows[0].items() if k != "prompt"})
    for action in gold["actions"]:
        env.respond(action["message"])
        if env.done:
            break
    logger.log_step(step, {"train/reward": env.get_reward(), "train/loss": 0.5 - step * 0.1})
    print(f"stand-in: step {step} reward {env.get_reward()}", flush=True)
logger.flush(timeout=30)

# the run's token reaches nothing but its run
request = urllib.request.Request(
    os.environ["ROLLOUT_LAB_URL"] + "/api/v1/external-runs", data=json.dumps({"name": "x", "source": "trl"}).encode(),
    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"}, method="POST")
try:
    urllib.request.urlopen(request)
    print("stand-in: other-run 200", flush=True)
except urllib.error.HTTPError as error:
    print(f"stand-in: other-run {error.code}", flush=True)

# nor can it settle its own run: the launcher does, from the exit code
finish = urllib.request.Request(
    os.environ["ROLLOUT_LAB_URL"] + "/api/v1/external-runs/" + os.environ["ROLLOUT_LAB_RUN_ID"] + "/finish",
    data=json.dumps({"status": "succeeded"}).encode(),
    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"}, method="POST")
try:
    urllib.request.urlopen(finish)
    print("stand-in: finish 200", flush=True)
except urllib.error.HTTPError as error:
    print(f"stand-in: finish {error.code}", flush=True)

if mode == "fail":
    print("CUDA out of memory (stand-in)", file=sys.stderr, flush=True)
    sys.exit(3)
print("stand-in: done", flush=True)
