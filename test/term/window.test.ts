import { describe, expect, test } from "bun:test";
import { chooseLauncher, type LaunchEnv } from "../../src/term/window.ts";

const CMD = ["/opt/wt-loop", "run"];
const env = (over: Partial<LaunchEnv> & { have?: string[] }): LaunchEnv => ({
  terminal: "auto",
  env: {},
  platform: "linux",
  cwd: "/w/my tree",
  cmd: CMD,
  name: "wt-loop-tree",
  which: (b) => ((over.have ?? []).includes(b) ? `/usr/bin/${b}` : null),
  ...over,
});

describe("chooseLauncher: the exact command line for each environment", () => {
  test.each([
    [
      "inside tmux → new window",
      { env: { TMUX: "/tmp/tmux-0/default,1,0", DISPLAY: ":0" }, have: ["tmux", "xterm"] },
      ["tmux", "new-window", "-n", "wt-loop-tree", "-c", "/w/my tree", ...CMD],
    ],
    [
      "no display → detached tmux session",
      { env: {}, have: ["tmux", "xterm"] },
      ["tmux", "new-session", "-d", "-s", "wt-loop-tree", "-c", "/w/my tree", ...CMD],
    ],
    [
      "kitty (the terminal we are in)",
      { env: { DISPLAY: ":0", KITTY_WINDOW_ID: "1" }, have: ["kitty", "xterm"] },
      ["kitty", "--directory", "/w/my tree", ...CMD],
    ],
    ["wezterm", { env: { DISPLAY: ":0", WEZTERM_PANE: "3" }, have: ["wezterm", "xterm"] }, ["wezterm", "start", "--cwd", "/w/my tree", "--", ...CMD]],
    ["alacritty", { env: { DISPLAY: ":0", ALACRITTY_WINDOW_ID: "9" }, have: ["alacritty"] }, ["alacritty", "--working-directory", "/w/my tree", "-e", ...CMD]],
    ["konsole", { env: { DISPLAY: ":0", KONSOLE_VERSION: "230401" }, have: ["konsole"] }, ["konsole", "--workdir", "/w/my tree", "-e", ...CMD]],
    [
      "gnome-terminal via VTE_VERSION",
      { env: { DISPLAY: ":0", VTE_VERSION: "7006" }, have: ["gnome-terminal", "x-terminal-emulator"] },
      ["gnome-terminal", "--working-directory=/w/my tree", "--", ...CMD],
    ],
    ["foot on Wayland", { env: { WAYLAND_DISPLAY: "wayland-0", TERM: "foot" }, have: ["foot"] }, ["foot", "--working-directory=/w/my tree", ...CMD]],
    [
      "$TERMINAL before the fallbacks",
      { env: { DISPLAY: ":0", TERMINAL: "st" }, have: ["st", "xterm"] },
      ["st", "-e", "sh", "-c", "cd '/w/my tree' && exec '/opt/wt-loop' 'run'"],
    ],
    [
      "x-terminal-emulator before xterm",
      { env: { DISPLAY: ":0" }, have: ["x-terminal-emulator", "xterm"] },
      ["x-terminal-emulator", "-e", "sh", "-c", "cd '/w/my tree' && exec '/opt/wt-loop' 'run'"],
    ],
    ["xterm last", { env: { DISPLAY: ":0" }, have: ["xterm"] }, ["xterm", "-e", "sh", "-c", "cd '/w/my tree' && exec '/opt/wt-loop' 'run'"]],
    [
      "--terminal picks one",
      { terminal: "xterm", env: { TMUX: "x", DISPLAY: ":0" }, have: ["xterm", "tmux"] },
      ["xterm", "-e", "sh", "-c", "cd '/w/my tree' && exec '/opt/wt-loop' 'run'"],
    ],
  ] as [string, Partial<LaunchEnv> & { have?: string[] }, string[]][])("%s", (_, over, argv) => {
    expect(chooseLauncher(env(over))?.argv).toEqual(argv);
  });

  test("macOS: iTerm2 and Terminal.app through osascript, with the path quoted for AppleScript", () => {
    const iterm = chooseLauncher(env({ platform: "darwin", env: { TERM_PROGRAM: "iTerm.app" }, have: ["osascript"] }))!;
    expect(iterm.argv).toEqual([
      "osascript",
      "-e",
      'tell application "iTerm2"',
      "-e",
      "set w to (create window with default profile)",
      "-e",
      `tell current session of w to write text "cd '/w/my tree' && exec '/opt/wt-loop' 'run'"`,
      "-e",
      "end tell",
    ]);
    const app = chooseLauncher(env({ platform: "darwin", env: { TERM_PROGRAM: "Apple_Terminal" }, have: ["osascript"] }))!;
    expect(app.argv).toContain(`do script "cd '/w/my tree' && exec '/opt/wt-loop' 'run'"`);
  });

  test("a single quote in the path survives the shell line", () => {
    const l = chooseLauncher(env({ cwd: "/w/it's", env: { DISPLAY: ":0" }, have: ["xterm"] }))!;
    expect(l.argv.at(-1)).toBe(`cd '/w/it'\\''s' && exec '/opt/wt-loop' 'run'`);
  });

  test("GUI terminals are detached from wt-loop; tmux is not (its server owns the window)", () => {
    expect(chooseLauncher(env({ env: { DISPLAY: ":0" }, have: ["xterm"] }))!.background).toBe(true);
    expect(chooseLauncher(env({ env: { TMUX: "x" }, have: ["tmux"] }))!.background).toBe(false);
  });

  test("the detached tmux session tells the user how to attach", () => {
    expect(chooseLauncher(env({ have: ["tmux"] }))!.hint).toContain("tmux attach -t wt-loop-tree");
  });

  test("nothing usable → null (start then suggests --terminal inline)", () => {
    expect(chooseLauncher(env({ env: {}, have: [] }))).toBeNull();
    expect(chooseLauncher(env({ env: { DISPLAY: ":0" }, have: [] }))).toBeNull();
    expect(chooseLauncher(env({ terminal: "kitty", have: ["xterm"] }))).toBeNull();
  });
});
