#!/usr/bin/env bun
import { dispatch } from "./main.ts";
import { terminalGone } from "./term/hangup.ts";
await dispatch(process.argv.slice(2));
// The terminal went away: nothing is left to show, and what the screen library still holds for the
// dead terminal (a write it keeps polling) must not keep this process alive, spinning.
if (terminalGone()) process.exit();
