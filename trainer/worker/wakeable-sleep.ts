/**
 * The pause between polls of a long-running loop (the worker's queue poll, the Slurm launcher's squeue poll) that
 * `wake()` ends at once, so a stop request does not wait out a whole poll interval.
 */
export class WakeableSleep {
  private wakeCurrent: (() => void) | null = null;

  /** Resolves after `ms`, or as soon as wake() is called. */
  async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeCurrent = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeCurrent = null;
  }

  /** Ends the sleep in progress, if any. A wake with nobody sleeping is not remembered: the loop checks its own flag. */
  wake(): void {
    this.wakeCurrent?.();
  }
}
