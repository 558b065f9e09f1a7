/**
 * PostgreSQL's int4 (Prisma's Int), the type of every integer column here: API inputs that reach a column, or a
 * query on one, are bounded to it, so an over-large number is a 400 naming the field instead of the database's
 * out-of-range error (a 500).
 */
import { z } from "zod";

export const INT4_MAX = 2_147_483_647;
export const INT4_MIN = -2_147_483_648;

/** A count stored in an int4 column (tokens, attempts): 0 … 2,147,483,647. */
export const int4Count = () =>
  z
    .number()
    .int()
    .min(0)
    .max(INT4_MAX, `must be at most ${INT4_MAX.toLocaleString("en-US")} (an int4 column)`);
