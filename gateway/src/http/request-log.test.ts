import { Writable } from "node:stream";
import express from "express";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { REDACTED, REDACTED_PATHS } from "@svc/platform";
import { redactedLocation } from "./redirect-location.ts";
import { requestLog } from "./request-log.ts";

describe("the request log", () => {
  it("never logs an authorization code, state or token from a redirect's Location header", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
    const app = express()
      .use(requestLog(logger))
      .get("/oauth/authorize/:uid", (_req, res) => {
        res.redirect(303, "https://app.example/callback?code=CODE-SECRET-123&state=STATE-SECRET&iss=https%3A%2F%2Fapi.example#access_token=TOKEN-SECRET");
      });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/oauth/authorize/abc`, { redirect: "manual" });
      expect(response.status).toBe(303);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      server.close();
    }
    const log = lines.join("");
    expect(log).toContain('"statusCode":303');
    for (const secret of ["CODE-SECRET-123", "STATE-SECRET", "TOKEN-SECRET"]) expect(log).not.toContain(secret);
    expect(log).toContain("https://app.example/callback?code=[redacted]&state=[redacted]&iss=https%3A%2F%2Fapi.example#access_token=[redacted]");
  });

  it("never logs the request's credentials or cookies, nor a session cookie the response sets", async () => {
    const lines: string[] = [];
    // The platform logger's redaction (createLogger), writing here.
    const logger = pino(
      { level: "info", redact: { paths: [...REDACTED_PATHS], censor: REDACTED } },
      new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    );
    const app = express()
      .use(requestLog(logger))
      .get("/session", (_req, res) => void res.cookie("svc_session", "NEW-SESSION-SECRET", { httpOnly: true }).json({ ok: true }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/session?token=QUERY-SECRET`, {
        headers: { authorization: "Bearer KEY-SECRET", cookie: "svc_session=OLD-SESSION-SECRET", "user-agent": "cal.com/5" },
      });
      expect(response.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      server.close();
    }
    const log = lines.join("");
    for (const secret of ["KEY-SECRET", "OLD-SESSION-SECRET", "NEW-SESSION-SECRET", "QUERY-SECRET"]) expect(log).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as { req: Record<string, unknown>; res: Record<string, unknown> };
    expect(line.req).toMatchObject({ method: "GET", path: "/session", userAgent: "cal.com/5" });
    // The response's headers are not logged at all: its status is.
    expect(line.res).toEqual({ statusCode: 200 });
  });

  it("never logs a recording download link's token, which is in its path", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
    const app = express()
      .use(requestLog(logger))
      .get("/api/v1/recording-downloads/:token", (_req, res) => void res.status(403).json({ error: "expired" }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/recording-downloads/DOWNLOAD-TOKEN-SECRET.1767225600.sig`)).status).toBe(403);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      server.close();
    }
    expect(lines.join("")).not.toContain("DOWNLOAD-TOKEN-SECRET");
    expect((JSON.parse(lines[0]!) as { req: { path: string } }).req.path).toBe("/api/v1/recording-downloads/REDACTED");
  });

  it("keeps paths, parameter names, error and iss readable", () => {
    expect(redactedLocation("/oauth/interaction/xyz")).toBe("/oauth/interaction/xyz");
    expect(redactedLocation("https://app.example/cb?error=access_denied&state=s&flag")).toBe(
      "https://app.example/cb?error=access_denied&state=[redacted]&flag=[redacted]",
    );
  });
});
