// The local backend's read-back memory: one file, `.erpsync/read-back.json` beside the run (where
// the sandbox state and credentials live), holding each account's memory under its id. A missing
// or unreadable file, or one of another shape, is an empty memory: the memory only ever saves
// requests and noise, never decides a write on its own; CI runs from a fresh clone start empty
// each time. Each entry is checked before it is used (state/read-checks). Saving rewrites the
// file whole and atomically, changing only that account's entry. It decides nothing about runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isPlainRecord } from '../../model/paths.js';
import { makeDirectory, writeFileAtomically } from '../../model/write-file-atomically.js';
import { accountReadBackOf } from '../read-checks.js';
import type { AccountReadBack, ReadBackStore } from '../state-store.js';
import { withFileTurn } from './file-turns.js';

const readBackMemoryFile = '.erpsync/read-back.json';

export function localReadBack(context: { cwd: string }): ReadBackStore {
  const file = path.resolve(context.cwd, readBackMemoryFile);
  return {
    async load(accountId) {
      const accounts = await withFileTurn(file, () => readAccounts(file));
      return accountReadBackOf(accounts[accountId]);
    },
    async save(accountId, memory) {
      await withFileTurn(file, async () => {
        const accounts = { ...(await readAccounts(file)), [accountId]: memory };
        await makeDirectory(path.dirname(file), { within: context.cwd });
        await writeFileAtomically(file, `${JSON.stringify({ formatVersion: 1, accounts }, null, 2)}\n`, { within: context.cwd });
      });
    },
  };
}

/** Every account's memory in the working folder's file, each checked (for `backend import`). */
export async function readLocalReadBack(cwd: string): Promise<Record<string, AccountReadBack>> {
  const accounts = await readAccounts(path.resolve(cwd, readBackMemoryFile));
  return Object.fromEntries(Object.entries(accounts).map(([accountId, memory]) => [accountId, accountReadBackOf(memory)]));
}

/** The file's accounts as written, unchecked (each is checked when it is loaded); none when there is no file erpsync wrote. */
async function readAccounts(file: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    return isPlainRecord(parsed) && isPlainRecord(parsed.accounts) ? { ...parsed.accounts } : {};
  } catch {
    // No memory yet, or one that cannot be read: start empty.
    return {};
  }
}
