import type { ServiceImpl } from "@connectrpc/connect";
import type { EmbeddingService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { EmbedOriginStore } from "../embedding/embed-origin-store.ts";

/**
 * svc.identity.v1.EmbeddingService: the origins the gateway's meeting page sends in
 * `frame-ancestors`. No credential, like the page itself: the list is public (every join page of
 * the organization's meetings states it), and an unknown organization is simply an empty list.
 */
export function embeddingService(embedOrigins: EmbedOriginStore): ServiceImpl<typeof EmbeddingService> {
  return {
    async getEmbedOrigins(request) {
      return { origins: (await embedOrigins.originsOf(request.orgId)) ?? [] };
    },
  };
}
