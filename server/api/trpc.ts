/**
 * tRPC setup: context, error mapping and the procedure builders. Procedures stay thin (a zod input and one
 * service call); AppError codes from services become tRPC codes here, and unexpected errors become a 500 whose
 * message is hidden from the caller (logged on the server instead).
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { getPrisma, type PrismaClient } from "../../db/client";
import { AppError } from "../errors";

export interface TrpcContext {
  db: PrismaClient;
}

export function createTrpcContext(db: PrismaClient = getPrisma()): TrpcContext {
  return { db };
}

/** zod's own message is a JSON dump of its issues; callers get "field: problem; …" (the issues stay in `data`). */
function readableMessage(cause: unknown, fallback: string): string {
  if (!(cause instanceof ZodError)) return fallback;
  return `Invalid input: ${cause.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ")}`;
}

const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const isServerError = shape.data.httpStatus >= 500;
    return {
      ...shape,
      message: isServerError ? "Internal server error; the details are in the server log." : readableMessage(error.cause, shape.message),
      data: {
        ...shape.data,
        stack: undefined,
        zodIssues:
          error.cause instanceof ZodError ? error.cause.issues.map((i) => ({ path: i.path.join("."), message: i.message })) : undefined,
        field: error.cause instanceof AppError ? error.cause.field : undefined,
      },
    };
  },
});

const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) {
      throw new TRPCError({ code: cause.code, message: cause.message, cause });
    }
    if (result.error.code === "INTERNAL_SERVER_ERROR") console.error("[trpc]", result.error.cause ?? result.error);
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapAppErrors);
