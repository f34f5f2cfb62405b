// The target request of a command, built once from its target flags as the flag table read and
// checked them (numbers already numbers): what target resolution and fleet selection take, so no
// later stage parses a flag again. It reads nothing else and decides nothing.
import type { FleetRequest } from '../workflows/fleet-workflow.js';
import type { ParsedFlags, targetFlags } from './flags.js';

/** Any command's target flags, as the flag table read them: those a command does not take are absent. */
type TargetFlagValues = Partial<ParsedFlags<(typeof targetFlags)[number] | 'changed-since'>>;

/** The target request of a command: its target flags, each already read and checked by the flag table, in the names the resolution takes. */
export function readTargetRequest(flags: TargetFlagValues): FleetRequest {
  return {
    target: flags.target,
    allTargets: flags['all-targets'] === true,
    shard: flags.shard,
    changedSince: flags['changed-since'],
    baseUrl: flags['base-url'],
    sandbox: flags.sandbox,
    sandboxState: flags['sandbox-state'],
    rate: flags.rate,
    maxRequests: flags['max-requests'],
    requestTimeoutMs: flags['request-timeout'],
    ipRunners: flags['ip-runners'],
    config: flags.config,
    debug: flags.debug,
  };
}
