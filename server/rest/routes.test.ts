import { test } from "node:test";
import assert from "node:assert/strict";
import { REST_ROUTES, matchRoute } from "./routes";
import { procedureInput, procedureType } from "./procedures";
import { buildOpenApiDocument } from "./openapi";
import { queryToInput } from "./request-input";

test("every REST route names an existing procedure of the right kind (GET = query, POST = mutation)", () => {
  for (const route of REST_ROUTES) {
    if (route.kind !== "procedure") continue;
    assert.ok(procedureInput(route.procedure), route.procedure);
    assert.equal(procedureType(route.procedure), route.method === "GET" ? "query" : "mutation", `${route.method} ${route.path}`);
  }
});

test("paths match with parameters; a known path with the wrong method lists the allowed ones", () => {
  const m = matchRoute("GET", "/runs/abc/trajectories/t1");
  assert.ok(m && "route" in m);
  assert.deepEqual(m.params, { id: "abc", trajectoryId: "t1" });
  assert.deepEqual(matchRoute("DELETE", "/runs/abc"), { allowed: ["GET"] });
  assert.equal(matchRoute("GET", "/nope"), null);
});

test("the OpenAPI document lists every route with typed query parameters and the RunConfig body", () => {
  const doc = buildOpenApiDocument("http://x/api/v1");
  assert.equal(doc.openapi, "3.1.0");
  for (const r of REST_ROUTES) assert.ok(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`);
  const list = doc.paths["/runs/{id}/trajectories"].get as { parameters: { name: string; in: string; schema: { type?: string } }[] };
  assert.equal(list.parameters.find((p) => p.name === "limit")?.schema.type, "integer");
  assert.ok(!list.parameters.some((p) => p.name === "runId"), "path-filled fields are not query parameters");
  const create = doc.paths["/runs"].post as {
    requestBody: { content: { "application/json": { schema: { properties: Record<string, { properties?: Record<string, unknown> }> } } } };
  };
  const body = create.requestBody.content["application/json"].schema;
  assert.ok(body.properties.config.properties?.grpo, "config documents the RunConfig sections");
  assert.equal(body.properties.source, undefined, "server-filled fields are hidden");
});

test("query strings become typed input; values that do not convert are left for zod to reject", () => {
  const schema = procedureInput("trajectories.list");
  const input = queryToInput(new URLSearchParams("limit=5&rewardMin=-0.5&status=ok,error&status=unscored&stepMin=abc"), schema);
  assert.deepEqual(input, { limit: 5, rewardMin: -0.5, status: ["ok", "error", "unscored"], stepMin: "abc" });
});

test("every operation declares its success response from the zod schemas, so generated clients are typed", () => {
  const doc = buildOpenApiDocument("http://x/api/v1");
  for (const r of REST_ROUTES) {
    if (r.kind !== "procedure") continue;
    const op = doc.paths[r.path][r.method.toLowerCase()] as {
      responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>;
    };
    const schema = op.responses[String(r.successStatus ?? 200)].content["application/json"].schema;
    assert.ok(schema.properties || schema.items || schema.anyOf, `${r.method} ${r.path} declares what it returns`);
  }
  const status = (
    doc.paths["/runs/{id}"].get as {
      responses: {
        200: { content: { "application/json": { schema: { properties: Record<string, unknown>; additionalProperties: unknown } } } };
      };
    }
  ).responses[200].content["application/json"].schema;
  assert.ok(status.properties.latestMetrics && status.properties.progress);
  assert.equal(status.additionalProperties, false, "strict: an undeclared field fails the API tests");
});
