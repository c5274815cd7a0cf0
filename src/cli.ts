#!/usr/bin/env bun
import { runMain } from "citty";
import { main } from "./main.ts";
import { guardStdout } from "./term/stdout.ts";

guardStdout();
await runMain(main);
