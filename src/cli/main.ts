#!/usr/bin/env node
import { createProgram } from "./program.js";
import { routeLibraryConsole } from "./library-console.js";

routeLibraryConsole();

await createProgram().parseAsync(process.argv);
