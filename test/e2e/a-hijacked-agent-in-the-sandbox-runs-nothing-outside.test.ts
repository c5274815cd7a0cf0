// `--sandbox` against an agent an attacker controls (issue 29): a scripted `--agent command` does what a
// hijacked agent would — connect to the user's tmux, SSH agent and other control sockets, read secrets from
// its environment, plant a `commondir` that turns wt-loop's (and the user's) next git into a command runner,
// repoint sibling worktrees and lanes, and, as root with the network open, take the mounts apart. Each
// planted command would touch a marker outside every worktree: none may appear, no file outside the worktree
// may change, and the loop still completes its stories. In a main worktree, a linked worktree and under
// --parallel 2; as root, and as an unprivileged user (setpriv) where it differs.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, readJson, wtLoop } from "../helpers/cli.ts";
import { git, makeRepo, scratchDir, tempDir } from "../helpers/repo.ts";
import { openSandbox, type Sandbox } from "../../src/proc/sandbox.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, 60_000);

/** A unix socket server standing for the user's SSH agent, a docker.sock…: counts who connected. */
function unixServer(path: string) {
  let connections = 0;
  const s = Bun.listen({ unix: path, socket: { open: (sock) => void (connections++, sock.end()), data() {} } });
  cleanups.push(() => s.stop(true));
  return { connections: () => connections };
}

/** A TCP service on 127.0.0.1 that only another loop was allowed to reach. */
function tcpServer() {
  let connections = 0;
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void (connections++, s.end()), data() {} } });
  cleanups.push(() => l.stop(true));
  return { port: l.port, connections: () => connections };
}

/** A tmux server of the user's (its own socket), as when the loop runs in a detached tmux. */
function tmuxServer(dir: string) {
  const sock = join(dir, "tmux.sock");
  const r = Bun.spawnSync(["tmux", "-S", sock, "new-session", "-d", "-s", "user", "sleep 600"]);
  if (r.exitCode !== 0) throw new Error(`tmux: ${r.stderr}`);
  cleanups.push(() => Bun.spawnSync(["tmux", "-S", sock, "kill-server"]));
  return sock;
}

/** The agent: a real program run through `sh -c`, kept outside /tmp (the sandbox's /tmp is its own). */
function agentScript(body: string): string {
  const dir = scratchDir("hijacked-agent-");
  const path = join(dir, "agent.sh");
  writeFileSync(path, `#!/bin/sh\nexec 2>&1\nprompt=$(cat)\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * What plants a `commondir` at $1 pointing at a copy of the repository (in the worktree, where the agent may
 * write) whose config runs `touch $MARK/<$2>` as core.fsmonitor: whatever git then opens that git dir runs it.
 */
const PLANT = (mark: string) => `plant() {
  common=$(git rev-parse --path-format=absolute --git-common-dir)
  rm -rf "$PWD/.evil-$2" && mkdir "$PWD/.evil-$2" && cp -r "$common/objects" "$common/refs" "$common/HEAD" "$common/config" "$PWD/.evil-$2/"
  git config -f "$PWD/.evil-$2/config" core.fsmonitor "touch ${mark}/$2; false"
  echo "$PWD/.evil-$2" > "$1" && echo "PLANTED $1"
}`;

const TICK = `S=$(printf '%s\\n' "$prompt" | sed -n 's/^## Your story: \\([^.]*\\)\\. .*/\\1/p' | head -n 1)
[ -n "$S" ] && awk -v id="## $S." 'index($0, id) == 1 { on = 1 } /^## / && index($0, id) != 1 { on = 0 } { if (on) sub(/- \\[ \\]/, "- [x]"); print }' tasks.md > tasks.tmp && mv tasks.tmp tasks.md
echo "story $S" > "s$S.txt"
echo '<promise>COMPLETE</promise>'`;

const TASKS = "# Tasks\n\n## 1. One\n- [ ] 1.1 do\n\n## 2. Two\n- [ ] 2.1 do\n";

/** The user's own `git status` after the loop, in each checkout: a planted fsmonitor would run here. */
function userGitStatus(...dirs: string[]) {
  for (const d of dirs) Bun.spawnSync(["git", "status", "--porcelain"], { cwd: d, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
}

function startLoop(repo: string, agent: string, more: string[], env: Record<string, string | undefined>, uid?: number) {
  const args = ["start", "--plain", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", agent, "--sandbox", ...more];
  if (uid === undefined) return wtLoop(args, { cwd: repo, env, timeoutMs: 240_000 });
  return (async () => {
    const p = Bun.spawn(["setpriv", "--reuid", String(uid), "--regid", String(uid), "--clear-groups", process.execPath, CLI, ...args], {
      cwd: repo,
      env: baseEnv(env),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  })();
}

const NOBODY = 65534;
/** Hands a folder (and all in it) to `uid`, for the run as an unprivileged user. */
function giveTo(uid: number, ...dirs: string[]) {
  for (const d of dirs) Bun.spawnSync(["chown", "-R", `${uid}:${uid}`, d]);
}

describe("a hijacked agent under --sandbox", () => {
  for (const as of ["root", "an unprivileged user"] as const)
    test(`main worktree, as ${as}: sockets, the environment and a planted .git/commondir run nothing outside`, async () => {
      const uid = as === "root" ? undefined : NOBODY;
      const repo = makeRepo({ "tasks.md": TASKS });
      const mark = scratchDir("marks-");
      const home = tempDir("hijack-home-");
      mkdirSync(join(home, ".ssh"));
      writeFileSync(join(home, ".ssh/id_test"), "SECRET KEY\n");
      const sockets = scratchDir("sockets-"); // a socket outside /tmp and /run: a docker.sock in the user's folders
      const tmuxSock = tmuxServer(tempDir("tmux-"));
      const sshDir = tempDir("ssh-agent-");
      const ssh = unixServer(join(sshDir, "agent.1"));
      const docker = unixServer(join(sockets, "docker.sock"));
      // Another loop's sandbox, allowed a service this one was not: its forward's socket is under the temp folder.
      const other = tcpServer();
      const otherBox: Sandbox = await openSandbox(
        {
          write: [],
          readOnly: [],
          denyRead: [],
          env: [],
          network: "filtered",
          allow: [{ host: "127.0.0.1", port: other.port }],
        },
        "another loop's run",
      );
      cleanups.push(() => otherBox.close());
      const agent = agentScript(`${PLANT(mark)}
tmux run-shell "touch ${mark}/tmux-env"
tmux -S ${tmuxSock} run-shell "touch ${mark}/tmux-path"
echo ping | socat -T 2 - UNIX-CONNECT:"$SSH_AUTH_SOCK"
echo ping | socat -T 2 - UNIX-CONNECT:${join(sshDir, "agent.1")}
echo ping | socat -T 2 - UNIX-CONNECT:${join(sockets, "docker.sock")}
for s in ${otherBox.dir}/net/*.sock; do echo ping | socat -T 2 - UNIX-CONNECT:"$s"; done
env > env.txt
plant .git/commondir commondir
${TICK}`);
      if (uid !== undefined) {
        // Its own folders, sockets it may connect to (so only the sandbox stands in the way), markers it may write.
        giveTo(uid, join(repo, ".."), home, mark, sshDir, sockets, baseEnv().XDG_CONFIG_HOME!);
        for (const s of [join(sshDir, "agent.1"), join(sockets, "docker.sock")]) chmodSync(s, 0o666);
      }
      const r = await startLoop(
        repo,
        agent,
        ["--parallel", "1", "--sandbox-env", "PASSED_ON"],
        {
          HOME: home,
          TMUX: `${tmuxSock},1,0`,
          SSH_AUTH_SOCK: join(sshDir, "agent.1"),
          DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(sockets, "docker.sock")}`,
          GITHUB_TOKEN: "ghp_secret",
          AWS_SECRET_ACCESS_KEY: "aws-secret",
          PASSED_ON: "yes",
        },
        uid,
      );
      userGitStatus(repo);
      const state = readJson(join(repo, ".claude/loop-state.json"));
      expect(readdirSync(mark)).toEqual([]);
      expect([r.code, state.status, r.stderr]).toEqual([0, "done", ""]);
      expect([ssh.connections(), docker.connections(), other.connections()]).toEqual([0, 0, 0]);
      expect(existsSync(join(repo, ".git/commondir"))).toBe(false);
      const env = readFileSync(join(repo, "env.txt"), "utf8");
      for (const name of ["TMUX", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"]) expect(env).not.toContain(`${name}=`);
      expect(env).toContain("PASSED_ON=yes");
      expect(env).toContain(`HOME=${home}`);
      for (const s of ["1", "2"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    }, 300_000);

  test("linked worktree: the main checkout and a sibling worktree cannot be repointed", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const wt = join(repo, "..", "feature");
    const sibling = join(repo, "..", "sibling");
    git(repo, "worktree", "add", "-q", "-b", "feature", wt);
    git(repo, "worktree", "add", "-q", "-b", "sibling", sibling);
    // Per-worktree config on: a linked worktree's git dir may hold a config.worktree that git reads.
    git(repo, "config", "extensions.worktreeConfig", "true");
    const mark = scratchDir("marks-");
    const agent = agentScript(`${PLANT(mark)}
common=$(git rev-parse --path-format=absolute --git-common-dir)
plant "$common/commondir" main
plant "$common/worktrees/sibling/commondir" sibling
printf '[core]\n\tfsmonitor = touch ${mark}/own; false\n' > "$(git rev-parse --absolute-git-dir)/config.worktree"
echo '[core]' >> "$common/config"; echo 'fsmonitor = touch ${mark}/config' >> "$common/config"
${TICK}`);
    const r = await startLoop(wt, agent, ["--parallel", "1"], {});
    userGitStatus(repo, wt, sibling);
    expect(readdirSync(mark)).toEqual([]);
    expect(existsSync(join(repo, ".git/commondir"))).toBe(false);
    expect(readFileSync(join(repo, ".git/worktrees/sibling/commondir"), "utf8")).toBe("../..\n");
    expect(readFileSync(join(repo, ".git/worktrees/feature/config.worktree"), "utf8")).toBe("");
    expect([r.code, readJson(join(wt, ".claude/loop-state.json")).status, r.stderr]).toEqual([0, "done", ""]);
    for (const s of ["1", "2"]) expect(readFileSync(join(wt, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
  }, 300_000);

  test("--parallel 2: no lane repoints its own git dir, the repository's or the main checkout's", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const mark = scratchDir("marks-");
    const agent = agentScript(`${PLANT(mark)}
common=$(git rev-parse --path-format=absolute --git-common-dir)
plant "$(git rev-parse --absolute-git-dir)/commondir" lane-$$
plant "$common/commondir" main-$$
${TICK}`);
    const r = await startLoop(repo, agent, ["--parallel", "2"], {});
    userGitStatus(repo);
    expect(readdirSync(mark)).toEqual([]);
    expect(existsSync(join(repo, ".git/commondir"))).toBe(false);
    expect([r.code, readJson(join(repo, ".claude/loop-state.json")).status, r.stderr]).toEqual([0, "done", ""]);
    for (const s of ["1", "2"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
  }, 300_000);

  test("--sandbox-network open as root: no capability to take the mounts apart", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const mark = scratchDir("marks-");
    const home = tempDir("hijack-home-");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh/id_test"), "SECRET KEY\n");
    const agent = agentScript(`umount "$HOME/.ssh"; cat "$HOME/.ssh/id_test" >> stolen.txt
mount -o remount,rw / && touch ${mark}/remounted
mount -t tmpfs none "$HOME" && echo MOUNTED
${TICK}`);
    const r = await startLoop(repo, agent, ["--parallel", "1", "--sandbox-network", "open"], { HOME: home });
    const state = readJson(join(repo, ".claude/loop-state.json"));
    expect([r.code, state.status, r.stderr]).toEqual([0, "done", ""]);
    expect(readdirSync(mark)).toEqual([]);
    expect(readFileSync(join(repo, "stolen.txt"), "utf8")).toBe("");
    expect(readFileSync(state.iterations[0].log_file, "utf8")).not.toContain("MOUNTED");
  }, 300_000);
});
