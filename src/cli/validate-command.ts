import type { CliIO } from './io.js';
import { writeLine } from './io.js';

export async function runValidateCommand(_args: string[], io: CliIO): Promise<number> {
  writeLine(io.stderr, 'validate: not built yet');
  return 1;
}
