// `erpsync import`: a store's differences from a base, written as its target's overlay.
import { ErpsyncError } from '../model/errors.js';
import type { RunIO } from '../workflows/run-io.js';
import { writeLine } from '../workflows/run-io.js';
import { renderHelp } from './commands.js';
import { importFlags, parseCommandFlags } from './flags.js';

export async function runImportCommand(args: string[], io: RunIO): Promise<number> {
  const { flags } = parseCommandFlags('import', importFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('import'));
    return Promise.resolve(0);
  }
  throw new ErpsyncError('USAGE', 'import is being built');
}
