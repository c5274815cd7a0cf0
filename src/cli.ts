#!/usr/bin/env bun
import { runMain } from "citty";
import { main } from "./main.ts";

await runMain(main);
