// The service's error envelope, `{"error":{type,message,description,fields?}}`, and the failure
// that route handlers throw to answer with it. Messages are Portuguese like the real service's.
import { ErpsyncError } from '../model/errors.js';

export interface ErrorFieldPayload {
  code: number;
  msg: string;
  element: string;
}

export interface ErrorPayload {
  type: string;
  message: string;
  description: string;
  fields?: ErrorFieldPayload[];
  limit?: number;
  period?: 'second' | 'day';
}

/**
 * Numeric codes of `fields[].code`. The real codes are undocumented; real traffic showed 23, 49
 * ("Id da forma de pagamento inválido"), 62 (accounts already posted), 63 (cannot reverse), 64
 * ("Existe um pagamento": a DELETE of a record in use) and 84 (payment method missing or inactive,
 * on receivables) — real-observations #7, #14. Where a refusal is one of those, it answers the
 * real code (in use: 64); the others are ours, below 23 so they never read as a real one, and
 * stable so tests and clients can rely on them.
 */
export const fieldCodes = {
  missing: 1,
  wrongType: 2,
  notAllowed: 3,
  unknownReference: 4,
  rule: 5,
  inUse: 64,
  hasChildren: 7,
  readOnlyRecord: 8,
} as const;

export type FieldProblemKind = keyof typeof fieldCodes;

export interface FieldProblem {
  kind: FieldProblemKind;
  element: string;
  msg: string;
}

/** A response-shaped failure; the server turns it into the error envelope with its status. */
export class ApiFailure extends ErpsyncError {
  readonly status: number;
  readonly payload: ErrorPayload;

  constructor(status: number, payload: ErrorPayload) {
    super('API_ERROR', `${status} ${payload.type}: ${payload.description}`);
    this.name = 'ApiFailure';
    this.status = status;
    this.payload = payload;
  }
}

export function errorEnvelope(payload: ErrorPayload): { error: ErrorPayload } {
  return { error: payload };
}

export function notFound(description = 'O registro solicitado não foi encontrado.'): ApiFailure {
  return new ApiFailure(404, { type: 'RESOURCE_NOT_FOUND', message: 'Recurso não encontrado', description });
}

export function routeNotFound(): ApiFailure {
  return notFound('A URI requisitada não existe.');
}

/** All-missing problems answer MISSING_REQUIRED_FIELD_ERROR; anything else VALIDATION_ERROR. */
export function validationFailure(problems: readonly FieldProblem[]): ApiFailure {
  const onlyMissing = problems.every((p) => p.kind === 'missing');
  const fields = problems.map((p) => ({ code: fieldCodes[p.kind], msg: p.msg, element: p.element }));
  if (onlyMissing) {
    return new ApiFailure(400, {
      type: 'MISSING_REQUIRED_FIELD_ERROR',
      message: 'Campos obrigatórios não informados',
      description: 'Um ou mais campos obrigatórios não foram informados.',
      fields,
    });
  }
  return new ApiFailure(400, {
    type: 'VALIDATION_ERROR',
    message: 'Não foi possível salvar o registro',
    description: 'Um ou mais campos contêm valores inválidos.',
    fields,
  });
}

/** A business rule refused the operation (in use, has children, built-in record …). */
export function ruleFailure(kind: FieldProblemKind, element: string, msg: string): ApiFailure {
  return new ApiFailure(400, {
    type: 'VALIDATION_ERROR',
    message: 'Não foi possível concluir a operação',
    description: msg,
    fields: [{ code: fieldCodes[kind], msg, element }],
  });
}

export function emptyBodyFailure(): ApiFailure {
  return new ApiFailure(400, {
    type: 'MISSING_REQUIRED_FIELD_ERROR',
    message: 'Nenhum dado enviado',
    description: 'Nenhum dado foi enviado na requisição.',
  });
}

export function malformedBodyFailure(description: string): ApiFailure {
  return new ApiFailure(400, {
    type: 'INVALID_REQUEST_BODY',
    message: 'Corpo da requisição inválido',
    description,
  });
}

export function serverErrorPayload(): ErrorPayload {
  return {
    type: 'SERVER_ERROR',
    message: 'Erro interno',
    description: 'Ocorreu um erro inesperado no servidor. Tente novamente mais tarde.',
  };
}

export function tooManyRequestsPayload(period: 'second' | 'day', limit: number): ErrorPayload {
  return {
    type: 'TOO_MANY_REQUESTS',
    message: 'Limite de requisições atingido.',
    description:
      period === 'second'
        ? `O limite de ${limit} requisições por segundo foi atingido; aguarde e tente novamente.`
        : `O limite de ${limit} requisições por dia foi atingido; tente novamente amanhã.`,
    limit,
    period,
  };
}

/**
 * What a blocked IP receives (rule ip-blocks). The references do not say (api-facts §5, §8): a
 * 403 in the service's envelope is our choice — a refusal no client retries — naming when it ends.
 */
export function ipBlockedPayload(remainingMs: number): ErrorPayload {
  return {
    type: 'IP_BLOCKED',
    message: 'Endereço IP bloqueado.',
    description: `Este endereço IP excedeu os limites de uso e está bloqueado por mais ${Math.ceil(remainingMs / 60_000)} minuto(s).`,
  };
}
