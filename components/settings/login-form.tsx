/** The dashboard sign-in form: a plain POST to /api/login (server/auth/login.ts), which sets the session cookie. */
export function LoginForm({ next, failed }: { next: string; failed: boolean }) {
  return (
    <form action="/api/login" method="post" className="mx-auto mt-16 max-w-sm space-y-4 rounded border border-slate-200 bg-white p-6">
      <h1 className="text-lg font-semibold">Sign in to Rollout Lab</h1>
      <p className="text-sm text-slate-600">This dashboard is protected by DASHBOARD_PASSWORD.</p>
      <input type="hidden" name="next" value={next} />
      <label className="block text-sm">
        Password
        <input name="password" type="password" autoFocus required className="mt-1 w-full rounded border border-slate-300 px-2 py-1" />
      </label>
      {failed && (
        <p role="alert" className="text-sm text-red-700">
          Wrong password.
        </p>
      )}
      <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-sm text-white">
        Sign in
      </button>
    </form>
  );
}
