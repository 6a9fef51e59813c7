// Configuration from the environment: defaults, and a clear message naming the variable on a bad value.
import { loadConfig } from '../service/src/config';

test('defaults match the README', () => {
  const config = loadConfig({});
  expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, rateLimitPerMinute: 5000, allowPrivateUrls: false, logLevel: 'info', bootstrap: null });
  expect(config.databasePath).toMatch(/data\/jobhooks\.db$/);
});

test('values are read and converted', () => {
  const config = loadConfig({
    PORT: '9000',
    JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '12',
    JOBHOOKS_BOOTSTRAP_TOKEN: 'a-long-enough-bootstrap-token',
    JOBHOOKS_RATE_LIMIT_PER_MINUTE: '10',
  });
  expect(config).toMatchObject({ port: 9000, allowPrivateUrls: true, rateLimitPerMinute: 10, bootstrap: { accountId: 12, token: 'a-long-enough-bootstrap-token' } });
});

test.each([
  [{ PORT: 'eighty' }, /PORT: must be a port number/],
  [{ PORT: '70000' }, /PORT/],
  [{ JOBHOOKS_RATE_LIMIT_PER_MINUTE: '0' }, /JOBHOOKS_RATE_LIMIT_PER_MINUTE/],
  [{ JOBHOOKS_ALLOW_PRIVATE_URLS: 'maybe' }, /JOBHOOKS_ALLOW_PRIVATE_URLS/],
  [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  [{ JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1' }, /must be set together/],
  [{ JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1', JOBHOOKS_BOOTSTRAP_TOKEN: 'short' }, /JOBHOOKS_BOOTSTRAP_TOKEN: must be at least 20/],
])('%j is refused with a message naming the variable', (env, message) => {
  expect(() => loadConfig(env)).toThrow(message);
});
