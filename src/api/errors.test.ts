import { describe, expect, it } from 'vitest';
import { ApiError, ApiOutcomeUnknownError, categorizeStatus, parseErrorBody } from './errors.js';

describe('error bodies', () => {
  it('reads the v3 envelope with fields and collections', () => {
    const body = parseErrorBody(
      JSON.stringify({
        error: {
          type: 'VALIDATION_ERROR',
          message: 'Não foi possível salvar',
          description: 'Campos inválidos',
          fields: [
            { code: 1, msg: 'O campo descrição é obrigatório', element: 'descricao', namespace: 'FORMAPAGAMENTO' },
            { code: 2, msg: 'Lista inválida', element: 'tributos', collection: [{ index: 0, code: 3, msg: 'CNAE inválido', element: 'CNAE' }] },
          ],
        },
      }),
      'application/json',
    );
    expect(body.type).toBe('VALIDATION_ERROR');
    expect(body.fields).toEqual([
      { message: 'O campo descrição é obrigatório', element: 'descricao', namespace: 'FORMAPAGAMENTO', code: 1 },
      { message: 'Lista inválida', element: 'tributos', namespace: undefined, code: 2 },
      { message: 'CNAE inválido', element: 'tributos[0].CNAE', code: 3 },
    ]);
  });

  it('reads OAuth-style errors, the 429 period and HTML pages', () => {
    expect(parseErrorBody('{"error":"invalid_grant","error_description":"expired"}', 'application/json')).toMatchObject({
      type: 'invalid_grant',
      message: 'expired',
    });
    expect(parseErrorBody('{"error":{"type":"TOO_MANY_REQUESTS","message":"x","limit":120000,"period":"day"}}', undefined).period).toBe('day');
    const html = parseErrorBody('<html><head><title>Error 1015 | Rate limited</title></head></html>', 'text/html');
    expect(html).toMatchObject({ nonJson: true, message: 'Error 1015 | Rate limited' });
    expect(parseErrorBody('{broken', 'application/json')).toMatchObject({ nonJson: true });
    expect(parseErrorBody('', undefined)).toMatchObject({ nonJson: true, fields: [] });
  });

  it('classifies by status, not by the type the body claims', () => {
    expect(categorizeStatus(401)).toBe('auth');
    expect(categorizeStatus(403)).toBe('forbidden');
    expect(categorizeStatus(404)).toBe('not-found');
    expect(categorizeStatus(429)).toBe('rate-limited');
    expect(categorizeStatus(418)).toBe('client');
    expect(categorizeStatus(503)).toBe('server');
    expect(categorizeStatus(302)).toBe('redirect');
    const error = new ApiError({
      status: 401,
      method: 'GET',
      path: '/formas-pagamentos',
      body: { type: 'VALIDATION_ERROR', message: 'Token\n inválido', fields: [], nonJson: false },
    });
    expect(error.category).toBe('auth');
    expect(error.code).toBe('API_ERROR');
    expect(error.message).toBe('GET /formas-pagamentos: 401 not authenticated (the access token is invalid or expired) — Token inválido');
  });

  it('puts field messages in details, one per line', () => {
    const error = new ApiError({
      status: 400,
      method: 'POST',
      path: '/formas-pagamentos',
      attempts: 1,
      body: { message: 'Erro', fields: [{ element: 'descricao', message: 'obrigatório', code: 7 }, { message: 'geral' }], nonJson: false },
    });
    expect(error.details).toEqual(['descricao: obrigatório (code 7)', 'geral']);
    expect(error.exitCode).toBe(1);
  });

  it('has a distinct class and code for unknown write outcomes', () => {
    const error = new ApiOutcomeUnknownError({ method: 'POST', path: '/situacoes', reason: 'the connection broke' });
    expect(error.code).toBe('API_OUTCOME_UNKNOWN');
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error.message).toContain('may or may not');
  });
});
