/** Run-level events (claimed, resumed, checkpoint saved, failed…), shown on the run page's event log. */
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { EventLevel } from "./step-record";
import { storable, storableText } from "../../lib/storable";

export async function recordEvent(
  db: PrismaClient,
  runId: string,
  level: EventLevel,
  message: string,
  extra: { step?: number; data?: Record<string, unknown> } = {},
): Promise<void> {
  await db.runEvent.create({
    data: {
      runId,
      level,
      message: storableText(message),
      step: extra.step ?? null,
      ...(extra.data ? { data: storable(extra.data) as Prisma.InputJsonValue } : {}),
    },
  });
}
