// The API layer's public surface. Everything that talks to the service (live reads, apply, the
// CLI's target handling) imports from here, never from the files behind it. This layer knows no
// resource kind and never prints; it must not import the emulator (that is the CLI's business).
export { ACCOUNT_PATH, readAccountIdentity } from './account.js';
export { ACCOUNT_DAILY_QUOTA, ACCOUNT_RATE_LIMIT, createApiClient, DEFAULT_PAGE_SIZE, DEFAULT_RATE, DEFAULT_RATE_RESERVE } from './client.js';
export type { ApiClient, ApiClientOptions, ApiEvent, ApiRequest, ApiResponse, ListNote, PageVerdict, RequestStats } from './client.js';
export { describeListNote, judgePage } from './client.js';
export { ApiError, ApiOutcomeUnknownError } from './errors.js';
export { configureProcessGovernor, createGovernor, ipBudgetOf, IP_MARGIN, SERVICE_IP_RULES, theProcessGovernor } from './governor.js';
export type { Governor, GovernorStats, IpBudget, IpGate, IpLedger } from './governor.js';
export type { ApiErrorCategory, ApiFieldError, HttpMethod } from './errors.js';
export {
  checkCredentialsBaseUrl,
  createOAuthProvider,
  createStaticTokenProvider,
  fileCredentialSlot,
  issuedBaseUrl,
  parseStoredCredentials,
  readCredentialsFile,
  storedFromTokenSet,
  writeCredentialsFile,
} from './credentials.js';
export type { CredentialProvider, CredentialSlot, OAuthProviderOptions, StoredCredentials } from './credentials.js';
export { buildAuthorizeUrl, deriveOAuthEndpoints, requestToken } from './oauth.js';
export type { OAuthEndpoints, TokenGrant, TokenSet } from './oauth.js';
export { createRedactor, redactText, REDACTED } from './redact.js';
export type { Redactor } from './redact.js';
export {
  DEFAULT_BASE_URL,
  DEFAULT_CONFIG_FILE,
  DEFAULT_CREDENTIALS_FILE,
  DEFAULT_JOURNAL_DIR,
  DEFAULT_REQUEST_COUNT_FILE,
  DEFAULT_SANDBOX_STATE,
  defaultSandboxState,
  defaultTargetCredentialsFile,
  isCi,
  isFleetSelection,
  normalizeBaseUrl,
  ownersOf,
  selectTargets,
  targetGlob,
} from './targets.js';
export type { BackendChoice, BackendDocument, ConcurrencyConfig, CredentialsConfig, DailyQuotaTarget, OAuthCredentials, RemoteTarget, ResolvedTarget, RolloutConfig, SandboxTarget, TargetBase, TargetConfig, TargetsConfig, TokenCredentials } from './targets.js';
export { buildQueryString, isLoopbackHost, parseSecureUrl } from './url.js';
export type { Query, QueryValue } from './url.js';
