import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { authorizeInBrowser } from "../oauth/support/browser.ts";
import { createOAuthApp, exchangeCode, type OAuthApp } from "../oauth/support/oauth-app.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";

// The webhook operations' OAuth scopes with real access tokens: a user grants an application some
// webhook scopes in Chromium, the application exchanges the code with oauth4webapi, then calls the
// API through @svc/client. API keys need no scope (every other webhook test uses one).
const fixture = useStack();
let user: Tenant;
let app: OAuthApp;
let browser: Browser;

beforeAll(async () => {
  const developer = await createTenant(fixture.stack, { name: "Hook App Developer" });
  user = await createTenant(fixture.stack, { name: "Hook Customer" });
  app = await createOAuthApp(fixture.stack, developer, { name: "Hook App", scopes: "webhook.create webhook.read webhook.update webhook.delete" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
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

/** An answer of @svc/client: the parsed error body beside the untouched response. */
interface Answer {
  error?: unknown;
  response: Response;
}

function expectInsufficientScope({ error, response }: Answer, scope: string) {
  expect(response.status).toBe(403);
  expect((error as { error?: string } | undefined)?.error).toBe(`Insufficient scope: ${scope}`);
  expect(response.headers.get("www-authenticate")).toContain(`error="insufficient_scope", scope="${scope}"`);
}

const hook = { url: "http://127.0.0.1:9/hook", events: ["meeting.ended" as const] };
const inPath = (webhookId: string) => ({ params: { path: { webhookId } } });

describe("OAuth scopes of the webhook API", () => {
  it("a token with webhook.read lists but cannot create, delete, test, redeliver or re-enable", { timeout: 120_000 }, async () => {
    const reader = fixture.client(await tokenWith("webhook.read"));
    const owner = fixture.client(user.apiKey);
    const { data: created } = await owner.POST("/webhook", { body: hook });
    const webhookId = created!.webhookId;

    const listed = await reader.GET("/webhook");
    expect(listed.response.status).toBe(200);
    expect(listed.data!.webhooks.map((w) => w.webhookId)).toEqual([webhookId]);
    expect((await reader.GET("/webhook/{webhookId}/deliveries", inPath(webhookId))).response.status).toBe(200);

    expectInsufficientScope(await reader.POST("/webhook", { body: hook }), "webhook.create");
    expectInsufficientScope(await reader.DELETE("/webhook", { body: { webhookId } }), "webhook.delete");
    expectInsufficientScope(await reader.POST("/webhook/{webhookId}/test", inPath(webhookId)), "webhook.create");
    expectInsufficientScope(await reader.POST("/webhook/{webhookId}/enable", inPath(webhookId)), "webhook.create");
    expectInsufficientScope(
      await reader.POST("/webhook/{webhookId}/deliveries/{deliveryId}/retry", {
        params: { path: { webhookId, deliveryId: "8f14e45f-ceea-467a-9575-6e2b7c1d5a2b" } },
      }),
      "webhook.create",
    );
    expectInsufficientScope(await reader.PATCH("/webhook/{webhookId}", { ...inPath(webhookId), body: { description: "x" } }), "webhook.update");
    expectInsufficientScope(await reader.POST("/webhook/{webhookId}/rotate-secret", inPath(webhookId)), "webhook.update");
    expectInsufficientScope(
      await reader.POST("/webhook/{webhookId}/recover", { ...inPath(webhookId), body: { since: new Date().toISOString() } }),
      "webhook.update",
    );
    expect((await reader.GET("/event-types")).response.status).toBe(200);
    expect((await owner.GET("/webhook")).data!.webhooks).toHaveLength(1);
  });

  it(
    "webhook.create registers, webhook.update changes, rotates and recovers, webhook.delete deletes, each only with its own scope",
    { timeout: 120_000 },
    async () => {
      const creator = fixture.client(await tokenWith("webhook.create"));
      const created = await creator.POST("/webhook", { body: hook });
      expect(created.response.status).toBe(201);
      const webhookId = created.data!.webhookId;
      expectInsufficientScope(await creator.GET("/webhook"), "webhook.read");
      expectInsufficientScope(await creator.DELETE("/webhook", { body: { webhookId } }), "webhook.delete");
      expectInsufficientScope(await creator.PATCH("/webhook/{webhookId}", { ...inPath(webhookId), body: { description: "x" } }), "webhook.update");
      expectInsufficientScope(await creator.POST("/webhook/{webhookId}/rotate-secret", inPath(webhookId)), "webhook.update");
      expectInsufficientScope(await creator.GET("/event-types"), "webhook.read");

      const updater = fixture.client(await tokenWith("webhook.update"));
      const changed = await updater.PATCH("/webhook/{webhookId}", { ...inPath(webhookId), body: { description: "Changed with webhook.update" } });
      expect(changed.response.status).toBe(200);
      expect(changed.data!.description).toBe("Changed with webhook.update");
      expect((await updater.POST("/webhook/{webhookId}/rotate-secret", inPath(webhookId))).response.status).toBe(200);
      expect(
        (await updater.POST("/webhook/{webhookId}/recover", { ...inPath(webhookId), body: { since: new Date(Date.now() - 60_000).toISOString() } })).response
          .status,
      ).toBe(202);
      expectInsufficientScope(await updater.DELETE("/webhook", { body: { webhookId } }), "webhook.delete");

      const deleter = fixture.client(await tokenWith("webhook.delete"));
      const deleted = await deleter.DELETE("/webhook", { body: { webhookId } });
      expect(deleted.response.status).toBe(200);
      expect(deleted.data).toEqual({ webhookId, deleted: true });
    },
  );
});
