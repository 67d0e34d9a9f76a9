// Refresh-token grants per second through the gateway, for the README's OAuth throughput figures (not a test):
//   . scripts/node24.sh && eval "$(bash scripts/infra env)" && scripts/node test/oauth/bench-refresh-grants.ts
// Each refresh consumes its token and returns the next one, so a chain is sequential: the
// concurrency is the number of independent authorizations (BENCH_CHAINS), each obtained through
// sign-in and consent in Chromium. The same load is also sent straight to identity's OAuth
// listener, to show what the gateway hop costs. The `npm run bench` harness may fold this in.
import { loop } from "../bench/load.ts";
import { startStack } from "../support/stack.ts";
import { createTenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { authorizeInBrowser } from "./support/browser.ts";
import { createOAuthApp, tokenRequest } from "./support/oauth-app.ts";

const CHAINS = Number(process.env.BENCH_CHAINS ?? 16);
const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);

const stack = await startStack({ env: { LOG_LEVEL: "warn", RATE_LIMIT_PER_SECOND: "1000000" } });
try {
  const user = await createTenant(stack);
  const app = await createOAuthApp(stack, user, { scopes: "meeting.create webhook.read" });
  const browser = await launchChromium();
  const session = await browser.newContext();
  const chains: string[] = [];
  for (let i = 0; i < CHAINS; i++) {
    const { callbackUrl } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "meeting.create webhook.read", state: `b${i}` }), user);
    const code = new URL(callbackUrl).searchParams.get("code")!;
    const { status, body } = await tokenRequest(stack, {
      grant_type: "authorization_code",
      code,
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    if (status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(body)}`);
    chains.push(body.refresh_token as string);
  }
  await browser.close();

  const refreshVia = (baseUrl: string) => async () => {
    const refreshToken = chains.shift()!;
    const response = await fetch(`${baseUrl}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: app.clientId, client_secret: app.clientSecret }),
    });
    const body = (await response.json()) as { refresh_token?: string };
    if (response.status !== 200 || !body.refresh_token) throw new Error(`refresh failed: ${response.status}`);
    chains.push(body.refresh_token);
  };

  const results: Record<string, unknown> = { chains: CHAINS, durationSeconds: DURATION };
  for (const [name, baseUrl] of [
    ["gateway", stack.gatewayUrl],
    ["identity OAuth listener (no gateway)", stack.urls.identityOAuth],
  ] as const) {
    await loop(CHAINS, WARMUP, refreshVia(baseUrl));
    const result = await loop(CHAINS, DURATION, refreshVia(baseUrl));
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
