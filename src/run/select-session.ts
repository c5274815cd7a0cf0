/**
 * `wt-loop` with no command, on a terminal, inside a worktree: the selection screen, the preview of
 * a change, and from there a loop run here (R), started in a new window (S) or followed (Enter on a
 * loop) — all on one open screen, coming back to the selection when the loop screen is left.
 */
import type { CliRenderer } from "@opentui/core";
import { errorMessage, UserError } from "../errors.ts";
import { writeStarting } from "../setup/prepare.ts";
import { exec } from "../proc/spawn.ts";
import type { Action, ScreenModel } from "../screen/frame.ts";
import { openScreen, preloadScreen } from "../screen/load.ts";
import { PreviewModel } from "../screen/preview-model.ts";
import { attachScreen, type Screen } from "../screen/renderer.ts";
import { loadLoops, loadPreview, loadSelection, type WorkItem } from "../screen/select-data.ts";
import { SelectModel } from "../screen/select-model.ts";
import { selfArgv } from "../proc/self.ts";
import { printError } from "../term/print.ts";
import { keepRunningWhenStdoutCloses } from "../term/stdout.ts";
import { restoreWindowName } from "../term/title.ts";
import { terminalGone } from "../term/hangup.ts";
import { resolveWorktree, type Worktree } from "../worktree/worktree.ts";
import { prepareFromFlags } from "../setup/from-flags.ts";
import { layerOptions } from "../setup/config.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";

const REFRESH_MS = 2000;

/** What of the loops changes the work: which runs, and how each stands. */
const loopsKey = (loops: { worktree: string; loop?: { status: string; runner_alive: boolean } | null }[]) =>
  loops.map((l) => `${l.worktree}:${l.loop?.status ?? "-"}:${l.loop?.runner_alive ?? "-"}`).join("|");
const START_TIMEOUT_MS = 120_000;

/** The exit code, or null when help is due instead (outside a worktree, or the screen could not open). */
export async function selectionEntry(): Promise<number | null> {
  let wt: Worktree;
  try {
    wt = await resolveWorktree();
  } catch (err) {
    if (err instanceof UserError) return null;
    throw err;
  }
  preloadScreen(); // the library loads while the work is read
  const select = new SelectModel(await loadSelection(wt));
  // The selection on the renderer before the terminal is set up: the first frame the library draws is its own,
  // not a blank one (screen/load.ts). Its key and signal handlers come before the set-up too (they only wait);
  // its title after (Session.run): the library refuses it before the set-up, and the frame need not wait for it.
  const opened: { session?: Session } = {};
  // The help follows when the screen cannot start, not the loop's line stream.
  const notice = (line: string) => printError(line.replace(/showing the loop as lines instead\..*$/, "here is the help instead."));
  const renderer = await openScreen(notice, (r) => void (opened.session = new Session(r, wt, select)));
  if (!renderer || !opened.session) {
    opened.session?.end(); // its timer and signal handlers, if the set-up failed after it was attached
    return null;
  }
  try {
    return await opened.session.run();
  } finally {
    renderer.destroy();
    await restoreWindowName();
  }
}

class Session {
  private screen: Screen | null = null;
  private current: ScreenModel;
  private busy = false;
  private ended: number | null = null;
  private resolve: (code: number) => void = () => {};
  private timer: Timer | null = null;
  // The selection's own: while a loop screen is shown, SIGTERM is the loop's (it stops the loop or leaves it).
  private onTerm = () => this.finish(143);
  private onInt = () => this.finish(130); // Ctrl-C in the window is a key; this is `kill -INT`, `timeout -s INT`

  constructor(
    private readonly renderer: CliRenderer,
    private readonly wt: Worktree,
    private readonly select: SelectModel,
  ) {
    this.current = select;
    this.attach(select, false);
  }

  /** The exit code, once the selection is left (or was, by a signal or a hang-up as the terminal was set up). */
  run(): Promise<number> {
    this.screen?.title(this.title); // now the terminal is set up: the library refuses a title before (InvalidPhase)
    return new Promise<number>((resolve) => {
      if (this.ended !== null) return resolve(this.ended);
      this.resolve = resolve;
    });
  }

  /** Ends the session (its screen, timer and signal handlers) with nothing more to say: the screen never opened. */
  end(): void {
    this.detach();
  }

  private finish(code: number): void {
    this.detach();
    this.ended ??= code;
    this.resolve(this.ended);
  }

  private get title(): string {
    return `wt-loop · ${this.wt.name}`;
  }

  /** `model` on the screen, with the selection's keys; `titled`: the title set too (the terminal set up). */
  private attach(model: ScreenModel, titled = true): void {
    this.current = model;
    const screen = attachScreen(this.renderer, model);
    this.screen = screen;
    if (titled) screen.title(this.title);
    screen.onKey((k) => {
      if (this.busy) return; // a preview loading, a start under way: keys wait for it
      const a = this.current.key(k);
      if (!a) return;
      this.busy = true;
      this.act(a)
        .catch((err) => this.tell(`Something went wrong: ${errorMessage(err)}`))
        .finally(() => (this.busy = false));
    });
    screen.onGone(() => this.finish(129)); // the library restored the terminal on a hang-up
    process.on("SIGTERM", this.onTerm);
    process.on("SIGINT", this.onInt);
    this.timer = setInterval(() => void this.refreshLoops(), REFRESH_MS);
  }

  private detach(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    process.off("SIGTERM", this.onTerm);
    process.off("SIGINT", this.onInt);
    const s = this.screen;
    this.screen = null;
    void s?.close(false);
  }

  private show(model: ScreenModel): void {
    this.current = model;
    this.screen?.show(model);
  }

  private tell(text: string): void {
    (this.current as SelectModel | PreviewModel).say(text, "bad");
    this.screen?.redraw();
  }

  private async refreshLoops(): Promise<void> {
    if (this.busy || this.current !== this.select) return;
    const loops = await loadLoops(this.wt);
    if (!loops || !this.screen) return;
    // A loop that ended or began (one S started in its own window) changed the work too: a change it finished
    // is no longer to do. The work is read again then, not every 2 s (it asks the openspec CLI).
    const moved = loopsKey(loops) !== loopsKey(this.select.loops());
    if (moved) this.select.update(await loadSelection(this.wt));
    else this.select.updateLoops(loops);
    this.screen?.redraw();
  }

  private async act(a: Action): Promise<void> {
    switch (a.kind) {
      case "quit":
        return this.finish(a.code);
      case "preview": {
        const item = this.item(a.id);
        if (!item) return;
        this.select.say(`Reading ${item.name}…`, "dim");
        this.screen?.redraw();
        this.show(new PreviewModel(await loadPreview(this.wt, item)));
        return;
      }
      case "back":
        await this.backToSelection();
        return;
      case "attach":
        return this.away(async () => (await import("./on-screen.ts")).monitorOnScreen(this.renderer, a.worktree));
      case "run":
        return this.runHere(a.id);
      case "start":
        return this.startWindow(a.id);
    }
  }

  private item(id: string): WorkItem | null {
    const item = this.select.workItem(id) ?? null;
    if (!item) this.tell(`${id} is no longer here.`);
    return item;
  }

  private async backToSelection(message?: string): Promise<void> {
    this.select.update(await loadSelection(this.wt));
    if (message) this.select.say(message);
    if (this.screen) this.show(this.select);
    else this.attach(this.select);
  }

  /** Hands the open screen to a loop screen, then comes back to the selection with what it said. */
  private async away(fn: () => Promise<{ code: number; after: string[] }>): Promise<void> {
    this.detach();
    // A signal while the loop screen is shown is the loop's (it stops the loop, or leaves a followed
    // one), and then ends this process too, with that code: whoever sent it means wt-loop, not the
    // loop screen only. A closed terminal likewise: there is no selection to come back to.
    let signalled = false;
    const noted = () => void (signalled = true);
    process.on("SIGINT", noted);
    process.on("SIGTERM", noted);
    let said: string | undefined;
    let code = 1;
    try {
      const outcome = await fn();
      said = outcome.after.at(-1);
      code = outcome.code;
    } catch (err) {
      said = errorMessage(err);
    } finally {
      process.off("SIGINT", noted);
      process.off("SIGTERM", noted);
    }
    if (terminalGone()) return this.finish(129);
    if (signalled) return this.finish(code);
    await this.backToSelection(said);
  }

  /**
   * R: the loop here, prepared as `run` prepares it (config files; the change chosen). The preparation
   * happens on the main screen, where its notes and a trust question can be read and answered.
   */
  private async runHere(id: string): Promise<void> {
    const item = this.item(id);
    if (!item) return;
    this.detach();
    await this.renderer.suspend();
    let planned: Awaited<ReturnType<typeof prepareFromFlags>>;
    try {
      planned = await prepareFromFlags(this.wt, item.kind === "change" ? { change: item.name } : {}, undefined, "run");
    } catch (err) {
      planned = -1;
      (this.current as PreviewModel).inform("The loop did not start", errorMessage(err));
    }
    await this.renderer.resume();
    if (typeof planned === "number") {
      if (planned === 0) (this.current as PreviewModel).inform("Nothing to do", "Every story is complete: nothing was started or written.");
      return this.attach(this.current);
    }
    const { prepared } = planned;
    const { lock } = await writeStarting(prepared, "here");
    keepRunningWhenStdoutCloses();
    const { runOnScreen } = await import("./on-screen.ts");
    this.current = this.select;
    await this.away(async () => {
      try {
        return await runOnScreen(this.renderer, prepared.state, prepared.source, lock);
      } finally {
        lock.release();
        await restoreWindowName();
      }
    });
  }

  /** S: `wt-loop start` for this change, as typed; what it printed is shown, then the selection with its loop. */
  private async startWindow(id: string): Promise<void> {
    const item = this.item(id);
    if (!item) return;
    // S means a new window. With "terminal": "inline" `start` would run the whole loop here, hidden
    // behind this screen and out of reach of its keys: refused, pointing to R.
    const given = item.kind === "change" ? { change: item.name } : {};
    const previous = await readState(loopPaths(this.wt.path).state).catch(() => null);
    if (String(layerOptions(this.wt.path, given, previous).options.terminal ?? "auto") === "inline") {
      (this.current as PreviewModel).inform(
        "Not in a new window",
        'Your config sets "terminal": "inline", so `wt-loop start` would run the loop in this terminal, hidden behind this screen. ' +
          'Press R to run it here on its own screen, or set "terminal" to "auto" (or a terminal\'s name) for S.',
      );
      this.screen?.redraw();
      return;
    }
    (this.current as PreviewModel).say("Starting…");
    this.screen?.redraw();
    const argv = [...selfArgv(), "start", ...(item.kind === "change" ? ["--change", item.name] : [])];
    // No terminal on stdin: a trust question is not asked but explained, as for any `start` without one.
    const r = await exec(argv, { cwd: this.wt.path, timeoutMs: START_TIMEOUT_MS, allowFailure: true });
    const text = [r.stdout, r.stderr].filter((t) => t.trim()).join("\n") || `wt-loop start exited with ${r.code}.`;
    await this.backToSelection();
    this.select.inform(r.code === 0 ? "Started" : "The loop did not start", text);
    this.screen?.redraw();
  }
}
