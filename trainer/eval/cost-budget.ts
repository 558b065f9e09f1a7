/**
 * An evaluation's cost ceiling (`eval.maxCostUsd`): every LLM call's cost is added as it is recorded; once the
 * total reaches the ceiling no new policy call is sent and the run stops cleanly with the reason. Calls already in
 * flight when it is reached still finish (at most `eval.concurrency` of them), so the total may pass the ceiling by
 * that much.
 */
export class CostCeilingReached extends Error {
  constructor(
    readonly spentUsd: number,
    readonly maxUsd: number,
  ) {
    super(`Stopped at the cost ceiling: the run's LLM calls cost $${spentUsd.toFixed(4)}, and eval.maxCostUsd is $${maxUsd}.`);
    this.name = "CostCeilingReached";
  }
}

export class CostBudget {
  private spent = 0;
  private readonly listeners: (() => void)[] = [];

  constructor(readonly maxUsd: number | null) {}

  get spentUsd(): number {
    return this.spent;
  }

  get exceeded(): boolean {
    return this.maxUsd !== null && this.spent >= this.maxUsd;
  }

  /** Called once, when the ceiling is first reached. */
  onExceeded(listener: () => void): void {
    this.listeners.push(listener);
  }

  add(usd: number): void {
    if (!Number.isFinite(usd) || usd <= 0) return;
    const before = this.exceeded;
    this.spent += usd;
    if (!before && this.exceeded) for (const l of this.listeners) l();
  }

  /** Throws once the ceiling is reached: the guard before every policy call. */
  check(): void {
    if (this.exceeded) throw new CostCeilingReached(this.spent, this.maxUsd as number);
  }

  reason(): string {
    return new CostCeilingReached(this.spent, this.maxUsd ?? 0).message;
  }
}
