/**
 * The trust gate of `start` and `run`: commands nobody trusted (setup/trust.ts) are refused without a
 * terminal, and asked about once on one. It runs before anything is written.
 */
import { UserError } from "../errors.ts";
import type { Layered } from "./config.ts";
import { describeUntrusted, trustFile, untrustedAdvice, type Untrusted } from "./trust.ts";
import { askYes, canAskHere } from "../term/ask-yes.ts";
import { print } from "../term/print.ts";

export async function requireTrust(untrusted: Untrusted[], layered: Layered): Promise<void> {
  if (!untrusted.length) return;
  const text = describeUntrusted(untrusted);
  // A linked project file is never trusted: nothing to ask.
  if (!canAskHere() || untrusted.some((u) => u.why === "link")) throw new UserError(`${text}\n${untrustedAdvice(untrusted)}`);
  print(text);
  const file = untrusted.find((u) => u.why !== "unsealed");
  const yes = await askYes(file ? `Trust ${file.source} and run these commands?` : "Run these commands?");
  if (!yes) throw new UserError(`Not trusted. ${untrustedAdvice(untrusted)}`);
  // Yes trusts the content that was read and checked, as `wt-loop trust` would.
  if (file && layered.files.project.sha256) trustFile(file.source, layered.files.project.sha256);
}
