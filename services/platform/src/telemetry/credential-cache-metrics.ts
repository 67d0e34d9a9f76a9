import type { CredentialCache } from "../credentials/credential-cache.ts";
import { counterIn, type Registry } from "./metrics-registry.ts";

/**
 * The cache, counting its lookups as hits (an answer: a credential or a refusal marker) and misses
 * (the caller goes on to identity or the database): credential_cache_lookups_total{result}.
 */
export function countingCacheLookups(cache: CredentialCache, registry: Registry | undefined): CredentialCache {
  if (!registry) return cache;
  const lookups = counterIn(registry, "credential_cache_lookups_total", "Credential-cache lookups, by result (hit or miss).", ["result"]);
  // Both series exist from the start, so a hit ratio is defined before the first miss.
  lookups.inc({ result: "hit" }, 0);
  lookups.inc({ result: "miss" }, 0);
  return {
    ...cache,
    async get(tokenHash) {
      const entry = await cache.get(tokenHash);
      lookups.inc({ result: entry === undefined ? "miss" : "hit" });
      return entry;
    },
  };
}
