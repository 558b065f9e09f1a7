import type { LlmChat } from "../envs/types";

/** The opening needs no LLM: environments open from the task; a simulated user's first line uses its offline reply. */
export const offlineOnly: LlmChat = {
  async chat(req) {
    if (!req.offline) throw new Error("the opening of this environment needs an LLM call; pre-flight only renders offline openings");
    return { text: await req.offline(), callId: "preflight" };
  },
};
