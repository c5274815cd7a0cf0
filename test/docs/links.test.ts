// The README, CONTRIBUTING.md and docs/ point at each other, at headings and at files of the
// repository; modules move, so these tests fail when a link or a named file no longer leads anywhere.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "../helpers/cli.ts";

const pages = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true })
    .map((f) => `docs/${f}`)
    .filter((f) => f.endsWith(".md")),
];
const withoutCode = (md: string) => md.replace(/```[\s\S]*?```/g, "");

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");
const anchors = (page: string) => new Set([...readFileSync(join(ROOT, page), "utf8").matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1]!)));

describe("links in the docs", () => {
  test("every relative link leads to a file, and every #anchor to a heading of it", () => {
    const broken: string[] = [];
    for (const page of pages)
      for (const [, target] of withoutCode(readFileSync(join(ROOT, page), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split("#");
        const file = path ? relative(ROOT, normalize(join(ROOT, dirname(page), path))) : page;
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no file ${file})`);
        else if (anchor && !anchors(file).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    expect(broken).toEqual([]);
  });

  test("every file of the repository the docs name in backticks exists", () => {
    const missing: string[] = [];
    for (const page of pages)
      for (const [, path] of readFileSync(join(ROOT, page), "utf8").matchAll(/`((?:src|test|scripts|schema)\/[^`\s*<>]+)`/g))
        if (!existsSync(join(ROOT, path!))) missing.push(`${page}: ${path}`);
    expect(missing).toEqual([]);
  });

  test("nothing points readers at documents outside the repository", () => {
    const citing = pages.filter((page) => /SPEC(\.md| §)|planning repository/.test(readFileSync(join(ROOT, page), "utf8")));
    expect(citing).toEqual([]);
  });
});
