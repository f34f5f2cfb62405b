// Which variables a manifest's `${NAME}` may read: only those the project declares. A CI job's
// environment holds secrets of its own (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, NPM_TOKEN) that a
// pull request could otherwise write into a field and have printed in the plan comment, so
// `${NAME}` reads, in this order: the target's `variables`, then its `envFile`, then
// ERPSYNC_VAR_NAME from the environment (as Terraform reads only TF_VAR_*), and — in a secret
// field only — the variable the field itself declares (NFSE_SENHA_PREFEITURA) under its own name.
// Nothing else of the environment is ever read. The loader and a saved plan's secrets use this
// one lookup.

/** The prefix erpsync reads manifest variables under: `${LOJA}` is ERPSYNC_VAR_LOJA. */
export const variablePrefix = 'ERPSYNC_VAR_';

/** Where a manifest's variables come from. */
export interface VariableScope {
  /** The process environment: only its ERPSYNC_VAR_* variables and a secret field's own variable are read. */
  env: NodeJS.ProcessEnv;
  /** The target's envFile, then its `variables` over it (already merged, the latter winning). */
  declared?: Readonly<Record<string, string>>;
}

/**
 * The value of `${name}`, or undefined when the project does not declare it. `fieldVariable` is
 * the variable the secret field being filled declares for itself, if any.
 */
export function readVariable(scope: VariableScope, name: string, fieldVariable?: string): string | undefined {
  return scope.declared?.[name] ?? scope.env[`${variablePrefix}${name}`] ?? (name === fieldVariable ? scope.env[name] : undefined);
}

/** Where `${name}` may be set, for messages (never its value). */
export function describeVariableSources(name: string, fieldVariable?: string): string {
  const declared = `${variablePrefix}${name} in the environment, or ${name} in the target's \`variables\` or \`envFile\``;
  return fieldVariable === name ? `${name} in the environment (the variable this secret field declares), ${declared}` : declared;
}
