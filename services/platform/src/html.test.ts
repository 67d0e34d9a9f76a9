import { describe, expect, it } from "vitest";
import { html } from "./html.ts";

describe("html template", () => {
  it("escapes interpolated text, including attribute quotes", () => {
    const title = `<script>alert("x")</script> & 'more'`;
    expect(html`<h1 title="${title}">${title}</h1>`.value).toBe(
      '<h1 title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;</h1>',
    );
  });

  it("keeps nested html as markup and drops null, undefined and false", () => {
    const inner = html`<em>${"a<b"}</em>`;
    expect(html`<p>${inner}${null}${undefined}${false}${[html`<br>`, "c&d"]}${3}</p>`.value).toBe("<p><em>a&lt;b</em><br>c&amp;d3</p>");
  });
});
