/**
 * For a command that parses once and exits (`log`, over the event log; the state has its own
 * generated check, state/codegen.ts): zod's default parser
 * compiles a function per object schema on first use, which costs more than the one parse it speeds
 * up (a 30-iteration state: ~5 ms compiled vs ~2 ms interpreted, measured in the built binary).
 * The loop runner, which parses agent output all day, keeps the compiled path.
 */
import { z } from "zod";

z.config({ jitless: true });
