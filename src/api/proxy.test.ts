import { describe, expect, it } from 'vitest';
import { describeRoute, proxySecrets, proxyVariableSecrets, readProxySettings, routeFor } from './proxy.js';
import { redactText } from './redact.js';

const api = new URL('https://api.bling.com.br/Api/v3');
const local = new URL('http://127.0.0.1:8080/Api/v3');

describe('the proxy variables', () => {
  it('reads the lower-case name first, as undici does, and sends https through HTTP_PROXY when HTTPS_PROXY is unset', () => {
    const settings = readProxySettings({ https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128', HTTP_PROXY: 'http://plain:8080' });
    expect(routeFor(settings, api)).toEqual({ via: 'proxy', proxy: { url: 'http://lower:3128', from: 'https_proxy' } });
    expect(routeFor(readProxySettings({ HTTP_PROXY: 'http://plain:8080' }), api)).toEqual({ via: 'proxy', proxy: { url: 'http://plain:8080', from: 'HTTP_PROXY' } });
    expect(routeFor(readProxySettings({ HTTPS_PROXY: 'http://upper:3128' }), local)).toEqual({ via: 'direct', because: 'no HTTP_PROXY is set' });
    expect(routeFor(readProxySettings({ HTTPS_PROXY: '' }), api)).toEqual({ via: 'direct', because: 'no HTTPS_PROXY or HTTP_PROXY is set' });
  });

  it.each([
    ['api.bling.com.br', api, 'direct'],
    ['.bling.com.br', api, 'direct'],
    ['*.bling.com.br', api, 'direct'],
    ['bling.com.br', api, 'direct'],
    ['ling.com.br', api, 'proxy'],
    ['api.bling.com.br:443', api, 'direct'],
    ['api.bling.com.br:8443', api, 'proxy'],
    ['127.0.0.1', local, 'direct'],
    ['127.0.0.1:9999', local, 'proxy'],
    ['localhost, 127.0.0.1:8080', local, 'direct'],
    ['*', api, 'direct'],
  ])('NO_PROXY=%s sends %s %s', (noProxy, url, via) => {
    const settings = readProxySettings({ HTTP_PROXY: 'http://proxy:3128', NO_PROXY: noProxy });
    expect(routeFor(settings, url).via).toBe(via);
  });

  it('says which entry sent a request direct', () => {
    const settings = readProxySettings({ https_proxy: 'http://proxy:3128', no_proxy: 'example.com,.bling.com.br' });
    expect(describeRoute(api, routeFor(settings, api))).toBe('https://api.bling.com.br direct (no_proxy names .bling.com.br)');
  });

  it('refuses a proxy URL it cannot use, naming the variable and never its value', () => {
    expect(() => readProxySettings({ HTTPS_PROXY: 'agency:s3cret-pass@proxy' })).toThrow(/^HTTPS_PROXY must start with http:\/\/ or https:\/\/$/);
    expect(() => readProxySettings({ http_proxy: 'socks5://agency:s3cret-pass@proxy:1080' })).toThrow(/^http_proxy must start with http:\/\/ or https:\/\/$/);
    expect(() => readProxySettings({ HTTP_PROXY: 'http://agency:s3cret-pass@[proxy' })).toThrow(/^HTTP_PROXY is not a URL erpsync can use as a proxy$/);
  });
});

describe("a proxy's credentials", () => {
  const withCredentials = 'http://agency%40corp:p%40ss-w0rd@proxy.corp:3128';

  it('are masked wherever the route is described', () => {
    const route = routeFor(readProxySettings({ HTTPS_PROXY: withCredentials }), api);
    expect(describeRoute(api, route)).toBe('https://api.bling.com.br through http://[redacted]@proxy.corp:3128 (HTTPS_PROXY)');
  });

  it('are known to the redactors in every form they are written in', () => {
    expect(proxySecrets(readProxySettings({ HTTPS_PROXY: withCredentials }))).toEqual(expect.arrayContaining(['p%40ss-w0rd', 'p@ss-w0rd', 'agency%40corp', 'agency@corp']));
    expect(proxyVariableSecrets({ http_proxy: withCredentials, HTTPS_PROXY: 'not a url', HTTP_PROXY: 'http://proxy:3128' })).toEqual([withCredentials, 'p%40ss-w0rd', 'p@ss-w0rd', 'agency%40corp', 'agency@corp']);
  });

  it("are cut out of any URL in a message by the API layer's patterns", () => {
    expect(redactText(`connect failed via ${withCredentials}/x and https://user:pw@host`, [])).toBe('connect failed via http://[redacted]@proxy.corp:3128/x and https://[redacted]@host');
    expect(redactText('mail ops@example.com about https://example.com/a@b', [])).toBe('mail ops@example.com about https://example.com/a@b');
  });
});
