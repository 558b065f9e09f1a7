-- Evaluation runs (#30): the evaluated model's own calls (policy.endpoint) are recorded like simulator and judge
-- calls, under the role "policy". Adding an enum value keeps every stored row readable as it was.
ALTER TYPE "LlmRole" ADD VALUE IF NOT EXISTS 'policy';
