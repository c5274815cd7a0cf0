import { describe, expect, test } from "bun:test";
import { parseIssueRef, repoFromUrl } from "../../src/github/issues.ts";
import { redact } from "../../src/github/gh.ts";

describe("an issue as a user writes it", () => {
  test.each([
    ["123", { repo: null, number: 123 }],
    ["#5", { repo: null, number: 5 }],
    ["acme/widgets#42", { repo: { host: null, owner: "acme", name: "widgets" }, number: 42 }],
    ["ghe.example.com/acme/widgets#42", { repo: { host: "ghe.example.com", owner: "acme", name: "widgets" }, number: 42 }],
    ["https://github.com/acme/widgets/issues/42", { repo: { host: "github.com", owner: "acme", name: "widgets" }, number: 42 }],
    ["https://localhost:8443/acme/wid.gets/issues/9#issuecomment-1", { repo: { host: "localhost:8443", owner: "acme", name: "wid.gets" }, number: 9 }],
  ])("%s", (text, ref) => expect(parseIssueRef(text)).toEqual(ref as any));

  test("0 is no issue number", () => expect(() => parseIssueRef("0")).toThrow(/whole number from 1/));
  test.each(["", "abc", "acme/widgets", "https://github.com/acme/widgets", "acme#1"])("%p is refused, naming the forms", (text) => {
    expect(() => parseIssueRef(text)).toThrow(/give an issue number \(123\), owner\/repo#123, or the issue's URL/);
  });

  test("a repository's address", () => {
    expect(repoFromUrl("https://localhost:1/acme/widgets")).toEqual({ host: "localhost:1", owner: "acme", name: "widgets" });
    expect(repoFromUrl("https://github.com/acme")).toBeNull();
  });

  test("a token never passes through a message", () => {
    expect(redact("bad ghp_abcdefghijklmnopqrstuvwxyz0123 and secret-value", { GH_TOKEN: "secret-value" })).toBe("bad *** and ***");
  });
});
