import { LoginForm } from "@/components/settings/login-form";
import { safeNextPath } from "@/server/auth/dashboard-session";

export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string; error?: string }> }) {
  const params = await searchParams;
  return <LoginForm next={safeNextPath(params.next)} failed={params.error === "1"} />;
}
