import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resetTimeIn } from "../../src/agents/reset-time.ts";

// A fixed "now": 2026-11-23 10:30 UTC (18:30 in Shanghai, 05:30 in New York).
const NOW = new Date("2026-11-23T10:30:00Z");
// The forms without a zone are the machine's local time: pinned here, put back after.
const tz = process.env.TZ;
beforeAll(() => void (process.env.TZ = "UTC"));
afterAll(() => void (tz === undefined ? delete process.env.TZ : (process.env.TZ = tz)));

describe("resetTimeIn: the reset time in an agent's limit text", () => {
  test.each([
    ["Claude AI usage limit reached|1795432673", "2026-11-23T11:17:53.000Z"],
    ["API Error: Request rejected (429) · Claude AI usage limit reached|1795432673", "2026-11-23T11:17:53.000Z"],
    ["You've hit your limit · resets 7pm (Asia/Shanghai)", "2026-11-23T11:00:00.000Z"], // 19:00 Shanghai is still ahead today
    ["You've hit your limit · resets 6pm (Asia/Shanghai)", "2026-11-24T10:00:00.000Z"], // 18:00 Shanghai has passed: tomorrow's
    ["You've hit your limit · resets 6:25pm (Asia/Shanghai)", "2026-11-23T10:25:00.000Z"], // just passed (minute resolution): not tomorrow
    ["resets 12am (America/New_York)", "2026-11-24T05:00:00.000Z"],
    ["resets 12pm (America/New_York)", "2026-11-23T17:00:00.000Z"],
    ["resets at 3:15pm (Europe/Berlin)", "2026-11-23T14:15:00.000Z"],
    ["resets Nov 25, 7pm (Asia/Shanghai)", "2026-11-25T11:00:00.000Z"],
    ["resets 7pm (Not/AZone)", "2026-11-23T19:00:00.000Z"], // an unknown zone: local time
    ["You’ve hit your usage limit. Upgrade to Pro (…) or try again at 11:18 AM.", "2026-11-23T11:18:00.000Z"],
    ["You’ve hit your usage limit. … try again at Nov 25th, 2026 11:22 AM.", "2026-11-25T11:22:00.000Z"],
    ["rate limit exceeded: Rate limit reached. Please try again in 20s.", "2026-11-23T10:30:20.000Z"],
    ["Please retry in 43.5s", "2026-11-23T10:30:43.500Z"],
    ["Please retry in 250ms", "2026-11-23T10:30:00.250Z"],
    ["Suggested retry after 2m.", "2026-11-23T10:32:00.000Z"],
    ["API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit", null],
    ["resets 5 (Asia/Shanghai)", null], // not a time
    ["resets 25:00", null],
  ])("%s", (text, expected) => {
    expect(resetTimeIn(text, NOW)?.toISOString() ?? null).toBe(expected);
  });

  test("across a daylight-saving change the zone's offset on the reset day is used", () => {
    // New York leaves DST on 2026-11-01: 9am there is 14:00 UTC the day after, 13:00 UTC the day before.
    expect(resetTimeIn("resets 9am (America/New_York)", new Date("2026-10-31T20:00:00Z"))?.toISOString()).toBe("2026-11-01T14:00:00.000Z");
    expect(resetTimeIn("resets 9am (America/New_York)", new Date("2026-10-30T20:00:00Z"))?.toISOString()).toBe("2026-10-31T13:00:00.000Z");
  });
});
