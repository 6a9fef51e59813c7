// The API base URL every client takes (`host_url` in the dbt Cloud providers): an http(s) URL ending in /api.
// The clients append /v2/... and /v3/... to it, so a URL without /api reaches no route; say so up front.

/** What is wrong with a host URL, in one sentence, or null when it can be used. */
export function hostUrlProblem(hostUrl: string): string | null {
  // Quoted only when it cannot hold a password: an unencoded "/" or "#" in one makes the whole URL unreadable.
  if (!URL.canParse(hostUrl))
    return `host_url must be the API base URL ending in /api (e.g. http://127.0.0.1:8080/api); ${hostUrl.includes('@') ? 'the value given' : `"${hostUrl}"`} is not a URL.`;
  const url = new URL(hostUrl);
  // Before any message that quotes the URL: its password is not repeated.
  if (url.username !== '' || url.password !== '')
    return 'host_url must not carry a user name or password (the API takes its token in a header of its own); remove the "user:password@" part.';
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `host_url must be an http or https URL, not "${hostUrl}".`;
  if (!/\/api\/*$/.test(url.pathname)) return `host_url must end in /api (e.g. ${url.origin}/api), not "${hostUrl}".`;
  return null;
}
