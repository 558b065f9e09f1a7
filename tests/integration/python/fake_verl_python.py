"""Stands in for the Python that has verl installed, for engine-launch.test.ts: the rendered run-verl.sh runs as
rendered (the metrics forwarder in the background, the data preparation, then `-m verl.trainer.main_ppo k=v ...`).
verl itself is not installed here, so its base classes are the stand-ins of env_server_examples.py and its trainer is
this file: it reads the rendered overrides, builds the adapter's tools, interaction and agent loop from the rendered
configs, plays rollout.n gold episodes per step through them, scores each with the rendered custom_reward_function,
and writes each step's metrics the way verl's file logger does ({"step", "data"} lines, steps from 1).
Everything else (the forwarder, the adapter, the environment server, the run token) is the real thing.
"""
import asyncio
import json
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
args = sys.argv[1:]

if args and not args[0].endswith(("verl_rollout_lab.py",)) and args[:2] != ["-m", "verl.trainer.main_ppo"]:
    # the forwarder, or any other script: plain Python
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
    sys.exit(0)

import env_server_examples as harness  # noqa: E402  (installs the verl stand-ins, imports the adapters)

verl_example = harness.verl_example
if args[0].endswith("verl_rollout_lab.py"):
    opts = dict(zip(args[1::2], args[2::2]))
    rows = verl_example.prepare(opts["--env-url"], opts["--out"], range(int(opts["--seeds"])),
                                token=os.environ.get("ROLLOUT_LAB_TOKEN"), experiment=opts["--experiment"])
    # verl reads parquet (pandas); pandas is not installed here, so the rows go to JSON beside it
    json.dump(rows, open(os.path.join(opts["--out"], "train.json"), "w"))
    print(f"fake verl: prepared {len(rows)} rows", flush=True)
    sys.exit(0)

overrides = dict(a.split("=", 1) for a in args[2:])
data_dir = os.path.dirname(overrides["data.train_files"])
rows = json.load(open(os.path.join(data_dir, "train.json")))
tool_config = json.load(open(overrides["actor_rollout_ref.rollout.multi_turn.tool_config_path"]))
interaction_config = json.load(open(overrides["actor_rollout_ref.rollout.multi_turn.interaction_config_path"]))["interaction"][0]
agent_loops = json.load(open(overrides["actor_rollout_ref.rollout.agent.agent_loop_config_path"]))
score_fn = harness.load_custom_reward_function({"path": overrides["custom_reward_function.path"], "name": overrides["custom_reward_function.name"]})
interaction = verl_example.RolloutLabInteraction({**interaction_config["config"], "name": interaction_config["name"]})
tools = {t["tool_schema"]["function"]["name"]: verl_example.RolloutLabTool(t["config"], harness.ParsedToolSchema.model_validate(t["tool_schema"]))
         for t in tool_config["tools"]}
loop_cls = getattr(verl_example, agent_loops[0]["_target_"].rsplit(".", 1)[1])
gold = json.loads(os.environ["STAND_IN_GOLD"])
log = open(os.environ["VERL_FILE_LOGGER_PATH"], "ab", buffering=0)
for step in range(1, int(overrides["trainer.total_training_steps"]) + 1):
    scores = []
    for _ in range(int(overrides["actor_rollout_ref.rollout.n"])):
        row = rows[0]
        extra_info = {"interaction_kwargs": {**row["extra_info"]["interaction_kwargs"], "task_id": gold["taskId"]}}
        output = asyncio.run(loop_cls(interaction, tools, gold["actions"]).run({}, extra_info=extra_info, raw_prompt=row["prompt"]))
        scores.append(score_fn(data_source=row["data_source"], solution_str="", ground_truth="", extra_info={**extra_info, **output.extra_fields})["score"])
    log.write((json.dumps({"step": step, "data": {"critic/score/mean": sum(scores) / len(scores)}}) + "\n").encode())
    print(f"fake verl: step {step} score {sum(scores) / len(scores)}", flush=True)
