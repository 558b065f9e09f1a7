/**
 * Errors as REST responses: `{ error: { code, message, field?, issues? } }` with the status of the AppError code.
 * Zod issues keep their field path and what was expected; anything unexpected is a 500 with a fixed message, the
 * details going to the server log only (never a stack trace to the caller).
 */
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { ZodError } from "zod";
import { AppError, HTTP_STATUS } from "../errors";
import { InvalidInputError, issuesFromZod, type InputIssue } from "../services/run-lifecycle";

export interface ErrorBody {
  error: { code: string; message: string; field?: string; issues?: InputIssue[] };
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

function zodBody(error: ZodError): ErrorBody {
  const issues = issuesFromZod(error);
  return {
    error: {
      code: "BAD_REQUEST",
      message: `Invalid input: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      field: issues[0]?.path,
      issues,
    },
  };
}

function appErrorBody(error: AppError): ErrorBody {
  const issues =
    error instanceof InvalidInputError ? error.issues : error.field ? [{ path: error.field, message: error.message }] : undefined;
  return {
    error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}), ...(issues ? { issues } : {}) },
  };
}

export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof AppError) return jsonResponse(appErrorBody(cause), HTTP_STATUS[cause.code], headers);
  if (cause instanceof ZodError) return jsonResponse(zodBody(cause), 400, headers);
  if (error instanceof TRPCError) {
    const status = getHTTPStatusCodeFromError(error);
    if (status < 500) return jsonResponse({ error: { code: error.code, message: error.message } }, status, headers);
  }
  console.error("[rest] unexpected error", error);
  return jsonResponse(
    { error: { code: "INTERNAL_SERVER_ERROR", message: "Internal server error; the details are in the server log." } },
    500,
    headers,
  );
}
