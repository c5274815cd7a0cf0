#!/usr/bin/env bun
import { dispatch } from "./main.ts";
import { terminalReleased } from "./term/hangup.ts";
await dispatch(process.argv.slice(2));
// The terminal went away, or a prompt on it was let go of: nothing is left to show or read, and what
// the screen library still holds for a dead terminal (a write it keeps polling), or the prompt
// library for a question answered elsewhere (a read), must not keep this process alive.
if (terminalReleased()) process.exit();
