// What each steering request does to a running loop's state, and the sentence it answers with.
import { describe, expect, test } from "bun:test";
import { applySteer, parseRequest, type SteerBody } from "../../src/record/steer-apply.ts";
import type { State } from "../../src/state/schema.ts";
import { sampleLane, sampleState } from "../helpers/state.ts";

const running = (over: Partial<State> = {}) =>
  sampleState({ status: "running", ended_at: null, completion: null, current_iteration: 3, max_iterations: 10, agent_pid: 123, ...over });
const LANE = (id: string) => sampleLane(id, `S${id}`);
const T = Date.parse("2026-11-25T12:00:00.000Z");

describe("applySteer", () => {
  const cases: [string, State, SteerBody, { ok: boolean; message: RegExp; state?: Partial<State>; events?: string[] }][] = [
    [
      "pause while an iteration runs",
      running(),
      { kind: "pause" },
      { ok: true, message: /pause when iteration 3 ends/, state: { pause_requested: true, status: "running" } },
    ],
    ["pause twice", running({ pause_requested: true }), { kind: "pause" }, { ok: false, message: /already pauses when iteration 3 ends/ }],
    // A state the runner made in memory (not parsed from the file) has no lanes at all: the sequential loop's.
    ["pause with no lanes field", running({ lanes: undefined as never }), { kind: "pause" }, { ok: true, message: /pause when iteration 3 ends/ }],
    [
      "pause while lanes run (--parallel)",
      running({ lanes: [LANE("2"), LANE("10"), LANE("1")] }),
      { kind: "pause" },
      { ok: true, message: /will pause once its running lanes \(stories 1, 2, 10\) are finished and integrated/, state: { pause_requested: true } },
    ],
    ["pause a paused loop", running({ status: "paused" }), { kind: "pause" }, { ok: false, message: /already paused/ }],
    [
      "resume a paused loop",
      running({ status: "paused", paused_since: new Date(T - 5000).toISOString(), paused_ms: 1000 }),
      { kind: "resume" },
      { ok: true, message: /iteration 4 starts now/, state: { status: "running", paused_since: null, paused_ms: 6000 }, events: ["Resumed"] },
    ],
    [
      "resume calls off a pause not reached",
      running({ pause_requested: true }),
      { kind: "resume" },
      { ok: true, message: /called off/, state: { pause_requested: false } },
    ],
    ["resume a running loop", running(), { kind: "resume" }, { ok: false, message: /not paused \(status: running\)/ }],
    [
      "raise by 10",
      running(),
      { kind: "max", delta: 10 },
      { ok: true, message: /from 10 to 20\.$/, state: { max_iterations: 20 }, events: ["MaxIterationsChanged"] },
    ],
    [
      "lower below the running iteration",
      running(),
      { kind: "max", delta: -10 },
      { ok: true, message: /from 10 to 3 \(not 0: 3 iterations ran or run already\)/, state: { max_iterations: 3 }, events: ["MaxIterationsChanged"] },
    ],
    ["lower when at the floor", running({ max_iterations: 3 }), { kind: "max", delta: -1 }, { ok: false, message: /cannot end before 3 iterations/ }],
    ["set to the same", running(), { kind: "max", value: 10 }, { ok: false, message: /already 10/ }],
    [
      "a note",
      running(),
      { kind: "note", text: "  use v2  " },
      { ok: true, message: /next prompt/, state: { notes: [{ text: "use v2", added_at: "2026-11-25T12:00:00.000Z" }] }, events: ["NoteAdded"] },
    ],
    ["an empty note", running(), { kind: "note", text: " \n" }, { ok: false, message: /empty/ }],
    ["a note too long", running(), { kind: "note", text: "x".repeat(4001) }, { ok: false, message: /4001 characters/ }],
  ];
  for (const [name, state, req, want] of cases)
    test(name, () => {
      const before = structuredClone(state);
      const r = applySteer(state, req, T);
      expect({ ok: r.ok, message: r.message }).toEqual({ ok: want.ok, message: expect.stringMatching(want.message) });
      expect(r.events.map((e): string => e.type)).toEqual(want.events ?? []);
      if (want.state) expect(state).toMatchObject(want.state);
      if (!want.ok) expect(state).toEqual(before); // a refused request changes nothing
    });
});

describe("parseRequest", () => {
  test.each([
    [
      { run: "r", kind: "pause" },
      { run: "r", kind: "pause" },
    ],
    [
      { run: "r", kind: "max", delta: -5 },
      { run: "r", kind: "max", delta: -5 },
    ],
    [{ run: "r", kind: "max", delta: 1.5 }, null],
    [{ run: "r", kind: "note", text: 3 }, null],
    [{ kind: "pause" }, null],
    [{ run: "r", kind: "rm -rf" }, null],
    ["pause", null],
  ] as [unknown, unknown][])("%j", (json, want) => expect(parseRequest(json)).toEqual(want as never));
});
