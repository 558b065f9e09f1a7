/**
 * τ²-bench's mock domain (`domains/mock`): users with task lists, tools to create tasks and change their status,
 * and the assertion functions its tasks check (ENV_ASSERTION). Behaves as τ²'s MockTools do — task ids from the
 * table's size, a task created for a user appended to its list, errors as τ² raises them — and prints results
 * as τ² prints them. tests/fixtures/parity/tau2-mock.json holds τ²'s own outputs and hashes for every mock task.
 */
import { createHash } from "node:crypto";
import { pythonJsonDumps, type PyModel, type PyType } from "../../../lib/python-json";
import type { ToolSchema } from "../parse";
import { DatasetError } from "../types";
import { deepMerge, isObject, pythonSignatureError, type Tau2DomainTools, type ToolOutcome } from "./domain";

export interface MockTask {
  task_id: string;
  title: string;
  description: string | null;
  status: string;
}
export interface MockUser {
  user_id: string;
  name: string;
  tasks: string[];
}
export interface MockDb {
  tasks: Record<string, MockTask>;
  users: Record<string, MockUser>;
}

export const MOCK_TABLES = ["tasks", "users"] as const;

const TaskModel: PyModel = {
  name: "Task",
  fields: [
    ["task_id", "str"],
    ["title", "str"],
    ["description", { optional: "str" }],
    ["status", "str"],
  ],
};
const UserModel: PyModel = {
  name: "User",
  fields: [
    ["user_id", "str"],
    ["name", "str"],
    ["tasks", { list: "str" }],
  ],
};
const MockDbModel: PyType = {
  model: {
    name: "MockDB",
    fields: [
      ["tasks", { dict: { model: TaskModel } }],
      ["users", { dict: { model: UserModel } }],
    ],
  },
};

function validateMockDb(raw: unknown, file: string): MockDb {
  if (!isObject(raw) || !isObject(raw.tasks) || !isObject(raw.users))
    throw new DatasetError(file, null, 'the mock database needs "tasks" and "users" tables');
  for (const [id, t] of Object.entries(raw.tasks)) {
    if (!isObject(t) || typeof t.task_id !== "string" || typeof t.title !== "string" || typeof t.status !== "string") {
      throw new DatasetError(file, `tasks.${id}`, "a task needs task_id, title and status");
    }
  }
  for (const [id, u] of Object.entries(raw.users)) {
    if (!isObject(u) || typeof u.user_id !== "string" || typeof u.name !== "string" || !Array.isArray(u.tasks)) {
      throw new DatasetError(file, `users.${id}`, "a user needs user_id, name and a tasks list");
    }
  }
  return raw as unknown as MockDb;
}

class MockToolError extends Error {}
const fail = (message: string): never => {
  throw new MockToolError(message);
};

interface MockTool {
  params: readonly string[];
  optional?: readonly string[];
  write: boolean;
  run: (db: MockDb, a: Record<string, unknown>) => string;
}

const taskJson = (t: MockTask) => pythonJsonDumps(t, { model: TaskModel });

const TOOLS: Record<string, MockTool> = {
  create_task: {
    params: ["user_id", "title", "description"],
    optional: ["description"],
    write: true,
    run(db, a) {
      const userId = a.user_id;
      if (typeof userId !== "string" || !(userId in db.users)) return fail(`User ${String(userId)} not found`);
      if (typeof a.title !== "string") return fail(`Invalid argument "title": expected a string, got ${JSON.stringify(a.title)}`);
      const description = a.description === undefined || a.description === null ? null : String(a.description);
      // τ²: the new id counts the tasks table, so an id already in use is overwritten.
      const taskId = `task_${Object.keys(db.tasks).length + 1}`;
      const task: MockTask = { task_id: taskId, title: a.title, description, status: "pending" };
      db.tasks[taskId] = task;
      db.users[userId].tasks.push(taskId);
      return taskJson(task);
    },
  },
  get_users: {
    params: [],
    write: false,
    run: (db) => pythonJsonDumps(Object.values(db.users), { list: { model: UserModel } }),
  },
  update_task_status: {
    params: ["task_id", "status"],
    write: true,
    run(db, a) {
      const taskId = a.task_id;
      if (typeof taskId !== "string" || !(taskId in db.tasks)) return fail(`Task ${String(taskId)} not found`);
      // τ² assigns the status without validating it against pending / completed.
      db.tasks[taskId].status = String(a.status);
      return taskJson(db.tasks[taskId]);
    },
  },
  transfer_to_human_agents: { params: ["summary"], write: false, run: () => "Transfer successful" },
};

const ASSERTIONS: Record<string, (db: MockDb, a: Record<string, unknown>) => boolean> = {
  assert_number_of_tasks(db, a) {
    const user = db.users[String(a.user_id)] ?? fail(`User ${String(a.user_id)} not found`);
    return user.tasks.length === Number(a.expected_number);
  },
  assert_task_status(db, a) {
    const task = db.tasks[String(a.task_id)] ?? fail(`Task ${String(a.task_id)} not found`);
    return task.status === a.expected_status;
  },
};

const str = (description: string) => ({ type: "string", description });
const MOCK_TOOL_SCHEMAS: readonly ToolSchema[] = [
  {
    name: "create_task",
    description: "Create a new task for a user; it starts as pending. Returns the task.",
    parameters: {
      type: "object",
      properties: {
        user_id: str("The user's id, e.g. 'user_1'."),
        title: str("The task's title."),
        description: str("Optional description."),
      },
      required: ["user_id", "title"],
    },
  },
  {
    name: "get_users",
    description: "All users, with the ids of their tasks.",
    parameters: { type: "object", properties: {}, required: [] },
  },
  {
    name: "update_task_status",
    description: "Set a task's status. Returns the task.",
    parameters: {
      type: "object",
      properties: {
        task_id: str("The task's id, e.g. 'task_1'."),
        status: { type: "string", enum: ["pending", "completed"], description: "The new status." },
      },
      required: ["task_id", "status"],
    },
  },
  {
    name: "transfer_to_human_agents",
    description:
      "Hand the conversation to a human agent, with a summary, when the user asks for one or the tools and policy cannot solve the request.",
    parameters: { type: "object", properties: { summary: str("Summary of the user's issue.") }, required: ["summary"] },
  },
];

export const mockDomain: Tau2DomainTools<MockDb, MockDb> = {
  name: "mock",
  agentRole: "You are an agent that manages users' tasks. Help the user following the policy below.",
  toolSchemas: MOCK_TOOL_SCHEMAS,
  validateDb: validateMockDb,
  fork: (db) => structuredClone(db),
  runTool(db, name, args): ToolOutcome {
    const tool = TOOLS[name];
    if (!tool) return { ok: false, content: `Error: Tool '${name}' not found.`, wrote: false };
    const badCall = pythonSignatureError(`MockTools.${name}()`, tool.params, args, tool.optional);
    if (badCall) return { ok: false, content: `Error: ${badCall}`, wrote: false };
    try {
      return { ok: true, content: tool.run(db, args), wrote: tool.write };
    } catch (e) {
      if (e instanceof MockToolError) return { ok: false, content: `Error: ${e.message}`, wrote: false };
      throw e;
    }
  },
  isWriteTool: (name) => TOOLS[name]?.write ?? false,
  hash: (db) =>
    createHash("sha256")
      .update(pythonJsonDumps(db, MockDbModel, { sortKeys: true }))
      .digest("hex"),
  compare(final, expected) {
    const finalHash = mockDomain.hash(final);
    const expectedHash = mockDomain.hash(expected);
    return { same: finalHash === expectedHash, finalHash, expectedHash, finalState: final, expectedState: expected };
  },
  initialize(db, data) {
    if (isObject(data)) deepMerge(db as unknown as Record<string, unknown>, data);
  },
  assertion(db, funcName, args) {
    const fn = ASSERTIONS[funcName];
    if (!fn) throw new Error(`the mock domain has no assertion function "${funcName}"`);
    return fn(db, args);
  },
};
