/**
 * One error family for the whole server. Services throw AppError with a code; the tRPC layer and the REST layer
 * map codes to HTTP statuses. 4xx messages are shown to the caller verbatim (so they must say exactly what was
 * wrong and how to fix it); anything else becomes a 500 whose message is hidden.
 */
export type AppErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNPROCESSABLE_CONTENT"
  | "TOO_MANY_REQUESTS";

export const HTTP_STATUS: Record<AppErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
};

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** Field path the error is about, when there is one (e.g. "grpo.groupSize"). */
    readonly field?: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (what: string, id: string) => new AppError("NOT_FOUND", `${what} "${id}" does not exist.`);
