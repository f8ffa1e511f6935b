#!/usr/bin/env node
// The rge command. TypeScript sources run through tsx's loader, so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
