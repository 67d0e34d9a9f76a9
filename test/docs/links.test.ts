import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import type { Heading, Link, Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";

/**
 * The README and the guides under docs/ link to each other and to the code by relative paths; a
 * moved file or a renamed heading would leave a dead link that no reader reports. Every relative
 * link must name a file that exists and, with a #fragment, a heading of that file (GitHub's slugs).
 */
const root = path.resolve(import.meta.dirname, "../..");
const docsDir = path.join(root, "docs");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith(".md") ? [full] : [];
  });
}

function parse(file: string): Root {
  return fromMarkdown(readFileSync(file, "utf8"), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

function collect<T extends Nodes>(tree: Nodes, type: T["type"]): T[] {
  const found: T[] = [];
  const walk = (node: Nodes) => {
    if (node.type === type) found.push(node as T);
    if ("children" in node) for (const child of node.children) walk(child);
  };
  walk(tree);
  return found;
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors GitHub gives a file's headings (duplicates numbered the way GitHub numbers them). */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    const slugger = new GithubSlugger();
    anchors = new Set(collect<Heading>(parse(file), "heading").map((heading) => slugger.slug(toString(heading))));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** Every link in `file` that is not to another site, as written and as the file it names. */
function relativeLinks(file: string): { href: string; target: string; fragment: string | undefined }[] {
  return collect<Link>(parse(file), "link")
    .map((link) => link.url)
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href))
    .map((href) => {
      const [pathPart, fragment] = href.split("#", 2) as [string, string | undefined];
      const target = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
      return { href, target, fragment };
    });
}

const files = [path.join(root, "README.md"), path.join(root, "deploy/helm/svc/README.md"), ...markdownFiles(docsDir)];

describe("documentation links", () => {
  it.each(files.map((file) => [path.relative(root, file), file]))("every relative link in %s resolves", (_name, file) => {
    const dead: string[] = [];
    for (const { href, target, fragment } of relativeLinks(file)) {
      if (!existsSync(target)) {
        dead.push(`${href}: no such file`);
        continue;
      }
      if (fragment !== undefined && fragment !== "") {
        if (statSync(target).isDirectory() || !target.endsWith(".md")) dead.push(`${href}: a fragment into something that is not a Markdown file`);
        else if (!anchorsOf(target).has(fragment)) dead.push(`${href}: no heading with that anchor`);
      }
    }
    expect(dead).toEqual([]);
  });

  it("finds the links it checks (the parser sees the README's index of guides)", () => {
    const targets = relativeLinks(path.join(root, "README.md")).map(({ target }) => path.relative(root, target));
    for (const guide of ["api", "webhooks", "oauth", "meeting-room", "operations", "deploying", "configuration", "benchmarks"]) {
      expect(targets).toContain(`docs/${guide}.md`);
    }
  });

  it("the README stays a five-minute read: at most 250 lines", () => {
    expect(readFileSync(path.join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
  });
});

describe("decision records", () => {
  it("architecture.md links every record under docs/decisions/", () => {
    const records = readdirSync(path.join(docsDir, "decisions")).filter((name) => /^\d{4}-.*\.md$/.test(name));
    expect(records.length).toBeGreaterThan(0);
    const linked = new Set(relativeLinks(path.join(docsDir, "architecture.md")).map(({ target }) => path.relative(docsDir, target)));
    const unlisted = records.filter((name) => !linked.has(`decisions/${name}`));
    expect(unlisted).toEqual([]);
  });
});
