export * from "./api-rules.ts";
export * from "./event-types.ts";
export * from "./scopes.ts";
export * from "./uri-syntax.ts";
export * from "./oauth-paths.ts";
export * from "./error-metadata.ts";
export * from "./media-server.ts";
export * from "./enum-words.ts";
