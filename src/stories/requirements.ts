/**
 * The requirements of an OpenSpec change's spec deltas (`specs/<capability>/spec.md`), with their
 * scenarios. Read from the files: `openspec show --json` names neither requirements nor scenarios,
 * and refuses a change that has no proposal.md yet.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

export interface Scenario {
  name: string;
  /** The scenario's lines as written: `- **GIVEN** …`, `- **WHEN** …`, `- **THEN** …`, `- **AND** …`. */
  lines: string[];
}

export interface Requirement {
  capability: string;
  /** ADDED, MODIFIED, REMOVED or RENAMED: the `## … Requirements` section it is in. */
  operation: string;
  name: string;
  /** The SHALL/MUST text under its heading. */
  text: string[];
  scenarios: Scenario[];
}

export function parseRequirements(markdown: string, capability: string): Requirement[] {
  const out: Requirement[] = [];
  let operation = "";
  let req: Requirement | null = null;
  let scenario: Scenario | null = null;
  for (const raw of markdown.split("\n")) {
    const line = raw.trimEnd();
    const section = /^##\s+(ADDED|MODIFIED|REMOVED|RENAMED)\s+Requirements\b/i.exec(line);
    const reqHead = /^###\s+Requirement:\s*(.*)$/.exec(line);
    const scHead = /^####\s+Scenario:\s*(.*)$/.exec(line);
    if (section) {
      operation = section[1]!.toUpperCase();
      req = scenario = null;
    } else if (reqHead) {
      req = { capability, operation, name: reqHead[1]!.trim(), text: [], scenarios: [] };
      scenario = null;
      out.push(req);
    } else if (scHead && req) {
      scenario = { name: scHead[1]!.trim(), lines: [] };
      req.scenarios.push(scenario);
    } else if (/^#{1,4}\s/.test(line)) {
      // Any other heading (## Purpose, a new section) ends the requirement it follows.
      req = scenario = null;
    } else if (line.trim() && scenario) scenario.lines.push(line.trim());
    else if (line.trim() && req) req.text.push(line.trim());
  }
  return out;
}

/** Every requirement of the change in `dir`, by capability name. */
export async function changeRequirements(dir: string): Promise<Requirement[]> {
  const specsDir = join(dir, "specs");
  const caps = (await readdir(specsDir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name);
  caps.sort();
  const all = await Promise.all(
    caps.map((c) =>
      readFile(join(specsDir, c, "spec.md"), "utf8").then(
        (t) => parseRequirements(t, c),
        () => [],
      ),
    ),
  );
  return all.flat();
}
