import { handleLogin } from "@/server/auth/login";

export { handleLogin as POST };
