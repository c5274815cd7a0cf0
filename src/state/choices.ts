/**
 * The state's choices the options take too (`--agent`, `--review`, `--done`, `--checkpoint`,
 * `--on-complete`, `--sandbox-network`), apart from the rest of the state's schema (schema.ts, which
 * re-exports them): the options are checked before `run`'s first frame, and building the whole state's
 * schema for six enums was the largest part of that path (issue 35).
 */
import { z } from "zod";

export const ReviewerName = z.enum(["claude", "codex", "gemini", "command"]);
export type ReviewerName = z.infer<typeof ReviewerName>;
export const AgentName = z.enum(["claude", "codex", "gemini", "command", "demo"]);
export type AgentName = z.infer<typeof AgentName>;
export const DoneCriteria = z.enum(["tasks", "manual"]);
export const CheckpointKind = z.enum(["branch", "stash"]);
/** `pr`: keep the loop's branch, push it and open (or update) a pull request with the loop's records (docs/github.md). */
export const OnComplete = z.enum(["ask", "cleanup", "keep", "pr"]);
export const SandboxNetwork = z.enum(["filtered", "open"]);
