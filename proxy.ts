/**
 * Every request passes here first (Next 16 "proxy", formerly middleware; runs on the Node.js runtime):
 *   1. Host and Origin checks (server/auth/request-guard.ts): DNS rebinding and cross-site writes are refused (403);
 *   2. the dashboard password: when DASHBOARD_PASSWORD is set, pages and the tRPC endpoint need the signed session
 *      cookie set by the login form: pages redirect there, /api/trpc answers 401. The REST API (/api/v1, bearer
 *      tokens) and /api/health are not affected. Unset, the dashboard is open (npm start then binds to loopback only).
 */
import { NextResponse, type NextRequest } from "next/server";
import { SESSION_COOKIE, dashboardPassword, isPublicPath, verifySessionValue } from "@/server/auth/dashboard-session";
import { allowedHostnames, checkRequest } from "@/server/auth/request-guard";

let allowed: ReturnType<typeof allowedHostnames> | undefined;

/** True when every %XX escape in the path decodes; Next's router answers a bare 500 to ones that do not. */
function hasValidPercentEncoding(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

export async function proxy(request: NextRequest) {
  const password = dashboardPassword();
  const { pathname, search } = request.nextUrl;
  if (!hasValidPercentEncoding(pathname)) {
    const message = "The URL path contains invalid percent-encoding (e.g. %ZZ); encode ids with encodeURIComponent.";
    return pathname.startsWith("/api/")
      ? NextResponse.json({ error: { code: "BAD_REQUEST", message } }, { status: 400 })
      : new NextResponse(message, { status: 400 });
  }
  // Health stays reachable under any name (load balancers probe by IP); it changes nothing and reveals little.
  if (pathname !== "/api/health") {
    allowed ??= allowedHostnames(process.env);
    const refused = checkRequest(request, allowed, process.env);
    if (refused) {
      return pathname.startsWith("/api/")
        ? NextResponse.json({ error: { code: refused.code, message: refused.message } }, { status: refused.status })
        : new NextResponse(refused.message, { status: refused.status });
    }
  }
  if (!password || isPublicPath(pathname)) return NextResponse.next();
  if (await verifySessionValue(request.cookies.get(SESSION_COOKIE)?.value, password)) return NextResponse.next();
  if (pathname.startsWith("/api/")) {
    return NextResponse.json(
      {
        error: {
          code: "UNAUTHORIZED",
          message: "Sign in to the dashboard first (DASHBOARD_PASSWORD is set); scripts should use /api/v1 with an API token.",
        },
      },
      { status: 401 },
    );
  }
  const login = new URL("/settings/login", request.url);
  login.searchParams.set("next", `${pathname}${search}`);
  return NextResponse.redirect(login);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
