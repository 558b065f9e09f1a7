/** @type {import('next').NextConfig} */
const nextConfig = {
  // The web app never imports TensorFlow.js or the trainer; these server-only packages stay external to the bundle.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", "pg"],
  typedRoutes: false,
  poweredByHeader: false,
  // `npm test` type-checks the whole project (web + trainer) once; repeating it in every `next build` would only
  // slow down `npm start` after a pull.
  typescript: { ignoreBuildErrors: true },
  // With a proxy (proxy.ts) Next buffers each request body and silently cuts it at 10 MB. The ingest batch route takes
  // a whole run history (32 MiB, lib/ingest.ts MAX_HISTORY_BODY_BYTES); scripts/http-guard.mjs refuses anything larger
  // than each route's limit (1 MiB elsewhere) from its Content-Length before Next reads it, and every route enforces
  // its limit again while reading (server/rest/request-input.ts).
  experimental: { proxyClientMaxBodySize: "33mb" },
};

export default nextConfig;
