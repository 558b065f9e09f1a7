import { handleTrpcRequest } from "@/server/http/trpc-http";

export { handleTrpcRequest as GET, handleTrpcRequest as POST };
