import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CommandError, exec, start } from "../../src/proc/spawn.ts";
import { readLines } from "../../src/proc/lines.ts";
import { tempDir } from "../helpers/repo.ts";
import { waitGone } from "../helpers/wait.ts";
import { isAlive, signalQuietly } from "../../src/proc/pid.ts";
import { RUN_TAG_VAR } from "../../src/proc/contain.ts";

describe("exec", () => {
  test("stdout, stdin, exit code", async () => {
    expect((await exec(["sh", "-c", "cat; echo err >&2"], { cwd: "/", input: "hello" })).stdout).toBe("hello");
    const r = await exec(["sh", "-c", "exit 3"], { cwd: "/", allowFailure: true });
    expect(r.code).toBe(3);
  });
  test("a non-zero exit throws a CommandError with stderr", async () => {
    const err = await exec(["sh", "-c", "echo nope >&2; exit 2"], { cwd: "/" }).catch((e) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect(err.code).toBe(2);
    expect(err.message).toContain("nope");
  });
  test("a missing program says it is not installed", async () => {
    const err = await Promise.resolve()
      .then(() => exec(["no-such-program-xyz"], { cwd: "/" }))
      .catch((e) => e);
    expect(err.reason).toBe("missing");
    expect(err.message).toContain("no-such-program-xyz is not installed");
  });
  test("a timeout kills the whole process group, grandchildren included", async () => {
    const d = tempDir();
    const pidFile = join(d, "pid");
    const err = await exec(["sh", "-c", `sleep 300 & echo $! > ${pidFile}; wait`], { cwd: d, timeoutMs: 300 }).catch((e) => e);
    expect(err.reason).toBe("timeout");
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitGone("the grandchild", pid, 5000);
  });
  test("an abort signal stops the command", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await exec(["sleep", "30"], { cwd: "/", signal: ac.signal }).catch((e) => e);
    expect(err.reason).toBe("aborted");
  });
  test("a leader that exits leaves no background child behind", async () => {
    const d = tempDir();
    const pidFile = join(d, "pid");
    const run = start(["sh", "-c", `sleep 300 & echo $! > ${pidFile}`], { cwd: d });
    expect((await run.done).code).toBe(0);
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitGone("the background child", pid, 5000);
  });
});

describe("a process that leaves the group and keeps our pipes", () => {
  // A `setsid` grandchild of an uncontained command (or any escapee where there is no /proc) holds
  // the command's stdout open as long as it lives: exec waits for the command, not for it.
  const strayLine = (pidFile: string) =>
    `(setsid sh -c 'echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; exec sleep 60' &); while [ ! -s ${pidFile} ]; do sleep 0.05; done; echo last words`;

  test("uncontained: exec returns with the command's output once it exits; the stray is left (ended here by the test)", async () => {
    const d = tempDir();
    const pidFile = join(d, "pid");
    const result = await Promise.race([exec(["sh", "-c", strayLine(pidFile)], { cwd: d }), Bun.sleep(30_000).then(() => "still waiting" as const)]);
    const pid = Number(readFileSync(pidFile, "utf8"));
    try {
      expect(result).toMatchObject({ code: 0, stdout: "last words" });
      expect(isAlive(pid)).toBe(true); // not ours to end: nothing said it belongs to the command
    } finally {
      signalQuietly(pid, "SIGKILL");
    }
  }, 60_000);

  test("contained (the run's tag in its environment): it is ended with the command", async () => {
    const d = tempDir();
    const pidFile = join(d, "pid");
    const tag = `test-${process.pid}-${Date.now()}`;
    const result = await exec(["sh", "-c", strayLine(pidFile)], { cwd: d, env: { ...process.env, [RUN_TAG_VAR]: tag }, contain: { tag } });
    expect(result.stdout).toBe("last words");
    await waitGone("the contained stray", Number(readFileSync(pidFile, "utf8")));
  }, 60_000);
});

describe("the agent's process group", () => {
  test("with output to a file, a leftover that ignores SIGTERM is still killed after the leader exits", async () => {
    const d = tempDir();
    const pidFile = join(d, "pid");
    // `trap "" TERM` makes the shell ignore SIGTERM, and the ignored disposition survives into sleep.
    // The leader waits until the trap is set, or the group's SIGTERM could win the race.
    const child = `sh -c 'trap "" TERM; echo $$ > ${pidFile}; exec sleep 300' &`;
    const run = start(["sh", "-c", `${child} while [ ! -s ${pidFile} ]; do sleep 0.05; done; echo out`], {
      cwd: d,
      stdoutFile: join(d, "out.log"),
      stderrFile: join(d, "err.log"),
      onStdout: () => {},
    });
    expect((await run.done).code).toBe(0);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitGone("the leftover that ignores SIGTERM", pid);
    expect(readFileSync(join(d, "out.log"), "utf8")).toBe("out\n");
  });
});

describe("readLines", () => {
  const stream = (chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
        c.close();
      },
    });
  test("lines split across chunks, CRLF, a last line without newline, multibyte characters split", async () => {
    const euro = new TextEncoder().encode("€");
    const lines: string[] = [];
    const s = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("ab"));
        c.enqueue(new TextEncoder().encode("c\r\nd"));
        c.enqueue(euro.slice(0, 1));
        c.enqueue(euro.slice(1));
        c.enqueue(new TextEncoder().encode("\n\nlast"));
        c.close();
      },
    });
    await readLines(s, (l) => lines.push(l));
    expect(lines).toEqual(["abc", "d€", "", "last"]);
  });
  test("many lines in one chunk", async () => {
    const lines: string[] = [];
    await readLines(stream([Array.from({ length: 1000 }, (_, i) => `l${i}`).join("\n") + "\n"]), (l) => lines.push(l));
    expect(lines).toHaveLength(1000);
    expect(lines[999]).toBe("l999");
  });
});
