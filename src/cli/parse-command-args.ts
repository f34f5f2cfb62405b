// One way for every command to read its flags: node:util parseArgs, with a mistake turned into a
// one-line usage error (exit 1) that names the closest valid flag and points at the command's --help.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { suggestClosest } from '../model/suggest.js';
import { ErpsyncError } from '../model/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ErpsyncError('USAGE', describeParseError(command, error as Error & { code?: string }, options), { cause: error });
  }
}

/** parseArgs' own text quotes unevenly and suggests `--` tricks; say what was wrong in our words. */
function describeParseError(command: string, error: Error & { code?: string }, options: Options): string {
  const help = `run \`erpsync ${command} --help\` for its options`;
  const flagNames = Object.entries(options).flatMap(([name, option]) => [`--${name}`, ...(option.short ? [`-${option.short}`] : [])]);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'(-{1,2}[^'=\s]+)/.exec(error.message)?.[1] ?? 'option';
    const closest = suggestClosest(given, flagNames.filter((f) => f.startsWith('--')));
    return `\`erpsync ${command}\` has no option ${given}${closest ? `; did you mean ${closest}?` : ''} (${help})`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = flagNames.find((f) => error.message.includes(`${f} `) || error.message.includes(`${f}'`) || error.message.includes(`${f}=`));
    const wantsValue = /argument missing/.test(error.message);
    const what = wantsValue ? 'needs a value' : 'takes no value';
    return `${flag ?? 'an option'} ${what} (${help})`;
  }
  return `${error.message.replaceAll(/["']/g, '`')} (${help})`;
}
