// OAuth refresh-grant scenarios of `npm run bench`, also runnable alone for docs/benchmarks.md's figures:
//   . scripts/node24.sh && eval "$(bash scripts/infra env)" && scripts/node test/bench/refresh-grants.ts
// Each refresh consumes its token and returns the next one, so a chain is sequential: the
// concurrency is the number of independent authorizations (BENCH_REFRESH_CHAINS), each obtained
// through sign-in and consent in Chromium. The same load goes straight to identity's OAuth listener
// too, to show what the gateway hop costs.
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { authorizeInBrowser } from "../oauth/support/browser.ts";
import { createOAuthApp, tokenRequest } from "../oauth/support/oauth-app.ts";
import { loop } from "./load.ts";

/** Independent OAuth authorizations: a refresh chain is sequential, so this is the concurrency. */
export const REFRESH_CHAINS = Number(process.env.BENCH_REFRESH_CHAINS ?? (process.argv.includes("--quick") ? 2 : 16));

/**
 * One authorization per refresh chain, obtained through sign-in and consent in Chromium exactly as
 * a user would. Returns the application, an access token (for the /auth scenario) and the chains.
 */
export async function authorizeChains(stack: Stack, tenant: Tenant) {
  const scope = "meeting.create webhook.read";
  const app = await createOAuthApp(stack, tenant, { scopes: scope });
  const browser = await launchChromium();
  const session = await browser.newContext();
  const refreshTokens: string[] = [];
  let accessToken = "";
  for (let i = 0; i < REFRESH_CHAINS; i++) {
    const { callbackUrl } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope, state: `bench${i}` }), tenant);
    const { status, body } = await tokenRequest(stack, {
      grant_type: "authorization_code",
      code: new URL(callbackUrl).searchParams.get("code")!,
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    if (status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(body)}`);
    refreshTokens.push(body.refresh_token as string);
    accessToken = body.access_token as string;
  }
  await browser.close();
  return { app, accessToken, refreshTokens };
}

/** Refresh grants per second, after a discarded warm-up: each grant consumes its token and continues the chain with the new one. */
export async function refreshGrants(
  baseUrl: string,
  client: { clientId: string; clientSecret: string },
  refreshTokens: string[],
  timing: { warmupSeconds: number; durationSeconds: number },
) {
  const refresh = async () => {
    const refreshToken = refreshTokens.shift()!;
    const response = await fetch(`${baseUrl}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const body = (await response.json()) as { refresh_token?: string };
    if (response.status !== 200 || !body.refresh_token) {
      // The token was not consumed: keep the chain alive for the next iteration.
      refreshTokens.push(refreshToken);
      throw new Error(`refresh failed: ${response.status}`);
    }
    refreshTokens.push(body.refresh_token);
  };
  await loop(REFRESH_CHAINS, timing.warmupSeconds, refresh);
  return loop(REFRESH_CHAINS, timing.durationSeconds, refresh);
}

/** Alone: a stack of its own, the gateway then identity's OAuth listener, one JSON result on stdout. */
async function main() {
  const timing = { warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2), durationSeconds: Number(process.env.BENCH_DURATION_SECONDS ?? 10) };
  const stack = await startStack({ env: { LOG_LEVEL: "warn", RATE_LIMIT_PER_SECOND: "1000000" } });
  try {
    const { app, refreshTokens } = await authorizeChains(stack, await createTenant(stack));
    const results: Record<string, unknown> = { chains: REFRESH_CHAINS, durationSeconds: timing.durationSeconds };
    for (const [name, baseUrl] of [
      ["gateway", stack.gatewayUrl],
      ["identity OAuth listener (no gateway)", stack.urls.identityOAuth],
    ] as const) {
      const result = await refreshGrants(baseUrl, app, refreshTokens, timing);
      results[name] = { ...result, requestsPerSecond: Math.round(result.requestsPerSecond) };
      process.stderr.write(
        `${name}: ${Math.round(result.requestsPerSecond)} refresh grants/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, errors ${result.errors}\n`,
      );
    }
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    await app.close();
  } finally {
    await stack.stop();
  }
}

if (import.meta.main) await main();
