// Loads the one ERPSYNC_STATE secret (.env lines) into the job's environment for the steps after
// this one: each value masked in the log first, only the variables erpsync's backend and OAuth
// app need, refused when one is missing. Copy to .github/erpsync/load-state-secret.mjs.
/* global console -- a Node.js script run by the workflow */
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { parseEnv } from 'node:util';

const needed = ['ERPSYNC_DATABASE_URL', 'ERPSYNC_STATE_KEY', 'BLING_CLIENT_ID', 'BLING_CLIENT_SECRET'];

function load() {
  const values = parseEnv(process.env.STATE ?? '');
  const missing = needed.filter((name) => !values[name]);
  if (missing.length > 0) {
    console.log(`::error title=erpsync::the ERPSYNC_STATE secret lacks ${missing.join(', ')} (forked pull requests get no secrets)`);
    return 1;
  }
  for (const name of needed) {
    const value = values[name];
    for (const line of value.split('\n')) console.log(`::add-mask::${line}`);
    appendFileSync(process.env.GITHUB_ENV, `${name}<<ERPSYNC_END_OF_VALUE\n${value}\nERPSYNC_END_OF_VALUE\n`);
  }
  return 0;
}

process.exitCode = load();
