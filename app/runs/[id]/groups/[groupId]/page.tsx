import { GroupView } from "@/components/groups/group-view";
import { requireGroup } from "@/server/pages/require-entity";

export const dynamic = "force-dynamic";

export default async function GroupPage({ params }: { params: Promise<{ id: string; groupId: string }> }) {
  const { id, groupId } = await params;
  await requireGroup(id, groupId);
  return <GroupView runId={id} groupId={groupId} />;
}
