#!/usr/bin/env bun
import { dispatch } from "./main.ts";
import { guardStdout } from "./term/stdout.ts";

guardStdout();
await dispatch(process.argv.slice(2));
