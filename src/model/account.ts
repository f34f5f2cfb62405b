// The account a run talks to, as the service names it (GET /empresas/me/dados-basicos). Every
// command that reaches an account reads it once, prints it first, and a saved plan records it:
// the base URL alone does not tell two stores behind the same API apart.

export interface AccountIdentity {
  /** The company's id, a string hash: what a saved plan and the apply lock compare. */
  id: string;
  nome: string;
  cnpj: string;
}

/** `Loja Nova Ltda (CNPJ 12.345.678/0001-90)`: how outputs name an account. */
export function describeAccount(account: AccountIdentity): string {
  const name = account.nome.trim() === '' ? `account ${account.id}` : account.nome;
  return account.cnpj.trim() === '' ? name : `${name} (CNPJ ${account.cnpj})`;
}
