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

/**
 * The host as written: what follows `scheme://`, without user info and port. Null when the URL has no `//` (a URL
 * parser reads `http:example.com` as `http://example.com/`).
 */
function writtenHost(value: string): string | null {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(value)?.[1];
  if (authority === undefined) return null;
  return authority.slice(authority.lastIndexOf('@') + 1).replace(/:\d*$/, '');
}

/** Spaces and ASCII control characters (U+0000 to U+001F, U+007F), which a URL parser removes or encodes. */
const SILENTLY_REWRITTEN = /[\u0000-\u0020\u007f]/;

export const ClientUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'client_url is required' : 'client_url must be a string') })
  .min(1, 'client_url must not be empty')
  .max(LIMITS.clientUrlMaxChars, `client_url must be at most ${LIMITS.clientUrlMaxChars} characters`)
  .superRefine((value, ctx) => {
    if (SILENTLY_REWRITTEN.test(value)) {
      // A URL parser drops tabs and line breaks, and trims spaces and control characters: the address stored and
      // shown would not be the one called (a tab can even join two host labels into another host).
      ctx.addIssue({
        code: 'custom',
        message: 'client_url must not contain spaces, tabs, line breaks or control characters',
      });
      return;
    }
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
      return;
    }
    // The host called must be the host shown: a parser maps escapes, non-ASCII dots and invisible characters, and
    // reads a backslash as a slash, so "good.example%2eevil.example" would call good.example.evil.example.
    const host = writtenHost(value);
    if (host === null) {
      ctx.addIssue({ code: 'custom', message: 'client_url must be an absolute URL' });
    } else if (host.toLowerCase() !== url.hostname) {
      ctx.addIssue({
        code: 'custom',
        message: `client_url must name its host in plain ASCII, as it is called (here ${url.hostname})`,
      });
    }
    if (url.username !== '' || url.password !== '') {
      // Credentials in the URL would be stored and shown in clear; the Authorization header is ours.
      ctx.addIssue({ code: 'custom', message: 'client_url must not contain credentials' });
    }
  })
  .meta({ description: 'Endpoint that receives events (http or https).', format: 'uri' });
