// The JSON Schema of erpsync.config.yaml (published as schemas/config.schema.json, documented in
// docs/config.md): the targets a repository deploys to. It is the config's only validator: every
// rule is here, and load-config.ts adds the one a schema cannot say (plain http only to a loopback
// host, for every field of `url`'s form). The config names secrets by variable and never holds
// one: a secret-looking credentials key is refused with its reason.
import type { JsonSchema } from '../kinds/kind.js';

export const configSchemaFileName = 'config.schema.json';

/** The form of every URL field; load-config.ts also refuses http:// to a host that is not loopback. */
export const urlPattern = '^https?://';

const envName = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' };
const url = { type: 'string', pattern: urlPattern };
const path = { type: 'string', minLength: 1 };
const paths = { type: ['string', 'array'], minLength: 1, minItems: 1, items: path };

/**
 * An owner of a store, as the notifications of `drift --notify` name them: a user login (`maria`,
 * `@maria`), a team or group (`@agencia/suporte`, GitLab's `@grupo/subgrupo`), or an e-mail address.
 * Nothing else: an owner is written into issue bodies and chat messages as it stands.
 */
export const ownerPattern = '^(@?[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+)$';

/** Glob keys of target groups (`lojas/*`), as `rollouts:` and `owners:` take them. */
const groupGlob = { pattern: '^[A-Za-z0-9_*?/-]+$' };

/** Target names: path-like segments, so a fleet can group stores (`lojas/centro`) and select them by glob. */
export const targetNamePattern = '^[A-Za-z0-9][A-Za-z0-9_-]*(/[A-Za-z0-9][A-Za-z0-9_-]*)*$';

/**
 * A key the schema refuses with its reason: `not: {}` fails whatever the value, and the
 * description is what the diagnostic says (validate-schema.ts), and what an editor shows.
 */
function refusedKey(reason: string): JsonSchema {
  return { not: {}, description: reason };
}

/** Keys that would hold a secret, in any case (`token`, `Token`, `TOKEN` …): a pattern has no flags. */
const secretKeyPattern = `^(${['token', 'accessToken', 'refreshToken', 'clientSecret', 'secret', 'password'].map(anyCase).join('|')})$`;

function anyCase(word: string): string {
  return [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('');
}

const sandboxConflict = refusedKey('a sandbox target has no base URL or credentials: remove `sandbox` to deploy to a real account, or this key to try the target in a sandbox');

export const configSchema: JsonSchema = {
  title: 'erpsync config (erpsync.config.yaml)',
  description: 'Targets: the accounts a manifest repository is planned and applied against.',
  type: 'object',
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    targets: {
      type: 'object',
      description: 'One entry per account; the key is the target name used by --target.',
      propertyNames: { pattern: targetNamePattern },
      additionalProperties: { $ref: '#/$defs/target' },
    },
    backend: {
      description:
        'Where erpsync keeps what outlives a run (account leases, logins, the IP budget, the journal, drift results): `local` (files under .erpsync/ and a per-user folder; the default) or a PostgreSQL server shared by every runner. Its env twin is ERPSYNC_BACKEND.',
      oneOf: [
        { const: 'local' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['postgres'],
          properties: {
            postgres: {
              type: 'object',
              additionalProperties: false,
              properties: {
                urlEnv: { ...envName, description: 'Variable holding the database URL (postgres://user:password@host:5432/db); default ERPSYNC_DATABASE_URL. The URL is never written in the config.' },
                keyEnv: { ...envName, description: 'Variable holding the 32-byte key (base64) logins are encrypted with; default ERPSYNC_STATE_KEY. Never stored in the database.' },
                schema: { type: 'string', pattern: '^[a-z_][a-z0-9_]{0,62}$', description: 'Schema erpsync keeps its tables in (created on first use); default erpsync. Its env twin is ERPSYNC_BACKEND_SCHEMA.' },
              },
            },
          },
        },
      ],
    },
    egress: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$',
      description: 'The name of the egress IP these runs leave from: every process naming it shares the service\'s per-IP budget through the backend (env twin ERPSYNC_EGRESS; default `default`).',
    },
    concurrency: {
      type: 'object',
      additionalProperties: false,
      required: ['groups'],
      description:
        'CI concurrency groups: each target belongs to one of `groups` groups, named erpsync-01 … by a hash of its name (sha256 mod groups), so adding or removing a target never moves another. `targets --json` makes one job per group.',
      properties: {
        groups: { type: 'integer', minimum: 1, maximum: 1000, description: 'How many groups (1–1000); keep it fixed: changing it moves targets between groups.' },
      },
    },
    rollouts: {
      type: 'object',
      description: 'Staged rollouts of fleet applies, per target group: the key is a glob of target names (`lojas/*`); a fleet apply whose stores all match it goes out in its stages.',
      propertyNames: groupGlob,
      additionalProperties: { $ref: '#/$defs/rollout' },
    },
    owners: {
      type: 'object',
      description:
        "Owners per target group: the key is a glob of target names (`lojas/*`, `**` across segments); every store it matches has these owners besides its own `owners`. `drift --notify` addresses each store's notification to them. A glob that matches no target is an error.",
      propertyNames: groupGlob,
      additionalProperties: { $ref: '#/$defs/owners' },
    },
  },
  $defs: {
    owners: {
      type: 'array',
      description: 'People or teams who own a store: GitHub or GitLab logins (`maria`, `@maria`), teams or groups (`@agencia/suporte`), or e-mail addresses.',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', maxLength: 100, pattern: ownerPattern },
    },
    rollout: {
      type: 'object',
      additionalProperties: false,
      properties: {
        canary: {
          description: 'The stores applied first: names or globs (a comma-separated string or a list), or a count of the group\'s first stores.',
          type: ['integer', 'string', 'array'],
          minimum: 1,
          minLength: 1,
          minItems: 1,
          items: { type: 'string', minLength: 1 },
        },
        waveSize: { type: 'integer', minimum: 1, description: 'Stores per wave after the canary; default: all the rest in one wave.' },
        haltAfter: { type: 'integer', minimum: 1, description: 'Halt the rollout once this many stores have failed (default 1: any failure); the stores not reached are skipped.' },
      },
    },
    target: {
      type: 'object',
      additionalProperties: false,
      properties: {
        description: { type: 'string' },
        owners: { $ref: '#/$defs/owners' },
        baseUrl: { ...url, description: 'API base URL (default https://api.bling.com.br/Api/v3); http:// only on loopback.' },
        sandbox: {
          description:
            'Deploy to a sandbox account instead of a real one (no Bling account needed): true keeps its state in .erpsync/sandbox-<name>.json next to the config, where each state file is an account of its own.',
          type: ['boolean', 'object'],
          additionalProperties: false,
          properties: { state: { ...path, description: 'The sandbox state file, relative to the config.' } },
        },
        rate: { type: 'number', exclusiveMinimum: 0, description: 'Requests per second (default 2.9: the account allows 3, shared by every integration, and a 429 slows erpsync down by itself).' },
        reserve: {
          type: 'number',
          minimum: 0,
          exclusiveMaximum: 3,
          description: 'Requests per second left to the account\'s other integrations (storefront, marketplace hub …): the rate becomes 3 minus this. Ignored when rate is set.',
        },
        dailyQuota: {
          type: 'integer',
          minimum: 1,
          maximum: 120000,
          description: 'Requests per day erpsync may send to this account (the account allows 120,000, shared by every integration; default: that, less the reserve\'s share). A run that would exceed what is left stops before writing.',
        },
        maxRequests: { type: 'integer', minimum: 1, description: 'Stop before sending more requests than this in one run.' },
        manifests: { ...paths, description: 'Manifest paths used when none are given on the command line; a list is layered: later paths override earlier ones record by record.' },
        variables: {
          type: 'object',
          description: 'Values for ${VARS} in the manifests of this target; they win over ERPSYNC_VAR_* of the environment (no other environment variable is read).',
          propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          additionalProperties: { type: ['string', 'number', 'boolean'] },
        },
        envFile: { ...path, description: 'A KEY=value file (relative to the config) with more variables, e.g. secrets kept out of git.' },
        journal: { ...path, description: 'Folder of the journal every apply of this target appends to (JSON Lines, one file per run), relative to the config (default .erpsync/journal).' },
        credentials: {
          type: 'object',
          additionalProperties: false,
          properties: {
            tokenEnv: { ...envName, description: 'Variable holding a bearer token.' },
            file: { ...path, description: 'OAuth credentials file written by `erpsync login --target NAME`.' },
            clientId: { type: 'string', minLength: 1 },
            clientIdEnv: envName,
            clientSecretEnv: envName,
            tokenUrl: url,
            authorizeUrl: url,
          },
          patternProperties: {
            [secretKeyPattern]: refusedKey('secrets do not belong in the config file (it is committed to git): name the variable that holds it instead: tokenEnv, clientSecretEnv'),
          },
        },
      },
      // A sandbox target is its own account: a base URL or credentials would contradict it.
      if: { type: 'object', required: ['sandbox'], properties: { sandbox: { not: { const: false } } } },
      then: { type: 'object', properties: { baseUrl: sandboxConflict, credentials: sandboxConflict } },
    },
  },
};
