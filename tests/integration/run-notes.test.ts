/**
 * A run's notes over the real REST API and the dashboard's tRPC endpoint, on the real PostgreSQL: given at launch
 * beside the config (never inside it), edited after launch with a write token, bounded to 10,000 characters with a
 * 400 naming the field and the limit, and found by the runs list's search.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, startApiServer, type ApiServer } from "./api-harness";
import { RUN_NOTES_MAX_CHARS } from "../../lib/run-notes";

let server: ApiServer;
before(async () => {
  server = await startApiServer({ API_RATE_LIMIT_BURST: "1000", API_RATE_LIMIT_PER_MINUTE: "100000" });
});
after(async () => server?.stop());

test("notes given at launch are stored beside the config, not in it, and a clone starts without them", async () => {
  const token = await server.token(["read", "write"], "notes-launch");
  const created = await api(server.base, token, "POST", "/runs", {
    config: { name: "notes at launch", grpo: { steps: 2 } },
    notes: "  Baseline for the KL sweep.\nSame seed as last week.\n\n",
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json.id as string;
  const got = await api(server.base, token, "GET", `/runs/${id}`);
  assert.equal(got.json.notes, "Baseline for the KL sweep.\nSame seed as last week.", "surrounding blank space dropped");
  const row = await server.db.prisma.run.findUniqueOrThrow({ where: { id } });
  assert.ok(!JSON.stringify(row.config).includes("KL sweep"), "the stored config holds no notes");
  assert.equal((row.config as Record<string, unknown>).notes, undefined);

  const inConfig = await api(server.base, token, "POST", "/runs", { config: { name: "notes in config", notes: "no" } });
  assert.equal(inConfig.status, 400, "notes are not a config field");

  const clone = await api(server.base, token, "POST", `/runs/${id}/clone`, {});
  assert.equal(clone.status, 201, clone.text);
  assert.equal((await api(server.base, token, "GET", `/runs/${clone.json.id as string}`)).json.notes, "");
});

test("notes are edited after launch with a write token; a read token is 403, an unknown run 404", async () => {
  const writer = await server.token(["read", "write"], "notes-writer");
  const reader = await server.token(["read"], "notes-reader");
  const id = (await api(server.base, writer, "POST", "/runs", { config: { name: "notes edited", grpo: { steps: 2 } } })).json.id as string;
  assert.equal((await api(server.base, writer, "GET", `/runs/${id}`)).json.notes, "", "no notes until someone writes some");

  const edited = await api(server.base, writer, "POST", `/runs/${id}/notes`, {
    notes: "reward plateaus at step 40 <img src=x onerror=alert(1)>",
  });
  assert.equal(edited.status, 200, edited.text);
  assert.deepEqual(edited.json, { id, notes: "reward plateaus at step 40 <img src=x onerror=alert(1)>" });
  assert.equal((await api(server.base, reader, "GET", `/runs/${id}`)).json.notes, edited.json.notes, "stored as written");

  const denied = await api(server.base, reader, "POST", `/runs/${id}/notes`, { notes: "read tokens cannot write" });
  assert.equal(denied.status, 403);
  assert.equal((await api(server.base, reader, "GET", `/runs/${id}`)).json.notes, edited.json.notes);
  assert.equal((await api(server.base, writer, "POST", "/runs/nosuchrun/notes", { notes: "x" })).status, 404);

  const cleared = await api(server.base, writer, "POST", `/runs/${id}/notes`, { notes: "   " });
  assert.equal(cleared.json.notes, "", "blank notes clear them");

  // The dashboard edits through tRPC: the same procedure, the same rules.
  const trpc = await fetch(`${server.base}/api/trpc/runActions.setNotes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: { id, notes: "edited on the run page" } }),
  });
  assert.equal(trpc.status, 200, await trpc.text());
  assert.equal((await api(server.base, reader, "GET", `/runs/${id}`)).json.notes, "edited on the run page");
});

test("notes are bounded: one character past 10,000 is a 400 naming the field and the limit, at launch and on edit", async () => {
  const token = await server.token(["read", "write"], "notes-bounds");
  const id = (await api(server.base, token, "POST", "/runs", { config: { name: "notes bounded", grpo: { steps: 2 } } })).json.id as string;
  const longest = "n".repeat(RUN_NOTES_MAX_CHARS);
  assert.equal((await api(server.base, token, "POST", `/runs/${id}/notes`, { notes: longest })).status, 200, "the limit itself is fine");

  const tooLong = await api(server.base, token, "POST", `/runs/${id}/notes`, { notes: `${longest}!` });
  assert.equal(tooLong.status, 400);
  assert.equal(tooLong.json.error!.field, "notes");
  assert.match(tooLong.json.error!.message, /notes: notes are at most 10,000 characters/);
  assert.equal((await api(server.base, token, "GET", `/runs/${id}`)).json.notes, longest, "nothing was written");

  const atLaunch = await api(server.base, token, "POST", "/runs", { config: { name: "too long" }, notes: `${longest}!` });
  assert.equal(atLaunch.status, 400);
  assert.equal(atLaunch.json.error!.field, "notes");
  assert.equal(await server.db.prisma.run.count({ where: { name: "too long" } }), 0);

  const notText = await api(server.base, token, "POST", `/runs/${id}/notes`, { notes: ["a"] });
  assert.equal(notText.status, 400);
  assert.equal(notText.json.error!.field, "notes");

  // Shown to everyone who opens the dashboard, like a config: an API key pasted in is refused the same way.
  const key = await api(server.base, token, "POST", `/runs/${id}/notes`, { notes: `judge key sk-${"a1".repeat(12)}` });
  assert.equal(key.status, 400);
  assert.equal(key.json.error!.field, "notes");
  assert.match(key.json.error!.message, /API key/);
});

test("the runs list's search finds a run by a word in its notes, any case, and no longer once the note is gone", async () => {
  const token = await server.token(["read", "write"], "notes-search");
  const word = `plateau${Date.now() % 100_000}`;
  const id = (await api(server.base, token, "POST", "/runs", { config: { name: "notes searched", grpo: { steps: 2 } } })).json.id as string;
  await api(server.base, token, "POST", "/runs", { config: { name: "another run", grpo: { steps: 2 } }, notes: "nothing to see" });
  const search = async (q: string) =>
    ((await api(server.base, token, "GET", `/runs?search=${encodeURIComponent(q)}`)).json.items as { id: string; notes: string }[]).map(
      (r) => r.id,
    );
  assert.deepEqual(await search(word), [], "not before the note is written");

  await api(server.base, token, "POST", `/runs/${id}/notes`, { notes: `First try.\nThe reward hits a ${word.toUpperCase()} early.` });
  assert.deepEqual(await search(word), [id]);
  assert.deepEqual(await search(` ${word} `), [id], "surrounding spaces ignored");
  const listed = (await api(server.base, token, "GET", `/runs?search=${word}`)).json.items as { notes: string }[];
  assert.match(listed[0].notes, /^First try\.\n/, "the list carries the notes for the table's preview");

  await api(server.base, token, "POST", `/runs/${id}/notes`, { notes: "" });
  assert.deepEqual(await search(word), []);
});

test("the OpenAPI document describes the notes route and the notes field of POST /runs", async () => {
  const doc = (await api(server.base, null, "GET", "/openapi.json")).json as {
    paths: Record<
      string,
      Record<string, { requestBody?: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } } }>
    >;
  };
  const edit = doc.paths["/runs/{id}/notes"]?.post;
  assert.ok(edit, "POST /runs/{id}/notes is documented");
  assert.deepEqual((edit.requestBody!.content["application/json"].schema.properties.notes as { maxLength: number }).maxLength, 10_000);
  const create = doc.paths["/runs"].post.requestBody!.content["application/json"].schema.properties;
  assert.ok(create.notes, "POST /runs documents notes");
});
