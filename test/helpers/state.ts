import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo } from "./repo.ts";
import { SCHEMA_VERSION, ZERO_TOKENS, type Iteration, type Lane, type State } from "../../src/state/schema.ts";

export function sampleIteration(n: number, over: Partial<Iteration> = {}): Iteration {
  return {
    n,
    started: "2026-11-21T10:00:00.000Z",
    ended: "2026-11-21T10:01:05.000Z",
    done_check: false,
    commits: [],
    tokens_used: 1234567,
    story_id: "1",
    story_title: "Setup",
    attempt: 1,
    outcome: "failed",
    reason: "tests fail",
    progress: true,
    tokens: { input: 1000000, output: 200000, cache_read: 34567, cache_creation: 0 },
    cost_usd: 1.5,
    turns: 3,
    exit_code: 0,
    log_file: `/w/.claude/logs/iter-${String(n).padStart(3, "0")}.jsonl`,
    ...over,
  };
}

export function sampleState(over: Partial<State> = {}): State {
  return {
    schema_version: SCHEMA_VERSION,
    worktree_name: "wt",
    worktree_path: "/w",
    status: "done",
    current_iteration: 2,
    max_iterations: 30,
    started_at: "2026-11-21T10:00:00.000Z",
    updated_at: "2026-11-21T10:05:00.000Z",
    ended_at: "2026-11-21T10:05:00.000Z",
    task: "Do the thing",
    watch: false,
    iterations: [],
    done_criteria: "tasks",
    stall_threshold: 2,
    iteration_timeout_min: 45,
    total_tokens: 0,
    tokens: { ...ZERO_TOKENS },
    total_cost_usd: 0,
    max_retries: 3,
    command_timeout_sec: 30,
    agent: "claude",
    agent_cmd: null,
    model: null,
    checkpoint: "branch",
    on_complete: "keep",
    terminal: "inline",
    source: "tasks-file",
    change: null,
    tasks_file: "/w/tasks.md",
    stories_total: 2,
    stories_completed: 2,
    planned_stories: [
      { id: "1", title: "Setup" },
      { id: "2", title: "Build" },
    ],
    current_story: null,
    runner_pid: null,
    runner_started: null,
    agent_pid: null,
    checkpoint_branch: "ralph/wt",
    original_branch: "main",
    original_commit: "abc",
    checkpoint_sha: "def",
    completion: "keep",
    completion_message: null,
    completion_pending: false,
    reason: null,
    error: null,
    notify: null,
    max_wait_hours: 8,
    verify_timeout_min: 10,
    waiting: null,
    review: null,
    review_cmd: null,
    review_model: null,
    review_timeout_min: 15,
    pause_requested: false,
    paused_since: null,
    paused_ms: 0,
    notes: [],
    parallel: 1,
    lanes: [],
    earlier_stories: [],
    github: null,
    issue: null,
    issue_search: null,
    issue_sync: false,
    pull_request: null,
    audit: false,
    audit_agent: null,
    audit_cmd: null,
    audit_model: null,
    audit_rounds: 2,
    ...over,
  };
}

/** A lane of `--parallel` as the scheduler records it: running story `story`, its agent pid 4242. */
export function sampleLane(story: string, title: string, over: Partial<Lane> = {}): Lane {
  return {
    story_id: story,
    story_title: title,
    iteration: 1,
    attempt: 1,
    status: "running",
    worktree: `/w/.git/wt-loop/lanes/w-abc/${story}-1`,
    branch: `wt-loop/lane/w-abc/${story}-1`,
    base: "abc",
    agent_pid: 4242,
    agent_started: "1",
    started: "2026-11-21T10:07:30.000Z",
    ...over,
  };
}

/** A real repository whose worktree holds a finished loop's state of `iterations` sample iterations (for the commands that read it). */
export function repoWithLoop(iterations = 3): string {
  const repo = makeRepo();
  mkdirSync(join(repo, ".claude"));
  const its = Array.from({ length: iterations }, (_, i) => sampleIteration(i + 1));
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(sampleState({ worktree_path: repo, worktree_name: "repo", iterations: its })));
  return repo;
}
