#!/usr/bin/env bun
import { dispatch } from "./main.ts";
await dispatch(process.argv.slice(2));
