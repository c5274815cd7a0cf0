/**
 * `--issue-sync` (docs/github.md): as stories are accepted, their boxes are ticked in the issue they came
 * from; when the loop reaches its final status, one comment with the receipt — edited, never repeated, by a
 * later run of the same loop (found again by its hidden marker, so a run after a kill -9 finds it too).
 * It watches the states the loop saves, as the notifier does, and never stops or fails the loop: a failure
 * is a warning on the loop's screen, and the next accepted story tries again.
 */
import { readFile } from "node:fs/promises";
import { errorMessage } from "../errors.ts";
import { receiptOf } from "../record/receipt.ts";
import { isFinal, type GitHubLink, type State } from "../state/schema.ts";
import { parseStories, type Story } from "../stories/story.ts";
import { ghApi, ghApiText, type GhContext, type RepoId } from "./gh.ts";
import { commentMarker, receiptComment, tickBody } from "./issue-text.ts";

export interface IssueSyncer {
  /** A state the loop saved. */
  saw(s: State): void;
  /** Resolves once everything queued was written (or failed and was said). */
  settle(): Promise<void>;
}

export function issueSyncer(state: State, deps: { ctx: GhContext; warn(message: string): void }): IssueSyncer {
  const link = state.github;
  if (!state.issue_sync || !link) return { saw: () => {}, settle: async () => {} };
  const repo: RepoId = { host: link.host, owner: link.repo.split("/")[0]!, name: link.repo.split("/")[1]! };
  let queue = Promise.resolve();
  const ticked = new Set<string>();
  let commented = false;
  const later = (what: string, job: () => Promise<void>) => {
    queue = queue.then(job).catch((err) => deps.warn(`--issue-sync could not ${what} on GitHub (the loop goes on): ${errorMessage(err)}`));
  };
  return {
    saw(s) {
      const accepted = receiptOf(s)
        .stories.filter((l) => l.complete && l.id !== null && !ticked.has(l.id))
        .map((l) => l.id!);
      if (accepted.length && s.tasks_file) {
        for (const id of accepted) ticked.add(id);
        const file = s.tasks_file;
        later("tick the boxes of story " + accepted.join(", "), async () =>
          tickAccepted(deps.ctx, repo, link, accepted, parseStories(await readFile(file, "utf8"))),
        );
      }
      if (isFinal(s.status) && !commented) {
        commented = true;
        later("write the receipt comment", () => writeReceipt(deps.ctx, repo, link, s));
      }
    },
    settle: () => queue,
  };
}

/** Each accepted story's tasks ticked in its issue: the one issue, or (`--issues`) the issue the story is. */
async function tickAccepted(ctx: GhContext, repo: RepoId, link: GitHubLink, ids: string[], stories: Story[]): Promise<void> {
  const byIssue = new Map<number, string[]>();
  for (const id of ids) {
    const story = stories.find((s) => s.id === id);
    const issue = link.search === null ? link.issues[0]?.number : link.issues.find((i) => String(i.number) === id)?.number;
    if (!story || issue === undefined) continue;
    byIssue.set(issue, [...(byIssue.get(issue) ?? []), ...story.tasks.map((t) => t.text)]);
  }
  for (const [n, texts] of byIssue) {
    const path = `repos/${repo.owner}/${repo.name}/issues/${n}`;
    // Read just before the write: an edit the author made meanwhile is kept.
    const now = await ghApi<{ body: string | null }>(ctx, repo, path, { what: `reads issue #${n}` });
    const body = tickBody(now.body ?? "", texts);
    if (body !== null) await ghApi(ctx, repo, path, { method: "PATCH", body: { body }, what: `ticks the boxes of issue #${n}` });
  }
}

/** One comment per issue and loop: the one with this loop's marker is edited, else one is made. */
async function writeReceipt(ctx: GhContext, repo: RepoId, link: GitHubLink, s: State): Promise<void> {
  const marker = commentMarker(s);
  const body = receiptComment(s);
  for (const { number: n } of link.issues) {
    const comments = `repos/${repo.owner}/${repo.name}/issues/${n}/comments`;
    const found = await ghApiText(ctx, repo, comments, {
      what: `reads the comments of issue #${n}`,
      jq: `.[] | select(.body | contains(${JSON.stringify(marker)})) | .id`,
    });
    const id = found.split("\n").find((l) => /^\d+$/.test(l.trim()));
    if (id)
      await ghApi(ctx, repo, `repos/${repo.owner}/${repo.name}/issues/comments/${id.trim()}`, {
        method: "PATCH",
        body: { body },
        what: `edits its comment on issue #${n}`,
      });
    else await ghApi(ctx, repo, comments, { method: "POST", body: { body }, what: `comments on issue #${n}` });
  }
}
