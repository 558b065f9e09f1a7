/**
 * TicketAPI: a support-ticket queue with a login (BFCL func_doc `ticket_api.json`). Tickets are dicts with id,
 * title, description, status ("Open"/"Closed"/"Resolved"), priority 1-5 and created_by.
 */
import { initial, method, num, str, type ApiInstance } from "./api-types";
import type { ApiOptions } from "./long-context";
import { keyError, pyLower, pyStr } from "./py-values";

type Ticket = Record<string, unknown> & { id: number; status: string; created_by: string };

export function createTicketApi(config: Record<string, unknown>, options: ApiOptions): ApiInstance {
  const s = {
    ticket_queue: initial<Ticket[]>(config, "ticket_queue", []),
    ticket_counter: initial(config, "ticket_counter", 1),
    current_user: initial<string | null>(config, "current_user", null),
  };
  /** gorilla's _find_ticket reads ticket["id"] of each ticket in turn (a ticket without one raises KeyError). */
  const find = (id: unknown) =>
    s.ticket_queue.find((t) => {
      if (!("id" in t)) throw keyError("id");
      return t.id === id;
    });
  const notFound = (id: unknown) => ({ error: `Ticket with ID ${pyStr(id)} not found.` });

  return {
    className: "TicketAPI",
    state: () => s,
    methods: {
      create_ticket: method(["title", ["description", ""], ["priority", 1]], (a) => {
        if (!s.current_user) return { error: "User not authenticated. Please log in to create a ticket." };
        const priority = num(a.priority, "priority");
        if (priority < 1 || priority > 5) return { error: "Invalid priority. Priority must be between 1 and 5." };
        const ticket: Ticket = {
          id: s.ticket_counter,
          title: str(a.title, "title"),
          description: str(a.description, "description"),
          status: "Open",
          priority,
          created_by: s.current_user,
        };
        s.ticket_queue.push(ticket);
        s.ticket_counter += 1;
        return ticket;
      }),
      get_ticket: method(["ticket_id"], (a) => find(a.ticket_id) ?? notFound(a.ticket_id)),
      close_ticket: method(["ticket_id"], (a) => {
        const t = find(a.ticket_id);
        if (!t) return notFound(a.ticket_id);
        if (t.status === "Closed") return { error: `Ticket with ID ${pyStr(a.ticket_id)} is already closed.` };
        t.status = "Closed";
        return { status: `Ticket ${pyStr(a.ticket_id)} has been closed successfully.` };
      }),
      resolve_ticket: method(["ticket_id", "resolution"], (a) => {
        const t = find(a.ticket_id);
        if (!t) return notFound(a.ticket_id);
        if (t.status === "Resolved") return { error: `Ticket with ID ${pyStr(a.ticket_id)} is already resolved.` };
        t.status = "Resolved";
        t.resolution = str(a.resolution, "resolution");
        return { status: `Ticket ${pyStr(a.ticket_id)} has been resolved successfully.` };
      }),
      edit_ticket: method(["ticket_id", "updates"], (a) => {
        const t = find(a.ticket_id);
        if (!t) return notFound(a.ticket_id);
        const updates = (a.updates ?? {}) as Record<string, unknown>;
        const invalid = Object.keys(updates).filter((k) => !["title", "description", "status", "priority"].includes(k));
        if (invalid.length) return { error: `Invalid fields for update: ${invalid.join(", ")}` };
        for (const [k, v] of Object.entries(updates)) if (v !== null && v !== undefined) t[k] = v;
        return { status: `Ticket ${pyStr(a.ticket_id)} has been updated successfully.` };
      }),
      ticket_login: method(["username", "password"], (a) => {
        if (a.username && a.password) {
          s.current_user = str(a.username, "username");
          return { success: true };
        }
        return { success: false };
      }),
      // EnvTuning's fork names the same flag "username".
      ticket_get_login_status: method([], () => ({
        [options.fork === "envtuning" ? "username" : "login_status"]: Boolean(s.current_user),
      })),
      logout: method([], () => {
        if (!s.current_user) return { success: false };
        s.current_user = null;
        return { success: true };
      }),
      get_user_tickets: method([["status", null]], (a) => {
        if (!s.current_user) return [{ error: "User not authenticated. Please log in to view tickets." }];
        const mine = s.ticket_queue.filter((t) => {
          if (!("created_by" in t)) throw keyError("created_by");
          return t.created_by === s.current_user;
        });
        if (!a.status) return mine;
        return mine.filter((t) => {
          if (!("status" in t)) throw keyError("status");
          return pyLower(t.status) === pyLower(a.status);
        });
      }),
    },
  };
}
