import { findWebhookUrlProblem } from './webhook-url-guard';

describe(findWebhookUrlProblem.name, () => {
  it.each([
    ['https://127.0.0.1/hook', 'private'],
    ['https://10.1.2.3/hook', 'private'],
    ['https://192.168.0.10:8443/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://[::1]/hook', 'private'],
    ['https://[::ffff:127.0.0.1]/hook', 'private'],
    ['https://localhost/hook', 'private'],
    ['http://93.184.215.14/hook', 'https'],
    ['ftp://93.184.215.14/hook', 'https'],
    ['https://user:pw@93.184.215.14/hook', 'credentials'],
    ['not a url', 'absolute'],
  ])('should refuse %s when private targets are not allowed', async (url, problem) => {
    expect(await findWebhookUrlProblem(url, false)).toContain(problem);
  });

  it('should accept an https URL on a public address', async () => {
    expect(await findWebhookUrlProblem('https://93.184.215.14/hooks/linkpilot', false)).toBeNull();
  });

  it('should accept http on loopback only when private targets are allowed', async () => {
    expect(await findWebhookUrlProblem('http://127.0.0.1:4567/hook', true)).toBeNull();
    expect(await findWebhookUrlProblem('http://127.0.0.1:4567/hook', false)).toContain('https');
  });
});
