/**
 * The cases: a worktree (a real git repository), its `.claude` files and tasks file, maybe linked worktrees
 * with loops of their own, the time zone, the width piped commands are told (COLUMNS) and the statusline's
 * input. Hand-written edge cases first, then random ones; the same seed makes the same cases.
 */
import { eventLog } from "./events.ts";
import { DROPPABLE, ourState, REQUIRED, type Runner } from "./our-state.ts";
import { Rng } from "./rng.ts";
import { seedState } from "./seed-state.ts";
import { tasksFile } from "./tasks.ts";
import { NASTY, plain, text } from "./texts.ts";
import { OFFSETS_SHOWN, SEED_TIME_SHAPES, T0 } from "./times.ts";

export interface Case {
  name: string;
  /** The worktree folder's name (it shows in the output). */
  dir: string;
  /** Files of the worktree by relative path, placeholders and all (world.ts fills them); `.claude` is laid anew before every run. */
  files: Record<string, string>;
  /** Symbolic links to lay in `.claude` (relative path → target). */
  links?: Record<string, string>;
  /** A live runner of the binary under test is started, and the state names it. */
  ownRunner: boolean;
  linked: { name: string; files: Record<string, string> }[];
  /** Not a git repository at all. */
  bare?: boolean;
  tz: string;
  columns: number;
  statusline: string;
  /** Where the commands run, relative to the worktree (a subfolder, `.git`, a linked worktree); default its top. */
  at?: string;
  /** More environment (`__WT__`: the worktree's path): git's discovery variables. */
  env?: Record<string, string>;
  /** `git config` arguments run once the repository is made. */
  gitConfig?: string[][];
  /** Only the piped runs (a case that shows one value: the terminals add nothing). */
  pipedOnly?: boolean;
  /** More command lines to run piped (the arguments' edge cases: unknown options, help, bad values). */
  extra?: string[][];
}

/** What a user mistypes or tries: run in a few cases only (the output is about the arguments, not the loop). */
export const ARGUMENTS = [
  [],
  ["--help"],
  ["--version"],
  ["stauts"],
  ["help", "status"],
  ["status", "--help"],
  ["status", "-h"],
  ["status", "--bogus"],
  ["status", "extra"],
  ["status", "--json", "--json"],
  ["status", "--no-json"],
  ["status", "--json=false"],
  ["status", "--"],
  ["--json", "status"],
  ["history", "--runs", "--json"],
  ["history", "--JSON"],
  ["history", "--help"],
  ["log", "--iteration", "0"],
  ["log", "--iteration", "2"],
  ["log", "--iteration", "\u22121"],
  ["log", "--iteration"],
  ["log", "--story", "1"],
  ["log", "--story", "nope", "--iteration", "1"],
  ["log", "--run", "2026-11-21T10:00:00.000Z"],
  ["log", "--run", "bogus"],
  ["log", "--json", "--story", "1"],
  ["list", "--json", "x"],
  ["list", "--help"],
  ["statusline", "extra"],
];

const STATE = ".claude/loop-state.json";
const TZS = ["UTC", "UTC", "UTC", "America/Los_Angeles", "Asia/Kolkata", "Asia/Tokyo", "Pacific/Chatham"];
const STATUSLINE = [
  '{"workspace":{"current_dir":"__WT__"}}',
  '{"cwd":"__WT__/src"}',
  '{"workspace":{"current_dir":"__WT__"},"model":{"id":"x"},"session_id":"s"}',
  "",
  "not json",
  '{"workspace":{"current_dir":"/nonexistent/dir"}}',
  '{"workspace":{"current_dir":7}}',
];

const serialize = (r: Rng, s: unknown) =>
  r.weighted<() => string>([
    [6, () => `${JSON.stringify(s, null, 2)}\n`],
    [3, () => JSON.stringify(s)],
    [1, () => JSON.stringify(s, null, "\t")],
  ])();

function shuffleKeys(r: Rng, s: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(s);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  return Object.fromEntries(keys.map((k) => [k, s[k]]));
}

type Break = (r: Rng, s: Record<string, unknown>) => void;

/** Ways to make one field wrong: the state no longer matches the format (or names another worktree). */
const BREAKS: Break[] = [
  (r, s) => delete s[r.pick(REQUIRED)],
  (r, s) => (s.schema_version = r.pick([2, "1", 0])),
  (r, s) => (s.status = r.pick(["bogus", "RUNNING", null])),
  (_, s) => (s.current_iteration = -1),
  (_, s) => (s.total_tokens = 1.5),
  (_, s) => (s.started_at = "yesterday"),
  (_, s) => (s.worktree_path = "/somewhere/else"),
  (_, s) => (s.iterations = [{ n: 1 }]),
  (_, s) => (s.tokens = null),
  (_, s) => (s.lanes = [{ story_id: 1 }]),
  (_, s) => (s.max_iterations = 0),
  (_, s) => (s.notes = [{ text: 5 }]),
  (_, s) => (s.waiting = { reason: 1, since: "x", until: null }),
  (_, s) => (s.current_story = { id: 1 }),
  (_, s) => (s.github = { host: "github.com" }),
  (_, s) => (s.pull_request = { number: -1 }),
  (_, s) => (s.earlier_stories = [{ id: null }]),
  (_, s) => (s.max_cost_usd = 0),
  (_, s) => (s.paused_ms = -5),
  (_, s) => (s.parallel = 1.5),
  (_, s) => (s.updated_at = "2026-11-21T10:00:00"), // no zone
  (_, s) => (s.ended_at = "2026-11-21 10:00:00Z"),
  (_, s) => (s.total_cost_usd = -1),
  (_, s) => (s.agent = "cursor"),
  (_, s) => (s.planned_stories = [{ id: "1" }]),
  (_, s) => (s.stop_reason = "boredom"),
  ...(
    [
      (it) => (it.outcome = "bogus"),
      (it) => (it.tokens = { ...(it.tokens as object), input: -5 }),
      (it) => (it.n = 0),
      (it) => (it.started = "2026-11-21"),
      (it) => (it.cost_usd = -0.01),
      (it) => (it.commits = [1]),
      (it) => (it.kind = "story"),
      (it) => (it.review = { reviewer: "bob" }),
      (it) => delete it.log_file,
      (it) => (it.timed_out = false),
      (it) => (it.attempt = 0),
    ] as ((it: Record<string, unknown>) => void)[]
  ).map(
    (f): Break =>
      (r, s) => {
        // One iteration with one field wrong: the check must find it deep in the list (and zod name where).
        const its = s.iterations as Record<string, unknown>[];
        if (!its.length) return void (s.iterations = "none");
        f(its[r.int(0, its.length - 1)]!);
      },
  ),
];
const breakOne = (r: Rng, s: Record<string, unknown>) => r.pick(BREAKS)(r, s);

/** The same numbers in other spellings JSON allows (1.2345e4, -0, 5.0): a reader must take them alike. */
const numberForms = (r: Rng, json: string) =>
  json
    .replace(/(": )(\d{2,})(,?\n)/g, (m, a: string, n: string, b: string) =>
      r.chance(0.05) ? `${a}${n[0]}.${n.slice(1)}e${n.length - 1}${b}` : r.chance(0.02) ? `${a}${n}.0${b}` : m,
    )
    .replace(/(": )0(,?\n)/g, (m, a: string, b: string) => (r.chance(0.1) ? `${a}-0${b}` : m));

interface Options {
  iterations?: number;
  runner?: Runner;
  huge?: boolean;
  seed?: boolean;
  /** Changes made to the state object last. */
  edit?: (s: Record<string, unknown>, r: Rng) => void;
  /** The state file's text from the state object. */
  text?: (json: string, r: Rng) => string;
  tasks?: string;
  dir?: string;
}

/** A worktree with one generated loop (our format, or the seed's with `seed`). */
function loopCase(r: Rng, name: string, o: Options = {}): Case {
  const iterations =
    o.iterations ??
    r.weighted([
      [2, 0],
      [3, 1],
      [4, 5],
      [4, r.int(2, 40)],
      [1, 500],
      [0.15, 3000],
    ] as const);
  const runner =
    o.runner ??
    r.weighted<Runner>([
      [6, "none"],
      [2, "own"],
      [2, "dead"],
      [1, "foreign"],
      [1, "foreign-wrong-start"],
      [0.3, "pid1"],
    ]);
  const tasks = tasksFile(r);
  const files: Record<string, string> = { "tasks.md": o.tasks ?? tasks.text };
  let state: Record<string, unknown>;
  if (o.seed) {
    state = seedState(r, { iterations, runner });
    if (typeof state.change === "string" && r.chance(0.7)) files[`openspec/changes/${state.change}/tasks.md`] = tasksFile(r).text;
    if (r.chance(0.2)) delete files["tasks.md"];
  } else {
    state = ourState(r, { iterations, runner, stories: tasks.stories, huge: o.huge ?? r.chance(0.05) });
    if (r.chance(0.3)) for (const k of DROPPABLE) if (r.chance(0.4)) delete state[k];
    if (r.chance(0.1)) state.a_field_from_a_later_version = { text: text(r), n: 1 };
    if (r.chance(0.1)) state = shuffleKeys(r, state);
    if (r.chance(0.06)) breakOne(r, state);
    if (r.chance(0.6)) files[".claude/loop-events.jsonl"] = eventLog(r, state);
    if (r.chance(0.1)) {
      const earlier = ourState(r, { iterations: r.int(0, 5), runner: "none", stories: tasks.stories, huge: false });
      const key = String(earlier.started_at).replaceAll(":", "-");
      files[`.claude/loop-runs/${key}.json`] = JSON.stringify(earlier);
      if (r.chance(0.5)) files[`.claude/loop-runs/${key}.events.jsonl`] = eventLog(r, earlier);
    }
  }
  o.edit?.(state, r);
  let json = serialize(r, state);
  if (r.chance(0.1)) json = numberForms(r, json);
  files[STATE] = o.text ? o.text(json, r) : json;
  const linked = r.chance(0.1)
    ? Array.from({ length: r.int(1, 3) }, (_, i) => {
        const s = ourState(r, { iterations: r.int(0, 6), runner: r.pick(["none", "dead"] as const), stories: [], huge: false });
        return { name: `linked-${i + 1}${r.chance(0.3) ? " 空" : ""}`, files: (r.chance(0.8) ? { [STATE]: serialize(r, s) } : {}) as Record<string, string> };
      })
    : [];
  return {
    name,
    dir: o.dir ?? "wt",
    files,
    ownRunner: runner === "own",
    linked,
    tz: r.pick(TZS),
    columns: r.pick([40, 80, 200]),
    statusline: r.pick(STATUSLINE),
  };
}

/** The cases a user's bad day brings, each named for what it holds; their filler comes from the seed. */
export function edgeCases(seed: number): Case[] {
  const r = new Rng(seed ^ 0x5eed);
  const c = (name: string, o: Options = {}) => loopCase(r, name, o);
  const setStatus = (status: string) => (s: Record<string, unknown>) => void (s.status = status);
  const cases: Case[] = [
    { ...c("no-state"), files: { "tasks.md": "## 1. A\n- [ ] 1.1 a\n" }, extra: ARGUMENTS },
    { ...c("arguments", { iterations: 5, runner: "none", edit: setStatus("done") }), extra: ARGUMENTS },
    { ...c("not-a-repository"), bare: true, files: {}, linked: [] }, // no repository: no linked worktree either
    c("empty-state-file", { text: () => "" }),
    c("whitespace-state-file", { text: () => " \n" }),
    c("truncated-state", { iterations: 5, text: (j, r) => j.slice(0, r.int(1, j.length - 1)) }),
    c("corrupt-state", { text: () => "{not json" }),
    c("state-is-null", { text: () => "null" }),
    c("state-is-array", { text: () => "[]" }),
    c("state-is-number", { text: () => "42" }),
    c("state-with-bom", { text: (j) => `\uFEFF${j}` }),
    c("schema-version-2", { edit: (s) => void (s.schema_version = 2) }),
    c("other-worktrees-state", { edit: (s) => void (s.worktree_path = "/home/someone/other") }),
    c("missing-required-field", { edit: (s) => void delete s.tokens }),
    { ...c("claude-is-a-file"), files: { ".claude": "not a folder\n" } },
    { ...c("state-is-a-symlink", { iterations: 1 }), links: { [STATE]: "../tasks.md" } },
    c("done-no-iterations", { iterations: 0, runner: "none", edit: setStatus("done") }),
    c("starting", { iterations: 0, runner: "own", edit: setStatus("starting") }),
    c("running-own-runner", { iterations: 5, runner: "own", edit: setStatus("running") }),
    c("running-dead-runner", { iterations: 5, runner: "dead", edit: setStatus("running") }),
    c("running-foreign-live-pid", { iterations: 5, runner: "foreign", edit: setStatus("running") }),
    c("running-pid-1", { iterations: 2, runner: "pid1", edit: setStatus("running") }),
    c("paused-own-runner", {
      iterations: 3,
      runner: "own",
      edit: (s, r) => Object.assign(s, { status: "paused", paused_since: "2026-11-22T11:00:00.000Z", paused_ms: r.int(0, 99_999) }),
    }),
    c("paused-dead-runner", { iterations: 3, runner: "dead", edit: setStatus("paused") }),
    c("done-completion-pending-dead", {
      iterations: 4,
      runner: "dead",
      edit: (s) => Object.assign(s, { status: "done", completion_pending: true, completion: null }),
    }),
    c("done-completion-pending-own", {
      iterations: 4,
      runner: "own",
      edit: (s) => Object.assign(s, { status: "done", completion_pending: true, completion: null }),
    }),
    c("waiting-for-agent", {
      iterations: 2,
      runner: "own",
      edit: (s) =>
        Object.assign(s, { status: "running", waiting: { reason: "usage limit 🚧", since: "2026-11-22T11:30:00Z", until: "2026-11-22T18:45:00+05:30" } }),
    }),
    c("waiting-for-pull-request", {
      iterations: 2,
      runner: "own",
      edit: (s) =>
        Object.assign(s, {
          status: "running",
          waiting: { on: "pull_request", reason: "checks", since: "2026-11-22T11:30:00Z", until: "2026-11-22T12:05:00Z" },
        }),
    }),
    c("lanes-running", {
      iterations: 6,
      runner: "own",
      edit: (s, r) =>
        Object.assign(s, {
          status: "running",
          parallel: 3,
          lanes: ["opening", "running", "queued", "integrating", "closing"].map((st, i) => ({
            story_id: String(i + 1),
            story_title: r.pick(NASTY),
            iteration: 7 + i,
            attempt: 1,
            status: st,
            worktree: `/tmp/lane-${i}`,
            branch: `wt-loop/lane/x/${i + 1}-1`,
            base: "b".repeat(40),
            agent_pid: null,
            agent_started: null,
            started: "2026-11-22T11:00:00Z",
          })),
        }),
    }),
    c("iterations-500", { iterations: 500 }),
    c("iterations-3000", { iterations: 3000, runner: "none" }),
    c("tokens-near-2^53", { iterations: 5, huge: true }),
    c("tokens-sum-past-2^53", {
      iterations: 3,
      edit: (s) => {
        for (const it of s.iterations as Record<string, unknown>[]) it.tokens = { input: 2 ** 52, output: 2 ** 52, cache_read: 1, cache_creation: 0 };
        s.total_tokens = Number.MAX_SAFE_INTEGER;
      },
    }),
    c("nasty-texts", {
      iterations: NASTY.length,
      edit: (s) => {
        s.task = NASTY.join(" | ");
        (s.iterations as Record<string, unknown>[]).forEach((it, i) => Object.assign(it, { story_title: NASTY[i], reason: NASTY[(i + 3) % NASTY.length] }));
        s.notes = NASTY.slice(0, 5).map((t) => ({ text: t, added_at: "2026-11-22T11:59:00Z" }));
      },
      tasks: NASTY.map(
        (t, i) => `## ${i + 1}. ${t.replace(/[\r\n\u2028\u2029]/g, " ") || "x"}\n- [${i % 2 ? "x" : " "}] ${i + 1}.1 ${t.replace(/\n/g, " ")}\n`,
      ).join("\n"),
    }),
    c("very-long-fields", {
      iterations: 3,
      edit: (s) => {
        s.task = "long task ".repeat(2000);
        s.reason = "r".repeat(20_000);
        (s.iterations as Record<string, unknown>[]).forEach((it) => Object.assign(it, { story_title: "t".repeat(3000), reason: "word ".repeat(3000) }));
      },
    }),
    c("zero-and-negative-durations", {
      iterations: 4,
      edit: (s) => {
        const its = s.iterations as Record<string, unknown>[];
        its.forEach((it, i) => Object.assign(it, { started: "2026-11-21T10:00:00Z", ended: i % 2 ? "2026-11-21T09:00:00Z" : "2026-11-21T10:00:00Z" }));
        s.ended_at = "2026-11-21T09:00:00Z";
      },
    }),
    c("started-in-the-future", { iterations: 1, runner: "own", edit: (s) => Object.assign(s, { status: "running", started_at: "2026-11-23T00:00:00Z" }) }),
    c("all-optional-fields-missing", { iterations: 2, edit: (s) => DROPPABLE.forEach((k) => delete s[k]) }),
    c("unknown-fields-everywhere", {
      iterations: 2,
      edit: (s) => {
        s.zzz = [1, { a: "b" }];
        for (const it of s.iterations as Record<string, unknown>[]) it.extra_iteration_field = "?";
      },
    }),
    c("budget-stopped", {
      iterations: 5,
      edit: (s) =>
        Object.assign(s, { status: "stopped", stop_reason: "budget", max_cost_usd: 2.5, max_tokens: 1_000_000, spent_before: { cost_usd: 1.25, tokens: 10 } }),
    }),
    c("prerequisites-not-started", {
      iterations: 3,
      runner: "own",
      edit: setStatus("running"),
      tasks: "## 1. Base\n- [x] 1.1 a\n\n## 2. Next (after 1)\n- [ ] 2.1 b\n\n## 3. Later (after 1, 2)\n- [ ] 3.1 c\n\n## 4. Other (after 9)\n- [ ] 4.1 d\n",
    }),
    c("worktree-dir-with-spaces-and-cjk", { iterations: 3, dir: "my wt ünï 世界" }),
  ];
  // The seed's format: every shape of time, status and count.
  for (let i = 0; i < 8; i++) cases.push(c(`seed-format-${i + 1}`, { seed: true, iterations: [0, 1, 5, 5, 12, 30, 500, 3][i] }));
  cases.push(c("seed-format-running-own-terminal", { seed: true, iterations: 3, runner: "own", edit: setStatus("running") }));
  cases.push(c("seed-format-unknown-status", { seed: true, iterations: 2, edit: setStatus("crashed") }));
  cases.push(c("seed-format-with-schema-version-null", { seed: true, iterations: 2, edit: (s) => void (s.schema_version = null) }));
  cases.push(
    c("seed-format-openspec-change", {
      seed: true,
      iterations: 4,
      edit: (s) => Object.assign(s, { change: "add-login", started_at: "2026-11-21T10:00:00+0100" }),
    }),
  );
  for (const x of cases)
    if (x.name === "seed-format-openspec-change")
      x.files["openspec/changes/add-login/tasks.md"] = "## 1. Login\n- [x] 1.1 form\n\n## 2. Logout\n- [ ] 2.1 button\n";
  cases.push({ ...c("linked-worktrees", { iterations: 2 }), linked: linkedLoops(r) });
  // Where a command is run from, and what tells git where the worktree is.
  cases.push({ ...c("run-from-a-subfolder", { iterations: 3 }), at: "src" });
  cases.push({ ...c("run-inside-dot-git", { iterations: 3 }), at: ".git" });
  cases.push({ ...c("run-from-a-linked-worktree", { iterations: 1 }), linked: linkedLoops(r), at: "../feature-2" });
  cases.push({ ...c("git-dir-in-the-environment", { iterations: 2 }), env: { GIT_DIR: "__WT__/.git" }, at: "src" });
  cases.push({ ...c("git-ceiling-directories", { iterations: 2 }), env: { GIT_CEILING_DIRECTORIES: "__WT__" }, at: "src" });
  cases.push({ ...c("git-config-core-worktree", { iterations: 2 }), gitConfig: [["core.worktree", "__WT__/src"]] });
  cases.push({ ...c("git-config-bare", { iterations: 2 }), gitConfig: [["core.bare", "true"]] });
  cases.push({ ...c("git-config-include", { iterations: 2 }), gitConfig: [["include.path", "/dev/null"]] });
  // Every edge, in order rather than by chance: each shape of the seed's times, counts where their text changes shape,
  // and the rows history lays out alone (no verify, review or unavailable column) with every nasty reason.
  cases.push(
    c("seed-format-every-time-shape", {
      seed: true,
      iterations: SEED_TIME_SHAPES.length * 2,
      edit: (s) => {
        const its = SEED_TIME_SHAPES.flatMap(([, shape], k) =>
          OFFSETS_SHOWN.slice(0, 2).map((off, j) => ({
            n: k * 2 + j + 1,
            started: shape(T0 + k * 600_000, off),
            ended: shape(T0 + k * 600_000 + 90_000, off),
            done_check: j === 0,
            commits: [],
            tokens_used: 1000 * k,
          })),
        );
        Object.assign(s, { iterations: its, started_at: "2026-11-21T10:00:00+01:00", status: "stuck", worktree_name: "__WT_NAME__" });
      },
    }),
  );
  // Each way a state can be broken, once (piped only: the message is the same in a terminal).
  BREAKS.forEach((f, k) => cases.push({ ...c(`broken-${k + 1}`, { iterations: 6, edit: (s, r) => f(r, s) }), pipedOnly: true }));
  // Each shape as the loop's start (one small loop each, piped only: the start shows in the header and the elapsed time).
  SEED_TIME_SHAPES.forEach(([, shape], k) =>
    cases.push({
      ...c(`seed-format-start-shape-${k + 1}`, {
        seed: true,
        iterations: 1,
        edit: (s) => Object.assign(s, { started_at: shape(T0, OFFSETS_SHOWN[k % OFFSETS_SHOWN.length]!), status: "done", worktree_name: "__WT_NAME__" }),
      }),
      pipedOnly: true,
    }),
  );
  const COUNTS = [
    0,
    1,
    999,
    1000,
    9999,
    99_999,
    999_999,
    1_000_000,
    1_000_999,
    1_001_000,
    999_999_999,
    1_000_000_000,
    2 ** 31,
    2 ** 32,
    2 ** 52,
    Number.MAX_SAFE_INTEGER,
  ];
  cases.push(
    c("count-edges", {
      iterations: COUNTS.length,
      edit: (s) => {
        (s.iterations as Record<string, unknown>[]).forEach((it, i) => {
          const n = COUNTS[i]!;
          Object.assign(it, {
            tokens_used: n,
            tokens: { input: n, output: 0, cache_read: 0, cache_creation: 0 },
            cost_usd: [0, 0.004, 0.005, 0.01, 0.995, 1, 9.999, 1e6][i % 8],
          });
        });
        Object.assign(s, { total_tokens: COUNTS[i0(s)]!, total_cost_usd: 999.995 });
      },
    }),
  );
  cases.push(
    c("plain-rows-nasty-reasons", {
      iterations: NASTY.length,
      edit: (s) => {
        (s.iterations as Record<string, unknown>[]).forEach((it, i) => {
          for (const k of ["verify", "review", "unavailable", "kind", "audit"]) delete it[k];
          Object.assign(it, { reason: NASTY[i], story_title: NASTY[(i + 5) % NASTY.length] });
        });
      },
    }),
  );
  // macOS's way of telling a process (ps and lsof, no /proc): WT_LOOP_PROC=ps, as the tests switch it on Linux.
  cases.push({ ...c("ps-own-runner", { iterations: 2, runner: "own", edit: setStatus("running") }), env: { WT_LOOP_PROC: "ps" } });
  cases.push({ ...c("ps-dead-runner", { iterations: 2, runner: "dead", edit: setStatus("paused") }), env: { WT_LOOP_PROC: "ps" } });
  cases.push({ ...c("ps-foreign-runner", { iterations: 2, runner: "foreign", edit: setStatus("running") }), env: { WT_LOOP_PROC: "ps" } });
  return cases.map((x, i) => ({ ...x, name: `e${String(i + 1).padStart(2, "0")}-${x.name}` }));
}

/** An index into the count edges that depends on the state (so the loop's total differs across seeds). */
const i0 = (s: Record<string, unknown>) => (s.iterations as unknown[]).length % 16;

function linkedLoops(r: Rng): Case["linked"] {
  return ["running", "done", "stuck", "paused"].map((status, i) => {
    const s = ourState(r, { iterations: i * 2, runner: i % 2 ? "none" : "dead", stories: [], huge: false });
    s.status = status;
    return { name: `feature-${i + 1}${i === 2 ? " 枝" : ""}`, files: { [STATE]: JSON.stringify(s) } };
  });
}

/** `count` random cases: a loop of ours most often, the seed's format a quarter of the time. */
export function randomCases(seed: number, count: number): Case[] {
  const r = new Rng(seed);
  return Array.from({ length: count }, (_, i) => {
    const seedFormat = r.chance(0.25);
    const x = loopCase(r, `r${String(i + 1).padStart(3, "0")}-${seedFormat ? "seed" : "ours"}`, { seed: seedFormat });
    if (r.chance(0.03)) x.files[STATE] = (x.files[STATE] ?? "").slice(0, r.int(0, 200));
    if (r.chance(0.05)) x.dir = plain(r, 2).replace(/ /g, r.pick([" ", "-", "_"]));
    if (r.chance(0.1)) x.at = "src";
    if (r.chance(0.05)) x.env = { WT_LOOP_PROC: "ps" };
    return x;
  });
}
