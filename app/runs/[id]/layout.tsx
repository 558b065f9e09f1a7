import { requireRun } from "@/server/pages/require-entity";

export const dynamic = "force-dynamic";

/** Every page under /runs/<id> is a 404 when the run does not exist. */
export default async function RunLayout({ children, params }: { children: React.ReactNode; params: Promise<{ id: string }> }) {
  await requireRun((await params).id);
  return children;
}
