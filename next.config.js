/** @type {import('next').NextConfig} */
const nextConfig = {
  // The web app never imports TensorFlow.js or the trainer; these server-only packages stay external to the bundle.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", "pg"],
  typedRoutes: false,
  poweredByHeader: false,
  // `npm test` type-checks the whole project (web + trainer) once; repeating it in every `next build` would only
  // slow down `npm start` after a pull.
  typescript: { ignoreBuildErrors: true },
  experimental: {
    // Next copies each request body for proxy.ts and, by default, buffers up to 10 MB of it for the route. No API
    // accepts more than 1 MiB (MAX_REQUEST_BODY_BYTES in server/http/input-safety.ts); one byte more is kept so
    // that a route still sees an oversized body as oversized (413) rather than as truncated JSON.
    proxyClientMaxBodySize: 1024 * 1024 + 1,
  },
};

export default nextConfig;
