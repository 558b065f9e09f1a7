/** npm run build — the Next.js production build, recorded as a build so that `npm start` serves it as it is. */
import { buildWebApp } from "./build-fingerprint";

process.exit(buildWebApp() ? 0 : 1);
