import { describe, expect, it } from "vitest";
import { identityLimits } from "@svc/platform/contract";
import { checkEmbedOrigins } from "./embed-origins.ts";

describe("checkEmbedOrigins: the origins allowed to frame an organization's meetings", () => {
  it("normalizes to what a browser reports as the origin: lower case, no default port or trailing slash, each once, in order", () => {
    expect(
      checkEmbedOrigins([
        "https://App.Example.COM/",
        " https://app.example.com:443 ",
        "https://scheduler.example:8443",
        "https://xn--bcher-kva.example",
        "http://localhost:3000",
        "HTTP://127.0.0.1:5173/",
        "http://localhost:80",
      ]),
    ).toEqual({
      origins: [
        "https://app.example.com",
        "https://scheduler.example:8443",
        "https://xn--bcher-kva.example",
        "http://localhost:3000",
        "http://127.0.0.1:5173",
        "http://localhost",
      ],
    });
    expect(checkEmbedOrigins([])).toEqual({ origins: [] });
  });

  it.each([
    ["http://app.example.com", /must be https \(plain http only for localhost or 127.0.0.1\)/],
    ["ftp://app.example.com", /must be an origin such as/],
    ["app.example.com", /must be an origin such as/],
    ["javascript:alert(1)", /must be an origin such as/],
    ["https://app.example.com/embed", /origin only/],
    ["https://app.example.com/?x=1", /origin only/],
    ["https://app.example.com#top", /origin only/],
    ["https://user:pw@app.example.com", /credentials/],
    ["https://*.example.com", /no wildcard/],
    ["https://bücher.example", /punycode/],
    ["https://203.0.113.7", /no IP address/],
    ["http://[::1]:3000", /no IP address/],
    ["https://app.example.com:99999", /must be an origin such as/],
    ["https://app.example.com; script-src *", /must be an origin such as/],
    ["", /is empty/],
    [`https://${"a".repeat(300)}.example`, /at most 300 characters/],
  ])("refuses %j, naming it", (value, reason) => {
    const result = checkEmbedOrigins(["https://fine.example", value]);
    expect(result).toEqual({ problems: [expect.stringMatching(reason)] });
    if ("problems" in result) expect(result.problems[0]).toContain(JSON.stringify(value).slice(0, 40));
  });

  it(`holds at most ${identityLimits.embedOriginsMax} origins, and names every refused entry at once`, () => {
    const many = Array.from({ length: identityLimits.embedOriginsMax }, (_, index) => `https://site${index}.example`);
    expect(checkEmbedOrigins(many)).toEqual({ origins: many });
    expect(checkEmbedOrigins([...many, "https://one-more.example"])).toEqual({
      problems: [`allowedOrigins holds at most ${identityLimits.embedOriginsMax} origins`],
    });
    expect(checkEmbedOrigins(["http://a.example", "https://b.example/path"])).toEqual({
      problems: [expect.stringMatching(/"http:\/\/a.example"/), expect.stringMatching(/"https:\/\/b.example\/path"/)],
    });
  });
});
