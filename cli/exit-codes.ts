/**
 * Exit codes of `rollout-lab`, distinct so a CI step can react to each outcome (docs/api.md has the same table).
 */
export const EXIT = {
  OK: 0,
  /** Network failure, server error (5xx), or anything unexpected. */
  ERROR: 1,
  /** Wrong command-line usage (unknown command or flag, missing argument). */
  USAGE: 2,
  /** The config file is unreadable or invalid, or the server rejected the input (400/413). */
  BAD_CONFIG: 3,
  /** Missing, invalid or revoked token (401), or a token without the needed scope (403). */
  AUTH: 4,
  /** The run finished with status "failed". */
  RUN_FAILED: 5,
  /** The run was cancelled. */
  RUN_CANCELLED: 6,
  /** The run succeeded but its reward is below --min-reward (or it has no reward). */
  THRESHOLD_MISSED: 7,
  /** --timeout elapsed before the run finished (the run keeps going unless --cancel-on-timeout). */
  TIMEOUT: 8,
  /** Unknown run id (404) or a state conflict (409, e.g. resuming a running run). */
  NOT_FOUND_OR_CONFLICT: 9,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the CLI with a given exit code and one line on stderr. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    /** The server answered 404 (an unknown id or key). */
    readonly notFound = false,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 400 || status === 413 || status === 422) return EXIT.BAD_CONFIG;
  if (status === 404 || status === 409) return EXIT.NOT_FOUND_OR_CONFLICT;
  return EXIT.ERROR;
}
