/**
 * The one writer of a running loop's record (docs/architecture.md "The store"): the state the runner holds,
 * the event log beside it, and whoever watches them in this process. The engine changes the state through it
 * (`record`, `save`) and tells it what happened (`emit`); the store stamps and writes the state (one write at a
 * time, atomic: state/store.ts), appends the event, and hands both to its subscribers in memory — the screen of
 * `run`, the inline view, --notify, --issue-sync — so none of them reads back the files this process writes.
 * Another process (`monitor`, `status`, the MCP server) follows the files.
 */
import type { State } from "../state/schema.ts";
import { restartFacts } from "../state/restart-facts.ts";
import { stateWriter } from "../state/store.ts";
import type { LoopPaths } from "../state/paths.ts";
import { EventLog, type LogRange, type LogReader } from "./event-log.ts";
import type { LoopEvent } from "./events.ts";

/**
 * What a subscriber hears: an event as it happens (before it is appended); the same event once appended, with
 * where its line is in the log (`at`; null when it was not written: no log, or the append failed); a state once it
 * is written (`forced`: on the disk before it took the name, see Durability).
 */
export type StoreChange =
  | { kind: "event"; event: LoopEvent }
  | { kind: "logged"; event: LoopEvent; at: LogRange | null }
  | { kind: "saved"; state: State; forced: boolean };

/**
 * How a write of the state reaches the disk (docs/how-it-works.md "The state file"). Every write is atomic: a kill -9
 * never leaves a torn or empty state. A forced one is also on the disk before it takes the name (an fsync, 7–9 ms on a
 * loaded disk, docs/performance.md), so a power cut keeps it:
 * - "forced": every step a restart needs — an iteration's end record (with its checkpoint commit), the checkpoint's
 *   stash entries, the loop's end;
 * - "light": never forced — the agent's pid (after a power cut the agent is dead too);
 * - "if-restart-differs": forced only when a restart from it would decide otherwise than from the last forced state
 *   (state/restart-facts.ts) — an iteration's start: a retry of the story the last attempt failed needs none, a new
 *   story does (its ticks in the tree must not be taken for checked ones).
 */
export type Durability = "forced" | "light" | "if-restart-differs";

/** Where the record goes: the files for a real loop; nowhere for a test of one gate. */
export interface RecordSink {
  /** Where the event's line went in the log; null: kept nowhere. */
  append(event: LoopEvent): LogRange | null;
  /** A logged line read back by its range from the log's own file (null: cannot; read it by the log's name). */
  readBack?(at: LogRange): string | null;
  write(state: State, forced: boolean): Promise<void>;
  close(): void;
}

export class LoopStore implements LogReader {
  readonly #state: State;
  readonly #listeners = new Set<(change: StoreChange) => void>();
  #prepare: ((state: State) => void) | null = null;
  #writing: Promise<void> = Promise.resolve();
  /** The restart facts of the last forced write; undefined before one. */
  #forcedFacts: string | undefined;

  constructor(
    state: State,
    private readonly sink: RecordSink,
  ) {
    this.#state = state;
  }

  /** A logged line read back by its range (run's screen): from the log's own file, even while `git clean` removed its name. */
  readBack(at: LogRange): string | null {
    return this.sink.readBack?.(at) ?? null;
  }

  /** The state as the loop holds it now (the engine changes it in place between saves). */
  get state(): State {
    return this.#state;
  }

  /**
   * Something that happened: shown to the subscribers first, then appended — when the log fails (a full
   * disk) the user still sees why, and the failure is thrown to the caller. Then told again with its place
   * in the log (`logged`): `run`'s screen keeps that place of an agent's message, not its text.
   */
  emit(event: LoopEvent): void {
    this.#tell({ kind: "event", event });
    let at: LogRange | null;
    try {
      at = this.sink.append(event);
    } catch (err) {
      this.#tell({ kind: "logged", event, at: null }); // not in the log: a screen keeps it as it is
      throw err;
    }
    this.#tell({ kind: "logged", event, at });
  }

  /**
   * A step of the loop: the state is stamped (`updated_at`) and written as it is when its turn comes — one
   * write at a time (lanes save from their own steps), then told to the subscribers. Rejects when this write
   * failed; the next one is tried anyway.
   */
  save(durability: Durability = "forced"): Promise<void> {
    return this.#queue(true, durability);
  }

  /**
   * Not a new step: a detail the engine keeps up to date within one (the agent's pid, the checkpoint it just
   * took) written unstamped, so a write that repeats the last one is skipped by the writer (state/store.ts).
   */
  write(durability: Durability = "forced"): Promise<void> {
    return this.#queue(false, durability);
  }

  #queue(stamp: boolean, durability: Durability): Promise<void> {
    const write = this.#writing
      .catch(() => {})
      .then(async () => {
        this.#prepare?.(this.#state);
        if (stamp) this.#state.updated_at = new Date().toISOString();
        const facts = durability === "light" ? undefined : restartFacts(this.#state);
        const forced = durability === "forced" || (durability === "if-restart-differs" && facts !== this.#forcedFacts);
        await this.sink.write(this.#state, forced);
        if (forced) this.#forcedFacts = facts;
        this.#tell({ kind: "saved", state: this.#state, forced });
      });
    this.#writing = write;
    return write;
  }

  /** A change of the state and the event that tells of it, in one step: changed, emitted, saved. */
  async record(event: LoopEvent, change?: (state: State) => void): Promise<void> {
    change?.(this.#state);
    this.emit(event);
    await this.save();
  }

  /** What every write brings up to date first (the engine's checkpoint info). */
  beforeSave(prepare: (state: State) => void): void {
    this.#prepare = prepare;
  }

  /** Hears every event and every written state from now on; returns the unsubscribe. */
  subscribe(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.sink.close();
  }

  #tell(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}

/** The store of a loop running here: its state file and its event log (opened now: a failure is the caller's to report). */
export function fileStore(state: State, paths: Pick<LoopPaths, "state" | "events">): LoopStore {
  const log = new EventLog(paths.events);
  return new LoopStore(state, {
    append: (event) => log.append(event),
    readBack: (at) => log.readBack(at),
    write: stateWriter(paths.state),
    close: () => log.close(),
  });
}

/** A store that keeps nothing but tells its subscribers (a test of one gate, driven without files). */
export function memoryStore(state: State): LoopStore {
  return new LoopStore(state, { append: () => null, write: async () => {}, close() {} });
}
