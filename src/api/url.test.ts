import { describe, expect, it } from 'vitest';
import { buildQueryString, buildRequestPath, isLoopbackHost, parseSecureUrl } from './url.js';

describe('secure URLs', () => {
  it('accepts https anywhere and http only on loopback', () => {
    expect(parseSecureUrl('https://api.bling.com.br/Api/v3').host).toBe('api.bling.com.br');
    expect(parseSecureUrl('http://127.0.0.1:8080/Api/v3').port).toBe('8080');
    expect(parseSecureUrl('http://localhost/Api/v3').hostname).toBe('localhost');
    expect(parseSecureUrl('http://[::1]:9/x').hostname).toBe('[::1]');
    expect(() => parseSecureUrl('http://api.bling.com.br/Api/v3')).toThrow(expect.objectContaining({ code: 'INSECURE_URL' }));
    expect(() => parseSecureUrl('ftp://x/')).toThrow(expect.objectContaining({ code: 'INSECURE_URL' }));
    expect(() => parseSecureUrl('https://u:p@x/')).toThrow(expect.objectContaining({ code: 'INSECURE_URL' }));
    expect(() => parseSecureUrl('not a url')).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });

  it('knows the loopback range', () => {
    expect(isLoopbackHost('127.10.0.1')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.evil.com')).toBe(false);
  });
});

describe('query strings', () => {
  it('writes arrays PHP-style and skips undefined', () => {
    expect(buildQueryString({ pagina: 2, tiposPagamentos: [1, 17], descricao: 'Pix à vista', situacao: undefined, ativo: true })).toBe(
      'pagina=2&tiposPagamentos[]=1&tiposPagamentos[]=17&descricao=Pix%20%C3%A0%20vista&ativo=true',
    );
    expect(buildQueryString(undefined)).toBe('');
  });

  it('joins the base path, the path and the query', () => {
    expect(buildRequestPath('/Api/v3/', '/formas-pagamentos', { pagina: 1 })).toBe('/Api/v3/formas-pagamentos?pagina=1');
    expect(buildRequestPath('/Api/v3', '/x?a=1', { b: 2 })).toBe('/Api/v3/x?a=1&b=2');
    expect(() => buildRequestPath('/Api/v3', 'https://evil.example/x')).toThrow();
    expect(() => buildRequestPath('/Api/v3', '//evil.example/x')).toThrow();
  });
});
