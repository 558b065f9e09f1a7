/**
 * MessageAPI: a workspace with users, a login, and an inbox of {receiver_id: message} entries (BFCL func_doc
 * `message_api.json`). Message ids come from Python's random.Random(seed), reproduced by PyRandom.
 */
import { pyLower } from "./py-values";
import { PyRandom } from "../py-random";
import { initial, method, str, type ApiInstance } from "./api-types";
import type { ApiOptions } from "./long-context";

export function createMessageApi(config: Record<string, unknown>, options: ApiOptions): ApiInstance {
  const rng = new PyRandom(typeof config.random_seed === "number" ? config.random_seed : 200191);
  const s = {
    generated_ids: new Set<number>(initial<number[]>(config, "generated_ids", [])),
    user_count: initial(config, "user_count", 4),
    user_map: initial<Record<string, string>>(config, "user_map", {
      Alice: "USR001",
      Bob: "USR002",
      Catherine: "USR003",
      Daniel: "USR004",
    }),
    inbox: initial<Record<string, string>[]>(config, "inbox", [
      { USR002: "My name is Alice. I want to connect." },
      { USR003: "Could you upload the file?" },
      { USR004: "Could you upload the file?" },
    ]),
    message_count: initial(config, "message_count", 3),
    current_user: initial<string | null>(config, "current_user", null),
  };
  const loggedOut = () => (s.current_user ? null : { error: "No user is currently logged in." });
  const entry = (m: Record<string, string>): [string, string] => Object.entries(m)[0] ?? ["", ""];
  const newId = () => {
    let id = rng.randint(10000, 99999);
    while (s.generated_ids.has(id)) id = rng.randint(10000, 99999);
    s.generated_ids.add(id);
    return { new_id: id };
  };

  return {
    className: "MessageAPI",
    state: () => ({ ...s, generated_ids: [...s.generated_ids].sort((a, b) => a - b) }),
    methods: {
      list_users: method([], () => ({ user_list: Object.keys(s.user_map) })),
      get_user_id: method(["user"], (a) => {
        const user = str(a.user, "user");
        return user in s.user_map ? { user_id: s.user_map[user] } : { error: `User '${user}' not found in the workspace.` };
      }),
      message_login: method(["user_id"], (a) => {
        const id = str(a.user_id, "user_id");
        if (!Object.values(s.user_map).includes(id)) return { login_status: false, message: `User ID '${id}' not found.` };
        s.current_user = id;
        return { login_status: true, message: `User '${id}' logged in successfully.` };
      }),
      message_get_login_status: method([], () => ({ login_status: Boolean(s.current_user) })),
      send_message: method(["receiver_id", "message"], (a) => {
        const denied = loggedOut();
        if (denied) return denied;
        const to = str(a.receiver_id, "receiver_id");
        if (!Object.values(s.user_map).includes(to)) return { error: `Receiver ID '${to}' not found.` };
        const id = newId();
        s.inbox.push({ [to]: str(a.message, "message") });
        s.message_count += 1;
        return { sent_status: true, message_id: id, message: `Message sent to '${to}' successfully.` };
      }),
      delete_message: method(["receiver_id"], (a) => {
        const denied = loggedOut();
        if (denied) return denied;
        const to = str(a.receiver_id, "receiver_id");
        for (let i = s.inbox.length - 1; i >= 0; i--) {
          if (entry(s.inbox[i])[0] === to) {
            s.inbox.splice(i, 1);
            // EnvTuning's fork deletes the same message but words it as the "first" and calls the receiver a message id.
            return options.fork === "envtuning"
              ? { deleted_status: true, message_id: to, message: `Receiver ${to}'s first message deleted successfully.` }
              : { deleted_status: true, receiver_id: to, message: `Receiver ${to}'s latest message deleted successfully.` };
          }
        }
        return { error: `Receiver ID ${to} not found.` };
      }),
      view_messages_sent: method([], () => {
        const denied = loggedOut();
        if (denied) return denied;
        const sent: Record<string, string[]> = {};
        for (const m of s.inbox) {
          const [to, text] = entry(m);
          (sent[to] ??= []).push(text);
        }
        return { messages: sent };
      }),
      add_contact: method(["user_name"], (a) => {
        const name = str(a.user_name, "user_name");
        if (name in s.user_map) return { error: `User name '${name}' already exists.` };
        s.user_count += 1;
        const id = `USR${String(s.user_count).padStart(3, "0")}`;
        if (Object.values(s.user_map).includes(id)) return { error: `User ID '${id}' already exists.` };
        s.user_map[name] = id;
        return { added_status: true, user_id: id, message: `Contact '${name}' added successfully.` };
      }),
      search_messages: method(["keyword"], (a) => {
        const denied = loggedOut();
        if (denied) return denied;
        const kw = str(a.keyword, "keyword").toLowerCase();
        const results = s.inbox
          .map(entry)
          // A message that is not text (some data sets hold lists or dicts there) fails as Python's .lower() does.
          .filter(([, text]) => pyLower(text).includes(kw))
          .map(([to, text]) => ({ receiver_id: to, message: text }));
        return { results };
      }),
      get_message_stats: method([], () => {
        const denied = loggedOut();
        if (denied) return denied;
        return { stats: { received_count: s.inbox.length, total_contacts: new Set(s.inbox.map((m) => entry(m)[0])).size } };
      }),
    },
  };
}
