// The service day a request belongs to, for the account's daily quota (api-facts §5). It lives in
// model/ because the quota's stores (state/) and the quota's rules (workflows/daily-quota) both
// count by it. It decides nothing else.

/**
 * The references do not say when the service's day turns; Bling's accounts are Brazilian
 * companies, so erpsync takes midnight in São Paulo (UTC−3, no daylight saving since 2019), as the
 * emulator does (rule daily-quota).
 */
export function serviceDayOf(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}
