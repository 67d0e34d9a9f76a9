/**
 * Where an organization's embed origins are kept (Postgres: db/pg-embed-origin-store.ts). The
 * values are already checked and normalized (embed-origins.ts); the organization always comes from
 * the caller's session or from the meeting the page shows, never from a request's body.
 */
export interface EmbedOriginStore {
  /** The organization's origins in the order given; undefined for no such organization. */
  originsOf(orgId: string): Promise<string[] | undefined>;
  /** Replaces the organization's list; false for no such organization. */
  replace(orgId: string, origins: string[]): Promise<boolean>;
}
