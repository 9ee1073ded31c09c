import { checkHostname } from './hostname-rules';

const OWN_HOSTS = ['go.linkpilot.io'];

describe('checkHostname', () => {
  it.each([
    ['links.example.com', 'links.example.com'],
    ['Links.Example.COM', 'links.example.com'],
    ['  shop.example.org  ', 'shop.example.org'],
    ['links.example.com.', 'links.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['1password.example', '1password.example'],
  ])('should take %j as %s', (input, hostname) => {
    expect(checkHostname(input, OWN_HOSTS)).toEqual({ hostname });
  });

  it.each([
    ['', /bare hostname/],
    ['https://links.example.com', /bare hostname/],
    ['links.example.com:8443', /bare hostname/],
    ['links.example.com/path', /bare hostname/],
    ['user@links.example.com', /bare hostname/],
    ['localhost', /with a dot/],
    ['127.0.0.1', /IP address/],
    ['2130706433', /IP address/],
    ['0x7f.1', /IP address/],
    ['[::1]', /bare hostname/],
    ['-bad.example.com', /valid domain name/],
    ['bad_.example.com', /valid domain name/],
    ['example.123', /valid hostname/],
    [`${'a'.repeat(64)}.example.com`, /valid domain name/],
    [`${'a.'.repeat(127)}com`, /253/],
    ['GO.linkpilot.io', /own host/],
  ])('should refuse %j', (input, problem) => {
    const check = checkHostname(input, OWN_HOSTS);
    expect('problem' in check ? check.problem : check.hostname).toMatch(problem);
  });
});
