/**
 * The architecture's boundaries are enforced by ESLint (eslint.config.mjs): a deliberate violation on each side is
 * an error naming the rule's reason, and the same import in the right place is fine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ESLint } from "eslint";

const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, "..") });

async function messages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

test(
  "the web side cannot import TensorFlow.js or the trainer; the trainer cannot import the web framework",
  { timeout: 120_000 },
  async () => {
    assert.match(
      (await messages("server/services/x.ts", 'import * as tf from "@tensorflow/tfjs";\nexport const a = tf;\n'))[0] ?? "",
      /never loads TensorFlow\.js/,
    );
    assert.match(
      (
        await messages(
          "components/runs/x.tsx",
          'import { getEnvironment } from "../../trainer/envs/registry";\nexport const a = getEnvironment;\n',
        )
      )[0] ?? "",
      /never imports the trainer/,
    );
    assert.match(
      (await messages("lib/x.ts", 'import { firstLine } from "../trainer/loop/train-run";\nexport const a = firstLine;\n'))[0] ?? "",
      /never imports the trainer/,
    );
    assert.match(
      (await messages("trainer/x.ts", 'import { useState } from "react";\nexport const a = useState;\n'))[0] ?? "",
      /never loads the web framework/,
    );
    assert.match(
      (await messages("trainer/x.ts", 'import { createRun } from "../server/services/run-lifecycle";\nexport const a = createRun;\n'))[0] ??
        "",
      /only through the database/,
    );
    assert.match(
      (await messages("trainer/x.ts", 'import { AppError } from "../server/errors";\nexport const a = AppError;\n'))[0] ?? "",
      /only through the database/,
    );
    assert.match(
      (
        await messages("db/x.ts", 'import { getRunSummaries } from "../server/services/metrics";\nexport const a = getRunSummaries;\n')
      )[0] ?? "",
      /imports neither side/,
    );
    assert.match(
      (await messages("db/x.ts", 'import { trainRun } from "../trainer/loop/train-run";\nexport const a = trainRun;\n'))[0] ?? "",
      /imports neither side/,
    );
    assert.deepEqual(
      await messages(
        "trainer/x.ts",
        'import * as tf from "@tensorflow/tfjs";\nimport { getPrisma } from "../db/client";\nexport const a = [tf, getPrisma];\n',
      ),
      [],
    );
  },
);
