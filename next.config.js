/** @type {import('next').NextConfig} */
const nextConfig = {
  // The web app never imports TensorFlow.js or the trainer; these server-only packages stay external to the bundle.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", "pg"],
  typedRoutes: false,
  poweredByHeader: false,
  // `npm test` type-checks the whole project (web + trainer) once; repeating it in every `next build` would only
  // slow down `npm start` after a pull.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
