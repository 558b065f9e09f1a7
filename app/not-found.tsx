import Link from "next/link";

export default function NotFound() {
  return (
    <div className="mx-auto max-w-lg py-16 text-center">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-slate-600">
        No run, group or trajectory has this id. It may have been deleted, or the link was mistyped.
      </p>
      <Link href="/runs" className="mt-4 inline-block text-sm text-blue-700 underline">
        All runs
      </Link>
    </div>
  );
}
