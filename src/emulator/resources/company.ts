// GET /empresas/me/dados-basicos: the account itself (reference/more-config.md, schema
// EmpresasDadosBasicosDTO): `id` is a string hash, unlike every other id. Read-only; erpsync names
// every run with it. A state without a company (written before this route existed) answers the seed's.
import type { Route } from '../router.js';
import { ok } from '../router.js';

export interface CompanyRecord {
  id: string;
  nome: string;
  cnpj: string;
  email: string;
  /** ISO date (format: date) the plan's contract started. */
  dataContrato: string;
}

/** The company of a fresh sandbox account. */
export const seededCompany: CompanyRecord = {
  id: '5f0c1d7e9a2b4c6d8e0f1a3b5c7d9e1f',
  nome: 'Loja Sandbox Ltda',
  cnpj: '12.345.678/0001-90',
  email: 'contato@loja-sandbox.example',
  dataContrato: '2024-01-02',
};

export const companyRoutes: Route[] = [
  {
    method: 'GET',
    template: '/empresas/me/dados-basicos',
    handle: ({ state }) => ok({ data: { ...(state.empresa ?? seededCompany) } }),
  },
];
