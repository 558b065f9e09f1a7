/** The id schema every router uses for rows (cuid and uuid ids are well under 64 characters). */
import { z } from "zod";

export const entityId = z.string().min(1).max(64);
export const runIdSchema = entityId.describe("Run id");
