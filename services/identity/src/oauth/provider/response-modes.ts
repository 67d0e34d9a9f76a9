import type Provider from "oidc-provider";
// @ts-expect-error oidc-provider's per-instance internal store has no types; the package is pinned exactly (README).
import instance from "oidc-provider/lib/helpers/weak_cache.js";

/**
 * Authorization responses go only in the redirect's query (`response_mode=query`, the default for
 * `code`). oidc-provider also offers `fragment` and `form_post`, and has no setting to turn them
 * off, so they are removed from the instance's registry: a request asking for one gets
 * `unsupported_response_mode`, delivered in the query. Fewer ways for a code to travel (a fragment
 * survives redirects and reaches scripts; form_post needs a page of ours that posts it).
 */
export function allowOnlyQueryResponseMode(provider: Provider) {
  const { responseModes } = (instance as (provider: Provider) => { responseModes: Map<string, unknown> })(provider);
  for (const mode of [...responseModes.keys()]) if (mode !== "query") responseModes.delete(mode);
}
