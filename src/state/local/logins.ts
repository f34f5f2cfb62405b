// The local backend's logins: each target's credentials file, as erpsync has always kept it (JSON,
// mode 0600, written atomically). A refresh is exclusive per file across the processes of this
// machine through the lease lock beside it (api/credentials' fileCredentialSlot). Nothing here
// knows where the files are: the caller's LoginRef names them.
import { fileCredentialSlot, writeCredentialsFile } from '../../api/index.js';
import type { LoginStore } from '../state-store.js';

export function localLogins(): LoginStore {
  return {
    slot: (ref) => fileCredentialSlot(ref.file),
    write: (ref, credentials) => writeCredentialsFile(ref.file, credentials),
    // The files are wherever each target's config puts them: without the config there is nothing to count.
    count: () => Promise.resolve(undefined),
  };
}
