"use client";
/**
 * API tokens: create (the full token is shown once, right here, and never again), list with prefix, scopes and
 * last use, revoke. Tokens authenticate the REST API and the CLI (docs/api.md).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";

export function TokensPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions({}));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
  const create = useMutation(trpc.tokens.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const [name, setName] = useState("");
  const [scope, setScope] = useState<"read" | "write" | "ingest">("write");

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name, scopes: [scope] });
    setName("");
  }

  return (
    <section className="space-y-6">
      <header>
        <h1 className="text-xl font-semibold">API tokens</h1>
        <p className="text-sm text-slate-600">
          For the REST API (<code>/api/v1</code>,{" "}
          <a className="underline" href="/api/v1/openapi.json">
            OpenAPI document
          </a>
          ) and the <code>rollout-lab</code> CLI.
          <em> read</em> tokens can list and export; <em>write</em> tokens can also create, cancel and resume runs; <em>ingest</em> tokens
          can only send runs trained elsewhere (docs/import.md), for a training cluster you do not want reading or launching runs.
        </p>
      </header>

      <form onSubmit={submit} className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4 text-sm">
        <label className="flex flex-col">
          Name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={80}
            placeholder="github-actions"
            className="mt-1 rounded border border-slate-300 px-2 py-1"
            data-testid="token-name"
          />
        </label>
        <label className="flex flex-col">
          Scope
          <select
            value={scope}
            onChange={(e) => setScope(e.target.value === "read" || e.target.value === "ingest" ? e.target.value : "write")}
            className="mt-1 rounded border border-slate-300 px-2 py-1"
          >
            <option value="write">write (and read)</option>
            <option value="read">read</option>
            <option value="ingest">ingest (external runs only)</option>
          </select>
        </label>
        <button type="submit" disabled={create.isPending} className="rounded bg-slate-900 px-3 py-1.5 text-white disabled:opacity-50">
          Create token
        </button>
        {create.isError && <p className="w-full text-red-700">{create.error.message}</p>}
      </form>

      {create.data && (
        <div role="status" className="rounded border border-amber-300 bg-amber-50 p-4 text-sm" data-testid="new-token">
          <p className="font-medium">Copy this token now — it is shown only once.</p>
          <code className="mt-2 block break-all rounded bg-white p-2 font-mono text-xs">{create.data.token}</code>
        </div>
      )}

      <table className="w-full text-left text-sm">
        <thead className="text-xs text-slate-500">
          <tr>
            <th className="py-2">Name</th>
            <th>Prefix</th>
            <th>Scopes</th>
            <th>Created</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {tokens.data?.length === 0 && (
            <tr>
              <td colSpan={6} className="py-3 text-slate-500">
                No tokens yet.
              </td>
            </tr>
          )}
          {tokens.data?.map((t) => (
            <tr key={t.id} className="border-t border-slate-200">
              <td className="py-2">{t.name}</td>
              <td className="font-mono text-xs">{t.prefix}…</td>
              <td>{t.scopes.join(", ")}</td>
              <td>{t.createdAt.toLocaleString()}</td>
              <td>{t.lastUsedAt ? t.lastUsedAt.toLocaleString() : "never"}</td>
              <td className="text-right">
                <button
                  type="button"
                  className="text-red-700 hover:underline disabled:opacity-50"
                  disabled={revoke.isPending}
                  onClick={() => window.confirm(`Revoke "${t.name}"? Scripts using it will get 401.`) && revoke.mutate({ id: t.id })}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tokens.isError && <p className="text-sm text-red-700">Could not load tokens: {tokens.error.message}</p>}
    </section>
  );
}
