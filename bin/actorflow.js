#!/usr/bin/env node
// The `actorflow` CLI: registers tsx's ESM loader in this process, then runs src/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src/cli/main.ts', import.meta.url).href);
