/**
 * Pages for a run, group, trajectory or re-scoring job answer HTTP 404 with the not-found page when the id does not exist (rather
 * than a 200 page with one red line), so links that went stale look like what they are, to people and to crawlers.
 * Ids are checked by primary key: one indexed lookup per page view.
 */
import { notFound } from "next/navigation";
import { getPrisma } from "../../db/client";

const plausibleId = (id: string) => id.length > 0 && id.length <= 64;

export async function requireRun(id: string): Promise<void> {
  if (!plausibleId(id) || !(await getPrisma().run.findUnique({ where: { id }, select: { id: true } }))) notFound();
}

export async function requireGroup(runId: string, groupId: string): Promise<void> {
  const group = plausibleId(groupId) ? await getPrisma().group.findUnique({ where: { id: groupId }, select: { runId: true } }) : null;
  if (group?.runId !== runId) notFound();
}

export async function requireTrajectory(runId: string, trajectoryId: string): Promise<void> {
  const t = plausibleId(trajectoryId)
    ? await getPrisma().trajectory.findUnique({ where: { id: trajectoryId }, select: { runId: true } })
    : null;
  if (t?.runId !== runId) notFound();
}

export async function requireRescoring(runId: string, rescoringId: string): Promise<void> {
  const job = plausibleId(rescoringId)
    ? await getPrisma().rescoring.findUnique({ where: { id: rescoringId }, select: { runId: true } })
    : null;
  if (job?.runId !== runId) notFound();
}
