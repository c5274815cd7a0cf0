/**
 * What the loop screen's parts share: the model's state as its frame and overlays read (and, for the
 * overlays, change) it. Its own file, so the model, the frame and the overlays depend on it and not
 * on each other.
 */
import type { FinalStatus, State } from "../state/schema.ts";
import type { Frame, Tone } from "./frame.ts";
import type { TabName } from "./loop-tabs.ts";
import type { StoryEntry, StoryRecord } from "./story-record.ts";
import type { BlockList } from "./text-blocks.ts";

export interface LoopModelOptions {
  /** `run`: q stops the loop; `monitor`: q leaves it running, `s` asks to stop it. */
  mode: "run" | "monitor";
  /** The run's event log: messages are read back from it by window. Without it, `event` keeps their text in memory. */
  events?: string;
  /** The run's `started_at`: the events of earlier runs in the same log are skipped. */
  since?: string;
  /**
   * run: the events come from the runner's store in memory (`logged`, each with its place in `events`); the log is
   * not followed, only read back by range for the messages on screen. Otherwise (monitor) the log is followed.
   */
  fed?: boolean;
}

export type Overlay =
  | { kind: "help" }
  | { kind: "confirm-stop" }
  | { kind: "ask"; status: FinalStatus; choice: number; offerPr: boolean }
  | { kind: "text"; title: string; text: string; top: number }
  | { kind: "input"; text: string }
  /** `/`: what to look for in the Agent tab. */
  | { kind: "search"; text: string }
  /** After the end: the result and the run's summary and receipt (`r`); any key closes it. */
  | { kind: "result" };

/** The loop is over: the screen stays browsable, with this as its banner; `q` leaves with `code`. */
export interface Ended {
  code: number;
  message: string;
}

export interface LoopScreen {
  readonly o: LoopModelOptions;
  readonly record: StoryRecord;
  cols: number;
  rows: number;
  st: State | null;
  /** The story the user chose; null while the running one is followed. */
  chosen: string | null;
  tab: number;
  /** Verify and Prompt: the attempt shown (by its place); null: the latest. */
  pick: number | null;
  top: number;
  follow: boolean;
  overlay: Overlay | null;
  end: Ended | null;
  notice: { text: string; tone: Tone } | null;
  noticeAt: number | null;
  readonly tabName: TabName;
  readonly layout: Frame["layout"];
  bodySize(): { cols: number; rows: number };
  /** The header's rows at this size: its lines, and after the end the result's banner. */
  headerRows(): number;
  selected(): StoryEntry | null;
  content(now: number): BlockList;
  /** The Agent tab's rows when the view stopped following (more since: "new output below"). */
  seen: number;
  /** `/`: scrolls the Agent tab to `query` (empty: the last one again). */
  search(query: string): void;
}
