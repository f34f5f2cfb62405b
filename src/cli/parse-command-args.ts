// One way for every command to read its flags: node:util parseArgs, with a mistake turned into a
// usage error (exit 1) that points at the command's --help.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { ErpsyncError } from '../model/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ErpsyncError('USAGE', (error as Error).message, { cause: error, details: [`run \`erpsync ${command} --help\` for the options`] });
  }
}
