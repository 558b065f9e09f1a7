import { EnvironmentEvaluations } from "@/components/evaluations/environment-evaluations";

export const dynamic = "force-dynamic";

export default async function EnvironmentPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <EnvironmentEvaluations name={decodeURIComponent(name)} />;
}
