import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { authorizeInBrowser } from "../oauth/support/browser.ts";
import { createOAuthApp, exchangeCode, type OAuthApp } from "../oauth/support/oauth-app.ts";
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

// The webhook operations' OAuth scopes with real access tokens: a user grants an application some
// webhook scopes in Chromium, the application exchanges the code with oauth4webapi, then calls the
// API. API keys need no scope (every other webhook test uses one).
let stack: Stack;
let user: Tenant;
let app: OAuthApp;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack();
  const developer = await createTenant(stack, { name: "Hook App Developer" });
  user = await createTenant(stack, { name: "Hook Customer" });
  app = await createOAuthApp(stack, developer, { name: "Hook App", scopes: "webhook.create webhook.read webhook.update webhook.delete" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await stack?.stop();
});

async function tokenWith(scope: string): Promise<string> {
  const context = await browser.newContext();
  try {
    const state = `state-${scope.replace(/\W/g, "-")}`;
    const { callbackUrl } = await authorizeInBrowser(context, app, app.authorizeUrl({ scope, state }), user);
    return (await exchangeCode(app, callbackUrl, state)).tokens.access_token;
  } finally {
    await context.close();
  }
}

const call = (token: string, method: string, path: string, body?: unknown) => callApi(apiBase(stack), method, path, { key: token, body });

async function expectInsufficientScope(response: Response, scope: string) {
  expect(response.status).toBe(403);
  expect((await response.json()).error).toBe(`Insufficient scope: ${scope}`);
  expect(response.headers.get("www-authenticate")).toContain(`error="insufficient_scope", scope="${scope}"`);
}

const hook = { url: "http://127.0.0.1:9/hook", events: ["meeting.ended"] };

describe("OAuth scopes of the webhook API", () => {
  it("a token with webhook.read lists but cannot create, delete, test, redeliver or re-enable", { timeout: 120_000 }, async () => {
    const reader = await tokenWith("webhook.read");
    const created = await call(user.apiKey, "POST", "/webhook", hook);
    const { webhookId } = (await created.json()) as { webhookId: string };

    const listed = await call(reader, "GET", "/webhook");
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { webhooks: { webhookId: string }[] }).webhooks.map((w) => w.webhookId)).toEqual([webhookId]);
    expect((await call(reader, "GET", `/webhook/${webhookId}/deliveries`)).status).toBe(200);

    await expectInsufficientScope(await call(reader, "POST", "/webhook", hook), "webhook.create");
    await expectInsufficientScope(await call(reader, "DELETE", "/webhook", { webhookId }), "webhook.delete");
    await expectInsufficientScope(await call(reader, "POST", `/webhook/${webhookId}/test`), "webhook.create");
    await expectInsufficientScope(await call(reader, "POST", `/webhook/${webhookId}/enable`), "webhook.create");
    await expectInsufficientScope(await call(reader, "POST", `/webhook/${webhookId}/deliveries/8f14e45f-ceea-467a-9575-6e2b7c1d5a2b/retry`), "webhook.create");
    await expectInsufficientScope(await call(reader, "PATCH", `/webhook/${webhookId}`, { description: "x" }), "webhook.update");
    await expectInsufficientScope(await call(reader, "POST", `/webhook/${webhookId}/rotate-secret`), "webhook.update");
    await expectInsufficientScope(await call(reader, "POST", `/webhook/${webhookId}/recover`, { since: new Date().toISOString() }), "webhook.update");
    expect((await call(reader, "GET", "/event-types")).status).toBe(200);
    expect((await (await call(user.apiKey, "GET", "/webhook")).json()).webhooks).toHaveLength(1);
  });

  it(
    "webhook.create registers, webhook.update changes, rotates and recovers, webhook.delete deletes, each only with its own scope",
    { timeout: 120_000 },
    async () => {
      const creator = await tokenWith("webhook.create");
      const created = await call(creator, "POST", "/webhook", hook);
      expect(created.status).toBe(201);
      const { webhookId } = (await created.json()) as { webhookId: string };
      await expectInsufficientScope(await call(creator, "GET", "/webhook"), "webhook.read");
      await expectInsufficientScope(await call(creator, "DELETE", "/webhook", { webhookId }), "webhook.delete");
      await expectInsufficientScope(await call(creator, "PATCH", `/webhook/${webhookId}`, { description: "x" }), "webhook.update");
      await expectInsufficientScope(await call(creator, "POST", `/webhook/${webhookId}/rotate-secret`), "webhook.update");
      await expectInsufficientScope(await call(creator, "GET", "/event-types"), "webhook.read");

      const updater = await tokenWith("webhook.update");
      const changed = await call(updater, "PATCH", `/webhook/${webhookId}`, { description: "Changed with webhook.update" });
      expect(changed.status).toBe(200);
      expect((await changed.json()).description).toBe("Changed with webhook.update");
      expect((await call(updater, "POST", `/webhook/${webhookId}/rotate-secret`)).status).toBe(200);
      expect((await call(updater, "POST", `/webhook/${webhookId}/recover`, { since: new Date(Date.now() - 60_000).toISOString() })).status).toBe(202);
      await expectInsufficientScope(await call(updater, "DELETE", "/webhook", { webhookId }), "webhook.delete");

      const deleter = await tokenWith("webhook.delete");
      const deleted = await call(deleter, "DELETE", "/webhook", { webhookId });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ webhookId, deleted: true });
    },
  );
});
