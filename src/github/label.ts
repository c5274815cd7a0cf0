/** How a loop's GitHub issues are named on screen and in `status` (docs/github.md). */
import type { GitHubLink } from "../state/schema.ts";

/** `#7 Add a login page (https://…/issues/7)`, or `2 issues of acme/widgets matching 'label:x': #3, #12`. */
export function issueLine(g: GitHubLink): string {
  if (g.search === null && g.issues.length === 1) {
    const i = g.issues[0]!;
    return `#${i.number} ${i.title} (${i.url})`;
  }
  const n = g.issues.length;
  return `${n} issue${n === 1 ? "" : "s"} of ${g.repo} matching '${g.search ?? ""}': ${g.issues.map((i) => `#${i.number}`).join(", ")}`;
}

/** A few characters for a header: `issue #7`, `issues #3 #12`, `5 issues`. */
export function issueShort(g: GitHubLink): string {
  if (g.issues.length === 1) return `issue #${g.issues[0]!.number}`;
  const all = `issues ${g.issues.map((i) => `#${i.number}`).join(" ")}`;
  return all.length <= 24 ? all : `${g.issues.length} issues`;
}
