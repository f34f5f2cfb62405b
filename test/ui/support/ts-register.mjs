// `node --import ./ts-register.mjs src/cli/bin.ts …` runs the CLI from source (see ts-hooks.mjs).
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
