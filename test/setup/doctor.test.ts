// The doctor's mechanism: a check is one entry of a list, a start is refused with the first ✗'s line
// as doctor shows it, and free disk space is judged by fixed thresholds.
import { describe, expect, test } from "bun:test";
import { diskMark, FAIL_BELOW, WARN_BELOW } from "../../src/setup/doctor-checks.ts";
import { diagnose, lineText, refuseUnready, renderDoctor, type Check, type DoctorInput } from "../../src/setup/doctor.ts";
import { UserError } from "../../src/errors.ts";

const input: DoctorInput = { purpose: "start", cwd: "/", env: {}, worktree: { path: "/w", name: "w" }, opts: null, layered: null, previous: null };

describe("doctor", () => {
  test.each([
    [0, "fail"],
    [FAIL_BELOW - 1, "fail"],
    [FAIL_BELOW, "warn"],
    [WARN_BELOW - 1, "warn"],
    [WARN_BELOW, "ok"],
    [50 * WARN_BELOW, "ok"],
  ])("%p bytes free is %p", (free, mark) => {
    expect(diskMark(free)).toBe(mark as "ok" | "warn" | "fail");
  });

  test("an added check is one entry: shown in order, skipped when it does not apply, and a start refused with its line", async () => {
    const checks: Check[] = [
      { id: "one", run: () => ({ mark: "ok", text: "fine", fix: null }) },
      { id: "skipped", run: () => null },
      { id: "sandbox", run: async () => ({ mark: "fail", text: "bubblewrap is not installed.", fix: "sudo apt-get install bubblewrap" }) },
      { id: "later", run: () => ({ mark: "warn", text: "so so", fix: "do this" }) },
    ];
    const lines = await diagnose(input, checks);
    expect(lines.map((l) => l.id)).toEqual(["one", "sandbox", "later"]);
    expect(renderDoctor(lines).split("\n").slice(0, 3)).toEqual([
      "✓ one      fine",
      "✗ sandbox  bubblewrap is not installed. Fix: sudo apt-get install bubblewrap",
      "! later    so so Fix: do this",
    ]);
    let refused: unknown;
    try {
      refuseUnready(lines);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as Error).message).toBe(lineText(lines[1]!));
    expect(() => refuseUnready(lines.filter((l) => l.mark !== "fail"))).not.toThrow();
  });
});
