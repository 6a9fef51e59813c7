// The shape rule for a subscriber endpoint URL. Whether its host may be private is policy, decided in security/.
import { z } from 'zod';
import { LIMITS } from './limits';

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

export const ClientUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'client_url is required' : 'client_url must be a string') })
  .min(1, 'client_url must not be empty')
  .max(LIMITS.clientUrlMaxChars, `client_url must be at most ${LIMITS.clientUrlMaxChars} characters`)
  .superRefine((value, ctx) => {
    const url = parseUrl(value);
    if (url === null) {
      ctx.addIssue({ code: 'custom', message: 'client_url must be an absolute URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'client_url must use http or https' });
    }
    if (url.hostname === '') {
      ctx.addIssue({ code: 'custom', message: 'client_url must name a host' });
    }
    if (url.username !== '' || url.password !== '') {
      // Credentials in the URL would be stored and shown in clear; the Authorization header is ours.
      ctx.addIssue({ code: 'custom', message: 'client_url must not contain credentials' });
    }
  })
  .meta({ description: 'Endpoint that receives events (http or https).', format: 'uri' });
