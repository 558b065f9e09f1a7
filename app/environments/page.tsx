import Link from "next/link";
import { ENVIRONMENT_CATALOG } from "@/lib/environments";

/** Every environment, each linking to its page of evaluations. */
export default function EnvironmentsPage() {
  return (
    <section className="space-y-3">
      <h1 className="text-xl font-semibold">Environments</h1>
      <p className="text-sm text-slate-600">
        Each environment&apos;s page lists every evaluation of it — API models, checkpoints, the gold replay — side by side.
      </p>
      <ul className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        {ENVIRONMENT_CATALOG.map((e) => (
          <li key={e.name} className="rounded border border-slate-200 bg-white p-3 text-sm">
            <Link href={`/environments/${e.name}`} className="font-mono font-medium text-blue-700 hover:underline">
              {e.name}
            </Link>{" "}
            <span className="text-xs text-slate-500">{e.seedSystem}</span>
            <p className="text-xs text-slate-600">{e.description}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
